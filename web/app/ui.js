// Small DOM helpers shared by the pages.
import { t, num, dateTime } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "value" && "value" in el) el.value = v;
    else if (k === "checked" && "checked" in el) el.checked = !!v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** An HTML element: h("button", {onclick}, "text", child, [more]). */
export function h(tag, attrs = {}, ...children) {
  return build(document.createElement(tag), attrs, children);
}

/** An SVG element, as h(). */
export function s(tag, attrs = {}, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

/** Replaces an element's children. */
export function mount(el, ...children) {
  el.replaceChildren();
  build(el, {}, children);
  return el;
}

/** A short-lived message at the bottom of the screen (errors and confirmations). */
export function toast(message, kind = "error") {
  const box = document.getElementById("toasts");
  const t = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, message);
  box.append(t);
  setTimeout(() => t.remove(), kind === "error" ? 8000 : 4000);
}

/** Runs an async action from a button or form, showing its error if any. */
export async function attempt(fn, button) {
  if (button) button.disabled = true;
  try {
    return await fn();
  } catch (e) {
    toast(e.message || String(e));
    return undefined;
  } finally {
    if (button) button.disabled = false;
  }
}

/** "in 2 h 5 min", "3 min ago"… */
export function relative(at) {
  const ms = new Date(at).getTime() - Date.now();
  const abs = Math.abs(ms);
  let text;
  if (abs < 60e3) text = t("span-s", { s: Math.round(abs / 1e3) });
  else if (abs < 3600e3) text = t("span-min-s", { min: Math.floor(abs / 60e3), s: Math.floor((abs % 60e3) / 1e3) });
  else if (abs < 86400e3) text = t("span-h-min", { h: Math.floor(abs / 3600e3), min: Math.floor((abs % 3600e3) / 60e3) });
  else text = t("span-d-h", { d: Math.floor(abs / 86400e3), h: Math.floor((abs % 86400e3) / 3600e3) });
  return ms >= 0 ? t("time-in", { span: text }) : t("time-ago", { span: text });
}

/** A countdown to `at`, ticking every second while in the page. */
export function countdown(at) {
  const el = h("time", { datetime: at, class: "countdown", title: dateTime(at) });
  const tick = () => {
    if (!el.isConnected && el.dataset.started) return;
    el.dataset.started = "1";
    const left = new Date(at).getTime() - Date.now();
    el.textContent = left > 0 ? clock(left) : t("countdown-time-up");
    el.classList.toggle("urgent", left < 30e3);
    setTimeout(tick, 1000 - (Date.now() % 1000) + 5);
  };
  tick();
  return el;
}

/** A span of time as the countdowns write it (`1:05:09`, `2 d 3 h`). */
export function clockText(ms) {
  return clock(ms);
}

function clock(ms) {
  const secs = Math.ceil(ms / 1000);
  const d = Math.floor(secs / 86400);
  const hh = Math.floor((secs % 86400) / 3600);
  const mm = Math.floor((secs % 3600) / 60);
  const ss = secs % 60;
  const pad = (n) => String(n).padStart(2, "0");
  if (d) return t("span-d-h", { d, h: hh });
  if (hh) return `${hh}:${pad(mm)}:${pad(ss)}`;
  return `${mm}:${pad(ss)}`;
}

export function date(at) {
  return at ? dateTime(at) : "";
}

/** Words from an identifier: "open_sequential" -> "open sequential". */
export function words(id) {
  return String(id ?? "").replaceAll("_", " ");
}

/** A player's name as a link to their dashboard. */
export function playerLink(ref) {
  if (!ref) return h("span", { class: "muted" }, t("seat-free"));
  const name = ref.name ?? ref;
  return h("a", { href: `#/player/${encodeURIComponent(name)}` }, name);
}

/** Seat colours, distinguishable and readable on the light background. */
export const SEAT_COLOURS = ["#c0392b", "#2471a3", "#1e8449", "#b7950b", "#7d3c98", "#ca6f1e", "#17a589", "#566573"];

export function seatColour(seat) {
  return SEAT_COLOURS[seat % SEAT_COLOURS.length];
}

/** A seat's player by name, or "seat 2" where it has none. */
export function seatLabel(match, seat) {
  return match?.seats?.[seat]?.player?.name ?? t("seat-n", { seat });
}

/** A number for reading: locale digits and separators; "—" for none. */
export function n(x, digits = null) {
  if (x === null || x === undefined || Number.isNaN(x)) return "—";
  return num(x, digits === null ? { maximumFractionDigits: 2 } : { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A share as a percentage: "12,5 %". */
export function pct(x) {
  return x === null || x === undefined ? "—" : num(x, { style: "percent", minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

/** A <details> table of the numbers behind a chart. */
export function numbers(caption, head, rows) {
  return h(
    "details",
    { class: "numbers" },
    h("summary", {}, t("numbers-caption", { caption })),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, c))))),
      ),
    ),
  );
}

/** A page's loading placeholder. */
export function loading() {
  return h("p", { class: "muted", "aria-busy": "true" }, t("loading"));
}
