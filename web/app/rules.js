// Each game's rules in short, in our own words with the rules texts' terms,
// readable in any of the three languages whatever the page's language is.
import { h, mount } from "./ui.js";
import { t, tIn, locale, LOCALES, LOCALE_NAMES } from "./i18n.js";

/** How many points each game's summary has (`rules-<game>-1` …). */
const POINTS = { malacca: 6, heretics: 5, kontor: 6, cairo: 6 };

/** A folded panel with the game's rules in short; `open` unfolds it. */
export function rulesPanel(game, { open = false } = {}) {
  const count = POINTS[game];
  if (!count) return "";
  const body = h("div", { class: "rules-body" });
  const langs = h("p", { class: "rules-langs muted" });
  async function show(lang) {
    const points = await Promise.all(Array.from({ length: count }, (_, i) => tIn(lang, `rules-${game}-${i + 1}`)));
    const summary = await tIn(lang, `rules-${game}-summary`);
    mount(body, h("p", { lang }, summary), h("ul", { lang }, points.map((p) => h("li", {}, p))));
    mount(
      langs,
      t("rules-read-in"),
      " ",
      LOCALES.map((l, i) => [i ? " · " : "", l === lang ? h("strong", { lang: l }, LOCALE_NAMES[l]) : h("button", { type: "button", class: "link", lang: l, onclick: () => show(l) }, LOCALE_NAMES[l])]),
    );
  }
  show(locale);
  return h(
    "details",
    { class: "card rules", id: "rules", open: open || null },
    h("summary", {}, t("rules-title", { game: t(`game-${game}`) })),
    body,
    langs,
  );
}
