#!/usr/bin/env python3
"""Browser tests of the page served at / (Playwright for Python, Chromium).

    python tests/web/test_web.py http://127.0.0.1:8080

Against a running server (RATE_LIMIT_AUTH_PER_MIN a little above the default
helps when it is run again and again). Two players register through the page
and play a Malacca match to its end in separate browser contexts while an
anonymous spectator watches it live; one of them then makes a move in a
Heretics, a Kontor and a Cairo match against a bot, opens the replay and the
dashboards. Every page is checked for console errors and for a 375 px layout,
and what a seat's page drew from is compared with what the API gives that seat.
The lobby, each game's match page, the replay and the dashboards are then read
in Czech and in Estonian (chosen from the browser's languages, then from the
menu, and remembered on the account), with no English word left on them.
With MAIL_DIR (where tests/web/mail_sink.py writes what the server mailed), the
account page's address is confirmed and a password reset by the mailed links.
Screenshots go to target/screenshots/. Prints `N passed, N failed` last.
"""

import base64
import email
import email.policy
import functools
import hashlib
import http.server
import json
import os
import re
import secrets
import sys
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright, expect

BASE = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080").rstrip("/")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[2] / "target" / "screenshots"
PASSWORD = "correct horse battery"
RUN = secrets.token_hex(3)
# Where the SMTP sink the server mails to writes each message (tests/web/mail_sink.py);
# without it the server is taken to send no mail.
MAIL_DIR = os.environ.get("MAIL_DIR")

results = []
console_errors = []
pages = {}
LOCALES = Path(__file__).resolve().parents[2] / "web" / "locales"
# What may stay as it is on a Czech or Estonian page: the project's name,
# and the games' own names where a language keeps them.
ALLOWED = {"malacca", "kontor", "cairo"}


def vocabulary(lang):
    """The words of a language's client catalogues (placeables, selectors and
    keys left out), lower case, three letters or more."""
    text = ""
    for name in ("app.ftl", "games.ftl"):
        for line in (LOCALES / lang / name).read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("#"):
                continue
            text += re.sub(r"^[A-Za-z][\w-]*\s*=", " ", line) + "\n"
    # Placeables that are only a variable or a literal go first; then what is
    # left of selectors: `$x ->`, `[one]`, braces.
    text = re.sub(r"\{\s*(\$[\w-]+|\"[^\"]*\")\s*\}", " ", text)
    text = re.sub(r"\$[\w-]+\s*->|\*?\[[\w-]+\]|[{}]", " ", text)
    return {w.lower() for w in re.findall(r"[^\W\d_]{3,}", text)}


def english_left(page, lang, names):
    """The English words on the page: words of the English catalogues that the
    language's own do not have, in every text node and in the titles, labels
    and placeholders, the document's title too (player names taken out)."""
    english = vocabulary("en") - vocabulary(lang) - ALLOWED
    texts = page.evaluate(
        """() => {
          const skip = (el) => el.closest('.brand, #locale, script, style, code, .hash');
          const out = [document.title.replace(/ · Sealed Orders$/, '').replace(/^Sealed Orders$/, '')];
          const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          while (walk.nextNode()) {
            const n = walk.currentNode;
            if (n.parentElement && !skip(n.parentElement) && n.textContent.trim()) out.push(n.textContent);
          }
          for (const el of document.querySelectorAll('[title], [aria-label], [placeholder], [alt]')) {
            if (skip(el)) continue;
            for (const a of ['title', 'aria-label', 'placeholder', 'alt']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
          }
          return out;
        }"""
    )
    found = set()
    for text in texts:
        text = re.sub(r"bot\.[\w-]+\.\d+", " ", text)
        # a hash (a seed's, a bundle's) is hex, and hex may spell "def" or "bad"
        text = re.sub(r"\b[0-9a-f]{12,}\b", " ", text)
        for name in names:
            text = text.replace(name, " ")
        for word in re.findall(r"[^\W\d_]{3,}", text):
            if word.lower() in english:
                found.add(f"{word} (in {text.strip()[:60]!r})")
    return sorted(found)


