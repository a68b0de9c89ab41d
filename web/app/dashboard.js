// Dashboards: a player's page, a game's page and the leaderboards. Every chart
// is SVG with the numbers behind it one click away.
import { get, query } from "./api.js";
import { h, mount, words, date, numbers, playerLink, seatColour, attempt, loading } from "./ui.js";
import { lineChart, barChart } from "./charts.js";
import { games } from "./lobby.js";

const pct = (x) => (x === null || x === undefined ? "—" : `${(x * 100).toFixed(1)} %`);
const num = (x, d = 2) => (x === null || x === undefined ? "—" : Number.isInteger(x) ? x : x.toFixed(d));

function figure(label, value) {
  return h("div", { class: "figure" }, h("b", {}, value), h("span", { class: "muted" }, label));
}

async function allPages(path, max = 5) {
  const items = [];
  let cursor = null;
  for (let i = 0; i < max; i++) {
    const page = await get(path + (path.includes("?") ? "&" : "?") + query({ limit: 200, cursor }).slice(1));
    items.push(...(page.items || []));
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  return items;
}

function playGroups(title, groups) {
  if (!groups?.length) return "";
  return h(
    "div",
    {},
    h("h3", {}, title),
    barChart({ title: `${title}: success rate`, bars: groups.map((g, i) => ({ label: words(g.key ?? "—"), value: g.success_rate ?? 0, colour: seatColour(i) })), max: 1, percent: true }),
    numbers(title, ["Key", "Plays", "Successes", "Success rate", "Avg stake", "Avg payoff"], groups.map((g) => [words(g.key ?? "—"), g.plays, g.successes, pct(g.success_rate), num(g.average_stake), num(g.average_payoff)])),
  );
}

export async function playerPage(app, name) {
  mount(app, loading());
  const [player, stats, ratings, finished] = await Promise.all([
    get(`/players/${encodeURIComponent(name)}`),
    get(`/players/${encodeURIComponent(name)}/stats`),
    allPages(`/players/${encodeURIComponent(name)}/ratings`),
    get(`/matches${query({ player: name, status: "finished", limit: 10 })}`),
  ]);
  const ratingsPage = await get(`/players/${encodeURIComponent(name)}/ratings?limit=1`);
  const byGame = new Map();
  for (const r of ratings) {
    if (!byGame.has(r.game)) byGame.set(r.game, []);
    byGame.get(r.game).push(r);
  }
  const series = [...byGame.entries()].map(([g, list], i) => ({
    name: g,
    colour: seatColour(i),
    points: list.map((r) => [new Date(r.created_at).getTime(), r.rating_after]),
  }));
  const dayLabel = (t) => new Date(t).toLocaleDateString(undefined, { month: "short", day: "numeric" });
  // A match summary has no result: the few listed are read in full for it.
  const placing = new Map();
  await Promise.all(
    (finished.items || []).map(async (m) => {
      const full = await get(`/matches/${m.id}`).catch(() => null);
      const mine = full?.result?.find((r) => r.player?.name === name);
      if (mine) placing.set(m.id, mine);
    }),
  );
  const ratingSection = h(
    "section",
    { class: "card", "aria-labelledby": "rating-h" },
    h("h2", { id: "rating-h" }, "Rating history"),
    h("p", { class: "muted" }, "Conservative rating (μ − 3σ, Weng-Lin) after each rated match."),
    h("div", { class: "legend" }, series.map((se) => h("span", { class: "chip", style: `border-left:4px solid ${se.colour}` }, se.name))),
    lineChart({ title: `Rating history of ${name}`, series, xLabel: dayLabel, height: 220 }),
    numbers(
      "rating after each rated match",
      ["Date", "Game", "Rank", "μ", "σ", "Rating"],
      ratings.map((r) => [date(r.created_at), r.game, r.rank, num(r.mu_after), num(r.sigma_after), num(r.rating_after)]),
    ),
    (ratingsPage.current || []).length
      ? h("p", {}, "Now: ", ratingsPage.current.map((c, i) => [i ? "; " : "", `${c.game} ${num(c.rating)} (${c.wins} wins in ${c.games})`]))
      : "",
  );
  const perGame = (stats.games || []).map((g) =>
    h(
      "section",
      { class: "card", "aria-label": `${g.game} figures` },
      h("h2", {}, h("a", { href: `#/game/${g.game}` }, words(g.game))),
      !g.finished ? h("p", { class: "muted" }, `${g.played} played, none finished yet.`) : h("div", { class: "figures" }, figure("played", g.played), figure("finished", g.finished), figure("won", g.won), figure("win rate", pct(g.win_rate)), figure("average rank", num(g.average_rank)), figure("average score", num(g.average_score, 1)), figure("rating", num(g.rating))),
      g.best_round ? h("p", { class: "muted" }, `Best round: +${g.best_round.delta} in round ${g.best_round.round} of `, h("a", { href: `#/match/${g.best_round.match_id}` }, "this match"), ".") : "",
      playGroups("By kind", g.kinds),
    ),
  );
  const results = h(
    "section",
    { class: "card", "aria-labelledby": "results-h" },
    h("h2", { id: "results-h" }, "Recent results"),
    (finished.items || []).length
      ? h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            {},
            h("thead", {}, h("tr", {}, ["Finished", "Game", "Players", "Rank", "Score", ""].map((c) => h("th", {}, c)))),
            h(
              "tbody",
              {},
              finished.items.map((m) =>
                h(
                  "tr",
                  {},
                  h("td", {}, date(m.finished_at)),
                  h("td", {}, m.game),
                  h("td", {}, m.seats.map((s) => s.player?.name).filter(Boolean).join(", ")),
                  h("td", {}, placing.get(m.id)?.rank ?? ""),
                  h("td", {}, placing.get(m.id)?.score ?? ""),
                  h("td", {}, h("a", { href: `#/match/${m.id}` }, "result"), " · ", h("a", { href: `#/replay/${m.id}` }, "replay")),
                ),
              ),
            ),
          ),
        )
      : h("p", { class: "muted" }, "No finished match yet."),
  );
  mount(app, h("h1", {}, player.name, player.is_bot ? h("span", { class: "badge" }, "bot") : ""), h("p", { class: "muted" }, `Playing since ${date(player.created_at)}.`), ratingSection, perGame, results);
}

