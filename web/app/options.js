// A match's options as a form, generated from the game's defaults
// (GET /games/{game}) and its options schema in the published OpenAPI document.
import { get } from "./api.js";
import { h } from "./ui.js";
import { t, tOr } from "./i18n.js";

let specCache = null;
function spec() {
  specCache ??= get("/openapi.json").catch(() => null);
  return specCache;
}

function resolve(doc, schema) {
  let s = schema;
  for (let i = 0; s && s.$ref && i < 10; i++) s = doc?.components?.schemas?.[s.$ref.split("/").pop()];
  return s || {};
}

/** The enum values a property allows, if it is one (directly, by $ref or oneOf with null). */
function choices(doc, prop) {
  const direct = resolve(doc, prop);
  if (direct.enum) return direct.enum;
  for (const alt of prop.oneOf || prop.anyOf || []) {
    const r = resolve(doc, alt);
    if (r.enum) return r.enum;
  }
  return null;
}

const SERVICE = {
  rated: { type: "boolean" },
  move_time_limit: { type: "integer", nullable: true },
  timeout_policy: { enum: ["bot", "forfeit"] },
  absent_move_time_limit: { type: "integer" },
  min_reliability: { type: "number", minimum: 0, maximum: 1, step: 0.05 },
};

/** An option's name, help and values in the page's language (the spec's words are English). */
const label = (key) => tOr(`opt-${key}`, {}, key.replaceAll("_", " "));
const helpOf = (key) => tOr(`opt-${key}-help`, {}, "");
const valueOf = (key, v) => tOr(`opt-${key}-${v}`, {}, String(v).replaceAll("_", " "));

/** The browser's own time zone, the playing hours' default. */
function ownZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/**
 * The time control as fields rather than JSON: none or a bank (hours at the
 * start, earned a move, at most), and optionally the hours of the day the
 * banks run, in a time zone (the browser's by default).
 */
function timeControlField() {
  const num = (id, value, min) => h("input", { type: "number", id, value, min, step: "0.25", inputmode: "decimal" });
  const kind = h("select", { id: "opt-time_control" }, h("option", { value: "" }, t("opt-tc-none")), h("option", { value: "bank" }, t("opt-tc-bank")));
  const initial = num("opt-tc-initial", 72, 0.25);
  const increment = num("opt-tc-increment", 24, 0);
  const cap = num("opt-tc-cap", 168, 0.25);
  const useHours = h("input", { type: "checkbox", id: "opt-tc-hours" });
  const zones = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  const zone = h("input", { type: "text", id: "opt-tc-zone", value: ownZone(), list: "opt-tc-zones", spellcheck: "false", autocomplete: "off" });
  const from = h("input", { type: "time", id: "opt-tc-from", value: "08:00" });
  const to = h("input", { type: "time", id: "opt-tc-to", value: "22:00" });
  const field = (id, text, input) => h("label", { for: id, class: "tc-field" }, h("span", {}, text), input);
  const hoursBox = h(
    "div",
    { class: "tc-hours", hidden: true },
    field("opt-tc-zone", t("opt-tc-zone"), zone),
    h("datalist", { id: "opt-tc-zones" }, zones.map((z) => h("option", { value: z }))),
    field("opt-tc-from", t("opt-tc-from"), from),
    field("opt-tc-to", t("opt-tc-to"), to),
  );
  const bankBox = h(
    "div",
    { class: "tc-bank", hidden: true },
    field("opt-tc-initial", t("opt-tc-initial"), initial),
    field("opt-tc-increment", t("opt-tc-increment"), increment),
    field("opt-tc-cap", t("opt-tc-cap"), cap),
    h("label", { for: "opt-tc-hours", class: "tc-field check" }, useHours, h("span", {}, t("opt-tc-hours"))),
    h("small", { class: "muted" }, t("opt-tc-hours-help")),
    hoursBox,
  );
  const show = () => {
    bankBox.hidden = kind.value !== "bank";
    hoursBox.hidden = !useHours.checked;
  };
  kind.addEventListener("change", show);
  useHours.addEventListener("change", show);
  const seconds = (input) => (input.value === "" ? null : Math.round(Number(input.value) * 3600));
  return {
    input: h("div", { class: "tc" }, kind, bankBox),
    read() {
      if (kind.value !== "bank") return null;
      const tc = { kind: "bank", initial_seconds: seconds(initial), increment_seconds: seconds(increment) ?? 0 };
      const c = seconds(cap);
      if (c != null) tc.cap_seconds = c;
      if (useHours.checked) tc.playing_hours = { time_zone: zone.value.trim(), from: from.value, to: to.value };
      return tc;
    },
  };
}

/**
 * `{element, value()}`: the form, and the options that differ from the defaults
 * (what the server is sent: nothing for a default).
 */
export async function optionsForm(game) {
  const doc = await spec();
  const name = game.id.charAt(0).toUpperCase() + game.id.slice(1) + "Options";
  const schema = resolve(doc, doc?.components?.schemas?.[name] || {});
  const props = schema.properties || {};
  const defaults = { ...(game.options || {}), ...(game.service_options || {}) };
  const readers = [];
  const rows = [];
  for (const [key, def] of Object.entries(defaults)) {
    if (key === "position") continue; // a whole position is for API users
    const prop = props[key] || SERVICE[key] || {};
    const id = `opt-${key}`;
    const help = helpOf(key);
    const enumValues = SERVICE[key]?.enum || choices(doc, prop);
    let input;
    let read;
    if (key === "time_control") {
      ({ input, read } = timeControlField());
    } else if (typeof def === "boolean" || prop.type === "boolean") {
      input = h("input", { type: "checkbox", id, checked: !!def });
      read = () => input.checked;
    } else if (enumValues) {
      input = h("select", { id }, enumValues.map((v) => h("option", { value: v, selected: v === def ? "" : null }, valueOf(key, v))));
      read = () => input.value;
    } else if (typeof def === "number" || prop.type === "integer" || prop.type === "number" || (Array.isArray(prop.type) && prop.type.includes("integer"))) {
      // A share (min_reliability) takes fractions; counts and seconds do not.
      const fraction = prop.type === "number";
      input = h("input", { type: "number", id, value: def ?? "", min: prop.minimum ?? 0, max: prop.maximum ?? null, step: prop.step ?? null, inputmode: fraction ? "decimal" : "numeric", placeholder: def === null ? t("opt-none") : "" });
      read = () => (input.value === "" ? null : Number(input.value));
    } else {
      // Lists and objects: JSON, empty for the default.
      input = h("input", { type: "text", id, value: def === null ? "" : JSON.stringify(def), placeholder: def === null ? t("opt-default") : "", spellcheck: "false" });
      read = () => (input.value.trim() === "" ? null : JSON.parse(input.value));
    }
    readers.push([key, read, def]);
    rows.push(
      h(
        "div",
        { class: typeof def === "boolean" ? "opt check" : "opt" },
        h("label", { for: id }, label(key)),
        input,
        help ? h("small", { class: "muted" }, help) : "",
      ),
    );
  }
  const element = h("fieldset", { class: "options" }, h("legend", {}, t("opt-legend")), rows);
  return {
    element,
    value() {
      const out = {};
      for (const [key, read, def] of readers) {
        let v;
        try {
          v = read();
        } catch {
          throw new Error(t("opt-not-json", { option: label(key) }));
        }
        if (JSON.stringify(v) !== JSON.stringify(def)) out[key] = v;
      }
      return out;
    },
  };
}
