// Mail: the address and what to be told by mail (on the account page), and
// the pages the mailed links open: confirming an address, a new password
// after a reset, unsubscribing.
import { api, get } from "./api.js";
import { h, mount, attempt, toast } from "./ui.js";
import { t } from "./i18n.js";

const TURN_MODES = ["immediately", "daily_digest", "off"];
const FLAGS = [
  ["invitations", "notify-invitations"],
  ["match_started", "notify-match-started"],
  ["match_finished", "notify-match-finished"],
  ["deadline_reminders", "notify-reminders"],
];

function browserZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

function zones() {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
}

/** The account page's card: the address, then the settings. */
export function notificationsCard() {
  const card = h("div", { class: "card", id: "notifications" });
  async function render() {
    const s = await get("/players/me/notifications");
    const status = s.email
      ? s.email.confirmed_at
        ? t("notify-address-confirmed", { address: s.email.address })
        : t("notify-address-unconfirmed", { address: s.email.address })
      : t("notify-address-none");
    const address = h(
      "form",
      { id: "email-form" },
      h("p", { id: "email-status", class: "muted" }, status),
      h("label", {}, h("span", {}, t("notify-address")),
        h("input", { name: "address", type: "email", required: true, autocomplete: "email", id: "email-address", value: s.email?.address ?? "" })),
      h("button", { type: "submit" }, t("notify-address-save")),
      s.email
        ? h("button", { type: "button", class: "small danger", id: "email-remove", onclick: (e) => attempt(async () => {
            await api("DELETE", "/players/me/email");
            await render();
          }, e.target) }, t("notify-address-remove"))
        : "",
    );
    address.addEventListener("submit", (e) => {
      e.preventDefault();
      const value = new FormData(address).get("address");
      attempt(async () => {
        await api("PUT", "/players/me/email", { address: value });
        toast(t("notify-address-sent", { address: value }), "info");
        await render();
      }, address.querySelector("button[type=submit]"));
    });
    const zone = s.time_zone === "UTC" && !s.email ? browserZone() : s.time_zone;
    const settings = h(
      "form",
      { id: "notify-form" },
      h("fieldset", {},
        h("legend", {}, t("notify-your-turn")),
        TURN_MODES.map((m) =>
          h("label", { class: "inline" },
            h("input", { type: "radio", name: "your_turn", value: m, checked: s.your_turn === m }),
            " ", t(`notify-your-turn-${m}`)))),
      h("label", {}, h("span", {}, t("notify-quiet")),
        h("input", { name: "quiet_minutes", type: "number", min: 0, max: 1440, value: s.quiet_minutes, id: "notify-quiet" })),
      h("label", {}, h("span", {}, t("notify-digest-hour")),
        h("select", { name: "digest_hour", id: "notify-digest-hour" },
          Array.from({ length: 24 }, (_, i) => h("option", { value: i, selected: i === s.digest_hour }, `${String(i).padStart(2, "0")}:00`)))),
      h("label", {}, h("span", {}, t("notify-time-zone")),
        h("input", { name: "time_zone", list: "notify-zones", value: zone, id: "notify-time-zone", required: true })),
      h("datalist", { id: "notify-zones" }, zones().map((z) => h("option", { value: z }))),
      FLAGS.map(([name, label]) =>
        h("label", { class: "inline" }, h("input", { type: "checkbox", name, checked: s[name] }), " ", t(label))),
      h("button", { type: "submit" }, t("notify-save")),
    );
    settings.addEventListener("submit", (e) => {
      e.preventDefault();
      const f = new FormData(settings);
      const body = {
        your_turn: f.get("your_turn") || "immediately",
        quiet_minutes: Number(f.get("quiet_minutes") || 0),
        digest_hour: Number(f.get("digest_hour") || 0),
        time_zone: f.get("time_zone"),
      };
      for (const [name] of FLAGS) body[name] = f.get(name) === "on";
      attempt(async () => {
        await api("PUT", "/players/me/notifications", body);
        toast(t("toast-notify-saved"), "info");
        await render();
      }, settings.querySelector("button[type=submit]"));
    });
    mount(
      card,
      h("h2", {}, t("notify-title")),
      s.mail_enabled ? "" : h("p", { class: "muted", id: "mail-off" }, t("notify-mail-off")),
      address,
      settings,
    );
  }
  render().catch((e) => mount(card, h("p", { class: "error" }, e.message || String(e))));
  return card;
}

