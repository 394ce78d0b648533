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
        from selenium.webdriver.support.ui import WebDriverWait

        return WebDriverWait(self.browser, WAIT).until(lambda _: condition(), message=what)

    def js(self, script, *args):
        return self.browser.execute_script(script, *args)

    def by_id(self, element_id):
        return self.browser.find_element("id", element_id)

    def open_page(self):
        """Opens the printed URL (which sets the token cookie and redirects
        to /) and waits until the page has loaded the settings and follows
        the event stream."""
        self.browser.get(self.service.url)
        self.wait(lambda: self.js("return document.body.dataset.ready") == "yes", "page ready")
        self.wait(lambda: self.by_id("connection").get_attribute("data-live") == "yes",
                  "event stream live")
        self.assertNotIn("token=", self.browser.current_url)
        # Nothing the page does is refused by its own Content-Security-Policy
        # or fails to load (messages of this service's origin only: an
        # earlier test's page may still log about its stopped service).
        severe = [e["message"] for e in self.browser.get_log("browser")
                  if e["level"] == "SEVERE" and self.service.origin in e["message"]]
        self.assertEqual(severe, [])

    def select(self, element_id, value):
        from selenium.webdriver.support.ui import Select

        Select(self.by_id(element_id)).select_by_value(value)

    def loaded_revision(self):
        return int(self.by_id("edit-form").get_attribute("data-revision"))

    def status_text(self):
        return self.by_id("status").text

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
        # Without the token the page is not served.
        import urllib.request
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(self.service.origin + "/")
        self.assertEqual(refused.exception.code, 401)

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
        rows = self.by_id("conflict-table").find_elements("css selector", "tbody tr")
        return [[cell.text for cell in row.find_elements("css selector", "th, td")]
                for row in rows]

    def test_conflict_reload(self):
        self.service.cli("settings", "set", "tools.executionSandbox.network", '"closed"')
        self.edit_then_cli_save("permissions.deny", '["Bash(rm:*)"]')
        self.assertIn(["permissions.deny", "(not set)", '["Bash(rm:*)"]'], self.conflict_rows())
        on_disk = self.service.read_user_file()
        self.assertEqual(on_disk["tools"]["executionSandbox"]["network"], "closed")
        self.by_id("conflict-reload").click()
        # Theirs in the form, mine gone, nothing written.
        self.wait(lambda: not self.by_id("conflict").is_displayed(), "conflict view closed")
        self.assertEqual(self.by_id("network").get_attribute("value"), "closed")
        self.assertEqual(self.by_id("perm-deny").get_attribute("value"), "Bash(rm:*)")
        self.assertEqual(self.loaded_revision(), on_disk["$revision"])
        self.assertEqual(self.service.read_user_file(), on_disk)

    def test_conflict_overwrite(self):
        self.service.cli("settings", "set", "tools.executionSandbox.network", '"closed"')
        self.edit_then_cli_save("permissions.ask", '["Edit"]')
        self.assertIn(["permissions.ask", "(not set)", '["Edit"]'], self.conflict_rows())
        theirs = self.service.read_user_file()
        self.by_id("conflict-overwrite").click()
        self.wait(lambda: "Saved" in self.status_text(), "the page says it saved")
        # Mine over theirs, at the revision after theirs.
        mine = self.service.read_user_file()
        self.assertEqual(mine["tools"]["executionSandbox"]["network"], "open")
        self.assertNotIn("permissions", mine)
        self.assertEqual(mine["$revision"], theirs["$revision"] + 1)
        self.assertFalse(self.by_id("conflict").is_displayed())

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
        effective = self.by_id("effective-table").text
        self.assertIn("tools.executionSandbox.network open user", effective)
        self.assertTrue(self.js("return window.sameDocument === true"))

    # ---- (d) values are text --------------------------------------------------

    def test_script_value_stays_text(self):
        hostile = ["<script>window.pwned = 1</script>", '<img src=x onerror="window.pwned = 2">']
        self.service.cli("settings", "set", "permissions.allow", json.dumps(hostile))
        self.service.cli("settings", "set", "launcher.<b>bold</b>", '"<i>x</i>"')
        self.open_page()
        cells = [c.text for c in self.by_id("effective-table").find_elements("css selector", "td, th")]
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
        self.assertIn("must be absolute", self.by_id("split-error").text)
        self.assertEqual(path.accessible_name.strip() != "", True)
        raw = self.by_id("raw")
        raw.clear()
        raw.send_keys('{"launcher": {"launchRecords": "yes"}}')
        self.wait(lambda: raw.get_attribute("aria-invalid") == "true", "raw JSON marked invalid")
        self.assertIn("launcher.launchRecords: expected boolean", self.by_id("raw-error").text)
        self.by_id("save").click()
        self.wait(lambda: "Not saved" in self.status_text(), "the save refused")
        self.assertFalse(os.path.exists(self.service.user_file))

    def test_invalid_file_shown_with_line_and_column(self):
        with open(self.service.user_file, "w", encoding="utf-8") as f:
            f.write('{\n  "tools": {"executionSandbox": {"network": "clsed"}}\n}\n')
        self.open_page()
        where = f"{self.service.user_file}:2:45"
        self.assertIn(where + " error: at tools.executionSandbox.network", self.by_id("scopes-table").text)
        self.assertIn(where, self.by_id("scope-invalid").text)
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
            self.open_page()
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


if __name__ == "__main__":
    unittest.main()
