"""The seed article's toy example: Figs. 1-5 reproduced, keyed compared with Fig. 4."""

from fractions import Fraction as F

import numba
import numpy as np
import pytest

from autodup.labs.toy import ARTICLE, COLS, DEFAULT_TRIALS, FIGURES, ROWS, toy_figures, toy_outcomes

# Exact joint probabilities, derived by hand from the article's definitions
# (rows: Bob's X on 1st / 2nd / 3rd / not drawn; columns: Alice's X on 1st /
# removed then 3rd / removed then not drawn).
BOB = [F(1, 5), F(1, 5), F(1, 5), F(2, 5)]
ALICE = [F(1, 5), F(4, 15), F(8, 15)]
Z = F(0)
EXACT = {
    "fig1": [[b * a for a in ALICE] for b in BOB],
    "fig2": [[F(1, 5), Z, Z], [Z, Z, F(1, 5)], [Z, F(1, 5), Z], [Z, Z, F(2, 5)]],
    "fig3": [[F(1, 5), Z, Z], [Z, F(1, 15), F(2, 15)], [Z, F(1, 15), F(2, 15)], [Z, F(2, 15), F(4, 15)]],
    "fig4": [[F(1, 5), Z, Z], [Z, F(1, 15), F(2, 15)], [Z, F(1, 5), Z], [Z, Z, F(2, 5)]],
    "fig5": [[F(1, 5), Z, Z], [Z, F(2, 15), F(1, 15)], [Z, F(2, 15), F(1, 15)], [Z, Z, F(2, 5)]],
}


@pytest.fixture(scope="module")
def default_run():
    return toy_figures()


def test_json_shape_and_labels(default_run):
    assert list(default_run) == ["rows", "cols", "figures", "trials"]
    assert default_run["rows"] == ROWS and default_run["cols"] == COLS
    assert list(default_run["figures"]) == list(FIGURES) == ["fig1", "fig2", "fig3", "fig4", "fig5", "keyed"]
    assert default_run["trials"] == DEFAULT_TRIALS
    for table in default_run["figures"].values():
        assert np.array(table).shape == (4, 3)
        assert sum(map(sum, table)) == pytest.approx(1.0)


def test_every_entry_within_0_003_of_the_article(default_run):
    for name, article in ARTICLE.items():
        assert np.abs(np.array(default_run["figures"][name]) - np.array(article)).max() <= 0.003, name


@pytest.mark.parametrize("name", list(EXACT))
def test_figures_match_exact_probabilities_within_five_sigma(default_run, name):
    got = np.array(default_run["figures"][name])
    exact = np.array(EXACT[name], dtype=float)
    sigma = np.sqrt(exact * (1 - exact) / default_run["trials"])
    assert np.all(got[exact == 0] == 0)
    assert np.all(np.abs(got - exact) <= 5 * sigma + 1e-12)


def test_keyed_race_reproduces_the_amended_system(default_run):
    """DESIGN.md predicts keyed == Fig. 4; it does, within sampling error."""
    got = np.array(default_run["figures"]["keyed"])
    exact = np.array(EXACT["fig4"], dtype=float)
    sigma = np.sqrt(exact * (1 - exact) / default_run["trials"])
    assert np.all(got[exact == 0] == 0)
    assert np.all(np.abs(got - exact) <= 5 * sigma + 1e-12)


def test_correctness_violation_of_the_replay_system_is_visible(default_run):
    alice = np.array(default_run["figures"]["fig2"]).sum(axis=0)
    assert alice[1] == pytest.approx(0.2, abs=0.003) and abs(alice[1] - 4 / 15) > 0.05


def test_results_do_not_depend_on_threads_and_differ_by_seed():
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = toy_outcomes(np.uint64(5), 0, 20_000)
        numba.set_num_threads(max(threads, 2))
        many = toy_outcomes(np.uint64(5), 0, 20_000)
    finally:
        numba.set_num_threads(threads)
    assert np.array_equal(one, many)
    assert not np.array_equal(one, toy_outcomes(np.uint64(6), 0, 20_000))


@pytest.mark.parametrize("trials", [0, -5, 2.5, True])
def test_bad_trials_are_rejected(trials):
    with pytest.raises(ValueError, match="trials"):
        toy_figures(trials=trials)


def test_trials_in_blocks_count_the_same_as_in_one(monkeypatch):
    """Trials are played in blocks (memory stays flat however many): the blocks change no count."""
    from autodup.labs import toy

    whole = toy_figures(trials=5000, seed=11)
    monkeypatch.setattr(toy, "TRIALS_PER_BLOCK", 1024)
    assert toy_figures(trials=5000, seed=11) == whole
    with pytest.raises(ValueError, match="1 to 1,000,000,000"):
        toy_figures(trials=toy.MAX_TRIALS + 1)
