"""The console in a real browser: Debian's headless Chromium driven by
selenium through Debian's chromedriver, against a live `engram serve` with
seeded data (scripts/test-console.sh, part of `make test`). Screenshots of
each page at 1280 and 390 px go to $CONSOLE_SHOTS.

Each test signs in afresh; the seed gives each test its own user, so a test
that changes data (revert, forget, erase) does not change another's.
"""

import json
import os
import subprocess
import tempfile
import time
import urllib.request
import uuid

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

URL = os.environ["ENGRAM_URL"]
ADMIN = os.environ["ENGRAM_API_KEY"]
SHOTS = os.environ.get("CONSOLE_SHOTS")
XSS = ["<img src=x onerror=\"document.title='pwned'\">", "</script><script>document.title='pwned'</script>"]
DOWNLOADS = tempfile.mkdtemp(prefix="console-downloads-")
FLAKY = (StaleElementReferenceException, NoSuchElementException)


def api(method, path, body=None, key=ADMIN, tenant=None):
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    if tenant:
        headers["X-Engram-Tenant"] = tenant
    req = urllib.request.Request(URL + path, method=method, headers=headers,
                                 data=None if body is None else json.dumps(body).encode())
    try:
        with urllib.request.urlopen(req) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def sql(statement, *args):
    """One statement on the scratch server's database (only to seed what the API cannot make)."""
    subprocess.run([os.environ["PSQL"], "-q", "-v", "ON_ERROR_STOP=1", os.environ["CONSOLE_DATABASE_URL"],
                    "-c", statement % args], check=True, capture_output=True)


def memories_of(key, user, states=""):
    q = f"?states={states}" if states else ""
    status, body = api("GET", f"/v1/admin/users/{user}/memories{q}", key=key)
    assert status == 200, body
    return {m["memory"]: m for m in body["results"]}


@pytest.fixture(scope="module")
def seed():
    tenant = f"console{uuid.uuid4().hex[:6]}"
    keys = {}
    for name, extra in [("tenant", {}), ("reader", {"role": "read-only"}), ("bound", {"user_id": "ada-lovelace"})]:
        status, body = api("POST", "/v1/admin/keys", {"role": "tenant", "tenant": tenant, "name": name, **extra})
        assert status == 201, body
        keys[name] = body["key"]
    tk = keys["tenant"]

    def add(user, text, **extra):
        status, body = api("POST", "/v1/memories", {"user_id": user, "infer": False, "text": text, **extra}, key=tk)
        assert status == 201, body
        return body["results"][0]["id"]

    def said(user, text, **extra):
        # Facts only: the pages below count a person's facts in each state
        # (what was said, kept as episodic memories, is the API suites' part).
        status, job = api("POST", "/v1/memories", {"user_id": user, "wait": True, "store_raw": False,
                                                   "messages": [{"role": "user", "content": text}], **extra}, key=tk)
        assert status == 200 and job["status"] == "done", job
        return job

    add("ada-byron", "I like poetry.")
    add("grace-hopper", "I work at the Navy.")
    for x in XSS:
        add("ada-lovelace", x)
    # Supersessions with their history: Berlin replaced London (ada), Rome replaced Paris (rex).
    for user, first, then in [("ada-lovelace", "London", "Berlin"), ("rex-revert", "Paris", "Rome")]:
        said(user, f"I live in {first}.")
        said(user, f"I moved to {then}.")
    add("kim-forget", "I keep bees in the garden.")
    add("kim-forget", "I drive a blue van.")
    add("eve-edit", "I work at the Navy.")
    for text in ["I work at Initech and I live in Oslo.", "I no longer work at Initech.", "Please forget that I live in Oslo."]:
        said("olga-states", text)
    for text in ["My dog is called Rex.", "I live in Lisbon.", "I work as a nurse.", "I play the cello on Sundays.",
                 "My sister is called Ana.", "I am allergic to peanuts.", "I like green tea.", "I drive a red bike.",
                 "My favourite film is Alien.", "I grow tomatoes.", "My dog loves the beach."] + XSS:
        add("ruth-recall", text)
    add("erin-erase", "I collect Faroese stamps.")
    said("erin-erase", "I live in Tromsø.")
    status, body = api("POST", "/v1/sessions/erin-chat/messages", {"user_id": "erin-erase", "infer": False,
                                                                  "messages": [{"role": "user", "content": "Hello there."}]}, key=tk)
    assert status == 201, body
    add("pia-purge", "I read the Vinland saga.", source={"type": "document", "ref": "doc-pia"})
    add("pia-purge", "I like herring.")
    # A job that failed for good, as a worker leaves it (the scratch server's
    # extractor does not fail, so the failure is written where a worker would).
    job = said("finn-fail", "I live in Bergen.")
    sql("UPDATE jobs SET status = 'failed', attempts = max_attempts, payload = NULL, "
        "last_error = 'the model endpoint refused the connection' WHERE id = '%s'", job["job_id"])
    superseded = list(memories_of(tk, "ada-lovelace", "superseded"))
    assert len(superseded) == 1 and "London" in superseded[0], superseded
    # keys["tenant"] is the tenant key; "tenant_name" the tenant it acts in.
    return {"tenant_name": tenant, "superseded": superseded, "failed_job": job["job_id"], **keys}


