// A match's options as a form, generated from the game's defaults
// (GET /games/{game}) and its options schema in the published OpenAPI document.
import { get } from "./api.js";
import { h, words } from "./ui.js";

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
  rated: { type: "boolean", description: "Rated: the result moves the players' ratings (never with bots)." },
  move_time_limit: { type: "integer", nullable: true, description: "Seconds per move; empty for no limit." },
  timeout_policy: { enum: ["bot", "forfeit"], description: "When time runs out: a bot moves for the seat, or the seat forfeits." },
  absent_move_time_limit: { type: "integer", description: "Seconds per move while a bot stands in for an absent player." },
};

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
    const help = (prop.description || "").split("\n").join(" ").replace(/\. .*$/, ".");
    const enumValues = SERVICE[key]?.enum || choices(doc, prop);
    let input;
    let read;
    if (typeof def === "boolean" || prop.type === "boolean") {
      input = h("input", { type: "checkbox", id, checked: !!def });
      read = () => input.checked;
    } else if (enumValues) {
      input = h("select", { id }, enumValues.map((v) => h("option", { value: v, selected: v === def ? "" : null }, words(v))));
      read = () => input.value;
    } else if (typeof def === "number" || prop.type === "integer" || (Array.isArray(prop.type) && prop.type.includes("integer"))) {
      input = h("input", { type: "number", id, value: def ?? "", min: prop.minimum ?? 0, inputmode: "numeric", placeholder: def === null ? "none" : "" });
      read = () => (input.value === "" ? null : Number(input.value));
    } else {
      // Lists and objects: JSON, empty for the default.
      input = h("input", { type: "text", id, value: def === null ? "" : JSON.stringify(def), placeholder: def === null ? "default" : "", spellcheck: "false" });
      read = () => (input.value.trim() === "" ? null : JSON.parse(input.value));
    }
    readers.push([key, read, def]);
    rows.push(
      h(
        "div",
        { class: typeof def === "boolean" ? "opt check" : "opt" },
        h("label", { for: id }, words(key)),
        input,
        help ? h("small", { class: "muted" }, help) : "",
      ),
    );
  }
  const element = h("fieldset", { class: "options" }, h("legend", {}, "Options"), rows);
  return {
    element,
    value() {
      const out = {};
      for (const [key, read, def] of readers) {
        let v;
        try {
          v = read();
        } catch {
          throw new Error(`Option ${words(key)}: not valid JSON.`);
        }
        if (JSON.stringify(v) !== JSON.stringify(def)) out[key] = v;
      }
      return out;
    },
  };
}
