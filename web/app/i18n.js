// The page's language: the catalogues (the server's own .ftl files, formatted
// with the vendored @fluent/bundle), numbers and dates by the locale (Intl), and
// the choice itself: the account's, else this browser's, else the browser's
// languages, else English.
import { FluentBundle, FluentResource } from "./vendor/fluent-bundle/index.js";

export const LOCALES = ["en", "cs", "et"];
/** Each language named in itself, for the menu. */
export const LOCALE_NAMES = { en: "English", cs: "Čeština", et: "Eesti" };
const KEY = "sealed-orders.locale";
const FILES = ["app.ftl", "games.ftl"];

let bundles = [];
export let locale = "en";

/** The stored choice, else the first of the browser's languages we speak. */
export function preferredLocale() {
  const stored = localStorage.getItem(KEY);
  if (LOCALES.includes(stored)) return stored;
  for (const tag of navigator.languages || [navigator.language]) {
    const primary = String(tag || "").toLowerCase().split("-")[0];
    if (LOCALES.includes(primary)) return primary;
  }
  return "en";
}

async function bundle(lang) {
  const b = new FluentBundle(lang, { useIsolating: false });
  const texts = await Promise.all(
    FILES.map((f) => fetch(`/app/locales/${lang}/${f}`).then((r) => (r.ok ? r.text() : ""))),
  );
  for (const text of texts) {
    const errors = b.addResource(new FluentResource(text));
    for (const e of errors) console.warn(`${lang}: ${e.message}`);
  }
  return b;
}

const others = new Map();

/** The message `id` in another language than the page's (the rules panel offers all three). */
export async function tIn(lang, id, args) {
  if (lang === locale) return t(id, args);
  if (!others.has(lang)) others.set(lang, bundle(lang));
  const b = await others.get(lang);
  const msg = b.getMessage(id);
  return msg?.value ? b.formatPattern(msg.value, args, []) : t(id, args);
}

/** Loads the catalogues of `lang` (with English behind it) and marks the page. */
export async function loadLocale(lang) {
  locale = LOCALES.includes(lang) ? lang : "en";
  bundles = locale === "en" ? [await bundle("en")] : await Promise.all([bundle(locale), bundle("en")]);
  document.documentElement.lang = locale;
}

/** The message `id` with `args`; English where the language lacks it, the id where both do. */
export function t(id, args) {
  for (const b of bundles) {
    const msg = b.getMessage(id);
    if (msg?.value) {
      const errors = [];
      const text = b.formatPattern(msg.value, args, errors);
      if (!errors.length) return text;
    }
  }
  return id;
}

/** Whether a catalogue has `id`. */
export function has(id) {
  return bundles.some((b) => b.hasMessage(id));
}

/** The message `id` if a catalogue has it, else `fallback`. */
export function tOr(id, args, fallback) {
  return has(id) ? t(id, args) : fallback;
}

/** A number as the locale writes it (`1 234,5` in Czech and Estonian). */
export function num(x, options) {
  return new Intl.NumberFormat(locale, options).format(x);
}

/** A date and time as the locale writes it. */
export function dateTime(at, options = { dateStyle: "medium", timeStyle: "short" }) {
  return new Intl.DateTimeFormat(locale, options).format(new Date(at));
}

/**
 * Chooses a language: kept in this browser, and on the account when signed in
 * (`saveOnAccount` is given the tag), then the page starts again in it.
 */
export async function chooseLocale(lang, saveOnAccount) {
  if (!LOCALES.includes(lang)) return;
  localStorage.setItem(KEY, lang);
  try {
    await saveOnAccount?.(lang);
  } finally {
    location.reload();
  }
}

/** Adopts the account's language (after a login): true when it differs from the page's. */
export function adoptLocale(lang) {
  if (!LOCALES.includes(lang)) return false;
  localStorage.setItem(KEY, lang);
  return lang !== locale;
}

/**
 * A game's word for an identifier from the API (a card, a kind of move, a
 * phase…): `<game>-<group>-<id>` in the catalogue, else the id as words.
 */
export function term(game, group, id) {
  const key = `${game}-${group}-${id}`;
  return has(key) ? t(key) : String(id ?? "").replaceAll("_", " ");
}