@pytest.fixture(scope="module")
def browser():
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        opts.add_argument(a)
    opts.add_experimental_option("prefs", {"download.default_directory": DOWNLOADS, "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")), options=opts)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": DOWNLOADS})
    yield driver
    driver.quit()


def until(browser, check, timeout=10):
    """Waits for `check(browser)` to be truthy, reading again when the page re-rendered under it."""
    return WebDriverWait(browser, timeout, ignored_exceptions=FLAKY).until(check)


def texts(browser, css):
    return [e.text for e in browser.find_elements(By.CSS_SELECTOR, css)]


def until_texts(browser, css, check, timeout=10):
    return until(browser, lambda b: (t := texts(b, css)) is not None and check(t) and t, timeout)


def heading(browser, text):
    until(browser, lambda b: b.find_element(By.TAG_NAME, "h2").text == text)


def click(browser, css):
    until(browser, lambda b: b.find_element(By.CSS_SELECTOR, css).is_enabled() and (b.find_element(By.CSS_SELECTOR, css).click() or True))


def accept(browser):
    WebDriverWait(browser, 5).until(EC.alert_is_present()).accept()


def wait(browser, css, timeout=10):
    return WebDriverWait(browser, timeout).until(EC.presence_of_element_located((By.CSS_SELECTOR, css)))


def type_into(browser, css, text):
    box = wait(browser, css)
    box.clear()
    box.send_keys(text)


def open_user(browser, prefix, name):
    """Finds users by prefix and opens `name` once the list shows the search's answer."""
    type_into(browser, "#prefix", prefix)
    browser.find_element(By.CSS_SELECTOR, "#find button").click()
    until_texts(browser, "#people .open-user", lambda t: t and all(x.startswith(prefix) for x in t) and name in t)
    until(browser, lambda b: next(e for e in b.find_elements(By.CSS_SELECTOR, "#people .open-user") if e.text == name).click() or True)
    heading(browser, f"Memories of {name}")
    until_texts(browser, "#memories .memory-text", lambda t: len(t) > 0)


def open_timeline(browser, text):
    """Opens the timeline of the listed memory whose text is `text`."""
    def go(b):
        for r in b.find_elements(By.CSS_SELECTOR, "#memories tr"):
            if r.find_element(By.CSS_SELECTOR, ".memory-text").text == text:
                r.find_element(By.CSS_SELECTOR, ".timeline-open").click()
                return True
        return False
    until(browser, go)
    heading(browser, "Timeline")
    until(browser, lambda b: b.find_element(By.ID, "timeline-memory").text == text)


def choose(browser, select_id, value):
    click(browser, f"#{select_id} option[value='{value}']")


def set_datetime(browser, css, iso_local):
    """A datetime-local input's value, as a user picking it would leave it."""
    browser.execute_script("const i = document.querySelector(arguments[0]); i.value = arguments[1];"
                           "i.dispatchEvent(new Event('input', {bubbles: true}));", css, iso_local)


def shoot(browser, name):
    if not SHOTS:
        return
    os.makedirs(SHOTS, exist_ok=True)
    for width, height in ((1280, 900), (390, 844)):
        browser.set_window_size(width, height)
        time.sleep(0.2)  # the layout settles at the new width
        browser.save_screenshot(os.path.join(SHOTS, f"{name}-{width}.png"))
    browser.set_window_size(1280, 900)


def sign_in(browser, key, tenant=None):
    browser.get(URL + "/console")
    wait(browser, "#key").send_keys(key)
    if tenant:
        browser.find_element(By.ID, "tenant").send_keys(tenant)
    browser.find_element(By.CSS_SELECTOR, "#signin button[type=submit]").click()
    until(browser, lambda b: b.find_element(By.ID, "who").text)


