"""``autodup odds``: the chain against enumeration, a hand computation and a published calculator's figure; the
game's exact law against enumeration; the simulation against both (holding off and on, every exact dealer),
a wrong dealer caught by the same check; the command's table, JSON, plot and one-line errors."""

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from autodup.engine.dealers import exact_dealers
from autodup.errors import UsageError
from autodup.game.config import load_config, parse_config
from autodup.labs.odds import RollQuestion, chain_odds, game_odds, held_by_other_shops, resolve
from autodup.labs.odds_simulation import roll_odds, simulate_odds, simulation_method
from autodup.shipped import config_file, config_names
from tests.stats_helpers import P_FLOOR, goodness_of_fit, same_distribution

ROOT = Path(__file__).resolve().parents[1]
SET4 = load_config(config_file("set4"))
TINY = load_config(config_file("tiny"))
SIGMAS = 4.5  # a correct simulation strays this far from the exact value with probability about 7e-6 per value


def run(*args):
    return subprocess.run([sys.executable, "-m", "autodup", *args], capture_output=True, text=True, timeout=600,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})


def merged_tail(counts, probabilities, trials, min_expected=5.0):
    """Counts and probabilities with the top values merged until the last bin expects ``min_expected`` trials (the
    chi-square approximation needs it)."""
    counts, probabilities = list(counts), list(probabilities)
    while len(probabilities) > 2 and probabilities[-1] * trials < min_expected:
        # Popped first: in `counts[-2] += counts.pop()` the index is read before the pop and written after it, so the
        # sum landed one bin too low (the next-to-last bin was lost and the last one kept).
        count, probability = counts.pop(), probabilities.pop()
        counts[-1] += count
        probabilities[-1] += probability
    return counts, probabilities


def test_merged_tail_merges_the_top_bins_into_one():
    counts, probabilities = merged_tail([50, 30, 15, 4, 1], [0.5, 0.3, 0.15, 0.04, 0.01], 100)
    assert counts == [50, 30, 15, 5] and probabilities == pytest.approx([0.5, 0.3, 0.15, 0.05])
    counts, probabilities = merged_tail([50, 30, 15, 4, 1], [0.5, 0.3, 0.15, 0.04, 0.01], 100, min_expected=16)
    assert counts == [50, 30, 20] and probabilities == pytest.approx([0.5, 0.3, 0.2])


def within_sigmas(observed, exact, trials, sigmas=SIGMAS):
    """Whether every simulated P(at least k) is within ``sigmas`` standard errors of the exact one."""
    exact = np.asarray(exact)
    error = np.sqrt(np.maximum(exact * (1 - exact), 1.0 / trials) / trials)
    return np.abs(np.asarray(observed) - exact) <= sigmas * error


# --- the chain ---------------------------------------------------------------------------------------------------


def chain_by_enumeration(s):
    """The chain's law by enumerating every hit/miss pattern of its slots (no matrix power)."""
    slots = s.rolls * s.shop_size
    law = np.zeros(s.looked_for + 1)
    for pattern in itertools.product((0, 1), repeat=slots):
        p, k = 1.0, 0
        for hit in pattern:
            q = s.hit_weight * (s.copies_left - k) / (s.units_left - k) if k < s.looked_for else 0.0
            p *= q if hit else 1 - q
            k += hit
            if p == 0:
                break
        if p > 0:
            law[k] += p
    return law


@pytest.mark.parametrize("question", [
    RollQuestion(level=6, champion="Yuumi", rolls=2),
    RollQuestion(level=9, champion="Azir", copies_out=7, cost_out=30, rolls=3),
    RollQuestion(level=4, champion="Garen", owned=7, rolls=2),
], ids=["yuumi", "depleted-azir", "garen-needs-two"])
def test_chain_matches_enumeration(question):
    s = resolve(SET4, question)
    np.testing.assert_allclose(chain_odds(s), chain_by_enumeration(s), rtol=0, atol=1e-13)


