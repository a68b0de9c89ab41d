// Clubs: the list (with search and a form to found one) and a club's page
// (members, requests and invitations for its admins, matches, leaderboard).
import { get, post, del, api, session, query } from "./api.js";
import { h, mount, attempt, toast, date, playerLink, loading, words } from "./ui.js";

const POLICIES = {
  open: "Open: anyone joins",
  request: "On request: an admin accepts",
  invitation: "By invitation only",
};

/** Where the lobby's new-match form finds the club it should preselect. */
export const NEW_MATCH_CLUB = "sealed-orders.new-match-club";

export async function clubsPage(app) {
  const listBox = h("div", {}, loading());
  const search = h("input", { id: "club-search", type: "search", placeholder: "Name starts with…", autocomplete: "off" });
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
        ? h("p", { class: "muted" }, "No club yet.")
        : h(
            "ul",
            { class: "matches", id: "club-list" },
            items.map((c) =>
              h(
                "li",
                {},
                h("a", { href: `#/club/${c.id}` }, c.name),
                h("span", { class: "muted" }, ` · ${c.members} member${c.members === 1 ? "" : "s"} · ${POLICIES[c.join_policy] || c.join_policy}`),
                c.your_status ? h("span", { class: "badge" }, c.your_role || c.your_status) : null,
              ),
            ),
          ),
    );
  }

  let create = null;
  if (session.get()) {
    const name = h("input", { id: "club-name", name: "name", required: true, minlength: 3, maxlength: 48 });
    const description = h("textarea", { id: "club-description", name: "description", maxlength: 1000, rows: 3 });
    const policy = h(
      "select",
      { id: "club-policy", name: "join_policy" },
      Object.entries(POLICIES).map(([v, label]) => h("option", { value: v, selected: v === "request" }, label)),
    );
    const submit = h("button", { type: "submit", id: "club-submit" }, "Found the club");
    create = h(
      "form",
      { class: "card" },
      h("h2", {}, "Found a club"),
      h("label", {}, h("span", {}, "Name"), name),
      h("label", {}, h("span", {}, "Description"), description),
      h("label", {}, h("span", {}, "Who may join"), policy),
      submit,
    );
    create.addEventListener("submit", (e) => {
      e.preventDefault();
      attempt(async () => {
        const c = await post("/clubs", { name: name.value, description: description.value, join_policy: policy.value });
        location.hash = `#/club/${c.id}`;
      }, submit);
    });
  }

  mount(
    app,
    h("h1", {}, "Clubs"),
    h("div", { class: "lobby" }, h("div", { class: "card" }, h("label", {}, h("span", {}, "Search"), search), listBox), create),
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
        `${POLICIES[club.join_policy] || club.join_policy} · ${club.members} member${club.members === 1 ? "" : "s"} · owner `,
        playerLink(club.owner),
        ` · since ${date(club.created_at)}`,
      ),
    );
    const buttons = [];
    if (me && !club.your_status && club.join_policy !== "invitation") {
      buttons.push(h("button", { type: "button", id: "club-join", onclick: (e) => attempt(async () => {
        const r = await post(`/clubs/${id}/join`);
        toast(r.status === "member" ? "You are a member." : "Your request is sent.", "info");
        await reload();
      }, e.target) }, club.join_policy === "open" ? "Join" : "Ask to join"));
    }
    if (me && club.your_status === "invited") {
      buttons.push(h("button", { type: "button", id: "club-join", onclick: (e) => attempt(async () => {
        await post(`/clubs/${id}/join`);
        await reload();
      }, e.target) }, "Accept the invitation"));
    }
    if (club.your_status === "member") {
      buttons.push(h("button", { type: "button", id: "club-new-match", onclick: () => {
        sessionStorage.setItem(NEW_MATCH_CLUB, id);
        location.hash = "#/";
      } }, "New club match"));
    }
    if (club.your_status) {
      const label = { member: "Leave", requested: "Withdraw the request", invited: "Decline" }[club.your_status];
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
      h("h2", {}, "Members"),
      h(
        "ul",
        { class: "matches", id: "club-members" },
        (page.items || []).map((m) =>
          h(
            "li",
            {},
            playerLink(m.player),
            m.role !== "member" ? h("span", { class: "badge" }, m.role) : null,
            isAdmin() && m.role === "member" && m.player.name !== me
              ? h("button", { type: "button", class: "small danger", onclick: (e) => attempt(async () => {
                  await del(`/clubs/${id}/members/${encodeURIComponent(m.player.name)}`);
                  await reload();
                }, e.target) }, "Remove")
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
    const send = h("button", { type: "submit" }, "Invite");
    const form = h("form", { id: "club-invite" }, h("label", {}, h("span", {}, "Invite a player"), who), send);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      attempt(async () => {
        await post(`/clubs/${id}/invitations`, { player: who.value.trim() });
        toast(`${who.value.trim()} is invited.`, "info");
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
        h("h2", {}, "Requests and invitations"),
        (requests.items || []).length
          ? h("ul", { class: "matches", id: "club-requests" }, requests.items.map((m) =>
              h("li", {}, playerLink(m.player), h("span", { class: "muted" }, ` asked ${date(m.since)} `),
                h("button", { type: "button", class: "small", onclick: answer(m, true) }, "Accept"),
                h("button", { type: "button", class: "small danger", onclick: answer(m, false) }, "Decline"))))
          : h("p", { class: "muted" }, "No request waiting."),
        (invited.items || []).length
          ? h("p", { class: "muted" }, "Invited: ", invited.items.map((m) => m.player.name).join(", "))
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
      h("h2", {}, "Matches"),
      items.length
        ? h("ul", { class: "matches", id: "club-matches" }, items.map((m) =>
            h("li", {}, h("a", { href: `#/match/${m.id}` }, `${m.game} · ${words(m.status)}`),
              h("span", { class: "muted" }, ` · ${m.seats.map((s) => s.player?.name || "free").join(", ")}`))))
        : h("p", { class: "muted" }, "No club match yet."),
    );
  }

  const gameSel = h("select", { id: "club-board-game" }, games.map((g) => h("option", { value: g.id }, g.name)));
  const boardBody = h("div", {});
  async function renderBoard() {
    const b = await api("GET", `/clubs/${id}/leaderboards/${gameSel.value}`);
    mount(
      boardBody,
      (b.items || []).length
        ? h("div", { class: "table-wrap" }, h("table", { id: "club-board" },
            h("thead", {}, h("tr", {}, ["#", "Player", "Games", "Wins", "Points", "Rating"].map((c) => h("th", { scope: "col" }, c)))),
            h("tbody", {}, b.items.map((s) => h("tr", {},
              h("td", {}, s.rank), h("td", {}, playerLink(s.player)), h("td", {}, s.games), h("td", {}, s.wins),
              h("td", {}, s.points.toFixed(2)), h("td", {}, s.rating == null ? "" : Math.round(s.rating)))))))
        : h("p", { class: "muted" }, "No finished club match of this game yet."),
    );
  }
  gameSel.addEventListener("change", () => attempt(renderBoard));
  mount(board, h("h2", {}, "Leaderboard"), h("label", {}, h("span", {}, "Game"), gameSel), boardBody);

  mount(app, head, actions, h("div", { class: "grid2" }, members, board), admin, matchesBox);
  renderHead();
  await Promise.all([renderMembers(), renderAdmin(), renderMatches(), renderBoard()]);
}
