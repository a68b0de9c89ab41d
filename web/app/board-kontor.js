// Kontor: the harbour grid (water, harbours by colour, the centre), where the
// revealed card may go (click a highlighted space to place it), and the seats.
import { h, s, seatColour, seatLabel } from "./ui.js";
import { t, term } from "./i18n.js";

const FILL = { water: "#85c1e9", centre: "#f7dc6f", red: "#f1948a", black: "#aab7b8" };

export function cardText(c) {
  if (!c) return "—";
  const kind = c.kind === "harbour" ? t("kontor-harbour-card", { colour: term("kontor", "colour", c.colour), number: c.number }) : c.kind === "water" ? t("kontor-water-card", { number: c.number }) : `${term("kontor", "card", c.special ?? c.kind)}${c.number != null ? ` ${c.number}` : ""}`;
  const bits = [kind];
  for (const mark of ["ship", "coin", "crane", "pub"]) if (c[mark]) bits.push(term("kontor", "mark", mark));
  const g = c.goods || {};
  for (const k of ["tea", "wine", "spice"]) if (g[k]) bits.push(t(`kontor-goods-${k}`, { count: g[k] }));
  return bits.join(" · ");
}

function cellFill(cell) {
  const c = cell.card;
  if (!c) return "#fff";
  if (c.kind === "centre") return FILL.centre;
  if (c.colour) return FILL[c.colour] || "#d5dbdb";
  return FILL[cell.type] || FILL.water;
}

/** Where a move can go: `{x,y}` of every complete `place` action or template cell. */
function targets(legal) {
  const out = [];
  for (const a of legal || []) {
    if (a.cell) out.push({ cell: a.cell, action: a });
    if (Array.isArray(a.cells)) for (const c of a.cells) out.push({ cell: c, template: true });
  }
  return out;
}