def test_chain_by_hand():
    """Yuumi (3-cost, 18 copies of 13 champions) at level 6 (30% 3-costs), one roll of 5 slots, nothing out."""
    s = resolve(SET4, RollQuestion(level=6, champion="Yuumi", rolls=1))
    assert (s.hit_weight, s.copies_left, s.units_left, s.looked_for) == (0.3, 18, 234, 9)
    p0, p1 = 0.3 * 18 / 234, 0.3 * 17 / 233
    law = chain_odds(s)
    assert law[0] == pytest.approx((1 - p0) ** 5, abs=1e-15)
    # One hit at position i: i misses at p0, the hit, then 4 - i misses at p1.
    assert law[1] == pytest.approx(sum((1 - p0) ** i * p0 * (1 - p1) ** (4 - i) for i in range(5)), abs=1e-15)
    assert law.sum() == pytest.approx(1.0, abs=1e-14)


def test_chain_matches_a_published_calculator():
    """wongkj12's TFT-Rolling-Odds-Calculator (README): a unit at 30% odds in a tier of 13 champions, nothing
    out (Set 4's pool: Yuumi at level 6, or any 2-cost at level 7), two slots. Its one-slot matrix starts
    0.977 / 0.023, and after two slots P(0) = 0.955, P(1) = 0.045 (from the rounded matrix). Its second
    row (0.976 / 0.024) has more copies left after a hit than before (its code adds the hits to the copies
    left), so its P(2) = 0.0006 is not compared; ours is p0 * p1 = 0.0005. The chain is asked for two slots
    by a shop of two (one roll), as the calculator's figure is."""
    two_slots = parse_config(config_file("set4").read_text().replace("  size: 5\n", "  size: 2\n"), "two_slots.yaml")
    assert two_slots.shop_size == 2
    for question in (RollQuestion(level=6, champion="Yuumi", rolls=1), RollQuestion(level=7, champion="Annie",
                                                                                      rolls=1)):
        situation = resolve(two_slots, question)
        p = situation.hit_weight * situation.copies_left / situation.units_left
        assert (round(1 - p, 3), round(p, 3)) == (0.977, 0.023)
        law = chain_odds(situation)
        assert abs(law[0] - 0.955) < 0.001 and abs(law[1] - 0.045) < 0.001
        assert law[2] == pytest.approx(p * situation.hit_weight * (situation.copies_left - 1)
                                       / (situation.units_left - 1), abs=1e-15)


# --- the game's exact law ------------------------------------------------------------------------------------------


def game_by_enumeration(s, copies_left, units_left):
    """One roll's law by enumerating each slot's outcome (the champion, another unit of its tier, anything else)."""
    law = np.zeros(s.looked_for + 1)
    for pattern in itertools.product((0, 1, 2), repeat=s.shop_size):
        p, shown, missed = 1.0, 0, 0
        for outcome in pattern:
            if s.holding:
                copies, units = copies_left - shown, units_left - shown - missed
            else:
                copies, units = copies_left, units_left
            hit = s.hit_weight * copies / units
            miss = s.hit_weight * (units - copies) / units if s.holding else 0.0
            p *= (hit, miss, 1 - hit - miss)[outcome]
            shown += outcome == 0
            missed += outcome == 1
        law[min(shown, s.looked_for, copies_left)] += p
    return law


@pytest.mark.parametrize("holding", [False, True])
def test_game_law_matches_enumeration(holding):
    question = RollQuestion(level=8, champion="Jhin", copies_out=9, cost_out=100, rolls=1)
    s = resolve(SET4, question, holding=holding, other_shops=0)
    assert s.copies_left == 3 and s.units_left == 23
    np.testing.assert_allclose(game_odds(s), game_by_enumeration(s, 3, 23), rtol=0, atol=1e-14)


def test_other_shops_by_hand():
    """Two slots, each holding its unit: [a, b] = copies of the champion and other units of its tier held."""
    w, x, u = 0.25, 2, 10
    law = held_by_other_shops(x, u, 2, w)
    p_hit, p_miss = w * x / u, w * (u - x) / u
    assert law[0, 0] == pytest.approx((1 - w) ** 2)
    assert law[1, 0] == pytest.approx(p_hit * (1 - w) + (1 - w) * p_hit)
    assert law[2, 0] == pytest.approx(p_hit * w * (x - 1) / (u - 1))
    assert law[1, 1] == pytest.approx(p_hit * w * (u - x) / (u - 1) + p_miss * w * x / (u - 1))
    assert law.sum() == pytest.approx(1.0)


