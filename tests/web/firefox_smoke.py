"""A smoke test of the browser client in Firefox (Debian's firefox-esr, driven
through WebDriver by geckodriver and Selenium), beside the full Chromium suite
of test_web.py: the page boots, draws a match of each game from the API's
documents, follows a match live over its event stream, plays a move from its
controls, and draws the dashboards.

    apt-get install -y firefox-esr && cargo install geckodriver
    python3 -m venv target/web-venv && target/web-venv/bin/pip install selenium
    target/web-venv/bin/python tests/web/firefox_smoke.py http://127.0.0.1:8080

Prints `N passed, N failed` last; exits non-zero when anything failed.
"""

import json
import pathlib
import shutil
import sys
import time
import urllib.request
import uuid

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.firefox.options import Options
from selenium.webdriver.firefox.service import Service
from selenium.webdriver.support.ui import WebDriverWait

BASE = sys.argv[1].rstrip("/") if len(sys.argv) > 1 else "http://127.0.0.1:8080"
PASSWORD = "password1"
SHOTS = pathlib.Path(__file__).resolve().parents[2] / "target" / "screenshots"
results = []


def api(method, path, token=None, body=None):
    req = urllib.request.Request(f"{BASE}/api/v1{path}", method=method)
    req.add_header("Accept", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        req.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(req, data) as r:
        text = r.read()
        return json.loads(text) if text else None


def check(name, fn):
    start = time.time()
    try:
        fn()
        results.append(True)
        print(f"ok    {name} ({time.time() - start:.1f} s)")
    except Exception as e:  # noqa: BLE001 - every failure is reported, then counted
        results.append(False)
        print(f"FAIL  {name}: {e!r}")


def player(prefix):
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    api("POST", "/players", body={"name": name, "password": PASSWORD})
    token = api("POST", "/auth/token", body={"name": name, "password": PASSWORD})["access_token"]
    return name, token


def main():
    options = Options()
    options.add_argument("-headless")
    options.set_preference("browser.shell.checkDefaultBrowser", False)
    # Named outright: Selenium would otherwise look them up on the network.
    options.binary_location = shutil.which("firefox-esr") or shutil.which("firefox") or "firefox"
    service = Service(executable_path=shutil.which("geckodriver") or "geckodriver")
    driver = webdriver.Firefox(options=options, service=service)
    driver.set_window_size(375, 900)
    wait = WebDriverWait(driver, 20)
    name, token = player("fox")
    matches = {}
    for game, seats, options_ in [
        ("malacca", 2, {}),
        ("heretics", 2, {}),
        ("kontor", 2, {"variant": "duel"}),
        ("cairo", 2, {}),
    ]:
        m = api("POST", "/matches", token,
                {"game": game, "seats": seats, "options": options_, "bots": ["random"]})
        matches[game] = m["id"]

    def boots():
        driver.get(f"{BASE}/#/")
        # The session as the page keeps it, then a fresh load reads it.
        driver.execute_script(
            "localStorage.setItem('sealed-orders.session', arguments[0])",
            json.dumps({"name": name, "token": token}),
        )
        driver.refresh()
        wait.until(lambda d: name in d.find_element(By.CSS_SELECTOR, "#who").text)

    def draws_every_game():
        for game, match_id in matches.items():
            driver.get(f"{BASE}/#/match/{match_id}")
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#app > .page[data-version]"))
            assert driver.find_elements(By.CSS_SELECTOR, "#app svg"), f"{game}: no board"
            drawn = driver.execute_script("return window.sealedOrders.match")
            mine = api("GET", f"/matches/{match_id}", token)
            assert drawn == mine, f"{game}: the page drew from another document than the API's"
            # Headless Firefox keeps a minimum window width: compared with the
            # viewport it has, not with 375.
            width, view = driver.execute_script(
                "return [document.documentElement.scrollWidth, window.innerWidth]")
            assert width <= view + 1, f"{game}: the page is {width} px wide in {view}"
            SHOTS.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(SHOTS / f"firefox-match-{game}.png"))

    def plays_a_move_and_follows_live():
        match_id = matches["malacca"]
        driver.get(f"{BASE}/#/match/{match_id}")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#app > .page[data-version]"))
        before = int(driver.find_element(By.CSS_SELECTOR, "#app > .page").get_attribute("data-version"))
        m = api("GET", f"/matches/{match_id}", token)
        assert m["prompt"] and m["prompt"]["legal"], "the seat owes a move"
        # A move from the page's own controls: a complete action's button, or
        # the first template's form with the first value of each choice.
        buttons = driver.find_elements(By.CSS_SELECTOR, ".controls .actions-list button")
        forms = driver.find_elements(By.CSS_SELECTOR, ".controls form.template")
        assert buttons or forms, "the prompt has controls"
        if buttons:
            buttons[0].click()
        else:
            form = forms[0]
            for group in form.find_elements(By.CSS_SELECTOR, "fieldset.param"):
                choices = group.find_elements(By.CSS_SELECTOR, "label.choice")
                need = 1 if group.find_elements(By.CSS_SELECTOR, "input[type=radio]") else int(
                    group.get_attribute("data-min") or 0)
                for c in choices[:need]:
                    c.click()
            form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        # The move and the bot's answer arrive over the event stream, not a reload.
        wait.until(lambda d: int(d.find_element(By.CSS_SELECTOR, "#app > .page").get_attribute("data-version")) > before)

    def dashboards():
        # A finished match first, so the figures have something to draw.
        done = api("POST", "/matches", token, {"game": "malacca", "seats": 2, "join": False,
                                               "bots": ["random", "random"]})
        for _ in range(200):
            if api("GET", f"/matches/{done['id']}")["status"] == "finished":
                break
            time.sleep(0.1)
        driver.get(f"{BASE}/#/game/malacca")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#app svg"))
        driver.get(f"{BASE}/#/player/{name}")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#app h1"))

    try:
        check("the page boots in Firefox and keeps its session", boots)
        check("a match of every game is drawn from the API's document, no wider than the window", draws_every_game)
        check("a move from the page's controls, and the match follows live", plays_a_move_and_follows_live)
        check("the game statistics and leaderboards draw", dashboards)
    finally:
        driver.quit()
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
