"""Game configuration: YAML in, validated once, compiled to flat arrays for the jitted game.

A configuration describes the pool and the rules (see ``configs/set4.yaml``,
the default, for every key with comments). Loading checks everything and
raises :class:`ConfigError`, whose message is one line::

    FILE:LINE: field.path: what is wrong (what is allowed)

Field paths are dotted: ``levels.8.odds``, ``tiers.0.champions.3.name``.
Later tools address config values by these paths.

YAML is read with PyYAML's safe loader only (``yaml.compose`` with
``SafeLoader``, then safe construction), which also gives every node's line
and lets duplicate keys be refused rather than silently overwritten.

Schema (defaults in brackets)
-----------------------------
name [file name]; players (2-8); starting_hp; starting_gold [0]; bench_size [9];
max_rounds [200]: a game still running after this many rounds is ranked by HP.
shop: size, reroll_price, units_leave_pool [true], empty_tier [skip | empty].
xp: price, amount, per_round.
levels: ``<level>: {xp, board_size [level], odds: [percent per tier]}`` for
levels 1..max, contiguous; odds sum to 100; level 1 needs 0 xp.
economy: interest {per, max}, pvp_win_gold, streaks [{length, gold}, ...].
stages: [{rounds, pve: [round numbers], damage, income: int or one per round}];
the last stage repeats.
combat: star_power [3 numbers], scale, damage_per_surviving_unit.
loot: per_pve_round, bag: [{gold: n} | {unit: tier}, ...].
tiers: [{cost, copies, champions: [{name, traits: [...], copies [tier's]}]}].
traits: ``<name>: {breakpoints: [increasing counts], bonus: [one per breakpoint]}``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

EMPTY_TIER_SKIP = 0
EMPTY_TIER_EMPTY = 1
EMPTY_TIER_RULES = {"skip": EMPTY_TIER_SKIP, "empty": EMPTY_TIER_EMPTY}
MAX_PLAYERS = 8
STAR_LEVELS = 3
_BIG = 10**6


class ConfigError(ValueError):
    """An invalid configuration; ``str(error)`` is the one-line message."""

    def __init__(self, file: str, line: int, path: str, message: str):
        self.file, self.line, self.path, self.message = file, line, path, message
        location = f"{file}:{line}" if line else file
        super().__init__(f"{location}: {path}: {message}" if path else f"{location}: {message}")


# --------------------------------------------------------------------------
# YAML with line numbers
# --------------------------------------------------------------------------


def _node_lines(node, path: tuple, lines: dict, file: str, line: int | None = None) -> None:
    """Record the 1-based line of every node by path (a mapping value at its key's line); refuse duplicate keys."""
    lines[path] = line if line is not None else node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise ConfigError(file, key_node.start_mark.line + 1, _dotted(path),
                                  "a key is a list or mapping (allowed: plain text or number keys)")
            try:
                key = _path_key(_KEY_CONSTRUCTOR.construct_object(key_node))
            except (yaml.YAMLError, ValueError, TypeError) as error:
                raise ConfigError(file, key_node.start_mark.line + 1, _dotted(path),
                                  f"a key cannot be read ({_first_line(error)}) (allowed: plain text or number keys)") \
                    from None
            if key in seen:
                raise ConfigError(file, key_node.start_mark.line + 1, _dotted(path + (key,)),
                                  "duplicate key (each key may appear once)")
            seen.add(key)
            _node_lines(value_node, path + (key,), lines, file, key_node.start_mark.line + 1)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _node_lines(item, path + (index,), lines, file)


_KEY_CONSTRUCTOR = yaml.constructor.SafeConstructor()


def _first_line(error) -> str:
    text = getattr(error, "problem", None) or str(error)
    return text.strip().splitlines()[0] if text.strip() else type(error).__name__


def _path_key(key):
    return str(key) if not isinstance(key, (str, int)) or isinstance(key, bool) else key


def _dotted(path: tuple) -> str:
    return ".".join(str(p) for p in path)


def _parse_yaml(text: str, file: str) -> tuple[Any, dict]:
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = mark.line + 1 if mark else 0
        raise ConfigError(file, line, "", f"not valid YAML: {_first_line(error)}") from None
    except yaml.YAMLError as error:
        raise ConfigError(file, 0, "", f"not valid YAML: {error}") from None
    if node is None:
        raise ConfigError(file, 1, "", "empty file (a mapping of configuration keys is needed)")
    lines: dict = {}
    _node_lines(node, (), lines, file)
    try:
        loader = yaml.SafeLoader(text)
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as error:  # tags the safe loader refuses, unhashable keys, merge keys
        mark = error.problem_mark or error.context_mark
        raise ConfigError(file, mark.line + 1 if mark else 0, "",
                          f"cannot be read: {_first_line(error)} (allowed: plain YAML scalars, lists and mappings)") \
            from None
    except (yaml.YAMLError, ValueError, TypeError) as error:
        raise ConfigError(file, 0, "", f"cannot be read: {_first_line(error)} "
                          "(allowed: plain YAML scalars, lists and mappings)") from None
    return data, lines


# --------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------


class _Reader:
    """Typed access to the parsed YAML; every failure is a one-line ConfigError."""

    def __init__(self, data: Any, lines: dict, file: str):
        self.data, self.lines, self.file = data, lines, file

    def fail(self, path: tuple, message: str):
        line = 0
        for depth in range(len(path), -1, -1):
            if path[:depth] in self.lines:
                line = self.lines[path[:depth]]
                break
        raise ConfigError(self.file, line, _dotted(path), message)

    def get(self, path: tuple):
        value = self.data
        for key in path:
            value = value[key]
        return value

    def mapping(self, path: tuple, required: tuple = (), optional: tuple = (), value=None) -> dict:
        value = self.get(path) if value is None else value
        if not isinstance(value, dict):
            self.fail(path, f"must be a mapping, got {_describe(value)} (allowed: a mapping of keys)")
        allowed = set(required) | set(optional)
        for key in value:
            if key not in allowed:
                self.fail(path + (key,), f"unknown key (allowed: {', '.join(sorted(map(str, allowed)))})")
        for key in required:
            if key not in value:
                where = _dotted(path) or "the top level"
                self.fail(path + (key,), f"missing (required keys of {where}: {', '.join(required)})")
        return value

    def integer(self, path: tuple, low: int, high: int, default=None) -> int:
        value = self._value(path, default)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, f"must be an integer, got {_describe(value)} (allowed: {low} to {high})")
        if not low <= value <= high:
            self.fail(path, f"{value} is out of range (allowed: {low} to {high})")
        return value

    def number(self, path: tuple, low: float, high: float, default=None) -> float:
        value = self._value(path, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            self.fail(path, f"must be a finite number, got {_describe(value)} (allowed: {low} to {high})")
        if not low <= value <= high:
            self.fail(path, f"{value} is out of range (allowed: {low} to {high})")
        return float(value)

    def boolean(self, path: tuple, default=None) -> bool:
        value = self._value(path, default)
        if not isinstance(value, bool):
            self.fail(path, f"must be true or false, got {_describe(value)} (allowed: true, false)")
        return value

    def string(self, path: tuple, default=None) -> str:
        value = self._value(path, default)
        if not isinstance(value, str) or not value.strip():
            self.fail(path, f"must be a non-empty string, got {_describe(value)} (allowed: text)")
        return value

    def choice(self, path: tuple, options: dict, default=None):
        value = self._value(path, default)
        if not isinstance(value, str) or value not in options:
            self.fail(path, f"{value!r} is not an option (allowed: {', '.join(options)})")
        return options[value]

    def sequence(self, path: tuple, low: int, high: int) -> list:
        value = self.get(path)
        if not isinstance(value, list):
            self.fail(path, f"must be a list, got {_describe(value)} (allowed: a list of {low} to {high} entries)")
        if not low <= len(value) <= high:
            allowed = f"exactly {low}" if low == high else f"{low} to {high}"
            self.fail(path, f"has {len(value)} entries (allowed: {allowed})")
        return value

    def _value(self, path: tuple, default):
        try:
            return self.get(path)
        except (KeyError, IndexError, TypeError):
            if default is None:
                self.fail(path, "missing (a required key)")
            return default


def _describe(value) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (dict, list)):
        return type(value).__name__
    return f"{type(value).__name__} {value!r}"