def test_the_three_agree_when_the_pool_is_full():
    """With holding off, the game's law differs from the chain only by when hits leave the pool: the chain takes
    each hit out at once, the game when the shop is bought. Coupled slot by slot on one uniform, the two part only
    at a slot after j hits earlier in its shop, where their hit probabilities differ by w j (u - x) / ((u - k)
    (u - k - j)) <= w j (u - x) / (u - L)^2 (k + j <= L found in all). The expected j at slot i is at most
    i w x / u, so no P(at least k) differs by more than rolls x n (n - 1) / 2 x (w x / u) x w (u - x) / (u - L)^2,
    the two laws' total variation bound (0.0041 here; they differ by 0.0011)."""
    s = resolve(SET4, RollQuestion(level=7, champion="Jhin", gold=50), holding=False)
    w, x, u, found, n = s.hit_weight, s.copies_left, s.units_left, s.looked_for, s.shop_size
    bound = s.rolls * n * (n - 1) / 2 * (w * x / u) * w * (u - x) / (u - found) ** 2
    assert bound < 0.01  # a bound that says something: the laws are close
    assert np.abs(np.cumsum(chain_odds(s)) - np.cumsum(game_odds(s))).max() <= bound


# --- the simulation against the exact laws ---------------------------------------------------------------------------

STATES = {  # several levels, costs and depletions
    "garen-3-star": (SET4, RollQuestion(level=4, champion="Garen", owned=3, gold=50)),
    "jhin-contested": (SET4, RollQuestion(level=8, champion="Jhin", copies_out=6, gold=40)),
    "yuumi-depleted": (SET4, RollQuestion(level=6, champion="Yuumi", copies_out=10, cost_out=100, rolls=30)),
    "tiny-3-cost": (TINY, RollQuestion(level=3, champion=TINY.champion_names[-1], copies_out=1, rolls=20)),
}
TRIALS = 40_000


@pytest.mark.parametrize("state", list(STATES))
def test_simulation_without_holding_matches_the_exact_laws(state):
    config, question = STATES[state]
    s = resolve(config, question, holding=False)
    counts = simulate_odds(s, TRIALS, "haystack", seed=1)
    game = game_odds(s)
    assert goodness_of_fit(*merged_tail(counts, game, TRIALS)) > P_FLOOR
    at_least = np.cumsum(counts[::-1])[::-1] / TRIALS
    # The check: the simulation matches the chain within Monte Carlo error.
    assert within_sigmas(at_least, np.cumsum(chain_odds(s)[::-1])[::-1], TRIALS).all()


@pytest.mark.parametrize("dealer", [d.name for d in exact_dealers()])
def test_every_exact_dealer_keeps_the_law(dealer):
    s = resolve(SET4, STATES["yuumi-depleted"][1], holding=True)
    counts = simulate_odds(s, TRIALS, dealer, seed=2)
    assert goodness_of_fit(*merged_tail(counts, game_odds(s), TRIALS)) > P_FLOOR


def test_a_wrong_dealer_is_caught():
    """The replay dealer (planned draws replayed, substituted when gone) fails the same check."""
    s = resolve(SET4, STATES["yuumi-depleted"][1], holding=False)
    counts = simulate_odds(s, 5_000, "replay", seed=1)
    assert goodness_of_fit(*merged_tail(counts, game_odds(s), 5_000)) < 1e-12


def test_holding_on_matches_the_game_and_differs_from_the_chain():
    """Jhin at level 8 with 60 other 4-costs out: the shops holding units cost P(at least 4) about 0.013; the
    simulation agrees with the game's law, and the chain's figure is outside its error."""
    s = resolve(SET4, RollQuestion(level=8, champion="Jhin", cost_out=60, gold=40))
    assert s.holding and s.other_shops == 7
    trials = 100_000
    counts = simulate_odds(s, trials, "haystack", seed=3)
    game = game_odds(s)
    assert goodness_of_fit(*merged_tail(counts, game, trials)) > P_FLOOR
    at_least = np.cumsum(counts[::-1])[::-1] / trials
    assert within_sigmas(at_least, np.cumsum(game[::-1])[::-1], trials).all()
    chain_at_least = np.cumsum(chain_odds(s)[::-1])[::-1]
    assert not within_sigmas(at_least, chain_at_least, trials, sigmas=5).all()


