// Tournaments: the list (with a form to create one) and a tournament's page
// (standings with tie-breaks, rounds with their tables, entering and leaving,
// and the owner's start, bots and cancel). A running tournament's page reads
// itself again every few seconds: rounds start on the server's own time.
import { get, post, session, query } from "./api.js";
import { h, mount, attempt, toast, date, playerLink, loading, words } from "./ui.js";
import { games } from "./lobby.js";

const FORMATS = { swiss: "Swiss", round_robin: "Round robin" };

export async function tournamentsPage(app) {
  const listBox = h("div", {}, loading());
  const list = await games();

  async function render() {
    const page = await get(`/tournaments${query({ limit: 100 })}`);
    const items = page.items || [];
    mount(
      listBox,
      items.length === 0
        ? h("p", { class: "muted" }, "No tournament yet.")
        : h(
            "ul",
            { class: "matches", id: "tournament-list" },
            items.map((t) =>
              h(
                "li",
                {},
                h("a", { href: `#/tournament/${t.id}` }, t.name),
                h("span", { class: "muted" }, ` · ${t.game} · ${FORMATS[t.format] || t.format} · ${t.entrants} of ${t.max_players} · `),
                h("span", { class: "badge" }, words(t.status)),
              ),
            ),
          ),
    );
  }

  let create = null;
  if (session.get()) {
    const name = h("input", { id: "tournament-name", required: true, maxlength: 80 });
    const game = h("select", { id: "tournament-game" }, list.map((g) => h("option", { value: g.id }, g.name)));
    const format = h("select", { id: "tournament-format" }, Object.entries(FORMATS).map(([v, l]) => h("option", { value: v }, l)));
    const tableSize = h("input", { id: "tournament-table-size", type: "number", min: 2, value: 2, inputmode: "numeric" });
    const rounds = h("input", { id: "tournament-rounds", type: "number", min: 1, max: 50, placeholder: "automatic", inputmode: "numeric" });
    const maxPlayers = h("input", { id: "tournament-max", type: "number", min: 2, max: 256, value: 64, inputmode: "numeric" });
    const submit = h("button", { type: "submit", id: "tournament-submit" }, "Create tournament");
    create = h(
      "form",
      { class: "card" },
      h("h2", {}, "New tournament"),
      h("label", {}, h("span", {}, "Name"), name),
      h("div", { class: "fields" },
        h("label", {}, h("span", {}, "Game"), game),
        h("label", {}, h("span", {}, "Format"), format),
        h("label", {}, h("span", {}, "Seats at a table"), tableSize),
        h("label", {}, h("span", {}, "Rounds (Swiss)"), rounds),
        h("label", {}, h("span", {}, "Most entrants"), maxPlayers),
      ),
      submit,
    );
    create.addEventListener("submit", (e) => {
      e.preventDefault();
      attempt(async () => {
        const body = {
          name: name.value,
          game: game.value,
          format: format.value,
          table_size: Number(tableSize.value) || 2,
          max_players: Number(maxPlayers.value) || 64,
        };
        if (rounds.value && format.value === "swiss") body.rounds = Number(rounds.value);
        const t = await post("/tournaments", body);
        location.hash = `#/tournament/${t.id}`;
      }, submit);
    });
  }

  mount(app, h("h1", {}, "Tournaments"), h("div", { class: "lobby" }, h("div", { class: "card" }, listBox), create));
  await render();
}

function standingsTable(t) {
  if (!t.standings?.length) return h("p", { class: "muted" }, "Nobody has entered yet.");
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { id: "tournament-standings" },
      h("thead", {}, h("tr", {}, ["#", "Player", "Points", "Buchholz", "S-B", "Wins", "Games", "Byes"].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        t.standings.map((s) =>
          h(
            "tr",
            { class: s.player.name === session.name ? "you" : "" },
            h("td", {}, s.place),
            h("td", {}, playerLink(s.player), s.bot ? h("span", { class: "badge" }, `bot ${s.bot}`) : null, s.withdrawn ? h("span", { class: "badge warn" }, "withdrawn") : null),
            h("td", {}, s.points),
            h("td", {}, s.buchholz),
            h("td", {}, s.sonneborn_berger),
            h("td", {}, s.wins),
            h("td", {}, s.games),
            h("td", {}, s.byes),
          ),
        ),
      ),
    ),
  );
}

