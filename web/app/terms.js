// The games' words for what the API names by id: cards, kinds of move, round
// outcomes, subjects, personalities and cities, in the page's language (the
// rules texts' terms; see games.ftl). An id without a word stays as it is.
import { t, tOr, term, has } from "./i18n.js";

export const gameName = (id) => t(`game-${id}`);

/** A prompt's kind of decision: "bet", "choose_personality"… */
export const kindText = (game, kind) => term(game, "kind", kind);

/** A Heretics personality: faction and strength ("Husita 7"). */
export function personality(faction, strength) {
  return t("heretics-personality", { faction: term("heretics", "faction", faction), strength: Number(strength) });
}

/** A Heretics city by id, in the language's own name for it. */
export function cityName(id, fallback = id) {
  return has(`heretics-city-${id}`) ? t(`heretics-city-${id}`) : fallback;
}

/** A value a game's records or moves name: a card, a kind, an outcome, a material… */
export function valueText(game, v) {
  if (v === null || v === undefined) return "";
  const s = String(v);
  if (game === "heretics") {
    const m = s.match(/^([a-z_]+):(\d+)$/);
    if (m) return personality(m[1], m[2]);
  }
  if (game === "kontor") {
    // Card ids: `red_7`, `black_12` (harbour cards), `water_25`, `flood_1`…
    const m = s.match(/^([a-z]+)_(\d+)$/);
    if (m && (m[1] === "red" || m[1] === "black")) return t("kontor-harbour-card", { colour: term("kontor", "colour", m[1]), number: Number(m[2]) });
    if (m) return `${term("kontor", "card", m[1])} ${m[2]}`;
  }
  return term(game, "value", s);
}

/** What a round was about: `ship:9`, `city:brno`, `parcel:P3`, `final_scoring`… */
export function subjectText(game, subject) {
  if (!subject) return "";
  const [kind, ...rest] = String(subject).split(":");
  let value = rest.join(":");
  if (kind === "city") value = cityName(value);
  if (kind === "cards") value = value.split(",").map((id) => valueText(game, id)).join(", ");
  if (kind === "landing") value = valueText(game, value);
  return tOr(`subject-${kind}`, { value }, String(subject).replaceAll("_", " "));
}
