"""Variants of a configuration: ``--set PATH=VALUE`` edits of its YAML by dotted path.

A path is the dotted field path that :class:`~autodup.errors.ConfigError`
messages print: mapping keys as written (``levels.8.odds``,
``traits.The Boss.bonus``) and list indices from 0 (``tiers.3.copies`` is the
fourth tier, the 4-costs in ``set4``). The value is read as YAML
(``[10, 15, 35, 30, 10]``, ``10``, ``{xp: 90, odds: [...]}``).

The variant is the base's text with each edited value replaced where it is
written, so its comments, order and line numbers stay those of the base (a
run folder's ``config.yaml`` then differs from the base by exactly the
edits), and it is validated like any configuration: a value that makes it
invalid gets the same one line as ``autodup check``. A key that is missing is
added to its mapping (an unknown one is then refused by validation, naming the
keys allowed); a list index must exist. Should an edit of the text not read
back as the edited document (an alias, an unusual layout), the whole document
is written again from the edited data instead: comments are then lost, never
the meaning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from ..errors import ConfigError, UsageError
from .config import GameConfig, parse_config
from .config_file import parse_yaml, yaml_surprises

__all__ = ["Setting", "parse_setting", "parse_sweep", "apply_settings", "flow_text"]


@dataclass(frozen=True)
class Setting:
    """One ``--set`` edit: the dotted path (its parts as written) and the value, as written and as YAML reads it."""

    path: tuple
    text: str
    value: Any

    @property
    def dotted(self) -> str:
        return ".".join(self.path)

    def __str__(self) -> str:
        return f"{self.dotted}={self.text}"


def _split_option(option: str, example: str) -> tuple:
    """``(path parts, value text)`` of ``PATH=VALUE``; one-line errors."""
    path, equals, text = str(option).partition("=")
    path = path.strip()
    if not equals or not path:
        raise UsageError(f"{option!r}: not PATH=VALUE (allowed: a dotted field path, '=', a YAML value, "
                         f"e.g. {example})", "settings")
    parts = tuple(part.strip() for part in path.split("."))
    if not all(parts):
        raise UsageError(f"{option!r}: the path {path!r} has an empty part (allowed: parts separated by "
                         "single dots, e.g. levels.8.odds)", "settings")
    if not text.strip():
        raise UsageError(f"{option!r}: no value after '=' (allowed: a YAML value, e.g. {example})", "settings")
    return parts, text.strip()


def _read_value(text: str, option: str):
    """The value of ``PATH=VALUE``, read as a configuration file is (the same limits on size, nesting and
    aliases: ``&a [*a]`` is refused, not followed forever)."""
    try:
        value, notes = parse_yaml(text, "value")
    except ConfigError as error:
        raise UsageError(f"{option!r}: {error.message}", "settings") from None
    # A configuration file's 011 (octal 9) gets a warning; an edit typed here is refused: the variant it played
    # would not be the one typed.
    for _, spelling, key in yaml_surprises(notes):
        raise UsageError(f"{option!r}: {spelling.warning(key)} (allowed: a value YAML reads as it is written: a "
                         "decimal number, true or false, quoted text)", "settings")
    return value


def parse_setting(option: str) -> Setting:
    """``--set PATH=VALUE`` (see the module docstring); ValueError with one line if it is not that."""
    parts, text = _split_option(option, "levels.8.odds=[10,15,35,30,10]")
    return Setting(parts, text, _read_value(text, option))


def parse_sweep(option: str) -> list:
    """``--set PATH=V1,V2,...`` of ``autodup sweep``: one :class:`Setting` per value, in order.

    The values are read as the items of one YAML flow list, so a value may be
    a list itself: ``levels.8.odds=[10,15,35,30,10],[16,20,35,25,4]``.
    """
    parts, text = _split_option(option, "tiers.3.copies=8,10,12")
    values = _read_value(f"[{text}]", option)
    if not values or any(value is None for value in values):
        raise UsageError(f"{option!r}: a value is empty (allowed: values separated by commas, "
                         "e.g. tiers.3.copies=8,10,12)", "settings")
    texts = [flow_text(value) for value in values]
    if len(set(texts)) != len(texts):
        raise UsageError(f"{option!r}: a value is listed twice", "settings")
    return [Setting(parts, value_text, value) for value_text, value in zip(texts, values)]


def flow_text(value) -> str:
    """``value`` as one line of YAML flow text (what is written into the variant and shown)."""
    text = yaml.safe_dump(value, default_flow_style=True, width=float("inf"), allow_unicode=True, sort_keys=False)
    if text.endswith("\n...\n"):
        text = text[:-len("\n...\n")]
    return text.strip()


def _key_value(part: str):
    """The key YAML reads from a path part (``8`` is the integer 8), as a new mapping key is written."""
    try:
        key = yaml.safe_load(part)
    except yaml.YAMLError:
        return part
    return key if isinstance(key, (str, int, float, bool)) else part


class _Edit:
    """Where one setting lands: the node it replaces (or the mapping it joins), and the data around it."""

    def __init__(self, base: GameConfig, root, data, setting: Setting):
        self.setting = setting
        self.new_key = False
        node, container, key = root, None, None
        for depth, part in enumerate(setting.path):
            where = ".".join(setting.path[:depth]) or "the top level"
            here = ".".join(setting.path[:depth + 1])
            # Where the field would be; the top level is the whole file, whose first key's line says nothing.
            line = node.start_mark.line + 1 if depth else 0
            if isinstance(node, yaml.MappingNode):
                keys = [key_node.value if isinstance(key_node, yaml.ScalarNode) else None for key_node, _ in node.value]
                if part in keys:
                    index = keys.index(part)
                    container, key = data, list(data)[index]
                    node, data = node.value[index][1], data[key]
                    continue
                if depth == len(setting.path) - 1:  # a new key: validation decides whether it is one
                    container, key, node, data = data, _key_value(part), node, None
                    self.new_key = True
                    break
                shown = ", ".join(str(k) for k in keys if k is not None)
                raise ConfigError(base.source, line, here, f"--set {setting}: no field {part!r} in {where} "
                                  f"(fields: {shown})")
            if isinstance(node, yaml.SequenceNode):
                if not part.isdigit() or int(part) >= len(node.value):
                    raise ConfigError(base.source, line, here, f"--set {setting}: no item {part!r} in {where}, a list "
                                      f"of {len(node.value)} (allowed: indices 0 to {len(node.value) - 1}; set the "
                                      "whole list to change its length)")
                container, key = data, int(part)
                node, data = node.value[key], data[key]
                continue
            raise ConfigError(base.source, line, here, f"--set {setting}: {where} is a single value, with no "
                              f"field {part!r}")
        self.node, self.container, self.key, self.old = node, container, key, data

    def span(self, text: str) -> tuple:
        """``(start, end, replacement)`` in the base text."""
        value = flow_text(self.setting.value)
        node = self.node
        if self.new_key:
            if not node.value:  # an empty flow mapping: {}
                start = text.index("{", node.start_mark.index) + 1
                return start, start, f"{self.setting.path[-1]}: {value}"
            first = node.value[0][0].start_mark
            if node.flow_style:
                return first.index, first.index, f"{self.setting.path[-1]}: {value}, "
            return first.index, first.index, f"{self.setting.path[-1]}: {value}\n{' ' * first.column}"
        start, end = node.start_mark.index, node.end_mark.index
        if isinstance(node, yaml.CollectionNode) and not node.flow_style:
            # A block collection ends where the next line starts: keep that line break.
            while end > start and text[end - 1] in " \n\r":
                end -= 1
        return start, end, value

    def apply(self) -> None:
        """Edit the data (the expected document)."""
        self.container[self.key] = self.setting.value


def apply_settings(base: GameConfig, settings, label: str | None = None) -> tuple:
    """The variant of ``base`` with ``settings`` (:class:`Setting`) applied, and what each changed.

    Parameters
    ----------
    base : GameConfig
        A validated configuration (its ``text`` is edited).
    settings : list of Setting
    label : str, optional
        The name messages about the variant start with (default: the base's
        source followed by ``(--set)``).

    Returns
    -------
    (GameConfig, list of (dotted path, old value, new value))
        ``old`` is None for a key the edit added.

    Raises
    ------
    ConfigError
        An unknown path, a path set twice or inside another one, or a variant
        that is not a valid configuration (one line, as ``autodup check``).
    """
    settings = list(settings)
    label = label or f"{base.source} (--set)"
    root = yaml.compose(base.text, Loader=yaml.SafeLoader)  # the base was validated: within every limit
    data = yaml.safe_load(base.text)
    paths = [s.path for s in settings]
    for i, path in enumerate(paths):
        for other in paths[i + 1:]:
            if path[:len(other)] == other or other[:len(path)] == path:
                inner, outer = sorted((path, other), key=len)[::-1]
                what = "twice" if inner == outer else f"inside {'.'.join(outer)}, which is set too"
                raise ConfigError(base.source, 0, ".".join(inner), f"--set: set {what} (allowed: each value once)")
    edits = [_Edit(base, root, data, setting) for setting in settings]
    changes = [(edit.setting.dotted, edit.old, edit.setting.value) for edit in edits]
    for edit in edits:
        edit.apply()
    spans = sorted((edit.span(base.text) for edit in edits), reverse=True)
    text = base.text
    for start, end, replacement in spans:
        text = text[:start] + replacement + text[end:]
    try:
        faithful = yaml.safe_load(text) == data
    except yaml.YAMLError:
        faithful = False
    if not faithful:
        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    return parse_config(text, label), changes
