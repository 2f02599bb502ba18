"""Scripted bots: the authoring API, loading bots by name or file, and the checks users run on them.

A bot file (``bots/<name>.py``, or any path) declares::

    NAME = "mybot"
    DESCRIPTION = "One line: what it does."
    PARAMETERS = {"reserve": 30.0}          # defaults, in the order ``params`` holds them

    @policy
    def decide(me, shop, unit_champion, unit_star, pool, champion_cost, champion_traits,
               trait_breakpoints, params, memory):
        ...
        return buy(slot)                      # or sell(i), reroll(), buy_xp(), end_turn(), ...

``decide`` runs inside the jitted table once per decision (see
:data:`autodup.game.POLICY_SIGNATURE` for the arrays it reads). ``me[GOLD]``,
``me[LEVEL]``... name the fields of the seat's view (:data:`autodup.game.VIEW`
declares them); ``memory`` keeps ``MEMORY_SIZE`` int64 words for the game.
The view says what is legal (``me[BUYABLE]``, ``me[CAN_REROLL]``...), by the
rules the table applies: :func:`can_buy` and its siblings read it, so a bot
never restates a rule. The helpers below are jitted and may be called from
``decide``.
"""

from __future__ import annotations

import contextlib
import dis
import hashlib
import importlib.util
import math
import re
import sys
from collections import namedtuple
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit
from numba.core.ccallback import CFunc
from numba.core.compiler_lock import global_compiler_lock

from . import game
from .compile_cache import bot_module_name, modules_digest
from .errors import first_line, without_colours
from .shipped import roster_folder
from .game import (  # noqa: F401  (re-exported for bot authors)
    ACTION_BUY,
    ACTION_BUY_XP,
    ACTION_END,
    ACTION_LOADED_ROLL,
    ACTION_LOCK,
    ACTION_REROLL,
    ACTION_SELL,
    MAX_PARAMETERS,
    MAX_PLAYERS,
    MEMORY_SIZE,
    POLICY_SIGNATURE,
    VIEW_MASK_BITS,
    VIEW_NAMES,
    copies_of_star,
    encode_decision,
)

# The seat's view, by name: me[GOLD], me[LEVEL], ... one name per field of autodup.game.VIEW, in capitals
# (GOLD = game.VIEW_GOLD, ...). Module-level integers, so numba compiles me[GOLD] to a constant index.
_VIEW_INDEX = {name.upper(): index for index, name in enumerate(VIEW_NAMES)}
assert not _VIEW_INDEX.keys() & globals().keys(), "a view field's name is taken in autodup.bots"
globals().update(_VIEW_INDEX)


