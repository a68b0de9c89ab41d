// Clubs: the list (with search and a form to found one) and a club's page
// (members, requests and invitations for its admins, matches, leaderboard).
import { get, post, del, api, session, query } from "./api.js";
import { h, mount, attempt, toast, date, playerLink, loading } from "./ui.js";
import { t } from "./i18n.js";
import { gameName } from "./terms.js";

const POLICIES = ["open", "request", "invitation"];
const policy = (p) => (POLICIES.includes(p) ? t(`club-policy-${p}`) : p);

/** Where the lobby's new-match form finds the club it should preselect. */
export const NEW_MATCH_CLUB = "sealed-orders.new-match-club";

export async function clubsPage(app) {
  const listBox = h("div", {}, loading());
  const search = h("input", { id: "club-search", type: "search", placeholder: t("clubs-search-placeholder"), autocomplete: "off" });
  let timer = null;
  search.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => attempt(render), 250);
  });

  async function render() {
    const page = await get(`/clubs${query({ q: search.value.trim() || undefined, limit: 100 })}`);
    const items = page.items || [];
    mount(
      listBox,
      items.length === 0
        ? h("p", { class: "muted" }, t("clubs-none"))
        : h(
            "ul",
            { class: "matches", id: "club-list" },
            items.map((c) =>
              h(
                "li",
                {},
                h("a", { href: `#/club/${c.id}` }, c.name),
                h("span", { class: "muted" }, ` · ${t("clubs-members-count", { count: c.members })} · ${policy(c.join_policy)}`),
                c.your_status ? h("span", { class: "badge" }, t(`club-role-${c.your_role || c.your_status}`)) : null,
              ),
            ),
          ),
    );
  }

  let create = null;
  if (session.get()) {
    const name = h("input", { id: "club-name", name: "name", required: true, minlength: 3, maxlength: 48 });
    const description = h("textarea", { id: "club-description", name: "description", maxlength: 1000, rows: 3 });
    const policySel = h(
      "select",
      { id: "club-policy", name: "join_policy" },
      POLICIES.map((v) => h("option", { value: v, selected: v === "request" }, policy(v))),
    );
    const submit = h("button", { type: "submit", id: "club-submit" }, t("clubs-found-submit"));
    create = h(
      "form",
      { class: "card" },
      h("h2", {}, t("clubs-found-title")),
      h("label", {}, h("span", {}, t("field-name")), name),
      h("label", {}, h("span", {}, t("clubs-description")), description),
      h("label", {}, h("span", {}, t("create-who-may-join")), policySel),
      submit,
    );
    create.addEventListener("submit", (e) => {
      e.preventDefault();
      attempt(async () => {
        const c = await post("/clubs", { name: name.value, description: description.value, join_policy: policySel.value });
        location.hash = `#/club/${c.id}`;
      }, submit);
    });
  }

  mount(
    app,
    h("h1", {}, t("nav-clubs")),
    h("div", { class: "lobby" }, h("div", { class: "card" }, h("label", {}, h("span", {}, t("clubs-search")), search), listBox), create),
  );
  await render();
  return () => clearTimeout(timer);
}

