// A match: the board from `view`, the prompt as controls, deadlines, rounds,
// the result, its chat. Live through the match's event stream: on an event,
// re-read (the match, or the chat for a chat event).
import { api, get, post, del, follow, session } from "./api.js";
import { h, mount, attempt, toast, countdown, words, playerLink, seatColour, relative } from "./ui.js";
import { controls } from "./controls.js";
import { games } from "./lobby.js";
import * as malacca from "./board-malacca.js";
import * as heretics from "./board-heretics.js";
import * as kontor from "./board-kontor.js";
import * as cairo from "./board-cairo.js";

export const BOARDS = { malacca, heretics, kontor, cairo };

/** What the page last drew, for tests and curious users (the API's document as is). */
window.sealedOrders = window.sealedOrders || {};

function seatBar(m) {
  const awaiting = new Set(m.prompt?.awaiting || []);
  const deadlines = new Map((m.prompt?.deadlines || []).map((d) => [d.seat, d.at]));
  return h(
    "ol",
    { class: "seats", "aria-label": "Seats" },
    m.seats.map((seat) =>
      h(
        "li",
        {
          class: ["seat", awaiting.has(seat.seat) ? "to-move" : "", m.your_seat === seat.seat ? "you" : ""].join(" "),
          style: `--seat:${seatColour(seat.seat)}`,
        },
        h("span", { class: "dot", "aria-hidden": "true" }),
        h("span", { class: "seat-no" }, `${seat.seat}`),
        seat.player ? playerLink(seat.player) : h("span", { class: "muted" }, "free"),
        seat.bot ? h("span", { class: "badge" }, `bot ${seat.bot}`) : "",
        m.your_seat === seat.seat ? h("span", { class: "badge you" }, "you") : "",
        seat.presence && seat.presence !== "present" ? h("span", { class: "badge warn" }, seat.presence) : "",
        awaiting.has(seat.seat) ? h("span", { class: "to-move-label" }, m.prompt?.sealed ? "deciding" : "to move") : "",
        // A bot's deadline is "now": the server moves for it at once.
        deadlines.has(seat.seat) && !seat.bot ? countdown(deadlines.get(seat.seat)) : "",
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
    h("h2", { id: "result-h" }, m.status === "aborted" ? "Aborted" : "Result"),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, h("th", {}, "Rank"), h("th", {}, "Seat"), h("th", {}, "Player"), h("th", {}, "Score"))),
      h(
        "tbody",
        {},
        rows.map((r) =>
          h("tr", { class: r.seat === m.your_seat ? "you" : "" }, h("td", {}, r.rank), h("td", {}, r.seat), h("td", {}, playerLink(r.player)), h("td", {}, r.score)),
        ),
      ),
    ),
    h("p", {}, h("a", { class: "button", href: `#/replay/${m.id}` }, "Replay move by move"), " ", m.rated ? "Rated." : "Unrated."),
  );
}

