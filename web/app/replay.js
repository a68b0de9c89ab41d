// A finished match, move by move from its export bundle, with the seed's
// fairness check: SHA-256 of the revealed seed (crypto.subtle) against the
// commitment published at creation; and the server's own replay on request.
import { get, post } from "./api.js";
import { h, mount, attempt, seatColour, numbers } from "./ui.js";
import { t, tOr } from "./i18n.js";
import { gameName, valueText, subjectText } from "./terms.js";
import { lineChart } from "./charts.js";
import { describe as describeAction } from "./controls.js";
import { BOARDS } from "./match.js";

function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

export async function sha256Hex(bytes) {
  const d = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(d)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

let game = "";
const describe = (action) => describeAction(action, null, game);

/** The latest resolved round, as revealed: each seat's card, stake and gain. */
function lastRound(r, nameOf) {
  const cell = (x) =>
    [x.card ? valueText(game, x.card) : null, x.kind && x.kind !== x.card ? t("rounds-as", { kind: valueText(game, x.kind) }) : null, x.choice ? `→ ${valueText(game, x.choice)}` : null, x.stake != null ? tOr(`${game}-stake`, { stake: x.stake }, t("rounds-stake", { stake: x.stake })) : null]
      .filter(Boolean)
      .join(", ");
  return h(
    "div",
    { class: "table-wrap" },
    h("p", {}, h("strong", {}, t("replay-round", { round: r.round })), r.subject ? ` · ${subjectText(game, r.subject)}` : "", r.outcome ? ` · ${valueText(game, r.outcome)}` : "", r.total_a != null ? (r.total_b != null ? ` (${r.total_a}:${r.total_b})` : ` (${r.total_a})`) : ""),
    h(
      "table",
      {},
      h("tbody", {}, (r.seats || []).map((x) => h("tr", {}, h("td", { style: `color:${seatColour(x.seat)};font-weight:700` }, nameOf(x.seat)), h("td", {}, cell(x)), h("td", { class: x.delta > 0 ? "up" : x.delta < 0 ? "down" : "" }, x.delta > 0 ? `+${x.delta}` : x.delta)))),
    ),
  );
}

export async function replayPage(app, id) {
  const [bundle, match, roundsPage] = await Promise.all([
    get(`/matches/${id}/export`),
    get(`/matches/${id}`),
    get(`/matches/${id}/rounds?limit=200`).catch(() => ({ items: [] })),
  ]);
  game = bundle.game ?? match.game;
  const moves = bundle.moves || [];
  const rounds = bundle.rounds || [];
  const stepOf = new Map((roundsPage.items || []).map((r) => [r.round, r.step]));
  const nameOf = (seat) => bundle.players?.find((p) => p.seat === seat)?.name ?? t("seat-n", { seat });
  const seats = bundle.seats ?? match.seat_count;

  // Fairness: the commitment and the revealed seed.
  const fair = h("section", { class: "card", "aria-labelledby": "fair-h" }, h("h2", { id: "fair-h" }, t("fair-title")));
  const lines = [
    h("p", {}, t("fair-committed"), " ", h("span", { class: "hash", id: "commitment" }, bundle.seed_sha256)),
    h("p", {}, t("fair-revealed"), " ", h("span", { class: "hash", id: "seed" }, bundle.seed ?? t("fair-not-yet"))),
  ];
  if (bundle.seed && !globalThis.crypto?.subtle) {
    // Browsers offer SHA-256 only to secure pages (https, or this machine).
    lines.push(h("p", { class: "muted", id: "fair-verdict" }, t("fair-no-subtle")));
  } else if (bundle.seed) {
    const computed = await sha256Hex(hexToBytes(bundle.seed));
    const ok = computed === bundle.seed_sha256;
    lines.push(
      h("p", {}, t("fair-computed"), " ", h("span", { class: "hash", id: "computed" }, computed)),
      h("p", { class: `fair ${ok ? "ok" : "bad"}`, id: "fair-verdict", "data-ok": ok ? "true" : "false" }, ok ? `✓ ${t("fair-ok")}` : `✗ ${t("fair-bad")}`),
    );
  }
  const serverOut = h("div", { "aria-live": "polite" });
  lines.push(
    h("p", { class: "muted" }, t("fair-explained")),
    h("button", {
      type: "button",
      class: "secondary",
      id: "verify",
      onclick: (e) => attempt(async () => {
        const r = await post("/replays/verify", bundle);
        mount(serverOut, h("p", { class: `fair ${r.valid ? "ok" : "bad"}`, id: "server-verdict", "data-ok": r.valid ? "true" : "false" }, r.valid ? `✓ ${t("fair-server-ok")}` : `✗ ${r.problems.join("; ")}`));
      }, e.currentTarget),
    }, t("fair-server-button")),
    serverOut,
  );
  fair.append(...lines);

  // Scores after each round, from the rounds' deltas.
  const totals = Array.from({ length: seats }, () => [[0, 0]]);
  const running = Array(seats).fill(0);
  rounds.forEach((r, i) => {
    for (const sr of r.seats || []) running[sr.seat] += sr.delta || 0;
    for (let k = 0; k < seats; k++) totals[k].push([i + 1, running[k]]);
  });

  let at = moves.length;
  const board = h("div", {});
  const now = h("div", { class: "card", "aria-live": "polite" });
  const chartBox = h("div", {});
  const list = h("ol", { class: "move-list", start: 1 });
  const slider = h("input", { type: "range", min: 0, max: moves.length, value: at, "aria-label": t("replay-move"), id: "replay-slider" });
  const roundsDone = () => {
    const step = at === 0 ? -1 : moves[at - 1].step;
    return rounds.filter((r) => (stepOf.get(r.round) ?? Infinity) <= step).length;
  };
  function go(i) {
    at = Math.max(0, Math.min(moves.length, i));
    slider.value = at;
    const mv = moves[at - 1];
    const done = at === moves.length ? rounds.length : roundsDone();
    mount(
      now,
      h("p", { id: "replay-position", "data-at": at, "data-of": moves.length }, t("replay-position", { at, total: moves.length }), mv ? ` · ${t("replay-step", { step: mv.step })}` : ""),
      mv
        ? h("p", {}, h("strong", { style: `color:${seatColour(mv.seat)}` }, nameOf(mv.seat)), mv.author ? ` (${String(mv.author).startsWith("bot:") ? t("seat-bot", { kind: t(`bot-${mv.author.slice(4)}`) }) : mv.author})` : "", `: ${describe(mv.action)}`, mv.sealed ? h("span", { class: "badge" }, t("prompt-sealed")) : "")
        : h("p", { class: "muted" }, t("replay-setup")),
      h("p", { class: "muted" }, t("replay-rounds-done", { done, total: rounds.length }), done ? `; ${t("replay-gains", { gains: Array.from({ length: seats }, (_, k) => `${nameOf(k)} ${totals[k][done][1]}`).join(", ") })}` : ""),
      done ? lastRound(rounds[done - 1], nameOf) : "",
    );
    mount(chartBox, lineChart({ title: t("replay-chart"), series: totals.map((pts, k) => ({ name: nameOf(k), points: pts })), xLabel: (x) => t("replay-round-short", { round: x }), cursor: done, yZero: true }));
    [...list.children].forEach((li, k) => li.classList.toggle("current", k === at - 1));
    list.children[at - 1]?.scrollIntoView({ block: "nearest" });
    showPosition(at === moves.length ? match.step : moves[at].step, at === moves.length);
  }
  // The board as it stood before the next move: the position at that move's
  // step (all of a step's sealed moves land together, at its reveal).
  const positions = new Map();
  let shown = null;
  function showPosition(step, last) {
    if (!BOARDS[match.game]) return;
    shown = step;
    const draw = (pos) => {
      if (shown !== step) return;
      // What the board was drawn from, for tests and curious users.
      window.sealedOrders = window.sealedOrders || {};
      window.sealedOrders.position = pos;
      try {
        mount(board,
          h("h2", { id: "replay-board-title", "data-step": step }, last ? t("replay-final-position") : t("replay-position-at", { step })),
          BOARDS[match.game].render({ ...match, step, view: pos.view, prompt: null }, {}));
      } catch (e) {
        console.warn(e);
      }
    };
    if (positions.has(step)) return draw(positions.get(step));
    get(`/matches/${id}/positions/${step}`).then((pos) => {
      positions.set(step, pos);
      draw(pos);
    }, (e) => console.warn(e));
  }
  slider.addEventListener("input", () => go(Number(slider.value)));
  const btn = (label, title, f) => h("button", { type: "button", class: "secondary small", title, "aria-label": title, onclick: f }, label);
  moves.forEach((mv, k) =>
    list.append(h("li", {}, h("button", { type: "button", class: "link", onclick: () => go(k + 1) }, `${nameOf(mv.seat)}: ${describe(mv.action)}`))),
  );
  const keys = (e) => {
    if (e.target.closest("input, textarea, select")) return;
    if (e.key === "ArrowLeft") go(at - 1);
    else if (e.key === "ArrowRight") go(at + 1);
    else if (e.key === "Home") go(0);
    else if (e.key === "End") go(moves.length);
    else return;
    e.preventDefault();
  };
  document.addEventListener("keydown", keys);
  mount(
    app,
    h("h1", {}, t("replay-title", { game: gameName(bundle.game) })),
    h("p", {}, (bundle.players || []).map((p, k) => [k ? ", " : "", h("span", { style: `color:${seatColour(p.seat)};font-weight:700` }, p.name)]), ` · ${t(`status-${bundle.status}`)} · `, h("a", { href: `#/match/${id}` }, t("replay-match-page"))),
    h("div", { class: "replay-bar" }, btn("«", t("replay-first"), () => go(0)), btn("◀", t("replay-previous"), () => go(at - 1)), slider, btn("▶", t("replay-next"), () => go(at + 1)), btn("»", t("replay-last"), () => go(moves.length))),
    h("div", { class: "match-layout" }, h("div", {}, now, chartBox, numbers(t("replay-numbers"), [t("col-round"), ...Array.from({ length: seats }, (_, k) => nameOf(k))], totals[0].map((_, r) => [r, ...totals.map((tt) => tt[r][1])]))), h("section", { class: "card" }, h("h2", {}, t("replay-moves")), h("div", { class: "move-scroll" }, list))),
    board,
    fair,
  );
  go(at);
  return () => document.removeEventListener("keydown", keys);
}
