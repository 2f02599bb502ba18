"""Validating a parsed configuration field by field, and the warnings for valid but surely unmeant files."""

from __future__ import annotations

import math
import unicodedata
from typing import Any

import numpy as np

from ..errors import ConfigError, one_line
from .config_file import (
    BIG_NUMBER,
    COPIES_FOR_TOP_STAR,
    EMPTY_TIER_SKIP,
    STAR_LEVELS,
    YamlNotes,
    describe_value,
    dotted_path,
    path_key,
    quote,
    shorten,
    show_number,
    yaml_float_text,
)

__all__ = ["ConfigReader", "warning_lines", "check_characters", "check_copies", "check_damage", "read_traits",
           "read_tiers", "read_levels", "read_stages"]


class ConfigReader:
    """Typed access to the parsed YAML; every failure is a one-line ConfigError, every suspicion a warning.

    Parameters
    ----------
    data : object
        The constructed YAML document.
    notes : YamlNotes
        Lines and spellings from :func:`_walk`.
    file : str
        The name messages start with.
    """

    def __init__(self, data: Any, notes: YamlNotes, file: str):
        self.data, self.notes, self.file = data, notes, file
        self.lines = notes.lines
        self.warnings: list = []
        self.booleans: set = set()  # paths read as booleans, where ``yes`` is what was meant

    def line(self, path: tuple) -> int:
        """The line of ``path`` or of its nearest ancestor with one."""
        path = tuple(path_key(p) for p in path)
        for depth in range(len(path), -1, -1):
            if path[:depth] in self.lines:
                return self.lines[path[:depth]]
        return 0

    def fail(self, path: tuple, message: str):
        raise ConfigError(self.file, self.line(path), dotted_path(path, self.notes.keys), message)

    def warn(self, path: tuple, message: str) -> None:
        self.warnings.append((self.line(path), dotted_path(path, self.notes.keys), f"warning: {message}"))

    def spelling(self, path: tuple, key: bool = False):
        """The :class:`_Spelling` of the value (or key) at ``path`` if YAML read it differently, else None."""
        return (self.notes.keys if key else self.notes.values).get(tuple(path_key(p) for p in path))

    def describe(self, path: tuple, value) -> str:
        """``value`` for a message; as written in the file if YAML read it as something else."""
        spelling = self.spelling(path)
        return spelling.shown() if spelling is not None else describe_value(value)

    def shown(self, path: tuple, value) -> str:
        """Like :meth:`describe` without the type: ``"12"``, ``"011 (read by YAML as 9, octal)"``."""
        spelling = self.spelling(path)
        return spelling.shown() if spelling is not None else show_number(value)

    def get(self, path: tuple):
        value = self.data
        for key in path:
            value = value[key]
        return value

    def mapping(self, path: tuple, required: tuple = (), optional: tuple = (), value=None) -> dict:
        value = self.get(path) if value is None else value
        if not isinstance(value, dict):
            self.fail(path, f"must be a mapping, got {self.describe(path, value)} (allowed: a mapping of keys)")
        allowed = set(required) | set(optional)
        for key in value:
            if key not in allowed:
                spelling = self.spelling(path + (key,), key=True)
                read_as = f"; YAML reads {spelling.text} as {describe_value(key)}, quote it (\"{spelling.text}\") " \
                    "for text" if spelling is not None else ""
                self.fail(path + (key,), f"unknown key{read_as} (allowed: {', '.join(sorted(map(str, allowed)))})")
        for key in required:
            if key not in value:
                where = dotted_path(path, self.notes.keys) or "the top level"
                self.fail(path + (key,), f"missing (required keys of {where}: {', '.join(required)})")
        return value

    def integer(self, path: tuple, low: int, high: int, default=None) -> int:
        value = self._value(path, default)
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, f"must be an integer, got {self.describe(path, value)} (allowed: {low} to {high})")
        if not low <= value <= high:
            self.fail(path, f"{self.shown(path, value)} is out of range (allowed: {low} to {high})")
        return value

    def number(self, path: tuple, low: float, high: float, default=None) -> float:
        value = self._value(path, default)
        # An integer too large for a float is out of range, not an OverflowError.
        finite = isinstance(value, int) or isinstance(value, float) and math.isfinite(value)
        if isinstance(value, bool) or not finite:
            hint = ""
            if isinstance(value, str) and yaml_float_text(value) is not None:
                hint = f"; YAML reads {value} as text, write {yaml_float_text(value)} for a number"
            self.fail(path, f"must be a finite number, got {self.describe(path, value)}{hint} "
                      f"(allowed: {low} to {high})")
        if not low <= value <= high:
            self.fail(path, f"{self.shown(path, value)} is out of range (allowed: {low} to {high})")
        return float(value)

    def boolean(self, path: tuple, default=None) -> bool:
        value = self._value(path, default)
        if not isinstance(value, bool):
            self.fail(path, f"must be true or false, got {self.describe(path, value)} (allowed: true, false)")
        self.booleans.add(tuple(path_key(p) for p in path))
        return value

    def string(self, path: tuple, default=None) -> str:
        value = self._value(path, default)
        if not isinstance(value, str) or not value.strip():
            self.fail(path, f"must be a non-empty string, got {self.describe(path, value)}{self._quote_hint(path)} "
                      "(allowed: text)")
        return value

    def choice(self, path: tuple, options: dict, default=None):
        value = self._value(path, default)
        if not isinstance(value, str) or value not in options:
            shown = self.describe(path, value) if self.spelling(path) is not None else quote(value)
            self.fail(path, f"{shown} is not an option (allowed: {', '.join(options)})")
        return options[value]

    def sequence(self, path: tuple, low: int, high: int) -> list:
        value = self.get(path)
        allowed = f"exactly {low}" if low == high else f"{low} to {high}"
        if not isinstance(value, list):
            self.fail(path, f"must be a list, got {self.describe(path, value)} (allowed: a list of {allowed} entries)")
        if not low <= len(value) <= high:
            self.fail(path, f"has {len(value)} entries (allowed: {allowed})")
        return value

    def _quote_hint(self, path: tuple) -> str:
        spelling = self.spelling(path)
        return f'; quote it ("{spelling.text}") for text' if spelling is not None else ""

    def _value(self, path: tuple, default):
        try:
            return self.get(path)
        except (KeyError, IndexError, TypeError):
            if default is None:
                self.fail(path, "missing (a required key)")
            return default


