// A match: the board from `view`, the prompt as controls, deadlines, rounds,
// the result, its chat. Live through the match's event stream: on an event,
// re-read (the match, or the chat for a chat event).
import { api, get, post, del, follow, session } from "./api.js";
import { h, mount, attempt, toast, countdown, clockText, playerLink, seatColour, relative, seatLabel, date } from "./ui.js";
import { t, tOr } from "./i18n.js";
import { gameName, kindText, valueText, subjectText } from "./terms.js";
import { rulesPanel } from "./rules.js";
import { controls } from "./controls.js";
import { games } from "./lobby.js";
import * as malacca from "./board-malacca.js";
import * as heretics from "./board-heretics.js";
import * as kontor from "./board-kontor.js";
import * as cairo from "./board-cairo.js";

export const BOARDS = { malacca, heretics, kontor, cairo };

/** What the page last drew, for tests and curious users (the API's document as is). */
window.sealedOrders = window.sealedOrders || {};

/**
 * A button that gives a thinking seat more time (another seat's gift, as a
 * chess player adds time to the opponent's clock): an hour, or one move's
 * limit when that is shorter.
 */
function giveTime(m, seat, owing, refresh) {
  if (m.status !== "active" || m.your_seat == null || m.your_seat === seat.seat || seat.bot || !owing) return "";
  const tc = m.options?.time_control || {};
  const limit = m.options?.move_time_limit || tc.seconds || tc.initial_seconds;
  if (!limit) return "";
  const seconds = Math.min(3600, limit);
  return h("button", {
    type: "button",
    class: "small secondary give-time",
    "data-seat": seat.seat,
    title: t("action-give-time-title", { seat: seat.seat }),
    onclick: (e) => attempt(async () => {
      await post(`/matches/${m.id}/extensions`, { seat: seat.seat, seconds });
      toast(t("toast-time-given", { seat: seat.seat, time: clockText(seconds * 1000) }), "info");
      refresh();
    }, e.currentTarget),
  }, t("action-give-time", { time: clockText(seconds * 1000) }));
}

/** The match's bank and the hours it runs in, for its header; nothing without a bank. */
function clockSummary(m) {
  const tc = m.options?.time_control;
  if (tc?.kind !== "bank") return "";
  const bank = t("match-clock-bank", { initial: clockText(tc.initial_seconds * 1000), increment: clockText((tc.increment_seconds || 0) * 1000) });
  const hours = tc.playing_hours;
  return [
    " · ",
    h("span", { id: "match-clock" }, bank),
    hours
      ? [" · ", h("span", { id: "playing-hours", title: t("match-playing-hours-title") }, t("match-playing-hours", { from: hours.from, to: hours.to, zone: hours.time_zone }))]
      : "",
  ];
}

function seatBar(m, refresh) {
  const awaiting = new Set(m.prompt?.awaiting || []);
  const deadlines = new Map((m.prompt?.deadlines || []).map((d) => [d.seat, d.at]));
  return h(
    "ol",
    { class: "seats", "aria-label": t("match-seats") },
    m.seats.map((seat) =>
      h(
        "li",
        {
          class: ["seat", awaiting.has(seat.seat) ? "to-move" : "", m.your_seat === seat.seat ? "you" : ""].join(" "),
          style: `--seat:${seatColour(seat.seat)}`,
        },
        h("span", { class: "dot", "aria-hidden": "true" }),
        h("span", { class: "seat-no" }, `${seat.seat}`),
        seat.player ? playerLink(seat.player) : h("span", { class: "muted" }, t("seat-free-short")),
        seat.bot ? h("span", { class: "badge" }, t("seat-bot", { kind: t(`bot-${seat.bot}`) })) : "",
        m.your_seat === seat.seat ? h("span", { class: "badge you" }, t("seat-you")) : "",
        seat.presence && seat.presence !== "present" ? h("span", { class: "badge warn" }, t(`presence-${seat.presence}`)) : "",
        awaiting.has(seat.seat) ? h("span", { class: "to-move-label" }, m.prompt?.sealed ? t("seat-deciding") : t("seat-to-move")) : "",
        // A bot's deadline is "now": the server moves for it at once.
        deadlines.has(seat.seat) && !seat.bot ? countdown(deadlines.get(seat.seat)) : "",
        // A bank that is not running: the seat's time in hand.
        seat.bank_seconds != null && !deadlines.has(seat.seat)
          ? h("span", { class: "badge bank", title: t("seat-bank-title") }, t("seat-bank", { time: clockText(seat.bank_seconds * 1000) }))
          : "",
        seat.graces_left != null ? h("span", { class: "badge graces", title: t("seat-graces-title") }, t("seat-graces", { n: seat.graces_left })) : "",
        seat.away_until ? h("span", { class: "badge warn away", title: t("seat-away-title") }, t("seat-away", { until: date(seat.away_until) })) : "",
        giveTime(m, seat, deadlines.has(seat.seat), refresh),
      ),
    ),
  );
}

