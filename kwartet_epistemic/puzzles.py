"""The classic puzzles, each defined once: its agents, its atoms, what each agent observes,
its law and its announcements, as formulas.  :mod:`kwartet_epistemic.examples` builds
them as Kripke models and :mod:`kwartet_epistemic.symbolic.puzzles` as knowledge
structures, from these same definitions, so every formula carries over between them.

Muddy children: children ``"1"``..``"n"``; atom ``m<i>`` says child i is muddy; every
child observes every forehead but its own; nothing is known beyond that (the law is
``top``).

Russian cards: cards 0..6 dealt three to Alice, three to Bob and one to Cath; atom
``has(Alice, 3)`` says Alice holds card 3; each agent observes its own atoms; the law
says every card has one owner and Alice and Cath hold three and one (Bob the rest).

>>> str(muddy_father(3)), sorted(muddy_observed(3)["2"])
('m1 | m2 | m3', ['m1', 'm3'])
>>> russian_law().modal_depth(), len(russian_vocabulary())
(0, 21)
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from itertools import combinations

from kwartet_epistemic._safejson import short
from kwartet_epistemic.errors import ModelError
from kwartet_epistemic.logic.formula import (
    Atom,
    Formula,
    K,
    Kw,
    Not,
    conjunction,
    disjunction,
    has,
)

__all__ = [
    "MAX_CHILDREN",
    "check_children",
    "RUSSIAN_AGENTS",
    "RUSSIAN_CARDS",
    "RUSSIAN_HAND_SIZES",
    "muddy_atom",
    "muddy_father",
    "muddy_muddy_know",
    "muddy_nobody_knows",
    "muddy_observed",
    "russian_alice_announces",
    "russian_alice_hand_one_of",
    "russian_atom",
    "russian_bob_knows_alice",
    "russian_cath_ignorant",
    "russian_hand",
    "russian_law",
    "russian_observed",
    "russian_vocabulary",
]

# ------------------------------------------------------------------ muddy children

MAX_CHILDREN = 100_000
"""The most children a formula of the puzzle names (each builder has its own smaller
limit: the worlds or the structure must fit)."""


def check_children(n: object, top: int = MAX_CHILDREN) -> int:
    """``n`` if it is a number of children from 1 to ``top``, else ModelError."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= top:
        raise ModelError(
            f"number of children {short(n)}: expected a positive integer, at most {top:,}"
        )
    return n


@functools.lru_cache(maxsize=4096)
def muddy_atom(child: int) -> Atom:
    """Child ``child`` is muddy: ``m<child>`` (one object per atom, so formulas built
    again and again share their leaves).

    >>> muddy_atom(3)
    Atom(name='m3')
    """
    return Atom(f"m{child}")


def muddy_observed(n: int) -> dict[str, list[str]]:
    """What each child observes: every forehead but its own."""
    check_children(n)
    return {
        str(i): [muddy_atom(j).name for j in range(1, n + 1) if j != i] for i in range(1, n + 1)
    }


def muddy_father(n: int) -> Formula:
    """The father's announcement: at least one child is muddy.

    >>> str(muddy_father(2))
    'm1 | m2'
    """
    check_children(n)
    return disjunction(muddy_atom(i) for i in range(1, n + 1))


def muddy_nobody_knows(n: int) -> Formula:
    """One round of silence: no child knows whether it is muddy.

    >>> str(muddy_nobody_knows(2))
    '~Kw_1 m1 & ~Kw_2 m2'
    """
    check_children(n)
    return conjunction(Not(Kw(str(i), muddy_atom(i))) for i in range(1, n + 1))


def muddy_muddy_know(muddy: Iterable[int]) -> Formula:
    """Every muddy child knows it is muddy.

    >>> str(muddy_muddy_know([3, 1]))
    'K_1 m1 & K_3 m3'
    """
    return conjunction(K(str(i), muddy_atom(i)) for i in sorted(set(muddy)))


# ------------------------------------------------------------------ Russian cards

RUSSIAN_AGENTS: tuple[str, str, str] = ("Alice", "Bob", "Cath")
RUSSIAN_CARDS: tuple[int, ...] = tuple(range(7))
RUSSIAN_HAND_SIZES = {"Alice": 3, "Bob": 3, "Cath": 1}


