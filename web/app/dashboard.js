// Dashboards: a player's page, a game's page and the leaderboards. Every chart
// is SVG with the numbers behind it one click away.
import { get, query } from "./api.js";
import { h, mount, date, numbers, playerLink, seatColour, attempt, loading, n as fmtNum, pct } from "./ui.js";
import { t, dateTime, term } from "./i18n.js";
import { gameName, valueText } from "./terms.js";
import { lineChart, barChart } from "./charts.js";
import { games } from "./lobby.js";

const num = (x, d = 2) => (x === null || x === undefined ? "—" : Number.isInteger(x) ? fmtNum(x) : fmtNum(x, d));

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

function playGroups(title, groups, game) {
  const keyText = (k) => (k == null ? "—" : game ? valueText(game, k) : String(k).replaceAll("_", " "));
  if (!groups?.length) return "";
  return h(
    "div",
    {},
    h("h3", {}, title),
    barChart({ title: t("stats-success-rate-of", { title }), bars: groups.map((g, i) => ({ label: keyText(g.key), value: g.success_rate ?? 0, colour: seatColour(i) })), max: 1, percent: true }),
    numbers(title, [t("stats-key"), t("stats-plays"), t("stats-successes"), t("stats-success-rate"), t("stats-avg-stake"), t("stats-avg-payoff")], groups.map((g) => [keyText(g.key), num(g.plays), num(g.successes), pct(g.success_rate), num(g.average_stake), num(g.average_payoff)])),
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
    name: gameName(g),
    colour: seatColour(i),
    points: list.map((r) => [new Date(r.created_at).getTime(), r.rating_after]),
  }));
  const dayLabel = (at) => dateTime(at, { month: "short", day: "numeric" });
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
    h("h2", { id: "rating-h" }, t("player-rating-history")),
    h("p", { class: "muted" }, t("player-rating-explained")),
    h("div", { class: "legend" }, series.map((se) => h("span", { class: "chip", style: `border-left:4px solid ${se.colour}` }, se.name))),
    lineChart({ title: t("player-rating-chart", { name }), series, xLabel: dayLabel, height: 220 }),
    numbers(
      t("player-rating-numbers"),
      [t("col-date"), t("col-game"), t("col-rank"), "μ", "σ", t("col-rating")],
      ratings.map((r) => [date(r.created_at), gameName(r.game), r.rank, num(r.mu_after), num(r.sigma_after), num(r.rating_after)]),
    ),
    (ratingsPage.current || []).length
      ? h("p", {}, t("player-rating-now"), " ", ratingsPage.current.map((c, i) => [i ? "; " : "", t("player-rating-current", { game: gameName(c.game), rating: num(c.rating), wins: c.wins, games: c.games })]))
      : "",
  );
  const perGame = (stats.games || []).map((g) =>
    h(
      "section",
      { class: "card", "aria-label": t("player-figures-label", { game: gameName(g.game) }) },
      h("h2", {}, h("a", { href: `#/game/${g.game}` }, gameName(g.game))),
      !g.finished ? h("p", { class: "muted" }, t("player-none-finished", { played: g.played })) : h("div", { class: "figures" }, figure(t("fig-played"), num(g.played)), figure(t("fig-finished"), num(g.finished)), figure(t("fig-won"), num(g.won)), figure(t("fig-win-rate"), pct(g.win_rate)), figure(t("fig-average-rank"), num(g.average_rank)), figure(t("fig-average-score"), num(g.average_score, 1)), figure(t("fig-rating"), num(g.rating))),
      g.best_round ? h("p", { class: "muted" }, t("player-best-round", { delta: g.best_round.delta, round: g.best_round.round }), " ", h("a", { href: `#/match/${g.best_round.match_id}` }, t("player-this-match")), ".") : "",
      playGroups(t("stats-by-kind"), g.kinds, g.game),
    ),
  );
  const results = h(
    "section",
    { class: "card", "aria-labelledby": "results-h" },
    h("h2", { id: "results-h" }, t("player-recent-results")),
    (finished.items || []).length
      ? h(
          "div",
          { class: "table-wrap" },
          h(
            "table",
            {},
            h("thead", {}, h("tr", {}, [t("col-finished"), t("col-game"), t("col-players"), t("col-rank"), t("col-score"), ""].map((c) => h("th", {}, c)))),
            h(
              "tbody",
              {},
              finished.items.map((m) =>
                h(
                  "tr",
                  {},
                  h("td", {}, date(m.finished_at)),
                  h("td", {}, gameName(m.game)),
                  h("td", {}, m.seats.map((s) => s.player?.name).filter(Boolean).join(", ")),
                  h("td", {}, placing.get(m.id)?.rank ?? ""),
                  h("td", {}, placing.get(m.id)?.score ?? ""),
                  h("td", {}, h("a", { href: `#/match/${m.id}` }, t("player-result-link")), " · ", h("a", { href: `#/replay/${m.id}` }, t("player-replay-link"))),
                ),
              ),
            ),
          ),
        )
      : h("p", { class: "muted" }, t("player-no-finished")),
  );
  const rel = player.reliability;
  const reliabilitySection = rel
    ? h(
        "section",
        { class: "card", id: "reliability", "aria-labelledby": "reliability-h" },
        h("h2", { id: "reliability-h" }, t("player-reliability")),
        h("p", { class: "muted" }, t("player-reliability-explained", { days: rel.window_days })),
        rel.owed
          ? [
              h("p", { id: "reliability-summary" }, t("player-reliability-summary", { met: rel.met, owed: rel.owed, ratio: pct(rel.ratio) })),
              h("ul", {}, rel.by_game.map((g) => h("li", {}, t("player-reliability-game", { game: gameName(g.game), met: g.met, owed: g.owed, ratio: pct(g.ratio) })))),
            ]
          : h("p", { id: "reliability-summary", class: "muted" }, t("player-reliability-none", { days: rel.window_days })),
      )
    : "";
  mount(app, h("h1", {}, player.name, player.is_bot ? h("span", { class: "badge" }, t("player-bot")) : ""), h("p", { class: "muted" }, t("player-since", { date: date(player.created_at) })), reliabilitySection, ratingSection, perGame, results);
}