def test_simulation_is_deterministic(monkeypatch):
    s = resolve(SET4, STATES["jhin-contested"][1])
    first = simulate_odds(s, 2_000, "haystack", seed=5)
    np.testing.assert_array_equal(first, simulate_odds(s, 2_000, "haystack", seed=5))
    assert not np.array_equal(first, simulate_odds(s, 2_000, "haystack", seed=6))
    monkeypatch.setattr("autodup.labs.odds_simulation.CHUNK_TRIALS", 300)  # trials are addressed: chunks change nothing
    np.testing.assert_array_equal(first, simulate_odds(s, 2_000, "haystack", seed=5))


# --- the watched draws: the game's shop's counts, trial by trial, faster ----------------------------------------------

WATCHED_STATES = {
    **{name: STATES[name] for name in ("garen-3-star", "jhin-contested", "yuumi-depleted")},
    # 6 Yuumi and 10 other 3-costs left: the shops empty the tier often (the tier race loses it, then gets it back).
    "yuumi-tier-runs-out": (SET4, RollQuestion(level=6, champion="Yuumi", copies_out=12, cost_out=206, rolls=4)),
    "tiny-3-cost": STATES["tiny-3-cost"],
}


def found_by_trial(s, dealer, simulation, trials, seed):
    """The copies found in each of trials ``0 .. trials - 1``, one call per trial."""
    return [int(np.argmax(simulate_odds(s, 1, dealer, seed=seed, simulation=simulation, first_trial=t, threads=1)))
            for t in range(trials)]


def found_by_trial_in_batches(s, dealer, simulation, trials, seed):
    """The copies found in each of trials ``0 .. trials - 1``, each trial played inside a call of all the trials up
    to it (the watched simulation's lanes run up to 32 trials at once): the difference of two calls' counts."""
    before = np.zeros(s.looked_for + 1, dtype=np.int64)
    found = []
    for t in range(trials):
        counts = simulate_odds(s, t + 1, dealer, seed=seed, simulation=simulation, threads=1)
        found.append(int(np.argmax(counts - before)))
        before = counts
    return found


@pytest.mark.parametrize("dealer", [d.name for d in exact_dealers()])
def test_the_watched_draws_find_what_the_games_shop_finds_trial_by_trial(dealer):
    """Dealing only the tier race and the champion's tier (the other tiers' outcomes undrawn, the engine's state
    moved as far as the watched races can see) gives every trial the copies the table's shop gives it: holding on
    and off, other shops held or none, a tier that runs out, and a second configuration."""
    for name, (config, question) in WATCHED_STATES.items():
        for holding, other_shops in ((True, None), (True, 0), (False, None)):
            s = resolve(config, question, holding=holding, other_shops=other_shops)
            if not s.game_exact:
                continue
            game = found_by_trial(s, dealer, "game", 40, seed=11)
            assert found_by_trial(s, dealer, "watched", 40, seed=11) == game, (name, holding, other_shops)
            if dealer == "haystack":  # its lanes: past a batch of 32 trials, each trial of a batch in its lane
                assert found_by_trial_in_batches(s, dealer, "watched", 34, seed=11) == game[:34], (name, holding,
                                                                                                 other_shops)
            assert len(set(game)) > 1, f"{name}: trials that all find the same count would prove little"
            np.testing.assert_array_equal(simulate_odds(s, 1_500, dealer, seed=12, simulation="game", threads=1),
                                          simulate_odds(s, 1_500, dealer, seed=12, simulation="watched", threads=1),
                                          err_msg=f"{name}, holding {holding}, other shops {other_shops}")


