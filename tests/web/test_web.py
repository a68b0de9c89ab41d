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
Screenshots go to target/screenshots/. Prints `N passed, N failed` last.
"""

import json
import os
import secrets
import sys
import time
import traceback
import urllib.error
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright, expect

BASE = (sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080").rstrip("/")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[2] / "target" / "screenshots"
PASSWORD = "correct horse battery"
RUN = secrets.token_hex(3)

results = []
console_errors = []
pages = {}


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
    page.evaluate("() => document.getElementById('toasts').replaceChildren()")
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


def create_match(page, game, seats=2, bots=0, options=None, visibility=None, invite=None, club=None):
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
            state["malacca"] = create_match(a, "malacca", seats=2, options={"ships": "[7, 4, 9]"})
            m = drawn(a)
            assert m["status"] == "waiting" and m["options"]["ships"] == [7, 4, 9], m["options"]
            a.goto(f"{BASE}/#/")
            a.wait_for_selector(f"#mine-h ~ ul [data-match='{state['malacca']}']")
            b.goto(f"{BASE}/#/")
            b.click("#refresh-open")
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

        @check("the replay steps through the moves and the seed agrees with its commitment")
        def _():
            a.goto(f"{BASE}/#/replay/{state['malacca']}")
            a.wait_for_selector("#fair-verdict")
            assert "matches its commitment" in a.inner_text("#fair-verdict")
            first = a.inner_text("#replay-position")
            a.keyboard.press("Home")
            assert a.inner_text("#replay-position").startswith("Move 0 of")
            a.keyboard.press("ArrowRight")
            assert a.inner_text("#replay-position").startswith("Move 1 of")
            a.click("#verify")
            a.wait_for_selector("text=Replayed: every move legal")
            a.keyboard.press("End")
            assert a.inner_text("#replay-position") == first
            shot(a, "replay")
            fits_phone(a, "replay")

        @check("the dashboards draw their charts, each with its numbers")
        def _():
            a.goto(f"{BASE}/#/player/{alice}")
            a.wait_for_selector("#rating-h")
            assert a.locator("svg.chart").count() >= 1
            assert a.locator("svg.chart path").count() >= 1, "no rating line"
            assert a.locator("details.numbers").count() >= 1
            a.locator("details.numbers summary").first.click()
            expect(a.locator("details.numbers table").first).to_be_visible()
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
