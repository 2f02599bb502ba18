"""The package's architecture holds: layers import only the layers below them, no private name crosses a
subpackage, every module says what it exports, no module grows past what a reader can hold."""

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "autodup"

# Lowest first. A module may import its own layer and those before it. The foundation modules are the
# package's top-level files that every layer may use; the public API and the command line sit on top.
LAYERS = (
    ("foundation", ("errors", "arguments", "files", "cache_sharing", "bot_identity", "compile_cache",
                    "nonnegative_indices",
                    "field_loads",
                    "array_allocation", "inline_copies", "flag_comparisons", "deferred_code", "driver_linking",
                    "internal_kernels", "blas_check", "libm_binding", "shipped", "version")),
    ("engine", ("engine",)),
    ("game", ("game",)),
    ("tournament", ("tournament",)),
    ("analysis", ("analysis", "labs")),
    ("api", ("api", "bots", "agents", "env", "")),
    ("cli", ("cli", "__main__")),
)
RANK = {prefix: rank for rank, (_, prefixes) in enumerate(LAYERS) for prefix in prefixes}
MAX_LINES = 600


def modules():
    """``{dotted name under autodup: path}``; ``""`` is the package's ``__init__``."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = modules()


def layer(name: str) -> int:
    return RANK[name.split(".")[0]]


def imports(name: str, path: Path):
    """``(imported module, imported names, line)`` of every import of a package module, nested ones too."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    package = [part for part in package if part]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = ".".join(base + (node.module.split(".") if node.module else []))
            elif node.module and (node.module == "autodup" or node.module.startswith("autodup.")):
                target = node.module[len("autodup."):] if node.module != "autodup" else ""
            else:
                continue
            for alias in node.names:
                child = f"{target}.{alias.name}" if target else alias.name
                if child in MODULES:
                    yield child, [], node.lineno
                else:
                    yield target, [alias.name], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("autodup."):
                    yield alias.name[len("autodup."):], [], node.lineno


def test_each_layer_imports_only_the_layers_below_it():
    wrong = []
    for name, path in MODULES.items():
        for target, _, line in imports(name, path):
            if target in MODULES and layer(target) > layer(name):
                wrong.append(f"autodup/{path.relative_to(PACKAGE)}:{line} imports {target or 'autodup'}")
    assert not wrong, "\n".join(wrong)


def test_no_private_name_crosses_a_subpackage():
    wrong = []
    for name, path in MODULES.items():
        for target, names, line in imports(name, path):
            crossing = target.split(".")[0] != name.split(".")[0]
            for imported in names:
                if crossing and imported.startswith("_") and not imported.startswith("__"):
                    wrong.append(f"autodup/{path.relative_to(PACKAGE)}:{line} imports {target}.{imported}")
    assert not wrong, "\n".join(wrong)


def test_every_public_module_declares_all():
    missing = [str(path.relative_to(PACKAGE)) for name, path in MODULES.items()
               if path.name not in ("__init__.py", "__main__.py") and "__all__" not in path.read_text()]
    assert not missing, missing


@pytest.mark.parametrize("name", sorted(MODULES), ids=lambda name: name or "autodup")
def test_no_module_is_longer_than_a_reader_can_hold(name):
    lines = len(MODULES[name].read_text().splitlines())
    assert lines <= MAX_LINES, f"autodup/{MODULES[name].relative_to(PACKAGE)} has {lines} lines"


def test_help_and_version_load_neither_numba_nor_matplotlib_nor_pyarrow():
    probe = ("import sys, runpy\n"
             "sys.argv = ['autodup', sys.argv[1]]\n"
             "try:\n    runpy.run_module('autodup', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'numba', 'matplotlib', 'pyarrow', 'scipy'})\n"
             "print('HEAVY', heavy)\n")
    for flag in ("--help", "--version"):
        result = subprocess.run([sys.executable, "-c", probe, flag], capture_output=True, text=True, timeout=120,
                                cwd=PACKAGE.parent)
        assert "HEAVY []" in result.stdout, (flag, result.stdout[-500:], result.stderr[-2000:])


