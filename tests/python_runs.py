"""Running a snippet of Python in a fresh process, with a cache of compiled code of its own."""

import os
import subprocess
import sys
from pathlib import Path


def run_in(package_root: Path, cache, code: str):
    """Run ``code`` with the package at ``package_root``, compiled code cached under ``cache`` (None: as usual);
    the words it printed."""
    environment = {**os.environ, "PYTHONPATH": str(package_root)}
    if cache is not None:
        environment["AUTODUP_CACHE_DIR"] = str(cache)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600,
                            cwd=package_root, env=environment)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()