def test_the_watched_tier_running_out_is_exercised():
    """The tier-runs-out state empties the champion's tier in many trials (else its test would not reach that rule):
    by the exact law of what the other shops hold, they take all 16 units before the player rolls in over 3% of
    trials, and the simulation keeps the game's law."""
    s = resolve(*WATCHED_STATES["yuumi-tier-runs-out"])
    assert s.game_exact and s.units_left == 16
    held = held_by_other_shops(s.copies_left, s.units_left, s.other_shops * s.shop_size, s.others_hit_weight)
    all_held = sum(held[a, s.units_left - a] for a in range(held.shape[0]) if 0 <= s.units_left - a < held.shape[1])
    assert all_held > 0.03
    game = game_odds(s)
    counts = simulate_odds(s, 5_000, "haystack", seed=3)
    assert goodness_of_fit(*merged_tail(counts, game, 5_000)) > P_FLOOR


def test_which_simulation_runs_and_bad_choices():
    jhin = resolve(SET4, STATES["jhin-contested"][1])
    tiny_holding = resolve(TINY, STATES["tiny-3-cost"][1], holding=True)
    assert not tiny_holding.game_exact  # its other tiers are smaller than the shops hold
    assert simulation_method(jhin, "haystack") == "watched"
    assert simulation_method(jhin, "replay") == "game"
    assert simulation_method(tiny_holding, "haystack") == "game"
    assert simulation_method(jhin, "haystack", "game") == "game"
    with pytest.raises(UsageError, match="replay dealer"):
        simulation_method(jhin, "replay", "watched")
    with pytest.raises(UsageError, match="another tier can run out"):
        simulation_method(tiny_holding, "haystack", "watched")
    with pytest.raises(UsageError, match="allowed: auto, watched, game"):
        simulation_method(jhin, "haystack", "fast")
    assert roll_odds(SET4, STATES["jhin-contested"][1], trials=100)["simulation"] == "watched"
    assert roll_odds(SET4, STATES["jhin-contested"][1], trials=0)["simulation"] is None


def test_threads_and_chunks_change_no_count(monkeypatch):
    s = resolve(SET4, STATES["jhin-contested"][1])
    monkeypatch.setattr("autodup.labs.odds_simulation.CHUNK_TRIALS", 250)
    seen = []
    one = simulate_odds(s, 2_000, "haystack", seed=5, threads=1)
    two = simulate_odds(s, 2_000, "haystack", seed=5, threads=2, advance=seen.append)
    np.testing.assert_array_equal(one, two)
    assert sorted(seen) == [250] * 8  # every chunk reported once
    halves = simulate_odds(s, 700, "haystack", seed=5, threads=2) + simulate_odds(s, 1_300, "haystack", seed=5,
                                                                                   first_trial=700, threads=2)
    np.testing.assert_array_equal(one, halves)


# --- the question ------------------------------------------------------------------------------------------------


def test_buy_xp_then_roll():
    s = resolve(SET4, RollQuestion(level=7, champion="Jhin", gold=60, buy_xp=True, xp=20))
    assert (s.roll_level, s.xp_gold, s.rolls) == (8, 36, 12)  # 36 XP to go: 9 purchases of 4 XP at 4 gold
    assert s.hit_weight == 0.25


def simulated_agrees(result, config, question, trials):
    """Whether ``roll_odds``' simulated counts follow the game's exact law (chi-square) or, where no exact law
    exists (a tier can run out), the counts of the independent control simulated at another seed (two samples)."""
    counts = result["simulated"]["counts"]
    assert sum(counts) == trials
    if result["game"] is not None:
        return goodness_of_fit(*merged_tail(counts, result["game"]["p_exactly"], trials)) > P_FLOOR
    control = roll_odds(config, question, trials=trials, dealer="independent", seed=99)["simulated"]["counts"]
    return same_distribution(counts, control) > P_FLOOR


@pytest.mark.parametrize("name", config_names())
def test_every_shipped_config_and_tier(name):
    """roll_odds' three answers for the first champion of every tier of every shipped configuration: each law sums to
    1, and what it reports as simulated follows the law it simulates (its counts, not only their shape)."""
    config = load_config(config_file(name))
    trials = 4_000
    for tier in range(config.n_tiers):
        champion = config.champion_names[config.tier_start[tier]]
        question = RollQuestion(level=config.max_level, champion=champion, gold=20)
        result = roll_odds(config, question, trials=trials)
        # The game's law is exact while no other tier can run out: every other tier outnumbers what the shops hold.
        totals = [config.champion_copies[config.tier_start[t]:config.tier_start[t + 1]].sum()
                  for t in range(config.n_tiers)]
        held = config.players * config.shop_size
        assert (result["game"] is None) == any(0 < totals[t] < held for t in range(config.n_tiers) if t != tier)
        for method in [m for m in ("exact", "game", "simulated") if result[m] is not None]:
            assert sum(result[method]["p_exactly"]) == pytest.approx(1.0)
            assert np.all(np.diff(result[method]["p_at_least"]) <= 1e-15)
        assert simulated_agrees(result, config, question, trials), (name, champion)


