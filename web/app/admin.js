// Moderation for admins: disable or enable an account, grant or revoke the
// admin role, cancel a match, and the audit log. The server decides who is
// an admin; anybody else reads its refusal here.
import { get, post } from "./api.js";
import { h, mount, attempt, toast, date } from "./ui.js";
import { t } from "./i18n.js";

export async function adminPage(app) {
  const log = h("div", { class: "card", id: "audit" });
  async function renderLog() {
    const page = await get("/admin/audit?limit=100");
    mount(
      log,
      h("h2", {}, t("admin-audit-log")),
      (page.items || []).length
        ? h("div", { class: "table-wrap" }, h("table", { id: "audit-log" },
            h("thead", {}, h("tr", {}, [t("admin-when"), t("admin-who"), t("admin-action"), t("admin-target"), t("admin-reason")].map((c) => h("th", { scope: "col" }, c)))),
            h("tbody", {}, page.items.map((e) => h("tr", {},
              h("td", {}, date(e.at)), h("td", {}, e.actor), h("td", {}, e.action), h("td", {}, e.target), h("td", {}, e.reason || ""))))))
        : h("p", { class: "muted" }, t("admin-nothing")),
    );
  }
  try {
    await renderLog();
  } catch (e) {
    mount(app, h("h1", {}, t("admin-title")), h("p", { class: "error" }, e.message));
    return;
  }

  const reason = h("input", { id: "admin-reason", maxlength: 500, placeholder: t("admin-reason-placeholder") });
  const name = h("input", { id: "admin-player", autocomplete: "off", spellcheck: "false" });
  const matchId = h("input", { id: "admin-match", autocomplete: "off", spellcheck: "false", placeholder: t("admin-match-id") });
  const act = (label, path, cls = "") =>
    h("button", { type: "button", class: cls, onclick: (e) => attempt(async () => {
      const body = reason.value.trim() ? { reason: reason.value.trim() } : {};
      await post(path(), body);
      toast(t("toast-done", { action: label }), "info");
      await renderLog();
    }, e.target) }, label);
  const player = (verb) => () => `/admin/players/${encodeURIComponent(name.value.trim())}/${verb}`;
  mount(
    app,
    h("h1", {}, t("admin-title")),
    h(
      "div",
      { class: "card" },
      h("label", {}, h("span", {}, t("admin-reason")), reason),
      h("label", {}, h("span", {}, t("col-player")), name),
      h("div", { class: "actions-list", id: "admin-player-actions" },
        act(t("admin-disable"), player("disable"), "danger"),
        act(t("admin-enable"), player("enable")),
        act(t("admin-grant"), player("grant-admin")),
        act(t("admin-revoke"), player("revoke-admin"))),
      h("label", {}, h("span", {}, t("admin-match")), matchId),
      h("div", { class: "actions-list" }, act(t("admin-cancel-match"), () => `/admin/matches/${encodeURIComponent(matchId.value.trim())}/cancel`, "danger")),
    ),
    log,
  );
}
