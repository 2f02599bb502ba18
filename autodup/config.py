"""Game configuration: YAML in, validated once, compiled to flat arrays for the jitted game.

A configuration describes the pool and the rules (see ``configs/set4.yaml``,
the default, for every key with comments). Loading checks everything and
raises :class:`ConfigError`, whose message is one line::

    FILE:LINE: field.path: what is wrong (what is allowed)

Field paths are dotted: ``levels.8.odds``, ``tiers.0.champions.3.name``.
Later tools address config values by these paths. A key that YAML reads as
something other than its text (``yes:`` is the boolean true) is shown as
written.

A valid configuration that is surely not what its author meant still loads,
and :attr:`GameConfig.warnings` holds one line per suspicion::

    FILE:LINE: field.path: warning: what is suspicious (why it matters)

The suspicions: no player can ever lose HP (no damage, or only PvE rounds,
before ``max_rounds``); a tier the shops roll that has no copies; champions
that can never reach 3 stars (fewer than 9 copies) in a pool where others can
(a pool where none can, like ``configs/tiny.yaml``, is a design, not a typo);
a PvE round listed twice; champion or trait names that differ only in case or
spaces; names holding control characters; and plain scalars YAML 1.1 reads
unlike YAML 1.2 or a person: ``010`` (octal 8), ``0x1A``, ``0b11``, ``1_000``,
``1:30`` (base 60: 90), and ``yes``/``no``/``on``/``off`` (booleans; silent
where a boolean is wanted). Errors show such values as written.

YAML is read with PyYAML's safe loader only (``SafeLoader``): the event
stream is scanned first, then composed into nodes (which give every value its
line and let duplicate keys be refused rather than silently overwritten), then
constructed safely.

Limits
------
A configuration file is untrusted input: whatever it holds, loading ends
quickly with a configuration or one :class:`ConfigError` line, never a
traceback, a hang or an exhausted memory. These limits are checked before
anything is built from the file:

MAX_CONFIG_BYTES
    The largest file (or text) accepted, 1 MiB; ``configs/set4.yaml`` is
    about 7.5 KB. Only regular files are read (not ``/dev/zero``, a FIFO or a
    directory), and never more than this many bytes plus one.
MAX_NESTING
    The deepest nesting of lists and mappings, 64 (``set4.yaml`` needs 6),
    counted with every alias expanded.
MAX_EXPANDED_NODES
    The most scalars, lists and mappings the document may hold with every
    alias expanded, 100,000 (``set4.yaml`` has about 1,200): a small file of
    nested aliases (a "billion laughs") would otherwise expand to billions.
MAX_NUMBER_LENGTH
    The longest number, 100 characters: YAML's base-60 integers
    (``1:0:0:...``) would otherwise cost time quadratic in their length.

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
import os
import stat
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .errors import first_line
from .shipped import config_file, config_names

EMPTY_TIER_SKIP = 0
EMPTY_TIER_EMPTY = 1
EMPTY_TIER_RULES = {"skip": EMPTY_TIER_SKIP, "empty": EMPTY_TIER_EMPTY}
MAX_PLAYERS = 8
STAR_LEVELS = 3
# Copies a unit of the top star level holds (autodup.game.copies_of_star): fewer copies in the pool make it impossible.
COPIES_FOR_TOP_STAR = 3 ** (STAR_LEVELS - 1)
_BIG = 10**6

MAX_CONFIG_BYTES = 1 << 20
MAX_NESTING = 64
MAX_EXPANDED_NODES = 100_000
MAX_NUMBER_LENGTH = 100

_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_BOOL_TAG = "tag:yaml.org,2002:bool"
# The longest text (a name, a value) quoted in a message: the message stays readable whatever the file holds.
_QUOTE_LENGTH = 60


def _one_line(text: str) -> str:
    """``text`` with every unprintable character escaped (``\\n``, ``\\x1b``), so a message stays one line."""
    if text.isprintable():
        return text
    return "".join(character if character.isprintable() else repr(character)[1:-1] for character in text)


def _located(file: str, line: int, path: str, message: str) -> str:
    location = f"{file}:{line}" if line else file
    return _one_line(f"{location}: {path}: {message}" if path else f"{location}: {message}")


class ConfigError(ValueError):
    """An invalid configuration; ``str(error)`` is the one-line message.

    Parameters
    ----------
    file : str
        The file (or the name given to :func:`parse_config`).
    line : int
        1-based line, or 0 when no line applies (the whole file).
    path : str
        The dotted field path, or ``""``.
    message : str
        What is wrong, then what is allowed in parentheses.
    """

    def __init__(self, file: str, line: int, path: str, message: str):
        self.file, self.line, self.path, self.message = file, line, path, message
        super().__init__(_located(file, line, path, message))


# --------------------------------------------------------------------------
# reading a file, within limits
# --------------------------------------------------------------------------


_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


def _not_regular(file: str, mode: int) -> ConfigError:
    kind = next((name for test, name in _FILE_KINDS if test(mode)), "a special file")
    return ConfigError(file, 0, "", f"not a regular file ({kind}) (allowed: a YAML file)")


def _too_large(file: str) -> ConfigError:
    size = f"{MAX_CONFIG_BYTES / (1 << 20):g} MiB"
    return ConfigError(file, 0, "", f"larger than {size} (allowed: a configuration of at most {size})")


def _read_config_file(path: Path) -> bytes:
    """At most ``MAX_CONFIG_BYTES + 1`` bytes of a regular file; anything else is a ConfigError.

    The file is checked before it is opened (opening a FIFO would wait for a
    writer) and again once open (it may have been replaced in between), and
    opened without blocking for the same reason.
    """
    file = str(path)
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            raise _not_regular(file, mode)
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(descriptor, "rb") as stream:
            mode = os.fstat(stream.fileno()).st_mode
            if not stat.S_ISREG(mode):
                raise _not_regular(file, mode)
            data = stream.read(MAX_CONFIG_BYTES + 1)
    except ConfigError:
        raise
    except FileNotFoundError:
        raise ConfigError(file, 0, "", f"no such file (shipped configurations: {', '.join(config_names())}; "
                          "or the path of a YAML file)") from None
    except OSError as error:
        raise ConfigError(file, 0, "", f"cannot be read ({error.strerror or error})") from None
    except ValueError as error:  # a path with a NUL character
        raise ConfigError(file, 0, "", f"cannot be read ({error})") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise _too_large(file)
    return data


def _decode(data: bytes, file: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ConfigError(file, line, "", f"not UTF-8 text (byte 0x{data[error.start]:02x}) "
                          "(allowed: a UTF-8 text file)") from None


# --------------------------------------------------------------------------
# YAML with line numbers
# --------------------------------------------------------------------------


def _mark_line(mark) -> int:
    return mark.line + 1 if mark is not None else 0


def _scan_events(text: str, file: str) -> list:
    """The YAML events of ``text``, refusing deep nesting, recursive aliases and alias bombs.

    PyYAML's parser is iterative, so scanning is safe on any input. What comes
    after is not: the composer and :func:`_walk` recurse once per nesting
    level, and :func:`_walk` and the validation visit an aliased value once per
    alias. So the depth and the size are measured here with every alias
    expanded: an anchor remembers the size and height of what it names, and an
    alias counts as that.

    Returns
    -------
    list of yaml.Event
        Every event, for :class:`_ReplayLoader` (the text is parsed once).
    """
    events = []
    expanded = 0             # nodes so far with every alias expanded
    frames = []              # per open list or mapping: [expanded before it, deepest level reached, anchor]
    anchor_size, anchor_height, open_anchors = {}, {}, set()
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        events.append(event)
        if isinstance(event, yaml.AliasEvent):
            name = event.anchor
            if name in open_anchors:
                raise ConfigError(file, _mark_line(event.start_mark), "",
                                  f"alias *{name} is inside the value it refers to, which would never end "
                                  "(allowed: aliases to values already complete)")
            expanded += anchor_size.get(name, 1)  # an unknown anchor is the composer's error to report
            reached = len(frames) + anchor_height.get(name, 0)
        elif isinstance(event, yaml.ScalarEvent):
            expanded += 1
            reached = len(frames)
            if event.anchor is not None:
                anchor_size[event.anchor], anchor_height[event.anchor] = 1, 0
        elif isinstance(event, yaml.CollectionStartEvent):
            expanded += 1
            reached = len(frames) + 1
            frames.append([expanded - 1, reached, event.anchor])
            if event.anchor is not None:
                open_anchors.add(event.anchor)
        elif isinstance(event, yaml.CollectionEndEvent):
            before, reached, anchor = frames.pop()
            if anchor is not None:
                anchor_size[anchor], anchor_height[anchor] = expanded - before, reached - len(frames)
                open_anchors.discard(anchor)
        else:
            continue
        if frames:
            frames[-1][1] = max(frames[-1][1], reached)
        if reached > MAX_NESTING:
            through = f" (through alias *{event.anchor})" if isinstance(event, yaml.AliasEvent) else ""
            raise ConfigError(file, _mark_line(event.start_mark), "",
                              f"lists and mappings nested more than {MAX_NESTING} deep{through} "
                              f"(allowed: at most {MAX_NESTING} levels)")
        if expanded > MAX_EXPANDED_NODES:
            what = (f"alias *{event.anchor} expands the document" if isinstance(event, yaml.AliasEvent)
                    else "the document has")
            raise ConfigError(file, _mark_line(event.start_mark), "",
                              f"{what} beyond {MAX_EXPANDED_NODES:,} values (allowed: at most "
                              f"{MAX_EXPANDED_NODES:,} scalars, lists and mappings, counting every alias in full)")
    return events


class _ReplayLoader(yaml.SafeLoader):
    """PyYAML's safe loader fed with already parsed events, so the text is not parsed a second time.

    It also remembers where each alias is used (``alias_lines``): the composer
    hands back the anchored node itself, whose marks are the anchor's.
    """

    def __init__(self, events: list):
        super().__init__("")
        self._events, self._next = events, 0
        self.alias_lines: dict = {}  # (id of the parent node, index or id of the key node) -> line of the alias

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) and parent is not None and index is not None:
            self.alias_lines[id(parent), index if isinstance(index, int) else id(index)] = _mark_line(event.start_mark)
        return super().compose_node(parent, index)

    def check_event(self, *choices) -> bool:
        if self._next >= len(self._events):
            return False
        return not choices or isinstance(self._events[self._next], choices)

    def peek_event(self):
        return self._events[self._next] if self._next < len(self._events) else None

    def get_event(self):
        event = self.peek_event()
        self._next += 1
        return event


def _yaml_reading(node) -> str | None:
    """How YAML 1.1 reads a plain scalar as a number or boolean where text or a decimal was likely meant.

    Returns
    -------
    str or None
        ``"octal"``, ``"hexadecimal"``, ``"binary"``, ``"base 60"``,
        ``"underscores ignored"`` or ``"boolean"``; None for an ordinary
        scalar (YAML 1.2 reads it the same way).
    """
    if not isinstance(node, yaml.ScalarNode) or node.style is not None:
        return None
    text = node.value
    if node.tag == _BOOL_TAG:
        return None if text.lower() in ("true", "false") else "boolean"
    if node.tag not in (_INT_TAG, _FLOAT_TAG):
        return None
    body = text.lstrip("+-")
    if node.tag == _INT_TAG and body.startswith("0b"):
        return "binary"
    if node.tag == _INT_TAG and body.startswith("0x"):
        return "hexadecimal"
    if ":" in body:
        return "base 60"
    digits = body.replace("_", "")
    # An explicit ``!!int 09`` is not octal to the resolver, and its construction fails with a message of its own.
    if node.tag == _INT_TAG and len(digits) > 1 and digits.startswith("0") and digits.isdigit() \
            and "8" not in digits and "9" not in digits and int(digits, 8) != int(digits):
        return "octal"
    return "underscores ignored" if "_" in body else None


class _Spelling:
    """A scalar YAML read differently from its text: ``010`` (the integer 8), ``yes`` (true)."""

    __slots__ = ("text", "value", "reading", "line")

    def __init__(self, text: str, value, reading: str, line: int):
        self.text, self.value, self.reading, self.line = text, value, reading, line

    def shown(self) -> str:
        """The value as an error shows it: written text first, then what YAML made of it."""
        if self.reading == "boolean":
            return f"{self.text} (read by YAML as the boolean {str(self.value).lower()})"
        if not self.reading:  # a key such as ``~`` (nothing) or ``1.50``: not a YAML 1.1 surprise
            return f"{self.text} (read by YAML as {_describe(self.value)})"
        return f"{self.text} (read by YAML as {_show_number(self.value)}, {self.reading})"

    def warning(self, key: bool) -> str:
        value = str(self.value).lower() if isinstance(self.value, bool) else _show_number(self.value)
        what = f"the key {self.text}" if key else self.text
        if self.reading == "octal":
            decimal = int(self.text.replace("_", ""))
            advice = f"write {value}, or {decimal} if that was meant"
        elif self.reading in ("boolean", "base 60"):
            advice = f'write {value}, or quote it ("{self.text}") for text'
        else:
            advice = f"write {value}"
        return f"{what} is read by YAML as {value} ({self.reading}); {advice}"


class _Notes:
    """What the YAML layer learned beyond the data: lines, spellings, duplicate-free keys.

    Attributes
    ----------
    lines : dict
        1-based line of every path (a mapping value at its key's line).
    keys : dict
        Path of a key written differently from how it is read -> its :class:`_Spelling`.
    values : dict
        Path of a value written differently from how it is read -> its :class:`_Spelling`
        (only the first path of a value reached through aliases).
    """

    def __init__(self):
        self.lines, self.keys, self.values = {}, {}, {}
        self.noted_nodes = set()  # ids of the scalar nodes in ``values``


def _walk(node, path: tuple, notes: _Notes, loader: _ReplayLoader, file: str, line: int | None = None,
          alias_line: int | None = None) -> None:
    """Record lines and spellings of ``node`` and below; refuse unreadable and duplicate keys.

    Recursion is bounded by :data:`MAX_NESTING` and the number of visits by
    :data:`MAX_EXPANDED_NODES` (both checked by :func:`_scan_events`).

    Parameters
    ----------
    line : int, optional
        The line to record for ``node`` itself (a mapping value is at its key's line).
    alias_line : int, optional
        ``node`` was reached through an alias on this line: everything below is located there, where
        the value is used, rather than where it was first written.
    """
    notes.lines[path] = line if line is not None else alias_line or _mark_line(node.start_mark)
    if isinstance(node, yaml.ScalarNode):
        if node.tag in (_INT_TAG, _FLOAT_TAG) and len(node.value) > MAX_NUMBER_LENGTH:
            raise ConfigError(file, notes.lines[path], _dotted(path, notes.keys),
                              f"a number written with {len(node.value):,} characters "
                              f"(allowed: at most {MAX_NUMBER_LENGTH})")
        reading = _yaml_reading(node)
        if reading is not None and id(node) not in notes.noted_nodes:
            notes.noted_nodes.add(id(node))  # an aliased value is noted once, where it is written
            notes.values[path] = _Spelling(node.value, _construct_scalar(node, loader, file, path, notes, False),
                                           reading, notes.lines[path])
    elif isinstance(node, yaml.MappingNode):
        seen = {}
        for key_node, value_node in node.value:
            key_line = _mark_line(key_node.start_mark)
            if not isinstance(key_node, yaml.ScalarNode):
                raise ConfigError(file, key_line, _dotted(path, notes.keys),
                                  "a key is a list or mapping (allowed: plain text or number keys)")
            if key_node.tag in (_INT_TAG, _FLOAT_TAG) and len(key_node.value) > MAX_NUMBER_LENGTH:
                raise ConfigError(file, key_line, _dotted(path, notes.keys),
                                  f"a key is a number written with {len(key_node.value):,} characters "
                                  f"(allowed: at most {MAX_NUMBER_LENGTH})")
            key = _construct_scalar(key_node, loader, file, path, notes, True)
            try:
                hash(key)
            except TypeError:  # a scalar key tagged as a list or mapping (``!!seq 1``)
                raise ConfigError(file, key_line, _dotted(path, notes.keys), f"a key is {_describe(key)} "
                                  "(allowed: plain text or number keys)") from None
            key_path = path + (_path_key(key),)
            if key_node.style is None and key_node.value != str(key):
                notes.keys[key_path] = _Spelling(key_node.value, key, _yaml_reading(key_node) or "", key_line)
            # The constructed dictionary keeps one of two equal keys (yes and on, 1 and true), so compare them so.
            if key in seen:
                spelling = notes.keys.get(key_path)
                read_as = f"YAML reads {spelling.text} as {_describe(key)}, the same key as line {seen[key]}'s; " \
                    if spelling is not None else ""
                raise ConfigError(file, key_line, _dotted(key_path, notes.keys),
                                  f"duplicate key ({read_as}each key may appear once)")
            seen[key] = key_line
            _walk(value_node, key_path, notes, loader, file, key_line,
                  loader.alias_lines.get((id(node), id(key_node)), alias_line))
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, path + (index,), notes, loader, file, None,
                  loader.alias_lines.get((id(node), index), alias_line))


# PyYAML's safe constructors raise assorted built-in errors on an explicit tag with a value it does not fit
# (``!!bool x``: KeyError, ``!!timestamp 2001-13-45``: AttributeError, ``!!int x``: ValueError), so
# construction catches every Exception: whatever the file holds, the answer is one ConfigError line.
_CONSTRUCTION_ERRORS = Exception
_PLAIN_YAML = " (allowed: plain YAML scalars, lists and mappings)"


def _construct_scalar(node, loader: _ReplayLoader, file: str, path: tuple, notes: _Notes, key: bool):
    """The Python value of a key (``path`` is its mapping's) or a scalar, cached by the loader for later."""
    try:
        return loader.construct_object(node)
    except _CONSTRUCTION_ERRORS as error:
        where = _dotted(path, notes.keys)
        if key:
            message = f"a key cannot be read ({_first_line(error)}) (allowed: plain text or number keys)"
        else:
            message = f"cannot be read ({_first_line(error)}) (allowed: plain YAML scalars, lists and mappings)"
        raise ConfigError(file, _mark_line(node.start_mark), where, message) from None


def _first_line(error) -> str:
    """The first line of a YAML error's problem (without its position), else of the error."""
    return first_line(getattr(error, "problem", None) or error) or type(error).__name__


def _path_key(key):
    """A path element as :attr:`GameConfig.lines` keys it: text or an int (a boolean key is its text)."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return int(key)
    return key if isinstance(key, str) else str(key)


def _dotted(path: tuple, spellings: dict | None = None) -> str:
    """``path`` as a dotted string, each key as written in the file when YAML read it differently."""
    if not spellings:
        return ".".join(str(p) for p in path)
    parts = []
    for depth in range(1, len(path) + 1):
        spelling = spellings.get(tuple(_path_key(p) for p in path[:depth]))
        parts.append(spelling.text if spelling is not None else str(path[depth - 1]))
    return ".".join(parts)


def _yaml_error(error: yaml.YAMLError, text: str, file: str, what: str, allowed: str = "") -> ConfigError:
    """One line for any PyYAML error, at its line when it has one (``allowed``: a closing parenthesis)."""
    if isinstance(error, yaml.reader.ReaderError):
        line = text.count("\n", 0, max(error.position, 0)) + 1 if isinstance(error.position, int) else 0
        character = f"#x{error.character:04x}" if isinstance(error.character, int) else repr(error.character)
        return ConfigError(file, line, "", f"{what}: character {character} ({error.reason}) "
                           "(allowed: printable text, tabs and line breaks)")
    if isinstance(error, yaml.MarkedYAMLError):
        line = _mark_line(error.problem_mark or error.context_mark)
        return ConfigError(file, line, "", f"{what}: {_first_line(error)}{allowed}")
    return ConfigError(file, 0, "", f"{what}: {_first_line(error)}{allowed}")


def _parse_yaml(text: str, file: str) -> tuple[Any, _Notes]:
    """The data of ``text`` and its :class:`_Notes`; every failure is one ConfigError line."""
    try:
        events = _scan_events(text, file)
    except yaml.YAMLError as error:
        raise _yaml_error(error, text, file, "not valid YAML") from None
    loader = _ReplayLoader(events)
    try:
        try:
            node = loader.get_single_node()
        except yaml.YAMLError as error:
            raise _yaml_error(error, text, file, "not valid YAML") from None
        if node is None:
            raise ConfigError(file, 1, "", "empty file (a mapping of configuration keys is needed)")
        notes = _Notes()
        _walk(node, (), notes, loader, file)
        try:
            data = loader.construct_document(node)
        except yaml.YAMLError as error:  # tags the safe loader refuses, unhashable keys, merge keys
            raise _yaml_error(error, text, file, "cannot be read", _PLAIN_YAML) from None
        except _CONSTRUCTION_ERRORS as error:
            raise ConfigError(file, 0, "", f"cannot be read: {_first_line(error)}{_PLAIN_YAML}") from None
    finally:
        loader.dispose()
    return data, notes


# --------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------


class _Reader:
    """Typed access to the parsed YAML; every failure is a one-line ConfigError, every suspicion a warning.

    Parameters
    ----------
    data : object
        The constructed YAML document.
    notes : _Notes
        Lines and spellings from :func:`_walk`.
    file : str
        The name messages start with.
    """

    def __init__(self, data: Any, notes: _Notes, file: str):
        self.data, self.notes, self.file = data, notes, file
        self.lines = notes.lines
        self.warnings: list = []
        self.booleans: set = set()  # paths read as booleans, where ``yes`` is what was meant

    def line(self, path: tuple) -> int:
        """The line of ``path`` or of its nearest ancestor with one."""
        path = tuple(_path_key(p) for p in path)
        for depth in range(len(path), -1, -1):
            if path[:depth] in self.lines:
                return self.lines[path[:depth]]
        return 0

    def fail(self, path: tuple, message: str):
        raise ConfigError(self.file, self.line(path), _dotted(path, self.notes.keys), message)

    def warn(self, path: tuple, message: str) -> None:
        self.warnings.append((self.line(path), _dotted(path, self.notes.keys), f"warning: {message}"))

    def spelling(self, path: tuple, key: bool = False):
        """The :class:`_Spelling` of the value (or key) at ``path`` if YAML read it differently, else None."""
        return (self.notes.keys if key else self.notes.values).get(tuple(_path_key(p) for p in path))

    def describe(self, path: tuple, value) -> str:
        """``value`` for a message; as written in the file if YAML read it as something else."""
        spelling = self.spelling(path)
        return spelling.shown() if spelling is not None else _describe(value)

    def shown(self, path: tuple, value) -> str:
        """Like :meth:`describe` without the type: ``"12"``, ``"011 (read by YAML as 9, octal)"``."""
        spelling = self.spelling(path)
        return spelling.shown() if spelling is not None else _show_number(value)

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
                read_as = f"; YAML reads {spelling.text} as {_describe(key)}, quote it (\"{spelling.text}\") " \
                    "for text" if spelling is not None else ""
                self.fail(path + (key,), f"unknown key{read_as} (allowed: {', '.join(sorted(map(str, allowed)))})")
        for key in required:
            if key not in value:
                where = _dotted(path, self.notes.keys) or "the top level"
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
            if isinstance(value, str) and _yaml_float_text(value) is not None:
                hint = f"; YAML reads {value} as text, write {_yaml_float_text(value)} for a number"
            self.fail(path, f"must be a finite number, got {self.describe(path, value)}{hint} "
                      f"(allowed: {low} to {high})")
        if not low <= value <= high:
            self.fail(path, f"{self.shown(path, value)} is out of range (allowed: {low} to {high})")
        return float(value)

    def boolean(self, path: tuple, default=None) -> bool:
        value = self._value(path, default)
        if not isinstance(value, bool):
            self.fail(path, f"must be true or false, got {self.describe(path, value)} (allowed: true, false)")
        self.booleans.add(tuple(_path_key(p) for p in path))
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
            shown = self.describe(path, value) if self.spelling(path) is not None else _quote(value)
            self.fail(path, f"{shown} is not an option (allowed: {', '.join(options)})")
        return options[value]

    def sequence(self, path: tuple, low: int, high: int) -> list:
        value = self.get(path)
        if not isinstance(value, list):
            self.fail(path, f"must be a list, got {self.describe(path, value)} "
                      f"(allowed: a list of {low} to {high} entries)")
        if not low <= len(value) <= high:
            allowed = f"exactly {low}" if low == high else f"{low} to {high}"
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


def _show_number(value) -> str:
    """``value`` as text, with integers too long to read usefully summarised as their number of digits."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _quote(value)
    if isinstance(value, float) or value.bit_length() <= 128:
        return str(value)
    if value.bit_length() < 10_000:
        return f"{'-' if value < 0 else ''}a number of {len(str(abs(value)))} digits"
    # Python refuses to print an integer of more than 4300 digits: estimate its length from its bits.
    return f"{'-' if value < 0 else ''}a number of about {int(value.bit_length() * math.log10(2)) + 1} digits"


def _quote(value) -> str:
    """``repr(value)``, shortened to :data:`_QUOTE_LENGTH` characters (a file may hold megabyte-long strings)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _show_number(value)
    text = repr(value)
    return text if len(text) <= _QUOTE_LENGTH else text[:_QUOTE_LENGTH - 4] + "...'"


def _shorten(text: str) -> str:
    """``text`` cut to :data:`_QUOTE_LENGTH` characters, for a list of names in a message."""
    return text if len(text) <= _QUOTE_LENGTH else text[:_QUOTE_LENGTH - 3] + "..."


def _describe(value) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (dict, list)):
        return type(value).__name__
    return f"{type(value).__name__} {_quote(value)}"


def _yaml_float_text(text: str) -> str | None:
    """``1e-3`` (text to YAML 1.1, which wants a dot and a signed exponent) written as a number, else None."""
    mantissa, e, exponent = text.lower().partition("e")
    try:
        float(text)
    except ValueError:
        return None
    if not e or text.strip() != text or not mantissa.lstrip("+-")[:1].isdigit() and mantissa.lstrip("+-")[:1] != ".":
        return None
    mantissa = mantissa if "." in mantissa else mantissa + ".0"
    exponent = exponent if exponent[:1] in ("+", "-") else "+" + exponent
    return f"{mantissa}e{exponent}"


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
    return parse_config(_decode(_read_config_file(path), str(path)), str(path))


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
        raise _too_large(file)
    try:
        data, notes = _parse_yaml(text, file)
        return replace(_compile(_Reader(data, notes, file), Path(file).stem), text=text)
    except RecursionError:  # the limits keep recursion shallow; this is a last guard, never a traceback
        raise ConfigError(file, 0, "", f"nested too deeply to read (allowed: at most {MAX_NESTING} levels)") \
            from None
    except MemoryError:
        raise ConfigError(file, 0, "", "too large to read in the memory available "
                          f"(allowed: at most {MAX_EXPANDED_NODES:,} values)") from None


def _compile(r: _Reader, default_name: str) -> GameConfig:
    top = r.mapping((), required=("players", "starting_hp", "shop", "xp", "levels", "economy", "stages", "combat",
                                  "tiers", "traits"),
                    optional=("name", "starting_gold", "bench_size", "max_rounds", "loot"))
    name = r.string(("name",), default=default_name)
    if "name" in top:
        _check_characters(r, ("name",), name)
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
    _check_copies(r, tiers, level_odds, empty_tier)

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
    _check_damage(r, max_rounds, round_pve, round_damage, damage_per_surviving_unit)

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
        star_power=np.array(star_power), lines=r.lines, warnings=_warning_lines(r),
    )


# --------------------------------------------------------------------------
# valid but surely not meant: warnings
# --------------------------------------------------------------------------


def _warning_lines(r: _Reader) -> tuple:
    """Every warning of ``r`` plus those for YAML 1.1 readings, as sorted one-line strings."""
    found = list(r.warnings)
    for key, spellings in ((False, r.notes.values), (True, r.notes.keys)):
        for path, spelling in spellings.items():
            # ``units_leave_pool: yes`` means true: only a boolean read where it is not wanted is a surprise.
            if not spelling.reading or not key and spelling.reading == "boolean" and path in r.booleans:
                continue
            found.append((spelling.line, _dotted(path, r.notes.keys), f"warning: {spelling.warning(key)}"))
    return tuple(_located(r.file, line, path, message) for line, path, message in sorted(set(found)))


# Unicode categories of characters that do not show as themselves: controls (tab, newline, NUL, escape),
# formatting (zero-width space, bidirectional overrides) and line or paragraph separators.
_CONTROL_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")


def _check_characters(r: _Reader, path: tuple, name: str) -> None:
    """Warn about a name holding characters that do not show as themselves."""
    hidden = [character for character in name if unicodedata.category(character) in _CONTROL_CATEGORIES]
    if hidden:
        others = f" and {len(hidden) - 1} more" if len(hidden) > 1 else ""
        r.warn(path, f"{_quote(name)} contains the control character {repr(hidden[0])[1:-1]} "
               f"(U+{ord(hidden[0]):04X}){others} (it does not show in tables and reports, and the name typed "
               "without it is a different name; remove it)")


def _name_key(name: str) -> str:
    """``name`` without case, whitespace or hidden characters: two names with one key were surely meant as one."""
    return "".join(character for character in "".join(name.split()).casefold()
                   if unicodedata.category(character) not in _CONTROL_CATEGORIES)


def _check_names(r: _Reader, named: list, kind: str) -> None:
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
        _check_characters(r, path, name)
        other = first.setdefault(_name_key(name), (path, name))
        if other[1] != name:
            r.warn(path, f"{_quote(name)} and {_quote(other[1])} at {_dotted(other[0], r.notes.keys)} differ only "
                   f"in case or spaces (they are two different {kind}; surely one was meant)")


def _check_copies(r: _Reader, tiers: dict, level_odds: np.ndarray, empty_tier: int) -> None:
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
                   f"{copies[champion]} copies, so {_quote(tiers['names'][champion])} can never reach "
                   f"{STAR_LEVELS} stars ({why})")
        else:
            listed = ", ".join(f"{_shorten(tiers['names'][c])} ({copies[c]})" for c in low[:5])
            more = f" and {len(low) - 5} more" if len(low) > 5 else ""
            r.warn(("tiers", t, "champions"), f"{len(low)} champions can never reach {STAR_LEVELS} stars: "
                   f"{listed}{more} ({why})")


def _check_damage(r: _Reader, max_rounds: int, round_pve: np.ndarray, round_damage: np.ndarray,
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


def _traits(r: _Reader):
    traits = r.get(("traits",))
    if not isinstance(traits, dict):
        r.fail(("traits",), f"must be a mapping, got {_describe(traits)} (allowed: trait names to their breakpoints)")
    names = []
    for name in traits:
        if not isinstance(name, str) or not name.strip():
            spelling = r.spelling(("traits", name), key=True)
            read_as = f" (YAML reads {spelling.text} as {_describe(name)}; quote it)" if spelling is not None else ""
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


def _tiers(r: _Reader, trait_names: list) -> dict:
    trait_index = {name: k for k, name in enumerate(trait_names)}
    result = {"cost": [], "size": [], "names": [], "tier_of": [], "copies": [], "trait_lists": [],
              "tier_copies": [], "tier_start": [], "own_copies": []}
    seen = {}
    named = []
    for t, _ in enumerate(r.sequence(("tiers",), 1, 10)):
        r.mapping(("tiers", t), required=("cost", "copies", "champions"))
        result["cost"].append(r.integer(("tiers", t, "cost"), 0, _BIG))
        tier_copies = r.integer(("tiers", t, "copies"), 0, _BIG)
        result["tier_copies"].append(tier_copies)
        result["tier_start"].append(len(result["names"]))
        champions = r.sequence(("tiers", t, "champions"), 0, 500)
        result["size"].append(len(champions))
        for c, _ in enumerate(champions):
            path = ("tiers", t, "champions", c)
            r.mapping(path, required=("name", "traits"), optional=("copies",))
            name = r.string(path + ("name",))
            if name in seen:
                r.fail(path + ("name",), f"{_quote(name)} is already a champion at {_dotted(seen[name])} "
                       "(allowed: unique names)")
            seen[name] = path + ("name",)
            named.append((path + ("name",), name))
            result["names"].append(name)
            result["tier_of"].append(t)
            result["own_copies"].append("copies" in r.get(path))
            result["copies"].append(r.integer(path + ("copies",), 0, _BIG, default=tier_copies))
            traits = r.sequence(path + ("traits",), 0, 10)
            indices = []
            for i, trait in enumerate(traits):
                if not isinstance(trait, str) or trait not in trait_index:
                    _unknown_trait(r, path + ("traits", i), trait, trait_names)
                if trait_index[trait] in indices:
                    r.fail(path + ("traits", i), f"trait {_quote(trait)} listed twice (allowed: each trait once)")
                indices.append(trait_index[trait])
            result["trait_lists"].append(indices)
    _check_names(r, named, "champions")
    width = max((len(x) for x in result["trait_lists"]), default=1) or 1
    traits = np.full((len(result["names"]), width), -1, dtype=np.int64)
    for i, indices in enumerate(result["trait_lists"]):
        traits[i, :len(indices)] = indices
    result["traits"] = traits
    return result


def _unknown_trait(r: _Reader, path: tuple, trait, trait_names: list):
    """Fail for a champion's trait that is not a key of ``traits``, naming a near miss if there is one."""
    known = ", ".join(trait_names[:8]) + (", ..." if len(trait_names) > 8 else "")
    shown = r.describe(path, trait) + "; quote it" if r.spelling(path) is not None else _quote(trait)
    near = [name for name in trait_names if isinstance(trait, str) and _name_key(name) == _name_key(trait)]
    hint = f"; {_quote(near[0])} differs only in case or spaces" if near else ""
    r.fail(path, f"unknown trait {shown}{hint} (allowed: a key of traits: {_one_line(known)})")


def _levels(r: _Reader, n_tiers: int, bench_size: int):
    levels = r.get(("levels",))
    if not isinstance(levels, dict) or not levels:
        r.fail(("levels",), f"must be a mapping, got {_describe(levels)} (allowed: level numbers to their odds)")
    for key in levels:
        if isinstance(key, bool) or not isinstance(key, int) or not 1 <= key <= 50:
            spelling = r.spelling(("levels", key), key=True)
            r.fail(("levels", key), f"{spelling.shown() if spelling is not None else _quote(key)} is not a level "
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
        total = math.fsum(odds[level])
        if abs(total - 100.0) > 1e-9:
            # Enough digits to show why 100.000001 is not 100 (the short form would print 100).
            shown = f"{total:.12g}"
            r.fail(path + ("odds",), f"sums to {shown if float(shown) != 100.0 else repr(total)} "
                   "(allowed: percentages summing to 100)")
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
            first = {}
            for i, round_number in enumerate(pve):
                if first.setdefault(round_number, i) != i:
                    r.warn(path + ("pve", i), f"round {round_number} is listed twice, also at "
                           f"{_dotted(path + ('pve', first[round_number]))} (a round is PvE or not, so the repeat "
                           "adds no PvE round; another round was likely meant)")
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
