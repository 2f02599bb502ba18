"""The README stays short and its links work; the docs site under docs/ builds with no broken link."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .browser import render

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_README_LINES = 300
# [text](target) and ![alt](target), the target up to a space (a title) or the closing parenthesis.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def relative_links(text: str) -> list:
    """The links of ``text`` that point into the repository (not a URL, not a page's own anchor)."""
    targets = [match.group(1) for match in LINK.finditer(text)]
    return [target for target in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I)
            and not target.startswith("#")]


def test_the_readme_is_short():
    lines = len(README.read_text().splitlines())
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines (at most {MAX_README_LINES}: the rest goes to docs/)"


def test_every_relative_link_of_the_readme_points_to_a_file():
    links = relative_links(README.read_text())
    assert any(link.startswith("docs/") for link in links)
    missing = [link for link in links if not (ROOT / link.split("#", 1)[0]).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_the_readme_names_no_file_outside_the_repository():
    text = README.read_text()
    for link in relative_links(text):
        target = (ROOT / link.split("#", 1)[0]).resolve()
        assert target == ROOT or ROOT in target.parents, f"README.md links outside the repository: {link}"
    assert "../" not in text and "..\\" not in text, "README.md names a path outside the repository (../)"
    assert not re.search(r"(?<![\w.])~/", text), "README.md names a path in a home folder (~/)"


def test_the_readme_shows_a_picture_from_docs_images():
    images = [link for link in relative_links(README.read_text()) if link.endswith(".png")]
    assert images and all(image.startswith("docs/images/") for image in images)
    assert all((ROOT / image).stat().st_size < 200_000 for image in images)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (python -m pip install mkdocs-material 'mkdocstrings[python]')")
    folder = tmp_path_factory.mktemp("docs") / "site"
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
                            capture_output=True, text=True, cwd=ROOT, timeout=600,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stdout}\n{result.stderr}"
    return folder


def test_the_docs_site_builds_strictly(site):
    assert (site / "index.html").exists() and (site / "api" / "index.html").exists()
    assert not (site / "hooks.py").exists()


def test_the_reference_shows_no_raw_sphinx_roles(site):
    roles = re.compile(r":(class|mod|func|meth|data|attr|exc):<code>")
    for page in site.rglob("*.html"):
        text = page.read_text()
        assert not roles.search(text), f"{page.relative_to(site)} shows a raw role: {roles.search(text).group(0)}"
        assert "::</p>" not in text, f"{page.relative_to(site)} shows a reST '::'"
    api = (site / "api" / "index.html").read_text()
    assert '<a href="#autodup.api.run_tournament"><code>run_tournament</code></a>' in api


def test_a_headless_browser_renders_the_api_page(site, tmp_path):
    dom = render(site / "api" / "index.html", tmp_path / "profile")["dom"]
    # The page as the browser built it: the theme's navigation, the reference of every function, the copy buttons
    # that the theme's script adds to code blocks.
    assert "md-nav" in dom and 'id="autodup.api.run_tournament"' in dom and 'id="autodup.api.sweep"' in dom
    assert "Copy to clipboard" in dom and "js-focus-visible" in dom, "the theme's script did not run (no copy button on the code blocks)"
