// Heretics: the city fought for, the cities of Europe by who holds them, each
// faction's score, and the viewer's personalities.
import { h, s, seatColour, seatLabel } from "./ui.js";
import { t, term } from "./i18n.js";
import { personality as personalityName, cityName } from "./terms.js";

function personality(v, id) {
  return v.personalities.find((p) => p.id === id);
}

/** A personality as the page's language names it: faction and strength. */
function cardLabel(v, id) {
  const p = personality(v, id);
  const [faction, strength] = String(id).split(":");
  return personalityName(p?.faction ?? faction, p?.strength ?? strength);
}

const city = (c) => cityName(c.id, c.name);

export function render(m) {
  const v = m.view;
  const W = 360;
  const owner = new Map();
  v.won_cities.forEach((list, seat) => list.forEach((c) => owner.set(c, seat)));
  const unclaimed = new Set(v.unclaimed);
  const history = new Set(v.history.map((r) => r.city_id));
  const cols = 5;
  const cw = W / cols;
  const ch = 36;
  const rows = Math.ceil(v.cities.length / cols);
  const cityTop = 128;
  const seatTop = cityTop + rows * ch + 10;
  const seatRow = 40;
  const H = seatTop + v.seats * seatRow + 6;
  const cur = v.current_city;
  const svg = s(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, class: "board-svg", role: "img", "aria-label": cur ? t("heretics-board-label", { city: city(cur), resistance: cur.resistance, significance: cur.significance }) : t("heretics-no-city") },
    s("rect", { width: W, height: 118, rx: 8, fill: "#f5eedc", stroke: "#7b5e2f" }),
    s("text", { x: 12, y: 22, "font-size": 12, fill: "#555" }, t("heretics-wave-line", { wave: v.wave, city: v.wave_round, deck: v.city_deck_size })),
  );
  if (cur) {
    svg.append(
      s("text", { x: 12, y: 54, "font-size": 24, "font-weight": 700, fill: "#4a2c0a" }, city(cur)),
      s("text", { x: 12, y: 76, "font-size": 13, fill: "#4a2c0a" }, cur.name_cs && cur.name_cs !== city(cur) ? cur.name_cs : ""),
      s("g", {}, s("rect", { x: 232, y: 34, width: 56, height: 56, rx: 6, fill: "#922b21" }), s("text", { x: 260, y: 70, "text-anchor": "middle", fill: "#fff", "font-size": 24, "font-weight": 700 }, cur.resistance), s("text", { x: 260, y: 104, "text-anchor": "middle", "font-size": 10 }, t("heretics-resistance"))),
      s("g", {}, s("rect", { x: 296, y: 34, width: 56, height: 56, rx: 6, fill: "#b7950b" }), s("text", { x: 324, y: 70, "text-anchor": "middle", fill: "#fff", "font-size": 24, "font-weight": 700 }, cur.significance), s("text", { x: 324, y: 104, "text-anchor": "middle", "font-size": 10 }, t("heretics-significance"))),
    );
    if (cur.abilities?.length) svg.append(s("text", { x: 12, y: 100, "font-size": 11, fill: "#6c3483" }, cur.abilities.map((a) => term("heretics", "ability", a.type)).join(", ")));
  } else {
    svg.append(s("text", { x: 12, y: 60, "font-size": 18 }, v.finished ? t("heretics-wars-over") : t("heretics-no-city")));
  }
  v.cities.forEach((c, i) => {
    const x = (i % cols) * cw;
    const y = cityTop + Math.floor(i / cols) * ch;
    const held = owner.get(c.id);
    const fill = held !== undefined ? seatColour(held) : unclaimed.has(c.id) ? "#aab7b8" : cur?.id === c.id ? "#f9e79f" : "#fdfefe";
    const fg = held !== undefined || unclaimed.has(c.id) ? "#fff" : "#1b2631";
    svg.append(
      s(
        "g",
        { transform: `translate(${x + 1},${y})` },
        s("title", {}, t("heretics-city-title", { city: city(c), resistance: c.resistance, significance: c.significance, holder: held !== undefined ? seatLabel(m, held) : unclaimed.has(c.id) ? "unclaimed" : "none" })),
        s("rect", { width: cw - 2, height: ch - 3, rx: 4, fill, stroke: cur?.id === c.id ? "#b7950b" : "#ccc", "stroke-width": cur?.id === c.id ? 2.5 : 1 }),
        s("text", { x: (cw - 2) / 2, y: 14, "text-anchor": "middle", "font-size": 9.5, "font-weight": 600, fill: fg }, city(c).slice(0, 12)),
        s("text", { x: (cw - 2) / 2, y: 27, "text-anchor": "middle", "font-size": 10, fill: fg }, `${c.resistance} · ${c.significance}`),
      ),
    );
  });
  for (let seat = 0; seat < v.seats; seat++) {
    const y = seatTop + seat * seatRow;
    const name = seatLabel(m, seat);
    svg.append(
      s(
        "g",
        { transform: `translate(0,${y})` },
        s("rect", { width: W, height: seatRow - 4, rx: 5, fill: seat === v.viewer ? "#fef9e7" : "#fbfcfc", stroke: seatColour(seat) }),
        s("rect", { width: 8, height: seatRow - 4, rx: 3, fill: seatColour(seat) }),
        s("text", { x: 16, y: 16, "font-size": 13, "font-weight": 700 }, `${name}`.slice(0, 18)),
        s("text", { x: 16, y: 31, "font-size": 11, fill: "#555" }, term("heretics", "factions", v.factions[seat])),
        s("text", { x: 170, y: 16, "font-size": 12 }, t("heretics-score", { score: v.scores[seat] })),
        s("text", { x: 170, y: 31, "font-size": 11, fill: "#555" }, t("heretics-seat-line", { hand: v.hand_sizes[seat], temple: v.temple[seat].length, cities: v.won_cities[seat].length })),
        s("text", { x: 340, y: 24, "font-size": 16, "text-anchor": "middle" }, v.submitted[seat] ? "✉" : ""),
      ),
    );
  }
  const out = [svg, h("p", { class: "muted" }, t("heretics-legend"))];
  if (v.choice) out.push(h("p", {}, t("heretics-my-choice", { card: cardLabel(v, v.choice) })));
  if (v.hand) out.push(h("div", { class: "hand" }, h("h3", {}, t("heretics-hand")), h("p", { class: "chips" }, v.hand.map((c) => h("span", { class: "chip" }, cardLabel(v, c))))));
  const last = v.history[v.history.length - 1];
  if (last) {
    out.push(
      h(
        "p",
        { class: "muted last-round" },
        t("heretics-last", { city: cityName(last.city_id, v.cities.find((c) => c.id === last.city_id)?.name ?? last.city_id) }),
        " ",
        last.plays.map((p, i) => `${seatLabel(m, i)}: ${p ? cardLabel(v, p) : "—"}`).join(", "),
        "; ",
        last.winner_seat !== null && last.winner_seat !== undefined ? t("heretics-won-by", { name: seatLabel(m, last.winner_seat) }) : t("heretics-unclaimed"),
      ),
    );
  }
  return h("div", {}, out);
}

export function label(x, m) {
  const v = m.view;
  if (x.type === "play" && x.card) return t("heretics-send", { card: cardLabel(v, x.card) });
  if (x.field) return null;
  return null;
}
