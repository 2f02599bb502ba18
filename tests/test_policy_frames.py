"""A policy is called with a frame that locates its arrays: every value and every shape must arrive as they are."""

import numpy as np
import pytest

from autodup.game.actions import ACTION_BUY, decode_decision
from autodup.game.bot_loading import load_bot
from autodup.game.policy_frames import FRAME_OFFSETS, FRAME_SIGNATURE, FRAME_WORDS
from autodup.game.resumable import call_policy
from autodup.game.view import MEMORY_SIZE, POLICY_SIGNATURE

# Reads one element of every array, at a place that depends on its shape, and every extent: a frame whose words are
# shifted, swapped or missing a dimension gives another total (or an index error: bounds are checked).
_CHECKSUM = '''"""checksum: buys "slot" sum of what it reads (a test of the frames)."""
from autodup.bots import buy, policy

NAME = "checksum"
DESCRIPTION = "Reads every array it is handed."
PARAMETERS = {"a": 0.0, "b": 0.0, "c": 0.0}


@policy
def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
           memory):
    total = me[3] + 2 * shop[shop.shape[0] - 1] + 3 * unit_champion[4] + 5 * unit_star[unit_star.shape[0] - 1]
    total += 7 * int(pool[pool.shape[0] - 2]) + 11 * champion_cost[9]
    total += 13 * champion_traits[champion_traits.shape[0] - 1, champion_traits.shape[1] - 2]
    total += 17 * trait_breakpoints[trait_breakpoints.shape[0] - 2, trait_breakpoints.shape[1] - 1]
    total += 19 * int(params[params.shape[0] - 1]) + 23 * memory[memory.shape[0] - 1]
    total += 29 * (me.shape[0] + shop.shape[0] + unit_champion.shape[0] + unit_star.shape[0])
    total += 31 * (pool.shape[0] + champion_cost.shape[0] + champion_traits.shape[0] + champion_traits.shape[1])
    total += 37 * (trait_breakpoints.shape[0] + trait_breakpoints.shape[1] + params.shape[0] + memory.shape[0])
    memory[0] += 1
    return buy(total)
'''


@pytest.fixture(scope="module")
def checksum_bot(tmp_path_factory):
    path = tmp_path_factory.mktemp("frames") / "checksum.py"
    path.write_text(_CHECKSUM)
    return load_bot(str(path))


def _arrays(generator, champions=41, slots=7, capacity=13, traits=17):
    """Arrays of POLICY_SIGNATURE's types, of sizes unlike the game's, with values drawn at random."""
    def whole(shape):
        return generator.integers(0, 50, size=shape).astype(np.int64)
    return (whole(64), whole(slots), whole(capacity), whole(capacity), whole(champions).astype(np.float64),
            whole(champions), whole((champions, 3)), whole((traits, 4)), whole(3).astype(np.float64),
            np.zeros(MEMORY_SIZE, dtype=np.int64))


def test_the_frame_layout_follows_the_policy_signature():
    words = [1 + array.ndim for array in POLICY_SIGNATURE.args]
    assert FRAME_OFFSETS == tuple(np.cumsum([0] + words[:-1]))
    assert FRAME_WORDS == sum(words)
    assert FRAME_SIGNATURE.args[0].dtype.bitwidth == 64


@pytest.mark.parametrize("seed", range(5))
def test_a_policy_called_through_its_frame_reads_what_decide_reads_from_python(checksum_bot, seed):
    arrays = _arrays(np.random.default_rng(seed), champions=30 + seed, slots=5 + seed, traits=10 + 3 * seed)
    *inputs, memory = arrays
    memory[-1] = seed + 1
    expected = checksum_bot.policy.__wrapped__(*inputs, memory.copy())
    answer = call_policy(checksum_bot.policy, *inputs, memory)
    assert answer == expected
    action, argument = decode_decision(answer)
    assert action == ACTION_BUY and argument > 0
    assert memory[0] == 1  # memory is the caller's array, written through the frame


def test_an_array_that_is_not_contiguous_cannot_be_put_in_a_frame(checksum_bot):
    inputs = list(_arrays(np.random.default_rng(9)))
    inputs[1] = np.arange(14, dtype=np.int64)[::2]  # the shop, every other slot: a frame has no strides
    with pytest.raises(Exception, match="C-contiguous"):
        call_policy(checksum_bot.policy, *inputs)


def test_a_policy_outside_a_bot_file_is_not_cached():
    """A ``decide`` decorated in another module (a script, a test) would be cached by numba beside its file, under
    that file's stamp alone: a callback compiled by another version of the package, whose wrapper took other
    arguments, would be loaded. It compiles afresh instead; a bot file's policy is cached under the fingerprint."""
    from numba.core.caching import NullCache

    from autodup.bots import end_turn, policy
    from autodup.compile_cache import is_fingerprinted

    def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits, trait_breakpoints, params,
               memory):
        return end_turn()

    assert isinstance(policy(decide)._cache, NullCache)
    assert is_fingerprinted(load_bot("greedy").policy._cache)