def test_every_subpackage_is_installed():
    import tomllib

    listed = set(tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    subpackages = {"autodup." + ".".join(path.parent.relative_to(PACKAGE).parts)
                   for path in PACKAGE.rglob("__init__.py") if path.parent != PACKAGE}
    assert subpackages <= listed, f"pyproject.toml's packages miss {sorted(subpackages - listed)}"


REFERENCE = re.compile(r"(?<![\w/])autodup(?:\.[A-Za-z_]\w*)+")
# Names a docstring may give that are not attributes: data packages of an install, a prefix standing for a
# family of constants, a dataclass field, a test's probe module named inside the package (so that numba mangles
# its functions' names as the package's).
NOT_ATTRIBUTES = ("autodup.roster", "autodup.configs", "autodup.game.progress.PROGRESS_",
                  "autodup.engine.dealers.Dealer.shares_seeds", "autodup.probe_")


def resolves(reference: str) -> bool:
    parts = reference.split(".")
    for end in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        try:
            for part in parts[end:]:
                target = getattr(target, part)
        except AttributeError:
            return False
        return True
    return False


def test_every_dotted_name_in_the_code_and_docs_resolves():
    # A reference to a module or object by its dotted name (in a docstring, a comment, a message, the docs) must
    # name something that exists: after a move, the old names are the ones a reader would follow in vain.
    root = PACKAGE.parent
    files = [*PACKAGE.rglob("*.py"), *(root / "docs").rglob("*.md"), root / "README.md", *(root / "tests").glob("*.py"),
             *(root / "benchmarks").glob("*.py")]
    broken = []
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for reference in REFERENCE.findall(line):
                reference = reference.rstrip(".")
                if not reference.startswith(NOT_ATTRIBUTES) and not resolves(reference):
                    broken.append(f"{path.relative_to(root)}:{number}: {reference}")
    assert not broken, "names that do not resolve:\n" + "\n".join(broken)


def test_every_library_the_package_imports_is_a_declared_dependency():
    """The wheel's install test runs in an environment that already has the libraries, so an import the package
    needs but pyproject.toml does not declare is caught here: each non-standard top-level name imported anywhere
    in autodup/ belongs to a distribution of ``dependencies`` (or of an extra, then imported inside a function,
    or anywhere in the extra's own subpackage)."""
    import importlib.metadata
    import tomllib

    root = PACKAGE.parent
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]

    def names(requirements):
        return {re.split(r"[<>=\[ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")
                for requirement in requirements}

    core = names(project["dependencies"])
    extras = set().union(*(names(group) for group in project["optional-dependencies"].values()))
    distributions = importlib.metadata.packages_distributions()
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        top_level = {id(node) for node in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                name = module.split(".")[0]
                if name in sys.stdlib_module_names or name in ("autodup", "__future__"):
                    continue
                found.setdefault(name, []).append((path.relative_to(root).as_posix(), id(node) in top_level))
    for name, places in found.items():
        declared = {distribution.lower().replace("_", "-") for distribution in distributions.get(name, [name])}
        if declared & core:
            continue
        # pandas is the user's: Results.to_pandas() converts where it is installed and says so where not.
        assert declared & extras or name == "pandas", \
            f"{name} ({places[0][0]}) is imported but no dependency of pyproject.toml provides it"
        # autodup/env/ is the env extra's own subpackage: its __init__ says how to install the extra when it is
        # missing, so its modules import gymnasium and pettingzoo at the top (their classes subclass theirs).
        eager = [place for place, at_top in places if at_top
                 and not (place.startswith("autodup/env/") and name in ("gymnasium", "pettingzoo"))]
        assert not eager, f"{name} comes from an optional extra but is imported at module level in {eager}"
