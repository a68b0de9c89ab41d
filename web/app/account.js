// Register, log in, log out, change password, API tokens, mail, vacation, mutes, delete the account.
import { api, get, post, del, session } from "./api.js";
import { h, mount, attempt, toast, date } from "./ui.js";
import { t, locale, adoptLocale, dateTime } from "./i18n.js";
import { notificationsCard, forgotPasswordCard } from "./notify.js";

function field(label, attrs) {
  return h("label", {}, h("span", {}, label), h("input", attrs));
}

/** Logs in with a name and password, and takes the account's language. */
async function logIn(name, password) {
  const tok = await api("POST", "/auth/token", { name, password }, { anonymous: true });
  session.set({ name, token: tok.access_token });
  // The account's language wins; an account without one takes the page's.
  const me = await get("/players/me").catch(() => null);
  if (me?.locale) {
    if (adoptLocale(me.locale)) location.reload();
  } else if (me) {
    await api("PATCH", "/players/me", { locale }).catch(() => {});
  }
}

export function signOut() {
  session.set(null);
  location.hash = "#/";
}

/** A name-and-password form that logs in and then runs `after`; its fields'
 * ids begin with `prefix`. */
export function loginForm(prefix, after, ...head) {
  const form = h(
    "form",
    { class: "card", id: `${prefix}-form` },
    ...head,
    field(t("field-name"), { name: "name", required: true, autocomplete: "username", id: `${prefix}-name` }),
    field(t("field-password"), { name: "password", type: "password", required: true, autocomplete: "current-password", id: `${prefix}-password` }),
    h("button", { type: "submit" }, t("login-submit")),
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(form);
    attempt(async () => {
      await logIn(f.get("name"), f.get("password"));
      await after();
    }, form.querySelector("button"));
  });
  return form;
}

export function loginPage(app) {
  const back = sessionStorage.getItem("sealed-orders.after-login") || "#/";
  const login = loginForm(
    "login",
    () => {
      sessionStorage.removeItem("sealed-orders.after-login");
      location.hash = back;
    },
    h("h2", { id: "login-h" }, t("login-title")),
  );
  login.setAttribute("aria-labelledby", "login-h");
  const register = h(
    "form",
    { class: "card", "aria-labelledby": "register-h" },
    h("h2", { id: "register-h" }, t("register-title")),
    field(t("register-name"), { name: "name", required: true, autocomplete: "username", id: "register-name", pattern: "[A-Za-z0-9_\\-]{3,32}" }),
    field(t("register-password"), { name: "password", type: "password", required: true, minlength: 8, autocomplete: "new-password", id: "register-password" }),
    h("button", { type: "submit" }, t("register-submit")),
  );
  register.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(register);
    attempt(async () => {
      await api("POST", "/players", { name: f.get("name"), password: f.get("password") }, { anonymous: true });
      await logIn(f.get("name"), f.get("password"));
      toast(t("toast-welcome", { name: f.get("name") }), "info");
      location.hash = back;
    }, register.querySelector("button"));
  });
  mount(app, h("h1", {}, t("sign-in-title")), h("div", { class: "grid2" }, login, register), forgotPasswordCard());
}

