"""The compiled configuration: :class:`GameConfig`, loaded from a shipped name, a path or text."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..errors import ConfigError
from ..shipped import config_file
from .config_file import (
    BIG_NUMBER,
    EMPTY_TIER_RULES,
    MAX_CONFIG_BYTES,
    MAX_EXPANDED_NODES,
    MAX_NESTING,
    MAX_PLAYERS,
    STAR_LEVELS,
    decode_text,
    parse_yaml,
    read_config_file,
    too_large,
)
from .config_reader import (
    ConfigReader,
    check_characters,
    check_copies,
    check_damage,
    read_levels,
    read_stages,
    read_tiers,
    read_traits,
    warning_lines,
)

__all__ = ["GameConfig", "load_config", "parse_config"]


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
    lines : dict
        1-based line of every field path (a tuple), for tools that point into the file.
    warnings : tuple of str
        One line per suspicious but valid setting,
        ``FILE:LINE: field.path: warning: what is suspicious (why it matters)``,
        in file order; empty for the shipped configurations.
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
    warnings: tuple = field(default=(), repr=False, compare=False)
    text: str = field(default="", repr=False, compare=False)  # the YAML it was compiled from (a run's snapshot)

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

    Parameters
    ----------
    path : str or os.PathLike
        A regular file of at most :data:`MAX_CONFIG_BYTES` bytes of UTF-8 YAML,
        or the name of a shipped configuration (``set4``, ``tiny``).

    Returns
    -------
    GameConfig
        With :attr:`GameConfig.warnings` for settings that are valid but surely not meant.

    Raises
    ------
    ConfigError
        One line naming the file, line, field and what is wrong.
    """
    path = config_file(path)
    return parse_config(decode_text(read_config_file(path), str(path)), str(path))


def parse_config(text: str, file: str = "<config>") -> GameConfig:
    """Validate and compile configuration text (see :func:`load_config`; the same limits apply).

    Parameters
    ----------
    text : str
        The YAML text, at most :data:`MAX_CONFIG_BYTES` bytes in UTF-8.
    file : str
        The name messages start with; its stem is the default ``name``.
    """
    # Characters first: a text of more characters than the limit is too large without encoding it.
    if len(text) > MAX_CONFIG_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_CONFIG_BYTES:
        raise too_large(file)
    try:
        data, notes = parse_yaml(text, file)
        return replace(_compile(ConfigReader(data, notes, file), Path(file).stem), text=text)
    except RecursionError:  # the limits keep recursion shallow; this is a last guard, never a traceback
        raise ConfigError(file, 0, "", f"nested too deeply to read (allowed: at most {MAX_NESTING} levels)") \
            from None
    except MemoryError:
        raise ConfigError(file, 0, "", "too large to read in the memory available "
                          f"(allowed: at most {MAX_EXPANDED_NODES:,} values)") from None


def _compile(r: ConfigReader, default_name: str) -> GameConfig:
    top = r.mapping((), required=("players", "starting_hp", "shop", "xp", "levels", "economy", "stages", "combat",
                                  "tiers", "traits"),
                    optional=("name", "starting_gold", "bench_size", "max_rounds", "loot"))
    name = r.string(("name",), default=default_name)
    if "name" in top:
        check_characters(r, ("name",), name)
    players = r.integer(("players",), 2, MAX_PLAYERS)
    starting_hp = r.integer(("starting_hp",), 1, BIG_NUMBER)
    starting_gold = r.integer(("starting_gold",), 0, BIG_NUMBER, default=0)
    bench_size = r.integer(("bench_size",), 1, 100, default=9)
    max_rounds = r.integer(("max_rounds",), 1, 10_000, default=200)

    r.mapping(("shop",), required=("size", "reroll_price"), optional=("units_leave_pool", "empty_tier"))
    shop_size = r.integer(("shop", "size"), 1, 20)
    reroll_price = r.integer(("shop", "reroll_price"), 0, BIG_NUMBER)
    units_leave_pool = r.boolean(("shop", "units_leave_pool"), default=True)
    empty_tier = r.choice(("shop", "empty_tier"), EMPTY_TIER_RULES, default="skip")

    r.mapping(("xp",), required=("price", "amount", "per_round"))
    xp_price = r.integer(("xp", "price"), 0, BIG_NUMBER)
    xp_amount = r.integer(("xp", "amount"), 1, BIG_NUMBER)
    xp_per_round = r.integer(("xp", "per_round"), 0, BIG_NUMBER)

    # Tiers and traits come first: levels' odds are checked against the tiers.
    trait_names, trait_breakpoints, trait_bonus = read_traits(r)
    tiers = read_tiers(r, trait_names)
    n_tiers = len(tiers["cost"])
    level_xp, level_board_size, level_odds = read_levels(r, n_tiers, bench_size)
    for t in range(n_tiers):
        if tiers["size"][t] == 0 and np.any(level_odds[:, t] > 0):
            level = int(np.flatnonzero(level_odds[:, t] > 0)[0])
            r.fail(("levels", level, "odds", t), f"tier {t + 1} has positive odds but no champions "
                   f"(allowed: 0 odds for an empty tier)")
    check_copies(r, tiers, level_odds, empty_tier)

    r.mapping(("economy",), required=("interest", "pvp_win_gold", "streaks"))
    r.mapping(("economy", "interest"), required=("per", "max"))
    interest_per = r.integer(("economy", "interest", "per"), 1, BIG_NUMBER)
    interest_max = r.integer(("economy", "interest", "max"), 0, BIG_NUMBER)
    pvp_win_gold = r.integer(("economy", "pvp_win_gold"), 0, BIG_NUMBER)
    streak_length, streak_gold = [], []
    for i, _ in enumerate(r.sequence(("economy", "streaks"), 0, 50)):
        r.mapping(("economy", "streaks", i), required=("length", "gold"))
        streak_length.append(r.integer(("economy", "streaks", i, "length"), 2, 1000))
        streak_gold.append(r.integer(("economy", "streaks", i, "gold"), 0, BIG_NUMBER))
        if i and streak_length[i] <= streak_length[i - 1]:
            r.fail(("economy", "streaks", i, "length"),
                   f"{streak_length[i]} does not exceed the previous length {streak_length[i - 1]} "
                   "(allowed: increasing lengths)")

    round_stage, round_pve, round_damage, round_income = read_stages(r, max_rounds)

    r.mapping(("combat",), required=("star_power", "scale", "damage_per_surviving_unit"))
    star_power = [r.number(("combat", "star_power", i), 1e-6, 1e6)
                  for i in range(len(r.sequence(("combat", "star_power"), STAR_LEVELS, STAR_LEVELS)))]
    combat_scale = r.number(("combat", "scale"), 1e-3, 1e3)
    damage_per_surviving_unit = r.integer(("combat", "damage_per_surviving_unit"), 0, BIG_NUMBER)
    check_damage(r, max_rounds, round_pve, round_damage, damage_per_surviving_unit)

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
                loot_gold.append(r.integer(("loot", "bag", i, "gold"), 0, BIG_NUMBER))
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
        star_power=np.array(star_power), lines=r.lines, warnings=warning_lines(r),
    )