export async function gamePage(app, gameId) {
  const game = await get(`/games/${gameId}`);
  const since = h("input", { type: "date", id: "since", "aria-label": "Since" });
  const until = h("input", { type: "date", id: "until", "aria-label": "Until" });
  const players = h("select", { id: "players", "aria-label": "Players" }, h("option", { value: "" }, "any"), (game.seats || []).map((n) => h("option", { value: n }, n)));
  const windowSel = h(
    "select",
    { id: "window", "aria-label": "Window" },
    [["", "all time"], ["7", "last 7 days"], ["30", "last 30 days"], ["90", "last 90 days"], ["custom", "from … to …"]].map(([v, l]) => h("option", { value: v }, l)),
  );
  const body = h("div", {});
  async function load() {
    const days = windowSel.value;
    const custom = days === "custom";
    since.parentElement.hidden = !custom;
    until.parentElement.hidden = !custom;
    const q = { players: players.value };
    if (custom) {
      if (since.value) q.since = new Date(since.value).toISOString();
      if (until.value) q.until = new Date(until.value).toISOString();
    } else if (days) q.since = new Date(Date.now() - Number(days) * 86400e3).toISOString();
    const st = await get(`/games/${gameId}/stats${query(q)}`);
    const total = (st.matches || []).reduce((a, m) => a + m.matches, 0);
    const outcomes = {};
    for (const v of st.by_value || []) for (const [k, n] of Object.entries(v.outcomes || {})) outcomes[k] = (outcomes[k] || 0) + n;
    const outcomeTotal = Object.values(outcomes).reduce((a, b) => a + b, 0);
    const outcomeKeys = Object.keys(outcomes);
    const parts = [
      h("div", { class: "figures" }, figure("finished matches", total), figure("rounds", outcomeTotal)),
      h(
        "section",
        { class: "card" },
        h("h2", {}, "Outcome shares"),
        outcomeTotal
          ? barChart({ title: "Share of rounds per outcome", bars: outcomeKeys.map((k, i) => ({ label: words(k), value: outcomes[k] / outcomeTotal, colour: seatColour(i) })), max: 1, percent: true })
          : h("p", { class: "muted" }, "No rounds in this window."),
        numbers("outcomes", ["Outcome", "Rounds", "Share"], outcomeKeys.map((k) => [words(k), outcomes[k], pct(outcomes[k] / outcomeTotal)])),
        (st.by_value || []).some((v) => v.value !== null)
          ? [
              h("h3", {}, "By value"),
              lineChart({
                title: "Outcome share by value",
                series: outcomeKeys.map((k, i) => ({ name: k, colour: seatColour(i), points: st.by_value.filter((v) => v.value !== null && v.rounds).map((v) => [v.value, v.outcome_rates?.[k] ?? 0]) })),
                xLabel: (x) => x,
              }),
              numbers("by value", ["Value", "Rounds", ...outcomeKeys], st.by_value.map((v) => [v.value ?? "—", v.rounds, ...outcomeKeys.map((k) => `${v.outcomes?.[k] ?? 0} (${pct(v.outcome_rates?.[k])})`)])),
            ]
          : "",
      ),
      h(
        "section",
        { class: "card" },
        h("h2", {}, "Seat position"),
        h("p", { class: "muted" }, "Win rate by seat offset from the first round's lead seat: does sitting first help?"),
        (st.seat_offsets || []).length
          ? barChart({ title: "Win rate by seat position", bars: st.seat_offsets.map((g) => ({ label: `position ${g.key}`, value: g.win_rate ?? 0, colour: seatColour(Number(g.key) || 0) })), max: 1, percent: true })
          : h("p", { class: "muted" }, "No data."),
        numbers("seat positions", ["Position", "Seats", "Wins", "Win rate"], (st.seat_offsets || []).map((g) => [g.key, g.seats, g.wins, pct(g.win_rate)])),
      ),
      (st.roles || []).length
        ? h("section", { class: "card" }, h("h2", {}, "Roles"), barChart({ title: "Win rate by role", bars: st.roles.map((g, i) => ({ label: words(g.key), value: g.win_rate ?? 0, colour: seatColour(i) })), max: 1, percent: true }), numbers("roles", ["Role", "Seats", "Wins", "Win rate"], st.roles.map((g) => [words(g.key), g.seats, g.wins, pct(g.win_rate)])))
        : "",
      h("section", { class: "card" }, playGroups("Plays by kind", st.kinds) || h("p", { class: "muted" }, "No plays recorded.")),
      h("section", { class: "card" }, h("h2", {}, "Matches"), barChart({ title: "Matches by player count and variant", bars: (st.matches || []).map((m, i) => ({ label: `${m.players} p · ${words(m.variant)}`, value: m.matches, colour: seatColour(i) })) }), numbers("matches", ["Players", "Variant", "Matches"], (st.matches || []).map((m) => [m.players, words(m.variant), m.matches]))),
    ];
    mount(body, parts);
  }
  for (const el of [windowSel, players, since, until]) el.addEventListener("change", () => attempt(load));
  mount(
    app,
    h("h1", {}, game.name),
    h("p", { class: "muted" }, game.summary || ""),
    h("p", {}, h("a", { href: `#/leaderboards/${gameId}` }, "Leaderboard")),
    h(
      "div",
      { class: "fields filters" },
      h("label", {}, h("span", {}, "Window"), windowSel),
      h("label", {}, h("span", {}, "Players"), players),
      h("label", { hidden: true }, h("span", {}, "Since"), since),
      h("label", { hidden: true }, h("span", {}, "Until"), until),
    ),
    body,
  );
  await load();
}