export async function accountPage(app) {
  if (!session.get()) {
    location.hash = "#/login";
    return;
  }
  const me = await get("/players/me");
  const pw = h(
    "form",
    { class: "card" },
    h("h2", {}, t("password-title")),
    field(t("password-current"), { name: "current", type: "password", required: true, autocomplete: "current-password" }),
    field(t("password-new"), { name: "next", type: "password", required: true, minlength: 8, autocomplete: "new-password" }),
    h("label", { class: "inline" }, h("input", { type: "checkbox", name: "revoke" }), " ", t("password-revoke-tokens")),
    h("button", { type: "submit" }, t("password-submit")),
  );
  pw.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(pw);
    attempt(async () => {
      const tok = await post("/players/me/password", {
        current_password: f.get("current"),
        new_password: f.get("next"),
        revoke_api_tokens: f.get("revoke") === "on",
      });
      session.set({ name: me.name, token: tok.access_token });
      pw.reset();
      toast(t("toast-password-changed"), "info");
      renderTokens();
    }, pw.querySelector("button"));
  });

  const gone = h(
    "form",
    { class: "card danger-zone", id: "delete-account" },
    h("h2", {}, t("delete-title")),
    h(
      "p",
      { class: "muted" },
      t("delete-explained"),
    ),
    field(t("field-password"), { name: "password", type: "password", required: true, autocomplete: "current-password", id: "delete-password" }),
    h("label", { class: "inline" }, h("input", { type: "checkbox", name: "sure", required: true, id: "delete-sure" }), " ", t("delete-sure")),
    h("button", { type: "submit", class: "danger" }, t("delete-submit")),
  );
  gone.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(gone);
    attempt(async () => {
      await post("/players/me/delete", { password: f.get("password") });
      signOut();
      toast(t("toast-account-deleted"), "info");
    }, gone.querySelector("button"));
  });

  const mutes = h("div", { class: "card", id: "mutes" });
  async function renderMutes() {
    const page = await get("/players/me/mutes");
    const items = page.items || [];
    mount(
      mutes,
      h("h2", {}, t("mutes-title")),
      items.length === 0
        ? h("p", { class: "muted" }, t("mutes-none"))
        : h("ul", { class: "matches" }, items.map((m) =>
            h("li", {}, m.player.name, " ",
              h("button", { type: "button", class: "small", onclick: (e) => attempt(async () => {
                await del(`/players/me/mutes/${encodeURIComponent(m.player.name)}`);
                await renderMutes();
              }, e.target) }, t("mutes-unmute"))))),
    );
  }

  // Vacation: every clock of the player's seats stands while it lasts.
  const away = h("div", { class: "card", id: "vacation" });
  async function renderVacation() {
    const v = await get("/players/me/vacation");
    const days = h("input", { type: "number", id: "vacation-days", min: 1, max: Math.max(1, v.days_left), value: Math.min(7, Math.max(1, v.days_left)), "aria-label": t("vacation-days") });
    mount(
      away,
      h("h2", {}, t("vacation-title")),
      h("p", { class: "muted" }, t("vacation-explained")),
      h("p", { id: "vacation-status" },
        v.current
          ? t("vacation-until", { until: dateTime(v.current.ends_at) })
          : t("vacation-none"),
        " ",
        t("vacation-allowance", { left: v.days_left, total: v.days_per_year })),
      v.current
        ? h("button", { type: "button", id: "vacation-end", onclick: (e) => attempt(async () => {
            await del("/players/me/vacation");
            toast(t("toast-vacation-ended"), "info");
            await renderVacation();
          }, e.currentTarget) }, t("vacation-end"))
        : v.days_left > 0
          ? h("div", { class: "inline-form" },
              h("label", { class: "inline" }, t("vacation-days"), " ", days),
              " ",
              h("button", { type: "button", id: "vacation-start", onclick: (e) => attempt(async () => {
                await post("/players/me/vacation", { days: Number(days.value) });
                toast(t("toast-vacation-started"), "info");
                await renderVacation();
              }, e.currentTarget) }, t("vacation-start")))
          : "",
    );
  }

  const tokenList = h("div", {});
  const created = h("div", { "aria-live": "polite" });
  const make = h(
    "form",
    { class: "card" },
    h("h2", {}, t("tokens-title")),
    h("p", { class: "muted" }, t("tokens-explained")),
    field(t("field-name"), { name: "name", required: true, maxlength: 100, id: "token-name" }),
    h(
      "fieldset",
      {},
      h("legend", {}, t("tokens-scope")),
      h("label", { class: "inline" }, h("input", { type: "radio", name: "scope", value: "play", checked: true }), " ", t("tokens-scope-play")),
      h("label", { class: "inline" }, h("input", { type: "radio", name: "scope", value: "read" }), " ", t("tokens-scope-read")),
    ),
    field(t("tokens-expires"), { name: "expires", type: "datetime-local" }),
    h("button", { type: "submit" }, t("tokens-submit")),
    created,
    tokenList,
  );
  make.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(make);
    // `play` is everything a player does, talking included (`chat` is a scope
    // of its own for OAuth apps a person lets play but not speak).
    const body = { name: f.get("name"), scopes: f.get("scope") === "play" ? ["play", "chat"] : ["read"] };
    if (f.get("expires")) body.expires_at = new Date(f.get("expires")).toISOString();
    attempt(async () => {
      const made = await post("/players/me/tokens", body);
      mount(
        created,
        h(
          "p",
          { class: "secret" },
          t("tokens-copy-now"),
          " ",
          h("code", { id: "new-token" }, made.token),
        ),
      );
      make.querySelector("#token-name").value = "";
      renderTokens();
    }, make.querySelector("button"));
  });

  async function renderTokens() {
    const page = await get("/players/me/tokens?limit=200");
    const items = page.items ?? [];
    mount(
      tokenList,
      items.length === 0
        ? h("p", { class: "muted" }, t("tokens-none"))
        : h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              {},
              h("thead", {}, h("tr", {}, [t("field-name"), t("tokens-col-scopes"), t("tokens-col-created"), t("tokens-col-last-used"), t("tokens-col-expires"), ""].map((c) => h("th", {}, c)))),
              h(
                "tbody",
                {},
                items.map((tk) =>
                  h(
                    "tr",
                    {},
                    h("td", {}, tk.name),
                    // Scopes are the API's words, as in the docs: code, not prose.
                    h("td", {}, (tk.scopes || []).flatMap((s, i) => [i ? ", " : "", h("code", {}, s)])),
                    h("td", {}, date(tk.created_at)),
                    h("td", {}, date(tk.last_used_at) || t("tokens-never")),
                    h("td", {}, tk.revoked_at ? t("tokens-revoked-at", { at: date(tk.revoked_at) }) : date(tk.expires_at) || t("tokens-never")),
                    h(
                      "td",
                      {},
                      tk.revoked_at
                        ? ""
                        : h(
                            "button",
                            {
                              type: "button",
                              class: "small danger",
                              onclick: (e) => attempt(async () => {
                                await del(`/players/me/tokens/${tk.id}`);
                                renderTokens();
                              }, e.target),
                            },
                            t("tokens-revoke"),
                          ),
                    ),
                  ),
                ),
              ),
            ),
          ),
    );
  }
  mount(
    app,
    h("h1", {}, t("account-title", { name: me.name })),
    h("p", {}, h("a", { href: "#/admin", id: "admin-link" }, t("account-moderation-link"))),
    h("p", { class: "muted" }, t("account-member-since", { date: date(me.created_at) })),
    h("div", { class: "grid2" }, pw, make),
    notificationsCard(),
    away,
    mutes,
    gone,
  );
  renderTokens();
  renderMutes();
  renderVacation();
}
