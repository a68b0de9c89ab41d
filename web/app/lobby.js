// The lobby: your turns (live), your invitations, your matches, open matches,
// creating a match (public, unlisted or private, inviting players by name).
import { get, post, follow, session, query } from "./api.js";
import { h, mount, attempt, toast, countdown, relative, loading } from "./ui.js";
import { t, term } from "./i18n.js";
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
    if (me && !mine) actions.push(act(t("action-join"), "/join"));
    if (mine && !owner) actions.push(act(t("action-leave"), "/leave"));
    if (owner) {
      actions.push(act(t("action-add-bot"), "/bots", { kind: "random" }));
      actions.push(act(t("action-start"), "/start"));
      actions.push(act(t("action-cancel"), "/cancel", {}, "danger"));
    }
  }
  actions.push(h("a", { class: "button small secondary", href: `#/match/${m.id}` }, m.status === "finished" ? t("action-result") : mine ? t("action-open") : t("action-watch")));
  return h(
    "li",
    { class: "match-row", dataset: { match: m.id } },
    h("span", { class: "game-tag" }, t(`game-${m.game}`)),
    h(
      "span",
      { class: "who" },
      (m.seats || []).map((s, i) => [i ? ", " : "", s.player ? s.player.name : h("span", { class: "muted" }, t("seat-free-short"))]),
    ),
    h("span", { class: "muted" }, `${seatsText(m)} · ${t(`status-${m.status}`)} · ${relative(m.created_at)}`),
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
    { id: "game-filter", "aria-label": t("lobby-filter-game"), onchange: () => drawOpen() },
    h("option", { value: "" }, t("lobby-all-games")),
    list.map((g) => h("option", { value: g.id }, t(`game-${g.id}`))),
  );

  async function renderTurns() {
    if (!me) {
      mount(turnsBox, h("h2", { id: "turns-h" }, t("lobby-your-turns")), h("p", {}, h("a", { href: "#/login" }, t("lobby-log-in")), " ", t("lobby-log-in-to-play")));
      return;
    }
    const turns = await get("/players/me/turns");
    const items = turns.items ?? [];
    mount(
      turnsBox,
      h("h2", { id: "turns-h" }, t("lobby-your-turns"), " ", h("span", { class: "badge" }, items.length)),
      items.length === 0
        ? h("p", { class: "muted" }, t("lobby-nothing-owed"))
        : h(
            "ol",
            { class: "turns" },
            items.map((x) =>
              h(
                "li",
                { dataset: { match: x.match_id } },
                h("a", { href: `#/match/${x.match_id}` }, `${t(`game-${x.game}`)}: ${term(x.game, "kind", x.kind)}`),
                " ",
                x.deadline ? countdown(x.deadline) : h("span", { class: "muted" }, t("lobby-owed-since", { since: relative(x.owed_since) })),
                x.absent ? h("span", { class: "badge warn" }, t("lobby-bot-stands-in")) : "",
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
    const code = h("input", { id: "join-code", name: "code", type: "text", autocomplete: "off", spellcheck: "false", placeholder: t("lobby-join-code-example"), "aria-label": t("lobby-join-code") });
    const joinButton = h("button", { type: "submit", class: "small secondary", id: "join-code-submit" }, t("action-join"));
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
      h("h2", { id: "invites-h" }, t("lobby-invitations"), " ", h("span", { class: "badge" }, items.length)),
      items.length === 0
        ? h("p", { class: "muted" }, t("lobby-no-invitations"))
        : h(
            "ul",
            { class: "matches invitations" },
            items.map((x) =>
              h(
                "li",
                { class: "match-row invitation", dataset: { match: x.match_id } },
                h("span", { class: "game-tag" }, t(`game-${x.game}`)),
                h("span", { class: "who" }, t("lobby-invites-you", { name: x.invited_by.name })),
                h("span", { class: "muted" }, `${x.seated}/${x.seat_count} · ${t(`visibility-${x.visibility}`)} · ${t("lobby-expires", { when: relative(x.expires_at) })}`),
                h("span", { class: "actions" }, answer(x, "accept", t("action-accept"), ""), answer(x, "decline", t("action-decline"), "secondary")),
              ),
            ),
          ),
      h("label", { for: "join-code" }, t("lobby-have-join-code")),
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
      h("h2", { id: "mine-h" }, t("lobby-your-matches")),
      items.length ? h("ul", { class: "matches" }, items.map((m) => matchRow(m, me, refreshAll))) : h("p", { class: "muted" }, t("lobby-none-in-progress")),
      h("p", {}, h("a", { href: `#/player/${encodeURIComponent(me)}` }, t("lobby-finished-and-stats"))),
    );
  }

  // Open matches as the lobby stream tells of them: waiting ones in, the
  // others out; the list is read whole at first and after a reconnection.
  const openMatches = new Map();
  let live = [];
  async function renderOpen() {
    const [r, l] = await Promise.all([
      get(`/matches${query({ status: "waiting", limit: 50 })}`),
      get(`/matches${query({ status: "active", limit: 10 })}`),
    ]);
    openMatches.clear();
    for (const m of r.items || []) openMatches.set(m.id, m);
    live = l.items || [];
    drawOpen();
  }

  function lobbyChanged(kind, data) {
    const m = data?.match;
    if (!m) return;
    if (m.status === "waiting") openMatches.set(m.id, m);
    else openMatches.delete(m.id);
    if (m.status === "active" && !live.some((x) => x.id === m.id)) live = [m, ...live].slice(0, 10);
    if (m.status !== "active") live = live.filter((x) => x.id !== m.id);
    drawOpen();
  }

  function drawOpen() {
    const game = filter.value;
    const shown = (ms) => ms.filter((m) => !game || m.game === game).sort((x, y) => (x.id < y.id ? 1 : -1));
    const open = shown([...openMatches.values()]).filter((m) => !(m.seats || []).some((s) => s.player?.name === me));
    const playing = shown(live);
    mount(
      openBox,
      h(
        "div",
        { class: "row" },
        h("h2", { id: "open-h" }, t("lobby-open-matches")),
        h("span", {}, filter),
      ),
      open.length ? h("ul", { class: "matches" }, open.map((m) => matchRow(m, me, refreshAll))) : h("p", { class: "muted" }, t("lobby-no-open")),
      h("h3", {}, t("lobby-being-played")),
      playing.length
        ? h("ul", { class: "matches" }, playing.map((m) => matchRow(m, me, refreshAll)))
        : h("p", { class: "muted" }, t("lobby-nothing-now")),
    );
  }

  function renderCreate() {
    if (!me) {
      createBox.hidden = true;
      return;
    }
    const gameSel = h("select", { id: "create-game", name: "game" }, list.map((g) => h("option", { value: g.id }, t(`game-${g.id}`))));
    const seatsSel = h("select", { id: "create-seats", name: "seats" });
    const botKind = h("select", { id: "create-bot-kind", name: "bot_kind" });
    const botCount = h("input", { id: "create-bots", name: "bots", type: "number", min: 0, value: 0, inputmode: "numeric" });
    const visibility = h(
      "select",
      { id: "create-visibility", name: "visibility" },
      h("option", { value: "public" }, t("create-visibility-public")),
      h("option", { value: "unlisted" }, t("create-visibility-unlisted")),
      h("option", { value: "private" }, t("create-visibility-private")),
    );
    const invite = h("input", { id: "create-invite", name: "invite", type: "text", autocomplete: "off", spellcheck: "false", placeholder: t("create-invite-placeholder") });
    // A club's match: only its members take seats. The club page's "New club
    // match" sends its id here.
    const clubSel = h("select", { id: "create-club", name: "club" }, h("option", { value: "" }, t("create-no-club")));
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
      mount(botKind, (g.bots || []).map((b) => h("option", { value: b }, t(`bot-${b}`))));
      botCount.max = Math.max(...(g.seats || [2])) - 1;
      form = await optionsForm(g);
      mount(optsBox, form.element, h("p", { class: "muted" }, t(`rules-${g.id}-summary`)), h("p", {}, h("a", { href: `#/game/${g.id}` }, t("game-statistics-link", { game: t(`game-${g.id}`) }))));
    }
    gameSel.addEventListener("change", () => attempt(fill));
    const submit = h("button", { type: "submit", id: "create-submit" }, t("create-submit"));
    const el = h(
      "form",
      {},
      h("div", { class: "fields" },
        h("label", {}, h("span", {}, t("create-game")), gameSel),
        h("label", {}, h("span", {}, t("create-seats")), seatsSel),
        h("label", {}, h("span", {}, t("create-bots")), botCount),
        h("label", {}, h("span", {}, t("create-bot-kind")), botKind),
        h("label", {}, h("span", {}, t("create-who-may-join")), visibility),
        h("label", {}, h("span", {}, t("create-invite")), invite),
        h("label", {}, h("span", {}, t("create-club")), clubSel),
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
    mount(createBox, h("h2", { id: "create-h" }, t("create-title")), el);
    attempt(fill);
  }

  function refreshAll() {
    return Promise.all([renderTurns(), renderInvites(), renderMine(), renderOpen()]).catch((e) => toast(e.message));
  }

  mount(
    app,
    h("h1", { class: "visually-hidden" }, t("nav-lobby")),
    h("div", { class: "lobby" }, h("div", {}, turnsBox, invitesBox, mineBox, openBox), createBox),
  );
  mount(turnsBox, loading());
  renderCreate();
  // Open matches for everybody, signed in or not, from the lobby's stream,
  // opened before the list is read so that no change falls between them.
  const stopLobby = follow("/lobby/events", lobbyChanged, () => attempt(renderOpen), () => {}, { anonymous: true });
  await refreshAll();

  // Live: the player's own stream tells of every match they sit in.
  let pending = null;
  const soon = () => {
    clearTimeout(pending);
    pending = setTimeout(() => Promise.all([renderTurns(), renderInvites(), renderMine()]).catch((e) => toast(e.message)), 250);
  };
  const stop = me ? follow("/players/me/events", soon, soon) : () => {};
  return () => {
    clearTimeout(pending);
    stop();
    stopLobby();
  };
}
