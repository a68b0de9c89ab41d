-- wrk script: requests the paths listed in the file named by $PATHS in turn (one
-- per line, each connection starting at its own offset), and prints the latency
-- percentiles and error counts as one tab-separated line for benches/stats.sh.
local paths = {}
local file = os.getenv("PATHS")
for line in io.lines(file) do
  if #line > 0 then paths[#paths + 1] = line end
end
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("offset", counter * 7919)
end

local i = nil
function request()
  if i == nil then i = offset or 0 end
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end

function done(summary, latency, requests)
  local ms = function(p) return latency:percentile(p) / 1000.0 end
  local bad = summary.errors.status + summary.errors.connect + summary.errors.read
    + summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    ms(50), ms(95), ms(99), latency.max / 1000.0, bad))
end
