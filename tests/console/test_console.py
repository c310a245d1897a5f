"""The console in a real browser: Debian's headless Chromium driven by
selenium through Debian's chromedriver, against a live `engram serve` with
seeded data (scripts/test-console.sh, part of `make test`). Screenshots of
each page at 1280 and 390 px go to $CONSOLE_SHOTS.
"""

import json
import os
import time
import urllib.request
import uuid

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

URL = os.environ["ENGRAM_URL"]
ADMIN = os.environ["ENGRAM_API_KEY"]
SHOTS = os.environ.get("CONSOLE_SHOTS")
XSS = ["<img src=x onerror=\"document.title='pwned'\">", "</script><script>document.title='pwned'</script>"]


def api(method, path, body=None, key=ADMIN):
    req = urllib.request.Request(URL + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


@pytest.fixture(scope="module")
def seed():
    tenant = f"console{uuid.uuid4().hex[:6]}"
    keys = {}
    for name, extra in [("tenant", {}), ("reader", {"role": "read-only"}), ("bound", {"user_id": "ada-lovelace"})]:
        status, body = api("POST", "/v1/admin/keys", {"role": "tenant", "tenant": tenant, "name": name, **extra})
        assert status == 201, body
        keys[name] = body["key"]
    tk = keys["tenant"]
    for user, text in [("ada-byron", "I like poetry."),
                       ("grace-hopper", "I work at the Navy.")] + [("ada-lovelace", x) for x in XSS]:
        status, body = api("POST", "/v1/memories", {"user_id": user, "infer": False, "text": text}, key=tk)
        assert status == 201, body
    # A supersession with its history: Berlin replaced London.
    for said in ("I live in London.", "I moved to Berlin."):
        status, job = api("POST", "/v1/memories", {"user_id": "ada-lovelace", "wait": True,
                                                   "messages": [{"role": "user", "content": said}]}, key=tk)
        assert status == 200 and job["status"] == "done", job
    status, old = api("GET", "/v1/admin/users/ada-lovelace/memories?states=superseded", key=tk)
    superseded = [m["memory"] for m in old["results"]]
    assert len(superseded) == 1 and "London" in superseded[0], old
    return {"tenant": tenant, "superseded": superseded, **keys}


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=opts)
    yield driver
    driver.quit()


def texts(browser, css):
    """The texts of the elements `css` finds, or None while they are being replaced."""
    try:
        return [e.text for e in browser.find_elements(By.CSS_SELECTOR, css)]
    except StaleElementReferenceException:
        return None


def until_texts(browser, css, check, timeout=10):
    return WebDriverWait(browser, timeout).until(lambda b: (t := texts(b, css)) is not None and check(t) and t)


def open_user(browser, prefix, name):
    """Finds users by prefix and opens `name` once the list shows the search's answer."""
    box = wait(browser, "#prefix")
    box.clear()
    box.send_keys(prefix)
    browser.find_element(By.CSS_SELECTOR, "#find button").click()
    until_texts(browser, "#people .open-user", lambda t: t and all(x.startswith(prefix) for x in t) and name in t)
    for b in browser.find_elements(By.CSS_SELECTOR, "#people .open-user"):
        if b.text == name:
            b.click()
            break
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.TAG_NAME, "h2").text == f"Memories of {name}")
    until_texts(browser, "#memories .memory-text", lambda t: len(t) > 0)


def choose_state(browser, state, expected):
    browser.find_element(By.CSS_SELECTOR, f"#state option[value={state}]").click()
    until_texts(browser, "#memories .memory-text", lambda t: t == expected)


def wait(browser, css, timeout=10):
    return WebDriverWait(browser, timeout).until(EC.presence_of_element_located((By.CSS_SELECTOR, css)))


def shoot(browser, name):
    if not SHOTS:
        return
    os.makedirs(SHOTS, exist_ok=True)
    for width, height in ((1280, 900), (390, 844)):
        browser.set_window_size(width, height)
        browser.save_screenshot(os.path.join(SHOTS, f"{name}-{width}.png"))
    browser.set_window_size(1280, 900)


def sign_in(browser, key):
    browser.get(URL + "/console")
    wait(browser, "#key").send_keys(key)
    browser.find_element(By.CSS_SELECTOR, "#signin button[type=submit]").click()
    WebDriverWait(browser, 10).until(lambda b: b.find_element(By.ID, "who").text)