function roundsTable(m, rounds) {
  if (!rounds.length) return h("p", { class: "muted" }, "No round resolved yet.");
  const n = m.seat_count;
  const cell = (rs) => {
    if (!rs) return "";
    const bits = [rs.card, rs.kind && rs.kind !== rs.card ? `as ${rs.kind}` : null, rs.choice ? `→ ${rs.choice}` : null, rs.stake !== null && rs.stake !== undefined ? `stake ${rs.stake}` : null]
      .filter(Boolean)
      .map(words);
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
        h("tr", {}, h("th", {}, "#"), h("th", {}, "About"), h("th", {}, "Outcome"), Array.from({ length: n }, (_, i) => h("th", { style: `color:${seatColour(i)}` }, `Seat ${i}`))),
      ),
      h(
        "tbody",
        {},
        [...rounds].reverse().map((r) =>
          h(
            "tr",
            {},
            h("td", {}, r.round),
            h("td", {}, words(r.subject ?? "")),
            h("td", {}, words(r.outcome ?? ""), r.total_a != null ? ` (${r.total_a}:${r.total_b})` : ""),
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
    if (me && !seated) out.push(act("Join", "/join", {}, "primary"));
    if (seated && !owner) out.push(act("Leave", "/leave"));
    if (owner) {
      const kinds = gameInfo?.bots?.length ? gameInfo.bots : ["random"];
      const kind = h("select", { "aria-label": "Bot kind", id: "bot-kind" }, kinds.map((k) => h("option", { value: k }, k)));
      out.push(
        h("span", { class: "add-bot" }, kind, " ", h("button", {
          type: "button",
          class: "secondary",
          onclick: (e) => attempt(async () => {
            await post(`/matches/${m.id}/bots`, { kind: kind.value });
            refresh();
          }, e.currentTarget),
        }, "Add bot")),
      );
      out.push(act("Start", "/start", {}, "primary"));
      out.push(act("Cancel match", "/cancel", {}, "danger", "Cancel this match?"));
    }
    if (!me) out.push(h("a", { href: "#/login", class: "button" }, "Log in to join"));
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
      }, "Play again"),
    );
  }
  if (m.status === "active" && seated) {
    const mine = m.seats[m.your_seat];
    if (mine?.presence === "absent") out.push(act("I am back", "/return", {}, "primary"));
    if (mine?.presence !== "forfeited") out.push(act("Resign", "/resign", {}, "danger", "Resign? Your seat plays no more and ranks last."));
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
  const text = h("input", { id: "chat-text", maxlength: 500, autocomplete: "off", placeholder: "Say something…", "aria-label": "Message" });
  const send = h("button", { type: "submit", class: "small" }, "Send");
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
              msg.text == null ? h("em", { class: "muted" }, "message deleted") : msg.text,
              " ",
              h("time", { class: "muted", datetime: msg.created_at, title: new Date(msg.created_at).toLocaleString() }, relative(msg.created_at)),
              msg.text != null && me && (msg.author.name === me || owner)
                ? h("button", { type: "button", class: "link small", "aria-label": "Delete this message", onclick: (e) => attempt(async () => {
                    await del(`/matches/${id}/messages/${msg.id}`);
                    await load();
                  }, e.target) }, "delete")
                : "",
              // Muting hides a player's messages from you, in every match.
              me && msg.author.name !== me
                ? h("button", { type: "button", class: "link small", "aria-label": `Mute ${msg.author.name}`, onclick: (e) => attempt(async () => {
                    await api("PUT", `/players/me/mutes/${encodeURIComponent(msg.author.name)}`);
                    toast(`${msg.author.name} is muted; unmute from your account page.`, "info");
                    await load();
                  }, e.target) }, "mute")
                : "",
            ),
          )
        : h("li", { class: "muted" }, "No message yet."),
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
        h("h2", { id: "chat-h" }, "Chat"),
        list,
        writes ? form : h("p", { class: "muted" }, session.get() ? "Only the players write here." : "Log in to write."),
      );
    },
  };
}

