"""The counter-based generator: known answers, addressing, distribution, seed tree."""

import numpy as np
import pytest
from scipy import stats

from autodup.engine import rng

U = np.uint64

# Random123 tests/kat_vectors, the three "philox4x32 10" lines: counter (4 words), key (2 words), output (4 words).
PHILOX_KAT = [
    ((0x00000000, 0x00000000, 0x00000000, 0x00000000), (0x00000000, 0x00000000),
     (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF),
     (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


def reference_philox4x32_10(counter, key):
    """Philox4x32-10 written from the paper, on Python ints (independent of the jitted one)."""
    mask = 0xFFFFFFFF
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for round_index in range(10):
        if round_index:
            k0 = (k0 + 0x9E3779B9) & mask
            k1 = (k1 + 0xBB67AE85) & mask
        p0 = 0xD2511F53 * c0
        p1 = 0xCD9E8D57 * c2
        c0, c1, c2, c3 = (p1 >> 32) ^ c1 ^ k0, p1 & mask, (p0 >> 32) ^ c3 ^ k1, p0 & mask
    return c0, c1, c2, c3


@pytest.mark.parametrize("counter, key, expected", PHILOX_KAT)
def test_philox_known_answers(counter, key, expected):
    got = rng.philox4x32_10(*[U(x) for x in counter], *[U(x) for x in key])
    assert tuple(int(x) for x in got) == expected
    assert reference_philox4x32_10(counter, key) == expected


def test_address_layout_matches_the_documented_formula():
    generator = np.random.default_rng(1)
    for _ in range(200):
        seed, stream, counter = (int(x) for x in generator.integers(0, 2**64, size=3, dtype=np.uint64))
        words = reference_philox4x32_10(
            (counter & 0xFFFFFFFF, counter >> 32, stream & 0xFFFFFFFF, stream >> 32),
            (seed & 0xFFFFFFFF, seed >> 32))
        bits = words[0] | (words[1] << 32)
        assert int(rng.random_bits(U(seed), U(stream), U(counter))) == bits
        assert rng.random_uniform(U(seed), U(stream), U(counter)) == (bits >> 11) * 2.0**-53


def test_exponential_is_minus_log1p_minus_u_within_one_ulp():
    generator = np.random.default_rng(2)
    bits = generator.integers(0, 2**64, size=300_000, dtype=np.uint64, endpoint=False)
    edges = np.array([0, 1 << 11, (2**53 - 1) << 11, 2**52 << 11, (2**53 - 2) << 11, 2**63, 2**64 - 1],
                     dtype=np.uint64)
    bits = np.concatenate([edges, bits])
    got = np.array([rng.exponential_from_bits(b) for b in bits[:2000]])
    got = np.concatenate([got, _exponentials(bits[2000:])])
    u = (bits >> U(11)).astype(np.float64) * 2.0**-53
    expected = -np.log1p(-u)
    assert got[0] == 0.0 and expected[0] == 0.0
    ulps = np.abs(got - expected) / np.spacing(np.where(expected > 0, expected, 1.0))
    assert ulps.max() <= 1.0
    assert got.max() == pytest.approx(53 * np.log(2), rel=1e-15)


def _exponentials(bits):
    from numba import njit

    @njit
    def apply(values):
        out = np.empty(values.shape[0])
        for i in range(values.shape[0]):
            out[i] = rng.exponential_from_bits(values[i])
        return out

    return apply(bits)


def test_uniforms_are_uniform_and_exponentials_exponential():
    u = rng.uniforms(12345, 7, 0, 400_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    counts = np.bincount((u * 100).astype(np.int64), minlength=100)
    assert stats.chisquare(counts).pvalue > 1e-6
    assert stats.kstest(u, "uniform").pvalue > 1e-6
    e = -np.log1p(-u)
    assert stats.kstest(e, "expon").pvalue > 1e-6
    assert abs(e.mean() - 1.0) < 5 / np.sqrt(e.size)


@pytest.mark.parametrize("what", ["seed", "stream", "counter"])
def test_adjacent_addresses_give_independent_values(what):
    """Seeds (streams, counters) differing by one: no correlation, uniform joint distribution."""
    n = 100_000
    base = np.arange(n, dtype=np.uint64) * U(1_000_003)
    first = np.empty(n)
    second = np.empty(n)
    for i in range(n):
        address = [U(77), U(5), U(9)]
        index = {"seed": 0, "stream": 1, "counter": 2}[what]
        address[index] = base[i]
        first[i] = rng.random_uniform(*address)
        address[index] = base[i] + U(1)
        second[i] = rng.random_uniform(*address)
    assert abs(np.corrcoef(first, second)[0, 1]) < 5 / np.sqrt(n)
    joint = np.bincount((first * 10).astype(int) * 10 + (second * 10).astype(int), minlength=100)
    assert stats.chisquare(joint).pvalue > 1e-6
    # The bits themselves: each bit of the XOR of the two values is a fair coin.
    m = 20_000
    ones = np.zeros(64, dtype=np.int64)
    for i in range(m):
        address = [U(77), U(5), U(9)]
        address[index] = U(i)
        a = int(rng.random_bits(*address))
        address[index] = U(i + 1)
        x = a ^ int(rng.random_bits(*address))
        ones += np.array([(x >> b) & 1 for b in range(64)], dtype=np.int64)
    assert np.all(np.abs(ones - m / 2) < 5 * np.sqrt(m * 0.25))


def test_seed_tree_is_deterministic_and_collision_free():
    boards = [rng.board_seed(2026, b) for b in range(2000)]
    seats = [rng.seat_seed(g, s) for g in boards[:200] for s in range(8)]
    tables = [rng.table_seed(g, t) for g in boards[:200] for t in range(8)]
    events = [rng.event_seed(g, k) for g in boards[:200] for k in range(4)]
    everything = boards + seats + tables + events
    assert len(set(everything)) == len(everything)
    assert all(0 <= s < 2**64 for s in everything)
    assert rng.board_seed(2026, 5) == boards[5]
    assert rng.board_seed(2027, 5) != boards[5]
    # Derivation is the documented address.
    assert rng.derive_seed(11, rng.LABEL_SEAT, 3) == int(rng.random_bits(U(11), U(rng.DERIVE_DOMAIN + rng.LABEL_SEAT), U(3)))


@pytest.mark.parametrize("bad", [-1, 2**64, 1.5, "3", None, True])
def test_bad_seeds_are_rejected(bad):
    with pytest.raises(ValueError, match="seed"):
        rng.check_seed(bad)
    with pytest.raises(ValueError):
        rng.board_seed(bad, 0)


def test_bits_pair_extends_random_bits():
    for seed, stream, counter in [(1, 2, 3), (2**64 - 1, 2**63, 2**40), (0, 0, 0)]:
        first, second = rng.random_bits_pair(U(seed), U(stream), U(counter))
        assert first == rng.random_bits(U(seed), U(stream), U(counter))
        words = reference_philox4x32_10(
            (counter & 0xFFFFFFFF, counter >> 32, stream & 0xFFFFFFFF, stream >> 32),
            (seed & 0xFFFFFFFF, seed >> 32))
        assert int(second) == words[2] | (words[3] << 32)


# --------------------------------------------------------------------------
# domains: every stream has one owner
# --------------------------------------------------------------------------


def test_domains_are_disjoint_and_within_64_bits():
    spans = sorted((domain.first, domain.last, domain.name) for domain in rng.DOMAINS)
    assert spans[0][0] >= 0 and spans[-1][1] < 2**64
    for (_, last, name), (first, _, other) in zip(spans, spans[1:]):
        assert last < first, f"{name} overlaps {other}"
    # Every domain sits under its own top four bits, apart from the needles' (the outcome ids).
    for domain in rng.DOMAINS:
        assert domain.first >> rng.DOMAIN_SHIFT == domain.last >> rng.DOMAIN_SHIFT


def test_every_named_stream_belongs_to_one_domain_and_no_outcome_id_reaches_a_game_stream():
    named = {name: getattr(rng, name) for name in dir(rng) if name.startswith("STREAM_") or name.endswith("_STREAM")}
    assert len(named) == 13 and len(set(named.values())) == len(named)
    for name, stream in named.items():
        owners = [domain.name for domain in rng.DOMAINS if stream in domain]
        assert len(owners) == 1, (name, owners)
        assert rng.domain_of(stream).name != "needles"
    largest_outcome = rng.MAX_OUTCOMES - 1
    assert rng.domain_of(largest_outcome).name == "needles" and rng.domain_of(0).name == "needles"
    assert rng.domain_of(rng.KEYED_DOMAIN + (largest_outcome >> 1)).name == "keyed"
    assert rng.domain_of(rng.DERIVE_DOMAIN + rng.LABEL_TRIAL).name == "seed tree"
    assert rng.domain_of(rng.STREAM_BOOTSTRAP).name == "measures"
    with pytest.raises(ValueError, match="no domain"):
        rng.domain_of(rng.GAME_DOMAIN + 1000)
    with pytest.raises(ValueError, match="label"):
        rng.derive_seed(1, rng.MAX_LABEL, 0)


def test_game_counter_layouts_never_meet():
    """Event counters of consecutive rounds, shop keys of consecutive shops and rounds, and loot keys, as named."""
    assert rng.event_counter(0, rng.EVENT_GHOST_INDEX) < rng.event_counter(1, 0)
    assert rng.shop_key(0, 0, rng.KEY_SLOTS_PER_ROLL - 1) < rng.shop_key(0, 1, 0)
    assert rng.shop_key(0, rng.KEY_ROLLS_PER_ROUND - 1, rng.KEY_SLOTS_PER_ROLL - 1) < rng.shop_key(1, 0, 0)
    last_shop = rng.shop_key(rng.MAX_ROUNDS - 1, rng.KEY_ROLLS_PER_ROUND - 1, rng.KEY_SLOTS_PER_ROLL - 1)
    assert last_shop < rng.loot_key(0) == rng.LOOT_KEY_BASE
    rng.check_game_layout(rng.MAX_ROUNDS, 8, rng.KEY_SLOTS_PER_ROLL, rng.KEY_ROLLS_PER_ROUND)
    for args, name in (((rng.MAX_ROUNDS + 1, 8, 5, 65), "max_rounds"), ((60, rng.EVENT_GHOST_INDEX + 1, 5, 65),
                       "players"), ((60, 8, rng.KEY_SLOTS_PER_ROLL + 1, 65), "shop size"),
                       ((60, 8, 5, rng.KEY_ROLLS_PER_ROUND + 1), "shops per round")):
        with pytest.raises(ValueError, match=name):
            rng.check_game_layout(*args)


def test_a_config_whose_rounds_would_alias_is_refused():
    import dataclasses
    from pathlib import Path

    from autodup.errors import ConfigError
    from autodup.game.config import load_config
    from autodup.game.rules import rules_of

    config = load_config(Path(__file__).resolve().parents[1] / "configs" / "tiny.yaml")
    with pytest.raises(ConfigError, match="max_rounds .* beyond the random-number layout"):
        rules_of(dataclasses.replace(config, max_rounds=rng.MAX_ROUNDS + 1))


def test_loot_order_and_shop_timing_are_independent_at_a_haystack_seat():
    """The loot bag's shuffle and the haystack's needles share a seat seed; their values must be unrelated.

    Before the domains, the loot bag read stream 5 under the seat seed, which is needle 5's stream: the bag's
    last swap used the uniform behind needle 5's second arrival. Here, over many seats, the first loot item
    (two items in the bag: decided by that swap) against how often outcome 5 wins the first draws of a race
    between outcomes 5 and 6: a chi-square test of independence.
    """
    from pathlib import Path

    from autodup import Haystack
    from autodup.game.config import parse_config
    from autodup.game.rules import rules_of
    from autodup.game.table import loot_items

    text = (Path(__file__).resolve().parents[1] / "configs" / "tiny.yaml").read_text()
    three_items = "    - {gold: 1}\n    - {gold: 2}\n    - {unit: 1}\n"
    assert three_items in text
    rules = rules_of(parse_config(text.replace(three_items, "    - {gold: 1}\n    - {gold: 2}\n"), "two.yaml"))
    assert rules.loot_gold.shape[0] == 2
    weights = np.zeros(7)
    weights[5] = weights[6] = 1.0
    table = np.zeros((2, 4), dtype=np.int64)
    for seat in range(20_000):
        seed = rng.seat_seed(rng.board_seed(77, seat), 0)
        first_item = int(loot_items(rules, U(seed), 1)[0])
        wins = int(np.sum(Haystack(seed).draw_many(weights.copy(), 3) == 5))
        table[first_item, wins] += 1
    p_value = stats.chi2_contingency(table).pvalue
    assert p_value > 1e-6, table
