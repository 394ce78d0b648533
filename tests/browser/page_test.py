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
