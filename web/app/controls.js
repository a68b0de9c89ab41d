// prompt.legal turned into controls: a button per complete action, a small form
// per template (one value from each plural list, an integer from each range, a
// subset — in the order picked — from each `subset_of`; singular fields as given).
import { h } from "./ui.js";
import { t, term } from "./i18n.js";
import { valueText } from "./terms.js";

/** The game whose controls are being drawn (its words name fields and values). */
let game = "";

/** A value as a person reads it: coordinates as (x, y), ids as words. */
export function show(v, of = game) {
  if (v === null || v === undefined) return t("value-none");
  if (typeof v === "object" && "x" in v && "y" in v) return `(${v.x}, ${v.y})`;
  if (typeof v === "object") return JSON.stringify(v);
  if (typeof v === "boolean") return v ? t("value-yes") : t("value-no");
  return valueText(of, v);
}

/** An action type or a field as the game names it. */
const actionName = (type, of = game) => term(of, "action", type);
const fieldName = (key, of = game) => term(of, "field", key);

/** The action a template's field names: `cards` -> `card`, `ship_tos` -> `ship_to`. */
function singular(key) {
  return key.endsWith("s") ? key.slice(0, -1) : key;
}

const isRange = (v) => v && typeof v === "object" && !Array.isArray(v) && "min" in v && "max" in v && !("subset_of" in v);
const isSubset = (v) => v && typeof v === "object" && !Array.isArray(v) && Array.isArray(v.subset_of);

/** A default label for a complete action: its type and its fields. */
export function describe(action, label, of = game) {
  const custom = label?.(action);
  if (custom) return custom;
  const rest = Object.entries(action).filter(([k]) => k !== "type");
  return [actionName(action.type, of), ...rest.map(([k, v]) => `${fieldName(k, of)} ${show(v, of)}`)].join(" · ");
}

let uid = 0;

/** More complete actions of one type than this become a small form. */
const MANY = 16;

/** A choice of one value: buttons-as-radios for a few, a select for many. */
function oneOf(name, values, label, picked) {
  const id = `pick-${++uid}`;
  if (values.length <= 12) {
    let current = values.length === 1 ? 0 : -1;
    const group = h("div", { class: "choices", role: "radiogroup", "aria-label": fieldName(singular(name)) });
    const inputs = values.map((v, i) =>
      h(
        "label",
        { class: "choice" },
        h("input", { type: "radio", name: id, value: String(i), checked: i === current, onchange: () => { current = i; picked?.(v); } }),
        h("span", {}, label?.(name, v) ?? show(v)),
      ),
    );
    group.append(...inputs);
    return {
      element: h("fieldset", { class: "param" }, h("legend", {}, fieldName(singular(name))), group),
      read: () => (current < 0 ? undefined : values[current]),
      set: (v) => {
        const i = values.findIndex((x) => JSON.stringify(x) === JSON.stringify(v));
        if (i >= 0) {
          current = i;
          inputs[i].querySelector("input").checked = true;
        }
      },
    };
  }
  const select = h(
    "select",
    { id, onchange: () => picked?.(values[Number(select.value)]) },
    h("option", { value: "" }, t("controls-choose")),
    values.map((v, i) => h("option", { value: String(i) }, label?.(name, v) ?? show(v))),
  );
  return {
    element: h("div", { class: "param" }, h("label", { for: id }, fieldName(singular(name))), select),
    read: () => (select.value === "" ? undefined : values[Number(select.value)]),
    set: (v) => {
      const i = values.findIndex((x) => JSON.stringify(x) === JSON.stringify(v));
      if (i >= 0) select.value = String(i);
    },
  };
}

function range(name, r) {
  const id = `pick-${++uid}`;
  const input = h("input", { type: "number", id, min: r.min, max: r.max, value: r.min, inputmode: "numeric", required: true });
  const slider = h("input", { type: "range", min: r.min, max: r.max, value: r.min, "aria-hidden": "true", tabindex: "-1" });
  slider.addEventListener("input", () => (input.value = slider.value));
  input.addEventListener("input", () => (slider.value = input.value));
  return {
    element: h(
      "div",
      { class: "param" },
      h("label", { for: id }, t("controls-range", { field: fieldName(name), min: r.min, max: r.max })),
      h("div", { class: "range" }, input, r.max - r.min <= 50 ? slider : ""),
    ),
    read: () => Number(input.value),
  };
}