def russian_atom(agent: str, card: int) -> Atom:
    """The atom "agent holds card", e.g. ``has(Cath, 6)``.

    >>> russian_atom("Cath", 6)
    Atom(name='has(Cath, 6)')
    """
    if agent not in RUSSIAN_AGENTS:
        raise ModelError(f"unknown agent {agent!r}: expected one of {RUSSIAN_AGENTS}")
    if card not in RUSSIAN_CARDS:
        raise ModelError(f"unknown card {card!r}: expected one of 0..6")
    return _russian_atom(agent, int(card))


@functools.cache
def _russian_atom(agent: str, card: int) -> Atom:
    return has(agent, card)


def russian_vocabulary() -> list[str]:
    """The atoms card by card (``has(Alice, 0)``, ``has(Bob, 0)``, ``has(Cath, 0)``,
    ``has(Alice, 1)``, ...): the order that keeps one card's constraints together."""
    return [russian_atom(agent, card).name for card in RUSSIAN_CARDS for agent in RUSSIAN_AGENTS]


def russian_observed() -> dict[str, list[str]]:
    """What each agent observes: its own atoms."""
    return {
        agent: [russian_atom(agent, card).name for card in RUSSIAN_CARDS]
        for agent in RUSSIAN_AGENTS
    }


def russian_hand(agent: str, hand: Iterable[int]) -> Formula:
    """The agent's hand is exactly ``hand`` (one formula object per hand)."""
    return _hand_formula(agent, frozenset(hand))


@functools.lru_cache(maxsize=1024)
def _hand_formula(agent: str, cards: frozenset[int]) -> Formula:
    return conjunction(
        russian_atom(agent, card) if card in cards else Not(russian_atom(agent, card))
        for card in RUSSIAN_CARDS
    )


def russian_law() -> Formula:
    """Every card has one owner; Alice holds three cards and Cath one (so Bob three)."""
    one_owner = conjunction(
        disjunction(
            conjunction(
                russian_atom(other, card) if other == owner else Not(russian_atom(other, card))
                for other in RUSSIAN_AGENTS
            )
            for owner in RUSSIAN_AGENTS
        )
        for card in RUSSIAN_CARDS
    )
    sizes = conjunction(
        disjunction(
            russian_hand(agent, hand)
            for hand in combinations(RUSSIAN_CARDS, RUSSIAN_HAND_SIZES[agent])
        )
        for agent in ("Alice", "Cath")
    )
    return one_owner & sizes


def russian_alice_announces(hands: Iterable[Iterable[int]]) -> Formula:
    """Alice's announcement "my hand is one of these" as what she knows: ``K_Alice`` of
    the disjunction of the exact hands.

    >>> str(russian_alice_announces([(0, 2, 4), (1, 2, 3)]))[:48]
    'K_Alice (has(Alice, 0) & ~has(Alice, 1) & has(Al'
    """
    options = [tuple(hand) for hand in hands]
    if not options or any(len(set(h)) != 3 or not set(h) <= set(RUSSIAN_CARDS) for h in options):
        raise ModelError(f"hands {options}: expected one or more hands of three cards from 0..6")
    return K("Alice", disjunction(russian_hand("Alice", hand) for hand in options))


def russian_alice_hand_one_of(hands: Iterable[Iterable[int | str]]) -> Formula:
    """ "Alice's hand is one of these" as the disjunction of the cards she holds in each
    (hands given as cards, or text such as ``"012"``): with three cards each, the same
    worlds as :func:`russian_alice_announces` keeps.

    >>> str(russian_alice_hand_one_of(["01", "23"]))
    'has(Alice, 0) & has(Alice, 1) | has(Alice, 2) & has(Alice, 3)'
    """
    if isinstance(hands, str) or not isinstance(hands, Iterable):
        raise ModelError(f"hands {short(hands)}: expected a list of hands such as ['012', '345']")
    listed = list(hands)
    for hand in listed:
        if not isinstance(hand, Iterable):
            raise ModelError(f"hand {short(hand)}: expected cards such as '012' or [0, 1, 2]")
    return disjunction(conjunction(has("Alice", card) for card in hand) for hand in listed)


def russian_bob_knows_alice() -> Formula:
    """Bob knows Alice's hand (and so the whole deal): whether she holds each card."""
    return conjunction(Kw("Bob", russian_atom("Alice", card)) for card in RUSSIAN_CARDS)


def russian_cath_ignorant() -> Formula:
    """Cath knows of no card that Alice holds it, and of no card that Bob holds it."""
    return conjunction(
        Not(K("Cath", russian_atom(agent, card)))
        for card in RUSSIAN_CARDS
        for agent in ("Alice", "Bob")
    )
