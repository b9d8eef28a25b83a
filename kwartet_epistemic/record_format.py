"""The game record's file format: plain record data as JSON, checked on the way in.

A record holds what is needed to rebuild the game exactly: the deck (its spec string),
the rules, the players, the initial deal (dealer, hands, stock bottom to top, set-aside
and middle cards), the seed if the game was dealt with one, and every action in order.
This module reads and writes that data (:class:`RecordData`) and publishes its JSON
Schema; it sits below the referee, which saves and loads itself through it
(:meth:`Game.save <kwartet_epistemic.game.Game.save>`), and
:class:`~kwartet_epistemic.record.GameRecord` adds the replay.  Nothing is ever evaluated
or unpickled: a record is plain JSON.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
>>> _ = game.ask("C", "KD")
>>> data = game.record_data()
>>> data.actions
(('ask', 'A', 'C', 'KD', False),)
>>> RecordData.from_json(data.to_json()) == data
True
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from os import PathLike
from pathlib import Path
from typing import Any, ClassVar, Self

from kwartet_epistemic._safejson import check_nesting, load_json, short
from kwartet_epistemic.cards import Deck
from kwartet_epistemic.errors import KwartetError, RecordError
from kwartet_epistemic.files import atomic_write_text
from kwartet_epistemic.rules import RuleSet

__all__ = [
    "RecordData",
    "describe_action",
    "is_plain_action",
    "MAX_RECORD_BYTES",
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "record_schema",
    "record_schema_path",
]

RECORD_FORMAT = "kwartet-game-record"
RECORD_VERSION = 1

# A record of 250,000 actions (games run to a few hundred) fits; a larger file is refused
# before it is read, so a huge file costs no memory.
MAX_RECORD_BYTES = 10_000_000
# A record nests 4 levels (record, deal, hands, a hand); data nested deeper is refused
# before anything looks into it (so no RecursionError from any check or message).
_MAX_DEPTH = 8

Action = tuple[Any, ...]
_FIELDS = ("format", "version", "deck", "rules", "players", "seed", "deal", "actions")
_DEAL_FIELDS = ("dealer", "hands", "stock", "aside", "middle")


def describe_action(action: object) -> str:
    """A short readable form of an action entry, for error messages."""
    if isinstance(action, Sequence) and not isinstance(action, str) and action:
        parts = [p if isinstance(p, str) and len(p) <= 40 else short(p) for p in action[1:4]]
        if action[0] == "ask" and len(action) == 5:
            return f"{parts[0]} asks {parts[1]} for {parts[2]}"
        if action[0] == "turn_over" and len(action) == 3:
            return f"{parts[0]} turns over middle card {parts[1]}"
    return short(action)


def record_schema_path() -> Path:
    """The JSON Schema (draft 2020-12) of a game record file, inside the installed package.

    :meth:`RecordData.from_json` and :meth:`RecordData.load` validate against it; other
    tools can too.  The schema fixes the structure (fields, types, sizes); loading also
    checks what a schema cannot say (the cards are the deck's, the hands are the players',
    the replay is legal).

    >>> path = record_schema_path()
    >>> path.name, path.is_file()
    ('game_record.schema.json', True)
    """
    return Path(__file__).with_name("schemas") / "game_record.schema.json"


def record_schema() -> dict[str, Any]:
    """The game record's JSON Schema as data (a fresh copy each call).

    >>> schema = record_schema()
    >>> schema["properties"]["format"]["const"], schema["required"][:3]
    ('kwartet-game-record', ['format', 'version', 'deck'])
    """
    return copy.deepcopy(_schema())


@cache
def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(record_schema_path().read_text(encoding="utf-8"))
    return schema


@cache
def _validators() -> tuple[Any, Any]:
    """Validators of the whole schema and of one action entry.  JSON's integers are ints
    here (not 1.0, not true), as everywhere in the library."""
    import jsonschema  # loaded on the first record read

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    )
    strict = jsonschema.validators.extend(base, type_checker=checker)
    # The schema's "$ref"s point into its "$defs" and never recurse: validating against
    # the same schema with them written out is some 40% faster (no lookups per value).
    schema = copy.deepcopy(_schema())
    defs = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            if set(node) == {"$ref"} and node["$ref"].startswith("#/$defs/"):
                return inline(defs[node["$ref"].removeprefix("#/$defs/")])
            return {key: inline(value) for key, value in node.items()}
        if isinstance(node, list):
            return [inline(value) for value in node]
        return node

    return strict(inline(schema)), strict(inline(defs["action"]))


@cache
def _player_pattern() -> re.Pattern[str]:
    return re.compile(_schema()["$defs"]["player"]["pattern"])


def is_plain_action(entry: Any) -> bool:
    """Whether ``entry`` is an ask or turn-over of the usual form, which the schema's
    action definition accepts (a test checks that it never accepts what the schema
    refuses).  jsonschema costs some 0.2 ms per entry and a record may hold 100,000:
    only entries not of this form go through it, to find what is wrong with them."""
    if type(entry) is not list:
        return False
    search = _player_pattern().search  # (jsonschema matches a pattern with re.search)
    if len(entry) == 5 and entry[0] == "ask":
        _, asker, target, card, answer = entry
        return (
            type(asker) is str
            and search(asker) is not None
            and type(target) is str
            and search(target) is not None
            and type(card) is str
            and 1 <= len(card) <= 300
            and type(answer) is bool
        )
    if len(entry) == 3 and entry[0] == "turn_over":
        _, player, slot = entry
        return (
            type(player) is str and search(player) is not None and type(slot) is int
        ) and 0 <= slot <= 255
    return False


def _schema_error(data: dict[str, Any]) -> str | None:
    """The message for the first place where ``data`` breaks the schema, or None.

    "First" follows the schema's order of fields (format, version, deck, rules, players,
    seed, deal, actions, as records are written), then the order within each.  The
    message names the entry ("entry 5 (A asks B for QH)", "seed", "deal: A's hand"), the
    bad value, what was expected and the JSON path."""
    whole, action = _validators()
    actions = data.get("actions")
    if isinstance(actions, list):  # the entries are checked one by one below
        error = _first_error(whole.iter_errors({**data, "actions": []}), [], data)
    else:
        error = _first_error(whole.iter_errors(data), [], data)
    if error is not None or not isinstance(actions, list):
        return error
    for index, entry in enumerate(actions):
        if not is_plain_action(entry):
            error = _first_error(action.iter_errors(entry), ["actions", index], data)
            if error is not None:
                return error
    return None


def _first_error(errors: Any, prefix: list[Any], data: Any) -> str | None:
    """The message for the first of ``errors`` (jsonschema errors at ``prefix``)."""
    order = {field: number for number, field in enumerate(_FIELDS + _DEAL_FIELDS)}

    def position(error: Any) -> tuple[Any, ...]:
        return tuple(
            (order.get(step, len(order)), "") if isinstance(step, str) else (step, "")
            for step in error.absolute_path
        )

    found = list(errors)
    if not found:
        return None
    error = min(found, key=position)  # min keeps the first of equals
    path = prefix + list(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    expected = schema.get("description") or error.message
    at = f" (at {_json_path(path)})"
    where, joiner = _where(path, data)
    if error.validator == "additionalProperties" and schema.get("additionalProperties") is False:
        known = schema.get("properties", {})
        unknown = ", ".join(short(k) for k in error.instance if k not in known)
        noun = "rule option(s)" if path == ["rules"] else "field(s)"
        return f"{where}: unknown {noun} {unknown}; expected {expected}{at}"
    if error.validator == "required":
        missing = ", ".join(k for k in schema.get("required", ()) if k not in error.instance)
        return f"{where}: missing field(s) {missing}; expected {expected}{at}"
    if "propertyNames" in error.absolute_schema_path:
        return f"{where}: key {short(error.instance)}: expected {expected}{at}"
    value = short(error.instance)
    if where.endswith(f"({value})"):  # the entry's description already shows it
        return f"{where}: expected {expected}{at}"
    return f"{where}{joiner}{value}: expected {expected}{at}"


def _json_path(path: list[Any]) -> str:
    """``path`` as a JSONPath such as ``$.actions[4][2]`` or ``$.deal.hands['x y']``."""
    text = "$"
    for step in path:
        if isinstance(step, int):
            text += f"[{step}]"
        elif isinstance(step, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", step):
            text += "." + step
        else:
            text += "[" + short(step) + "]"
    return text


# The parts of an action entry, by kind, for error messages.
_PARTS = {
    "ask": ("unknown action", "asker", "target", "card", "answer"),
    "turn_over": ("unknown action", "player", "slot"),
}


def _where(path: list[Any], data: Any) -> tuple[str, str]:
    """How to name the place ``path`` in a message, and how to join the bad value to it."""
    if not path:
        return "record", ": "
    head = path[0]
    if head == "actions" and len(path) >= 2:
        entry = data["actions"][path[1]]
        where = f"entry {path[1] + 1} ({describe_action(entry)})"
        if len(path) == 2:
            return where, ": "
        kind = entry[0] if isinstance(entry[0], str) else ""
        parts = _PARTS.get(kind, _PARTS["ask"])
        part = parts[path[2]] if path[2] < len(parts) else f"part {path[2] + 1}"
        return f"{where}: {part}", " "
    if head == "deal" and len(path) >= 3 and path[1] == "hands":
        where = f"deal: {path[2]}'s hand"
        return (where + f": card {path[3] + 1}", " ") if len(path) > 3 else (where, ": ")
    if head == "deal" and len(path) >= 2:
        where = f"deal: {path[1]}"
        return (where + f": card {path[2] + 1}", " ") if len(path) > 2 else (where, ": ")
    if head == "rules" and len(path) >= 2:
        return f"rules: rule option {path[1]}", "="
    if head == "players" and len(path) >= 2:
        return f"players: player {path[1] + 1}", " "
    return str(head), ": "


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class RecordData:
    """Everything needed to replay a game: deck, rules, players, the deal and the actions.

    ``hands`` lists each player's dealt cards (codes) in seat order, ``stock`` is listed
    bottom to top, and each action is ``("ask", asker, target, card code, answer)`` or
    ``("turn_over", player, slot)``, as in :attr:`Game.actions`.  ``game.record_data()``
    makes one; :meth:`Game.from_record <kwartet_epistemic.game.Game.from_record>` replays
    one.

    >>> import kwartet_epistemic as kw
    >>> small = kw.Deck.piquet(families=2)
    >>> game = kw.Game.from_hands(small, {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"],
    ...     "C": ["7D", "7C", "8C"]}, first="A")
    >>> _ = game.ask("B", "8H")
    >>> data = game.record_data()
    >>> data.hands, data.dealer, data.seed
    ((('7S', '8S'), ('7H', '8H', '8D'), ('7D', '7C', '8C')), 'C', None)
    """

    FORMAT: ClassVar[str] = RECORD_FORMAT
    VERSION: ClassVar[int] = RECORD_VERSION

    deck: Deck
    rules: RuleSet
    players: tuple[str, ...]
    dealer: str
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...] = ()
    aside: tuple[str, ...] = ()
    middle: tuple[str, ...] = ()
    actions: tuple[Action, ...] = ()
    seed: int | None = None

    def with_actions(self, actions: Sequence[Sequence[Any]]) -> Self:
        """A copy with other actions (same deal), e.g. to cut a game short.

        >>> import kwartet_epistemic as kw
        >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
        >>> g.record_data().with_actions([]).actions
        ()
        """
        return type(self)(
            deck=self.deck,
            rules=self.rules,
            players=self.players,
            dealer=self.dealer,
            hands=self.hands,
            stock=self.stock,
            aside=self.aside,
            middle=self.middle,
            actions=_actions_of(actions),
            seed=self.seed,
        )

    # ----- JSON ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON data (what :meth:`to_json` writes).

        >>> import kwartet_epistemic as kw
        >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=3)
        >>> sorted(g.record_data().to_dict())
        ['actions', 'deal', 'deck', 'format', 'players', 'rules', 'seed', 'version']
        """
        return {
            "format": self.FORMAT,
            "version": self.VERSION,
            "deck": self.deck.spec,
            "rules": self.rules.to_dict(),
            "players": list(self.players),
            "seed": self.seed,
            "deal": {
                "dealer": self.dealer,
                "hands": {p: list(h) for p, h in zip(self.players, self.hands, strict=True)},
                "stock": list(self.stock),
                "aside": list(self.aside),
                "middle": list(self.middle),
            },
            "actions": [list(a) for a in self.actions],
        }

    def to_json(self) -> str:
        """The record as JSON text: one line per hand and per action, easy to read and diff.

        >>> import kwartet_epistemic as kw
        >>> g = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
        >>> print(g.record_data().to_json())  # doctest: +ELLIPSIS
        {
          "format": "kwartet-game-record",
          "version": 1,
          "deck": "piquet(families=2)",
          ...
          "actions": []
        }
        """
        data = self.to_dict()

        def dump(value: Any) -> str:
            return json.dumps(value, ensure_ascii=False)

        deal = data["deal"]
        hands = ",\n".join(f"      {dump(p)}: {dump(h)}" for p, h in deal["hands"].items())
        deal_lines = [
            f'    "dealer": {dump(deal["dealer"])}',
            '    "hands": {\n' + hands + "\n    }",
            f'    "stock": {dump(deal["stock"])}',
            f'    "aside": {dump(deal["aside"])}',
            f'    "middle": {dump(deal["middle"])}',
        ]
        if data["actions"]:
            actions = "[\n" + ",\n".join("    " + dump(a) for a in data["actions"]) + "\n  ]"
        else:
            actions = "[]"
        lines = [
            f'  "format": {dump(data["format"])}',
            f'  "version": {dump(data["version"])}',
            f'  "deck": {dump(data["deck"])}',
            f'  "rules": {dump(data["rules"])}',
            f'  "players": {dump(data["players"])}',
            f'  "seed": {dump(data["seed"])}',
            '  "deal": {\n' + ",\n".join(deal_lines) + "\n  }",
            f'  "actions": {actions}',
        ]
        return "{\n" + ",\n".join(lines) + "\n}\n"

    @classmethod
    def from_dict(cls, data: Any) -> Self:
        """Read record data from JSON data, checked against the format (not replayed: see
        :meth:`kwartet_epistemic.record.GameRecord.from_dict`).  Card names are stored as
        their codes.

        >>> RecordData.from_dict({"format": "chess-pgn"})
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.RecordError: format: 'chess-pgn' is not a Kwartet game record; expected 'kwartet-game-record'
        """
        check_nesting(data, what="record", error=RecordError, max_depth=_MAX_DEPTH)
        if not isinstance(data, Mapping):
            raise RecordError(
                f"record: expected a JSON object with {', '.join(_FIELDS)}; got {type(data).__name__}"
            )
        if data.get("format") != RECORD_FORMAT:
            raise RecordError(
                f"format: {data.get('format')!r} is not a Kwartet game record; "
                f"expected {RECORD_FORMAT!r}"
            )
        version = data.get("version")
        if not _is_int(version) or version != RECORD_VERSION:
            newer = " (written by a newer version of the library?)" if _is_int(version) else ""
            raise RecordError(
                f"version: {version!r} is not supported; this library reads version "
                f"{RECORD_VERSION}{newer}"
            )
        problem = _schema_error(data if isinstance(data, dict) else dict(data))
        if problem is not None:
            raise RecordError(problem)
        unknown = sorted(set(data) - set(_FIELDS))
        if unknown:
            raise RecordError(
                f"record: unknown field(s) {', '.join(map(repr, unknown))}; "
                f"fields are {', '.join(_FIELDS)}"
            )
        missing = [k for k in _FIELDS if k not in data]
        if missing:
            raise RecordError(f"record: missing field(s) {', '.join(missing)}")

        spec = data["deck"]
        if not isinstance(spec, str):
            raise RecordError(f"deck: {spec!r}: expected a deck spec such as 'piquet()'")
        try:
            deck = Deck.from_spec(spec, bundled=False)  # a record names no file or pack
        except KwartetError as err:
            raise RecordError(f"deck: {err}") from err
        try:
            rules = RuleSet.from_dict(data["rules"])
        except (KwartetError, TypeError) as err:
            raise RecordError(f"rules: {err}") from err

        players = data["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise RecordError(f"players: {players!r}: expected a list of names")
        seed = data["seed"]
        if seed is not None and not (_is_int(seed) and seed >= 0):
            raise RecordError(f"seed: {seed!r}: expected null or an integer >= 0")

        deal = data["deal"]
        if not isinstance(deal, Mapping) or set(deal) != set(_DEAL_FIELDS):
            raise RecordError(
                f"deal: expected an object with exactly {', '.join(_DEAL_FIELDS)}; got "
                + (", ".join(map(repr, deal)) if isinstance(deal, Mapping) else repr(deal))
            )
        dealer = deal["dealer"]
        if not isinstance(dealer, str):
            raise RecordError(f"deal: dealer {dealer!r}: expected a player name")
        hands_data = deal["hands"]
        if not isinstance(hands_data, Mapping) or set(hands_data) != set(players):
            raise RecordError(
                "deal: hands must be an object with one list of cards per player "
                f"({', '.join(players)})"
            )

        def codes(value: Any, where: str) -> tuple[str, ...]:
            if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
                raise RecordError(f"deal: {where}: {value!r}: expected a list of card codes")
            try:
                return tuple(deck.card(c).code for c in value)
            except KwartetError as err:
                raise RecordError(f"deal: {where}: {err}") from err

        hands = tuple(codes(hands_data[p], f"{p}'s hand") for p in players)
        stock = codes(deal["stock"], "stock")
        aside = codes(deal["aside"], "aside")
        middle = codes(deal["middle"], "middle")

        actions_data = data["actions"]
        if not isinstance(actions_data, list):
            raise RecordError(f"actions: expected a list of actions; got {actions_data!r}")
        actions: list[Action] = []
        for number, entry in enumerate(actions_data, start=1):
            if not isinstance(entry, list):
                raise RecordError(
                    f"entry {number} ({describe_action(entry)}): expected a list such as "
                    '["ask", "A", "B", "QH", false] or ["turn_over", "A", 0]'
                )
            if entry and entry[0] == "ask" and len(entry) == 5 and isinstance(entry[3], str):
                try:
                    entry = [*entry[:3], deck.card(entry[3]).code, entry[4]]
                except KwartetError as err:
                    raise RecordError(f"entry {number} ({describe_action(entry)}): {err}") from err
            actions.append(tuple(entry))

        record = cls(
            deck=deck,
            rules=rules,
            players=tuple(players),
            dealer=dealer,
            hands=hands,
            stock=stock,
            aside=aside,
            middle=middle,
            actions=tuple(actions),
            seed=seed,
        )
        return record

    @classmethod
    def from_json(cls, text: str | bytes) -> Self:
        """Read record data from JSON text (see :meth:`from_dict`).

        >>> RecordData.from_json("{not json")
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.RecordError: record: not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)
        """
        data = load_json(
            text, what="record", error=RecordError, max_depth=_MAX_DEPTH, max_bytes=MAX_RECORD_BYTES
        )
        return cls.from_dict(data)

    def save(self, path: str | PathLike[str]) -> None:
        """Write the record as JSON to ``path`` (UTF-8), atomically: the JSON goes to a
        temporary file beside ``path``, is flushed to disk and then renamed over it, so a
        stop at any moment (or a full disk) leaves the old file or the new, never half."""
        atomic_write_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | PathLike[str]) -> Self:
        """Read record data from a JSON file; an unreadable file is a :class:`RecordError`
        too.

        >>> RecordData.load("/no/such/record.json")
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.RecordError: cannot read game record '/no/such/record.json': No such file or directory
        """
        try:
            with Path(path).open("rb") as handle:
                text = handle.read(MAX_RECORD_BYTES + 1)
        except (OSError, ValueError) as err:  # (ValueError: a NUL in the path)
            reason = err.strerror if isinstance(err, OSError) and err.strerror else err
            raise RecordError(f"cannot read game record {short(str(path))}: {reason}") from err
        if len(text) > MAX_RECORD_BYTES:
            raise RecordError(
                f"{path}: record: larger than {MAX_RECORD_BYTES:,} bytes; a game record is at "
                "most that"
            )
        try:
            return cls.from_json(text)
        except RecordError as err:
            raise RecordError(f"{path}: {err}") from err


def _actions_of(actions: Any) -> tuple[Action, ...]:
    """``actions`` as a tuple of tuples, or RecordError naming the first that is not a list."""
    if isinstance(actions, str | bytes) or not isinstance(actions, Sequence):
        raise RecordError(f"actions {short(actions)}: expected a list of actions")
    entries = []
    for number, action in enumerate(actions, start=1):
        if isinstance(action, str | bytes) or not isinstance(action, Sequence):
            raise RecordError(
                f"entry {number} ({describe_action(action)}): expected an action such as "
                "('ask', 'A', 'B', 'QH', False)"
            )
        entries.append(tuple(action))
    return tuple(entries)
