// Tournaments: the list (with a form to create one) and a tournament's page
// (standings with tie-breaks, rounds with their tables, entering and leaving,
// and the owner's start, bots and cancel). A running tournament's page reads
// itself again every few seconds: rounds start on the server's own time.
import { get, post, session, query } from "./api.js";
import { h, mount, attempt, toast, date, playerLink, loading } from "./ui.js";
import { t } from "./i18n.js";
import { gameName } from "./terms.js";
import { games } from "./lobby.js";

const FORMATS = ["swiss", "round_robin"];
const format = (f) => (FORMATS.includes(f) ? t(`tournament-format-${f}`) : f);
const status = (s) => t(`tournament-status-${s}`);

export async function tournamentsPage(app) {
  const listBox = h("div", {}, loading());
  const list = await games();

  async function render() {
    const page = await get(`/tournaments${query({ limit: 100 })}`);
    const items = page.items || [];
    mount(
      listBox,
      items.length === 0
        ? h("p", { class: "muted" }, t("tournaments-none"))
        : h(
            "ul",
            { class: "matches", id: "tournament-list" },
            items.map((tr) =>
              h(
                "li",
                {},
                h("a", { href: `#/tournament/${tr.id}` }, tr.name),
                h("span", { class: "muted" }, ` · ${gameName(tr.game)} · ${format(tr.format)} · ${t("tournaments-entrants", { entrants: tr.entrants, max: tr.max_players })} · `),
                h("span", { class: "badge" }, status(tr.status)),
              ),
            ),
          ),
    );
  }

  let create = null;
  if (session.get()) {
    const name = h("input", { id: "tournament-name", required: true, maxlength: 80 });
    const game = h("select", { id: "tournament-game" }, list.map((g) => h("option", { value: g.id }, gameName(g.id))));
    const formatSel = h("select", { id: "tournament-format" }, FORMATS.map((v) => h("option", { value: v }, format(v))));
    const tableSize = h("input", { id: "tournament-table-size", type: "number", min: 2, value: 2, inputmode: "numeric" });
    const rounds = h("input", { id: "tournament-rounds", type: "number", min: 1, max: 50, placeholder: t("tournament-rounds-automatic"), inputmode: "numeric" });
    const maxPlayers = h("input", { id: "tournament-max", type: "number", min: 2, max: 256, value: 64, inputmode: "numeric" });
    const submit = h("button", { type: "submit", id: "tournament-submit" }, t("tournament-create-submit"));
    create = h(
      "form",
      { class: "card" },
      h("h2", {}, t("tournament-new")),
      h("label", {}, h("span", {}, t("field-name")), name),
      h("div", { class: "fields" },
        h("label", {}, h("span", {}, t("col-game")), game),
        h("label", {}, h("span", {}, t("tournament-format")), formatSel),
        h("label", {}, h("span", {}, t("tournament-table-size")), tableSize),
        h("label", {}, h("span", {}, t("tournament-rounds")), rounds),
        h("label", {}, h("span", {}, t("tournament-max")), maxPlayers),
      ),
      submit,
    );
    create.addEventListener("submit", (e) => {
      e.preventDefault();
      attempt(async () => {
        const body = {
          name: name.value,
          game: game.value,
          format: formatSel.value,
          table_size: Number(tableSize.value) || 2,
          max_players: Number(maxPlayers.value) || 64,
        };
        if (rounds.value && formatSel.value === "swiss") body.rounds = Number(rounds.value);
        const made = await post("/tournaments", body);
        location.hash = `#/tournament/${made.id}`;
      }, submit);
    });
  }

  mount(app, h("h1", {}, t("nav-tournaments")), h("div", { class: "lobby" }, h("div", { class: "card" }, listBox), create));
  await render();
}

