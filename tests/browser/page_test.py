"""The settings page in a real headless Chromium, against the real
`holdfast serve --listen 127.0.0.1:0`, with real `holdfast settings` CLI
saves beside it and the settings files read from disk.

Run one case: python3 -m unittest page_test.PageTest.test_live_cli_save
(HOLDFAST_BINARY=build/cli/holdfast; ctest sets it).
"""

import json
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import holdfast_page  # noqa: E402

HOLDFAST = os.environ.get("HOLDFAST_BINARY", "build/cli/holdfast")
# Generous: the machine may be loaded; every wait ends as soon as its
# condition holds.
WAIT = 30


class PageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Without Chromium this fails, never skips: CI must run these.
        cls.browser = holdfast_page.start_chromium()
        cls.services = []

    @classmethod
    def tearDownClass(cls):
        cls.browser.quit()
        for service in cls.services:
            service.stop()

    def setUp(self):
        self.service = holdfast_page.Service(HOLDFAST)
        self.services.append(self.service)
        self.addCleanup(self.service.terminate)
        self.browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})

    # ---- helpers -------------------------------------------------------------

    def wait(self, condition, what):
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        # A view the page re-renders (a save's answer, then its event) may
        # replace an element between finding it and reading it: read again.
        return WebDriverWait(self.browser, WAIT, ignored_exceptions=[StaleElementReferenceException]).until(
            lambda _: condition(), message=what)

    def read(self, read):
        """`read()` (elements found and read), found again when the page
        replaced an element in between; a page that keeps replacing it for
        a hundred tries is a failure."""
        from selenium.common.exceptions import StaleElementReferenceException

        for _ in range(100):
            try:
                return read()
            except StaleElementReferenceException:
                continue
        return read()

    def text(self, element_id):
        return self.read(lambda: self.by_id(element_id).text)

    def js(self, script, *args):
        return self.browser.execute_script(script, *args)

    def by_id(self, element_id):
        return self.browser.find_element("id", element_id)

    def open_page(self, url=None):
        """Opens the printed link (the page exchanges the one-time token in
        its fragment for a session and takes it out of the address bar), or
        `url`, and waits until the page has loaded the settings and follows
        the event stream."""
        self.browser.get(url or self.service.url)
        self.wait_ready()
        self.assertNotIn("token", self.browser.current_url)
        # Nothing the page does is refused by its own Content-Security-Policy
        # or fails to load (messages of this service's origin only: an
        # earlier test's page may still log about its stopped service).
        severe = [e["message"] for e in self.browser.get_log("browser")
                  if e["level"] == "SEVERE" and self.service.origin in e["message"]]
        self.assertEqual(severe, [])

    def wait_ready(self):
        self.wait(lambda: self.js("return document.body.dataset.ready") in ("yes", "no-session"),
                  "page ready")
        self.assertEqual(self.js("return document.body.dataset.ready"), "yes", self.status_text())
        self.wait(lambda: self.by_id("connection").get_attribute("data-live") == "yes",
                  "event stream live")

    def new_tab(self):
        """Another tab of the page, opened without the link (its session
        comes from the tabs already open)."""
        self.browser.switch_to.new_window("tab")
        self.browser.get(self.service.origin + "/")
        self.wait_ready()
        return self.browser.current_window_handle

    def close_other_tabs(self, keep):
        for handle in self.browser.window_handles:
            if handle != keep:
                self.browser.switch_to.window(handle)
                self.browser.close()
        self.browser.switch_to.window(keep)

    def select(self, element_id, value):
        from selenium.webdriver.support.ui import Select

        Select(self.by_id(element_id)).select_by_value(value)

    def loaded_revision(self):
        return int(self.by_id("edit-form").get_attribute("data-revision"))

    def status_text(self):
        return self.text("status")

    # ---- the page as served --------------------------------------------------

    def test_page_headers(self):
        status, headers, body = self.service.get("/")
        self.assertEqual(status, 200)
        self.assertEqual(headers["Content-Type"], "text/html; charset=utf-8")
        csp = headers["Content-Security-Policy"]
        self.assertIn("script-src 'self'", csp)
        self.assertIn("frame-ancestors 'none'", csp)
        self.assertNotIn("unsafe-inline", csp)
        self.assertNotIn("unsafe-eval", csp)
        self.assertEqual(headers["Cache-Control"], "no-store")
        self.assertEqual(headers["X-Content-Type-Options"], "nosniff")
        self.assertEqual(headers["X-Frame-Options"], "DENY")
        # Every script is a file of the page's own (the policy would block
        # an inline one; this says none was written).
        html = body.decode()
        scripts = re.findall(r"<script\b[^>]*>", html)
        self.assertTrue(scripts)
        for tag in scripts:
            self.assertRegex(tag, r'src="/page/[a-z]+\.js"')
        self.assertNotRegex(html, r"\son[a-z]+=")  # no inline event handlers
        status, headers, _ = self.service.get("/page/page.js")
        self.assertEqual((status, headers["Content-Type"]), (200, "text/javascript; charset=utf-8"))
        self.assertIn("script-src 'self'", headers["Content-Security-Policy"])
        status, _, _ = self.service.get("/page/missing.js")
        self.assertEqual(status, 404)
        # The page holds no secret and needs none to be served; it sets no
        # cookie. The API needs the session.
        self.assertNotIn(self.service.link, html)
        self.assertIsNone(headers["Set-Cookie"])
        status, _, _ = self.service.get("/api/v1/settings")
        self.assertEqual(status, 401)

    # ---- (a) a save from the page reaches the file --------------------------

    def test_save_network_writes_file(self):
        self.service.cli("settings", "set", "tools.executionSandbox", json.dumps({
            "filesystem": {":root": "read", ":workspace": "write", "/srv/a.b": "deny"},
            "network": "closed", "limits": {"tmpfsMiB": 64}}))
        self.service.cli("settings", "set", "permissions.allow", '["Read", "Bash(ls)"]')
        self.service.cli("settings", "set", "permissions.ask", "[]")
        self.service.cli("settings", "set", "security.requireExecutionSandbox", "false")
        self.service.cli("settings", "set", "editor.fontSize", "14")
        before = self.service.read_user_file()
        self.open_page()
        self.assertEqual(self.by_id("network").get_attribute("value"), "closed")
        self.select("network", "open")
        self.by_id("save").click()
        self.wait(lambda: "Saved" in self.status_text(), "the page says it saved")
        after = self.service.read_user_file()
        # The network changed, the revision moved on by one, and everything
        # else the form and the raw editor held came back as it was.
        expected = json.loads(json.dumps(before))
        expected["tools"]["executionSandbox"]["network"] = "open"
        expected["$revision"] = before["$revision"] + 1
        self.assertEqual(after, expected)
        self.assertEqual(self.loaded_revision(), after["$revision"])
        self.assertIn(f"revision {after['$revision']}", self.status_text())

    # ---- (b) a save from the CLI in between: conflict, reload, overwrite -----

    def edit_then_cli_save(self, cli_key, cli_value):
        """Loads the page, changes the network in the form, then saves
        `cli_key` with the CLI; returns the revision the page loaded."""
        self.open_page()
        loaded = self.loaded_revision()
        self.select("network", "open")
        self.wait(lambda: self.by_id("edit-form").get_attribute("data-dirty") == "yes", "dirty")
        self.service.cli("settings", "set", cli_key, cli_value)
        # The page hears of it and keeps the edits.
        self.wait(lambda: self.by_id("underneath").is_displayed(), "changed-underneath notice")
        self.assertEqual(self.by_id("network").get_attribute("value"), "open")
        self.assertEqual(self.loaded_revision(), loaded)
        self.by_id("save").click()
        self.wait(lambda: self.by_id("conflict").is_displayed(), "conflict view")
        return loaded

    def conflict_rows(self):
        return self.read(lambda: [[cell.text for cell in row.find_elements("css selector", "th, td")]
                                  for row in self.by_id("conflict-table").find_elements("css selector", "tbody tr")])

    def test_conflict_reload(self):
        self.service.cli("settings", "set", "tools.executionSandbox.network", '"closed"')
        self.edit_then_cli_save("permissions.deny", '["Bash(rm:*)"]')
        self.assertIn(["permissions.deny", "(not set)", '["Bash(rm:*)"]', "(not set)", "them"],
                      self.conflict_rows())
        self.assertIn(["tools.executionSandbox.network", "closed", "closed", "open", "you"],
                      self.conflict_rows())
        on_disk = self.service.read_user_file()
        self.assertEqual(on_disk["tools"]["executionSandbox"]["network"], "closed")
        self.by_id("conflict-reload").click()
        # Theirs in the form, mine gone, nothing written.
        self.wait(lambda: not self.by_id("conflict").is_displayed(), "conflict view closed")
        self.assertEqual(self.by_id("network").get_attribute("value"), "closed")
        self.assertEqual(self.by_id("perm-deny").get_attribute("value"), "Bash(rm:*)")
        self.assertEqual(self.loaded_revision(), on_disk["$revision"])
        self.assertEqual(self.service.read_user_file(), on_disk)

    def test_conflict_applies_only_my_changes_on_theirs(self):
        """The issue's case: tab A tightens the network; tab B, which only
        added a deny rule, saves after it. B sees base, theirs and yours per
        key, and applying its changes keeps A's tightening."""
        self.service.cli("settings", "set", "tools.executionSandbox.network", '"open"')
        self.open_page()
        tab_a = self.browser.current_window_handle
        tab_b = self.new_tab()
        deny = self.by_id("perm-deny")
        deny.send_keys("Bash(rm:*)")
        self.wait(lambda: self.by_id("edit-form").get_attribute("data-dirty") == "yes", "B dirty")

        self.browser.switch_to.window(tab_a)
        self.select("network", "closed")
        self.by_id("save").click()
        self.wait(lambda: "Saved" in self.status_text(), "A saved")
        tightened = self.service.read_user_file()
        self.assertEqual(tightened["tools"]["executionSandbox"]["network"], "closed")

        self.browser.switch_to.window(tab_b)
        self.wait(lambda: self.by_id("underneath").is_displayed(), "B hears of A's save")
        self.by_id("save").click()
        self.wait(lambda: self.by_id("conflict").is_displayed(), "conflict view")
        rows = self.conflict_rows()
        self.assertIn(["tools.executionSandbox.network", "open", "closed", "open", "them"], rows)
        self.assertIn(["permissions.deny", "(not set)", "(not set)", '["Bash(rm:*)"]', "you"], rows)
        self.assertEqual(self.service.read_user_file(), tightened)  # nothing saved yet
        self.by_id("conflict-apply").click()
        self.wait(lambda: "Saved" in self.status_text(), "B saved")
        merged = self.service.read_user_file()
        self.assertEqual(merged["tools"]["executionSandbox"]["network"], "closed")
        self.assertEqual(merged["permissions"]["deny"], ["Bash(rm:*)"])
        self.assertEqual(merged["$revision"], tightened["$revision"] + 1)
        self.assertFalse(self.by_id("conflict").is_displayed())
        self.assertEqual(self.by_id("network").get_attribute("value"), "closed")
        self.close_other_tabs(tab_b)

    # ---- (c) live -------------------------------------------------------------

    def test_live_cli_save(self):
        self.service.cli("settings", "set", "tools.executionSandbox.network", '"closed"')
        self.open_page()
        self.js("window.sameDocument = true")  # gone if the page reloads
        self.service.cli("settings", "set", "tools.executionSandbox.network", '"open"')
        self.wait(lambda: self.by_id("network").get_attribute("value") == "open",
                  "the form shows the CLI's save")
        revision = self.service.read_user_file()["$revision"]
        self.wait(lambda: self.loaded_revision() == revision, "the new revision")
        # The page refreshes the effective table and the form side by side
        # (page.js: Promise.all), so the form can show the save first.
        self.wait(lambda: "tools.executionSandbox.network open user" in self.text("effective-table"),
                  "the effective table shows the CLI's save")
        self.assertTrue(self.js("return window.sameDocument === true"))

    # ---- (d) values are text --------------------------------------------------

    def test_script_value_stays_text(self):
        hostile = ["Bash(<script>window.pwned = 1</script>)", 'Read(<img src=x onerror="window.pwned = 2">)']
        self.service.cli("settings", "set", "permissions.allow", json.dumps(hostile))
        self.service.cli("settings", "set", "launcher.<b>bold</b>", '"<i>x</i>"')
        self.open_page()
        cells = self.read(lambda: [c.text for c in self.by_id("effective-table").find_elements("css selector", "td, th")])
        for text in hostile + ["launcher.<b>bold</b>", "<i>x</i>"]:
            self.assertIn(text, cells)
        self.assertEqual(self.by_id("perm-allow").get_attribute("value"), "\n".join(hostile))
        self.assertEqual(self.browser.find_elements("css selector", "main script, main img, main b, main i"), [])
        self.assertIsNone(self.js("return window.pwned"))

    # ---- (e) labels and keyboard ----------------------------------------------

    def test_labels_and_keyboard_save(self):
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        self.service.cli("settings", "set", "tools.executionSandbox",
                         '{"filesystem": {":root": "read", ":workspace": "write"}, "network": "closed"}')
        self.open_page()
        # Each filesystem form shows other fields; a hidden field has no
        # accessible name, so each is looked at while shown.
        seen = set()
        for form in ("simple", "split"):
            self.select("fs-form", form)
            fields = [f for f in self.browser.find_elements("css selector", "input, select, textarea")
                      if f.is_displayed()]
            unlabelled = [f.get_attribute("id") for f in fields if not f.accessible_name.strip()]
            self.assertEqual(unlabelled, [], f"with the {form} form")
            seen.update(f.get_attribute("id") for f in fields)
        self.assertTrue({"fs-simple", "split-path-1", "network", "raw"} <= seen, seen)
        self.select("fs-form", "split")
        for f in self.browser.find_elements("css selector", "button"):
            if f.is_displayed():
                self.assertTrue(f.accessible_name.strip(), f.get_attribute("outerHTML"))

        def tab_to(element_id):
            for _ in range(80):
                ActionChains(self.browser).send_keys(Keys.TAB).perform()
                if self.js("return document.activeElement.id") == element_id:
                    return self.js("return document.activeElement")
            self.fail(f"#{element_id} cannot be reached with Tab")

        network = tab_to("network")
        outline = self.js("return getComputedStyle(arguments[0]).outlineStyle", network)
        self.assertNotEqual(outline, "none", "the focused field shows no focus ring")
        ActionChains(self.browser).send_keys(Keys.ARROW_DOWN).perform()  # closed -> open
        self.assertEqual(network.get_attribute("value"), "open")
        tab_to("save")
        ActionChains(self.browser).send_keys(Keys.ENTER).perform()
        self.wait(lambda: "Saved" in self.status_text(), "saved with keys only")
        self.assertEqual(self.service.read_user_file()["tools"]["executionSandbox"]["network"], "open")

    def test_invalid_input_shown_at_field(self):
        self.open_page()
        self.select("fs-form", "split")
        path = self.browser.find_elements("css selector", "#split-table input")[0]
        path.clear()
        path.send_keys("relative/dir")
        self.wait(lambda: path.get_attribute("aria-invalid") == "true", "the path marked invalid")
        self.assertIn("must be absolute", self.text("split-error"))
        self.assertEqual(path.accessible_name.strip() != "", True)
        raw = self.by_id("raw")
        raw.clear()
        raw.send_keys('{"launcher": {"launchRecords": "yes"}}')
        self.wait(lambda: raw.get_attribute("aria-invalid") == "true", "raw JSON marked invalid")
        self.assertIn("launcher.launchRecords: expected boolean", self.text("raw-error"))
        self.by_id("save").click()
        self.wait(lambda: "Not saved" in self.status_text(), "the save refused")
        self.assertFalse(os.path.exists(self.service.user_file))

    def test_invalid_file_shown_with_line_and_column(self):
        with open(self.service.user_file, "w", encoding="utf-8") as f:
            f.write('{\n  "tools": {"executionSandbox": {"network": "clsed"}}\n}\n')
        self.open_page()
        where = f"{self.service.user_file}:2:45"
        self.assertIn(where + " error: at tools.executionSandbox.network", self.text("scopes-table"))
        self.assertIn(where, self.text("scope-invalid"))
        self.assertFalse(self.by_id("save").is_enabled())
        # Fixed by hand: the page follows.
        with open(self.service.user_file + ".new", "w", encoding="utf-8") as f:
            f.write('{"tools": {"executionSandbox": {"network": "closed"}}}\n')
        os.rename(self.service.user_file + ".new", self.service.user_file)
        self.wait(lambda: self.by_id("save").is_enabled(), "the fixed file loaded")
        self.assertEqual(self.by_id("network").get_attribute("value"), "closed")
        self.assertFalse(self.by_id("scope-invalid").is_displayed())

    # ---- (f) 200% zoom ---------------------------------------------------------

    def test_no_horizontal_overflow_at_200_percent(self):
        long = "/srv/projects/" + "a-very-long-directory-name-without-spaces" * 3
        self.service.cli("settings", "set", "tools.executionSandbox",
                         json.dumps({"filesystem": {":root": "read", long: "write"},
                                     "network": "closed", "unixSockets": "deny"}))
        self.service.cli("settings", "set", "permissions.deny", json.dumps(["Bash(" + "x" * 150 + ")"]))
        # 200% of a 1280-pixel window: 640 CSS pixels, two device pixels each.
        for width in (640, 320):
            self.browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                "width": width, "height": 900, "deviceScaleFactor": 2, "mobile": False})
            # The link works once; the tab keeps its session across reloads.
            self.open_page(None if width == 640 else self.service.origin + "/")
            self.select("fs-form", "split")
            overflow = self.js("""
                const root = document.documentElement;
                const wide = [...document.querySelectorAll('body *')].filter((e) => {
                  const r = e.getBoundingClientRect();
                  return r.width > 0 && r.right > root.clientWidth + 1;
                }).map((e) => e.tagName + '#' + e.id + '.' + e.className);
                const scrollers = [...document.querySelectorAll('.table-wrap')]
                  .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.firstElementChild.id);
                return {page: root.scrollWidth - root.clientWidth, wide, scrollers};""")
            self.assertEqual(overflow, {"page": 0, "wide": [], "scrollers": []}, f"at {width} px")


    # ---- another local user's server on another port ---------------------------

    def test_another_port_gets_no_credential_and_cannot_lock_the_page_out(self):
        """A server of another user (uid 65534) on another loopback port,
        visited in the same browser: whatever the browser sends it holds
        neither the link nor the session, and the cookies it plants (named
        like the page's, with longer paths) do not stop the page."""
        self.open_page()
        page = self.browser.current_window_handle
        session = self.js("return sessionStorage.getItem('holdfast.session')")
        self.assertRegex(session or "", r"^[0-9a-f]{64}$")
        other = holdfast_page.OtherUserServer(self.service.port)
        self.addCleanup(other.stop)
        self.browser.switch_to.new_window("tab")
        self.browser.get(other.url)
        requests = other.wait_for("/collect")
        for request in requests:
            for name, value in request["headers"].items():
                self.assertNotIn(self.service.link, value, f"{name} of {request['path']}")
                self.assertNotIn(session, value, f"{name} of {request['path']}")
        self.close_other_tabs(page)
        # The planted cookies are in the browser now (for 127.0.0.1, every
        # port; so the case below is not empty), and the page goes on.
        planted = {(c["name"], c["path"]) for c in self.browser.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]
                   if c["domain"] == "127.0.0.1" and c["value"].startswith("planted")}
        self.assertIn(("holdfast_token", "/api/v1/settings"), planted)
        self.assertIn(("holdfast_session", "/api"), planted)
        self.browser.refresh()
        self.wait_ready()
        self.select("network", "open")
        self.by_id("save").click()
        self.wait(lambda: "Saved" in self.status_text(), "saved despite the planted cookies")
        self.assertEqual(self.service.read_user_file()["tools"]["executionSandbox"]["network"], "open")

    # ---- many tabs, one event stream ---------------------------------------------

    def test_many_tabs_share_one_stream_and_saves_still_work(self):
        """Eight tabs (a browser keeps six connections per host): one tab
        holds the event stream, the others hear it through that tab, and a
        save from the last tab is answered and reaches the first."""
        self.service.cli("settings", "set", "tools.executionSandbox.network", '"closed"')
        self.open_page()
        first = self.browser.current_window_handle
        tabs = [first] + [self.new_tab() for _ in range(7)]
        shared = 0
        for handle in tabs:
            self.browser.switch_to.window(handle)
            if "through another tab" in self.text("connection"):
                shared += 1
        self.assertEqual(shared, 7, "every tab but one should share the stream")
        self.select("network", "open")
        self.by_id("save").click()
        self.wait(lambda: "Saved" in self.status_text(), "the eighth tab saved")
        self.browser.switch_to.window(first)
        self.wait(lambda: self.by_id("network").get_attribute("value") == "open",
                  "the first tab shows the eighth tab's save")
        self.close_other_tabs(first)

    # ---- what is in effect, defaults included -----------------------------------

    def test_effective_sandbox_with_no_settings_files(self):
        self.open_page()
        self.assertIn("built-in defaults apply", self.text("effective-summary"))
        sandbox = self.text("sandbox-table")
        self.assertIn(":workspace write", sandbox)
        self.assertIn("built-in default", sandbox)
        self.assertIn("closed: no network at all", sandbox)
        # Opening the network with unixSockets unset: the form says what
        # that does to Unix sockets before anything is saved.
        self.select("network", "open")
        self.assertTrue(self.read(lambda: self.by_id("unix-sockets-default").is_displayed()))
        self.assertIn("default to allow", self.text("unix-sockets-default"))
        self.by_id("save").click()
        self.wait(lambda: "Saved" in self.status_text(), "saved")
        self.wait(lambda: "built-in default with the network open" in self.text("sandbox-unix-sockets"),
                  "sandbox view updated")
        self.assertIn("allow", self.text("sandbox-unix-sockets"))

    # ---- the network allow-list -------------------------------------------------

    def api(self, path):
        """GET `path` of the API from the page, with the page's session:
        (status, body)."""
        return tuple(self.browser.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(arguments[0], {cache: 'no-store', credentials: 'omit',
                                 headers: {Authorization: `Bearer ${sessionStorage.getItem('holdfast.session')}`}})
              .then((r) => r.json().then((body) => done([r.status, body])))
              .catch((e) => done([0, String(e)]));""", path))

    def test_allow_list_saved_through_form(self):
        self.service.cli("settings", "set", "tools.executionSandbox.network", '"closed"')
        self.open_page()
        self.assertFalse(self.by_id("network-allow").is_displayed())
        self.select("network", "allow-list")
        self.wait(lambda: self.by_id("network-allow").is_displayed(), "the allow-list fields shown")
        for field in ("network-allow", "network-deny"):
            self.assertTrue(self.by_id(field).accessible_name.strip(), field)
        self.assertIn("**.npmjs.org", self.text("network-rules-hint"))
        # Unix sockets left unset: an allow-list keeps them as closed does.
        self.assertEqual(self.by_id("unix-sockets-default").get_attribute("data-default"), "pairs")
        self.by_id("network-allow").send_keys("  github.com \n\n**.npmjs.org\npypi.org\napi.example.com:8443\n")
        self.by_id("network-deny").send_keys("gist.github.com\n")
        self.by_id("save").click()
        self.wait(lambda: "Saved" in self.status_text(), "saved")
        expected = {"allow": ["github.com", "**.npmjs.org", "pypi.org", "api.example.com:8443"],
                    "deny": ["gist.github.com"]}
        status, scope = self.api("/api/v1/scopes/user")
        self.assertEqual(status, 200, scope)
        self.assertEqual(scope["document"]["tools"]["executionSandbox"]["network"], expected)
        self.assertEqual(self.service.read_user_file()["tools"]["executionSandbox"]["network"], expected)
        # The effective sandbox says what an allow-list is, and lists each
        # entry with its port and the scope that wrote it.
        self.wait(lambda: "allow-list: a network namespace of its own" in self.text("sandbox-network"),
                  "the sandbox view shows the allow-list")
        rules = self.read(lambda: [row.text for row in self.browser.find_elements("css selector", "#sandbox-table tr.network-rule")])
        self.assertIn("network.allow: api.example.com:8443 allowed, port 8443 user", rules)
        self.assertIn("network.allow: github.com allowed, port 443 user", rules)
        self.assertIn("network.deny: gist.github.com denied, every port user", rules)
        # Loaded again, the form holds the value as saved (and an empty deny
        # list, saved, is left out).
        self.browser.refresh()
        self.wait_ready()
        self.assertEqual(self.by_id("network").get_attribute("value"), "allow-list")
        self.assertEqual(self.by_id("network-allow").get_attribute("value"), "\n".join(expected["allow"]))
        self.assertEqual(self.by_id("network-deny").get_attribute("value"), "gist.github.com")
        self.assertEqual(self.by_id("edit-form").get_attribute("data-dirty"), "no")
        self.by_id("network-deny").clear()
        self.by_id("save").click()
        self.wait(lambda: self.service.read_user_file()["$revision"] == scope["revision"] + 1, "saved again")
        self.assertEqual(self.service.read_user_file()["tools"]["executionSandbox"]["network"],
                         {"allow": expected["allow"]})
        # Back to closed: the plain string again, the lists out of sight.
        self.select("network", "closed")
        self.assertFalse(self.by_id("network-allow").is_displayed())
        self.by_id("save").click()
        self.wait(lambda: self.service.read_user_file()["$revision"] == scope["revision"] + 2, "closed saved")
        self.assertEqual(self.service.read_user_file()["tools"]["executionSandbox"]["network"], "closed")

    def test_allow_list_bad_entry_shown_at_its_line(self):
        self.open_page()
        self.select("network", "allow-list")
        allow = self.by_id("network-allow")
        allow.send_keys("github.com\n*.com")
        self.by_id("save").click()
        self.wait(lambda: "Not saved" in self.status_text(), "the save refused")
        self.wait(lambda: allow.get_attribute("aria-invalid") == "true", "the allow-list marked invalid")
        error = self.text("network-allow-error")
        self.assertIn("line 2", error)
        self.assertIn("*.com", error)
        self.assertIn("tools.executionSandbox.network.allow.1", error)
        # The error is what the field is described by (with its hint).
        self.assertIn("network-allow-error", allow.get_attribute("aria-describedby").split())
        self.assertIsNone(self.by_id("network-deny").get_attribute("aria-invalid"))
        self.assertFalse(os.path.exists(self.service.user_file))

    def test_explain_lists_the_allow_list(self):
        self.service.cli("settings", "set", "tools.executionSandbox.network", json.dumps(
            {"allow": ["github.com", "private:git.corp.example:22"], "deny": ["gist.github.com"]}))
        # A launch (explained too) needs a state directory only its owner reads.
        os.chmod(self.service.env["HOLDFAST_STATE_DIR"], 0o700)
        workspace = os.path.join(self.service.dir, "home", "project")
        os.makedirs(workspace)
        self.open_page()
        self.by_id("explain-workspace").send_keys(workspace)
        self.browser.find_element("css selector", "#explain-form button").click()
        self.wait(lambda: self.by_id("explain-network").is_displayed(), "the allow-list explained")
        self.assertIn("a network namespace of its own; the only way out is the launch's proxy, to the hosts listed",
                      self.text("explain-network-text"))
        rows = self.read(lambda: [[c.text for c in r.find_elements("css selector", "th, td")]
                                  for r in self.by_id("explain-network-table").find_elements("css selector", "tbody tr")])
        self.assertEqual(rows, [
            ["github.com", "allow", "443", "no: public addresses only", "user"],
            ["private:git.corp.example:22", "allow", "22", "yes: may resolve to them", "user"],
            ["gist.github.com", "deny", "every port", "—", "user"],
        ])

    def test_launch_connections_shown(self):
        state = self.service.env["HOLDFAST_STATE_DIR"]
        os.makedirs(os.path.join(state, "network"), mode=0o700)
        audit = os.path.join(state, "network", "1764680000000-4242-0.jsonl")
        connections = [
            {"time": "2025-12-02T12:53:21.000Z", "protocol": "connect", "host": "github.com", "port": 443,
             "sni": "github.com", "address": "140.82.121.4", "allowed": True, "reason": "",
             "rule": "github.com", "origin": "user", "bytesOut": 517, "bytesIn": 4096, "durationMs": 80},
            {"time": "2025-12-02T12:53:22.000Z", "protocol": "http", "host": "evil.example", "port": 80,
             "allowed": False, "reason": "evil.example:80 is not on the allow-list", "rule": "",
             "origin": "", "bytesOut": 0, "bytesIn": 0, "durationMs": 1},
        ]
        with open(audit, "w", encoding="utf-8") as f:
            f.writelines(json.dumps(c) + "\n" for c in connections)
        base = {"pid": 4242, "workspace": "/srv/project", "exit_status": 0,
                "policy_digest": "sha256:0123"}
        records = [
            dict(base, time_unix_ms=1764680000000, command=["curl", "https://github.com"],
                 network={"policy": {"allow": ["github.com"], "deny": []}, "audit": audit,
                          "allowed": 1, "refused": 1}),
            dict(base, time_unix_ms=1764680100000, command=["make"], network={"policy": "closed"}),
        ]
        with open(os.path.join(state, "launches.jsonl"), "w", encoding="utf-8") as f:
            f.writelines(json.dumps(r) + "\n" for r in records)
        self.open_page()
        # Newest first: the closed launch, then the allow-list one.
        launches = self.read(lambda: self.browser.find_elements("css selector", "#launches-table > tbody > tr.launch"))
        self.assertEqual(len(launches), 2)
        self.assertIn("closed", launches[0].find_elements("css selector", "td")[4].text)
        network = launches[1].find_elements("css selector", "td")[4]
        self.assertIn("allow-list: 1 allowed, 1 refused", network.text)
        toggle = network.find_element("css selector", "button")
        self.assertEqual(toggle.get_attribute("aria-expanded"), "false")
        rows = "#launches-table tr.connections-row table.connections tbody tr"
        self.assertFalse(any(r.is_displayed() for r in self.browser.find_elements("css selector", rows)))
        toggle.click()
        self.wait(lambda: toggle.get_attribute("aria-expanded") == "true", "the connections shown")
        shown = self.read(lambda: [[c.text for c in r.find_elements("css selector", "th, td")]
                                   for r in self.browser.find_elements("css selector", rows) if r.is_displayed()])
        self.assertEqual(len(shown), 2, shown)
        allowed, refused = shown
        self.assertEqual(allowed[1:], ["connect", "github.com:443", "github.com", "140.82.121.4", "allowed",
                                       "—", "github.com (user)"])
        # Refused, in words: its verdict and the reason it was refused.
        self.assertEqual(refused[1:], ["http", "evil.example:80", "—", "—", "refused",
                                       "evil.example:80 is not on the allow-list", "—"])
        self.assertIn(audit, self.text("launches-table"))

    # ---- history and a way back ------------------------------------------------

    def test_history_of_saves_and_a_way_back(self):
        self.open_page()
        for revision, network in ((1, "closed"), (2, "open")):
            self.service.cli("settings", "set", "tools.executionSandbox.network", f'"{network}"')
            self.wait(lambda: self.loaded_revision() == revision, f"revision {revision} shown")
        revision_1 = '#history-table .history-load[data-revision="1"]'
        self.wait(lambda: len(self.browser.find_elements("css selector", "#history-table .history-load")) == 1
                  and len(self.browser.find_elements("css selector", revision_1)) == 1,
                  "revision 1 offered")
        rows = self.read(lambda: [row.text for row in self.by_id("history-table").find_elements("css selector", "tbody tr")])
        self.assertIn("tools.executionSandbox.network", rows[0])
        self.assertTrue(rows[0].startswith("2"), rows)
        self.assertTrue(rows[1].startswith("1"), rows)
        # The table is drawn again when the save's event arrives: find and
        # click in one step, again if the row was replaced meanwhile.
        def load_revision_1():
            found = self.browser.find_elements("css selector", revision_1)
            if not found:
                return False
            found[0].click()
            return True
        self.wait(load_revision_1, "revision 1 loaded")
        self.wait(lambda: self.by_id("network").get_attribute("value") == "closed", "revision 1 in the form")
        self.assertIn("Save makes it revision 3", self.status_text())
        self.by_id("save").click()
        self.wait(lambda: "Saved" in self.status_text(), "saved")
        on_disk = self.service.read_user_file()
        self.assertEqual(on_disk["tools"]["executionSandbox"]["network"], "closed")
        self.assertEqual(on_disk["$revision"], 3)

    # ---- a phone-sized screen ---------------------------------------------------

    def test_paths_read_at_390_px(self):
        long = "/srv/projects/" + "a-very-long-directory-name" * 3
        self.service.cli("settings", "set", "tools.executionSandbox",
                         json.dumps({"filesystem": {":root": "read", long: "write"}}))
        self.browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
        self.open_page()
        narrow = self.js("""
            return [...document.querySelectorAll('td.path, th.path')]
              .filter((e) => e.getClientRects().length > 0 && e.textContent.length > 20)
              .map((e) => ({text: e.textContent.slice(0, 40), width: e.getBoundingClientRect().width}))
              .filter((cell) => cell.width < 250);""")
        self.assertEqual(narrow, [], "paths squeezed into narrow columns at 390 px")
        overflow = self.js("return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        self.assertEqual(overflow, 0)


if __name__ == "__main__":
    unittest.main()