function roundsList(t) {
  if (!t.schedule?.length) return h("p", { class: "muted" }, "No round has started.");
  return h(
    "div",
    { id: "tournament-rounds" },
    [...t.schedule].reverse().map((r) =>
      h(
        "section",
        { class: "card" },
        h("h3", {}, `Round ${r.round}`),
        h(
          "ul",
          { class: "matches" },
          r.tables.map((tb) =>
            h(
              "li",
              {},
              h("a", { href: `#/match/${tb.match_id}` }, `Table ${tb.table}`),
              " ",
              tb.seats.map((s, i) => [i ? " · " : "", s.player.name, s.points != null ? ` (${s.points})` : ""]),
              tb.over ? "" : h("span", { class: "badge" }, "in play"),
            ),
          ),
        ),
        r.byes?.length ? h("p", { class: "muted" }, `Bye: ${r.byes.map((p) => p.name).join(", ")}`) : null,
      ),
    ),
  );
}

export async function tournamentPage(app, id) {
  const me = session.name;
  const head = h("div", {});
  const actions = h("div", { class: "actions", id: "tournament-actions" });
  const standings = h("section", { class: "card" });
  const rounds = h("div", {});
  let t = null;
  let bots = [];

  async function load() {
    t = await get(`/tournaments/${id}`);
    render();
  }

  const act = (label, path, body, cls = "") =>
    h("button", { type: "button", class: cls, onclick: (e) => attempt(async () => {
      await post(`/tournaments/${id}/${path}`, body);
      await load();
    }, e.target) }, label);

  function render() {
    const entered = t.standings?.find((s) => s.player.name === me);
    const owner = t.owner?.name === me;
    mount(
      head,
      h("h1", {}, t.name),
      h(
        "p",
        { class: "muted" },
        `${t.game} · ${FORMATS[t.format] || t.format} · tables of ${t.table_size} · `,
        h("span", { class: "badge", id: "tournament-status" }, words(t.status)),
        t.status === "running" ? ` · round ${t.current_round} of ${t.rounds}` : "",
        ` · ${t.entrants} of ${t.max_players} entrants · owner `,
        playerLink(t.owner),
        t.starts_at && t.status === "registering" ? ` · starts ${date(t.starts_at)}` : "",
      ),
    );
    const buttons = [];
    if (me && t.status === "registering" && !entered) buttons.push(act("Enter", "join", {}));
    if (me && entered && !entered.withdrawn && (t.status === "registering" || t.status === "running")) {
      buttons.push(act("Withdraw", "withdraw", {}, "secondary"));
    }
    if (owner && t.status === "registering") {
      const kind = h("select", { id: "tournament-bot-kind" }, bots.map((b) => h("option", { value: b }, b)));
      const count = h("input", { id: "tournament-bot-count", type: "number", min: 1, max: 256, value: 1, inputmode: "numeric" });
      buttons.push(
        h("span", { class: "inline-form" }, count, kind,
          h("button", { type: "button", id: "tournament-add-bots", onclick: (e) => attempt(async () => {
            await post(`/tournaments/${id}/bots`, { kind: kind.value, count: Number(count.value) || 1 });
            await load();
          }, e.target) }, "Add bots")),
      );
      buttons.push(act("Start now", "start", {}));
    }
    if (owner && (t.status === "registering" || t.status === "running")) buttons.push(act("Cancel", "cancel", {}, "danger"));
    mount(actions, buttons);
    mount(standings, h("h2", {}, "Standings"), standingsTable(t), h("p", { class: "muted" }, "Ties: Buchholz (opponents' points), then Sonneborn-Berger, then wins, then entry order."));
    mount(rounds, h("h2", {}, "Rounds"), roundsList(t));
  }

  mount(app, head, actions, standings, rounds);
  await load();
  bots = (await get(`/games/${t.game}`).catch(() => ({}))).bots || [];
  render();
  const timer = setInterval(() => {
    if (t?.status === "running") load().catch((e) => toast(e.message));
  }, 4000);
  return () => clearInterval(timer);
}