# --------------------------------------------------------------------------
# valid but surely not meant: warnings
# --------------------------------------------------------------------------


def warning_lines(r: ConfigReader) -> tuple:
    """Every warning of ``r`` plus those for YAML 1.1 readings, as sorted one-line strings."""
    found = list(r.warnings)
    for key, spellings in ((False, r.notes.values), (True, r.notes.keys)):
        for path, spelling in spellings.items():
            # ``units_leave_pool: yes`` means true: only a boolean read where it is not wanted is a surprise.
            if not spelling.reading or not key and spelling.reading == "boolean" and path in r.booleans:
                continue
            found.append((spelling.line, dotted_path(path, r.notes.keys), f"warning: {spelling.warning(key)}"))
    return tuple(str(ConfigError(r.file, line, path, message)) for line, path, message in sorted(set(found)))


# Unicode categories of characters that do not show as themselves: controls (tab, newline, NUL, escape),
# formatting (zero-width space, bidirectional overrides) and line or paragraph separators.
_CONTROL_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")


def check_characters(r: ConfigReader, path: tuple, name: str) -> None:
    """Warn about a name holding characters that do not show as themselves."""
    hidden = [character for character in name if unicodedata.category(character) in _CONTROL_CATEGORIES]
    if hidden:
        others = f" and {len(hidden) - 1} more" if len(hidden) > 1 else ""
        r.warn(path, f"{quote(name)} contains the control character {repr(hidden[0])[1:-1]} "
               f"(U+{ord(hidden[0]):04X}){others} (it does not show in tables and reports, and the name typed "
               "without it is a different name; remove it)")


def _name_key(name: str) -> str:
    """``name`` without case, whitespace or hidden characters: two names with one key were surely meant as one."""
    return "".join(character for character in "".join(name.split()).casefold()
                   if unicodedata.category(character) not in _CONTROL_CATEGORIES)


