// The lobby: your turns (live), your invitations, your matches, open matches,
// creating a match (public, unlisted or private, inviting players by name).
import { get, post, follow, session, query } from "./api.js";
import { h, mount, attempt, toast, countdown, relative, words, loading } from "./ui.js";
import { optionsForm } from "./options.js";
import { NEW_MATCH_CLUB } from "./clubs.js";

let gamesCache = null;
export async function games() {
  gamesCache ??= get("/games").then((r) => r.items ?? r);
  return gamesCache;
}

function seatsText(m) {
  const taken = (m.seats || []).filter((s) => s.player).length;
  return `${taken}/${m.seat_count}`;
}

function matchRow(m, me, refresh) {
  const mine = (m.seats || []).some((s) => s.player?.name === me);
  const owner = m.owner?.name === me;
  const actions = [];
  const act = (label, path, body, cls = "") =>
    h("button", {
      type: "button",
      class: `small ${cls}`,
      onclick: (e) => attempt(async () => {
        await post(`/matches/${m.id}${path}`, body);
        refresh();
      }, e.target),
    }, label);
  if (m.status === "waiting") {
    if (me && !mine) actions.push(act("Join", "/join"));
    if (mine && !owner) actions.push(act("Leave", "/leave"));
    if (owner) {
      actions.push(act("Add bot", "/bots", { kind: "random" }));
      actions.push(act("Start", "/start"));
      actions.push(act("Cancel", "/cancel", {}, "danger"));
    }
  }
  actions.push(h("a", { class: "button small secondary", href: `#/match/${m.id}` }, m.status === "finished" ? "Result" : mine ? "Open" : "Watch"));
  return h(
    "li",
    { class: "match-row", dataset: { match: m.id } },
    h("span", { class: "game-tag" }, m.game),
    h(
      "span",
      { class: "who" },
      (m.seats || []).map((s, i) => [i ? ", " : "", s.player ? s.player.name : h("span", { class: "muted" }, "free")]),
    ),
    h("span", { class: "muted" }, `${seatsText(m)} · ${m.status} · ${relative(m.created_at)}`),
    h("span", { class: "actions" }, actions),
  );
}