export async function gamePage(app, gameId) {
  const game = await get(`/games/${gameId}`);
  const since = h("input", { type: "date", id: "since", "aria-label": t("stats-since") });
  const until = h("input", { type: "date", id: "until", "aria-label": t("stats-until") });
  const players = h("select", { id: "players", "aria-label": t("col-players") }, h("option", { value: "" }, t("stats-any")), (game.seats || []).map((n) => h("option", { value: n }, n)));
  const windowSel = h(
    "select",
    { id: "window", "aria-label": t("stats-window") },
    [["", t("stats-all-time")], ["7", t("stats-last-days", { days: 7 })], ["30", t("stats-last-days", { days: 30 })], ["90", t("stats-last-days", { days: 90 })], ["custom", t("stats-from-to")]].map(([v, l]) => h("option", { value: v }, l)),
  );
  const word = (k) => valueText(gameId, k);
  // A variant may join several: `open_sequential+characters`.
  const variantText = (v) => String(v ?? "").split("+").map((part) => term(gameId, "variant", part)).join(" + ");
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
      h("div", { class: "figures" }, figure(t("fig-finished-matches"), num(total)), figure(t("fig-rounds"), num(outcomeTotal))),
      h(
        "section",
        { class: "card" },
        h("h2", {}, t("stats-outcome-shares")),
        outcomeTotal
          ? barChart({ title: t("stats-outcome-chart"), bars: outcomeKeys.map((k, i) => ({ label: word(k), value: outcomes[k] / outcomeTotal, colour: seatColour(i) })), max: 1, percent: true })
          : h("p", { class: "muted" }, t("stats-no-rounds")),
        numbers(t("stats-outcomes"), [t("rounds-outcome"), t("fig-rounds"), t("stats-share")], outcomeKeys.map((k) => [word(k), num(outcomes[k]), pct(outcomes[k] / outcomeTotal)])),
        (st.by_value || []).some((v) => v.value !== null)
          ? [
              h("h3", {}, t("stats-by-value")),
              lineChart({
                title: t("stats-by-value-chart"),
                series: outcomeKeys.map((k, i) => ({ name: word(k), colour: seatColour(i), points: st.by_value.filter((v) => v.value !== null && v.rounds).map((v) => [v.value, v.outcome_rates?.[k] ?? 0]) })),
                xLabel: (x) => x,
              }),
              numbers(t("stats-by-value"), [t("stats-value"), t("fig-rounds"), ...outcomeKeys.map(word)], st.by_value.map((v) => [v.value ?? "—", num(v.rounds), ...outcomeKeys.map((k) => `${num(v.outcomes?.[k] ?? 0)} (${pct(v.outcome_rates?.[k])})`)])),
            ]
          : "",
      ),
      h(
        "section",
        { class: "card" },
        h("h2", {}, t("stats-seat-position")),
        h("p", { class: "muted" }, t("stats-seat-position-explained")),
        (st.seat_offsets || []).length
          ? barChart({ title: t("stats-seat-position-chart"), bars: st.seat_offsets.map((g) => ({ label: t("stats-position", { position: g.key }), value: g.win_rate ?? 0, colour: seatColour(Number(g.key) || 0) })), max: 1, percent: true })
          : h("p", { class: "muted" }, t("stats-no-data")),
        numbers(t("stats-seat-positions"), [t("stats-position-col"), t("stats-seats"), t("stats-wins"), t("fig-win-rate")], (st.seat_offsets || []).map((g) => [g.key, num(g.seats), num(g.wins), pct(g.win_rate)])),
      ),
      (st.roles || []).length
        ? h("section", { class: "card" }, h("h2", {}, t("stats-roles")), barChart({ title: t("stats-roles-chart"), bars: st.roles.map((g, i) => ({ label: word(g.key), value: g.win_rate ?? 0, colour: seatColour(i) })), max: 1, percent: true }), numbers(t("stats-roles"), [t("stats-role"), t("stats-seats"), t("stats-wins"), t("fig-win-rate")], st.roles.map((g) => [word(g.key), num(g.seats), num(g.wins), pct(g.win_rate)])))
        : "",
      h("section", { class: "card" }, playGroups(t("stats-plays-by-kind"), st.kinds, gameId) || h("p", { class: "muted" }, t("stats-no-plays"))),
      h("section", { class: "card" }, h("h2", {}, t("stats-matches")), barChart({ title: t("stats-matches-chart"), bars: (st.matches || []).map((m, i) => ({ label: t("stats-players-variant", { players: m.players, variant: variantText(m.variant) }), value: m.matches, colour: seatColour(i) })) }), numbers(t("stats-matches"), [t("col-players"), t("stats-variant"), t("stats-matches")], (st.matches || []).map((m) => [m.players, variantText(m.variant), num(m.matches)]))),
    ];
    mount(body, parts);
  }
  for (const el of [windowSel, players, since, until]) el.addEventListener("change", () => attempt(load));
  mount(
    app,
    h("h1", {}, gameName(gameId)),
    h("p", { class: "muted" }, t(`rules-${gameId}-summary`)),
    h("p", {}, h("a", { href: `#/leaderboards/${gameId}` }, t("leaderboard-link"))),
    h(
      "div",
      { class: "fields filters" },
      h("label", {}, h("span", {}, t("stats-window")), windowSel),
      h("label", {}, h("span", {}, t("col-players")), players),
      h("label", { hidden: true }, h("span", {}, t("stats-since")), since),
      h("label", { hidden: true }, h("span", {}, t("stats-until")), until),
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
    h("h1", {}, t("nav-leaderboards")),
    h("nav", { class: "tabs", "aria-label": t("leaderboard-games") }, list.map((g) => h("a", { href: `#/leaderboards/${g.id}`, "aria-current": g.id === current ? "page" : null }, gameName(g.id)))),
    h("p", {}, h("a", { href: `#/game/${current}` }, t("game-statistics-link", { game: gameName(current) }))),
    items.length
      ? h(
          "section",
          { class: "card" },
          h("h2", {}, t("leaderboard-top-ten")),
          barChart({ title: t("leaderboard-chart"), bars: top.map((e, i) => ({ label: e.player.name, value: Math.max(0, e.rating), text: num(e.rating), colour: seatColour(i) })) }),
          h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              { class: "leaderboard" },
              h("thead", {}, h("tr", {}, ["#", t("col-player"), t("col-rating"), "μ", "σ", t("col-games"), t("stats-wins")].map((c) => h("th", {}, c)))),
              h("tbody", {}, items.map((e) => h("tr", {}, h("td", {}, e.rank), h("td", {}, playerLink(e.player)), h("td", {}, num(e.rating)), h("td", {}, num(e.mu)), h("td", {}, num(e.sigma)), h("td", {}, e.games), h("td", {}, e.wins)))),
            ),
          ),
        )
      : h("p", { class: "muted" }, t("leaderboard-none")),
  );
}
