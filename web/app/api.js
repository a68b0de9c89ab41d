// The one door to the server: /api/v1 with a bearer token, problem+json errors,
// and event streams (EventSource with a single-use ticket).

const BASE = "/api/v1";
const KEY = "sealed-orders.session";

/** Every event kind the spec lists: EventSource only calls listeners by name. */
export const EVENT_KINDS = [
  "axis_fixed", "build", "card_drawn", "card_placed", "card_removed", "card_returned",
  "cards_revealed", "city_revealed", "discard", "eliminated", "equipment_bought",
  "equipment_passed", "final_turn", "flick", "game_ended", "game_finished",
  "match_aborted", "match_finished", "match_started", "material", "move", "move_replaced", "pass_coin",
  "personality_chosen", "personality_placed", "play_order", "player_joined",
  "player_left", "region_scored", "report_draft", "report_resolved", "report_submitted",
  "retrieve", "roll", "round_ended", "round_resolved", "sayyida_draw", "scoring",
  "seat_forfeited", "seat_returned", "seat_submitted", "seat_timed_out", "ship_moved",
  "ship_revealed", "special_drawn", "special_drawn_count", "stake_placed",
  "step_resolved", "tax", "tie_breaks", "turn_end", "waiting_choice", "water_grant",
  "wave_started", "you_drew", "message",
  "invitation_sent", "invitation_accepted", "invitation_declined",
  "tournament_round_started",
  "chat_message", "chat_message_deleted",
];

/** An error answer, with the problem document's `detail` as its message. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem?.code;
    this.problem = problem;
  }
}

/** The signed-in player: `{name, token}` or null. Kept for the browser session. */
export const session = {
  get() {
    try {
      return JSON.parse(localStorage.getItem(KEY));
    } catch {
      return null;
    }
  },
  set(value) {
    if (value) localStorage.setItem(KEY, JSON.stringify(value));
    else localStorage.removeItem(KEY);
    window.dispatchEvent(new CustomEvent("session-changed"));
  },
  get name() {
    return this.get()?.name ?? null;
  },
};

/**
 * Calls the API. A 401 with a token means the token is no longer good (expired,
 * revoked, replaced by a password change): it is dropped, and a GET is tried
 * again anonymously so public pages keep working.
 */
export async function api(method, path, body, { anonymous = false, raw = false } = {}) {
  const token = anonymous ? null : session.get()?.token;
  const headers = { Accept: "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(BASE + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, { detail: "The server cannot be reached." });
  }
  if (res.status === 401 && token) {
    // Only the session that was refused is dropped (not a newer one).
    if (session.get()?.token === token) session.set(null);
    if (method === "GET") return api(method, path, body, { anonymous: true, raw });
  }
  if (!res.ok) {
    let problem = null;
    try {
      problem = await res.json();
    } catch {
      /* not a problem document */
    }
    throw new ApiError(res.status, problem);
  }
  if (raw) return res;
  if (res.status === 204) return null;
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

export const get = (path) => api("GET", path);
export const post = (path, body = {}) => api("POST", path, body);
export const del = (path) => api("DELETE", path);

/** Builds a query string from the set values of an object. */
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== "") q.set(k, v);
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

/**
 * Follows an event stream: `onEvent(kind, data)` for every event. Signed in, a
 * ticket is fetched first (browsers cannot send headers with EventSource); a
 * ticket is single-use, so after a drop the stream is opened afresh with a new
 * one and `onReconnect` is told (the caller re-reads what it shows);
 * `onState(live)` follows the connection.
 * Returns a function that closes it.
 */
export function follow(path, onEvent, onReconnect = () => {}, onState = () => {}) {
  let source = null;
  let closed = false;
  let timer = null;
  let delay = 1000;
  let opened = false;

  async function open() {
    if (closed) return;
    let url = BASE + path;
    const usedToken = session.get()?.token ?? null;
    if (usedToken) {
      try {
        const t = await post("/stream-tickets");
        url += (url.includes("?") ? "&" : "?") + "ticket=" + encodeURIComponent(t.ticket);
      } catch (e) {
        if (e.status === 401 || !session.get()) {
          /* fell back to anonymous: open without a ticket */
        } else {
          retry();
          return;
        }
      }
    }
    if (closed) return;
    source = new EventSource(url);
    source.onopen = () => {
      delay = 1000;
      onState(true);
      if (opened) onReconnect();
      opened = true;
    };
    for (const kind of EVENT_KINDS) {
      source.addEventListener(kind, (ev) => {
        let data = null;
        try {
          data = JSON.parse(ev.data);
        } catch {
          data = ev.data;
        }
        onEvent(kind, data);
      });
    }
    // The credential behind the stream ended (revoked, expired, password
    // changed): a newer session (another tab's login) reopens it; otherwise
    // this session is over and the page carries on anonymously.
    source.addEventListener("credential_ended", (ev) => {
      source.close();
      if (usedToken && session.get()?.token === usedToken) {
        let detail = null;
        try {
          detail = JSON.parse(ev.data)?.detail;
        } catch {
          /* no detail */
        }
        if (detail) console.info(detail);
        session.set(null);
      } else retry();
    });
    source.onerror = () => {
      // The browser would reconnect with the spent ticket: open anew instead.
      source.close();
      onState(false);
      retry();
    };
  }

  function retry() {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(open, delay);
    delay = Math.min(delay * 2, 30000);
  }

  open();
  return () => {
    closed = true;
    clearTimeout(timer);
    source?.close();
  };
}
