"""Suite-wide settings: the order in which test files reach the two workers.

``pytest -n 2 --dist loadfile`` hands whole files to whichever worker is free, in collection order. Collected
alphabetically, the heaviest file (test_quality.py, several minutes on one worker) starts midway and leaves the
other worker idle at the end. Handing out the heaviest files first (longest processing time first) keeps both
workers busy until the end; the order of the tests within a file is unchanged.
"""

# Files by their share of the suite's time (measured with --durations), heaviest first; the others follow in
# their usual order.
HEAVIEST_FIRST = ("test_quality.py", "test_reliability.py", "test_tournament.py", "test_ab.py", "test_readme.py",
                  "test_cli.py", "test_api.py", "test_install.py", "test_shuffles.py", "test_repository.py",
                  "test_compile_cache.py", "test_run_folder.py")


def pytest_collection_modifyitems(session, config, items):
    rank = {name: position for position, name in enumerate(HEAVIEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's tests keep their order