def no_script_ran(browser):
    assert browser.title == "Engram console", browser.title
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text


def search(key, user, query):
    status, body = api("POST", "/v1/memories/search", {"user_id": user, "query": query, "top_k": 10}, key=key)
    assert status == 200, body
    return [h["memory"] for h in body["results"]]


def test_sign_in_find_a_user_and_filter_by_state(browser, seed):
    browser.get(URL + "/console")
    wait(browser, "#key")
    shoot(browser, "sign-in")
    sign_in(browser, seed["tenant"])
    assert "tenant key" in browser.find_element(By.ID, "who").text
    type_into(browser, "#prefix", "ada")
    browser.find_element(By.CSS_SELECTOR, "#find button").click()
    names = until_texts(browser, "#people .open-user", lambda t: t and all(x.startswith("ada") for x in t))
    assert names == ["ada-byron", "ada-lovelace"], names
    shoot(browser, "people")
    open_user(browser, "ada", "ada-lovelace")
    shown = until_texts(browser, "#memories .memory-text", lambda t: len(t) >= 4)
    for payload in XSS:
        assert payload in shown, shown  # shown as the text it is
    no_script_ran(browser)
    assert not browser.find_elements(By.CSS_SELECTOR, "#memories img"), "no element made from a memory's text"
    # The whole person's counts come from the server, not from the page loaded.
    states = until(browser, lambda b: b.find_element(By.ID, "overview-states").text)
    assert "1 superseded" in states and "memories:" in states, states
    shoot(browser, "memories")
    choose(browser, "state", "superseded")
    until_texts(browser, "#memories .memory-text", lambda t: t == seed["superseded"])
    choose(browser, "state", "")
    type_into(browser, "#text-filter", "script")
    browser.find_element(By.CSS_SELECTOR, "#filters button[type=submit]").click()
    until_texts(browser, "#memories .memory-text", lambda t: t == [XSS[1]])


def test_a_timeline_shows_the_supersession_and_revert_undoes_it(browser, seed):
    sign_in(browser, seed["tenant"])
    open_user(browser, "ada-love", "ada-lovelace")
    open_timeline(browser, seed["superseded"][0])
    text = " | ".join(until_texts(browser, "#timeline .event", lambda t: len(t) >= 2))
    assert "ADD" in text and "SUPERSEDE" in text, text
    assert "Reason:" in text and "Said: I live in London." in text, text
    assert browser.find_element(By.ID, "timeline-state").text == "superseded"
    # The chain, both ways: to what replaced it, and back.
    click(browser, "dd .chain")
    until(browser, lambda b: "Berlin" in b.find_element(By.ID, "timeline-memory").text)
    click(browser, "dd .chain")
    until(browser, lambda b: "London" in b.find_element(By.ID, "timeline-memory").text)
    shoot(browser, "timeline")

    browser.find_element(By.CSS_SELECTOR, "#nav-people").click()
    open_user(browser, "rex", "rex-revert")
    paris = next(m for m in memories_of(seed["tenant"], "rex-revert") if "Paris" in m)
    open_timeline(browser, paris)
    click(browser, "#revert")
    accept(browser)
    heading(browser, "Memories of rex-revert")
    until(browser, lambda b: b.find_element(By.ID, "status").text == "Reverted.")
    after = memories_of(seed["tenant"], "rex-revert")
    assert after[paris]["state"] == "live", after
    rome = next(m for m in after if "Rome" in m)
    assert after[rome]["state"] == "superseded", after
    assert any(h["event"] == "REVERT" for h in after[paris]["history"])


def test_forget_a_memory_and_see_it_gone_from_search(browser, seed):
    tk = seed["tenant"]
    assert "I keep bees in the garden." in search(tk, "kim-forget", "bees")
    sign_in(browser, tk)
    open_user(browser, "kim", "kim-forget")
    open_timeline(browser, "I keep bees in the garden.")
    click(browser, "#forget")
    accept(browser)
    heading(browser, "Memories of kim-forget")
    until(browser, lambda b: b.find_element(By.ID, "status").text == "Forgotten.")
    assert "I keep bees in the garden." not in search(tk, "kim-forget", "bees")
    assert memories_of(tk, "kim-forget")["I keep bees in the garden."]["state"] == "deleted"
    until(browser, lambda b: any(r.find_element(By.CSS_SELECTOR, ".memory-text").text == "I keep bees in the garden."
                                 and r.find_element(By.CSS_SELECTOR, ".state").text == "deleted"
                                 for r in b.find_elements(By.CSS_SELECTOR, "#memories tr")))
    # Deleted for good: gone from every state.
    open_timeline(browser, "I keep bees in the garden.")
    click(browser, "#purge")
    accept(browser)
    until(browser, lambda b: b.find_element(By.ID, "status").text == "Deleted permanently.")
    assert "I keep bees in the garden." not in memories_of(tk, "kim-forget")


