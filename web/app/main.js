// Hash routing: #/ lobby, #/login, #/account, #/match/<id>, #/replay/<id>,
// #/player/<name>, #/game/<id>, #/leaderboards[/<game>], #/clubs, #/club/<id>,
// #/tournaments, #/tournament/<id>, #/admin; the pages mailed links open:
// #/confirm-email?token=, #/reset-password?token=, #/unsubscribe?token=; and
// the OAuth consent page, served at /oauth/authorize (an address, not a hash).
import { session, api } from "./api.js";
import { h, mount, toast } from "./ui.js";
import { t, loadLocale, preferredLocale, locale, LOCALES, LOCALE_NAMES, chooseLocale } from "./i18n.js";
import { accountPage, loginPage, signOut } from "./account.js";
import { lobbyPage } from "./lobby.js";
import { clubsPage, clubPage } from "./clubs.js";
import { tournamentsPage, tournamentPage } from "./tournaments.js";
import { adminPage } from "./admin.js";
import { confirmEmailPage, resetPasswordPage, unsubscribePage } from "./notify.js";
import { matchPage } from "./match.js";
import { replayPage } from "./replay.js";
import { playerPage, gamePage, leaderboardsPage } from "./dashboard.js";
import { consentPage } from "./oauth.js";

const app = document.getElementById("app");
let cleanup = null;

const routes = [
  [/^\/?$/, () => lobbyPage],
  [/^\/login$/, () => loginPage],
  [/^\/account$/, () => accountPage],
  [/^\/match\/([\w-]+)$/, () => matchPage],
  [/^\/replay\/([\w-]+)$/, () => replayPage],
  [/^\/player\/([^/]+)$/, () => playerPage],
  [/^\/game\/([\w-]+)$/, () => gamePage],
  [/^\/leaderboards(?:\/([\w-]+))?$/, () => leaderboardsPage],
  [/^\/clubs$/, () => clubsPage],
  [/^\/club\/([\w-]+)$/, () => clubPage],
  [/^\/tournaments$/, () => tournamentsPage],
  [/^\/tournament\/([\w-]+)$/, () => tournamentPage],
  [/^\/admin$/, () => adminPage],
  [/^\/confirm-email\?(.*)$/, () => confirmEmailPage],
  [/^\/reset-password\?(.*)$/, () => resetPasswordPage],
  [/^\/unsubscribe\?(.*)$/, () => unsubscribePage],
  [/^\/oauth-consent$/, () => consentPage],
];

/**
 * Shows the page the hash names. Each page draws into a fresh container, so a
 * slow page that finishes after the user moved on draws into nothing; a page
 * may return a function that stops it (streams, timers).
 */
let current = 0;
async function route() {
  if (typeof cleanup === "function") cleanup();
  cleanup = null;
  const mine = ++current;
  const consent = location.pathname === "/oauth/authorize" && !location.hash;
  const path = consent ? "/oauth-consent" : decodeURIComponent(location.hash.replace(/^#/, "")) || "/";
  const box = h("div", { class: "page" });
  app.replaceChildren(box);
  for (const [re, page] of routes) {
    const m = path.match(re);
    if (m) {
      try {
        const stop = await page()(box, ...m.slice(1));
        if (mine === current) cleanup = stop;
        else if (typeof stop === "function") stop();
      } catch (e) {
        if (mine === current) mount(box, h("p", { class: "error" }, e.message || String(e)));
      }
      return;
    }
  }
  mount(box, h("h1", {}, t("not-found-title")), h("p", {}, h("a", { href: "#/" }, t("back-to-lobby"))));
}

/** The static page's words (index.html marks them with data-i18n). */
function translateStatic() {
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
  const noscript = document.querySelector("noscript");
  if (noscript) noscript.remove();
}

/** The language menu: the choice is kept in this browser and on the account. */
function localeMenu() {
  const select = h(
    "select",
    { id: "locale", "aria-label": t("language-menu"), class: "locale" },
    LOCALES.map((l) => h("option", { value: l, selected: l === locale, lang: l }, LOCALE_NAMES[l])),
  );
  select.addEventListener("change", () =>
    chooseLocale(select.value, session.get() ? (l) => api("PATCH", "/players/me", { locale: l }).catch(() => {}) : null),
  );
  return select;
}

function renderWho() {
  const who = document.getElementById("who");
  const name = session.name;
  if (name) {
    mount(
      who,
      h("a", { href: `#/player/${encodeURIComponent(name)}`, title: t("nav-your-dashboard") }, name),
      h("a", { href: "#/account" }, t("nav-account")),
      h("button", { type: "button", class: "link", onclick: () => signOut() }, t("nav-log-out")),
      localeMenu(),
    );
  } else {
    mount(who, h("a", { href: "#/login" }, t("nav-log-in")), localeMenu());
  }
}

window.addEventListener("hashchange", (e) => {
  // After logging in, go back to the page that sent you to the form.
  const from = new URL(e.oldURL).hash;
  if (location.hash === "#/login" && from && from !== "#/login") sessionStorage.setItem("sealed-orders.after-login", from);
  // A new page starts at its top, with the keyboard focus on it.
  window.scrollTo(0, 0);
  app.focus({ preventScroll: true });
  route();
});
window.addEventListener("session-changed", () => {
  renderWho();
  // A dropped session (a 401) re-renders the page as an anonymous visitor.
  if (!session.get() && !location.hash.startsWith("#/login")) {
    toast(t("toast-signed-out"), "info");
    route();
  }
});
window.addEventListener("unhandledrejection", (e) => toast(e.reason?.message || String(e.reason)));
await loadLocale(preferredLocale());
translateStatic();
renderWho();
route();