# --- the command -------------------------------------------------------------------------------------------------


def test_command_json_and_plot(tmp_path):
    plot = tmp_path / "odds.png"
    done = run("odds", "set4", "--level", "8", "--champion", "jhin", "--copies-out", "3", "--cost-out", "10", "--gold",
               "30", "--trials", "3000", "--json", "--plot", str(plot))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) >= {"exact", "simulated", "trials", "game"}
    assert set(result["exact"]) == {"p_exactly", "p_at_least"}
    assert set(result["simulated"]) >= {"p_exactly", "p_at_least", "ci"}
    assert result["trials"] == 3000 and len(result["simulated"]["ci"]) == len(result["exact"]["p_exactly"]) == 10
    assert all(lo <= p <= hi for p, (lo, hi) in zip(result["simulated"]["p_at_least"], result["simulated"]["ci"]))
    # What the command prints as simulated follows the game's law (the same question asked of the library).
    assert result["game"] is not None
    assert goodness_of_fit(*merged_tail(result["simulated"]["counts"], result["game"]["p_exactly"], 3000)) > P_FLOOR
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_command_table():
    done = run("odds", "set4", "--level", "4", "--champion", "Garen", "--owned", "3", "--rolls", "10", "--trials",
               "1000")
    assert done.returncode == 0, done.stderr
    assert "9 (3-star)" in done.stdout and "chain" in done.stdout and "holding:" in done.stdout


@pytest.mark.parametrize("args, message", [
    (["--level", "6", "--champion", "Yumi", "--gold", "10"], "did you mean Yuumi"),
    (["--level", "12", "--champion", "Yuumi", "--gold", "10"], "--level: 12 is out of range"),
    (["--level", "6", "--champion", "Yuumi"], "give exactly one"),
    (["--level", "6", "--champion", "Yuumi", "--gold", "10", "--rolls", "3"], "give exactly one"),
    (["--level", "6", "--champion", "Yuumi", "--gold", "10", "--owned", "9"], "already make a 3-star"),
    (["--level", "6", "--champion", "Yuumi", "--gold", "10", "--copies-out", "15", "--owned", "4"], "has 18 copies"),
    (["--level", "6", "--champion", "Yuumi", "--gold", "10", "--cost-out", "300"], "--cost-out"),
    (["--level", "6", "--champion", "Yuumi", "--gold", "10", "--buy-xp"], "costs 36 gold of XP"),
    (["--level", "6", "--champion", "Yuumi", "--gold", "-3"], "--gold"),
    (["--level", "6", "--champion", "Yuumi", "--gold", "10", "--dealer", "nope"], "--dealer: unknown value 'nope'"),
    (["--level", "6", "--champion", "Yuumi", "--gold", "10", "--holding", "yes"], "not on or off"),
    (["--level", "6", "--champion", "Yuumi", "--gold", "10", "--other-shops", "8"], "--other-shops"),
    (["--level", "6", "--champion", "Yuumi", "--gold", "10", "--plot", "odds.svg"], "not a .png file"),
])
def test_command_errors_are_one_line(args, message):
    done = run("odds", "set4", *args)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert not (ROOT / "odds.svg").exists()