/** A subset, in the order picked (the order may matter: bottom floor first). */
function subset(name, sub, label) {
  const order = [];
  const chosen = h("ol", { class: "picked", "aria-live": "polite" });
  const boxes = sub.subset_of.map((v) =>
    h("label", { class: "choice" }, h("input", {
      type: "checkbox",
      onchange: (e) => {
        const i = order.indexOf(v);
        if (e.target.checked && i < 0) order.push(v);
        if (!e.target.checked && i >= 0) order.splice(i, 1);
        chosen.replaceChildren(...order.map((x) => h("li", {}, label?.(name, x) ?? show(x))));
      },
    }), h("span", {}, label?.(name, v) ?? show(v))),
  );
  return {
    element: h(
      "fieldset",
      { class: "param", dataset: { min: sub.min, max: sub.max } },
      h("legend", {}, t("controls-subset", { field: fieldName(name), min: sub.min, max: sub.max })),
      h("div", { class: "choices" }, boxes),
      chosen,
    ),
    read: () => [...order],
    check: () => (order.length < sub.min || order.length > sub.max ? t("controls-subset-pick", { field: fieldName(name), min: sub.min, max: sub.max }) : null),
  };
}

/**
 * The controls for a prompt. `submit(action)` sends a move; `label` (optional,
 * per game) names actions and values; `onPickers(map)` hands the board the
 * one-value pickers by field so a click on the board can choose.
 */
export function controls(legal, submit, { game: of = "", label, onPickers } = {}) {
  game = of;
  const complete = legal.filter((m) => m.template !== true);
  const templates = legal.filter((m) => m.template === true);
  const parts = [];
  const pickers = {};
  // Complete actions: a button each, or, where one type has many (a Cairo
  // report: every landing times knocked over or not), one value per field
  // that varies, checked against the list on submit.
  const byType = new Map();
  for (const a of complete) {
    if (!byType.has(a.type)) byType.set(a.type, []);
    byType.get(a.type).push(a);
  }
  const buttons = [];
  for (const [type, group] of byType) {
    if (group.length <= MANY) {
      buttons.push(
        ...group.map((a) =>
          h("button", {
            type: "button",
            class: `action action-${a.type}`,
            dataset: { action: JSON.stringify(a) },
            onclick: (e) => submit(a, e.currentTarget),
          }, describe(a, label)),
        ),
      );
      continue;
    }
    const keys = [...new Set(group.flatMap((a) => Object.keys(a)))].filter((k) => k !== "type");
    const varying = keys.filter((k) => new Set(group.map((a) => JSON.stringify(a[k] ?? null))).size > 1);
    const fields = varying.map((k) => {
      const seen = new Map();
      for (const a of group) seen.set(JSON.stringify(a[k] ?? null), a[k] ?? null);
      const p = oneOf(k + "s", [...seen.values()], label ? (n, x) => label({ field: n, value: x }) : null);
      pickers[k] = p;
      return [k, p];
    });
    const go = h("button", { type: "submit", class: "primary" }, actionName(type));
    const form = h("form", { class: "template", dataset: { template: type } }, h("h3", {}, actionName(type)), fields.map(([, p]) => p.element), go);
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const chosen = {};
      for (const [k, p] of fields) {
        const v = p.read();
        if (v === undefined) return submit(null, go, t("controls-choose-field", { field: fieldName(k) }));
        chosen[k] = JSON.stringify(v);
      }
      const action = group.find((a) => varying.every((k) => JSON.stringify(a[k] ?? null) === chosen[k]));
      if (!action) return submit(null, go, t("controls-not-legal"));
      submit(action, go);
    });
    parts.push(form);
  }
  if (buttons.length) parts.unshift(h("div", { class: "actions-list" }, buttons));
  for (const tpl of templates) {
    const fields = [];
    const fixed = { type: tpl.type };
    for (const [key, v] of Object.entries(tpl)) {
      if (key === "template" || key === "type") continue;
      if (Array.isArray(v)) {
        const p = oneOf(key, v, label ? (n, x) => label({ field: n, value: x }) : null);
        pickers[singular(key)] = p;
        fields.push([singular(key), p]);
      } else if (isRange(v)) fields.push([key, range(key, v)]);
      else if (isSubset(v)) fields.push([key, subset(key, v, label ? (n, x) => label({ field: n, value: x }) : null)]);
      else if (v !== null) fixed[key] = v;
    }
    const go = h("button", { type: "submit", class: "primary" }, actionName(tpl.type));
    const form = h(
      "form",
      { class: "template", dataset: { template: tpl.type } },
      h("h3", {}, describe(fixed, label)),
      fields.map(([, p]) => p.element),
      go,
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const action = { ...fixed };
      for (const [key, p] of fields) {
        const problem = p.check?.();
        if (problem) return submit(null, go, problem);
        const v = p.read();
        if (v === undefined) return submit(null, go, t("controls-choose-field", { field: fieldName(key) }));
        action[key] = v;
      }
      submit(action, go);
    });
    parts.push(form);
  }
  onPickers?.(pickers);
  return h("div", { class: "controls" }, parts);
}