export async function clubPage(app, id) {
  const me = session.name;
  const games = await get("/games").then((r) => r.items ?? r);
  let club = await get(`/clubs/${id}`);
  const head = h("div", {});
  const actions = h("div", { class: "actions", id: "club-actions" });
  const members = h("div", { class: "card" });
  const admin = h("div", {});
  const board = h("div", { class: "card" });
  const matchesBox = h("div", { class: "card" });
  const isAdmin = () => club.your_role === "owner" || club.your_role === "admin";

  async function reload() {
    club = await get(`/clubs/${id}`);
    renderHead();
    await Promise.all([renderMembers(), renderAdmin(), renderMatches()]);
  }

  function renderHead() {
    mount(
      head,
      h("h1", {}, club.name),
      club.description ? h("p", {}, club.description) : null,
      h(
        "p",
        { class: "muted" },
        `${policy(club.join_policy)} · ${t("clubs-members-count", { count: club.members })} · ${t("club-owner")} `,
        playerLink(club.owner),
        ` · ${t("club-since", { date: date(club.created_at) })}`,
      ),
    );
    const buttons = [];
    if (me && !club.your_status && club.join_policy !== "invitation") {
      buttons.push(h("button", { type: "button", id: "club-join", onclick: (e) => attempt(async () => {
        const r = await post(`/clubs/${id}/join`);
        toast(r.status === "member" ? t("toast-club-member") : t("toast-club-requested"), "info");
        await reload();
      }, e.target) }, club.join_policy === "open" ? t("action-join") : t("club-ask-to-join")));
    }
    if (me && club.your_status === "invited") {
      buttons.push(h("button", { type: "button", id: "club-join", onclick: (e) => attempt(async () => {
        await post(`/clubs/${id}/join`);
        await reload();
      }, e.target) }, t("club-accept-invitation")));
    }
    if (club.your_status === "member") {
      buttons.push(h("button", { type: "button", id: "club-new-match", onclick: () => {
        sessionStorage.setItem(NEW_MATCH_CLUB, id);
        location.hash = "#/";
      } }, t("club-new-match")));
    }
    if (club.your_status) {
      const label = { member: t("action-leave"), requested: t("club-withdraw-request"), invited: t("action-decline") }[club.your_status];
      buttons.push(h("button", { type: "button", class: "secondary", id: "club-leave", onclick: (e) => attempt(async () => {
        await post(`/clubs/${id}/leave`);
        await reload().catch(() => { location.hash = "#/clubs"; });
      }, e.target) }, label));
    }
    mount(actions, buttons);
  }

  async function renderMembers() {
    const page = await get(`/clubs/${id}/members?limit=200`);
    mount(
      members,
      h("h2", {}, t("club-members")),
      h(
        "ul",
        { class: "matches", id: "club-members" },
        (page.items || []).map((m) =>
          h(
            "li",
            {},
            playerLink(m.player),
            m.role !== "member" ? h("span", { class: "badge" }, t(`club-role-${m.role}`)) : null,
            isAdmin() && m.role === "member" && m.player.name !== me
              ? h("button", { type: "button", class: "small danger", onclick: (e) => attempt(async () => {
                  await del(`/clubs/${id}/members/${encodeURIComponent(m.player.name)}`);
                  await reload();
                }, e.target) }, t("club-remove"))
              : null,
          ),
        ),
      ),
    );
  }

  async function renderAdmin() {
    if (!isAdmin()) {
      mount(admin);
      return;
    }
    const requests = await get(`/clubs/${id}/members?status=requested&limit=200`);
    const invited = await get(`/clubs/${id}/members?status=invited&limit=200`);
    const who = h("input", { id: "club-invite-name", required: true, autocomplete: "off", spellcheck: "false" });
    const send = h("button", { type: "submit" }, t("club-invite"));
    const form = h("form", { id: "club-invite" }, h("label", {}, h("span", {}, t("club-invite-player")), who), send);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      attempt(async () => {
        await post(`/clubs/${id}/invitations`, { player: who.value.trim() });
        toast(t("toast-club-invited", { name: who.value.trim() }), "info");
        await reload();
      }, send);
    });
    const answer = (m, accept) => (e) => attempt(async () => {
      const name = encodeURIComponent(m.player.name);
      if (accept) await post(`/clubs/${id}/members/${name}/accept`);
      else await del(`/clubs/${id}/members/${name}`);
      await reload();
    }, e.target);
    mount(
      admin,
      h(
        "div",
        { class: "card", id: "club-admin" },
        h("h2", {}, t("club-requests-title")),
        (requests.items || []).length
          ? h("ul", { class: "matches", id: "club-requests" }, requests.items.map((m) =>
              h("li", {}, playerLink(m.player), h("span", { class: "muted" }, ` ${t("club-asked", { date: date(m.since) })} `),
                h("button", { type: "button", class: "small", onclick: answer(m, true) }, t("action-accept")),
                h("button", { type: "button", class: "small danger", onclick: answer(m, false) }, t("action-decline")))))
          : h("p", { class: "muted" }, t("club-no-requests")),
        (invited.items || []).length
          ? h("p", { class: "muted" }, t("club-invited"), " ", invited.items.map((m) => m.player.name).join(", "))
          : null,
        form,
      ),
    );
  }

  async function renderMatches() {
    const page = await get(`/matches${query({ club: id, limit: 20 })}`);
    const items = page.items || [];
    mount(
      matchesBox,
      h("h2", {}, t("stats-matches")),
      items.length
        ? h("ul", { class: "matches", id: "club-matches" }, items.map((m) =>
            h("li", {}, h("a", { href: `#/match/${m.id}` }, `${gameName(m.game)} · ${t(`status-${m.status}`)}`),
              h("span", { class: "muted" }, ` · ${m.seats.map((s) => s.player?.name || t("seat-free-short")).join(", ")}`))))
        : h("p", { class: "muted" }, t("club-no-matches")),
    );
  }

  const gameSel = h("select", { id: "club-board-game" }, games.map((g) => h("option", { value: g.id }, gameName(g.id))));
  const boardBody = h("div", {});
  async function renderBoard() {
    const b = await api("GET", `/clubs/${id}/leaderboards/${gameSel.value}`);
    mount(
      boardBody,
      (b.items || []).length
        ? h("div", { class: "table-wrap" }, h("table", { id: "club-board" },
            h("thead", {}, h("tr", {}, ["#", t("col-player"), t("col-games"), t("stats-wins"), t("col-points"), t("col-rating")].map((c) => h("th", { scope: "col" }, c)))),
            h("tbody", {}, b.items.map((s) => h("tr", {},
              h("td", {}, s.rank), h("td", {}, playerLink(s.player)), h("td", {}, s.games), h("td", {}, s.wins),
              h("td", {}, s.points.toFixed(2)), h("td", {}, s.rating == null ? "" : Math.round(s.rating)))))))
        : h("p", { class: "muted" }, t("club-board-none")),
    );
  }
  gameSel.addEventListener("change", () => attempt(renderBoard));
  mount(board, h("h2", {}, t("leaderboard-link")), h("label", {}, h("span", {}, t("col-game")), gameSel), boardBody);

  mount(app, head, actions, h("div", { class: "grid2" }, members, board), admin, matchesBox);
  renderHead();
  await Promise.all([renderMembers(), renderAdmin(), renderMatches(), renderBoard()]);
}
