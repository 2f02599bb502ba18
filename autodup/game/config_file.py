"""Reading a configuration file within limits, and YAML with line numbers for every value."""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ..errors import ConfigError, first_line
from ..files import kind_of_file
from ..shipped import config_names

__all__ = ["EMPTY_TIER_SKIP", "EMPTY_TIER_EMPTY", "EMPTY_TIER_RULES", "MAX_PLAYERS", "STAR_LEVELS",
           "COPIES_FOR_TOP_STAR", "BIG_NUMBER", "MAX_CONFIG_BYTES", "MAX_NESTING", "MAX_EXPANDED_NODES",
           "MAX_NUMBER_LENGTH", "too_large", "read_config_file", "decode_text", "YamlNotes", "path_key",
           "dotted_path", "parse_yaml", "yaml_surprises", "show_number", "quote", "shorten", "describe_value",
           "yaml_float_text"]

EMPTY_TIER_SKIP = 0
EMPTY_TIER_EMPTY = 1
EMPTY_TIER_RULES = {"skip": EMPTY_TIER_SKIP, "empty": EMPTY_TIER_EMPTY}
MAX_PLAYERS = 8
STAR_LEVELS = 3
# Copies a unit of the top star level holds (autodup.game.shop.copies_of_star): fewer copies in the pool make it impossible.
COPIES_FOR_TOP_STAR = 3 ** (STAR_LEVELS - 1)
BIG_NUMBER = 10**6

MAX_CONFIG_BYTES = 1 << 20
MAX_NESTING = 64
MAX_EXPANDED_NODES = 100_000
MAX_NUMBER_LENGTH = 100

_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_BOOL_TAG = "tag:yaml.org,2002:bool"
# The longest text (a name, a value) quoted in a message: the message stays readable whatever the file holds.
_QUOTE_LENGTH = 60




# --------------------------------------------------------------------------
# reading a file, within limits
# --------------------------------------------------------------------------


def _not_regular(file: str, mode: int) -> ConfigError:
    return ConfigError(file, 0, "", f"not a regular file ({kind_of_file(mode)}) (allowed: a YAML file)")


def too_large(file: str) -> ConfigError:
    size = f"{MAX_CONFIG_BYTES / (1 << 20):g} MiB"
    return ConfigError(file, 0, "", f"larger than {size} (allowed: a configuration of at most {size})")


def read_config_file(path: Path) -> bytes:
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
        raise too_large(file)
    return data


def decode_text(data: bytes, file: str) -> str:
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

    Both parsers (libyaml's, and PyYAML's own when libyaml is missing or finds an error, whose messages are
    the ones users have) are iterative, so scanning is safe on any input. What comes
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
    if _LIBYAML_PARSER is not None:
        try:
            return _checked_events(yaml.parse(text, Loader=_LIBYAML_PARSER), file, plain_style="")
        except yaml.YAMLError:
            pass  # PyYAML's own parser finds the error again and words it as it always has
    return _checked_events(yaml.parse(text, Loader=yaml.SafeLoader), file)


# libyaml's parser, when PyYAML was built with it: the same events about 20x faster (80 ms a parse of set4 in
# Python), which every process of a run pays (the command and each worker read the configuration).
_LIBYAML_PARSER = getattr(yaml, "CSafeLoader", None)


def _checked_events(parsed, file: str, plain_style=None) -> list:
    """:func:`_scan_events`'s checks on the events ``parsed`` yields; libyaml marks a plain scalar's style
    ``plain_style`` (``""``) where PyYAML's parser gives None, and it is made None here."""
    events = []
    expanded = 0             # nodes so far with every alias expanded
    frames = []              # per open list or mapping: [expanded before it, deepest level reached, anchor]
    anchor_size, anchor_height, open_anchors = {}, {}, set()
    for event in parsed:
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
            if plain_style is not None and event.style == plain_style:
                event.style = None
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
            return f"{self.text} (read by YAML as {describe_value(self.value)})"
        return f"{self.text} (read by YAML as {show_number(self.value)}, {self.reading})"

    def warning(self, key: bool) -> str:
        value = str(self.value).lower() if isinstance(self.value, bool) else show_number(self.value)
        what = f"the key {self.text}" if key else self.text
        if self.reading == "octal":
            decimal = int(self.text.replace("_", ""))
            advice = f"write {value}, or {decimal} if that was meant"
        elif self.reading in ("boolean", "base 60"):
            advice = f'write {value}, or quote it ("{self.text}") for text'
        else:
            advice = f"write {value}"
        return f"{what} is read by YAML as {value} ({self.reading}); {advice}"


class YamlNotes:
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


