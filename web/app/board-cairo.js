// Cairo: the Nile between two banks of parcels, zone by zone; the boats on the
// river's two lanes; stones and pyramids on the parcels; deserts; the report.
import { h, s, seatColour, seatLabel } from "./ui.js";
import { t, term } from "./i18n.js";
import { valueText } from "./terms.js";

const colour = (c) => term("cairo", "colour", c);

const COLOUR = { red: "#c0392b", blue: "#2471a3", green: "#1e8449", yellow: "#f1c40f", white: "#fdfefe", black: "#212f3d", purple: "#7d3c98", orange: "#ca6f1e" };
const colourOf = (name) => COLOUR[name] || name || "#888";

function stones(owned, x, y, max = 120) {
  const g = s("g", { transform: `translate(${x},${y})` });
  let cx = 0;
  for (const o of owned || []) {
    const col = colourOf(o.colour);
    const put = (w, label) => {
      if (cx + w > max) return;
      g.append(s("rect", { x: cx, y: 0, width: w, height: w, rx: 1.5, fill: col, stroke: "#333", "stroke-width": 0.8 }));
      if (label) g.append(s("text", { x: cx + w / 2, y: w - 3, "text-anchor": "middle", "font-size": 8, fill: o.colour === "white" || o.colour === "yellow" ? "#000" : "#fff" }, label));
      cx += w + 2;
    };
    if (o.small) put(10, o.small > 1 ? o.small : "");
    for (let i = 0; i < (o.large || 0); i++) put(14, "L");
    for (const f of o.dice || []) put(12, f);
  }
  return g;
}

/** Every owned-stones entry as text, for titles and the numbers. */
function stonesText(owned) {
  return (owned || []).map((o) => `${colour(o.colour)}: ${[o.small ? t("cairo-small-count", { count: o.small }) : "", o.large ? t("cairo-large-count", { count: o.large }) : "", o.dice?.length ? t("cairo-dice-faces", { faces: o.dice.join(",") }) : ""].filter(Boolean).join(", ")}`).join("; ");
}

