"""What a person sees of a report page: rendered by headless Chromium, read back from the DOM it built.

The pages' script (:mod:`autodup.analysis.pages`) records on ``<body>`` how many
images there are and how many loaded, the bottom of the verdict box and the
screen's height, and the script errors and refused resources it saw; Chromium's
own log gives the console messages. Tests skip where no Chromium is installed
(``.ci/run`` installs Debian's).
"""

import re
import shutil
import subprocess

import pytest

SCREEN = (1280, 900)   # a laptop's browser window: the verdict must be read without scrolling


def find_browser():
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def render(page, profile) -> dict:
    """Render ``page`` (a path) headless at :data:`SCREEN`; ``{attribute: value}`` of its ``<body>`` and the
    console lines Chromium logged (``"console"``)."""
    browser = find_browser()
    if browser is None:
        pytest.skip("no chromium, chromium-browser or google-chrome on PATH (.ci/run installs Debian's chromium)")
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start; a profile of its own per test.
    result = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000",
                             f"--window-size={SCREEN[0]},{SCREEN[1]}", "--enable-logging=stderr", "--v=0",
                             f"--user-data-dir={profile}", "--dump-dom", page.as_uri()],
                            capture_output=True, text=True, timeout=90)
    assert result.returncode == 0, result.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", result.stdout)
    assert body, result.stdout[:500]
    seen = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(1)))
    seen["console"] = [line for line in result.stderr.splitlines() if "CONSOLE" in line]
    seen["dom"] = result.stdout
    return seen


def assert_a_reader_sees_the_verdict(page, profile, images: int) -> dict:
    """Every image loads, no error, and the verdict box ends inside the first screen."""
    seen = render(page, profile)
    assert seen.get("images") == str(images) and seen.get("images-loaded") == str(images), \
        {key: value for key, value in seen.items() if key != "dom"}
    assert seen.get("errors") == "0" and not seen["console"], (seen.get("errors"), seen["console"])
    assert "verdict-bottom" in seen, "the page has no verdict box"
    assert int(seen["verdict-bottom"]) <= int(seen["screen-height"]), (seen["verdict-bottom"], seen["screen-height"])
    return seen