def _check_names(r: ConfigReader, named: list, kind: str) -> None:
    """Warn about hidden characters and about names that differ only in case or spaces.

    Parameters
    ----------
    named : list of (path, name)
        In file order; the later name of a near pair gets the warning.
    kind : str
        ``"champions"`` or ``"traits"``, for the message.
    """
    first = {}
    for path, name in named:
        check_characters(r, path, name)
        other = first.setdefault(_name_key(name), (path, name))
        if other[1] != name:
            r.warn(path, f"{quote(name)} and {quote(other[1])} at {dotted_path(other[0], r.notes.keys)} differ only "
                   f"in case or spaces (they are two different {kind}; surely one was meant)")


def check_copies(r: ConfigReader, tiers: dict, level_odds: np.ndarray, empty_tier: int) -> None:
    """Warn about a tier the shops roll that has no copies, and champions that can never reach the top star."""
    copies = np.array(tiers["copies"], dtype=np.int64)
    tier_of = np.array(tiers["tier_of"], dtype=np.int64)
    for t in range(len(tiers["tier_copies"])):
        members = np.flatnonzero(tier_of == t)
        if members.size and not copies[members].any() and np.any(level_odds[:, t] > 0):
            level = int(np.flatnonzero(level_odds[:, t] > 0)[0])
            inherited = not any(tiers["own_copies"][c] for c in members)
            consequence = "skipped" if empty_tier == EMPTY_TIER_SKIP else "left empty"
            r.warn(("tiers", t, "copies") if inherited else ("tiers", t, "champions"),
                   f"tier {t + 1} has 0 copies in total, yet levels.{level}.odds gives it "
                   f"{level_odds[level, t]:g}% (a shop slot that rolls it is {consequence}, so the odds as "
                   "written never apply; give its champions copies or the tier 0 odds)")
        elif members.size and copies[members].any():
            # One champion given 0 copies of its own in a tier that has copies: it is never dealt.
            for champion in members[copies[members] == 0]:
                if tiers["own_copies"][champion]:
                    r.warn(("tiers", t, "champions", int(champion) - tiers["tier_start"][t], "copies"),
                           f"0: {quote(tiers['names'][champion])} is never dealt (give it copies, or leave it out)")
    # A pool where no champion reaches the top star is a design (configs/tiny.yaml); a pool where some do and
    # others cannot is surely a typo.
    if copies.size == 0 or copies.max() < COPIES_FOR_TOP_STAR:
        return
    why = f"a {STAR_LEVELS}-star holds {COPIES_FOR_TOP_STAR} copies, and champions with more copies can reach it"
    for t, tier_copies in enumerate(tiers["tier_copies"]):
        low = [int(c) for c in np.flatnonzero(tier_of == t) if 0 < copies[c] < COPIES_FOR_TOP_STAR]
        if not low:
            continue
        if all(not tiers["own_copies"][c] for c in low):
            which = (f"none of tier {t + 1}'s {len(low)} champions can" if len(low) == tiers["size"][t] else
                     f"{len(low)} of tier {t + 1}'s {tiers['size'][t]} champions (those without their own copies) "
                     "can never")
            r.warn(("tiers", t, "copies"), f"{tier_copies} copies, so {which} reach {STAR_LEVELS} stars ({why})")
        elif len(low) == 1:  # one champion with copies of its own (had it the tier's, the case above)
            champion = low[0]
            r.warn(("tiers", t, "champions", champion - tiers["tier_start"][t], "copies"),
                   f"{copies[champion]} copies, so {quote(tiers['names'][champion])} can never reach "
                   f"{STAR_LEVELS} stars ({why})")
        else:
            listed = ", ".join(f"{shorten(tiers['names'][c])} ({copies[c]})" for c in low[:5])
            more = f" and {len(low) - 5} more" if len(low) > 5 else ""
            r.warn(("tiers", t, "champions"), f"{len(low)} champions can never reach {STAR_LEVELS} stars: "
                   f"{listed}{more} ({why})")