function resultTable(m) {
  if (!m.result) return "";
  const rows = [...m.result].sort((a, b) => a.rank - b.rank);
  return h(
    "section",
    { class: "card result", "aria-labelledby": "result-h" },
    h("h2", { id: "result-h" }, m.status === "aborted" ? t("result-aborted") : t("result-title")),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("th", {}, t("col-rank")), h("th", {}, t("col-seat")), h("th", {}, t("col-player")), h("th", {}, t("col-score")))),
      h(
        "tbody",
        {},
        rows.map((r) =>
          h("tr", { class: r.seat === m.your_seat ? "you" : "" }, h("td", {}, r.rank), h("td", {}, r.seat), h("td", {}, playerLink(r.player)), h("td", {}, r.score)),
        ),
      ),
    ),
    h("p", {}, h("a", { class: "button", href: `#/replay/${m.id}` }, t("result-replay")), " ", m.rated ? t("result-rated") : t("result-unrated")),
  );
}

function roundsTable(m, rounds) {
  if (!rounds.length) return h("p", { class: "muted" }, t("rounds-none"));
  const n = m.seat_count;
  const cell = (rs) => {
    if (!rs) return "";
    const v = (x) => valueText(m.game, x);
    const bits = [rs.card ? v(rs.card) : null, rs.kind && rs.kind !== rs.card ? t("rounds-as", { kind: v(rs.kind) }) : null, rs.choice ? `→ ${v(rs.choice)}` : null, rs.stake !== null && rs.stake !== undefined ? tOr(`${m.game}-stake`, { stake: rs.stake }, t("rounds-stake", { stake: rs.stake })) : null]
      .filter(Boolean);
    const delta = rs.delta ? h("b", { class: rs.delta > 0 ? "up" : "down" }, rs.delta > 0 ? `+${rs.delta}` : rs.delta) : "";
    return [bits.join(", "), bits.length && delta ? " " : "", delta];
  };
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "rounds" },
      h(
        "thead",
        {},
        h("tr", {}, h("th", {}, "#"), h("th", {}, t("rounds-about")), h("th", {}, t("rounds-outcome")), Array.from({ length: n }, (_, i) => h("th", { style: `color:${seatColour(i)}` }, seatLabel(m, i)))),
      ),
      h(
        "tbody",
        {},
        [...rounds].reverse().map((r) =>
          h(
            "tr",
            {},
            h("td", {}, r.round),
            h("td", {}, subjectText(m.game, r.subject)),
            h("td", {}, valueText(m.game, r.outcome ?? ""), r.total_a != null ? (r.total_b != null ? ` (${r.total_a}:${r.total_b})` : ` (${r.total_a})`) : ""),
            Array.from({ length: n }, (_, i) => h("td", {}, cell(r.seats.find((x) => x.seat === i)))),
          ),
        ),
      ),
    ),
  );
}

