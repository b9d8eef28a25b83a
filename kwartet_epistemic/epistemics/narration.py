"""What a move taught the table, in sentences ("B has no 7♦.", "Now D knows B holds
Q♥.", "It is now common knowledge where all the queens are."): the narration of the demo,
``kwartet play`` and the replay page, from who knows where each card is before and after.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> _ = game.ask("B", "7D")
>>> p = kw.viz.game_progress(game)
>>> lessons(p.deck, p.players, p.asks[1], "no", Moment.of_progress(p, 0), Moment.of_progress(p, 1))
['B has no 7♦.', 'It is now common knowledge that C holds 7♦.']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kwartet_epistemic.cards import Card, Deck
from kwartet_epistemic.game import Ask

__all__ = ["Moment", "card_label", "lessons"]


def card_label(card: Card) -> str:
    """The card's symbol (``7♦``), or its code where the deck has none."""
    return card.symbol or card.code


def _names(players: Sequence[str]) -> str:
    return players[0] if len(players) == 1 else ", ".join(players[:-1]) + " and " + players[-1]


@dataclass(frozen=True, eq=False)
class Moment:
    """What the table knows at one moment of a game, as :func:`lessons` reads it.

    Attributes:
        known: ``[seat, card]`` whether the player knows where the card is (a row may
            be a lower bound, such as what one seat can be sure the others know).
        public_known: ``[card]`` whether the public record alone fixes where it is.
        exposed: ``[card]`` whether it lies in a quartet on the table.
        holder: ``[card]`` the holder's seat (-1: exposed or in a pile); read only for
            cards whose place the sentences say, i.e. known to someone in ``known``.
    """

    known: np.ndarray
    public_known: np.ndarray
    exposed: np.ndarray
    holder: np.ndarray

    @classmethod
    def of_progress(cls, progress: Any, step: int) -> Moment:
        """The moment after move ``step`` of a :class:`~kwartet_epistemic.viz.GameProgress`
        (or anything with its ``known``, ``public_known``, ``exposed`` and ``holder``)."""
        return cls(
            known=progress.known[step],
            public_known=progress.public_known[step],
            exposed=progress.exposed[step],
            holder=progress.holder[step],
        )


def lessons(
    deck: Deck,
    players: Sequence[str],
    ask: Ask | None,
    kind: str,
    before: Moment,
    after: Moment,
    *,
    you: str | None = None,
) -> list[str]:
    """The sentences of :func:`narrate` for one move: ``ask`` (None for a turned card)
    answered ``kind`` (``"yes"``, ``"no"`` or ``"turn"``), taking the table from
    ``before`` to ``after``.  With ``you`` that player is spoken to ("You have no
    7♦.", "Now you know C holds Q♥.", "Now B knows you hold 8♠.").

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
    >>> _ = game.ask("B", "7D")
    >>> p = kw.viz.game_progress(game)
    >>> lessons(p.deck, p.players, p.asks[1], "no", Moment.of_progress(p, 0),
    ...         Moment.of_progress(p, 1), you="C")
    ['B has no 7♦.', 'It is now common knowledge that you hold 7♦.']
    """
    name = lambda p: "you" if p == you else p  # noqa: E731
    holds = lambda p: "you hold" if p == you else f"{p} holds"  # noqa: E731
    sentences: list[str] = []
    if ask is not None and kind == "no":
        has = "You have" if ask.target == you else f"{ask.target} has"
        sentences.append(f"{has} no {card_label(ask.card)}.")
    moved = ask.card.index if ask is not None and kind == "yes" else None
    new_common, new_private = [], []
    for card in deck.cards:
        c = card.index
        holder = int(after.holder[c])
        if after.exposed[c] or holder < 0 or c == moved:
            continue
        if after.public_known[c] and not before.public_known[c]:
            new_common.append(card)
            continue
        learners = [
            p for seat, p in enumerate(players)
            if after.known[seat, c] and not before.known[seat, c] and seat != holder
        ]  # fmt: skip
        if learners:
            new_private.append((card, learners))
    by_holder: dict[str, list[Card]] = {}
    for card in new_common:
        by_holder.setdefault(players[int(after.holder[card.index])], []).append(card)
    for holder_name, cards in by_holder.items():
        sentences.append(
            f"It is now common knowledge that {holds(holder_name)} "
            f"{_names([card_label(c) for c in cards])}."
        )
    grouped: dict[tuple[tuple[str, ...], str], list[Card]] = {}
    for card, learners in new_private:
        key = (tuple(learners), players[int(after.holder[card.index])])
        grouped.setdefault(key, []).append(card)
    for (group, holder_name), cards in grouped.items():
        others = {p for p in players if p != holder_name}
        everyone = set(group) == others
        ordered = sorted(group, key=lambda p: p != you)  # "you" first
        who = "everyone" if everyone else _names([name(p) for p in ordered])
        verb = "knows" if everyone or (len(group) == 1 and group[0] != you) else "know"
        sentences.append(
            f"Now {who} {verb} {holds(holder_name)} {_names([card_label(c) for c in cards])}."
        )
    for family in range(deck.n_families):
        members = [c.index for c in deck.family_cards(family)]
        if after.exposed[members].any():
            continue
        title = deck.family_title(family)
        everyone_now = after.known[:, members].all()
        everyone_before = before.known[:, members].all()
        public_now = after.public_known[members].all()
        if public_now and not before.public_known[members].all():
            sentences.append(f"It is now common knowledge where all the {title} are.")
        elif everyone_now and not everyone_before:
            sentences.append(f"Everyone now knows where all the {title} are.")
    return sentences