def check_damage(r: ConfigReader, max_rounds: int, round_pve: np.ndarray, round_damage: np.ndarray,
                  damage_per_surviving_unit: int) -> None:
    """Warn when no player can ever lose HP, so every game runs to ``max_rounds`` and is ranked by an HP tie."""
    pvp = ~round_pve
    if not pvp.any():
        r.warn(("stages",), f"every round up to max_rounds ({max_rounds}) is PvE (no player ever fights another "
               "or loses HP, so every game ends at max_rounds with all players tied)")
    elif damage_per_surviving_unit == 0 and not np.any(round_damage[pvp] > 0):
        stages = r.get(("stages",))
        if all(stage["damage"] == 0 for stage in stages):
            what = "every stage's damage is 0 and combat.damage_per_surviving_unit is 0"
        else:
            what = (f"no PvP round up to max_rounds ({max_rounds}) deals damage and "
                    "combat.damage_per_surviving_unit is 0")
        r.warn(("stages",), f"{what} (nobody ever loses HP, so every game runs to max_rounds and ends with all "
               "players tied)")


def read_traits(r: ConfigReader):
    traits = r.get(("traits",))
    if not isinstance(traits, dict):
        r.fail(("traits",), f"must be a mapping, got {describe_value(traits)} (allowed: trait names to their breakpoints)")
    names = []
    for name in traits:
        if not isinstance(name, str) or not name.strip():
            spelling = r.spelling(("traits", name), key=True)
            read_as = f" (YAML reads {spelling.text} as {describe_value(name)}; quote it)" if spelling is not None else ""
            r.fail(("traits", name), f"is not a trait name{read_as} (allowed: non-empty text)")
        names.append(name)
    _check_names(r, [(("traits", name), name) for name in names], "traits")
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


def read_tiers(r: ConfigReader, trait_names: list) -> dict:
    trait_index = {name: k for k, name in enumerate(trait_names)}
    result = {"cost": [], "size": [], "names": [], "tier_of": [], "copies": [], "trait_lists": [],
              "tier_copies": [], "tier_start": [], "own_copies": []}
    seen = {}
    named = []
    for t, _ in enumerate(r.sequence(("tiers",), 1, 10)):
        r.mapping(("tiers", t), required=("cost", "copies", "champions"))
        result["cost"].append(r.integer(("tiers", t, "cost"), 0, BIG_NUMBER))
        if t > 0 and result["cost"][-1] < result["cost"][-2]:
            r.warn(("tiers", t, "cost"), f"{result['cost'][-1]} is less than tier {t}'s {result['cost'][-2]} (tiers "
                   "are listed cheapest first: each level's odds name them in that order, and a bot may read a "
                   "tier's place as its price)")
        if result["cost"][-1] == 0:
            r.warn(("tiers", t, "cost"), "0: its champions are free and add no power of their own in combat (a "
                   "unit's power is its cost times combat.star_power; they still count toward traits)")
        tier_copies = r.integer(("tiers", t, "copies"), 0, BIG_NUMBER)
        result["tier_copies"].append(tier_copies)
        result["tier_start"].append(len(result["names"]))
        champions = r.sequence(("tiers", t, "champions"), 0, 500)
        result["size"].append(len(champions))
        for c, _ in enumerate(champions):
            path = ("tiers", t, "champions", c)
            r.mapping(path, required=("name", "traits"), optional=("copies",))
            name = r.string(path + ("name",))
            if name in seen:
                r.fail(path + ("name",), f"{quote(name)} is already a champion at {dotted_path(seen[name])} "
                       "(allowed: unique names)")
            seen[name] = path + ("name",)
            named.append((path + ("name",), name))
            result["names"].append(name)
            result["tier_of"].append(t)
            result["own_copies"].append("copies" in r.get(path))
            result["copies"].append(r.integer(path + ("copies",), 0, BIG_NUMBER, default=tier_copies))
            traits = r.sequence(path + ("traits",), 0, 10)
            indices = []
            for i, trait in enumerate(traits):
                if not isinstance(trait, str) or trait not in trait_index:
                    _unknown_trait(r, path + ("traits", i), trait, trait_names)
                if trait_index[trait] in indices:
                    r.fail(path + ("traits", i), f"trait {quote(trait)} listed twice (allowed: each trait once)")
                indices.append(trait_index[trait])
            result["trait_lists"].append(indices)
    _check_names(r, named, "champions")
    width = max((len(x) for x in result["trait_lists"]), default=1) or 1
    traits = np.full((len(result["names"]), width), -1, dtype=np.int64)
    for i, indices in enumerate(result["trait_lists"]):
        traits[i, :len(indices)] = indices
    result["traits"] = traits
    return result