export async function lobbyPage(app) {
  const me = session.name;
  const list = await games();
  const turnsBox = h("section", { class: "card", "aria-labelledby": "turns-h" });
  const invitesBox = h("section", { class: "card", "aria-labelledby": "invites-h" });
  const mineBox = h("section", { class: "card", "aria-labelledby": "mine-h" });
  const openBox = h("section", { class: "card", "aria-labelledby": "open-h" });
  const createBox = h("section", { class: "card", "aria-labelledby": "create-h" });
  const filter = h(
    "select",
    { id: "game-filter", "aria-label": "Filter by game", onchange: () => renderOpen() },
    h("option", { value: "" }, "All games"),
    list.map((g) => h("option", { value: g.id }, g.name)),
  );

  async function renderTurns() {
    if (!me) {
      mount(turnsBox, h("h2", { id: "turns-h" }, "Your turns"), h("p", {}, h("a", { href: "#/login" }, "Log in"), " to play; anyone may watch."));
      return;
    }
    const t = await get("/players/me/turns");
    const items = t.items ?? [];
    mount(
      turnsBox,
      h("h2", { id: "turns-h" }, "Your turns ", h("span", { class: "badge" }, items.length)),
      items.length === 0
        ? h("p", { class: "muted" }, "Nothing owed. New matches appear here when it is your move.")
        : h(
            "ol",
            { class: "turns" },
            items.map((x) =>
              h(
                "li",
                { dataset: { match: x.match_id } },
                h("a", { href: `#/match/${x.match_id}` }, `${x.game}: ${words(x.kind)}`),
                " ",
                x.deadline ? countdown(x.deadline) : h("span", { class: "muted" }, `owed ${relative(x.owed_since)}`),
                x.absent ? h("span", { class: "badge warn" }, "a bot stands in") : "",
              ),
            ),
          ),
    );
  }

  async function renderInvites() {
    if (!me) {
      invitesBox.hidden = true;
      return;
    }
    const r = await get("/players/me/invitations");
    const items = r.items ?? [];
    const code = h("input", { id: "join-code", name: "code", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "e.g. K7PQ-2MXD-9R", "aria-label": "Join code" });
    const joinButton = h("button", { type: "submit", class: "small secondary", id: "join-code-submit" }, "Join");
    const byCode = h("form", { class: "row join-code" }, code, joinButton);
    byCode.addEventListener("submit", (e) => {
      e.preventDefault();
      attempt(async () => {
        const m = await post("/matches/join", { code: code.value });
        location.hash = `#/match/${m.id}`;
      }, joinButton);
    });
    const answer = (x, verb, label, cls) =>
      h("button", {
        type: "button",
        class: `small ${cls}`,
        onclick: (e) => attempt(async () => {
          await post(`/matches/${x.match_id}/invitations/${verb}`, {});
          if (verb === "accept") location.hash = `#/match/${x.match_id}`;
          else refreshAll();
        }, e.currentTarget),
      }, label);
    mount(
      invitesBox,
      h("h2", { id: "invites-h" }, "Invitations ", h("span", { class: "badge" }, items.length)),
      items.length === 0
        ? h("p", { class: "muted" }, "Nobody has invited you to a match.")
        : h(
            "ul",
            { class: "matches invitations" },
            items.map((x) =>
              h(
                "li",
                { class: "match-row invitation", dataset: { match: x.match_id } },
                h("span", { class: "game-tag" }, x.game),
                h("span", { class: "who" }, `${x.invited_by.name} invites you`),
                h("span", { class: "muted" }, `${x.seated}/${x.seat_count} · ${x.visibility} · expires ${relative(x.expires_at)}`),
                h("span", { class: "actions" }, answer(x, "accept", "Accept", ""), answer(x, "decline", "Decline", "secondary")),
              ),
            ),
          ),
      h("label", { for: "join-code" }, "Have a join code?"),
      byCode,
    );
  }

  async function renderMine() {
    if (!me) {
      mineBox.hidden = true;
      return;
    }
    const [w, a] = await Promise.all([
      get(`/matches${query({ player: me, status: "waiting", limit: 50 })}`),
      get(`/matches${query({ player: me, status: "active", limit: 50 })}`),
    ]);
    const items = [...(w.items || []), ...(a.items || [])];
    mount(
      mineBox,
      h("h2", { id: "mine-h" }, "Your matches"),
      items.length ? h("ul", { class: "matches" }, items.map((m) => matchRow(m, me, refreshAll))) : h("p", { class: "muted" }, "None in progress."),
      h("p", {}, h("a", { href: `#/player/${encodeURIComponent(me)}` }, "Finished matches and statistics")),
    );
  }

  async function renderOpen() {
    const r = await get(`/matches${query({ status: "waiting", game: filter.value, limit: 50 })}`);
    const open = (r.items || []).filter((m) => !(m.seats || []).some((s) => s.player?.name === me));
    const live = await get(`/matches${query({ status: "active", game: filter.value, limit: 10 })}`);
    mount(
      openBox,
      h(
        "div",
        { class: "row" },
        h("h2", { id: "open-h" }, "Open matches"),
        h("span", {}, filter, " ", h("button", { type: "button", class: "small secondary", id: "refresh-open", onclick: (e) => attempt(renderOpen, e.currentTarget) }, "Refresh")),
      ),
      open.length ? h("ul", { class: "matches" }, open.map((m) => matchRow(m, me, refreshAll))) : h("p", { class: "muted" }, "No match is waiting for players. Create one!"),
      h("h3", {}, "Being played"),
      (live.items || []).length
        ? h("ul", { class: "matches" }, live.items.map((m) => matchRow(m, me, refreshAll)))
        : h("p", { class: "muted" }, "Nothing right now."),
    );
  }

  function renderCreate() {
    if (!me) {
      createBox.hidden = true;
      return;
    }
    const gameSel = h("select", { id: "create-game", name: "game" }, list.map((g) => h("option", { value: g.id }, g.name)));
    const seatsSel = h("select", { id: "create-seats", name: "seats" });
    const botKind = h("select", { id: "create-bot-kind", name: "bot_kind" });
    const botCount = h("input", { id: "create-bots", name: "bots", type: "number", min: 0, value: 0, inputmode: "numeric" });
    const visibility = h(
      "select",
      { id: "create-visibility", name: "visibility" },
      h("option", { value: "public" }, "Public: in the lobby"),
      h("option", { value: "unlisted" }, "Unlisted: whoever has the link"),
      h("option", { value: "private" }, "Private: invited players and the join code"),
    );
    const invite = h("input", { id: "create-invite", name: "invite", type: "text", autocomplete: "off", spellcheck: "false", placeholder: "names, separated by commas" });
    // A club's match: only its members take seats. The club page's "New club
    // match" sends its id here.
    const clubSel = h("select", { id: "create-club", name: "club" }, h("option", { value: "" }, "No club"));
    const wanted = sessionStorage.getItem(NEW_MATCH_CLUB);
    sessionStorage.removeItem(NEW_MATCH_CLUB);
    get("/players/me/clubs").then((mine) => {
      for (const c of (mine.items || []).filter((c) => c.status === "member")) {
        clubSel.append(h("option", { value: c.club.id, selected: c.club.id === wanted }, c.club.name));
      }
    }).catch(() => {});
    const optsBox = h("div", {});
    let form = null;
    async function fill() {
      const g = await get(`/games/${gameSel.value}`);
      mount(seatsSel, (g.seats || []).map((n) => h("option", { value: n }, n)));
      mount(botKind, (g.bots || []).map((b) => h("option", { value: b }, b)));
      botCount.max = Math.max(...(g.seats || [2])) - 1;
      form = await optionsForm(g);
      mount(optsBox, form.element, h("p", { class: "muted" }, g.summary || ""), h("p", {}, h("a", { href: `#/game/${g.id}` }, `${g.name}: statistics`)));
    }
    gameSel.addEventListener("change", () => attempt(fill));
    const submit = h("button", { type: "submit", id: "create-submit" }, "Create match");
    const el = h(
      "form",
      {},
      h("div", { class: "fields" },
        h("label", {}, h("span", {}, "Game"), gameSel),
        h("label", {}, h("span", {}, "Seats"), seatsSel),
        h("label", {}, h("span", {}, "Bots"), botCount),
        h("label", {}, h("span", {}, "Bot kind"), botKind),
        h("label", {}, h("span", {}, "Who may join"), visibility),
        h("label", {}, h("span", {}, "Invite"), invite),
        h("label", {}, h("span", {}, "Club"), clubSel),
      ),
      optsBox,
      submit,
    );
    el.addEventListener("submit", (e) => {
      e.preventDefault();
      attempt(async () => {
        const options = form.value();
        const bots = Array.from({ length: Number(botCount.value) || 0 }, () => botKind.value);
        const body = { game: gameSel.value, seats: Number(seatsSel.value), options, bots };
        if (visibility.value !== "public") body.visibility = visibility.value;
        const names = invite.value.split(",").map((n) => n.trim()).filter(Boolean);
        if (names.length) body.invite = names;
        if (clubSel.value) body.club = clubSel.value;
        const m = await post("/matches", body);
        location.hash = `#/match/${m.id}`;
      }, submit);
    });
    mount(createBox, h("h2", { id: "create-h" }, "New match"), el);
    attempt(fill);
  }

  function refreshAll() {
    return Promise.all([renderTurns(), renderInvites(), renderMine(), renderOpen()]).catch((e) => toast(e.message));
  }

  mount(
    app,
    h("h1", { class: "visually-hidden" }, "Lobby"),
    h("div", { class: "lobby" }, h("div", {}, turnsBox, invitesBox, mineBox, openBox), createBox),
  );
  mount(turnsBox, loading());
  renderCreate();
  await refreshAll();

  // Live: the player's own stream tells of every match they sit in; the open
  // list is re-read then too (a join or a start shows on it).
  let pending = null;
  const soon = () => {
    clearTimeout(pending);
    pending = setTimeout(refreshAll, 250);
  };
  const stop = me ? follow("/players/me/events", soon, soon) : () => {};
  return () => {
    clearTimeout(pending);
    stop();
  };
}
