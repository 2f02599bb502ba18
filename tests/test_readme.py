"""Every generated block of the README shows what its command prints today (see tests/readme_blocks.py)."""

import pytest

from .readme_blocks import README, blocks, expected_body

BLOCKS = blocks(README.read_text())


def test_the_readme_has_generated_blocks():
    commands = [command for command, _ in BLOCKS]
    assert any("bot_strengths.py" in command for command in commands)
    assert any(command.startswith("autodup check") for command in commands)


@pytest.mark.parametrize("command, body", BLOCKS, ids=[command for command, _ in BLOCKS])
def test_a_generated_block_is_what_its_command_prints(command, body):
    assert body == expected_body(command, body), (
        f"README.md is stale for `{command}`: run `python -m tests.readme_blocks` and check the difference")
