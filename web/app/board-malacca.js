// Malacca: the passing ship, each seat's coins, stake and (face-down) card.
import { h, s, seatColour, seatLabel } from "./ui.js";
import { t, term } from "./i18n.js";
import { valueText } from "./terms.js";

const card = (id) => valueText("malacca", id);

const KIND_COLOUR = { attack: "#b03a2e", defense: "#1f618d", trade: "#b9770e", waiting: "#6c3483" };

/** A card's short name, smaller where a language's is longer than three letters. */
function cardLabel(w, hgt, short, full) {
  const size = short.length > 3 ? Math.min(12, Math.floor((w - 4) / (short.length * 0.72))) : 12;
  return s("text", { x: w / 2, y: hgt / 2 + 4, "text-anchor": "middle", fill: "#fff", "font-size": size, "font-weight": 700 }, short, s("title", {}, full));
}

function cardShape(x, y, card, { faceDown = false, w = 34, hgt = 48 } = {}) {
  const kind = String(card || "").replace(/\d+$/, "");
  const fill = faceDown ? "#5d4037" : KIND_COLOUR[kind] || "#7f8c8d";
  return s(
    "g",
    { transform: `translate(${x},${y})` },
    s("rect", { width: w, height: hgt, rx: 4, fill, stroke: "#2c1f14", "stroke-width": 1 }),
    faceDown
      ? s("path", { d: `M6 6 L${w - 6} ${hgt - 6} M${w - 6} 6 L6 ${hgt - 6}`, stroke: "#a1887f", "stroke-width": 1.5 })
      : cardLabel(w, hgt, term("malacca", "short", String(card || "").replace(/\d+$/, "").split("_")[0]), valueText("malacca", card)),
  );
}

export function render(m, ctx = {}) {
  const v = m.view;
  const n = v.players.length;
  const W = 360;
  const top = 96;
  const row = 58;
  const H = top + n * row + 8;
  const svg = s(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("malacca-board-label", { round: v.round, total: v.rounds_total, cargo: v.ship_value ?? "?" }), class: "board-svg" },
    s("rect", { width: W, height: top - 6, rx: 8, fill: "#aed6f1" }),
    // the ship
    s("path", { d: "M20 58 L120 58 L106 80 L34 80 Z", fill: "#6e2c00" }),
    s("path", { d: "M70 14 L70 58 M70 16 L104 50 L70 50", stroke: "#4a2511", fill: "#fdebd0", "stroke-width": 2 }),
    s("text", { x: 44, y: 52, "font-size": 26, "font-weight": 700, fill: "#1b2631", "text-anchor": "middle" }, v.ship_value ?? "?"),
    s("text", { x: 140, y: 28, "font-size": 15, "font-weight": 700, fill: "#1b2631" }, t("malacca-round", { round: v.round, total: v.rounds_total })),
    s("text", { x: 140, y: 48, "font-size": 13, fill: "#1b2631" }, `${term("malacca", "phase", v.phase)} · ${term("malacca", "stakes", v.stakes)}`.slice(0, 36)),
    s("text", { x: 140, y: 68, "font-size": 12, fill: "#1b2631" }, t("malacca-ships-left", { left: v.ships_left, seen: v.ships_revealed.join(" ") }).slice(0, 40)),
    s("text", { x: 140, y: 84, "font-size": 12, fill: "#1b2631" }, t("malacca-special-deck", { count: v.special_deck_size })),
  );
  v.players.forEach((p, i) => {
    const y = top + i * row;
    const you = p.seat === v.seat;
    const name = seatLabel(m, p.seat);
    const g = s(
      "g",
      { transform: `translate(0,${y})`, class: "seat-row" },
      s("rect", { width: W, height: row - 6, rx: 6, fill: you ? "#fef9e7" : "#fbfcfc", stroke: seatColour(p.seat), "stroke-width": you ? 2.5 : 1 }),
      s("rect", { width: 8, height: row - 6, rx: 3, fill: seatColour(p.seat) }),
      s("text", { x: 16, y: 20, "font-size": 14, "font-weight": 700, fill: "#1b2631" }, `${name}${p.seat === v.captain ? " ⚓" : ""}`.slice(0, 22)),
      s("circle", { cx: 23, cy: 36, r: 7, fill: "#f4d03f", stroke: "#9a7d0a" }),
      s("text", { x: 35, y: 41, "font-size": 13, fill: "#1b2631" }, `${t("malacca-coins", { count: p.coins })} · ${t("malacca-specials", { count: p.special_count })}${p.character ? " · " + term("malacca", "character", p.character) : ""}`.slice(0, 34)),
    );
    const eq = p.equipment || {};
    const eqText = Object.entries(eq).filter(([, c]) => c).map(([k, c]) => `${term("malacca", "equipment-short", k)}×${c}`).join(" ");
    if (eqText) g.append(s("text", { x: 170, y: 40, "font-size": 11, fill: "#555" }, eqText));
    if (p.stake !== null && p.stake !== undefined) {
      g.append(s("circle", { cx: 262, cy: 26, r: 14, fill: "#f4d03f", stroke: "#9a7d0a" }), s("text", { x: 262, y: 31, "text-anchor": "middle", "font-size": 13, "font-weight": 700 }, p.stake));
    }
    if (p.card) g.append(cardShape(300, 2, p.kind || p.card));
    else if (p.has_played) g.append(cardShape(300, 2, null, { faceDown: true }));
    else g.append(s("rect", { x: 300, y: 2, width: 34, height: 48, rx: 4, fill: "none", stroke: "#bbb", "stroke-dasharray": "4 3" }));
    svg.append(g);
  });
  const out = [svg];
  if (v.hand) {
    const hand = s("svg", { viewBox: `0 0 ${Math.max(v.hand.length, 3) * 44 + 10} 60`, class: "hand-svg", role: "group", "aria-label": t("hand-label", { cards: v.hand.map(card).join(", ") }) });
    // While a card is to be chosen, a card of the hand picks it.
    const choosable = new Set((m.prompt?.legal || []).flatMap((a) => a.cards || []));
    v.hand.forEach((c, i) => {
      const shape = cardShape(6 + i * 44, 6, c);
      if (choosable.has(c) && ctx.pick) {
        const pick = () => ctx.pick("card", c);
        shape.setAttribute("class", "clickable");
        shape.setAttribute("tabindex", "0");
        shape.setAttribute("role", "button");
        card.setAttribute("aria-label", t("malacca-choose-card", { card: valueText("malacca", c) }));
        shape.addEventListener("click", pick);
        shape.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            pick();
          }
        });
      }
      hand.append(shape);
    });
    out.push(h("div", { class: "hand" }, h("h3", {}, t("hand-title")), hand));
  }
  if (v.my_play) out.push(h("p", { class: "muted" }, t("malacca-my-play", { card: card(v.my_play.card), stake: v.my_play.stake ?? "—" })));
  if (v.last_round) {
    const lr = v.last_round;
    out.push(h("p", { class: "muted last-round" }, t("malacca-last-ship", { cargo: lr.ship_value ?? "", outcome: valueText("malacca", lr.outcome ?? ""), attack: lr.total_attack ?? 0, defense: lr.total_defense ?? 0 })));
  }
  return h("div", {}, out);
}

export function label(x) {
  if (x.field === "cards") return card(x.value);
  return null;
}