function lifecycleButtons(m, refresh, gameInfo) {
  const me = session.name;
  const seated = m.your_seat !== null && m.your_seat !== undefined;
  const owner = me && m.owner?.name === me;
  const act = (label, path, body, cls = "secondary", confirmText = null) =>
    h("button", {
      type: "button",
      class: cls,
      onclick: (e) => {
        if (confirmText && !confirm(confirmText)) return;
        attempt(async () => {
          await post(`/matches/${m.id}${path}`, body);
          refresh();
        }, e.currentTarget);
      },
    }, label);
  const out = [];
  if (m.status === "waiting") {
    if (me && !seated) out.push(act(t("action-join"), "/join", {}, "primary"));
    if (seated && !owner) out.push(act(t("action-leave"), "/leave"));
    if (owner) {
      const kinds = gameInfo?.bots?.length ? gameInfo.bots : ["random"];
      const kind = h("select", { "aria-label": t("create-bot-kind"), id: "bot-kind" }, kinds.map((k) => h("option", { value: k }, t(`bot-${k}`))));
      out.push(
        h("span", { class: "add-bot" }, kind, " ", h("button", {
          type: "button",
          class: "secondary",
          onclick: (e) => attempt(async () => {
            await post(`/matches/${m.id}/bots`, { kind: kind.value });
            refresh();
          }, e.currentTarget),
        }, t("action-add-bot"))),
      );
      out.push(act(t("action-start"), "/start", {}, "primary"));
      out.push(act(t("action-cancel-match"), "/cancel", {}, "danger", t("confirm-cancel-match")));
    }
    if (!me) out.push(h("a", { href: "#/login", class: "button" }, t("action-log-in-to-join")));
  }
  if (m.status === "finished" && seated) {
    // "Play again": the first to ask makes the rematch, the others are invited
    // to it and land in the same one by asking too.
    out.push(
      h("button", {
        type: "button",
        class: "primary",
        id: "rematch",
        onclick: (e) => attempt(async () => {
          const next = await post(`/matches/${m.id}/rematch`, {});
          location.hash = `#/match/${next.id}`;
        }, e.currentTarget),
      }, t("action-play-again")),
    );
  }
  if (m.status === "active" && seated) {
    const mine = m.seats[m.your_seat];
    if (mine?.presence === "absent") out.push(act(t("action-i-am-back"), "/return", {}, "primary"));
    if (mine?.presence !== "forfeited") out.push(act(t("action-resign"), "/resign", {}, "danger", t("confirm-resign")));
  }
  return out.length ? h("div", { class: "lifecycle" }, out) : "";
}

/** Whether the caller may write in the match's chat (the server decides; this only hides the form). */
function mayChat(m) {
  if (!session.get() || m.chat === "off") return false;
  if (m.chat === "everyone") return true;
  return m.your_seat != null || m.owner?.name === session.name;
}

/** The match's chat: its messages, oldest first, and a form to write. */
function chatPanel(id) {
  const list = h("ol", { class: "chat-list", id: "chat-list", "aria-live": "polite" });
  const box = h("section", { class: "card chat", "aria-labelledby": "chat-h" });
  const text = h("input", { id: "chat-text", maxlength: 500, autocomplete: "off", placeholder: t("chat-placeholder"), "aria-label": t("chat-message") });
  const send = h("button", { type: "submit", class: "small" }, t("chat-send"));
  const form = h("form", { class: "chat-form", id: "chat-form" }, text, send);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const body = text.value.trim();
    if (!body) return;
    attempt(async () => {
      await post(`/matches/${id}/messages`, { text: body });
      text.value = "";
      await load();
    }, send);
  });
  let match = null;
  let shown = null;
  async function load() {
    if (!match) return;
    let page;
    try {
      page = await get(`/matches/${id}/messages?limit=200`);
    } catch (e) {
      // Closed to this reader (a match without spectators): no chat shown.
      box.hidden = true;
      return;
    }
    const items = page.items || [];
    const me = session.name;
    const owner = match.owner?.name === me;
    mount(
      list,
      items.length
        ? items.map((msg) =>
            h(
              "li",
              { class: msg.text == null ? "deleted" : "", "data-message": msg.id },
              h("strong", {}, msg.author.name), " ",
              msg.text == null ? h("em", { class: "muted" }, t("chat-deleted")) : msg.text,
              " ",
              h("time", { class: "muted", datetime: msg.created_at, title: date(msg.created_at) }, relative(msg.created_at)),
              msg.text != null && me && (msg.author.name === me || owner)
                ? h("button", { type: "button", class: "link small", "aria-label": t("chat-delete-label"), onclick: (e) => attempt(async () => {
                    await del(`/matches/${id}/messages/${msg.id}`);
                    await load();
                  }, e.target) }, t("chat-delete"))
                : "",
              // Muting hides a player's messages from you, in every match.
              me && msg.author.name !== me
                ? h("button", { type: "button", class: "link small", "aria-label": t("chat-mute-label", { name: msg.author.name }), onclick: (e) => attempt(async () => {
                    await api("PUT", `/players/me/mutes/${encodeURIComponent(msg.author.name)}`);
                    toast(t("toast-muted", { name: msg.author.name }), "info");
                    await load();
                  }, e.target) }, t("chat-mute"))
                : "",
            ),
          )
        : h("li", { class: "muted" }, t("chat-none")),
    );
    list.scrollTop = list.scrollHeight;
  }
  return {
    element: box,
    load,
    // Called at every render: the form is swapped only when who may write
    // changes, so a message being typed survives the match's updates.
    show(m) {
      match = m;
      box.hidden = m.chat === "off";
      const writes = mayChat(m);
      if (shown === writes) return;
      shown = writes;
      mount(
        box,
        h("h2", { id: "chat-h" }, t("chat-title")),
        list,
        writes ? form : h("p", { class: "muted" }, session.get() ? t("chat-players-only") : t("chat-log-in")),
      );
    },
  };
}

