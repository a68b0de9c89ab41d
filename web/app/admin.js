// Moderation for admins: disable or enable an account, grant or revoke the
// admin role, cancel a match, and the audit log. The server decides who is
// an admin; anybody else reads its refusal here.
import { get, post } from "./api.js";
import { h, mount, attempt, toast, date } from "./ui.js";

export async function adminPage(app) {
  const log = h("div", { class: "card", id: "audit" });
  async function renderLog() {
    const page = await get("/admin/audit?limit=100");
    mount(
      log,
      h("h2", {}, "Audit log"),
      (page.items || []).length
        ? h("div", { class: "table-wrap" }, h("table", { id: "audit-log" },
            h("thead", {}, h("tr", {}, ["When", "Who", "Action", "Target", "Reason"].map((c) => h("th", { scope: "col" }, c)))),
            h("tbody", {}, page.items.map((e) => h("tr", {},
              h("td", {}, date(e.at)), h("td", {}, e.actor), h("td", {}, e.action), h("td", {}, e.target), h("td", {}, e.reason || ""))))))
        : h("p", { class: "muted" }, "Nothing yet."),
    );
  }
  try {
    await renderLog();
  } catch (e) {
    mount(app, h("h1", {}, "Moderation"), h("p", { class: "error" }, e.message));
    return;
  }

  const reason = h("input", { id: "admin-reason", maxlength: 500, placeholder: "optional, kept in the audit log" });
  const name = h("input", { id: "admin-player", autocomplete: "off", spellcheck: "false" });
  const matchId = h("input", { id: "admin-match", autocomplete: "off", spellcheck: "false", placeholder: "match id" });
  const act = (label, path, cls = "") =>
    h("button", { type: "button", class: cls, onclick: (e) => attempt(async () => {
      const body = reason.value.trim() ? { reason: reason.value.trim() } : {};
      await post(path(), body);
      toast(`${label}: done.`, "info");
      await renderLog();
    }, e.target) }, label);
  const player = (verb) => () => `/admin/players/${encodeURIComponent(name.value.trim())}/${verb}`;
  mount(
    app,
    h("h1", {}, "Moderation"),
    h(
      "div",
      { class: "card" },
      h("label", {}, h("span", {}, "Reason"), reason),
      h("label", {}, h("span", {}, "Player"), name),
      h("div", { class: "actions-list", id: "admin-player-actions" },
        act("Disable", player("disable"), "danger"),
        act("Enable", player("enable")),
        act("Grant admin", player("grant-admin")),
        act("Revoke admin", player("revoke-admin"))),
      h("label", {}, h("span", {}, "Match"), matchId),
      h("div", { class: "actions-list" }, act("Cancel the match", () => `/admin/matches/${encodeURIComponent(matchId.value.trim())}/cancel`, "danger")),
    ),
    log,
  );
}