export function render(m, ctx = {}) {
  const v = m.view;
  const cells = v.board.cells;
  const legal = targets(m.prompt?.legal);
  const all = [...cells.map((c) => ({ x: c.x, y: c.y })), ...legal.map((tg) => tg.cell)];
  const minX = Math.min(...all.map((c) => c.x));
  const maxX = Math.max(...all.map((c) => c.x));
  const minY = Math.min(...all.map((c) => c.y));
  const maxY = Math.max(...all.map((c) => c.y));
  const cols = maxX - minX + 1;
  const rows = maxY - minY + 1;
  const size = Math.min(60, Math.floor(356 / cols));
  const W = Math.max(360, cols * size + 4);
  const H = rows * size + 4;
  const svg = s("svg", { viewBox: `0 0 ${W} ${H}`, class: "board-svg", role: "group", "aria-label": t("kontor-board-label", { count: cells.length }) });
  const ox = (W - cols * size) / 2;
  const at = (c) => [ox + (c.x - minX) * size, 2 + (c.y - minY) * size];
  for (const cell of cells) {
    const [x, y] = at(cell);
    const c = cell.card;
    const g = s(
      "g",
      { transform: `translate(${x},${y})` },
      s("title", {}, `(${cell.x}, ${cell.y}) ${cardText(c)}${cell.played_by != null ? `, ${t("kontor-played-by", { name: seatLabel(m, cell.played_by) })}` : ""}${cell.frozen ? `, ${t("kontor-frozen")}` : ""}`),
      s("rect", { x: 1, y: 1, width: size - 2, height: size - 2, rx: 4, fill: cellFill(cell), stroke: cell.played_by != null ? seatColour(cell.played_by) : "#5d6d7e", "stroke-width": cell.played_by != null ? 2.5 : 1, opacity: cell.scored_region != null ? 0.6 : 1 }),
      c?.number != null ? s("text", { x: 5, y: 15, "font-size": Math.max(10, size / 4.5), "font-weight": 700, fill: "#1b2631" }, c.number) : "",
      c?.kind === "centre" ? s("text", { x: size / 2, y: size / 2 + 4, "text-anchor": "middle", "font-size": 16 }, "⚓") : "",
    );
    const marks = ["ship", "coin", "crane", "pub"].filter((k) => c?.[k]).map((k) => term("kontor", "mark-short", k)).join("");
    if (marks) g.append(s("text", { x: size - 4, y: size - 6, "text-anchor": "end", "font-size": Math.max(9, size / 5), fill: "#1b2631" }, marks));
    const goods = c?.goods || {};
    let gx = 7;
    for (const [k, col] of [["tea", "#1e8449"], ["wine", "#6c3483"], ["spice", "#ca6f1e"]]) {
      for (let i = 0; i < (goods[k] || 0); i++) {
        g.append(s("circle", { cx: gx, cy: size - 9, r: 3.5, fill: col }));
        gx += 8;
      }
    }
    if (cell.frozen) g.append(s("text", { x: size - 5, y: 14, "text-anchor": "end", "font-size": 11 }, "*"));
    svg.append(g);
  }
  for (const tg of legal) {
    const [x, y] = at(tg.cell);
    const go = () => (tg.action ? ctx.submit?.(tg.action) : ctx.pick?.("cell", tg.cell));
    const g = s(
      "g",
      {
        transform: `translate(${x},${y})`,
        class: "clickable target",
        tabindex: 0,
        role: "button",
        "aria-label": t("kontor-place-at", { x: tg.cell.x, y: tg.cell.y }),
        onclick: go,
        onkeydown: (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            go();
          }
        },
      },
      s("rect", { x: 3, y: 3, width: size - 6, height: size - 6, rx: 4, fill: "rgba(26,115,232,.12)", stroke: "#1a73e8", "stroke-width": 2, "stroke-dasharray": "5 3" }),
      s("text", { x: size / 2, y: size / 2 + 5, "text-anchor": "middle", "font-size": 16, fill: "#1a73e8" }, "+"),
    );
    svg.append(g);
  }
  const out = [svg];
  const waiting = v.turn?.waiting?.find((c) => c);
  if (v.phase === "place" && v.turn) {
    const who = v.turn.current;
    const card = v.turn.waiting?.[v.turn.order.indexOf(who)] ?? waiting;
    out.push(h("p", { class: "to-place" }, t("kontor-to-place", { name: seatLabel(m, who) }), " ", h("strong", {}, cardText(card))));
  }
  out.push(
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, [t("col-seat"), t("kontor-team"), t("kontor-money"), t("kontor-hand"), t("kontor-deck")].map((c) => h("th", {}, c)))),
        h(
          "tbody",
          {},
          v.players.map((p) =>
            h(
              "tr",
              { class: p.seat === v.viewer ? "you" : "" },
              h("td", { style: `color:${seatColour(p.seat)};font-weight:700` }, m.seats[p.seat]?.player?.name ?? p.seat),
              h("td", {}, p.team ? term("kontor", "colour", p.team) : ""),
              h("td", {}, p.money),
              h("td", {}, p.hand_size, p.submitted ? " ✓" : ""),
              h("td", { title: t("kontor-deck-top", { card: cardText(p.harbour_deck?.top) }) }, p.harbour_deck?.size ?? ""),
            ),
          ),
        ),
      ),
    ),
    h("p", { class: "muted" }, t("kontor-legend")),
    h("p", { class: "muted" }, t("kontor-status-line", { round: v.round, phase: term("kontor", "phase", v.phase), bank: v.bank, water: v.water_deck?.size ?? "?", markers: Object.entries(v.markers || {}).map(([k, n]) => `${term("kontor", "colour", k)} ${n}`).join(", ") })),
  );
  if (v.hand) out.push(h("div", { class: "hand" }, h("h3", {}, t("hand-title")), h("p", { class: "chips" }, v.hand.map((c) => h("span", { class: "chip" }, cardText(c))))));
  if (v.my_choice) out.push(h("p", {}, t("kontor-my-choice"), " ", h("strong", {}, cardText(v.hand?.find((c) => c.id === v.my_choice) ?? { kind: v.my_choice }))));
  return h("div", {}, out);
}

export function label(x, m) {
  const v = m.view;
  if (x.type === "choose" && x.card) return t("kontor-choose", { card: cardText(v.hand?.find((c) => c.id === x.card)) || x.card });
  if (x.type === "place" && x.cell) return t("kontor-place-at", { x: x.cell.x, y: x.cell.y }) + (x.as ? ` ${t("kontor-place-as", { as: term("kontor", "value", x.as) })}` : "");
  return null;
}