# --------------------------------------------------------------------------
# the compiled configuration
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class GameConfig:
    """A validated configuration and its flat arrays (all int64 / float64 / bool numpy arrays).

    Attributes
    ----------
    champion_names : list of str, (N,)
    trait_names : list of str, (K,)
    tier_cost : int64 (T,)
    tier_start : int64 (T + 1,)
        Champions of tier ``t`` are ``tier_start[t]:tier_start[t+1]``.
    champion_tier, champion_copies : int64 (N,)
    champion_traits : int64 (N, M)
        Trait indices of each champion, padded with -1.
    trait_breakpoints : int64 (K, B)
        Padded with a count no board reaches.
    trait_bonus : float64 (K, B)
    level_xp, level_board_size : int64 (L + 1,)
        Indexed by level (index 0 unused); ``level_xp[l]`` is the XP to reach ``l``.
    level_odds : float64 (L + 1, T)
        Shop odds in percent, by level.
    round_stage, round_damage, round_income : int64 (max_rounds,)
    round_pve : bool (max_rounds,)
    streak_length, streak_gold : int64 (S,)
    loot_gold, loot_unit_tier : int64 (bag size,)
        A bag item gives ``loot_gold`` gold or, if ``loot_unit_tier >= 0``, a
        free champion of that tier.
    star_power : float64 (3,)
    """

    name: str
    source: str
    players: int
    starting_hp: int
    starting_gold: int
    bench_size: int
    max_rounds: int
    shop_size: int
    reroll_price: int
    units_leave_pool: bool
    empty_tier: int
    xp_price: int
    xp_amount: int
    xp_per_round: int
    max_level: int
    interest_per: int
    interest_max: int
    pvp_win_gold: int
    combat_scale: float
    damage_per_surviving_unit: int
    loot_per_pve_round: int
    n_stages: int
    champion_names: list
    trait_names: list
    tier_cost: np.ndarray
    tier_start: np.ndarray
    champion_tier: np.ndarray
    champion_copies: np.ndarray
    champion_traits: np.ndarray
    trait_breakpoints: np.ndarray
    trait_bonus: np.ndarray
    level_xp: np.ndarray
    level_board_size: np.ndarray
    level_odds: np.ndarray
    round_stage: np.ndarray
    round_pve: np.ndarray
    round_damage: np.ndarray
    round_income: np.ndarray
    streak_length: np.ndarray
    streak_gold: np.ndarray
    loot_gold: np.ndarray
    loot_unit_tier: np.ndarray
    star_power: np.ndarray
    lines: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def n_tiers(self) -> int:
        return int(self.tier_cost.shape[0])

    @property
    def n_champions(self) -> int:
        return int(self.champion_copies.shape[0])

    @property
    def champion_cost(self) -> np.ndarray:
        """int64 (N,): the gold cost of each champion (its tier's cost)."""
        return self.tier_cost[self.champion_tier]

    def summary(self) -> str:
        """A few lines for a person: what the file describes."""
        per_tier = ", ".join(
            f"{int(self.tier_start[t + 1] - self.tier_start[t])}x{self.tier_cost[t]}g"
            for t in range(self.n_tiers))
        return "\n".join([
            f"{self.source}: valid",
            f"  name: {self.name}",
            f"  players: {self.players}, starting HP {self.starting_hp}, bench {self.bench_size}, "
            f"shop {self.shop_size} slots at {self.reroll_price}g a reroll",
            f"  pool: {self.n_champions} champions in {self.n_tiers} tiers ({per_tier}), "
            f"{int(self.champion_copies.sum())} copies",
            f"  levels: 1..{self.max_level}; traits: {len(self.trait_names)}; stages: {self.n_stages} "
            f"(the last repeats; at most {self.max_rounds} rounds)",
        ])