export function render(m, ctx = {}) {
  const v = m.view;
  // A parcel is picked on the board where the prompt asks for one.
  const fields = new Set((m.prompt?.legal || []).flatMap((a) => Object.keys(a)));
  const pickable = ["landing", "landings", "parcel", "parcels"].some((f) => fields.has(f));
  const pickParcel = (id) => {
    ctx.pick?.("landing", id);
    ctx.pick?.("parcel", id);
  };
  const b = v.board;
  const zones = [...b.zones].sort((a, z) => a.index - z.index);
  const W = 360;
  const rowH = 104;
  const top = 22;
  const H = top + zones.length * rowH + 34;
  const riverX = 134;
  const riverW = 92;
  const svg = s(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, class: "board-svg", role: "img", "aria-label": t("cairo-board-label", { zones: zones.length, boats: v.seats.map((x) => `${colour(x.colour)} ${x.boat}`).join(", ") }) },
    s("rect", { width: W, height: H, fill: "#f9e79f" }),
    s("rect", { x: riverX, y: 0, width: riverW, height: H, fill: "#5dade2" }),
    s("text", { x: 60, y: 15, "text-anchor": "middle", "font-size": 11, "font-weight": 700 }, t("cairo-west-bank")),
    s("text", { x: 300, y: 15, "text-anchor": "middle", "font-size": 11, "font-weight": 700 }, t("cairo-east-bank")),
    s("text", { x: riverX + 24, y: 15, "text-anchor": "middle", "font-size": 9, fill: "#fff" }, t("cairo-upstream")),
    s("text", { x: riverX + 68, y: 15, "text-anchor": "middle", "font-size": 9, fill: "#fff" }, t("cairo-downstream")),
  );
  const spacePos = {};
  const parcelView = new Map(v.parcels.map((p) => [p.id, p]));
  zones.forEach((z, zi) => {
    const y0 = top + zi * rowH;
    svg.append(s("line", { x1: 0, x2: W, y1: y0, y2: y0, stroke: "#b7950b", "stroke-dasharray": "3 3" }));
    svg.append(s("text", { x: riverX + riverW / 2, y: y0 + rowH / 2 + 4, "text-anchor": "middle", "font-size": 10, fill: "#1b4f72", "font-weight": 700 }, z.id));
    // river spaces of this zone: upstream on the left lane, downstream on the right
    const ups = b.track.filter((sp) => sp.zone === z.id && sp.lane === "upstream");
    const downs = b.track.filter((sp) => sp.zone === z.id && sp.lane === "downstream");
    ups.forEach((sp, i) => (spacePos[sp.id] = [riverX + 22, y0 + rowH - 22 - i * 36]));
    downs.forEach((sp, i) => (spacePos[sp.id] = [riverX + 70, y0 + 22 + i * 36]));
    for (const sp of [...ups, ...downs]) {
      const [x, y] = spacePos[sp.id];
      svg.append(s("g", {}, s("title", {}, `${sp.id}: ${term("cairo", "space", sp.action)}`), s("circle", { cx: x, cy: y, r: 14, fill: sp.action === "retrieve" ? "#d6eaf8" : "#ebf5fb", stroke: "#1b4f72" }), s("text", { x, y: y + 3, "text-anchor": "middle", "font-size": 8, fill: "#1b4f72" }, sp.id)));
    }
    // desert stones of the zone, under its label
    const desert = v.deserts.find((d) => d.zone === z.id);
    if (desert?.stones?.length) {
      const g = stones(desert.stones, riverX + 30, y0 + rowH / 2 + 10, 50);
      g.prepend(s("title", {}, t("cairo-desert", { zone: z.id, stones: stonesText(desert.stones) })));
      svg.append(g);
    }
    for (const bank of ["left", "right"]) {
      const list = b.parcels.filter((p) => p.zone === z.id && p.bank === bank);
      list.forEach((p, i) => {
        const pv = parcelView.get(p.id) || p;
        const x = bank === "left" ? 4 : riverX + riverW + 4;
        const w = riverX - 8;
        const hgt = list.length > 1 ? 46 : rowH - 8;
        const y = y0 + 4 + i * 50;
        const g = s(
          "g",
          pickable
            ? {
                transform: `translate(${x},${y})`,
                class: "clickable",
                tabindex: 0,
                role: "button",
                "aria-label": t("cairo-choose-parcel", { parcel: p.id }),
                onclick: () => pickParcel(p.id),
                onkeydown: (e) => {
                  if (e.key === "Enter" || e.key === " ") {
                    e.preventDefault();
                    pickParcel(p.id);
                  }
                },
              }
            : { transform: `translate(${x},${y})` },
          s("title", {}, t("cairo-parcel-title", { parcel: p.id, zone: z.id, low: pv.low, high: pv.high, influence: pv.influence?.join("/") ?? "", stones: stonesText(pv.loose) })),
          s("rect", { width: w, height: hgt, rx: 4, fill: "#fcf3cf", stroke: "#9a7d0a" }),
          s("text", { x: 4, y: 12, "font-size": 10, "font-weight": 700 }, p.id),
          s("text", { x: w - 4, y: 12, "text-anchor": "end", "font-size": 9.5 }, `${pv.low}/${pv.high}`),
        );
        // influence per seat, coloured
        let ix = 26;
        (pv.influence || []).forEach((n, seat) => {
          if (!n) return;
          g.append(s("text", { x: ix, y: 12, "font-size": 10, "font-weight": 700, fill: colourOf(v.seats[seat]?.colour) === "#fdfefe" ? "#555" : colourOf(v.seats[seat]?.colour) }, n));
          ix += 14;
        });
        g.append(stones(pv.loose, 4, 17, w - 8));
        (pv.pyramids || []).forEach((pyr, k) => {
          const px = 6 + k * 26;
          const py = hgt - 4;
          g.append(s("g", {}, s("title", {}, t("cairo-pyramid-title", { id: pyr.id, floors: pyr.floors?.map((f) => f.map(colour).join(" ")).join(" / ") ?? "" })), s("path", { d: `M${px} ${py} L${px + 22} ${py} L${px + 11} ${py - 16} Z`, fill: "#d4ac0d", stroke: "#7d6608" }), s("text", { x: px + 11, y: py - 3, "text-anchor": "middle", "font-size": 8 }, pyr.size)));
        });
        svg.append(g);
      });
    }
  });
  // START below the last zone
  spacePos[b.start] = [riverX + riverW / 2, top + zones.length * rowH + 16];
  svg.append(s("text", { x: riverX + riverW / 2, y: top + zones.length * rowH + 30, "text-anchor": "middle", "font-size": 9, fill: "#fff" }, t("cairo-start")));
  // boats: one per seat, side by side where they share a space
  const seen = {};
  for (const seat of v.seats) {
    const pos = spacePos[seat.boat];
    if (!pos) continue;
    const k = (seen[seat.boat] = (seen[seat.boat] || 0) + 1) - 1;
    const [x, y] = [pos[0] - 12 + k * 8, pos[1] - 6 + k * 4];
    svg.append(
      s(
        "g",
        { transform: `translate(${x},${y})` },
        s("title", {}, t("cairo-boat-title", { name: seatLabel(m, seat.seat), colour: colour(seat.colour), space: seat.boat })),
        s("path", { d: "M0 6 L24 6 L19 13 L5 13 Z", fill: colourOf(seat.colour), stroke: "#000", "stroke-width": 1 }),
        s("path", { d: "M12 6 L12 -6 L20 3 Z", fill: "#fff", stroke: "#000", "stroke-width": 0.8 }),
      ),
    );
  }
  return h("div", {}, svg, panel(m));
}