function standingsTable(tr) {
  if (!tr.standings?.length) return h("p", { class: "muted" }, t("tournament-nobody"));
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { id: "tournament-standings" },
      h("thead", {}, h("tr", {}, ["#", t("col-player"), t("col-points"), "Buchholz", "S-B", t("stats-wins"), t("col-games"), t("tournament-byes")].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        tr.standings.map((s) =>
          h(
            "tr",
            { class: s.player.name === session.name ? "you" : "" },
            h("td", {}, s.place),
            h("td", {}, playerLink(s.player), s.bot ? h("span", { class: "badge" }, t("seat-bot", { kind: t(`bot-${s.bot}`) })) : null, s.withdrawn ? h("span", { class: "badge warn" }, t("tournament-withdrawn")) : null),
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

function roundsList(tr) {
  if (!tr.schedule?.length) return h("p", { class: "muted" }, t("tournament-no-round"));
  return h(
    "div",
    { id: "tournament-rounds" },
    [...tr.schedule].reverse().map((r) =>
      h(
        "section",
        { class: "card" },
        h("h3", {}, t("replay-round", { round: r.round })),
        h(
          "ul",
          { class: "matches" },
          r.tables.map((tb) =>
            h(
              "li",
              {},
              h("a", { href: `#/match/${tb.match_id}` }, t("tournament-table", { table: tb.table })),
              " ",
              tb.seats.map((s, i) => [i ? " · " : "", s.player.name, s.points != null ? ` (${s.points})` : ""]),
              tb.over ? "" : h("span", { class: "badge" }, t("tournament-in-play")),
            ),
          ),
        ),
        r.byes?.length ? h("p", { class: "muted" }, t("tournament-bye", { names: r.byes.map((p) => p.name).join(", ") })) : null,
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
  let tr = null;
  let bots = [];

  async function load() {
    tr = await get(`/tournaments/${id}`);
    render();
  }

  const act = (label, path, body, cls = "", action = path) =>
    h("button", { type: "button", class: cls, "data-action": action, onclick: (e) => attempt(async () => {
      await post(`/tournaments/${id}/${path}`, body);
      await load();
    }, e.target) }, label);

  function render() {
    const entered = tr.standings?.find((s) => s.player.name === me);
    const owner = tr.owner?.name === me;
    mount(
      head,
      h("h1", {}, tr.name),
      h(
        "p",
        { class: "muted" },
        `${gameName(tr.game)} · ${format(tr.format)} · ${t("tournament-tables-of", { size: tr.table_size })} · `,
        h("span", { class: "badge", id: "tournament-status", "data-status": tr.status }, status(tr.status)),
        tr.status === "running" ? ` · ${t("tournament-round-of", { round: tr.current_round, rounds: tr.rounds })}` : "",
        ` · ${t("tournaments-entrants", { entrants: tr.entrants, max: tr.max_players })} · ${t("club-owner")} `,
        playerLink(tr.owner),
        tr.starts_at && tr.status === "registering" ? ` · ${t("tournament-starts", { date: date(tr.starts_at) })}` : "",
      ),
    );
    const buttons = [];
    if (me && tr.status === "registering" && !entered) buttons.push(act(t("tournament-enter"), "join", {}, "", "enter"));
    if (me && entered && !entered.withdrawn && (tr.status === "registering" || tr.status === "running")) {
      buttons.push(act(t("tournament-withdraw"), "withdraw", {}, "secondary", "withdraw"));
    }
    if (owner && tr.status === "registering") {
      const kind = h("select", { id: "tournament-bot-kind" }, bots.map((b) => h("option", { value: b }, t(`bot-${b}`))));
      const count = h("input", { id: "tournament-bot-count", type: "number", min: 1, max: 256, value: 1, inputmode: "numeric" });
      buttons.push(
        h("span", { class: "inline-form" }, count, kind,
          h("button", { type: "button", id: "tournament-add-bots", onclick: (e) => attempt(async () => {
            await post(`/tournaments/${id}/bots`, { kind: kind.value, count: Number(count.value) || 1 });
            await load();
          }, e.target) }, t("tournament-add-bots"))),
      );
      buttons.push(act(t("tournament-start-now"), "start", {}, "", "start"));
    }
    if (owner && (tr.status === "registering" || tr.status === "running")) buttons.push(act(t("action-cancel"), "cancel", {}, "danger", "cancel"));
    mount(actions, buttons);
    mount(standings, h("h2", {}, t("tournament-standings")), standingsTable(tr), h("p", { class: "muted" }, t("tournament-ties")));
    mount(rounds, h("h2", {}, t("rounds-title")), roundsList(tr));
  }

  mount(app, head, actions, standings, rounds);
  await load();
  bots = ["random", ...((await get(`/games/${tr.game}`).catch(() => ({}))).bots || [])].filter((b, i, all) => all.indexOf(b) === i);
  render();
  const timer = setInterval(() => {
    if (tr?.status === "running") load().catch((e) => toast(e.message));
  }, 4000);
  return () => clearInterval(timer);
}