def _finite_number(value):
    """``value`` as a finite float, or None (booleans, text that is not a number, inf, nan, huge integers)."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value) if isinstance(value, (int, float, str)) else None
    except (ValueError, OverflowError):
        return None
    return number if number is not None and math.isfinite(number) else None


class BotError(ValueError):
    """A bot file or a bot option is unusable; ``str()`` is one line naming the file or option."""


# Decorator for functions a policy calls (the helpers below, and a bot's own).
# Inlined and without the Numba runtime: calling a plain @njit function with
# array arguments costs two atomic reference-count operations per array, which
# made a decision ten times slower than its work (measured: 350 ns against 25).
helper = njit(cache=True, _nrt=False, inline="always")


class PolicyError(BotError):
    """A ``decide`` that cannot become a policy, explained in the terms of the README (not numba's)."""


_ANSWERS = "return buy(slot), sell(unit), reroll(), buy_xp(), toggle_lock(), loaded_roll(trait) or end_turn()"
_ALLOCATING = ("zeros", "empty", "ones", "full", "array", "arange", "zeros_like", "empty_like", "ones_like",
               "full_like", "copy", "concatenate", "linspace", "list", "dict", "set")


def explain_compile_error(error: Exception, function) -> str:
    """One line, in the README's words, for why ``function`` (a decide or a helper) does not compile."""
    text = without_colours(str(error))
    name = getattr(function, "__name__", "decide")
    own_file = Path(function.__code__.co_filename).name
    located = [line for file, line in re.findall(r'File "([^"]+)", line (\d+)', text) if Path(file).name == own_file]
    where = f" (line {located[-1]})" if located else ""
    plain = re.search(r"Untyped global name '(\w+)'.*?<class 'function'>", text, re.S)
    if plain:
        return (f"{name} calls {plain.group(1)}(), a plain Python function: decorate it with @helper "
                f"(from autodup.bots){where}")
    allocation = re.search(r"Function\(<(?:built-in function|class '|function) ?'?(\w+)", text)
    if "NRT required but not enabled" in text or "reflected list" in text or (
            allocation and allocation.group(1) in _ALLOCATING):
        line = _first_allocation_line(function)
        where = where or (f" (line {line})" if line else "")
        return (f"{name} allocates a list or an array{where}: a policy cannot allocate; keep what it needs "
                "between decisions in memory (MEMORY_SIZE int64 words), and loop over the arrays it is given")
    return f"{name} cannot be compiled{where}: {first_line(error)}"


def _first_allocation_line(function):
    """The line of the first list, set or dict display, or call of an allocating numpy function, in ``function``."""
    for instruction in dis.get_instructions(function):
        builds = instruction.opname in ("BUILD_LIST", "BUILD_SET", "BUILD_MAP", "LIST_EXTEND")
        names = instruction.opname in ("LOAD_ATTR", "LOAD_METHOD", "LOAD_GLOBAL") and instruction.argval in _ALLOCATING
        if (builds or names) and instruction.positions and instruction.positions.lineno:
            return instruction.positions.lineno
    return None


# What numba's object code holds for a call it links only at run time (a recursive function).
_UNRESOLVED_SYMBOL = b".numba.unresolved$"


class _PolicyCallback(CFunc):
    """A policy's C callback: checked before it compiles, and cached only if numba can load it back.

    numba cannot reload compiled code that calls a recursive function (self-
    or mutually recursive, in the bot or in a module it imports): linking it
    aborts the process (``LLVM ERROR: Symbol not found: .numba.unresolved$``).
    Such a policy is compiled afresh in each process instead of being saved.
    (A damaged cache entry is compiled again: see :mod:`autodup.compile_cache`.)
    """

    @global_compiler_lock
    def compile(self):
        result = self._cache.load_overload(self._sig, self._targetdescr.target_context)
        if result is None:
            result = self._compile_uncached()
            _, _, (object_code, *_) = result.library.serialize_using_object_code()
            if _UNRESOLVED_SYMBOL not in object_code:
                self._cache.save_overload(self._sig, result)
        else:
            self._cache_hits += 1
        self._library = result.library
        self._wrapper_name = result.fndesc.llvm_cfunc_wrapper_name
        self._wrapper_address = self._library.get_pointer_to_function(self._wrapper_name)

    def _compile_uncached(self):
        function = self._pyfunc
        try:
            _check_policy_source(function)
            return super()._compile_uncached()
        except PolicyError:
            raise
        except Exception as error:  # numba's typing and lowering errors, said in the README's terms
            raise PolicyError(explain_compile_error(error, function)) from None


def _check_policy_source(function) -> None:
    """Refuse what compiles but cannot work in a table: ``print``, and a return type that is not an integer.

    A policy plays in a worker process whose output is discarded, and numba's
    callbacks fail on ``print`` when freshly compiled. A C callback casts
    whatever ``decide`` returns to int64: ``return 2.5`` would silently become
    a number that is not an answer, so ``decide`` is typed alone first.
    """
    helpers = [value.py_func for value in function.__globals__.values() if hasattr(value, "py_func")]
    codes = [function.__code__] + [helper.__code__ for helper in helpers if helper.__module__ == function.__module__]
    for code in codes:
        if "print" in code.co_names:
            raise PolicyError(f"{code.co_name} calls print(): a policy plays in a worker process whose output is "
                              "discarded; remove it, and see what a bot does with `autodup play` or `check-bot`")

    from numba.core import compiler, typed_passes, types as numba_types
    from numba.core.registry import cpu_target

    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
    interpreted = compiler.run_frontend(function)
    typed = typed_passes.type_inference_stage(cpu_target.typing_context, cpu_target.target_context, interpreted,
                                              POLICY_SIGNATURE.args, None)
    returned = typed.return_type
    if not isinstance(returned, numba_types.Integer) or isinstance(returned, numba_types.Boolean):
        raise PolicyError(f"{function.__name__} returns {returned}, not an answer: {_ANSWERS}")


def policy(function):
    """Compile ``decide`` as a table policy: a C callback of ``POLICY_SIGNATURE``.

    A policy runs without the Numba runtime: it may not allocate arrays (keep
    state in ``memory``); functions it calls should be decorated with
    :data:`helper`. Array bounds are checked, so a bot that indexes out of
    range fails that decision (counted in ``bot_errors``, the turn ends)
    instead of corrupting or crashing the table; the checks cost about a
    fifth of a game's time, the price of containing any bot. The compiled
    code is cached under the package's code fingerprint and the bot file's
    content and of the modules it imports (see :mod:`autodup.compile_cache`),
    unless numba could not load it back (see :class:`_PolicyCallback`).

    Raises
    ------
    PolicyError
        ``decide`` returns something that is not an answer, calls an
        undecorated function, allocates, or does not compile (one line).
    """
    callback = _PolicyCallback(function, (POLICY_SIGNATURE.args, POLICY_SIGNATURE.return_type),
                               locals={}, options={"_nrt": False, "boundscheck": True})
    callback.enable_caching()
    callback.compile()
    return callback


# --------------------------------------------------------------------------
# answers
# --------------------------------------------------------------------------


@helper
def end_turn():
    return encode_decision(ACTION_END, 0)


@helper
def buy(slot):
    return encode_decision(ACTION_BUY, slot)


@helper
def sell(unit):
    return encode_decision(ACTION_SELL, unit)


@helper
def reroll():
    return encode_decision(ACTION_REROLL, 0)


@helper
def buy_xp():
    return encode_decision(ACTION_BUY_XP, 0)


@helper
def toggle_lock():
    return encode_decision(ACTION_LOCK, 0)


@helper
def loaded_roll(trait):
    return encode_decision(ACTION_LOADED_ROLL, trait)


# --------------------------------------------------------------------------
# helpers for decide()
# --------------------------------------------------------------------------


@helper
def uniform(me):
    """A uniform in [0, 1) fresh for this decision (``me[RANDOM_A]``)."""
    return me[RANDOM_A] * 2.0**-53


@helper
def random_below(me, n):
    """An integer uniform in ``[0, n)`` fresh for this decision (``me[RANDOM_B]``); n >= 1."""
    return np.int64(me[RANDOM_B] * 2.0**-53 * n)


@helper
def unit_value(champion, star, champion_cost):
    """Gold value (and rough strength) of a unit: cost times copies."""
    return champion_cost[champion] * copies_of_star(star)


@helper
def copies_owned(champion, me, unit_champion, unit_star):
    """Copies of ``champion`` the seat holds (3 for a 2-star)."""
    total = 0
    for u in range(me[UNITS]):
        if unit_champion[u] == champion:
            total += copies_of_star(unit_star[u])
    return total


@helper
def completes_a_combine(champion, me, unit_champion, unit_star):
    """Whether buying ``champion`` makes a 2-star at once (two 1-stars held): allowed with a full bench."""
    return game.completes_a_combine(unit_champion, unit_star, me[UNITS], champion)


@helper
def can_buy(slot, me, shop=None, unit_champion=None, unit_star=None, champion_cost=None):
    """Whether buying ``shop[slot]`` is legal now, as the table decides it (``me[BUYABLE]``).

    Only ``slot`` and ``me`` are read: the table computes the rule (gold, room
    or a combine, copies left in the pool when shown units stay in it) with
    the predicate it applies. The other arguments are accepted for bots
    written before the view carried legality.
    """
    return 0 <= slot < VIEW_MASK_BITS and ((me[BUYABLE] >> slot) & 1) == 1


@helper
def can_sell(unit, me):
    """Whether selling unit ``unit`` is legal now: any unit held (``unit < me[UNITS]``)."""
    return 0 <= unit < me[UNITS]


@helper
def can_reroll(me):
    """Whether a reroll is legal now (``me[CAN_REROLL]``)."""
    return me[CAN_REROLL] != 0


@helper
def can_buy_xp(me):
    """Whether buying XP is legal now (``me[CAN_BUY_XP]``)."""
    return me[CAN_BUY_XP] != 0


@helper
def can_loaded_roll(me):
    """Whether a loaded roll of a trait (any trait id) is legal now (``me[CAN_LOADED_ROLL]``)."""
    return me[CAN_LOADED_ROLL] != 0


@helper
def weakest_unit(me, unit_champion, unit_star, champion_cost, keep_champion):
    """Index of the least valuable unit that is not ``keep_champion`` (-1 if none)."""
    weakest, weakest_value = -1, 1 << 60
    for u in range(me[UNITS]):
        if unit_champion[u] == keep_champion:
            continue
        value = unit_value(unit_champion[u], unit_star[u], champion_cost)
        if value < weakest_value:
            weakest, weakest_value = u, value
    return weakest


@helper
def has_trait(champion, trait, champion_traits):
    for m in range(champion_traits.shape[1]):
        if champion_traits[champion, m] == trait:
            return True
    return False


@helper
def interest_gold(me):
    """Gold that earns the most interest (e.g. 50)."""
    return me[INTEREST_PER] * me[INTEREST_MAX]


@helper
def buy_best(me, shop, unit_champion, unit_star, champion_cost, spare_gold):
    """The buy with the most value: pairs first, then cost; spends at most ``spare_gold`` unless it pairs.

    Returns an answer (``buy(slot)``), or 0 if nothing is worth buying.
    """
    best_slot, best_score = -1, -1
    for slot in range(me[SHOP_SIZE]):
        champion = shop[slot]
        if not can_buy(slot, me):
            continue
        owned = copies_owned(champion, me, unit_champion, unit_star)
        cost = champion_cost[champion]
        if owned == 0 and cost > spare_gold:
            continue
        score = owned * 10 + cost
        if score > best_score:
            best_slot, best_score = slot, score
    return buy(best_slot) if best_slot >= 0 else 0


# The standard curve keeps TFT's opening: level 3 through stage 1, level 4 when stage 2 starts.
_CURVE_OPENING_LEVEL = 3
_CURVE_STAGE_TWO_LEVEL = 4


@helper
def curve_level(me, rounds_behind=0):
    """The level a steady player has by now, from the configuration's stages and max level.

    Level 3 through stage 1 and level 4 at the start of stage 2, as in TFT;
    then the remaining levels, up to ``me[MAX_LEVEL]``, are spread evenly
    over the rounds from the start of stage 2 to the start of the
    next-to-last stage the configuration lists (``me[STAGES] - 1``; the last
    stage repeats until the game ends), progress within a stage counted in
    its own rounds (``me[ROUND_IN_STAGE]`` of ``me[STAGE_ROUNDS]``), rounded
    to the nearest level (halves up). With three stages or fewer the max
    level is due from stage 2. Never above ``me[MAX_LEVEL]``.

    On Set 4 (seven stages: 3 rounds, then 6 each; max level 9) this gives
    3, then 4 at 2-1, 5 at 2-4, 6 at 3-3, 7 at 4-1, 8 at 4-6 and 9 at 5-5:
    never more than a level from Set 4's standard curve (5 at 2-5, 6 at
    3-2, 8 at 5-1, 9 at 6-1), and each level within two rounds of it.

    ``rounds_behind`` > 0 gives the curve as it was that many rounds ago
    (counted in the current stage's rounds), < 0 as it will be: a slower or
    faster player on the same configuration's pace.
    """
    top = me[MAX_LEVEL]
    rounds = max(me[STAGE_ROUNDS], 1)
    since_stage_two = (me[STAGE] - 2) * rounds + me[ROUND_IN_STAGE] - 1 - rounds_behind  # in rounds
    if me[STAGE] < 2 or since_stage_two < 0:
        return min(_CURVE_OPENING_LEVEL, top)
    climb = top - _CURVE_STAGE_TWO_LEVEL
    span = me[STAGES] - 3  # stages from the start of stage 2 to the start of stage me[STAGES] - 1
    if climb <= 0 or span <= 0:
        return top if climb > 0 else min(_CURVE_STAGE_TWO_LEVEL, top)
    # level = 4 + climb * since_stage_two / (span * rounds), rounded; integers keep halves exact.
    numerator = climb * since_stage_two
    denominator = span * rounds
    return min(_CURVE_STAGE_TWO_LEVEL + (2 * numerator + denominator) // (2 * denominator), top)


# The name bots used before the curve came from the configuration (it was Set 4's curve then).
standard_level = curve_level


@helper
def units_with_trait(trait, me, unit_champion, champion_traits):
    """Distinct champions held that have ``trait`` (what trait breakpoints count)."""
    count = 0
    for u in range(me[UNITS]):
        champion = unit_champion[u]
        seen = False
        for v in range(u):
            if unit_champion[v] == champion:
                seen = True
        if not seen and has_trait(champion, trait, champion_traits):
            count += 1
    return count


@helper
def strongest_trait(me, unit_champion, champion_traits, n_traits):
    """The trait with the most distinct champions held (-1 with no units); ties go to the lower id."""
    best, best_count = -1, 0
    for trait in range(n_traits):
        count = units_with_trait(trait, me, unit_champion, champion_traits)
        if count > best_count:
            best, best_count = trait, count
    return best


@helper
def room_for(champion, me, shop, unit_champion, unit_star, champion_cost, keep_cost):
    """An answer that makes room for ``champion``: sell the weakest unit worth less that is not of cost ``keep_cost``.

    Returns ``sell(unit)``, or 0 when there is room already or nothing worth selling.
    """
    if me[UNITS] < me[CAPACITY] or completes_a_combine(champion, me, unit_champion, unit_star):
        return 0
    weakest, weakest_value = -1, champion_cost[champion]
    for u in range(me[UNITS]):
        if champion_cost[unit_champion[u]] == keep_cost or unit_champion[u] == champion:
            continue
        value = unit_value(unit_champion[u], unit_star[u], champion_cost)
        if value < weakest_value:
            weakest, weakest_value = u, value
    return sell(weakest) if weakest >= 0 else 0


@helper
def reroll_turn(me, shop, unit_champion, unit_star, champion_cost, cost, level, keep, three_stars):
    """The reroll strategy: stop at ``level`` and slow-roll above ``keep`` gold for 3-star ``cost``-cost units.

    Once ``three_stars`` such 3-stars are held (or from stage 6), levels on the standard curve
    (:func:`curve_level`) again.
    """
    gold = me[GOLD]
    cost = np.int64(cost)
    held = 0
    for u in range(me[UNITS]):
        if unit_star[u] == 3 and champion_cost[unit_champion[u]] == cost:
            held += 1
    done = held >= three_stars or me[STAGE] >= 6
    target = curve_level(me) if done else min(np.int64(level), curve_level(me))
    if me[LEVEL] < target and can_buy_xp(me):
        return buy_xp()
    best_slot, best_score = -1, -1
    for slot in range(me[SHOP_SIZE]):
        champion = shop[slot]
        if champion < 0:
            continue
        owned = copies_owned(champion, me, unit_champion, unit_star)
        if owned >= 9 or (champion_cost[champion] != cost and owned == 0):
            continue
        if can_buy(slot, me):
            score = owned * 10 + (5 if champion_cost[champion] == cost else 0)
            if score > best_score:
                best_slot, best_score = slot, score
        elif champion_cost[champion] <= gold:
            answer = room_for(champion, me, shop, unit_champion, unit_star, champion_cost, cost)
            if answer != 0:
                return answer
    if best_slot >= 0:
        return buy(best_slot)
    if me[UNITS] < me[BOARD_SIZE]:
        choice = buy_best(me, shop, unit_champion, unit_star, champion_cost, gold - keep // 2)
        if choice != 0:
            return choice
    if me[LEVEL] >= target and gold >= keep + me[REROLL_PRICE] and can_reroll(me) and me[ROLLS] < 20:
        return reroll()
    return end_turn()


# --------------------------------------------------------------------------
# loading
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class BotInfo:
    """What a run records of a bot: no compiled code, so it travels between processes."""

    name: str
    path: Path
    parameters: dict
    fingerprint: str  # SHA-256 of the bot file and of its own modules it imports (see compile_cache.user_modules)


@dataclass(frozen=True)
class Bot:
    """A loaded bot: its declarations, compiled policy and parameter values."""

    name: str
    description: str
    defaults: dict
    policy: CFunc = field(repr=False)
    path: Path
    parameters: dict = field(default_factory=dict)
    fingerprint: str = ""

    def info(self) -> BotInfo:
        return BotInfo(self.name, self.path, dict(self.parameters), self.fingerprint)

    def with_parameters(self, overrides: dict, origin: str = "--bot-param") -> "Bot":
        """A copy with some parameters changed; unknown names or non-numbers raise :class:`BotError`."""
        values = dict(self.parameters)
        for key, value in overrides.items():
            if key not in self.defaults:
                allowed = ", ".join(self.defaults) or "none"
                raise BotError(f"{origin}: bot {self.name!r} has no parameter {key!r} (allowed: {allowed})")
            number = _finite_number(value)
            if number is None:
                raise BotError(f"{origin}: {self.name}.{key} must be a finite number, got {value!r}")
            values[key] = number
        return Bot(self.name, self.description, self.defaults, self.policy, self.path, values, self.fingerprint)

    def parameter_vector(self) -> np.ndarray:
        """float64 (MAX_PARAMETERS,): the values in declaration order, zero-padded."""
        vector = np.zeros(MAX_PARAMETERS)
        for i, key in enumerate(self.defaults):
            vector[i] = self.parameters[key]
        return vector


_LOADED: dict = {}


def bot_names() -> list:
    """Names of the shipped bots (``bots/`` of the repository; files not starting with ``_``)."""
    return sorted(p.stem for p in roster_folder().glob("*.py") if not p.name.startswith("_"))


def _bot_path(spec: str) -> Path:
    if spec.endswith(".py") or "/" in spec or "\\" in spec or Path(spec).expanduser().is_file():
        path = Path(spec).expanduser()
        if not path.is_file():
            hint = f" (did you mean {spec}.py?)" if Path(f"{spec}.py").expanduser().is_file() else ""
            raise BotError(f"{spec}: no such bot file{hint}")
        if path.suffix != ".py":
            raise BotError(f"{spec}: a bot file must be a Python file whose name ends in .py")
        return path.resolve()
    path = roster_folder() / f"{spec}.py"
    if spec.startswith("_") or not path.is_file():
        raise BotError(f"unknown bot {spec!r} (allowed: {', '.join(bot_names())}, or a path to a bot file)")
    return path


def constant_parameter_reads(decide) -> list:
    """The constant indices ``k`` of every ``params[k]`` read in ``decide``'s own code (its 9th argument)."""
    code = decide.__code__
    if code.co_argcount < 9:
        return []
    name = code.co_varnames[8]
    instructions = list(dis.get_instructions(code))
    reads = []
    for first, second, third in zip(instructions, instructions[1:], instructions[2:]):
        if first.opname == "LOAD_FAST" and first.argval == name and second.opname == "LOAD_CONST" \
                and isinstance(second.argval, int) and third.opname in ("BINARY_SUBSCR", "BINARY_OP"):
            reads.append(second.argval)
    return reads


def load_bot(spec: str) -> Bot:
    """Load a bot by name (a file in ``bots/``) or by path.

    Raises
    ------
    BotError
        One line: the file and what it lacks or gets wrong.
    """
    path = _bot_path(str(spec))
    if path in _LOADED:
        return _LOADED[path]
    # Named by the file's content: numba's cache of the compiled policy refers
    # to the module by name, so a copy of the file elsewhere loads the same cache.
    module_name = bot_module_name(path)
    try:
        module_spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[module_name] = module
        module_spec.loader.exec_module(module)
    except PolicyError as error:
        sys.modules.pop(module_name, None)
        raise BotError(f"{path}: {error}") from None
    except (Exception, SystemExit) as error:  # a bot file is user code: any failure is reported in one line
        sys.modules.pop(module_name, None)
        raise BotError(f"{path}: cannot load: {type(error).__name__}: {first_line(error)}") from None
    declared = {key: getattr(module, key, None) for key in ("NAME", "DESCRIPTION", "PARAMETERS", "decide")}
    name, description, defaults, decide = declared.values()
    if not isinstance(name, str) or not name.isidentifier():
        raise BotError(f"{path}: NAME must be a name made of letters, digits and _ (got {name!r})")
    if not isinstance(description, str) or not description.strip() or "\n" in description.strip():
        raise BotError(f"{path}: DESCRIPTION must be one line of text")
    if defaults is None:
        defaults = {}
    if not isinstance(defaults, dict) or len(defaults) > MAX_PARAMETERS or any(
            not isinstance(k, str) or isinstance(v, str) or _finite_number(v) is None for k, v in defaults.items()):
        raise BotError(f"{path}: PARAMETERS must map at most {MAX_PARAMETERS} names to finite numbers")
    if not isinstance(decide, CFunc) or decide._sig != POLICY_SIGNATURE:
        raise BotError(f"{path}: decide must be a function decorated with @autodup.bots.policy")
    beyond = [k for k in constant_parameter_reads(decide.__wrapped__) if k >= len(defaults)]
    if beyond:
        declared_names = ", ".join(defaults) or "none"
        raise BotError(f"{path}: decide reads params[{beyond[0]}], but PARAMETERS declares {len(defaults)} "
                       f"({declared_names}); declare every parameter decide reads")
    defaults = {k: float(v) for k, v in defaults.items()}
    fingerprint = hashlib.sha256(path.read_bytes() + modules_digest(vars(module)).encode()).hexdigest()
    bot = Bot(name, description.strip(), defaults, decide, path, dict(defaults), fingerprint)
    _LOADED[path] = bot
    return bot


def load_bots(specs, overrides: dict | None = None, origin: str = "bot parameters") -> list:
    """Load several bots; ``overrides`` maps a bot name to ``{parameter: value}`` (from ``origin``)."""
    return apply_overrides([load_bot(spec) for spec in specs], overrides or {}, origin)


def apply_overrides(bots, overrides: dict, origin: str) -> list:
    """``bots`` with ``overrides`` (``{bot name: {parameter: value}}``, from ``origin``) applied.

    Raises
    ------
    BotError
        An override names a bot that is not playing, or a parameter it lacks.
    """
    names = {bot.name for bot in bots}
    for name in overrides:
        if name not in names:
            raise BotError(f"{origin}: no bot named {name!r} is playing (playing: {', '.join(sorted(names))})")
    return [bot.with_parameters(overrides.get(bot.name, {}), origin) for bot in bots]


def parse_parameter_options(options) -> dict:
    """``["greedy.reserve=20", ...]`` into ``{"greedy": {"reserve": 20.0}}``."""
    result: dict = {}
    for option in options or []:
        key, sep, value = option.partition("=")
        bot, dot, parameter = key.partition(".")
        if not sep or not dot or not bot or not parameter:
            raise BotError(f"--bot-param: {option!r} is not BOT.PARAMETER=NUMBER")
        try:
            number = float(value)
        except ValueError:
            raise BotError(f"--bot-param: {option!r}: {value!r} is not a number") from None
        result.setdefault(bot, {})[parameter] = number
    return result


def load_parameter_file(path) -> dict:
    """A YAML file ``{bot: {parameter: number}}`` (loaded with ``safe_load``)."""
    import yaml

    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except OSError as error:
        raise BotError(f"{path}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError:
        raise BotError(f"{path}: not UTF-8 text") from None
    except yaml.YAMLError as error:
        raise BotError(f"{path}: not valid YAML ({str(error).splitlines()[0]})") from None
    if data is None:
        return {}
    if not isinstance(data, dict) or any(not isinstance(v, dict) for v in data.values()):
        raise BotError(f"{path}: must map bot names to {{parameter: number}} mappings")
    return data


def policy_tuple(bots) -> tuple:
    """``(policies, params, param_counts)`` for the table.

    ``policies`` holds MAX_PLAYERS callbacks (padded with the first), ``params``
    is float64 (MAX_PLAYERS, MAX_PARAMETERS) and ``param_counts`` int64
    (MAX_PLAYERS,): how many parameters each bot declares (it sees only those).
    """
    if not 1 <= len(bots) <= MAX_PLAYERS:
        raise BotError(f"a table takes 1 to {MAX_PLAYERS} distinct bots, got {len(bots)}")
    policies = tuple(bots[i].policy if i < len(bots) else bots[0].policy for i in range(MAX_PLAYERS))
    params = np.zeros((MAX_PLAYERS, MAX_PARAMETERS))
    param_counts = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for i, bot in enumerate(bots):
        params[i] = bot.parameter_vector()
        param_counts[i] = len(bot.defaults)
    return policies, params, param_counts


Lineup = namedtuple("Lineup", ["policies", "params", "param_counts", "bot_of_seat"])


def seating(seat_bots) -> Lineup:
    """The table's arguments (see :func:`autodup.game.play_table`) from one :class:`Bot` per seat.

    Seats playing the same bot (same file and parameters) share one entry.
    """
    index_of: dict = {}  # (file, parameters) -> entry
    unique, bot_of_seat = [], []
    for bot in seat_bots:
        key = (bot.path, tuple(sorted(bot.parameters.items())))
        if key not in index_of:
            index_of[key] = len(unique)
            unique.append(bot)
        bot_of_seat.append(index_of[key])
    return Lineup(*policy_tuple(unique), np.array(bot_of_seat, dtype=np.int64))


@contextlib.contextmanager
def bot_errors_collected():
    """Collect the errors of failing policies (one line each) instead of printing a traceback per decision.

    A policy that raises inside the table returns 0 (counted in ``bot_errors``);
    Python reports the exception through ``sys.unraisablehook``, which this
    replaces for the duration. Yields the list the first 20 messages go to.
    """
    errors = []
    previous_hook = sys.unraisablehook

    def record(unraisable):
        if len(errors) < 20:  # a bot may fail a million times; its first messages say why
            errors.append(f"{type(unraisable.exc_value).__name__}: {unraisable.exc_value}".splitlines()[0])

    sys.unraisablehook = record
    try:
        yield errors
    finally:
        sys.unraisablehook = previous_hook


# --------------------------------------------------------------------------
# the bot check
# --------------------------------------------------------------------------

def explain_silent_errors(bot_errors: int, bad_answers: int):
    """The message for errors that came without an exception's text (None when there were none)."""
    if bot_errors:
        return ("decide returned 0, which is what a decision that raises returns: an error; return an answer "
                f"({_ANSWERS})")
    if bad_answers:
        return f"decide returned a value that is not an answer: {_ANSWERS}"
    return None


AS_WRITTEN = "as written"  # the label of the configuration itself among its variants


def rule_variants(config) -> dict:
    """Small changes of ``config``'s rules that a bot must play legally too: ``{label: GameConfig}``.

    A bot that restates a rule instead of reading legality from its view
    (``can_buy`` and its siblings) breaks when that rule changes; these
    variants change one rule each, so the bot check sees it:

    * ``shop.units_leave_pool``: the other value (shown units stay in the pool,
      so a buy also needs a copy left there; or the reverse);
    * ``shop.empty_tier``: every other rule :data:`autodup.config.EMPTY_TIER_RULES` allows;
    * ``bench_size: 1``: the smallest bench, so the bench is often full;
    * ``shop.size: 1``: a single slot;
    * ``levels.*.xp: 0``: every level free, so the max level comes at the first XP;
    * ``stages: the last only``: one stage, repeated from the first round (the level curve's edge).

    A variant that is already the configuration's own rule, or that the
    configuration cannot take, is left out. Each is the configuration's YAML
    (``config.text``, or its file) read, edited and compiled again with
    :func:`autodup.config.parse_config`.
    """
    import copy

    import yaml

    from .config import EMPTY_TIER_RULES, ConfigError, parse_config

    text = getattr(config, "text", "") or Path(config.source).read_text(encoding="utf-8")
    parsed = yaml.safe_load(text)
    variants = {}

    def variant(label, change):
        data = copy.deepcopy(parsed)
        change(data)
        try:
            variants[label] = parse_config(yaml.safe_dump(data, sort_keys=False), f"{config.source} ({label})")
        except ConfigError:
            pass  # a rule this configuration cannot take together with its others: not a variant of it

    def free_levels(data):
        for level in data["levels"].values():
            level["xp"] = 0

    leave = not config.units_leave_pool
    variant(f"shop.units_leave_pool: {str(leave).lower()}", lambda data: data["shop"].update(units_leave_pool=leave))
    for rule, code in EMPTY_TIER_RULES.items():
        if code != config.empty_tier:
            variant(f"shop.empty_tier: {rule}", lambda data, rule=rule: data["shop"].update(empty_tier=rule))
    if config.bench_size != 1:
        variant("bench_size: 1", lambda data: data.update(bench_size=1))
    if config.shop_size != 1:
        variant("shop.size: 1", lambda data: data["shop"].update(size=1))
    if config.level_xp[2:].any():
        variant("levels.*.xp: 0", free_levels)
    if config.n_stages > 1:
        variant("stages: the last only", lambda data: data.update(stages=data["stages"][-1:]))
    return variants


def check_bot(bot: Bot, config, games: int = 120, seed: int = 2026, progress=None, variant_games=None) -> dict:
    """Play ``bot`` through many tables, on ``config`` and on its rule variants, and report how it behaves.

    Half the tables seat the bot everywhere; the others alternate it with the
    ``random`` bot, whose play drives it into varied states. ``games`` tables
    play ``config`` as written, then ``variant_games`` each of
    :func:`rule_variants`, so that a bot which restates a rule instead of
    reading legality from its view is caught; by default one per 20 tables
    as written (6 each for the command's 120, none for a quick check of
    fewer than 20 tables, such as a run's determinism probe). Table ``g`` (counted over all of them) is board ``g`` of
    tournament ``seed``; the exact dealers take turns, and every step is
    checked for conservation. Every table is played a second time: any
    difference means the bot is not deterministic (a random number without
    an address, state kept outside ``memory``). ``progress`` (int64
    (PROGRESS_FIELDS,)) receives where the games are, for a watchdog (see
    :mod:`autodup.workers`); the table index there is left as the caller set
    it.

    Returns
    -------
    dict
        Over all tables: ``games``, ``seat_rounds`` (rounds the bot played,
        over its seats), ``illegal_actions``, ``cap_hits``, ``bot_errors``
        (decisions that raised), ``bad_answers`` (decisions that returned
        something that is not an answer), ``first_error`` (its message,
        after the variant's label when a variant caused it; or None),
        ``unsound_steps``, ``deterministic`` and ``clean`` (all zero and
        deterministic). ``variants`` holds the same counts (and
        ``first_error``, ``clean``) per rule set: :data:`AS_WRITTEN` first,
        then each label of :func:`rule_variants`.
    """
    from .boards import play_boards
    from .dealers import exact_dealers
    from .game import MISBEHAVIOUR_COLUMNS, RESULT_COLUMNS, rules_of

    per_variant = games // 20 if variant_games is None else int(variant_games)
    plan = [(AS_WRITTEN, rules_of(config), games)]
    if per_variant > 0:  # building the variants parses the configuration again for each: only when played
        plan += [(label, rules_of(variant), per_variant) for label, variant in rule_variants(config).items()]
    opponent = load_bot("random")
    dealers = exact_dealers()
    column = RESULT_COLUMNS.index

    def play(rules, first_board, count):
        outcome = []
        for g in range(first_board, first_board + count):
            mixed = g % 2 == 1
            seat_bots = [opponent if mixed and s % 2 else bot for s in range(rules.players)]
            *lineup, bot_of_seat = seating(seat_bots)
            played = play_boards(rules, dealers[g % len(dealers)], *lineup, seed=seed, first_board=g,
                                 seating="fixed", bot_of_seat=bot_of_seat, check=True, progress=progress)
            mine = np.array([b is bot for b in seat_bots])
            outcome.append((played.results[0, 0], int(played.violations[0, 0]), mine))
        return outcome

    variants = {}
    board = 0
    for label, rules, count in plan:
        with bot_errors_collected() as errors:
            first, second = play(rules, board, count), play(rules, board, count)
        board += count
        totals = {name: 0 for name in MISBEHAVIOUR_COLUMNS}
        rounds = unsound_steps = 0
        for results, unsound, mine in first:
            for name in totals:
                totals[name] += int(results[mine, column(name)].sum())
            rounds += int(results[mine, column("rounds_alive")].sum())
            unsound_steps += int(unsound)
        deterministic = all(np.array_equal(a[0], b[0]) for a, b in zip(first, second))
        first_error = errors[0] if errors else explain_silent_errors(totals["bot_errors"], totals["bad_answers"])
        part = {"games": count, "seat_rounds": rounds, **totals, "first_error": first_error,
                "unsound_steps": unsound_steps, "deterministic": deterministic}
        part["clean"] = deterministic and unsound_steps == 0 and not any(totals.values()) and first_error is None
        variants[label] = part
    report = {"bot": bot.name, "path": str(bot.path)}
    for key in ("games", "seat_rounds", *MISBEHAVIOUR_COLUMNS, "unsound_steps"):
        report[key] = sum(part[key] for part in variants.values())
    report["first_error"] = next((error if label == AS_WRITTEN else f"({label}) {error}"
                                  for label, part in variants.items() if (error := part["first_error"]) is not None),
                                 None)
    report["deterministic"] = all(part["deterministic"] for part in variants.values())
    report["clean"] = all(part["clean"] for part in variants.values())
    report["variants"] = variants
    return report