export async function matchPage(app, id) {
  let match = null;
  let rounds = [];
  const kept = { key: null, element: null, pickers: {} };
  const liveBadge = h("span", { class: "live off", role: "status", title: "Moves appear as they are made" }, "connecting…");
  let gameInfo = null;
  const head = h("div", {});
  const board = h("section", { class: "board", "aria-label": "Board" });
  const side = h("section", { class: "side", "aria-label": "Your move" });
  const history = h("section", { class: "card", "aria-labelledby": "rounds-h" });
  const result = h("div", {});
  const chat = chatPanel(id);
  mount(app, head, h("div", { class: "match-layout" }, board, side), result, chat.element, history);

  async function submit(action, button, problem) {
    if (problem) return toast(problem);
    await attempt(async () => {
      await post(`/matches/${id}/moves`, { step: match.prompt.step, action });
      await load();
    }, button);
  }

  function render() {
    const m = match;
    const game = BOARDS[m.game];
    const round = m.prompt?.round ?? m.view?.round;
    window.sealedOrders.match = m;
    // A waiting tab says when it is your move, as game sites' tabs do.
    const gameName = m.game.charAt(0).toUpperCase() + m.game.slice(1);
    document.title = `${m.prompt?.your_turn ? "▶ Your move · " : ""}${gameName} · Sealed Orders`;
    app.dataset.version = m.version;
    app.dataset.step = m.step;
    app.dataset.status = m.status;
    mount(
      head,
      h(
        "div",
        { class: "match-head" },
        h("h1", {}, `${m.game.charAt(0).toUpperCase()}${m.game.slice(1)}`, h("span", { class: "muted" }, ` · ${m.status}${round ? ` · round ${round}` : ""}`)),
        h(
          "div",
          { class: "match-meta muted" },
          m.rated ? "rated" : "unrated",
          " · ",
          m.visibility && m.visibility !== "public" ? [h("span", { class: "badge", id: "visibility" }, m.visibility), " · "] : "",
          m.rematch_of ? [h("a", { href: `#/match/${m.rematch_of}` }, "rematch"), " · "] : "",
          `created ${relative(m.created_at)}`,
          " · ",
          h("span", { title: `SHA-256 of the seed, published at creation: ${m.seed_sha256}. The seed itself is revealed at the end; the replay checks them.` }, `seed commitment ${m.seed_sha256.slice(0, 12)}…`),
          " ",
          m.status === "finished" || m.status === "aborted" ? "" : liveBadge,
        ),
      ),
      seatBar(m),
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
      mount(board, h("div", { class: "card waiting" }, h("p", {}, `Waiting for players: ${m.seats.filter((x) => x.player).length} of ${m.seat_count} seats taken.`), h("p", { class: "muted" }, "The match starts when every seat is taken, or when its owner starts it."), h("label", {}, h("span", {}, "Invite others with this address"), h("input", { type: "text", readonly: true, value: location.href, onfocus: (e) => e.target.select(), class: "invite" })), m.join_code ? h("label", {}, h("span", {}, "Join code (yours to hand out)"), h("input", { type: "text", readonly: true, id: "join-code-value", value: m.join_code, onfocus: (e) => e.target.select(), class: "invite" })) : ""));
    } else mount(board);

    const p = m.prompt;
    const parts = [];
    if (p) {
      parts.push(
        h(
          "p",
          { class: "prompt-line", "aria-live": "polite" },
          p.your_turn ? h("strong", {}, "Your move: ") : "Waiting for ",
          p.your_turn ? words(p.kind) : p.awaiting.map((x) => m.seats[x]?.player?.name ?? `seat ${x}`).join(", "),
          p.your_turn ? "" : ` (${words(p.kind)})`,
          p.sealed ? h("span", { class: "badge" }, "sealed") : "",
        ),
      );
      if (p.legal && p.legal.length) {
        // The same decision as before (an event about someone else): keep the
        // controls as they are, with what the player has started to choose.
        const key = JSON.stringify([p.step, p.legal]);
        if (key !== kept.key) {
          kept.pickers = {};
          kept.element = controls(p.legal, submit, { label: game?.label ? (x) => game.label(x, m) : null, onPickers: (pk) => Object.assign(kept.pickers, pk) });
          kept.key = key;
        }
        Object.assign(pickers, kept.pickers);
        parts.push(kept.element);
      } else if (p.your_turn === false && m.your_seat != null && p.sealed && !p.awaiting.includes(m.your_seat)) {
        parts.push(h("p", { class: "muted" }, "Your order is sealed. Waiting for the others."));
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
    mount(history, h("h2", { id: "rounds-h" }, "Rounds"), roundsTable(m, rounds));
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
    liveBadge.textContent = live ? "live" : "reconnecting…";
    liveBadge.classList.toggle("off", !live);
  });
  return () => {
    clearTimeout(timer);
    stop();
    document.title = "Sealed Orders";
  };
}
