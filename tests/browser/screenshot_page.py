"""Takes a PNG of the settings page on demo settings (scripts/screenshot-page.sh).

The real holdfast serve in a temp directory, settings saved with the real
CLI (a split policy, permission rules, an unknown key that the page shows as
a warning at its line and column, a workspace scope with a key it may not
set), two real launches for the launch records, then the whole page.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import holdfast_page  # noqa: E402


def demo_settings(service):
    workspace = os.path.join(service.dir, "home", "project")
    os.makedirs(os.path.join(workspace, ".holdfast"))
    os.makedirs(os.path.join(workspace, ".git"))  # the policy keeps it read-only
    os.makedirs(os.path.join(service.dir, "home", ".ssh"))
    with open(os.path.join(workspace, ".holdfast", "settings.json"), "w", encoding="utf-8") as f:
        f.write('{\n  "permissions": {"deny": ["WebFetch"]},\n'
                '  "tools": {"executionSandbox": {"network": "open"}}\n}\n')
    service.cli("settings", "set", "--scope", "system-defaults", "permissions.deny",
                '["Bash(rm -rf:*)"]')
    service.cli("settings", "set", "tools.executionSandbox", json.dumps({
        "filesystem": {":root": "read", ":workspace": "write", ":workspace/.git": "read",
                       "~/.ssh": "deny"},
        "network": "closed", "unixSockets": "pairs"}))
    service.cli("settings", "set", "permissions.allow", '["Read", "Bash(git status)"]')
    service.cli("settings", "set", "permissions.ask", '["Edit"]')
    service.cli("settings", "set", "editor.fontSize", "14")
    for command in (["true"], ["sh", "-c", "exit 3"]):
        try:
            service.cli("run", "--", *command, cwd=workspace)
        except RuntimeError as e:  # a failed command still leaves its record
            if "exited 3" not in str(e):
                print(f"screenshot-page: no launch record ({e})", file=sys.stderr)
    return workspace


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "docs/page.png"
    holdfast = os.environ.get("HOLDFAST_BINARY", "build/cli/holdfast")
    from selenium.webdriver.support.ui import WebDriverWait

    service = holdfast_page.Service(holdfast)
    browser = holdfast_page.start_chromium(1280, 900)
    try:
        workspace = demo_settings(service)
        browser.get(service.url)
        wait = WebDriverWait(browser, 30)
        wait.until(lambda b: b.execute_script("return document.body.dataset.ready") == "yes")
        field = browser.find_element("id", "workspace")
        field.send_keys(workspace)
        field.submit()
        wait.until(lambda b: "workspace (" in b.find_element("id", "scope").text)
        wait.until(lambda b: b.find_element("id", "connection").get_attribute("data-live") == "yes")
        browser.find_element("css selector", "#explain-form button").click()
        wait.until(lambda b: b.find_element("id", "explain-output").is_displayed())
        browser.execute_script("window.scrollTo(0, 0); document.activeElement.blur()")
        height = browser.execute_script("return document.documentElement.scrollHeight")
        # The whole page in one picture: a viewport as tall as the page.
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": False})
        wait.until(lambda b: b.execute_script("return window.innerHeight") >= height - 1)
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        if not browser.save_screenshot(out):
            raise RuntimeError("the screenshot could not be written to " + out)
        print(f"screenshot-page: wrote {out} (1280 x {height})")
    finally:
        browser.quit()
        service.stop()


if __name__ == "__main__":
    main()
