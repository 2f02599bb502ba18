"""The README's generated blocks: text that a command prints, kept verbatim between two markers.

A block looks like this in README.md (the command is run from the repository's root; ``autodup`` means
``python -m autodup`` with this checkout's package, ``python`` this interpreter)::

    <!-- output of: autodup check configs/set4.yaml -->
    ...exactly what the command prints...
    <!-- end of output -->

``tests/test_readme.py`` reruns every block's command and fails when the README no longer shows what the code
prints (a seeded table gone stale). ``python -m tests.readme_blocks`` rewrites every block from its command.
Only deterministic output belongs in a block: seeded runs and validations, never timings.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCK = re.compile(r"<!-- output of: (?P<command>.+?) -->\n(?P<body>.*?)<!-- end of output -->", re.S)


def blocks(text: str) -> list:
    """``(command, body)`` of every generated block, in order."""
    return [(match.group("command"), match.group("body")) for match in BLOCK.finditer(text)]


def render(command: str) -> str:
    """What ``command`` prints, as the block's body (a fenced block keeps its fences)."""
    words = shlex.split(command)
    if words[0] == "autodup":
        words = [sys.executable, "-m", "autodup", *words[1:]]
    elif words[0] == "python":
        words = [sys.executable, *words[1:]]
    result = subprocess.run(words, capture_output=True, text=True, cwd=ROOT, timeout=1800,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    output = (result.stdout + result.stderr).strip("\n")
    return output + "\n"


def fenced(body: str) -> bool:
    return body.startswith("```")


def expected_body(command: str, body: str) -> str:
    output = render(command)
    return f"```\n{output}```\n" if fenced(body) else output


def update() -> int:
    """Rewrite every block of README.md from its command; returns how many changed."""
    text = README.read_text()
    changed = 0

    def replace(match):
        nonlocal changed
        body = expected_body(match.group("command"), match.group("body"))
        changed += body != match.group("body")
        return f"<!-- output of: {match.group('command')} -->\n{body}<!-- end of output -->"

    README.write_text(BLOCK.sub(replace, text))
    return changed


if __name__ == "__main__":
    print(f"{update()} block(s) of README.md rewritten")
