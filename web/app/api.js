// The one door to the server: /api/v1 with a bearer token, problem+json errors,
// and event streams (EventSource with a single-use ticket).

import { locale, t } from "./i18n.js";

const BASE = "/api/v1";
const KEY = "sealed-orders.session";

/** An error answer, with the problem document's `detail` as its message. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || t("error-http", { status }));
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
  // Problems come back in the page's language.
  const headers = { Accept: "application/json", "Accept-Language": locale };
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
    throw new ApiError(0, { detail: t("error-unreachable") });
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
 * `onState(live)` follows the connection. A stream that is the same for
 * everybody (the lobby) is opened `anonymous`: no ticket.
 * Returns a function that closes it.
 */
export function follow(path, onEvent, onReconnect = () => {}, onState = () => {}, { anonymous = false } = {}) {
  let source = null;
  let closed = false;
  let timer = null;
  let delay = 1000;
  let opened = false;

  async function open() {
    if (closed) return;
    // Every frame under the one name `message`, its kind inside: one
    // listener hears every kind, including those added after this page.
    let url = BASE + path + (path.includes("?") ? "&" : "?") + "event_names=message";
    const usedToken = anonymous ? null : session.get()?.token ?? null;
    if (usedToken) {
      try {
        const t = await post("/stream-tickets");
        url += "&ticket=" + encodeURIComponent(t.ticket);
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
    // The credential behind the stream ended (revoked, expired, password
    // changed): a newer session (another tab's login) reopens it; otherwise
    // this session is over and the page carries on anonymously.
    function credentialEnded(data) {
      source.close();
      if (usedToken && session.get()?.token === usedToken) {
        if (data?.detail) console.info(data.detail);
        session.set(null);
      } else retry();
    }
    source.onmessage = (ev) => {
      let frame = null;
      try {
        frame = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (frame?.event === "credential_ended") credentialEnded(frame.data);
      else if (frame?.event) onEvent(frame.event, frame.data, ev.lastEventId);
    };
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