def test_a_first_simulation_says_it_compiles_and_a_cached_one_does_not(monkeypatch):
    """On a cache without the simulation, ``autodup odds`` would be silent for the half minute it compiles: it says
    so first (``note``), once, and says nothing when the simulation is cached or when no trial is simulated."""
    import autodup
    from autodup.labs import odds_simulation

    for simulation in ("auto", "game"):  # each plays its kernel, which the cache then holds
        autodup.odds("set4", level=8, champion="Jhin", gold=4, trials=64, simulation=simulation, threads=1)
        assert odds_simulation.simulation_is_compiled(simulation), simulation
    notes = []
    autodup.odds("set4", level=8, champion="Jhin", gold=4, trials=64, threads=1, note=notes.append)
    assert notes == []
    monkeypatch.setattr(odds_simulation, "simulation_is_compiled", lambda method="auto": False)  # a cold cache
    autodup.odds("set4", level=8, champion="Jhin", gold=4, trials=0, note=notes.append)
    assert notes == []
    autodup.odds("set4", level=8, champion="Jhin", gold=4, trials=64, threads=1, note=notes.append)
    assert len(notes) == 1 and notes[0].startswith(odds_simulation.COMPILING_ODDS), notes
    # auto plays the game's shop where another tier can run out (tiny, holding on): that kernel is the one looked at.
    monkeypatch.setattr(odds_simulation, "simulation_is_compiled", lambda method="auto": method != "game")
    notes.clear()
    autodup.odds("set4", level=8, champion="Jhin", gold=4, trials=64, threads=1, note=notes.append)
    assert notes == []
    tiny_question = {"level": 3, "champion": TINY.champion_names[-1], "copies_out": 1, "rolls": 20, "holding": True}
    autodup.odds("tiny", **tiny_question, trials=64, threads=1, note=notes.append)
    assert len(notes) == 1 and notes[0].startswith(odds_simulation.COMPILING_ODDS), notes
    assert "here the game's shop" in notes[0], notes


def test_a_stop_during_the_first_compile_is_answered_at_once(monkeypatch):
    """The first simulation compiles for seconds, and the pool of chunks waited for it when stopped: a Ctrl-C then
    was answered about 15 s later. The compile now runs as a call of no trial in a thread the caller's wait can
    leave (_leavable), and only when the simulation is not compiled yet."""
    import signal
    import threading
    import time

    from autodup.labs import odds_simulation

    class Left(Exception):
        pass

    def leave(number, frame):
        raise Left

    release = threading.Event()
    previous = signal.signal(signal.SIGALRM, leave)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        start = time.perf_counter()
        with pytest.raises(Left):
            odds_simulation._leavable(lambda: release.wait(60))  # a compile that takes a minute
        assert time.perf_counter() - start < 5
    finally:
        signal.signal(signal.SIGALRM, previous)
        release.set()
    with pytest.raises(ZeroDivisionError):  # the call's own error reaches the caller
        odds_simulation._leavable(lambda: 1 / 0)
    calls = []
    monkeypatch.setattr(odds_simulation, "_leavable", lambda call: calls.append(call) or call())
    situation = resolve(SET4, RollQuestion(level=8, champion="Jhin", gold=4))
    expected = simulate_odds(situation, 64, threads=1)  # compiled now, if it was not
    calls.clear()
    assert np.array_equal(simulate_odds(situation, 64, threads=1), expected) and calls == []
    monkeypatch.setattr(odds_simulation, "simulation_is_compiled", lambda method="auto": False)
    assert np.array_equal(simulate_odds(situation, 64, threads=1), expected) and len(calls) == 1


def test_a_plot_that_cannot_be_written_is_refused_before_the_simulation(tmp_path, monkeypatch):
    import autodup.labs.odds_report as odds_report
    from autodup.errors import UsageError

    (tmp_path / "a folder.png").mkdir()
    with pytest.raises(UsageError, match="is a folder"):
        odds_report.check_plot_path(tmp_path / "a folder.png")
    odds_report.check_plot_path(tmp_path / "odds.png")
    assert list(tmp_path.iterdir()) == [tmp_path / "a folder.png"]  # the probe left nothing
    with monkeypatch.context() as patched:
        patched.setattr(os, "access", lambda path, mode: False)  # a read-only mount (root writes anywhere)
        with pytest.raises(UsageError, match="cannot be written") as caught:
            odds_report.check_plot_path(tmp_path / "odds.png")
        assert caught.value.argument == "plot"

    def refuse(*args, **kwargs):  # where the permission bits say yes and nothing can be made: /proc for root
        raise FileNotFoundError(2, "No such file or directory")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    with pytest.raises(UsageError, match="cannot be written"):
        odds_report.check_plot_path(tmp_path / "odds.png")
