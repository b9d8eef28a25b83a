"""Game records: a game saved as JSON, loaded back and replayed move by move.

A :class:`GameRecord` is the record data of :mod:`~kwartet_epistemic.record_format` (the
deck, the rules, the players, the initial deal, the seed and every action) that can
replay itself.  Loading replays every action through the referee and checks each
recorded answer, so a record that was corrupted or tampered with is refused with
:class:`~kwartet_epistemic.errors.RecordError` naming the first bad entry.  Nothing is
ever evaluated or unpickled: a record is plain JSON.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
>>> _ = game.ask("C", "KD")
>>> record = GameRecord.from_game(game)
>>> record.actions
(('ask', 'A', 'C', 'KD', False),)
>>> again = GameRecord.from_json(record.to_json())
>>> again == record, again.replay().events == game.events
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from os import PathLike
from typing import Any

# Deck, RuleSet and Action name the types of the fields GameRecord inherits, for its
# documentation.
from kwartet_epistemic.cards import Deck  # noqa: F401
from kwartet_epistemic.errors import RecordError
from kwartet_epistemic.game import Game
from kwartet_epistemic.record_format import (  # noqa: F401
    MAX_RECORD_BYTES,
    RECORD_FORMAT,
    RECORD_VERSION,
    Action,
    RecordData,
    record_schema,
    record_schema_path,
)
from kwartet_epistemic.rules import RuleSet  # noqa: F401

__all__ = [
    "GameRecord",
    "MAX_RECORD_BYTES",
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "record_schema",
    "record_schema_path",
]


@dataclass(frozen=True)
class GameRecord(RecordData):
    """Everything needed to replay a game, and the replay.

    ``hands`` lists each player's dealt cards (codes) in seat order, ``stock`` is listed
    bottom to top, and each action is ``("ask", asker, target, card code, answer)`` or
    ``("turn_over", player, slot)``, as in :attr:`Game.actions`.  Build one with
    :meth:`from_game` or :meth:`from_json` / :meth:`load`; :meth:`replay` rebuilds the game.

    >>> import kwartet_epistemic as kw
    >>> small = kw.Deck.piquet(families=2)
    >>> game = kw.Game.from_hands(small, {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"],
    ...     "C": ["7D", "7C", "8C"]}, first="A")
    >>> _ = game.ask("B", "8H")
    >>> record = GameRecord.from_game(game)
    >>> record.hands, record.dealer, record.seed
    ((('7S', '8S'), ('7H', '8H', '8D'), ('7D', '7C', '8C')), 'C', None)
    >>> record.replay().hand("A")
    (Card('7S'), Card('8S'), Card('8H'))
    """

    @classmethod
    def from_game(cls, game: Game) -> GameRecord:
        """The record of ``game`` so far (a finished game or one still in progress).

        >>> import kwartet_epistemic as kw
        >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=3)
        >>> GameRecord.from_game(g).seed, len(GameRecord.from_game(g).hands[0])
        (3, 10)
        """
        if not isinstance(game, Game):
            raise RecordError(f"{game!r}: expected a Game to record")
        return cls._of(game.record_data())

    @classmethod
    def _of(cls, data: RecordData) -> GameRecord:
        return cls(**{field.name: getattr(data, field.name) for field in fields(data)})

    def replay(self) -> Game:
        """Rebuild the game: deal as recorded, then play every action, checking each
        recorded answer against the replay (:meth:`Game.from_record`).  Raises
        :class:`~kwartet_epistemic.errors.RecordError` naming the first entry that is
        illegal or disagrees with the deal.

        >>> import kwartet_epistemic as kw
        >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
        >>> _ = g.ask("C", "KD")
        >>> lie = GameRecord.from_game(g).with_actions([("ask", "A", "C", "KD", True)])
        >>> lie.replay()
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.RecordError: entry 1 (A asks C for KD): the record says yes, but C does not hold KD in the recorded deal
        """
        return Game.from_record(self)

    @classmethod
    def from_dict(cls, data: Any, *, check: bool = True) -> GameRecord:
        """Read a record from JSON data; with ``check`` (the default) it is also replayed,
        so a record that loads is a valid game.  Card names are stored as their codes.

        >>> GameRecord.from_dict({"format": "chess-pgn"})
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.RecordError: format: 'chess-pgn' is not a Kwartet game record; expected 'kwartet-game-record'
        """
        return cls._checked(RecordData.from_dict(data), check)

    @classmethod
    def from_json(cls, text: str | bytes, *, check: bool = True) -> GameRecord:
        """Read a record from JSON text (see :meth:`from_dict`).

        >>> GameRecord.from_json("{not json")
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.RecordError: record: not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)
        """
        return cls._checked(RecordData.from_json(text), check)

    @classmethod
    def load(cls, path: str | PathLike[str], *, check: bool = True) -> GameRecord:
        """Read a record from a JSON file; an unreadable file is a
        :class:`~kwartet_epistemic.errors.RecordError` too.

        >>> GameRecord.load("/no/such/record.json")
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.RecordError: cannot read game record '/no/such/record.json': No such file or directory
        """
        record = cls._of(RecordData.load(path))
        if check:
            try:
                record.replay()
            except RecordError as err:
                raise RecordError(f"{path}: {err}") from err
        return record

    @classmethod
    def _checked(cls, data: RecordData, check: bool) -> GameRecord:
        record = cls._of(data)
        if check:
            record.replay()
        return record
