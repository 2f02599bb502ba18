"""Every generated block of the README and of docs/ shows what its command prints today (see tests/readme_blocks.py)."""

import pytest

from . import readme_blocks
from .readme_blocks import all_blocks, expected_body, figures_after_blocks

BLOCKS = all_blocks()
# Figures in the prose after a block that are not the block's: (document, figure) -> where they come from.
NOT_FROM_THE_BLOCK = {
    ("README.md", "3.36"): "benchmarks/bench_value.py's evaluation boards",
    ("README.md", "3.10"): "benchmarks/bench_value.py's evaluation boards",
    ("docs/guide/check.md", "100,000"): "the loader's limit on a file's values",
    ("docs/guide/check.md", "1.1"): "YAML's version",
}


def test_the_docs_have_generated_blocks():
    commands = [command for _, command, _ in BLOCKS]
    assert any("bot_strengths.py" in command for command in commands)
    assert any(command.startswith("autodup check") for command in commands)
    assert any(document == "README.md" for document, _, _ in BLOCKS)


@pytest.mark.parametrize("document, command, body", BLOCKS,
                         ids=[f"{document}: {command}" for document, command, _ in BLOCKS])
def test_a_generated_block_is_what_its_command_prints(document, command, body):
    assert body == expected_body(command, body), (
        f"{document} is stale for `{command}`: run `python -m tests.readme_blocks` and check the difference")


def test_a_block_is_fenced_unless_it_prints_markdown():
    """A command's plain output between the markers would render as one paragraph of prose: it needs its fences.
    Only a command that prints Markdown (a table) stands unfenced."""
    for document, command, body in BLOCKS:
        assert body.startswith("```") or body.startswith("|"), (document, command)

def stale_quotes(entries):
    """``(document, command, figure)`` for each figure of the prose after a block that the block does not show, and
    how many figures were checked."""
    stale, checked = [], 0
    for document, command, body, figures in entries:
        for figure in figures:
            if (document, figure) not in NOT_FROM_THE_BLOCK:
                checked += 1
                if figure not in body:
                    stale.append((document, command, figure))
    return stale, checked


def test_the_prose_after_a_block_quotes_the_figures_it_shows():
    """A sentence after a block that quotes it ("worth 2,174 independent games against 1,670 raw") is not rerun
    with the block: each figure in it must still be one the block shows (reword it from the block if not)."""
    stale, checked = stale_quotes(figures_after_blocks())
    assert stale == []
    assert checked >= 8  # the README's A/B paragraph and the agents guide's interval sizes, at least


def test_the_figures_check_catches_a_stale_quote(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    block = "```\nworth 2,174 games, 0.414 places\n```\n"
    page.write_text(f"<!-- output of: autodup x -->\n{block}<!-- end of output -->\n\n"
                    "Above, 2,218 games and 0.414 places; `code 9.99` is code.\n\n# Next\n\nLater 1.5.\n")
    monkeypatch.setattr(readme_blocks, "documents", lambda: [page])
    monkeypatch.setattr(readme_blocks, "name_of", lambda path: path.name)
    entries = readme_blocks.figures_after_blocks()
    assert entries == [("page.md", "autodup x", block, ["2,218", "0.414"])]
    assert stale_quotes(entries) == ([("page.md", "autodup x", "2,218")], 2)