def test_deleted_memories_say_how_they_went(browser, seed):
    sign_in(browser, seed["tenant"])
    # Nothing of hers is in view, so the people list does not show her: open her by id.
    type_into(browser, "#prefix", "olga-states")
    click(browser, "#open-exact")
    heading(browser, "Memories of olga-states")
    labels = until_texts(browser, "#memories .state", lambda t: len(t) == 2)
    assert sorted(labels) == ["deleted (forgotten)", "deleted (retracted)"], labels


def test_edit_text_set_and_clear_expiry_and_pin(browser, seed):
    tk = seed["tenant"]
    sign_in(browser, tk)
    open_user(browser, "eve", "eve-edit")
    open_timeline(browser, "I work at the Navy.")
    type_into(browser, "#edit-text", "I work at the US Navy.")
    browser.find_element(By.CSS_SELECTOR, "#edit button[type=submit]").click()
    until(browser, lambda b: b.find_element(By.ID, "status").text == "Saved.")
    m = memories_of(tk, "eve-edit")["I work at the US Navy."]
    assert [h["event"] for h in m["history"]][-1] == "UPDATE", m["history"]
    open_timeline(browser, "I work at the US Navy.")
    set_datetime(browser, "#expires-at", "2031-05-06T07:08")
    browser.find_element(By.CSS_SELECTOR, "#ttl button[type=submit]").click()
    until(browser, lambda b: b.find_element(By.ID, "status").text == "Expiry set.")
    assert memories_of(tk, "eve-edit")["I work at the US Navy."]["expires_at"].startswith("2031-05-0")
    open_timeline(browser, "I work at the US Navy.")
    click(browser, "#no-expiry")
    until(browser, lambda b: b.find_element(By.ID, "status").text == "Expiry cleared.")
    open_timeline(browser, "I work at the US Navy.")
    click(browser, "#pin-one")
    until(browser, lambda b: b.find_element(By.ID, "status").text == "Pinned.")
    m = memories_of(tk, "eve-edit")["I work at the US Navy."]
    assert m["expires_at"] is None and m["pinned"] is True, m


def test_why_did_it_say_that(browser, seed):
    sign_in(browser, seed["tenant"])
    open_user(browser, "ruth", "ruth-recall")
    click(browser, "#open-recall")
    heading(browser, "Why did it say that? (as ruth-recall)")
    type_into(browser, "#recall-query", "What is my dog called?")
    type_into(browser, "#recall-budget", "120")
    browser.find_element(By.CSS_SELECTOR, "#recall button[type=submit]").click()
    rows = until(browser, lambda b: b.find_elements(By.CSS_SELECTOR, "#recall-hits tbody tr"))
    cells = [r.find_elements(By.TAG_NAME, "td") for r in rows]
    first = [c.text for c in cells[0]]
    assert first[1] == "My dog is called Rex.", first
    assert first[-1].startswith("yes"), first
    # Every score part is shown, and at a small budget some hits are left out, saying why.
    # (#, memory, score, the nine parts of SCORE_PARTS, reached the block?)
    assert len(first) == 13 and all(c for c in first[3:12]), first
    verdicts = [c[-1].text for c in cells]
    assert any(v.startswith("no: budget") for v in verdicts), verdicts
    block = browser.find_element(By.ID, "recall-block").text
    assert "My dog is called Rex." in block, block
    parts = browser.find_element(By.ID, "recall-parts").text
    assert "memories:" in parts, parts
    shoot(browser, "recall")
    # Attacker-controlled texts in the hits and the block stay text.
    type_into(browser, "#recall-query", "script img onerror")
    type_into(browser, "#recall-budget", "1000")
    browser.find_element(By.CSS_SELECTOR, "#recall button[type=submit]").click()
    # In the block they are what the model gets: look-alikes for < and >, so
    # nothing stored can close the block; the page shows which hits made it.
    # (Waiting on the new block: the first query's hits held them too.)
    block = until(browser, lambda b: "\u2039img" in (t := b.find_element(By.ID, "recall-block").text) and t)
    shown = texts(browser, "#recall-hits .memory-text")
    assert all(x in shown for x in XSS), shown
    assert "\u2039img src=x onerror" in block and "<img" not in block.replace("<memory>", ""), block
    verdicts = texts(browser, "#recall-hits td[data-label='In the block']")
    # A stored <script> reads as prompt markup: the block holds it out at
    # read time (issue 51), and the page says so.
    assert all(v.startswith("yes") or "instruction screen" in v for v in verdicts), verdicts
    assert any(v.startswith("yes") for v in verdicts), verdicts
    no_script_ran(browser)
    assert not browser.find_elements(By.CSS_SELECTOR, "#recall-out img, #recall-out script")


