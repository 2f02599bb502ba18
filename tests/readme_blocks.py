"""The documentation's generated blocks: text that a command prints, kept verbatim between two markers.

README.md and every page under docs/ may hold blocks like this one (the markers start their lines)::

    <!-- output of: autodup check configs/set4.yaml -->
    ...exactly what the command prints...
    <!-- end of output -->

The command runs in a scratch folder that sees the repository's ``benchmarks/``, ``bots/``, ``configs/``,
``docs/`` and ``tests/`` (linked), so paths read as from the repository's root, and a command that writes a
folder (``autodup run --out runs/example``) plays afresh every time. ``autodup`` means ``python -m autodup``
with this checkout's package, ``python`` this interpreter. Two things that depend on the machine, not on the
code, are left out of what a command prints: the line saying that the game or the roll odds' simulation is
being compiled (only a cold cache prints it), and the checkout's own folder, shown as ``...``.

``tests/test_readme.py`` reruns every block's command and fails when a page no longer shows what the code
prints (a seeded table gone stale). ``python -m tests.readme_blocks`` rewrites every block from its command.
Only deterministic output belongs in a block: seeded runs and validations, never timings.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from autodup.labs.odds_simulation import COMPILING_ODDS
from autodup.tournament.loading import COMPILE_BAR

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
BLOCK = re.compile(r"^<!-- output of: (?P<command>[^\n]+?) -->\n(?P<body>.*?)^<!-- end of output -->", re.S | re.M)
# What a block's command sees of the repository (its scratch folder links these).
VISIBLE = ("benchmarks", "bots", "configs", "docs", "tests")
# Printed on a cold cache only: what the machine has compiled, not what the code does.
COMPILE_NOTICES = (f"autodup: {COMPILE_BAR}", f"autodup: {COMPILING_ODDS}")


def documents() -> list:
    """README.md, then every Markdown page under docs/, in a fixed order."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def name_of(path: Path) -> str:
    """``path`` relative to the repository (``README.md``, ``docs/guide/run.md``)."""
    return path.relative_to(ROOT).as_posix()


def blocks(text: str) -> list:
    """``(command, body)`` of every generated block of ``text``, in order."""
    return [(match.group("command"), match.group("body")) for match in BLOCK.finditer(text)]


def all_blocks() -> list:
    """``(document name, command, body)`` of every generated block of every document."""
    return [(name_of(path), command, body) for path in documents() for command, body in blocks(path.read_text())]


# A figure as prose quotes one: with a decimal point (0.414, 19.9) or thousands commas (2,174), not a bare count.
FIGURE = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+\.\d+")


def figures_after_blocks() -> list:
    """``(document name, command, body, figures)`` for every generated block: the figures of the prose after it, up
    to the next heading or block, outside code (fenced or inline), in order. Rerunning a block does not touch
    them, so a sentence quoting the block goes stale silently unless something compares the two."""
    found = []
    for path in documents():
        text = path.read_text()
        matches = list(BLOCK.finditer(text))
        for index, match in enumerate(matches):
            prose = text[match.end():matches[index + 1].start() if index + 1 < len(matches) else len(text)]
            heading = re.search(r"^#", prose, re.M)
            prose = prose[:heading.start()] if heading else prose
            prose = re.sub(r"`[^`]*`", "", re.sub(r"```.*?```", "", prose, flags=re.S))
            found.append((name_of(path), match.group("command"), match.group("body"), FIGURE.findall(prose)))
    return found


def render(command: str) -> str:
    """What ``command`` prints, as the block's body (a fenced block keeps its fences)."""
    words = shlex.split(command)
    if words[0] == "autodup":
        words = [sys.executable, "-m", "autodup", *words[1:]]
    elif words[0] == "python":
        words = [sys.executable, *words[1:]]
    with tempfile.TemporaryDirectory(prefix="autodup-block-") as scratch:
        for name in VISIBLE:
            if (ROOT / name).exists():
                os.symlink(ROOT / name, Path(scratch) / name)
        result = subprocess.run(words, capture_output=True, text=True, cwd=scratch, timeout=1800,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
        output = result.stdout + result.stderr
        for folder in sorted({scratch, os.path.realpath(scratch), str(ROOT)}, key=len, reverse=True):
            output = output.replace(folder, "...")
    # A cold start's compile bar redraws its line with carriage returns: what follows the last one is the line.
    lines = [line.rsplit("\r", 1)[-1] for line in output.split("\n")]
    lines = [line for line in lines if not line.startswith(COMPILE_NOTICES)]
    return "\n".join(lines).strip("\n") + "\n"


def fenced(body: str) -> bool:
    return body.startswith("```")


def expected_body(command: str, body: str) -> str:
    output = render(command)
    return f"```\n{output}```\n" if fenced(body) else output


def update_document(path: Path) -> int:
    """Rewrite every block of ``path`` from its command; returns how many changed."""
    text = path.read_text()
    changed = 0

    def replace(match):
        nonlocal changed
        body = expected_body(match.group("command"), match.group("body"))
        changed += body != match.group("body")
        return f"<!-- output of: {match.group('command')} -->\n{body}<!-- end of output -->"

    updated = BLOCK.sub(replace, text)
    if updated != text:
        path.write_text(updated)
    return changed


def update() -> int:
    """Rewrite every block of README.md and docs/ from its command; returns how many changed."""
    total = 0
    for path in documents():
        if BLOCK.search(path.read_text()):
            changed = update_document(path)
            print(f"{name_of(path)}: {changed} block(s) rewritten")
            total += changed
    return total


if __name__ == "__main__":
    print(f"{update()} block(s) rewritten in all")