def _unknown_trait(r: ConfigReader, path: tuple, trait, trait_names: list):
    """Fail for a champion's trait that is not a key of ``traits``, naming a near miss if there is one."""
    known = ", ".join(trait_names[:8]) + (", ..." if len(trait_names) > 8 else "")
    shown = r.describe(path, trait) + "; quote it" if r.spelling(path) is not None else quote(trait)
    near = [name for name in trait_names if isinstance(trait, str) and _name_key(name) == _name_key(trait)]
    hint = f"; {quote(near[0])} differs only in case or spaces" if near else ""
    allowed = f"a key of traits: {one_line(known)}" if trait_names else "a key of traits, which lists none"
    r.fail(path, f"unknown trait {shown}{hint} (allowed: {allowed})")


def read_levels(r: ConfigReader, n_tiers: int, bench_size: int):
    levels = r.get(("levels",))
    if not isinstance(levels, dict):
        r.fail(("levels",), f"must be a mapping, got {describe_value(levels)} (allowed: level numbers to their odds)")
    if not levels:
        r.fail(("levels",), "is empty (allowed: level numbers to their odds, from level 1)")
    for key in levels:
        if isinstance(key, bool) or not isinstance(key, int) or not 1 <= key <= 50:
            spelling = r.spelling(("levels", key), key=True)
            r.fail(("levels", key), f"{spelling.shown() if spelling is not None else quote(key)} is not a level "
                   "number (allowed: integers 1 to 50)")
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
        xp[level] = r.integer(path + ("xp",), 0, BIG_NUMBER)
        if level == 1 and xp[level] != 0:
            r.fail(path + ("xp",), f"{xp[level]} for level 1 (allowed: 0, the starting level)")
        board[level] = r.integer(path + ("board_size",), 1, 100, default=level)
        if level > 1 and board[level] < board[level - 1]:
            r.fail(path + ("board_size",), f"{board[level]} is smaller than level {level - 1}'s {board[level - 1]} "
                   "(allowed: board sizes that never decrease)")
        entries = r.sequence(path + ("odds",), n_tiers, n_tiers)
        for t in range(len(entries)):
            odds[level, t] = r.number(path + ("odds", t), 0.0, 100.0)
        total = math.fsum(odds[level])
        if abs(total - 100.0) > 1e-9:
            # Enough digits to show why 100.000001 is not 100 (the short form would print 100).
            shown = f"{total:.12g}"
            r.fail(path + ("odds",), f"sums to {shown if float(shown) != 100.0 else repr(total)} "
                   "(allowed: percentages summing to 100)")
    return xp, board, odds


def read_stages(r: ConfigReader, max_rounds: int):
    stages = r.sequence(("stages",), 1, 100)
    per_stage = []
    for s, _ in enumerate(stages):
        path = ("stages", s)
        r.mapping(path, required=("rounds", "damage", "income"), optional=("pve",))
        rounds = r.integer(path + ("rounds",), 1, 100)
        damage = r.integer(path + ("damage",), 0, BIG_NUMBER)
        pve = []
        if "pve" in r.get(path):
            for i, _ in enumerate(r.sequence(path + ("pve",), 0, rounds)):
                pve.append(r.integer(path + ("pve", i), 1, rounds))
            first = {}
            for i, round_number in enumerate(pve):
                if first.setdefault(round_number, i) != i:
                    r.warn(path + ("pve", i), f"round {round_number} is listed twice, also at "
                           f"{dotted_path(path + ('pve', first[round_number]))} (a round is PvE or not, so the repeat "
                           "adds no PvE round; another round was likely meant)")
        income = r.get(path + ("income",))
        if isinstance(income, list):
            r.sequence(path + ("income",), rounds, rounds)
            income = [r.integer(path + ("income", i), 0, BIG_NUMBER) for i in range(rounds)]
        else:
            income = [r.integer(path + ("income",), 0, BIG_NUMBER)] * rounds
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