def test_export_then_a_dry_run_then_the_erasure_and_its_receipt(browser, seed):
    tk = seed["tenant"]
    held = len(memories_of(tk, "erin-erase"))
    assert held >= 2
    sign_in(browser, tk)
    open_user(browser, "erin", "erin-erase")
    click(browser, "#open-requests")
    heading(browser, "Export and erasure: erin-erase")
    click(browser, "#export")
    said = until(browser, lambda b: b.find_element(By.ID, "export-result").text)
    assert f"Exported {held} memories" in said, said
    path = os.path.join(DOWNLOADS, "engram-export-erin-erase.json")
    until(browser, lambda b: os.path.exists(path), timeout=15)
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    assert doc["format"] == "engram.user-export" and doc["user_id"] == "erin-erase"
    assert len(doc["memories"]) == held

    assert not browser.find_element(By.ID, "erase").is_enabled(), "erasure waits for its dry run"
    click(browser, "#erase-dry-run")
    plan = until(browser, lambda b: b.find_element(By.ID, "erase-plan").text)
    assert "Dry run: nothing was changed" in plan and "memories" in plan, plan
    assert len(memories_of(tk, "erin-erase")) == held, "the dry run erased nothing"
    shoot(browser, "erasure-dry-run")
    click(browser, "#erase")
    accept(browser)
    receipt = until(browser, lambda b: b.find_element(By.ID, "erase-receipt").text)
    assert "Keep this receipt" in receipt, receipt
    counts = {dt.text: dd.text for dt, dd in zip(browser.find_elements(By.CSS_SELECTOR, "#erase-receipt-counts dt"),
                                                 browser.find_elements(By.CSS_SELECTOR, "#erase-receipt-counts dd"))}
    assert counts["memories"] == str(held) and counts["sessions"] == "1", counts
    assert memories_of(tk, "erin-erase") == {}
    shoot(browser, "erasure-receipt")

    # A purge of one source, the same way.
    browser.find_element(By.CSS_SELECTOR, "#nav-people").click()
    open_user(browser, "pia", "pia-purge")
    click(browser, "#open-requests")
    type_into(browser, "#purge-source", "doc-pia")
    click(browser, "#purge-dry-run")
    plan = until(browser, lambda b: b.find_element(By.ID, "purge-plan").text)
    assert "memories\n1" in plan, plan
    assert "I read the Vinland saga." in memories_of(tk, "pia-purge")
    click(browser, "#purge-run")
    accept(browser)
    until(browser, lambda b: b.find_element(By.ID, "purge-receipt").text)
    assert list(memories_of(tk, "pia-purge")) == ["I like herring."]


def test_a_failed_job_shows_with_its_error(browser, seed):
    sign_in(browser, seed["tenant"])
    click(browser, "#nav-jobs")
    heading(browser, "Jobs")
    choose(browser, "job-status", "failed")
    row = until(browser, lambda b: b.find_element(By.CSS_SELECTOR, f"#jobs tr[data-id='{seed['failed_job']}']"))
    text = row.text
    assert "failed" in text and "the model endpoint refused the connection" in text and "extract" in text, text
    assert len(browser.find_elements(By.CSS_SELECTOR, "#jobs tr")) == 1
    choose(browser, "job-status", "")
    until(browser, lambda b: len(b.find_elements(By.CSS_SELECTOR, "#jobs tr")) >= 4)
    shoot(browser, "jobs")