function panel(m) {
  const v = m.view;
  const rows = v.seats.map((x) =>
    h(
      "tr",
      { class: x.seat === v.viewer ? "you" : "" },
      h("td", { style: `color:${seatColour(x.seat)};font-weight:700` }, m.seats[x.seat]?.player?.name ?? x.seat),
      h("td", {}, h("span", { class: "swatch", style: `background:${colourOf(x.colour)}` }), " ", colour(x.colour)),
      h("td", {}, x.boat),
      h("td", {}, `${x.supply.small}/${x.supply.large}/${x.supply.dice}`),
      h("td", {}, `${x.lost.small}/${x.lost.large}/${x.lost.dice}`),
    ),
  );
  const ts = v.turn_state;
  const out = [
    h(
      "div",
      { class: "table-wrap" },
      h("table", {}, h("thead", {}, h("tr", {}, [t("col-seat"), t("cairo-colour"), t("cairo-boat"), t("cairo-supply"), t("cairo-lost")].map((c) => h("th", {}, c)))), h("tbody", {}, rows)),
    ),
    h("p", { class: "muted" }, t("cairo-supply-legend")),
    h("p", { class: "muted" }, [t("cairo-turn", { turn: v.turn }), term("cairo", "phase", v.phase), ...(ts ? [t("cairo-roll", { roll: ts.roll ?? "—" }), t("cairo-finger", { finger: ts.finger ? term("cairo", "value", ts.finger) : "—" }), t("cairo-material", { material: ts.material ? term("cairo", "value", ts.material) : "—" }), t("cairo-flicks", { count: ts.flicks_done })] : []), t("cairo-mode", { mode: term("cairo", "mode", v.options?.mode ?? "") })].join(" · ")),
  ];
  const r = v.report;
  if (r) {
    const sub = r.submitted;
    out.push(
      h(
        "div",
        { class: "card report" },
        h("h3", {}, t("cairo-report-title", { reporter: seatLabel(m, r.reporter), subject: term("cairo", "value", r.subject?.kind ?? ""), of: seatLabel(m, r.subject?.seat), material: term("cairo", "value", r.subject?.material ?? "") })),
        sub ? h("p", {}, t("cairo-report-landed", { landing: valueText("cairo", sub.landing), knocked: sub.boat_knocked_over ? "yes" : "no" })) : h("p", { class: "muted" }, t("cairo-report-drafting")),
        (sub?.displaced || r.displaced || []).length
          ? h("ul", {}, (sub?.displaced || r.displaced).map((d) => h("li", {}, `${colour(d.owner)} ${term("cairo", "value", d.stone)}: ${d.from.parcel ?? d.from.zone ?? JSON.stringify(d.from)} → ${term("cairo", "value", d.to)}`)))
          : "",
        (sub?.toppled_pyramids || []).length ? h("p", {}, t("cairo-toppled", { pyramids: sub.toppled_pyramids.join(", ") })) : "",
        h("p", { class: "muted" }, [t("cairo-voting", { voters: r.confirmers.map((x) => seatLabel(m, x)).join(", ") || "—" }), r.my_vote ? t("cairo-my-vote", { vote: term("cairo", "action", r.my_vote) }) : "", t("cairo-attempt", { attempt: r.attempt })].filter(Boolean).join(" · ")),
      ),
    );
  }
  if (v.result) out.push(h("p", {}, t("cairo-final-scores", { scores: (v.result.scores || []).join(" · ") })));
  return h("div", {}, out);
}

export function label(x) {
  if (x.type === "confirm") return t("cairo-confirm");
  if (x.type === "dispute") return t("cairo-dispute");
  if (x.type === "choose_material" && x.material) return t("cairo-deliver", { material: term("cairo", "value", x.material) }) + (x.finger ? ` (${term("cairo", "value", x.finger)})` : "");
  if (x.type === "end_build") return t("cairo-end-build");
  return null;
}