def load_config(path) -> GameConfig:
    """Read, validate and compile a configuration file.

    Raises
    ------
    ConfigError
        One line naming the file, line, field and what is wrong.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(str(path), 0, "", "no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(str(path), 0, "", f"cannot be read ({error})") from None
    return parse_config(text, str(path))


def parse_config(text: str, file: str = "<config>") -> GameConfig:
    """Validate and compile configuration text (see :func:`load_config`)."""
    data, lines = _parse_yaml(text, file)
    return _compile(_Reader(data, lines, file), Path(file).stem)


def _compile(r: _Reader, default_name: str) -> GameConfig:
    top = r.mapping((), required=("players", "starting_hp", "shop", "xp", "levels", "economy", "stages", "combat",
                                  "tiers", "traits"),
                    optional=("name", "starting_gold", "bench_size", "max_rounds", "loot"))
    name = r.string(("name",), default=default_name)
    players = r.integer(("players",), 2, MAX_PLAYERS)
    starting_hp = r.integer(("starting_hp",), 1, _BIG)
    starting_gold = r.integer(("starting_gold",), 0, _BIG, default=0)
    bench_size = r.integer(("bench_size",), 1, 100, default=9)
    max_rounds = r.integer(("max_rounds",), 1, 10_000, default=200)

    r.mapping(("shop",), required=("size", "reroll_price"), optional=("units_leave_pool", "empty_tier"))
    shop_size = r.integer(("shop", "size"), 1, 20)
    reroll_price = r.integer(("shop", "reroll_price"), 0, _BIG)
    units_leave_pool = r.boolean(("shop", "units_leave_pool"), default=True)
    empty_tier = r.choice(("shop", "empty_tier"), EMPTY_TIER_RULES, default="skip")

    r.mapping(("xp",), required=("price", "amount", "per_round"))
    xp_price = r.integer(("xp", "price"), 0, _BIG)
    xp_amount = r.integer(("xp", "amount"), 1, _BIG)
    xp_per_round = r.integer(("xp", "per_round"), 0, _BIG)

    # Tiers and traits come first: levels' odds are checked against the tiers.
    trait_names, trait_breakpoints, trait_bonus = _traits(r)
    tiers = _tiers(r, trait_names)
    n_tiers = len(tiers["cost"])
    level_xp, level_board_size, level_odds = _levels(r, n_tiers, bench_size)
    for t in range(n_tiers):
        if tiers["size"][t] == 0 and np.any(level_odds[:, t] > 0):
            level = int(np.flatnonzero(level_odds[:, t] > 0)[0])
            r.fail(("levels", level, "odds", t), f"tier {t + 1} has positive odds but no champions "
                   f"(allowed: 0 odds for an empty tier)")

    r.mapping(("economy",), required=("interest", "pvp_win_gold", "streaks"))
    r.mapping(("economy", "interest"), required=("per", "max"))
    interest_per = r.integer(("economy", "interest", "per"), 1, _BIG)
    interest_max = r.integer(("economy", "interest", "max"), 0, _BIG)
    pvp_win_gold = r.integer(("economy", "pvp_win_gold"), 0, _BIG)
    streak_length, streak_gold = [], []
    for i, _ in enumerate(r.sequence(("economy", "streaks"), 0, 50)):
        r.mapping(("economy", "streaks", i), required=("length", "gold"))
        streak_length.append(r.integer(("economy", "streaks", i, "length"), 2, 1000))
        streak_gold.append(r.integer(("economy", "streaks", i, "gold"), 0, _BIG))
        if i and streak_length[i] <= streak_length[i - 1]:
            r.fail(("economy", "streaks", i, "length"),
                   f"{streak_length[i]} does not exceed the previous length {streak_length[i - 1]} "
                   "(allowed: increasing lengths)")

    round_stage, round_pve, round_damage, round_income = _stages(r, max_rounds)

    r.mapping(("combat",), required=("star_power", "scale", "damage_per_surviving_unit"))
    star_power = [r.number(("combat", "star_power", i), 1e-6, 1e6)
                  for i in range(len(r.sequence(("combat", "star_power"), STAR_LEVELS, STAR_LEVELS)))]
    combat_scale = r.number(("combat", "scale"), 1e-3, 1e3)
    damage_per_surviving_unit = r.integer(("combat", "damage_per_surviving_unit"), 0, _BIG)

    loot_per_pve_round, loot_gold, loot_unit_tier = 0, [], []
    if "loot" in top:
        r.mapping(("loot",), required=("per_pve_round", "bag"))
        loot_per_pve_round = r.integer(("loot", "per_pve_round"), 0, 100)
        for i, _ in enumerate(r.sequence(("loot", "bag"), 1, 1000)):
            item = r.mapping(("loot", "bag", i), optional=("gold", "unit"))
            if len(item) != 1:
                r.fail(("loot", "bag", i), f"has {len(item)} kinds of reward (allowed: exactly one of {{gold: n}} "
                       "or {unit: tier})")
            if "gold" in item:
                loot_gold.append(r.integer(("loot", "bag", i, "gold"), 0, _BIG))
                loot_unit_tier.append(-1)
            else:
                loot_gold.append(0)
                tier = r.integer(("loot", "bag", i, "unit"), 1, n_tiers) - 1
                if tiers["size"][tier] == 0:
                    r.fail(("loot", "bag", i, "unit"), f"tier {tier + 1} has no champions "
                           "(allowed: a tier with champions)")
                loot_unit_tier.append(tier)

    return GameConfig(
        name=name, source=r.file, players=players, starting_hp=starting_hp, starting_gold=starting_gold,
        bench_size=bench_size, max_rounds=max_rounds, shop_size=shop_size, reroll_price=reroll_price,
        units_leave_pool=units_leave_pool, empty_tier=empty_tier, xp_price=xp_price, xp_amount=xp_amount,
        xp_per_round=xp_per_round, max_level=level_xp.shape[0] - 1, interest_per=interest_per,
        interest_max=interest_max, pvp_win_gold=pvp_win_gold, combat_scale=combat_scale,
        damage_per_surviving_unit=damage_per_surviving_unit, loot_per_pve_round=loot_per_pve_round,
        n_stages=len(r.get(("stages",))), champion_names=tiers["names"], trait_names=trait_names,
        tier_cost=np.array(tiers["cost"], dtype=np.int64),
        tier_start=np.concatenate([[0], np.cumsum(tiers["size"])]).astype(np.int64),
        champion_tier=np.array(tiers["tier_of"], dtype=np.int64),
        champion_copies=np.array(tiers["copies"], dtype=np.int64),
        champion_traits=tiers["traits"], trait_breakpoints=trait_breakpoints, trait_bonus=trait_bonus,
        level_xp=level_xp, level_board_size=level_board_size, level_odds=level_odds,
        round_stage=round_stage, round_pve=round_pve, round_damage=round_damage, round_income=round_income,
        streak_length=np.array(streak_length, dtype=np.int64), streak_gold=np.array(streak_gold, dtype=np.int64),
        loot_gold=np.array(loot_gold, dtype=np.int64), loot_unit_tier=np.array(loot_unit_tier, dtype=np.int64),
        star_power=np.array(star_power), lines=r.lines,
    )


def _traits(r: _Reader):
    traits = r.get(("traits",))
    if not isinstance(traits, dict):
        r.fail(("traits",), f"must be a mapping, got {_describe(traits)} (allowed: trait names to their breakpoints)")
    names = []
    for name in traits:
        if not isinstance(name, str) or not name.strip():
            r.fail(("traits", name), "is not a trait name (allowed: non-empty text)")
        names.append(name)
    breakpoints = []
    bonuses = []
    for name in names:
        r.mapping(("traits", name), required=("breakpoints", "bonus"))
        counts = r.sequence(("traits", name, "breakpoints"), 1, 20)
        levels = [r.integer(("traits", name, "breakpoints", i), 1, 100) for i in range(len(counts))]
        for i in range(1, len(levels)):
            if levels[i] <= levels[i - 1]:
                r.fail(("traits", name, "breakpoints", i),
                       f"{levels[i]} does not exceed {levels[i - 1]} (allowed: strictly increasing counts)")
        bonus = r.sequence(("traits", name, "bonus"), len(levels), len(levels))
        bonuses.append([r.number(("traits", name, "bonus", i), 0.0, 1000.0) for i in range(len(bonus))])
        breakpoints.append(levels)
    width = max((len(b) for b in breakpoints), default=1)
    trait_breakpoints = np.full((len(names), width), np.iinfo(np.int32).max, dtype=np.int64)
    trait_bonus = np.zeros((len(names), width))
    for k, (levels, bonus) in enumerate(zip(breakpoints, bonuses)):
        trait_breakpoints[k, :len(levels)] = levels
        trait_bonus[k, :len(bonus)] = bonus
    return names, trait_breakpoints, trait_bonus


def _tiers(r: _Reader, trait_names: list) -> dict:
    trait_index = {name: k for k, name in enumerate(trait_names)}
    result = {"cost": [], "size": [], "names": [], "tier_of": [], "copies": [], "trait_lists": []}
    seen = {}
    for t, _ in enumerate(r.sequence(("tiers",), 1, 10)):
        r.mapping(("tiers", t), required=("cost", "copies", "champions"))
        result["cost"].append(r.integer(("tiers", t, "cost"), 0, _BIG))
        tier_copies = r.integer(("tiers", t, "copies"), 0, _BIG)
        champions = r.sequence(("tiers", t, "champions"), 0, 500)
        result["size"].append(len(champions))
        for c, _ in enumerate(champions):
            path = ("tiers", t, "champions", c)
            r.mapping(path, required=("name", "traits"), optional=("copies",))
            name = r.string(path + ("name",))
            if name in seen:
                r.fail(path + ("name",), f"{name!r} is already a champion at {_dotted(seen[name])} "
                       "(allowed: unique names)")
            seen[name] = path + ("name",)
            result["names"].append(name)
            result["tier_of"].append(t)
            result["copies"].append(r.integer(path + ("copies",), 0, _BIG, default=tier_copies))
            traits = r.sequence(path + ("traits",), 0, 10)
            indices = []
            for i, trait in enumerate(traits):
                if not isinstance(trait, str) or trait not in trait_index:
                    known = ", ".join(trait_names[:8]) + (", ..." if len(trait_names) > 8 else "")
                    r.fail(path + ("traits", i), f"unknown trait {trait!r} (allowed: a key of traits: {known})")
                if trait_index[trait] in indices:
                    r.fail(path + ("traits", i), f"trait {trait!r} listed twice (allowed: each trait once)")
                indices.append(trait_index[trait])
            result["trait_lists"].append(indices)
    width = max((len(x) for x in result["trait_lists"]), default=1) or 1
    traits = np.full((len(result["names"]), width), -1, dtype=np.int64)
    for i, indices in enumerate(result["trait_lists"]):
        traits[i, :len(indices)] = indices
    result["traits"] = traits
    return result


def _levels(r: _Reader, n_tiers: int, bench_size: int):
    levels = r.get(("levels",))
    if not isinstance(levels, dict) or not levels:
        r.fail(("levels",), f"must be a mapping, got {_describe(levels)} (allowed: level numbers to their odds)")
    for key in levels:
        if isinstance(key, bool) or not isinstance(key, int) or not 1 <= key <= 50:
            r.fail(("levels", key), f"{key!r} is not a level number (allowed: integers 1 to 50)")
    max_level = max(levels)
    for level in range(1, max_level + 1):
        if level not in levels:
            r.fail(("levels",), f"level {level} is missing (allowed: levels 1..{max_level} without gaps)")
    xp = np.zeros(max_level + 1, dtype=np.int64)
    board = np.zeros(max_level + 1, dtype=np.int64)
    odds = np.zeros((max_level + 1, n_tiers))
    for level in range(1, max_level + 1):
        path = ("levels", level)
        r.mapping(path, required=("xp", "odds"), optional=("board_size",))
        xp[level] = r.integer(path + ("xp",), 0, _BIG)
        if level == 1 and xp[level] != 0:
            r.fail(path + ("xp",), f"{xp[level]} for level 1 (allowed: 0, the starting level)")
        board[level] = r.integer(path + ("board_size",), 1, 100, default=level)
        if level > 1 and board[level] < board[level - 1]:
            r.fail(path + ("board_size",), f"{board[level]} is smaller than level {level - 1}'s {board[level - 1]} "
                   "(allowed: board sizes that never decrease)")
        entries = r.sequence(path + ("odds",), n_tiers, n_tiers)
        for t in range(len(entries)):
            odds[level, t] = r.number(path + ("odds", t), 0.0, 100.0)
        if abs(odds[level].sum() - 100.0) > 1e-9:
            r.fail(path + ("odds",), f"sums to {odds[level].sum():g} (allowed: percentages summing to 100)")
    return xp, board, odds


def _stages(r: _Reader, max_rounds: int):
    stages = r.sequence(("stages",), 1, 100)
    per_stage = []
    for s, _ in enumerate(stages):
        path = ("stages", s)
        r.mapping(path, required=("rounds", "damage", "income"), optional=("pve",))
        rounds = r.integer(path + ("rounds",), 1, 100)
        damage = r.integer(path + ("damage",), 0, _BIG)
        pve = []
        if "pve" in r.get(path):
            for i, _ in enumerate(r.sequence(path + ("pve",), 0, rounds)):
                pve.append(r.integer(path + ("pve", i), 1, rounds))
        income = r.get(path + ("income",))
        if isinstance(income, list):
            r.sequence(path + ("income",), rounds, rounds)
            income = [r.integer(path + ("income", i), 0, _BIG) for i in range(rounds)]
        else:
            income = [r.integer(path + ("income",), 0, _BIG)] * rounds
        per_stage.append((rounds, set(pve), damage, income))
    if all(len(p[1]) == p[0] for p in per_stage[-1:]):
        r.fail(("stages", len(stages) - 1, "pve"),
               "the last stage repeats until the game ends, so it needs a PvP round (allowed: fewer PvE rounds)")
    stage_of, pve, damage, income = [], [], [], []
    s = 0
    while len(stage_of) < max_rounds:
        rounds, pve_rounds, stage_damage, stage_income = per_stage[min(s, len(per_stage) - 1)]
        for i in range(rounds):
            if len(stage_of) == max_rounds:
                break
            stage_of.append(s)
            pve.append(i + 1 in pve_rounds)
            damage.append(stage_damage)
            income.append(stage_income[i])
        s += 1
    return (np.array(stage_of, dtype=np.int64), np.array(pve, dtype=bool), np.array(damage, dtype=np.int64),
            np.array(income, dtype=np.int64))