def test_an_admin_picks_a_tenant_and_reads_the_audit_log_and_consolidation(browser, seed):
    sign_in(browser, ADMIN)
    assert "admin key" in browser.find_element(By.ID, "who").text
    name = seed["tenant_name"]
    until(browser, lambda b: name in [o.get_attribute("value") for o in b.find_elements(By.CSS_SELECTOR, "#tenant-pick option")])
    choose(browser, "tenant-pick", name)
    until(browser, lambda b: name in b.find_element(By.ID, "who").text)
    names = until_texts(browser, "#people .open-user", lambda t: "grace-hopper" in t)
    assert "ada-lovelace" in names
    click(browser, "#nav-audit")
    heading(browser, "Audit log")
    type_into(browser, "#audit-action", "user.erase")
    browser.find_element(By.CSS_SELECTOR, "#audit-filters button[type=submit]").click()
    entries = until_texts(browser, "#audit tr", lambda t: t and all("user.erase" in x for x in t))
    assert entries, entries
    assert "erin-erase" not in " ".join(entries), "a person appears only as a pseudonym"
    shoot(browser, "audit")
    click(browser, "#nav-consolidation")
    heading(browser, "Consolidation")
    browser.find_element(By.CSS_SELECTOR, "#consolidate button[type=submit]").click()
    report = until(browser, lambda b: b.find_element(By.ID, "consolidation-report").text, timeout=30)
    assert "nothing was changed" in report, report
    until(browser, lambda b: "dry run" in b.find_element(By.ID, "runs").text)
    shoot(browser, "consolidation")


def test_a_read_only_key_has_no_enabled_control_that_changes_data(browser, seed):
    sign_in(browser, seed["reader"])
    assert "read-only" in browser.find_element(By.ID, "who").text
    open_user(browser, "grace", "grace-hopper")
    for button in browser.find_elements(By.CSS_SELECTOR, "#memories button.pin, #memories button.delete"):
        assert not button.is_enabled(), button.text
    assert not browser.find_elements(By.ID, "open-requests"), "no export or erasure for a read-only key"
    mid = browser.find_element(By.CSS_SELECTOR, "#memories tr").get_attribute("data-id")
    open_timeline(browser, "I work at the Navy.")
    for css in ("#revert", "#forget", "#purge", "#edit", "#ttl", "#pin-one"):
        assert not browser.find_elements(By.CSS_SELECTOR, css), css
    # A forged request from the page with the same key is refused by the server.
    status = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/v1/memories/' + arguments[0], {method: 'DELETE', headers: {authorization: 'Bearer ' + arguments[1]}})"
        ".then(r => done(r.status));", mid, seed["reader"])
    assert status == 403
    status = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch('/v1/admin/users/grace-hopper', {method: 'DELETE', headers: {authorization: 'Bearer ' + arguments[0]}})"
        ".then(r => done(r.status));", seed["reader"])
    assert status == 403
    assert api("GET", f"/v1/memories/{mid}", key=seed["tenant"])[0] == 200


def test_a_bound_key_sees_only_its_user(browser, seed):
    sign_in(browser, seed["bound"])
    assert "bound to ada-lovelace" in browser.find_element(By.ID, "who").text
    heading(browser, "Memories of ada-lovelace")
    shown = " ".join(until_texts(browser, "#memories .memory-text", lambda t: len(t) > 0))
    assert "poetry" not in shown and "Navy" not in shown
    assert not browser.find_elements(By.ID, "nav-audit") and not browser.find_elements(By.ID, "open-requests")
    no_script_ran(browser)
    click(browser, "#nav-jobs")
    users = until_texts(browser, "#jobs td[data-label=User]", lambda t: len(t) > 0)
    assert set(users) == {"ada-lovelace"}, users


def test_forget_from_the_list_with_confirmation_and_sign_out(browser, seed):
    sign_in(browser, seed["tenant"])
    open_user(browser, "grace", "grace-hopper")
    row = browser.find_elements(By.CSS_SELECTOR, "#memories tr")[0]
    mid = row.get_attribute("data-id")
    row.find_element(By.CSS_SELECTOR, "button.delete").click()
    accept(browser)
    until_texts(browser, "#memories .state", lambda states: "deleted" in states)
    assert api("GET", f"/v1/memories/{mid}", key=seed["tenant"])[0] == 404
    browser.find_element(By.ID, "signout").click()
    wait(browser, "#key")
    assert browser.execute_script("return sessionStorage.length") == 0
    assert seed["tenant"] not in browser.page_source