def _walk(node, path: tuple, notes: YamlNotes, loader: _ReplayLoader, file: str, line: int | None = None,
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
            raise ConfigError(file, notes.lines[path], dotted_path(path, notes.keys),
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
                raise ConfigError(file, key_line, dotted_path(path, notes.keys),
                                  "a key is a list or mapping (allowed: plain text or number keys)")
            if key_node.tag in (_INT_TAG, _FLOAT_TAG) and len(key_node.value) > MAX_NUMBER_LENGTH:
                raise ConfigError(file, key_line, dotted_path(path, notes.keys),
                                  f"a key is a number written with {len(key_node.value):,} characters "
                                  f"(allowed: at most {MAX_NUMBER_LENGTH})")
            key = _construct_scalar(key_node, loader, file, path, notes, True)
            try:
                hash(key)
            except TypeError:  # a scalar key tagged as a list or mapping (``!!seq 1``)
                raise ConfigError(file, key_line, dotted_path(path, notes.keys), f"a key is {describe_value(key)} "
                                  "(allowed: plain text or number keys)") from None
            key_path = path + (path_key(key),)
            if key_node.style is None and key_node.value != str(key):
                notes.keys[key_path] = _Spelling(key_node.value, key, _yaml_reading(key_node) or "", key_line)
            # The constructed dictionary keeps one of two equal keys (yes and on, 1 and true), so compare them so.
            if key in seen:
                spelling = notes.keys.get(key_path)
                read_as = f"YAML reads {spelling.text} as {describe_value(key)}, the same key as line {seen[key]}'s; " \
                    if spelling is not None else ""
                raise ConfigError(file, key_line, dotted_path(key_path, notes.keys),
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


def _construct_scalar(node, loader: _ReplayLoader, file: str, path: tuple, notes: YamlNotes, key: bool):
    """The Python value of a key (``path`` is its mapping's) or a scalar, cached by the loader for later."""
    try:
        return loader.construct_object(node)
    except _CONSTRUCTION_ERRORS as error:
        where = dotted_path(path, notes.keys)
        if key:
            message = f"a key cannot be read ({_first_line(error)}) (allowed: plain text or number keys)"
        else:
            message = f"cannot be read ({_first_line(error)}) (allowed: plain YAML scalars, lists and mappings)"
        raise ConfigError(file, _mark_line(node.start_mark), where, message) from None


def _first_line(error) -> str:
    """The first line of a YAML error's problem (without its position), else of the error."""
    return first_line(getattr(error, "problem", None) or error) or type(error).__name__


def path_key(key):
    """A path element as :attr:`GameConfig.lines` keys it: text or an int (a boolean key is its text)."""
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return int(key)
    return key if isinstance(key, str) else str(key)


def dotted_path(path: tuple, spellings: dict | None = None) -> str:
    """``path`` as a dotted string, each key as written in the file when YAML read it differently."""
    if not spellings:
        return ".".join(str(p) for p in path)
    parts = []
    for depth in range(1, len(path) + 1):
        spelling = spellings.get(tuple(path_key(p) for p in path[:depth]))
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


def parse_yaml(text: str, file: str, empty_ok: bool = False) -> tuple[Any, YamlNotes]:
    """The data of ``text`` and its :class:`YamlNotes`; every failure is one ConfigError line. A text with no
    document (empty, or comments only) is one too, unless ``empty_ok``: then the data is None, for the caller
    to say what it needed."""
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
        notes = YamlNotes()
        if node is None:
            if empty_ok:
                return None, notes
            raise ConfigError(file, 1, "", "empty file (a mapping of configuration keys is needed)")
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


def yaml_surprises(notes: YamlNotes):
    """The values, then the keys, that YAML 1.1 reads otherwise than written (``011``, ``0x10``, ``1_000``, ``yes``):
    ``(path, spelling, is_key)`` for each (a key such as ``1.50``, read as written in YAML 1.2 too, is not one).
    A configuration file gets a warning for each; an edit typed on the command line, or a parameter file, is
    refused."""
    for spellings, key in ((notes.values, False), (notes.keys, True)):
        for where, spelling in spellings.items():
            if spelling.reading:
                yield where, spelling, key


def show_number(value) -> str:
    """``value`` as text, with integers too long to read usefully summarised as their number of digits."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return quote(value)
    if isinstance(value, float) or value.bit_length() <= 128:
        return str(value)
    if value.bit_length() < 10_000:
        return f"{'-' if value < 0 else ''}a number of {len(str(abs(value)))} digits"
    # Python refuses to print an integer of more than 4300 digits: estimate its length from its bits.
    return f"{'-' if value < 0 else ''}a number of about {int(value.bit_length() * math.log10(2)) + 1} digits"


def quote(value) -> str:
    """``repr(value)``, shortened to :data:`_QUOTE_LENGTH` characters (a file may hold megabyte-long strings)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return show_number(value)
    text = repr(value)
    return text if len(text) <= _QUOTE_LENGTH else text[:_QUOTE_LENGTH - 4] + "...'"


def shorten(text: str) -> str:
    """``text`` cut to :data:`_QUOTE_LENGTH` characters, for a list of names in a message."""
    return text if len(text) <= _QUOTE_LENGTH else text[:_QUOTE_LENGTH - 3] + "..."


def describe_value(value) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, (dict, list)):
        return type(value).__name__
    return f"{type(value).__name__} {quote(value)}"


def yaml_float_text(text: str) -> str | None:
    """``1e-3`` (text to YAML 1.1, which wants a dot and a signed exponent) written as a number, else None."""
    mantissa, e, exponent = text.lower().partition("e")
    try:
        value = float(text)
    except ValueError:
        return None
    if not math.isfinite(value):  # 1e999: as a number it would be infinite, which no field takes
        return None
    if not e or text.strip() != text or not mantissa.lstrip("+-")[:1].isdigit() and mantissa.lstrip("+-")[:1] != ".":
        return None
    mantissa = mantissa if "." in mantissa else mantissa + ".0"
    exponent = exponent if exponent[:1] in ("+", "-") else "+" + exponent
    return f"{mantissa}e{exponent}"