const LEGAL_KEY = "sealed-orders.legal";

/** Keeps the legal moves a seat was offered in a sealed step, for changing its move. */
function rememberLegal(id, step, legal) {
  try {
    sessionStorage.setItem(LEGAL_KEY, JSON.stringify({ id, step, legal }));
  } catch {
    /* storage full or off: changing the move is offered while the page lives */
  }
  memo = { id, step, legal };
}
let memo = null;

function rememberedLegal(id, step) {
  let kept = memo;
  try {
    kept = JSON.parse(sessionStorage.getItem(LEGAL_KEY)) ?? memo;
  } catch {
    /* as kept in the page */
  }
  return kept && kept.id === id && kept.step === step ? kept.legal : null;
}

export async function matchPage(app, id) {
  let match = null;
  let rounds = [];
  const kept = { key: null, element: null, pickers: {} };
  const liveBadge = h("span", { class: "live off", role: "status", title: t("live-title") }, t("live-connecting"));
  let gameInfo = null;
  const head = h("div", {});
  const board = h("section", { class: "board", "aria-label": t("match-board") });
  const side = h("section", { class: "side", "aria-label": t("match-your-move") });
  const history = h("section", { class: "card", "aria-labelledby": "rounds-h" });
  const result = h("div", {});
  const chat = chatPanel(id);
  const rulesBox = h("div", {});
  mount(app, head, h("div", { class: "match-layout" }, board, side), result, rulesBox, chat.element, history);

  // The step whose sealed move the seat is changing (its controls shown again).
  let changing = null;

  async function submit(action, button, problem) {
    if (problem) return toast(problem);
    await attempt(async () => {
      await post(`/matches/${id}/moves`, { step: match.prompt.step, action });
      changing = null;
      await load();
    }, button);
  }

  function render() {
    const m = match;
    const game = BOARDS[m.game];
    const round = m.prompt?.round ?? m.view?.round;
    window.sealedOrders.match = m;
    // A waiting tab says when it is your move, as game sites' tabs do.
    document.title = `${m.prompt?.your_turn ? `▶ ${t("match-your-move")} · ` : ""}${gameName(m.game)} · Sealed Orders`;
    if (!rulesBox.firstChild) mount(rulesBox, rulesPanel(m.game));
    app.dataset.version = m.version;
    app.dataset.step = m.step;
    app.dataset.status = m.status;
    mount(
      head,
      h(
        "div",
        { class: "match-head" },
        h("h1", {}, gameName(m.game), h("span", { class: "muted" }, ` · ${t(`status-${m.status}`)}${round ? ` · ${t("match-round", { round })}` : ""}`)),
        h(
          "div",
          { class: "match-meta muted" },
          m.rated ? t("match-rated") : t("match-unrated"),
          clockSummary(m),
          " · ",
          m.visibility && m.visibility !== "public" ? [h("span", { class: "badge", id: "visibility", "data-visibility": m.visibility }, t(`visibility-${m.visibility}`)), " · "] : "",
          m.rematch_of ? [h("a", { href: `#/match/${m.rematch_of}` }, t("match-rematch-of")), " · "] : "",
          t("match-created", { when: relative(m.created_at) }),
          " · ",
          h("span", { title: t("match-commitment-title", { hash: m.seed_sha256 }) }, t("match-commitment", { hash: m.seed_sha256.slice(0, 12) })),
          " ",
          m.status === "finished" || m.status === "aborted" ? "" : liveBadge,
        ),
      ),
      seatBar(m, load),
      lifecycleButtons(m, load, gameInfo),
    );
    const pickers = {};
    if (m.view && game) {
      try {
        mount(board, game.render(m, { pick: (field, value) => pickers[field]?.set?.(value), submit: (action) => submit(action) }));
      } catch (e) {
        console.warn(e);
        mount(board, h("pre", { class: "raw" }, JSON.stringify(m.view, null, 1)));
      }
    } else if (m.status === "waiting") {
      mount(board, h("div", { class: "card waiting" }, h("p", {}, t("waiting-seats", { taken: m.seats.filter((x) => x.player).length, total: m.seat_count })), h("p", { class: "muted" }, t("waiting-starts-when")), h("label", {}, h("span", {}, t("waiting-invite-address")), h("input", { type: "text", readonly: true, value: location.href, onfocus: (e) => e.target.select(), class: "invite" })), m.join_code ? h("label", {}, h("span", {}, t("waiting-join-code")), h("input", { type: "text", readonly: true, id: "join-code-value", value: m.join_code, onfocus: (e) => e.target.select(), class: "invite" })) : ""));
    } else mount(board);

    const p = m.prompt;
    const parts = [];
    if (p) {
      parts.push(
        h(
          "p",
          { class: "prompt-line", "aria-live": "polite" },
          p.your_turn
            ? [h("strong", {}, t("prompt-your-move")), " ", kindText(m.game, p.kind)]
            : t("prompt-waiting-for", { who: p.awaiting.map((x) => seatLabel(m, x)).join(", "), kind: kindText(m.game, p.kind) }),
          p.sealed ? h("span", { class: "badge" }, t("prompt-sealed")) : "",
        ),
      );
      // A sealed move stands until the step's reveal, and the seat may send
      // another meanwhile (it replaces the first). The API gives `legal` only
      // to a seat that owes a move, so the list it played from is kept for
      // the step (in the tab, across reloads): the choice it was made from.
      const placed = p.your_turn === false && m.your_seat != null && p.sealed && !p.awaiting.includes(m.your_seat);
      if (p.legal && p.legal.length && p.sealed) rememberLegal(id, p.step, p.legal);
      const legal = p.legal && p.legal.length ? p.legal : placed && changing === p.step ? rememberedLegal(id, p.step) : null;
      if (legal) {
        // The same decision as before (an event about someone else): keep the
        // controls as they are, with what the player has started to choose.
        const key = JSON.stringify([p.step, legal]);
        if (key !== kept.key) {
          kept.pickers = {};
          kept.element = controls(legal, submit, { game: m.game, label: game?.label ? (x) => game.label(x, m) : null, onPickers: (pk) => Object.assign(kept.pickers, pk) });
          kept.key = key;
        }
        Object.assign(pickers, kept.pickers);
        parts.push(kept.element);
      }
      if (placed) {
        const again = rememberedLegal(id, p.step);
        if (changing !== p.step) {
          parts.push(h("div", { class: "sealed-order" },
            h("p", { class: "muted" }, t("prompt-order-sealed")),
            again ? h("button", { type: "button", class: "secondary", id: "change-move", onclick: () => { changing = p.step; render(); } }, t("action-change-move")) : "",
          ));
        } else {
          parts.push(h("p", { class: "row" },
            h("span", { class: "muted" }, t("prompt-change-move")), " ",
            h("button", { type: "button", class: "link small", id: "keep-move", onclick: () => { changing = null; render(); } }, t("action-keep-move")),
          ));
        }
      }
    }
    if (game?.sidebar) parts.push(game.sidebar(m));
    // Swap only what changed: kept controls stay in the document, so they keep
    // the keyboard focus (a node taken out and put back loses it).
    const now = [...side.childNodes];
    if (now.length !== parts.length || now.some((n, i) => n !== parts[i])) {
      for (const n of now) if (!parts.includes(n)) n.remove();
      parts.forEach((part, i) => {
        if (side.childNodes[i] !== part) side.insertBefore(part, side.childNodes[i] ?? null);
      });
    }
    side.hidden = parts.length === 0;
    history.hidden = m.status === "waiting";
    mount(result, resultTable(m));
    if (chat.element.isConnected) chat.show(m);
    mount(history, h("h2", { id: "rounds-h" }, t("rounds-title")), roundsTable(m, rounds));
  }

  async function load() {
    const [m, r] = await Promise.all([get(`/matches/${id}`), get(`/matches/${id}/rounds?limit=200`).catch(() => ({ items: [] }))]);
    match = m;
    rounds = r.items || [];
    render();
  }

  await load();
  chat.show(match);
  await chat.load();
  if (match.status === "waiting") {
    gameInfo = (await games().catch(() => [])).find((g) => g.id === match.game) ?? null;
    render();
  }
  let timer = null;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => load().catch((e) => toast(e.message)), 120);
  };
  const onEvent = (kind) => {
    if (kind.startsWith("chat_")) chat.load().catch((e) => toast(e.message));
    else soon();
  };
  const onReconnect = () => {
    soon();
    chat.load().catch(() => {});
  };
  const stop = follow(`/matches/${id}/events`, onEvent, onReconnect, (live) => {
    liveBadge.textContent = live ? t("live-on") : t("live-reconnecting");
    liveBadge.classList.toggle("off", !live);
  });
  return () => {
    clearTimeout(timer);
    stop();
    document.title = "Sealed Orders";
  };
}