def check(name):
    """Runs one named check; a failure is recorded and the script goes on."""

    def wrap(fn):
        started = time.monotonic()
        try:
            fn()
            results.append((name, True, ""))
            print(f"ok    {name} ({time.monotonic() - started:.1f} s)", flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            results.append((name, False, str(e)))
            print(f"FAIL  {name}: {e}", flush=True)
            traceback.print_exc()
            for label, page in pages.items():
                try:
                    page.screenshot(path=str(SHOTS / f"failed-{label}.png"), full_page=True)
                except Exception:  # noqa: BLE001 - a page may be gone
                    pass
        return fn

    return wrap


def api(method, path, token=None, body=None):
    req = urllib.request.Request(BASE + "/api/v1" + path, method=method)
    req.add_header("accept", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        req.add_header("content-type", "application/json")
    with urllib.request.urlopen(req, data) as r:
        text = r.read()
        return json.loads(text) if text else None


# A third-party front end signing a player in (OAuth 2 with PKCE).
OAUTH_CLIENT = "Tahvel"
OAUTH_REDIRECT = "http://localhost:5173/callback"
OAUTH_VERIFIER = secrets.token_urlsafe(48)


def oauth_authorize_path(state, scope="read play"):
    challenge = base64.urlsafe_b64encode(hashlib.sha256(OAUTH_VERIFIER.encode()).digest()).rstrip(b"=").decode()
    return "/oauth/authorize?" + urllib.parse.urlencode({
        "response_type": "code",
        "client_id": OAUTH_CLIENT,
        "redirect_uri": OAUTH_REDIRECT,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "scope": scope,
        "state": state,
    })


def status_of_me(token):
    """The status of GET /players/me with this token."""
    try:
        api("GET", "/players/me", token)
        return 200
    except urllib.error.HTTPError as e:
        return e.code


def oauth_form(path, fields):
    req = urllib.request.Request(BASE + path, method="POST", data=urllib.parse.urlencode(fields).encode())
    req.add_header("content-type", "application/x-www-form-urlencoded")
    with urllib.request.urlopen(req) as r:
        text = r.read()
        return json.loads(text) if text else None


def mailed_link(to, marker, timeout=20):
    """The first link containing `marker` in the newest mail to `to` that has one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in sorted(Path(MAIL_DIR).glob("*.eml"), reverse=True):
            msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
            if to not in str(msg["To"]):
                continue
            text = msg.get_body(preferencelist=("plain",)).get_content()
            for word in text.split():
                if marker in word:
                    return word
        time.sleep(0.2)
    raise AssertionError(f"no mail to {to} with a link containing {marker}")


def watch_console(page, label):
    def on_console(msg):
        if msg.type == "error":
            console_errors.append(f"{label}: {msg.text}")

    page.on("console", on_console)
    page.on("pageerror", lambda e: console_errors.append(f"{label}: {e}"))


def token_of(page):
    return page.evaluate("() => JSON.parse(localStorage.getItem('sealed-orders.session'))?.token")


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    # (a page of another app, such as the OAuth example, has no toasts)
    page.evaluate("() => document.getElementById('toasts')?.replaceChildren()")
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def fits_phone(page, where):
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, f"{where}: the page is {width} px wide"


def open_match(page, match_id):
    page.goto(f"{BASE}/#/match/{match_id}")
    page.wait_for_selector(f"#app > .page[data-version]")


def version(page):
    return int(page.get_attribute("#app > .page", "data-version") or -1)


def drawn(page):
    """The match document the page drew from."""
    return page.evaluate("() => window.sealedOrders.match")


def fill_and_submit(form, variant):
    """Fills a template form: the `variant`-th value of each list (wrapping), the
    fewest items of each subset, the lowest number of each range."""
    for group in form.locator("fieldset.param").all():
        choices = group.locator("label.choice")
        if group.locator("input[type=radio]").count():
            choices.nth(variant % choices.count()).click()
            continue
        need = int(group.get_attribute("data-min") or 0)
        for i in range(min(need, choices.count())):
            choices.nth(i).click()
    for select in form.locator("select").all():
        options = select.locator("option").count() - 1
        select.select_option(index=1 + variant % max(options, 1))
    form.locator("button[type=submit]").click()


def make_move(page, tries=6):
    """Makes one move from the page's controls: a complete action's button, or a
    template's form filled in; when the server (or the form) refuses one, the
    next is tried. Returns False when the page offers no move."""
    before = version(page)
    buttons = page.locator(".controls .actions-list button")
    forms = page.locator(".controls form.template")
    if buttons.count() == 0 and forms.count() == 0:
        return False
    for attempt in range(tries):
        page.evaluate("() => document.getElementById('toasts').replaceChildren()")
        if forms.count() and (attempt % 2 == 1 or buttons.count() == 0):
            fill_and_submit(forms.first, attempt // 2)
        else:
            buttons.nth(attempt % buttons.count()).click()
        try:
            page.wait_for_function(
                f"() => Number(document.querySelector('#app > .page').dataset.version) > {before} || document.querySelector('#toasts .error')",
                timeout=15000,
            )
        except Exception:
            break
        if version(page) > before:
            return True
    raise AssertionError(f"no move was accepted: {page.inner_text('#toasts') or 'no answer'}")


def register(page, name):
    page.goto(f"{BASE}/#/login")
    page.fill("#register-name", name)
    page.fill("#register-password", PASSWORD)
    page.click("#register-h ~ button, form:has(#register-name) button[type=submit]")
    page.wait_for_selector(f"#who a:has-text('{name}')")
    # The session is set before the page has told the account its language and
    # left the form: a test's next page waits for that, or the form's own
    # navigation, a moment later, would take it back to the lobby.
    page.wait_for_function("() => location.hash !== '#/login'")


def create_match(page, game, seats=2, bots=0, options=None, visibility=None, invite=None, club=None, fill=None):
    page.goto(f"{BASE}/#/")
    page.wait_for_selector("#create-game")
    page.select_option("#create-game", game)
    page.wait_for_function(
        "(g) => document.querySelector('#create-seats').options.length > 0 && document.querySelector('#opt-rated') && document.querySelector('.options') && document.querySelector('#create-game').value === g",
        arg=game,
    )
    # the options form of the chosen game has been drawn
    page.wait_for_timeout(200)
    page.select_option("#create-seats", str(seats))
    page.fill("#create-bots", str(bots))
    for key, value in (options or {}).items():
        page.fill(f"#opt-{key}", value)
    if visibility:
        page.select_option("#create-visibility", visibility)
    if invite:
        page.fill("#create-invite", invite)
    if club:
        page.wait_for_selector(f"#create-club option[value='{club}']", state="attached")
        page.select_option("#create-club", club)
    if fill:
        fill(page)
    page.click("#create-submit")
    page.wait_for_url("**/#/match/*")
    page.wait_for_selector("#app > .page[data-version]")
    return page.url.rsplit("/", 1)[-1]


def main():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        phone = {"viewport": {"width": 375, "height": 800}}
        ctx_a = browser.new_context(**phone)
        ctx_b = browser.new_context(viewport={"width": 1280, "height": 900})
        ctx_s = browser.new_context(**phone)
        a, b, spectator = ctx_a.new_page(), ctx_b.new_page(), ctx_s.new_page()
        for page, label in ((a, "alice"), (b, "bob"), (spectator, "spectator")):
            watch_console(page, label)
            pages[label] = page
        alice, bob = f"alice-{RUN}", f"bob-{RUN}"
        state = {}

        @check("two players register through the page, each in a browser of their own")
        def _():
            register(a, alice)
            register(b, bob)
            assert token_of(a) and token_of(b) and token_of(a) != token_of(b)

        @check("a Malacca match is created from the lobby with options from its schema, and joined")
        def _():
            # bob's lobby is open before the match exists: it appears there
            # from the lobby's stream, with no reload and no button
            b.goto(f"{BASE}/#/")
            b.wait_for_selector("#open-h")
            state["malacca"] = create_match(a, "malacca", seats=2, options={"ships": "[7, 4, 9]"})
            m = drawn(a)
            assert m["status"] == "waiting" and m["options"]["ships"] == [7, 4, 9], m["options"]
            a.goto(f"{BASE}/#/")
            a.wait_for_selector(f"#mine-h ~ ul [data-match='{state['malacca']}']")
            b.wait_for_selector(f"section[aria-labelledby=open-h] .match-row[data-match='{state['malacca']}']", timeout=10000)
            row = b.locator(f".match-row[data-match='{state['malacca']}']").first
            row.locator("button:has-text('Join')").click()
            # alice's lobby hears of it through her event stream, without a reload
            a.wait_for_selector(f"#mine-h ~ ul [data-match='{state['malacca']}']:has-text('active')", timeout=10000)
            shot(a, "lobby")
            fits_phone(a, "lobby")

        @check("both seats play the Malacca match to its end while a spectator watches live")
        def _():
            mid = state["malacca"]
            open_match(a, mid)
            open_match(b, mid)
            open_match(spectator, mid)
            seen = [version(spectator)]
            # a card of the hand picks the card to play, where a card is asked for
            for page in (a, b):
                if page.locator(".hand-svg .clickable").count():
                    page.locator(".hand-svg .clickable").nth(1).click()
                    assert page.locator(".controls input[type=radio]:checked").count() == 1
            deadline = time.monotonic() + 90
            moves = 0
            while time.monotonic() < deadline:
                if drawn(a)["status"] == "finished" and drawn(b)["status"] == "finished":
                    break
                moved = False
                for page in (a, b):
                    if page.locator(".controls").count() and make_move(page):
                        moved = True
                        moves += 1
                        if moves == 2:
                            shot(a, "match-malacca")
                if not moved:
                    a.wait_for_timeout(200)
                v = version(spectator)
                if v != seen[-1]:
                    seen.append(v)
            a.wait_for_selector("#app > .page[data-status=finished]", timeout=10000)
            spectator.wait_for_selector("#app > .page[data-status=finished]", timeout=10000)
            assert moves >= 6, f"only {moves} moves"
            # the spectator's page changed as the match went on, with no reload
            assert len(seen) >= 3, f"the spectator saw versions {seen}"
            assert spectator.evaluate("() => performance.getEntriesByType('navigation').length") == 1
            expect(a.locator("#result-h")).to_be_visible()
            shot(spectator, "match-malacca-spectator")

        @check("a seat's page draws exactly what the API gives that seat, and a spectator's what it gives anyone")
        def _():
            mid = state["malacca"]
            for page in (a, b, spectator):
                page.reload()
                page.wait_for_selector("#app > .page[data-version]")
                mine = drawn(page)
                theirs = api("GET", f"/matches/{mid}", token_of(page))
                for key in ("view", "prompt", "your_seat", "version", "result"):
                    assert mine.get(key) == theirs.get(key), f"{key} differs"
            assert drawn(spectator).get("your_seat") is None

        for game in ("heretics", "kontor", "cairo"):

            @check(f"a {game} match against a bot: the board is drawn and a move is made from the page")
            def _(game=game):
                # Heretics with a move time limit: the seat's deadline counts down.
                options = {"move_time_limit": "3600"} if game == "heretics" else None
                mid = create_match(a, game, seats=2, bots=1, options=options)
                state[game] = mid
                a.wait_for_selector(".board svg")
                a.wait_for_function("() => window.sealedOrders.match.prompt && window.sealedOrders.match.prompt.your_turn", timeout=15000)
                before = drawn(a)
                if game == "heretics":
                    # by keyboard: focus the first personality and press Enter
                    before_v = version(a)
                    a.locator(".controls .actions-list button").first.focus()
                    a.keyboard.press("Enter")
                    a.wait_for_function(f"() => Number(document.querySelector('#app > .page').dataset.version) > {before_v}")
                else:
                    assert make_move(a), "no controls"
                after = api("GET", f"/matches/{mid}", token_of(a))
                assert after["version"] > before["version"]
                a.wait_for_timeout(300)
                mine = drawn(a)
                theirs = api("GET", f"/matches/{mid}", token_of(a))
                if mine["version"] == theirs["version"]:
                    assert mine["view"] == theirs["view"], "the view differs from the API's"
                if game == "heretics":
                    expect(a.locator(".seats .countdown").first).to_be_visible()
                    assert ":" in a.inner_text(".seats .countdown")
                if game == "kontor":
                    # the revealed card is placed by a click on a space of the board
                    a.wait_for_function("() => window.sealedOrders.match.prompt?.kind === 'place' && window.sealedOrders.match.prompt.your_turn", timeout=15000)
                    before_v = version(a)
                    a.locator(".board svg .target").first.click()
                    a.wait_for_function(f"() => Number(document.querySelector('#app > .page').dataset.version) > {before_v}")
                if game == "cairo":
                    # reported mode: play on until the bot's flick report is put to
                    # the vote, and confirm it
                    until = time.monotonic() + 40
                    while time.monotonic() < until:
                        a.wait_for_function("() => window.sealedOrders.match.prompt?.your_turn || window.sealedOrders.match.status !== 'active'", timeout=15000)
                        if drawn(a)["prompt"]["kind"] == "confirm_report":
                            break
                        make_move(a)
                    assert drawn(a)["prompt"]["kind"] == "confirm_report", "no report to vote on"
                    expect(a.locator("button.action-dispute")).to_be_visible()
                    shot(a, "match-cairo-report")
                    before_v = version(a)
                    a.click("button.action-confirm")
                    a.wait_for_function(f"() => Number(document.querySelector('#app > .page').dataset.version) > {before_v}")
                shot(a, f"match-{game}")
                fits_phone(a, f"{game} match")

        @check("a seat changes its sealed move from the match page before the reveal, after a reload too")
        def _():
            mid = create_match(a, "heretics", seats=2)
            api("POST", f"/matches/{mid}/join", token_of(b), {})
            open_match(a, mid)
            a.wait_for_function("() => window.sealedOrders.match.prompt?.your_turn", timeout=15000)
            first = a.locator(".controls .actions-list button")
            first_count = first.count()
            assert first_count >= 2, "a choice of personalities"
            before = version(a)
            first.nth(0).click()
            a.wait_for_function(f"() => Number(document.querySelector('#app > .page').dataset.version) > {before}")
            chosen = drawn(a)["view"]["choice"]
            assert chosen, "the first choice stands"
            # The page offers to change it, also once reloaded.
            a.reload()
            a.wait_for_selector("#change-move")
            assert a.locator(".controls").count() == 0
            a.click("#change-move")
            # the choice it was made from, the first card among it
            buttons = a.locator(".controls .actions-list button")
            assert buttons.count() == first_count, "the same choice as before"
            expect(a.locator("#keep-move")).to_be_visible()
            before = version(a)
            buttons.nth(1).click()
            a.wait_for_function(f"() => Number(document.querySelector('#app > .page').dataset.version) > {before}")
            a.wait_for_selector("#change-move")
            replaced = drawn(a)["view"]["choice"]
            assert replaced and replaced != chosen, f"{chosen} then {replaced}"
            moves = api("GET", f"/matches/{mid}/moves", token_of(a))["items"]
            assert [m["replaced"] for m in moves] == [True, False], moves
            # The other seat sees that a move was replaced, never which.
            seen = json.dumps(api("GET", f"/matches/{mid}/moves", token_of(b)))
            assert chosen not in seen and replaced not in seen
            shot(a, "match-change-move")
            # Once the other seat has moved the step is revealed: nothing to change.
            mine = api("GET", f"/matches/{mid}", token_of(b))
            api("POST", f"/matches/{mid}/moves", token_of(b), {"step": mine["prompt"]["step"], "action": mine["prompt"]["legal"][0]})
            a.wait_for_function(f"() => window.sealedOrders.match.step > {mine['prompt']['step']}", timeout=15000)
            assert a.locator("#change-move").count() == 0

        @check("a banked match shows each seat's bank and graces; a seat gives the thinking seat more time from the page")
        def _():
            options = {"time_control": {"kind": "bank", "initial_seconds": 86400, "increment_seconds": 3600}, "grace_extensions": 1}
            m = api("POST", "/matches", token_of(a), {"game": "heretics", "seats": 2, "options": options})
            mid = m["id"]
            state["banked"] = mid
            api("POST", f"/matches/{mid}/join", token_of(b), {})
            mine = api("GET", f"/matches/{mid}", token_of(a))
            api("POST", f"/matches/{mid}/moves", token_of(a), {"step": mine["prompt"]["step"], "action": mine["prompt"]["legal"][0]})
            bob_seat = 1 - mine["your_seat"]
            open_match(a, mid)
            # alice moved: her bank stands, with her increment; bob's runs down
            expect(a.locator(".seats .badge.bank")).to_have_count(1)
            assert "bank 1 d" in a.inner_text(".seats .badge.bank"), a.inner_text(".seats .badge.bank")
            expect(a.locator(".seats .badge.graces").first).to_have_text("1 grace left")
            expect(a.locator(".seats .countdown")).to_have_count(1)
            before = api("GET", f"/matches/{mid}")["seats"][bob_seat]["bank_seconds"]
            give = a.locator(f".seats button.give-time[data-seat='{bob_seat}']")
            expect(give).to_have_text("+1:00:00")
            assert a.locator(f".seats button.give-time[data-seat='{mine['your_seat']}']").count() == 0, "no time for oneself"
            shot(a, "match-bank")
            fits_phone(a, "banked match")
            before_v = version(a)
            give.click()
            a.wait_for_function(f"() => Number(document.querySelector('#app > .page').dataset.version) > {before_v}")
            after = api("GET", f"/matches/{mid}")["seats"][bob_seat]["bank_seconds"]
            assert 3590 <= after - before <= 3600, (before, after)
            kinds = [e["kind"] for e in api("GET", f"/matches/{mid}/events?limit=50")["items"]]
            assert kinds.count("seat_extended") == 1, kinds
            # bob sees no button for his own seat, one for alice's only while she thinks
            open_match(b, mid)
            expect(b.locator(".seats .countdown")).to_have_count(1)
            assert b.locator(".seats button.give-time").count() == 0

        @check("the lobby's form makes a banked match with playing hours from fields, not JSON, and the match page names the hours")
        def _():
            def bank_with_hours(page):
                page.select_option("#opt-time_control", "bank")
                expect(page.locator("#opt-tc-initial")).to_be_visible()
                expect(page.locator("#opt-tc-zone")).to_be_hidden()
                page.fill("#opt-tc-initial", "48")
                page.fill("#opt-tc-increment", "12")
                page.fill("#opt-tc-cap", "96")
                page.check("#opt-tc-hours")
                page.fill("#opt-tc-zone", "Europe/Tallinn")
                page.fill("#opt-tc-from", "09:00")
                page.fill("#opt-tc-to", "21:30")
                shot(page, "lobby-time-control")
                fits_phone(page, "lobby time control")

            mid = create_match(a, "heretics", seats=2, fill=bank_with_hours)
            tc = api("GET", f"/matches/{mid}")["options"]["time_control"]
            assert tc == {"kind": "bank", "initial_seconds": 172800, "increment_seconds": 43200, "cap_seconds": 345600,
                          "playing_hours": {"time_zone": "Europe/Tallinn", "from": "09:00", "to": "21:30"}}, tc
            expect(a.locator("#playing-hours")).to_have_text("clocks run 09:00–21:30 (Europe/Tallinn)")
            expect(a.locator("#match-clock")).to_contain_text("bank 2 d")
            expect(a.locator("#match-clock")).to_contain_text("+ 12:00:00 a move")
            shot(a, "match-playing-hours")
            # a waiting match of one's own is cancelled, so the lobby stays as the later checks expect it
            api("POST", f"/matches/{mid}/cancel", token_of(a), {})

        @check("a vacation taken on the account page stands the clocks, the other seat sees it on the match page, and coming back ends it")
        def _():
            mid = state["banked"]
            b.goto(f"{BASE}/#/account")
            b.wait_for_selector("#vacation-start")
            b.fill("#vacation-days", "2")
            b.click("#vacation-start")
            b.wait_for_selector("#vacation-end")
            status = b.inner_text("#vacation-status")
            assert "You are on vacation until" in status and "28 of 30 days left" in status, status
            v = api("GET", "/players/me/vacation", token_of(b))
            assert v["current"] and v["days_left"] == 28, v
            shot(b, "account-vacation")
            open_match(a, mid)
            expect(a.locator(".seats .badge.away")).to_have_count(1)
            assert "on vacation until" in a.inner_text(".seats .badge.away")
            seat = api("GET", f"/matches/{mid}")["seats"][1 - drawn(a)["your_seat"]]
            assert seat["away_until"] == v["current"]["ends_at"], seat
            shot(a, "match-away")
            fits_phone(a, "match with a seat away")
            b.click("#vacation-end")
            b.wait_for_selector("#vacation-start")
            assert api("GET", "/players/me/vacation", token_of(b))["current"] is None
            assert api("GET", f"/matches/{mid}")["seats"][1 - drawn(a)["your_seat"]]["away_until"] is None

        @check("the replay steps through the moves and the seed agrees with its commitment")
        def _():
            a.goto(f"{BASE}/#/replay/{state['malacca']}")
            a.wait_for_selector("#fair-verdict")
            assert "matches its commitment" in a.inner_text("#fair-verdict")
            first = a.inner_text("#replay-position")
            a.keyboard.press("Home")
            assert a.inner_text("#replay-position").startswith("Move 0 of")
            # The board is the API's position at the step of the next move.
            a.wait_for_selector("#replay-board-title[data-step='0']")
            start = api("GET", f"/matches/{state['malacca']}/positions/0")
            assert start["step"] == 0 and start["prompt"] is not None
            assert a.inner_text("#replay-board-title") == "Position at step 0"
            a.keyboard.press("ArrowRight")
            assert a.inner_text("#replay-position").startswith("Move 1 of")
            moves = api("GET", f"/matches/{state['malacca']}/export")["moves"]
            a.wait_for_selector(f"#replay-board-title[data-step='{moves[1]['step']}']")
            shot(a, "replay-step")
            a.click("#verify")
            a.wait_for_selector("text=Replayed: every move legal")
            a.keyboard.press("End")
            assert a.inner_text("#replay-position") == first
            final = api("GET", f"/matches/{state['malacca']}")
            a.wait_for_selector(f"#replay-board-title[data-step='{final['step']}']")
            assert a.inner_text("#replay-board-title") == "Final position"
            shot(a, "replay")
            fits_phone(a, "replay")

        for game in ("heretics", "kontor", "cairo"):

            @check(f"the replay of a finished {game} match draws the board of each step from the API's position")
            def _(game=game):
                # Two bots play it to its end at once, by the server's hand.
                options = {"mode": "simulated"} if game == "cairo" else {}
                m = api("POST", "/matches", token_of(a), {"game": game, "seats": 2, "options": options, "bots": ["random", "random"], "join": False})
                until = time.monotonic() + 60
                while api("GET", f"/matches/{m['id']}")["status"] != "finished":
                    assert time.monotonic() < until, f"the {game} bots did not finish"
                    time.sleep(0.5)
                moves = api("GET", f"/matches/{m['id']}/export")["moves"]
                final = api("GET", f"/matches/{m['id']}")
                a.goto(f"{BASE}/#/replay/{m['id']}")
                a.wait_for_selector("#fair-verdict")
                a.keyboard.press("Home")
                # the start, a few moves on, the middle, the end: each board is
                # drawn from the position the API gives anybody at that step
                stops = sorted({0, 1, 2, len(moves) // 2, len(moves)})
                for at in range(len(moves) + 1):
                    if at in stops:
                        step = final["step"] if at == len(moves) else moves[at]["step"]
                        a.wait_for_selector(f"#replay-board-title[data-step='{step}']")
                        a.wait_for_function(f"() => window.sealedOrders.position?.step === {step}")
                        drawn_from = a.evaluate("() => window.sealedOrders.position")
                        assert drawn_from == api("GET", f"/matches/{m['id']}/positions/{step}"), f"{game} step {step}"
                        assert a.locator("#replay-board-title ~ * svg, #replay-board-title ~ svg").count() >= 1, f"{game} step {step}: no board"
                        if at == len(moves) // 2:
                            shot(a, f"replay-{game}")
                    a.keyboard.press("ArrowRight")
                assert a.inner_text("#replay-board-title") == "Final position"
                fits_phone(a, f"{game} replay")

        @check("the dashboards draw their charts, each with its numbers")
        def _():
            a.goto(f"{BASE}/#/player/{alice}")
            a.wait_for_selector("#rating-h")
            assert a.locator("svg.chart").count() >= 1
            assert a.locator("svg.chart path").count() >= 1, "no rating line"
            assert a.locator("details.numbers").count() >= 1
            a.locator("details.numbers summary").first.click()
            expect(a.locator("details.numbers table").first).to_be_visible()
            # The reliability record, as the API reads it.
            rel = api("GET", f"/players/{alice}")["reliability"]
            expect(a.locator("#reliability-h")).to_have_text("Reliability")
            summary = a.inner_text("#reliability-summary")
            if rel["owed"]:
                assert f"{rel['met']} of {rel['owed']} deadlines met" in summary, summary
            else:
                assert f"last {rel['window_days']} days" in summary, summary
            shot(a, "dashboard-player")
            fits_phone(a, "player page")
            a.goto(f"{BASE}/#/game/malacca")
            a.wait_for_selector("text=Outcome shares")
            assert a.locator("svg.chart rect").count() >= 2
            a.select_option("#window", "30")
            a.wait_for_timeout(300)
            shot(a, "dashboard-game")
            fits_phone(a, "game page")
            b.goto(f"{BASE}/#/leaderboards/malacca")
            b.wait_for_selector(f"table.leaderboard a:has-text('{alice}')")
            shot(b, "leaderboards")

        @check("a private match invites a player by name, who accepts from the lobby; to anyone else it does not exist")
        def _():
            mid = create_match(a, "cairo", seats=2, visibility="private", invite=bob)
            m = drawn(a)
            assert m["visibility"] == "private" and m["status"] == "waiting", m
            code = a.input_value("#join-code-value")
            assert code == m["join_code"] and len(code) == 10, code
            expect(a.locator("#visibility")).to_have_text("private")
            shot(a, "match-private-waiting")
            b.goto(f"{BASE}/#/")
            row = b.locator(f".invitation[data-match='{mid}']")
            row.wait_for(timeout=10000)
            expect(row).to_contain_text(alice)
            shot(b, "lobby-invitation")
            fits_phone(a, "lobby")
            row.locator("button:has-text('Accept')").click()
            b.wait_for_url(f"**/#/match/{mid}")
            b.wait_for_selector("#app > .page[data-status='active']", timeout=10000)
            assert drawn(b)["your_seat"] is not None
            try:
                api("GET", f"/matches/{mid}")
                raise AssertionError("an anonymous reader saw the private match")
            except urllib.error.HTTPError as e:
                assert e.code == 404, e.code
            # the lobby no longer offers the answered invitation
            b.goto(f"{BASE}/#/")
            b.wait_for_selector("#invites-h")
            assert b.locator(f".invitation[data-match='{mid}']").count() == 0

        @check("a finished match is played again: the rematch has the same players, the other accepts from the lobby")
        def _():
            old = state["malacca"]
            open_match(a, old)
            a.click("#rematch")
            a.wait_for_function("(old) => !location.hash.endsWith(old)", arg=old)
            a.wait_for_selector("#app > .page[data-status='waiting']")
            new = drawn(a)
            assert new["rematch_of"] == old and new["id"] != old, new
            assert new["options"]["ships"] == [7, 4, 9], new["options"]
            b.goto(f"{BASE}/#/")
            row = b.locator(f".invitation[data-match='{new['id']}']")
            row.wait_for(timeout=10000)
            row.locator("button:has-text('Accept')").click()
            b.wait_for_selector("#app > .page[data-status='active']", timeout=10000)
            shot(b, "match-rematch")

        @check("match chat: a message written on one seat's page appears live on the other's, and its deletion too")
        def _():
            m = api("POST", "/matches", token_of(a), {"game": "malacca", "seats": 2})
            api("POST", f"/matches/{m['id']}/join", token_of(b), {})
            open_match(a, m["id"])
            open_match(b, m["id"])
            b.wait_for_selector("#chat-form")
            a.fill("#chat-text", "good luck, have fun")
            a.click("#chat-form button[type=submit]")
            b.wait_for_selector("#chat-list li:has-text('good luck, have fun')", timeout=10000)
            shot(b, "match-chat")
            a.click("#chat-list li:has-text('good luck') button:has-text('delete')")
            b.wait_for_selector("#chat-list li.deleted:has-text('message deleted')", timeout=10000)
            assert "good luck" not in b.inner_text("#chat-list")
            # bob mutes alice from the chat, and unmutes her from his account page
            a.fill("#chat-text", "noise")
            a.click("#chat-form button[type=submit]")
            b.click("#chat-list li:has-text('noise') button:has-text('mute')")
            b.wait_for_function("() => !document.querySelector('#chat-list').innerText.includes('noise')")
            b.goto(f"{BASE}/#/account")
            b.wait_for_selector(f"#mutes li:has-text('{alice}')")
            b.click(f"#mutes li:has-text('{alice}') button:has-text('Unmute')")
            b.wait_for_selector("#mutes :text('Nobody')")

        @check("a club is founded, a request to join accepted by its owner, and a club match created from the club page")
        def _():
            club = f"Club {RUN}"
            a.goto(f"{BASE}/#/clubs")
            a.fill("#club-name", club)
            a.fill("#club-description", "Weekly games")
            a.select_option("#club-policy", "request")
            a.click("#club-submit")
            a.wait_for_url("**/#/club/*")
            club_id = a.url.rsplit("/", 1)[-1]
            b.goto(f"{BASE}/#/clubs")
            b.fill("#club-search", club.upper()[:8])
            b.wait_for_selector(f"#club-list a:has-text('{club}')")
            shot(b, "clubs")
            b.click(f"#club-list a:has-text('{club}')")
            b.click("#club-join:has-text('Ask to join')")
            b.wait_for_selector("#club-leave:has-text('Withdraw')")
            a.reload()
            a.wait_for_selector(f"#club-requests li:has-text('{bob}')")
            shot(a, "club-admin")
            fits_phone(a, "club page")
            a.click(f"#club-requests li:has-text('{bob}') button:has-text('Accept')")
            a.wait_for_selector(f"#club-members li:has-text('{bob}')")
            a.click("#club-new-match")
            a.wait_for_selector("#create-club option:checked:not([value=''])", state="attached")
            assert a.eval_on_selector("#create-club", "e => e.value") == club_id
            mid = create_match(a, "malacca", seats=2, club=club_id)
            assert drawn(a)["club_id"] == club_id
            a.goto(f"{BASE}/#/club/{club_id}")
            a.wait_for_selector(f"#club-matches a[href='#/match/{mid}']")
            a.wait_for_selector("#club-board-game")

        @check("a Swiss tournament is created from its page, entered by another player and by bots, started, and its first round's tables link to their matches")
        def _():
            a.goto(f"{BASE}/#/tournaments")
            a.fill("#tournament-name", f"Cup {RUN}")
            a.select_option("#tournament-game", "malacca")
            a.select_option("#tournament-format", "swiss")
            a.fill("#tournament-rounds", "2")
            a.click("#tournament-submit")
            a.wait_for_url("**/#/tournament/*")
            tid = a.url.rsplit("/", 1)[-1]
            b.goto(f"{BASE}/#/tournament/{tid}")
            b.click("#tournament-actions button:has-text('Enter')")
            b.wait_for_selector(f"#tournament-standings td:has-text('{bob}')")
            a.reload()
            a.wait_for_selector("#tournament-bot-kind option", state="attached")
            a.fill("#tournament-bot-count", "2")
            a.click("#tournament-add-bots")
            a.wait_for_function("() => document.querySelectorAll('#tournament-standings tbody tr').length === 4")
            a.click("#tournament-actions button:has-text('Start now')")
            a.wait_for_selector("#tournament-status:has-text('running')")
            a.wait_for_selector("#tournament-rounds a[href^='#/match/']")
            shot(a, "tournament")
            fits_phone(a, "tournament page")
            a.click("#tournament-rounds a[href^='#/match/']")
            a.wait_for_selector("#app > .page[data-version]")

        @check("API tokens are created and revoked, and the password changed, from the account page; a page still on the old session falls back to anonymous")
        def _():
            # a second browser holding alice's current session, on the lobby
            # (which follows her event stream)
            other = browser.new_context(**phone).new_page()
            other.goto(f"{BASE}/")
            other.evaluate("(s) => localStorage.setItem('sealed-orders.session', s)", a.evaluate("() => localStorage.getItem('sealed-orders.session')"))
            other.reload()
            other.wait_for_selector(f"#who a:has-text('{alice}')")
            other.wait_for_selector("#turns-h")
            a.goto(f"{BASE}/#/account")
            a.fill("#token-name", "my bot")
            a.click("form:has(#token-name) button[type=submit]")
            a.wait_for_selector("#new-token")
            secret = a.inner_text("#new-token")
            assert secret.startswith("sot_")
            assert api("GET", "/players/me", secret)["name"] == alice
            a.click("button:has-text('Revoke')")
            a.wait_for_selector("td:has-text('revoked')")
            a.fill("input[name=current]", PASSWORD)
            a.fill("input[name=next]", PASSWORD + "!")
            a.click("form:has(input[name=current]) button[type=submit]")
            a.wait_for_selector("text=Password changed")
            assert api("GET", "/players/me", token_of(a))["name"] == alice
            # the old session's stream ends (or its next request is refused):
            # that page drops it and carries on anonymously
            other.wait_for_selector("#who a:has-text('Log in')", timeout=20000)
            assert token_of(other) is None
            other.context.close()

        @check("the account page sets the address and the mail settings; the mailed links confirm it and reset the password, ending the old session")
        def _():
            ctx = browser.new_context(**phone)
            page = ctx.new_page()
            watch_console(page, "mail")
            pages["mail"] = page
            name = f"carol-{RUN}"
            address = f"{name}@example.test"
            register(page, name)
            page.goto(f"{BASE}/#/account")
            page.wait_for_selector("#notifications #email-form")
            page.fill("#email-address", address)
            page.click("#email-form button[type=submit]")
            page.wait_for_selector(f"#email-status:has-text('{address}')")
            page.check("#notify-form input[name=your_turn][value=daily_digest]")
            page.select_option("#notify-digest-hour", "7")
            page.fill("#notify-time-zone", "Europe/Tallinn")
            page.uncheck("#notify-form input[name=match_finished]")
            page.click("#notify-form button[type=submit]")
            page.wait_for_selector("text=Notification settings saved")
            s = api("GET", "/players/me/notifications", token_of(page))
            assert s["your_turn"] == "daily_digest" and s["digest_hour"] == 7, s
            assert s["time_zone"] == "Europe/Tallinn" and not s["match_finished"], s
            assert s["email"]["address"] == address and s["email"]["confirmed_at"] is None, s
            page.reload()
            page.wait_for_selector("#notify-form input[name=your_turn][value=daily_digest]:checked")
            shot(page, "account-notifications")
            fits_phone(page, "account page with the mail settings")
            if not MAIL_DIR:
                assert s["mail_enabled"] is False, s
                page.wait_for_selector("#mail-off")
                ctx.close()
                return
            page.goto(mailed_link(address, "/#/confirm-email?token="))
            page.wait_for_selector("#confirm-result:has-text('confirmed')")
            page.goto(f"{BASE}/#/account")
            page.wait_for_selector("#email-status:has-text('confirmed')")
            old = token_of(page)
            # A forgotten password, from the login page of another browser.
            other_ctx = browser.new_context(**phone)
            other = other_ctx.new_page()
            watch_console(other, "reset")
            pages["reset"] = other
            other.goto(f"{BASE}/#/login")
            other.fill("#forgot-login", address)
            other.click("#forgot button[type=submit]")
            other.wait_for_selector("#forgot-sent")
            other.goto(mailed_link(address, "/#/reset-password?token="))
            other.fill("#reset-password", PASSWORD + "?")
            other.click("#reset-form button[type=submit]")
            other.wait_for_selector("#reset-result a[href='#/login']")
            shot(other, "password-reset")
            try:
                api("GET", "/players/me", old)
                raise AssertionError("the session from before the reset still works")
            except urllib.error.HTTPError as e:
                assert e.code == 401, e.code
            token = api("POST", "/auth/token", body={"name": name, "password": PASSWORD + "?"})["access_token"]
            assert api("GET", "/players/me", token)["name"] == name
            other_ctx.close()
            ctx.close()

        @check("a refused token (401) is dropped: the page falls back to anonymous and the login form")
        def _():
            ctx = browser.new_context(**phone)
            page = ctx.new_page()
            page.goto(f"{BASE}/")
            page.evaluate("() => localStorage.setItem('sealed-orders.session', JSON.stringify({name: 'ghost', token: 'not-a-token'}))")
            page.goto(f"{BASE}/#/match/{state['malacca']}")
            page.reload()
            page.wait_for_selector("#who a:has-text('Log in')")
            assert token_of(page) is None
            page.wait_for_selector("#app > .page[data-version]")
            ctx.close()

        @check("log out and log in again")
        def _():
            b.click("#who button:has-text('Log out')")
            b.wait_for_selector("#who a:has-text('Log in')")
            b.goto(f"{BASE}/#/login")
            b.fill("#login-name", bob)
            b.fill("#login-password", PASSWORD)
            b.click("form:has(#login-name) button[type=submit]")
            b.wait_for_selector(f"#who a:has-text('{bob}')")

        @check("the moderation page tells a player who is not an admin so, and draws nothing else")
        def _():
            ctx = browser.new_context(**phone)
            page = ctx.new_page()
            page.goto(f"{BASE}/")
            page.evaluate("(t) => localStorage.setItem('sealed-orders.session', JSON.stringify(t))", {"name": bob, "token": token_of(b)})
            page.goto(f"{BASE}/#/admin")
            page.wait_for_selector("#app .error:has-text('Only an admin')")
            assert page.locator("#admin-player").count() == 0
            ctx.close()

        @check("an account is deleted from its account page, with its password; it cannot log in again")
        def _():
            ctx = browser.new_context(**phone)
            page = ctx.new_page()
            pages["leaver"] = page
            name = f"leaver-{RUN}"
            register(page, name)
            page.goto(f"{BASE}/#/account")
            page.wait_for_selector("#delete-account")
            fits_phone(page, "account page")
            page.fill("#delete-password", "not the password")
            page.check("#delete-sure")
            page.click("#delete-account button[type=submit]")
            page.wait_for_selector("#toasts :text('password is wrong')")
            shot(page, "account-delete")
            page.fill("#delete-password", PASSWORD)
            page.click("#delete-account button[type=submit]")
            page.wait_for_selector("#who a:has-text('Log in')")
            assert token_of(page) is None
            try:
                api("POST", "/auth/token", body={"name": name, "password": PASSWORD})
                raise AssertionError("a deleted account logged in")
            except urllib.error.HTTPError as e:
                assert e.code == 401, e.code
            del pages["leaver"]
            ctx.close()

        @check("a third-party app signs a player in on the OAuth consent page: signed in there, allowed, the code becomes a token that plays until revoked")
        def _():
            ctx = browser.new_context(**phone)
            page = ctx.new_page()
            watch_console(page, "oauth")
            pages["oauth"] = page
            # The app's callback page is answered here; the example app of
            # docs/ is served from a loopback address of its own, as its
            # developer would (the browser lets only a loopback page call the
            # loopback server).
            ctx.route(f"{OAUTH_REDIRECT}**", lambda route: route.fulfill(status=200, content_type="text/html", body="<p>app</p>"))
            examples = Path(__file__).resolve().parents[2] / "docs" / "examples"
            quiet = type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None})
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 5173), functools.partial(quiet, directory=str(examples)))
            threading.Thread(target=server.serve_forever, daemon=True).start()
            state = f"s-{RUN}"
            page.goto(f"{BASE}{oauth_authorize_path(state)}")
            # Not signed in in this browser: the page signs in first.
            page.wait_for_selector("#oauth-login-form")
            assert OAUTH_CLIENT in page.inner_text("h1")
            page.fill("#oauth-login-name", alice)
            page.fill("#oauth-login-password", PASSWORD + "!")
            page.click("#oauth-login-form button[type=submit]")
            page.wait_for_selector("#oauth-consent")
            assert OAUTH_CLIENT in page.inner_text("#oauth-title")
            assert page.inner_text("#oauth-origin") == "http://localhost:5173"
            scopes = page.eval_on_selector_all("#oauth-scopes li", "(els) => els.map((e) => e.dataset.scope)")
            assert scopes == ["play", "read"], scopes
            shot(page, "oauth-consent")
            fits_phone(page, "the consent page")
            page.click("#oauth-allow")
            page.wait_for_url(f"{OAUTH_REDIRECT}?*")
            back = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
            assert back["state"] == [state], back
            assert back["iss"] == [BASE], back
            grant = oauth_form("/oauth/token", {
                "grant_type": "authorization_code",
                "code": back["code"][0],
                "code_verifier": OAUTH_VERIFIER,
                "redirect_uri": OAUTH_REDIRECT,
                "client_id": OAUTH_CLIENT,
            })
            token = grant["access_token"]
            assert grant["scope"] == "play read", grant
            assert api("GET", "/players/me", token)["name"] == alice
            # Denied: the app is told so, with its state, and gets no code.
            page.goto(f"{BASE}{oauth_authorize_path(state + '-2')}")
            page.wait_for_selector("#oauth-deny")
            page.click("#oauth-deny")
            page.wait_for_url(f"{OAUTH_REDIRECT}?*")
            back = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
            assert back["error"] == ["access_denied"] and "code" not in back, back
            # The person sees the app's token on the account page and revokes it there.
            page.goto(f"{BASE}/#/account")
            row = page.locator(f"tr:has(td:text-is('{OAUTH_CLIENT}'))").first
            row.locator("button").click()
            page.wait_for_selector(f"tr:has(td:text-is('{OAUTH_CLIENT}')) td:has-text('revoked')")
            assert status_of_me(token) == 401, "a revoked OAuth token still worked"
            # The example app in docs/ (the server runs with
            # CORS_ORIGINS=http://localhost:5173): signs in and lists the turns.
            page.goto("http://localhost:5173/oauth-turns.html")
            page.fill("#server", BASE)
            page.click("#sign-in")
            page.wait_for_selector("#oauth-allow")
            assert "My turns example" in page.inner_text("#oauth-title")
            page.click("#oauth-allow")
            page.wait_for_url("http://localhost:5173/oauth-turns.html")
            page.wait_for_function("() => document.querySelector('#status').textContent !== ''")
            turns = api("GET", "/players/me/turns", token_of(a))["items"]
            listed = page.eval_on_selector_all("#turns li", "(els) => els.length")
            assert listed == len(turns), (page.inner_text("#status"), listed, len(turns))
            assert page.inner_text("#status") in ("Your move in:", "Nothing to play."), page.inner_text("#status")
            shot(page, "oauth-example")
            app_token = page.evaluate("() => JSON.parse(sessionStorage.getItem('oauth')).token")
            assert api("GET", "/players/me", app_token)["name"] == alice
            page.click("#sign-out")
            page.wait_for_selector("#sign-in:not([hidden])")
            assert status_of_me(app_token) == 401, "the example app's token outlived its sign-out"
            # A redirect URI that cannot be trusted is shown, never followed
            # (the 400s it answers are the point; a script error would not be).
            bad = ctx.new_page()
            script_errors = []
            bad.on("pageerror", lambda e: script_errors.append(str(e)))
            bad.goto(f"{BASE}/oauth/authorize?client_id=x&response_type=code&redirect_uri=http%3A%2F%2Fevil.example%2F")
            bad.wait_for_selector("#oauth-error")
            assert bad.url.startswith(BASE), bad.url
            assert not script_errors, script_errors
            server.shutdown()
            del pages["oauth"]
            ctx.close()

        @check("the API browser at /docs signs in through the OAuth consent page, with PKCE")
        def _():
            ctx = browser.new_context(viewport={"width": 1280, "height": 900})
            page = ctx.new_page()
            pages["docs"] = page
            name = f"dora-{RUN}"
            register(page, name)
            page.goto(f"{BASE}/docs/")
            page.click("button.authorize")
            section = page.locator(".auth-container:has-text('oauth2')")
            page.locator("label[for=read-authorizationCode-checkbox-oauth2]").click()
            with page.expect_popup() as popup:
                section.locator("button.authorize").click()
            consent = popup.value
            consent.wait_for_selector("#oauth-allow")
            assert "API documentation" in consent.inner_text("#oauth-title")
            consent.click("#oauth-allow")
            page.wait_for_selector(".auth-container:has-text('oauth2') button:has-text('Logout')", timeout=15000)
            shot(page, "oauth-docs")
            tokens = api("GET", "/players/me/tokens", token_of(page))["items"]
            assert [(t["name"], t["scopes"]) for t in tokens] == [("API documentation", ["read"])], tokens
            del pages["docs"]
            ctx.close()

        for lang, tag, other in (("cs", "cs-CZ", "et"), ("et", "et-EE", "cs")):

            @check(f"in {lang}: the lobby, each game's match page, the replay and the dashboards, with no English left")
            def _(lang=lang, tag=tag):
                # The language comes from the browser's languages at first.
                ctx = browser.new_context(locale=tag, viewport={"width": 1280, "height": 900})
                page = ctx.new_page()
                watch_console(page, lang)
                pages[lang] = page
                page.goto(f"{BASE}/")
                page.evaluate("(s) => localStorage.setItem('sealed-orders.session', s)", a.evaluate("() => localStorage.getItem('sealed-orders.session')"))
                page.reload()
                page.wait_for_selector(f"#who a:has-text('{alice}')")
                assert page.evaluate("() => document.documentElement.lang") == lang
                assert page.input_value("#locale") == lang
                # names people gave: players, the club, the API token
                names = [alice, bob, f"Club {RUN}", "my bot", OAUTH_CLIENT, "My turns example"]
                views = [
                    ("lobby", "/#/", "#turns-h"),
                    ("match-malacca", f"/#/match/{state['malacca']}", "#result-h"),
                    ("match-heretics", f"/#/match/{state['heretics']}", ".board svg"),
                    ("match-kontor", f"/#/match/{state['kontor']}", ".board svg"),
                    ("match-cairo", f"/#/match/{state['cairo']}", ".board svg"),
                    ("replay", f"/#/replay/{state['malacca']}", "#fair-verdict[data-ok=true]"),
                    ("dashboard-player", f"/#/player/{alice}", "#rating-h"),
                    ("dashboard-game", "/#/game/malacca", "svg.chart rect"),
                    ("leaderboards", "/#/leaderboards/malacca", "table.leaderboard"),
                    ("account", "/#/account", "#delete-account"),
                    ("oauth-consent", oauth_authorize_path(f"{lang}-{RUN}", "read play chat"), "#oauth-consent"),
                ]
                problems = []
                for name, route, ready in views:
                    page.goto(f"{BASE}{route}")
                    page.wait_for_selector(ready, state="attached")
                    page.wait_for_timeout(400)
                    if name.startswith("match-"):
                        # the rules in short, open, in the page's language
                        page.click("#rules summary")
                        page.wait_for_selector("#rules li")
                    left = english_left(page, lang, names)
                    if left:
                        problems.append(f"{name}: {left[:8]}")
                    shot(page, f"{lang}-{name}")
                assert not problems, "English left:\n" + "\n".join(problems)
                # Numbers as the locale writes them: a decimal comma.
                page.goto(f"{BASE}/#/player/{alice}")
                page.wait_for_selector("#rating-h")
                figures = page.inner_text(".figures")
                assert re.search(r"\d,\d", figures), figures
                ctx.close()

        @check("the language menu changes the page and the account; logging in elsewhere brings it back, and problems come in it")
        def _():
            ctx = browser.new_context(locale="et-EE", viewport={"width": 375, "height": 800})
            page = ctx.new_page()
            watch_console(page, "menu")
            pages["menu"] = page
            name = f"kadri-{RUN}"
            register(page, name)
            assert page.evaluate("() => document.documentElement.lang") == "et"
            token = token_of(page)
            # registering kept the browser's language on the account
            assert api("GET", "/players/me", token)["locale"] == "et"
            page.select_option("#locale", "cs")
            page.wait_for_function("() => document.documentElement.lang === 'cs'")
            page.wait_for_selector("#who a:has-text('Účet')")
            assert api("GET", "/players/me", token)["locale"] == "cs"
            shot(page, "cs-lobby-phone")
            fits_phone(page, "Czech lobby")
            # Another browser, in English, logs in: the account's language wins.
            # (not watched for console errors: a refused login is one)
            other = browser.new_context(locale="en-GB", viewport={"width": 375, "height": 800}).new_page()
            other.goto(f"{BASE}/#/login")
            other.fill("#login-name", name)
            other.fill("#login-password", "wrong password")
            other.click("form:has(#login-name) button[type=submit]")
            # a problem comes in the page's language (English here)
            other.wait_for_selector("#toasts :text('The name or the password is wrong.')")
            other.fill("#login-password", PASSWORD)
            other.click("form:has(#login-name) button[type=submit]")
            other.wait_for_function("() => document.documentElement.lang === 'cs'", timeout=15000)
            other.wait_for_selector(f"#who a:has-text('{name}')")
            # and now in Czech
            other.evaluate("() => localStorage.removeItem('sealed-orders.session')")
            other.goto(f"{BASE}/#/login")
            other.reload()
            other.wait_for_selector("#login-name")
            other.fill("#login-name", name)
            other.fill("#login-password", "wrong password")
            other.click("form:has(#login-name) button[type=submit]")
            other.wait_for_selector("#toasts :text('Jméno nebo heslo je špatně.')")
            shot(other, "cs-login-problem")
            other.context.close()
            ctx.close()

        @check("a creation past an account's cap is refused with a sentence in the page's language, and no script error")
        def _():
            ctx = browser.new_context(locale="cs-CZ", viewport={"width": 375, "height": 800})
            page = ctx.new_page()
            # Not watched for console errors: the refused request is one. A
            # script error is not allowed.
            script_errors = []
            page.on("pageerror", lambda e: script_errors.append(str(e)))
            register(page, f"dana-{RUN}")
            token = token_of(page)
            # The five tournaments one account may have open (the default cap),
            # made at the default rate's burst…
            first = time.monotonic()
            made = [
                api("POST", "/tournaments", token,
                    {"name": f"Cap {RUN} {i}", "game": "malacca", "format": "swiss", "join": False})["id"]
                for i in range(5)
            ]
            page.goto(f"{BASE}/#/tournaments")
            page.wait_for_selector("#tournament-name")
            page.fill("#tournament-name", f"Cap {RUN} 5")
            # …and a token of the rate back (five a minute: one every 12 s), so
            # the sixth meets the cap, not the rate.
            time.sleep(max(0.0, 12.5 - (time.monotonic() - first)))
            page.click("#tournament-submit")
            page.wait_for_selector("#toasts .error:has-text('nejvýše 5')")
            assert "#/tournaments" in page.url, page.url
            shot_text = page.inner_text("#toasts")
            assert "too_many" not in shot_text, shot_text
            assert not script_errors, script_errors
            for tid in made:
                api("POST", f"/tournaments/{tid}/cancel", token, {})
            ctx.close()

        @check("no console errors on any page")
        def _():
            assert not console_errors, "\n".join(console_errors[:10])

        browser.close()


if __name__ == "__main__":
    started = time.monotonic()
    try:
        main()
    except Exception as e:  # noqa: BLE001
        results.append(("the browser could run", False, str(e)))
        traceback.print_exc()
    passed = sum(1 for _, ok, _ in results if ok)
    failed = len(results) - passed
    print(f"\n{time.monotonic() - started:.0f} s")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