export async function leaderboardsPage(app, gameId) {
  const list = await games();
  const current = gameId || list[0]?.id;
  const items = (await get(`/leaderboards/${current}?limit=100`)).items || [];
  const top = items.slice(0, 10);
  mount(
    app,
    h("h1", {}, "Leaderboards"),
    h("nav", { class: "tabs", "aria-label": "Games" }, list.map((g) => h("a", { href: `#/leaderboards/${g.id}`, "aria-current": g.id === current ? "page" : null }, g.name))),
    h("p", {}, h("a", { href: `#/game/${current}` }, `${words(current)}: statistics`)),
    items.length
      ? h(
          "section",
          { class: "card" },
          h("h2", {}, "Top ten by rating (μ − 3σ)"),
          barChart({ title: "Top ratings", bars: top.map((e, i) => ({ label: e.player.name, value: Math.max(0, e.rating), text: num(e.rating), colour: seatColour(i) })) }),
          h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              { class: "leaderboard" },
              h("thead", {}, h("tr", {}, ["#", "Player", "Rating", "μ", "σ", "Games", "Wins"].map((c) => h("th", {}, c)))),
              h("tbody", {}, items.map((e) => h("tr", {}, h("td", {}, e.rank), h("td", {}, playerLink(e.player)), h("td", {}, num(e.rating)), h("td", {}, num(e.mu)), h("td", {}, num(e.sigma)), h("td", {}, e.games), h("td", {}, e.wins)))),
            ),
          ),
        )
      : h("p", { class: "muted" }, "No rated match finished yet."),
  );
}
