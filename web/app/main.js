// Hash routing: #/ lobby, #/login, #/account, #/match/<id>, #/replay/<id>,
// #/player/<name>, #/game/<id>, #/leaderboards[/<game>], #/clubs, #/club/<id>,
// #/tournaments, #/tournament/<id>, #/admin.
import { session } from "./api.js";
import { h, mount, toast } from "./ui.js";
import { accountPage, loginPage, signOut } from "./account.js";
import { lobbyPage } from "./lobby.js";
import { clubsPage, clubPage } from "./clubs.js";
import { tournamentsPage, tournamentPage } from "./tournaments.js";
import { adminPage } from "./admin.js";
import { matchPage } from "./match.js";
import { replayPage } from "./replay.js";
import { playerPage, gamePage, leaderboardsPage } from "./dashboard.js";

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
  const path = decodeURIComponent(location.hash.replace(/^#/, "")) || "/";
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
  mount(box, h("h1", {}, "Not found"), h("p", {}, h("a", { href: "#/" }, "Back to the lobby")));
}

function renderWho() {
  const who = document.getElementById("who");
  const name = session.name;
  if (name) {
    mount(
      who,
      h("a", { href: `#/player/${encodeURIComponent(name)}`, title: "Your dashboard" }, name),
      h("a", { href: "#/account" }, "Account"),
      h("button", { type: "button", class: "link", onclick: () => signOut() }, "Log out"),
    );
  } else {
    mount(who, h("a", { href: "#/login" }, "Log in / register"));
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
    toast("You are signed out.", "info");
    route();
  }
});
window.addEventListener("unhandledrejection", (e) => toast(e.reason?.message || String(e.reason)));
renderWho();
route();