def no_script_ran(browser):
    assert browser.title == "Engram console", browser.title
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text


def test_sign_in_find_a_user_and_filter_by_state(browser, seed):
    browser.get(URL + "/console")
    wait(browser, "#key")
    shoot(browser, "sign-in")
    sign_in(browser, seed["tenant"])
    assert "tenant key" in browser.find_element(By.ID, "who").text
    box = wait(browser, "#prefix")
    box.send_keys("ada")
    browser.find_element(By.CSS_SELECTOR, "#find button").click()
    names = until_texts(browser, "#people .open-user", lambda t: t and all(x.startswith("ada") for x in t))
    assert names == ["ada-byron", "ada-lovelace"], names
    shoot(browser, "people")
    open_user(browser, "ada", "ada-lovelace")
    shown = until_texts(browser, "#memories .memory-text", lambda t: len(t) >= 3)
    for payload in XSS:
        assert payload in shown, shown  # shown as the text it is
    no_script_ran(browser)
    assert not browser.find_elements(By.CSS_SELECTOR, "#memories img"), "no element made from a memory's text"
    shoot(browser, "memories")
    choose_state(browser, "superseded", seed["superseded"])
    assert "1 superseded" in browser.find_element(By.ID, "counts").text


def test_a_timeline_shows_the_supersession_with_its_reason(browser, seed):
    sign_in(browser, seed["tenant"])
    open_user(browser, "ada-love", "ada-lovelace")
    choose_state(browser, "superseded", seed["superseded"])
    browser.find_element(By.CSS_SELECTOR, "#memories .timeline-open").click()
    events = WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#timeline .event"))
    text = " | ".join(e.text for e in events)
    assert "ADD" in text and "SUPERSEDE" in text, text
    assert "Reason:" in text, text
    shoot(browser, "timeline")


def test_a_read_only_key_has_no_enabled_control_that_changes_data(browser, seed):
    sign_in(browser, seed["reader"])
    assert "read-only" in browser.find_element(By.ID, "who").text
    open_user(browser, "grace", "grace-hopper")
    for button in browser.find_elements(By.CSS_SELECTOR, "#memories button.pin, #memories button.delete"):
        assert not button.is_enabled(), button.text
    # A forged request from the page with the same key is refused by the server.
    mid = browser.find_element(By.CSS_SELECTOR, "#memories tr").get_attribute("data-id")
    status = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/v1/memories/' + arguments[0], {method: 'DELETE', headers: {authorization: 'Bearer ' + arguments[1]}})"
        ".then(r => done(r.status));", mid, seed["reader"])
    assert status == 403
    assert api("GET", f"/v1/memories/{mid}", key=seed["tenant"])[0] == 200


def test_a_bound_key_sees_only_its_user(browser, seed):
    sign_in(browser, seed["bound"])
    assert "bound to ada-lovelace" in browser.find_element(By.ID, "who").text
    WebDriverWait(browser, 10).until(lambda b: b.find_elements(By.CSS_SELECTOR, "#memories tr"))
    assert browser.find_element(By.TAG_NAME, "h2").text == "Memories of ada-lovelace"
    texts = " ".join(until_texts(browser, "#memories .memory-text", lambda t: len(t) > 0))
    assert "poetry" not in texts and "Navy" not in texts
    no_script_ran(browser)


def test_delete_with_confirmation_and_sign_out(browser, seed):
    sign_in(browser, seed["tenant"])
    open_user(browser, "grace", "grace-hopper")
    row = browser.find_elements(By.CSS_SELECTOR, "#memories tr")[0]
    mid = row.get_attribute("data-id")
    row.find_element(By.CSS_SELECTOR, "button.delete").click()
    WebDriverWait(browser, 5).until(EC.alert_is_present()).accept()
    until_texts(browser, "#memories .state", lambda states: "deleted" in states)
    assert api("GET", f"/v1/memories/{mid}", key=seed["tenant"])[0] == 404
    browser.find_element(By.ID, "signout").click()
    wait(browser, "#key")
    assert browser.execute_script("return sessionStorage.length") == 0
    assert seed["tenant"] not in browser.page_source
