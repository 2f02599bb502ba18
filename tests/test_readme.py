"""Every generated block of the README and of docs/ shows what its command prints today (see tests/readme_blocks.py)."""

import pytest

from .readme_blocks import all_blocks, expected_body

BLOCKS = all_blocks()


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
