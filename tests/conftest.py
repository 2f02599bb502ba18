"""Suite-wide settings: the order in which test files reach the two workers.

``pytest -n 2 --dist loadfile --no-loadscope-reorder`` hands whole files to whichever worker is free, in
collection order (without the last option, pytest-xdist 3.8 sorts the files by their number of tests instead,
which undid this order). Collected alphabetically, the heaviest file (test_quality.py, several minutes on one
worker) starts midway and leaves the other worker idle at the end. Handing out the heaviest files first
(longest processing time first) keeps both workers busy until the end; the order of the tests within a file is
unchanged.
"""

# Files by their share of the suite's time (measured with --durations=0 on a clean clone), heaviest first; the
# others follow in their usual order. Each worker starts with two files (the 1st and 3rd, the 2nd and 4th). On an
# empty cache the first file, test_quality.py, compiles the game (two minutes) and every other test that plays one
# waits for it: the second worker starts with the two heavy files that play no game (the shuffle lab and the draw
# engines compile kernels of their own), so neither core waits.
HEAVIEST_FIRST = ("test_quality.py", "test_shuffles.py", "test_reliability.py", "test_engines.py", "test_readme.py",
                  "test_ab.py", "test_tournament.py", "test_repository.py", "test_game.py", "test_cli.py",
                  "test_compile_cache.py", "test_bots.py", "test_api.py", "test_install.py", "test_odds.py",
                  "test_run_folder.py", "test_event_addressing.py", "test_agents.py")


def pytest_collection_modifyitems(session, config, items):
    rank = {name: position for position, name in enumerate(HEAVIEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's tests keep their order