/** The login page's "forgot your password" form. */
export function forgotPasswordCard() {
  const form = h(
    "form",
    { class: "card", id: "forgot" },
    h("h2", {}, t("forgot-title")),
    h("p", { class: "muted" }, t("forgot-explained")),
    h("label", {}, h("span", {}, t("forgot-login")), h("input", { name: "login", required: true, autocomplete: "username", id: "forgot-login" })),
    h("button", { type: "submit" }, t("forgot-submit")),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const login = new FormData(form).get("login");
    attempt(async () => {
      await api("POST", "/auth/password-reset", { login }, { anonymous: true });
      mount(form, h("h2", {}, t("forgot-title")), h("p", { id: "forgot-sent" }, t("forgot-sent")));
    }, form.querySelector("button"));
  });
  return form;
}

function tokenOf(query) {
  return new URLSearchParams(query || "").get("token") || "";
}

/** #/confirm-email?token=…: confirms at once (the link was mailed to the address). */
export async function confirmEmailPage(app, query) {
  const result = h("p", { id: "confirm-result", "aria-live": "polite" });
  mount(app, h("h1", {}, t("confirm-email-title")), result);
  try {
    await api("POST", "/email-confirmations", { token: tokenOf(query) }, { anonymous: true });
    mount(result, t("confirm-email-done"));
  } catch (e) {
    mount(result, t("link-failed", { reason: e.message || String(e) }));
    result.classList.add("error");
  }
}

/** #/reset-password?token=…: a new password. */
export function resetPasswordPage(app, query) {
  const token = tokenOf(query);
  const form = h(
    "form",
    { class: "card", id: "reset-form" },
    h("label", {}, h("span", {}, t("password-new")),
      h("input", { name: "password", type: "password", required: true, minlength: 8, autocomplete: "new-password", id: "reset-password" })),
    h("button", { type: "submit" }, t("reset-submit")),
  );
  const result = h("p", { id: "reset-result", "aria-live": "polite" });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const password = new FormData(form).get("password");
    attempt(async () => {
      try {
        await api("POST", "/auth/password-reset/confirm", { token, password }, { anonymous: true });
        // Every session of the account has ended; a session this browser
        // holds is dropped at its next request (dropping it here would draw
        // the page again, without this answer).
        form.remove();
        mount(result, t("reset-done"), " ", h("a", { href: "#/login" }, t("nav-log-in")));
      } catch (err) {
        mount(result, t("link-failed", { reason: err.message || String(err) }));
        result.classList.add("error");
      }
    }, form.querySelector("button"));
  });
  mount(app, h("h1", {}, t("reset-title")), form, result);
}

/** #/unsubscribe?token=…: asks first (as the API's page does), then posts. */
export function unsubscribePage(app, query) {
  const token = tokenOf(query);
  const topic = token.split(".")[1] || "";
  const result = h("p", { id: "unsubscribe-result", "aria-live": "polite" });
  const button = h("button", { type: "button", id: "unsubscribe-confirm" }, t("unsubscribe-submit"));
  button.addEventListener("click", () =>
    attempt(async () => {
      try {
        await api("POST", `/unsubscribe?token=${encodeURIComponent(token)}`, {}, { anonymous: true });
        button.remove();
        mount(result, t("unsubscribe-done"));
      } catch (err) {
        mount(result, t("link-failed", { reason: err.message || String(err) }));
        result.classList.add("error");
      }
    }, button));
  mount(
    app,
    h("h1", {}, t("unsubscribe-title")),
    h("p", {}, t("unsubscribe-question", { topic: t(`unsubscribe-topic-${topic}`) })),
    button,
    result,
  );
}
