// Register, log in, log out, change password, API tokens, mutes, delete the account.
import { api, get, post, del, session } from "./api.js";
import { h, mount, attempt, toast, date } from "./ui.js";

function field(label, attrs) {
  return h("label", {}, h("span", {}, label), h("input", attrs));
}

async function logIn(name, password) {
  const t = await api("POST", "/auth/token", { name, password }, { anonymous: true });
  session.set({ name, token: t.access_token });
}

export function signOut() {
  session.set(null);
  location.hash = "#/";
}

export function loginPage(app) {
  const back = sessionStorage.getItem("sealed-orders.after-login") || "#/";
  const login = h(
    "form",
    { class: "card", "aria-labelledby": "login-h" },
    h("h2", { id: "login-h" }, "Log in"),
    field("Name", { name: "name", required: true, autocomplete: "username", id: "login-name" }),
    field("Password", { name: "password", type: "password", required: true, autocomplete: "current-password", id: "login-password" }),
    h("button", { type: "submit" }, "Log in"),
  );
  login.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(login);
    attempt(async () => {
      await logIn(f.get("name"), f.get("password"));
      sessionStorage.removeItem("sealed-orders.after-login");
      location.hash = back;
    }, login.querySelector("button"));
  });
  const register = h(
    "form",
    { class: "card", "aria-labelledby": "register-h" },
    h("h2", { id: "register-h" }, "Register"),
    field("Name (3 to 32 letters, digits, _ or -)", { name: "name", required: true, autocomplete: "username", id: "register-name", pattern: "[A-Za-z0-9_\\-]{3,32}" }),
    field("Password (at least 8 characters)", { name: "password", type: "password", required: true, minlength: 8, autocomplete: "new-password", id: "register-password" }),
    h("button", { type: "submit" }, "Create account"),
  );
  register.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(register);
    attempt(async () => {
      await api("POST", "/players", { name: f.get("name"), password: f.get("password") }, { anonymous: true });
      await logIn(f.get("name"), f.get("password"));
      toast(`Welcome, ${f.get("name")}.`, "info");
      location.hash = back;
    }, register.querySelector("button"));
  });
  mount(app, h("h1", {}, "Sign in"), h("div", { class: "grid2" }, login, register));
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
    h("h2", {}, "Change password"),
    field("Current password", { name: "current", type: "password", required: true, autocomplete: "current-password" }),
    field("New password", { name: "next", type: "password", required: true, minlength: 8, autocomplete: "new-password" }),
    h("label", { class: "inline" }, h("input", { type: "checkbox", name: "revoke" }), " Also revoke every API token"),
    h("button", { type: "submit" }, "Change password"),
  );
  pw.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(pw);
    attempt(async () => {
      const t = await post("/players/me/password", {
        current_password: f.get("current"),
        new_password: f.get("next"),
        revoke_api_tokens: f.get("revoke") === "on",
      });
      session.set({ name: me.name, token: t.access_token });
      pw.reset();
      toast("Password changed; other sessions are signed out.", "info");
      renderTokens();
    }, pw.querySelector("button"));
  });

  const gone = h(
    "form",
    { class: "card danger-zone", id: "delete-account" },
    h("h2", {}, "Delete account"),
    h(
      "p",
      { class: "muted" },
      "Your seats in active matches are resigned and your waiting matches left. The matches you played keep your moves under an anonymous name; your name stays reserved. This cannot be undone.",
    ),
    field("Password", { name: "password", type: "password", required: true, autocomplete: "current-password", id: "delete-password" }),
    h("label", { class: "inline" }, h("input", { type: "checkbox", name: "sure", required: true, id: "delete-sure" }), " I want to delete my account"),
    h("button", { type: "submit", class: "danger" }, "Delete my account"),
  );
  gone.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(gone);
    attempt(async () => {
      await post("/players/me/delete", { password: f.get("password") });
      signOut();
      toast("Your account is deleted.", "info");
    }, gone.querySelector("button"));
  });

  const mutes = h("div", { class: "card", id: "mutes" });
  async function renderMutes() {
    const page = await get("/players/me/mutes");
    const items = page.items || [];
    mount(
      mutes,
      h("h2", {}, "Muted players"),
      items.length === 0
        ? h("p", { class: "muted" }, "Nobody. Mute a player from a match's chat to hide their messages from you.")
        : h("ul", { class: "matches" }, items.map((m) =>
            h("li", {}, m.player.name, " ",
              h("button", { type: "button", class: "small", onclick: (e) => attempt(async () => {
                await del(`/players/me/mutes/${encodeURIComponent(m.player.name)}`);
                await renderMutes();
              }, e.target) }, "Unmute")))),
    );
  }

  const tokenList = h("div", {});
  const created = h("div", { "aria-live": "polite" });
  const make = h(
    "form",
    { class: "card" },
    h("h2", {}, "API tokens"),
    h("p", { class: "muted" }, "For bots and scripts: a token acts for you without your password."),
    field("Name", { name: "name", required: true, maxlength: 100, id: "token-name" }),
    h(
      "fieldset",
      {},
      h("legend", {}, "Scope"),
      h("label", { class: "inline" }, h("input", { type: "radio", name: "scope", value: "play", checked: true }), " play (every request)"),
      h("label", { class: "inline" }, h("input", { type: "radio", name: "scope", value: "read" }), " read (GET only)"),
    ),
    field("Expires (optional)", { name: "expires", type: "datetime-local" }),
    h("button", { type: "submit" }, "Create token"),
    created,
    tokenList,
  );
  make.addEventListener("submit", (e) => {
    e.preventDefault();
    const f = new FormData(make);
    const body = { name: f.get("name"), scopes: [f.get("scope")] };
    if (f.get("expires")) body.expires_at = new Date(f.get("expires")).toISOString();
    attempt(async () => {
      const t = await post("/players/me/tokens", body);
      mount(
        created,
        h(
          "p",
          { class: "secret" },
          "Copy it now, it is shown only once: ",
          h("code", { id: "new-token" }, t.token),
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
        ? h("p", { class: "muted" }, "No tokens yet.")
        : h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              {},
              h("thead", {}, h("tr", {}, ["Name", "Scopes", "Created", "Last used", "Expires", ""].map((c) => h("th", {}, c)))),
              h(
                "tbody",
                {},
                items.map((t) =>
                  h(
                    "tr",
                    {},
                    h("td", {}, t.name),
                    h("td", {}, (t.scopes || []).join(", ")),
                    h("td", {}, date(t.created_at)),
                    h("td", {}, date(t.last_used_at) || "never"),
                    h("td", {}, t.revoked_at ? `revoked ${date(t.revoked_at)}` : date(t.expires_at) || "never"),
                    h(
                      "td",
                      {},
                      t.revoked_at
                        ? ""
                        : h(
                            "button",
                            {
                              type: "button",
                              class: "small danger",
                              onclick: (e) => attempt(async () => {
                                await del(`/players/me/tokens/${t.id}`);
                                renderTokens();
                              }, e.target),
                            },
                            "Revoke",
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
    h("h1", {}, `Account: ${me.name}`),
    h("p", {}, h("a", { href: "#/admin", id: "admin-link" }, "Moderation (admins)")),
    h("p", { class: "muted" }, `Member since ${date(me.created_at)}.`),
    h("div", { class: "grid2" }, pw, make),
    mutes,
    gone,
  );
  renderTokens();
  renderMutes();
}
