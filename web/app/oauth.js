// The OAuth consent page (/oauth/authorize): a third-party front end asks to act
// for the signed-in person. The server has checked the request before serving
// this page; what it shows comes from the server's reading of it, never from
// the address bar, so a lying parameter cannot change what the person sees.
import { get, post, session } from "./api.js";
import { h, mount, attempt } from "./ui.js";
import { t } from "./i18n.js";
import { loginForm } from "./account.js";

const PARAMS = ["response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "scope", "state"];

/** The authorization request's parameters, as the client sent them. */
function request() {
  const q = new URLSearchParams(location.search);
  const out = {};
  for (const k of PARAMS) if (q.has(k)) out[k] = q.get(k);
  return out;
}

function signIn(box, shown, again) {
  mount(
    box,
    h("h1", {}, t("oauth-sign-in-title", { client: shown.client_id })),
    h("p", { class: "muted" }, t("oauth-sign-in-explained")),
    loginForm("oauth-login", again),
  );
}

export async function consentPage(box) {
  const asked = request();
  let shown;
  try {
    // The query as it came: the server refuses a parameter given twice, which
    // reading it here would quietly make one.
    shown = await get(`/oauth/authorization${location.search}`);
  } catch (e) {
    // A fault the client may be told of goes back to it; anything else stays here.
    if (e.problem?.redirect_to) {
      location.assign(e.problem.redirect_to);
      return;
    }
    mount(box, h("h1", {}, t("oauth-error-title")), h("p", { class: "error", id: "oauth-error" }, e.message));
    return;
  }
  const render = () => consentPage(box);
  if (!session.get()) {
    signIn(box, shown, render);
    return;
  }
  const answer = (allow, button) =>
    attempt(async () => {
      const done = await post("/oauth/authorization", { ...asked, allow });
      mount(box, h("p", { class: "muted", id: "oauth-leaving" }, t("oauth-leaving")));
      location.assign(done.redirect_to);
    }, button);
  const allow = h("button", { type: "button", id: "oauth-allow", onclick: (e) => answer(true, e.target) }, t("oauth-allow"));
  const deny = h("button", { type: "button", id: "oauth-deny", class: "secondary", onclick: (e) => answer(false, e.target) }, t("oauth-deny"));
  mount(
    box,
    h("h1", { id: "oauth-title" }, t("oauth-title", { client: shown.client_id })),
    h(
      "div",
      { class: "card", id: "oauth-consent" },
      h("p", { class: "muted" }, t("oauth-client-note")),
      h("p", {}, t("oauth-redirect"), " ", h("strong", { id: "oauth-origin" }, shown.redirect_origin)),
      h("p", {}, t("oauth-asks")),
      h("ul", { id: "oauth-scopes" }, shown.scopes.map((s) => h("li", { "data-scope": s }, t(`oauth-scope-${s}`)))),
      h("p", { class: "muted" }, t("oauth-never")),
      h("p", { class: "muted" }, t("oauth-signed-in-as", { name: session.name })),
      h("p", { class: "actions" }, allow, " ", deny),
    ),
  );
}
