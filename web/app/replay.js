// A finished match, move by move from its export bundle, with the seed's
// fairness check: SHA-256 of the revealed seed (crypto.subtle) against the
// commitment published at creation; and the server's own replay on request.
import { get, post } from "./api.js";
import { h, mount, attempt, words, seatColour, numbers } from "./ui.js";
import { lineChart } from "./charts.js";
import { show } from "./controls.js";
import { BOARDS } from "./match.js";

function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

export async function sha256Hex(bytes) {
  const d = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function describe(action) {
  const rest = Object.entries(action).filter(([k]) => k !== "type");
  return [words(action.type), ...rest.map(([k, v]) => `${words(k)} ${show(v)}`)].join(" · ");
}

/** The latest resolved round, as revealed: each seat's card, stake and gain. */
function lastRound(r, nameOf) {
  const cell = (x) =>
    [x.card, x.kind && x.kind !== x.card ? `as ${x.kind}` : null, x.choice ? `→ ${x.choice}` : null, x.stake != null ? `stake ${x.stake}` : null]
      .filter(Boolean)
      .map(words)
      .join(", ");
  return h(
    "div",
    { class: "table-wrap" },
    h("p", {}, h("strong", {}, `Round ${r.round}`), r.subject ? ` · ${words(r.subject)}` : "", r.outcome ? ` · ${words(r.outcome)}` : "", r.total_a != null ? ` (${r.total_a}:${r.total_b})` : ""),
    h(
      "table",
      {},
      h("tbody", {}, (r.seats || []).map((x) => h("tr", {}, h("td", { style: `color:${seatColour(x.seat)};font-weight:700` }, nameOf(x.seat)), h("td", {}, cell(x)), h("td", { class: x.delta > 0 ? "up" : x.delta < 0 ? "down" : "" }, x.delta > 0 ? `+${x.delta}` : x.delta)))),
    ),
  );
}

export async function replayPage(app, id) {
  const [bundle, match, roundsPage] = await Promise.all([
    get(`/matches/${id}/export`),
    get(`/matches/${id}`),
    get(`/matches/${id}/rounds?limit=200`).catch(() => ({ items: [] })),
  ]);
  const moves = bundle.moves || [];
  const rounds = bundle.rounds || [];
  const stepOf = new Map((roundsPage.items || []).map((r) => [r.round, r.step]));
  const nameOf = (seat) => bundle.players?.find((p) => p.seat === seat)?.name ?? `seat ${seat}`;
  const seats = bundle.seats ?? match.seat_count;

  // Fairness: the commitment and the revealed seed.
  const fair = h("section", { class: "card", "aria-labelledby": "fair-h" }, h("h2", { id: "fair-h" }, "Fairness"));
  const lines = [
    h("p", {}, "Committed at creation (SHA-256 of the seed): ", h("span", { class: "hash", id: "commitment" }, bundle.seed_sha256)),
    h("p", {}, "Seed revealed at the end: ", h("span", { class: "hash", id: "seed" }, bundle.seed ?? "not yet")),
  ];
  if (bundle.seed && !globalThis.crypto?.subtle) {
    // Browsers offer SHA-256 only to secure pages (https, or this machine).
    lines.push(h("p", { class: "muted", id: "fair-verdict" }, "This browser computes SHA-256 only on https pages; check the seed with docs/verify-fairness.py instead."));
  } else if (bundle.seed) {
    const computed = await sha256Hex(hexToBytes(bundle.seed));
    const ok = computed === bundle.seed_sha256;
    lines.push(
      h("p", {}, "SHA-256 of the seed, computed in your browser: ", h("span", { class: "hash", id: "computed" }, computed)),
      h("p", { class: `fair ${ok ? "ok" : "bad"}`, id: "fair-verdict" }, ok ? "✓ The seed matches its commitment: the deals were fixed before the first move." : "✗ The seed does NOT match its commitment."),
    );
  }
  const serverOut = h("div", { "aria-live": "polite" });
  lines.push(
    h("p", { class: "muted" }, "Every shuffle and draw can be recomputed from the seed: see docs/fairness.md in the repository. The server can also replay the whole bundle with its engines:"),
    h("button", {
      type: "button",
      class: "secondary",
      id: "verify",
      onclick: (e) => attempt(async () => {
        const r = await post("/replays/verify", bundle);
        mount(serverOut, h("p", { class: `fair ${r.valid ? "ok" : "bad"}` }, r.valid ? "✓ Replayed: every move legal, rounds and result identical, data and seed match." : `✗ ${r.problems.join("; ")}`));
      }, e.currentTarget),
    }, "Replay it on the server"),
    serverOut,
  );
  fair.append(...lines);

  // Scores after each round, from the rounds' deltas.
  const totals = Array.from({ length: seats }, () => [[0, 0]]);
  const running = Array(seats).fill(0);
  rounds.forEach((r, i) => {
    for (const sr of r.seats || []) running[sr.seat] += sr.delta || 0;
    for (let k = 0; k < seats; k++) totals[k].push([i + 1, running[k]]);
  });

  let at = moves.length;
  const board = h("div", {});
  const now = h("div", { class: "card", "aria-live": "polite" });
  const chartBox = h("div", {});
  const list = h("ol", { class: "move-list", start: 1 });
  const slider = h("input", { type: "range", min: 0, max: moves.length, value: at, "aria-label": "Move", id: "replay-slider" });
  const roundsDone = () => {
    const step = at === 0 ? -1 : moves[at - 1].step;
    return rounds.filter((r) => (stepOf.get(r.round) ?? Infinity) <= step).length;
  };
  function go(i) {
    at = Math.max(0, Math.min(moves.length, i));
    slider.value = at;
    const mv = moves[at - 1];
    const done = at === moves.length ? rounds.length : roundsDone();
    mount(
      now,
      h("p", { id: "replay-position" }, `Move ${at} of ${moves.length}`, mv ? ` · step ${mv.step}` : ""),
      mv
        ? h("p", {}, h("strong", { style: `color:${seatColour(mv.seat)}` }, nameOf(mv.seat)), mv.author ? ` (${mv.author})` : "", `: ${describe(mv.action)}`, mv.sealed ? h("span", { class: "badge" }, "sealed") : "")
        : h("p", { class: "muted" }, "The match as set up, before the first move."),
      h("p", { class: "muted" }, `${done} of ${rounds.length} rounds resolved`, done ? `; gains so far ${Array.from({ length: seats }, (_, k) => `${nameOf(k)} ${totals[k][done][1]}`).join(", ")}` : ""),
      done ? lastRound(rounds[done - 1], nameOf) : "",
    );
    mount(chartBox, lineChart({ title: "Gains by round, added up", series: totals.map((pts, k) => ({ name: nameOf(k), points: pts })), xLabel: (x) => `R${x}`, cursor: done, yZero: true }));
    [...list.children].forEach((li, k) => li.classList.toggle("current", k === at - 1));
    list.children[at - 1]?.scrollIntoView({ block: "nearest" });
    // The final position is the one view the API gives of a finished match.
    board.hidden = at !== moves.length;
  }
  slider.addEventListener("input", () => go(Number(slider.value)));
  const btn = (label, title, f) => h("button", { type: "button", class: "secondary small", title, "aria-label": title, onclick: f }, label);
  moves.forEach((mv, k) =>
    list.append(h("li", {}, h("button", { type: "button", class: "link", onclick: () => go(k + 1) }, `${nameOf(mv.seat)}: ${describe(mv.action)}`))),
  );
  if (match.view && BOARDS[match.game]) {
    try {
      board.append(h("h2", {}, "Final position"), BOARDS[match.game].render(match, {}));
    } catch (e) {
      console.warn(e);
    }
  }
  const keys = (e) => {
    if (e.target.closest("input, textarea, select")) return;
    if (e.key === "ArrowLeft") go(at - 1);
    else if (e.key === "ArrowRight") go(at + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(moves.length);
    else return;
    e.preventDefault();
  };
  document.addEventListener("keydown", keys);
  mount(
    app,
    h("h1", {}, `Replay: ${words(bundle.game)}`),
    h("p", {}, (bundle.players || []).map((p, k) => [k ? ", " : "", h("span", { style: `color:${seatColour(p.seat)};font-weight:700` }, p.name)]), ` · ${words(bundle.status)} · `, h("a", { href: `#/match/${id}` }, "match page")),
    h("div", { class: "replay-bar" }, btn("«", "First (Home)", () => go(0)), btn("◀", "Previous move (←)", () => go(at - 1)), slider, btn("▶", "Next move (→)", () => go(at + 1)), btn("»", "Last (End)", () => go(moves.length))),
    h("div", { class: "match-layout" }, h("div", {}, now, chartBox, numbers("scores by round", ["Round", ...Array.from({ length: seats }, (_, k) => nameOf(k))], totals[0].map((_, r) => [r, ...totals.map((t) => t[r][1])]))), h("section", { class: "card" }, h("h2", {}, "Moves"), h("div", { class: "move-scroll" }, list))),
    board,
    fair,
  );
  go(at);
  return () => document.removeEventListener("keydown", keys);
}
