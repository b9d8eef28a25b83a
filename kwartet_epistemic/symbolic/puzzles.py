"""The classic puzzles as knowledge structures: muddy children and Russian cards, built
from their one definition (:mod:`kwartet_epistemic.puzzles`), as
:mod:`kwartet_epistemic.examples` builds them as Kripke models: formulas carry over
between the two engines.

Muddy children: children ``"1"``..``"n"``, atom ``m<i>`` says child i is muddy; every
child sees every other forehead but not its own.

>>> n = 4
>>> ks = muddy_children_structure(n).announce(muddy_children_father(n))
>>> muddy_children_rounds(ks, {1, 2, 3})
2

Russian cards: cards 0..6 dealt three to Alice, three to Bob and one to Cath; atom
``has(Alice, 3)`` says Alice holds card 3, and each agent observes its own atoms.

>>> ks = russian_cards_structure()
>>> ks.count_states()
140
>>> after = ks.announce(russian_cards_alice_says([(0, 1, 2), (0, 3, 4), (0, 5, 6),
...                                               (1, 3, 5), (2, 4, 6)]))
>>> after.holds(russian_cards_bob_knows_alice(), russian_cards_deal((0, 1, 2), (3, 4, 5), (6,)))
True
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from kwartet_epistemic._safejson import short
from kwartet_epistemic.errors import ModelError
from kwartet_epistemic.logic.formula import Atom, Formula
from kwartet_epistemic.puzzles import (
    RUSSIAN_AGENTS,
    RUSSIAN_CARDS,
    RUSSIAN_HAND_SIZES,
    check_children,
    muddy_atom,
    muddy_father,
    muddy_muddy_know,
    muddy_nobody_knows,
    muddy_observed,
    russian_alice_announces,
    russian_atom,
    russian_bob_knows_alice,
    russian_cath_ignorant,
    russian_law,
    russian_observed,
    russian_vocabulary,
)
from kwartet_epistemic.symbolic.structure import KnowledgeStructure

__all__ = [
    "RUSSIAN_CARDS_AGENTS",
    "RUSSIAN_CARDS_CARDS",
    "muddy_children_father",
    "muddy_children_muddy_know",
    "muddy_children_nobody_knows",
    "muddy_children_rounds",
    "muddy_children_state",
    "muddy_children_structure",
    "russian_cards_alice_says",
    "russian_cards_atom",
    "russian_cards_bob_knows_alice",
    "russian_cards_cath_ignorant",
    "russian_cards_deal",
    "russian_cards_structure",
]

# ------------------------------------------------------------------ muddy children


# Each child observes the n - 1 others: the structure grows as n**2 (n = 1,000 takes about
# a second to build).
MAX_CHILDREN = 1_000


def _check_children(n: int) -> None:
    check_children(n, MAX_CHILDREN)


def muddy_children_structure(n: int, *, backend: str = "auto") -> KnowledgeStructure:
    """The ``n`` muddy children before the father speaks: all ``2**n`` states.

    >>> ks = muddy_children_structure(3)
    >>> ks.count_states(), sorted(ks.observed["1"])
    (8, ['m2', 'm3'])
    """
    _check_children(n)
    vocabulary = [muddy_atom(i).name for i in range(1, n + 1)]
    return KnowledgeStructure(vocabulary, "top", muddy_observed(n), backend=backend)


def muddy_children_father(n: int) -> Formula:
    """The father's announcement: at least one child is muddy.

    >>> str(muddy_children_father(3))
    'm1 | m2 | m3'
    """
    _check_children(n)
    return muddy_father(n)


def muddy_children_nobody_knows(n: int) -> Formula:
    """One round of silence: no child knows whether it is muddy.

    >>> str(muddy_children_nobody_knows(2))
    '~Kw_1 m1 & ~Kw_2 m2'
    """
    _check_children(n)
    return muddy_nobody_knows(n)


def muddy_children_muddy_know(muddy: Iterable[int]) -> Formula:
    """Every muddy child knows it is muddy.

    >>> str(muddy_children_muddy_know([1, 3]))
    'K_1 m1 & K_3 m3'
    """
    return muddy_muddy_know(muddy)


def muddy_children_state(muddy: Iterable[int]) -> frozenset[str]:
    """The state in which exactly the given children are muddy.

    >>> sorted(muddy_children_state([2, 1]))
    ['m1', 'm2']
    """
    if isinstance(muddy, str | bytes) or not isinstance(muddy, Iterable):
        raise ModelError(f"muddy {short(muddy)}: expected the muddy children's numbers")
    return frozenset(muddy_atom(i).name for i in muddy)


def muddy_children_rounds(structure: KnowledgeStructure, muddy: Collection[int]) -> int:
    """How many rounds of "nobody knows" pass before the muddy children know.

    ``structure`` is the muddy children structure after the father's announcement;
    the rounds are public announcements made one after the other, so the work is a
    chain of BDD updates.  With k muddy children the answer is k - 1.

    >>> n = 3
    >>> ks = muddy_children_structure(n).announce(muddy_children_father(n))
    >>> muddy_children_rounds(ks, {1, 2, 3}), muddy_children_rounds(ks, {2})
    (2, 0)
    """
    if not muddy:
        raise ModelError("no muddy child: the father's announcement would be false")
    n = len(structure.vocabulary)
    state = muddy_children_state(muddy)
    goal = muddy_children_muddy_know(muddy)
    silence = muddy_children_nobody_knows(n)
    rounds = 0
    # A muddy child who knows it is muddy knows whether it is, so while the silence is
    # true the goal is false: the goal needs checking only once the silence fails.
    while structure.holds(silence, state):
        after = structure.announce(silence)
        if after.law == structure.law:  # e.g. without the father's announcement
            raise ModelError(
                f"in state {sorted(state)} the silence rules nothing out: nobody ever knows"
            )
        structure = after
        rounds += 1
    if not structure.holds(goal, state):
        raise ModelError(
            f"in state {sorted(state)} some clean child knows before the muddy ones do"
        )
    return rounds


# ------------------------------------------------------------------ Russian cards

RUSSIAN_CARDS_AGENTS = RUSSIAN_AGENTS
RUSSIAN_CARDS_CARDS = RUSSIAN_CARDS


def russian_cards_atom(agent: str, card: int) -> Atom:
    """The atom "agent holds card", e.g. ``has(Cath, 6)``.

    >>> russian_cards_atom("Cath", 6)
    Atom(name='has(Cath, 6)')
    """
    return russian_atom(agent, card)


def russian_cards_structure(*, backend: str = "auto") -> KnowledgeStructure:
    """All 140 deals of seven cards (3 to Alice, 3 to Bob, 1 to Cath).

    The variable order is card by card (``has(Alice, 0)``, ``has(Bob, 0)``,
    ``has(Cath, 0)``, ``has(Alice, 1)``, ...), which keeps the one-owner-per-card
    constraints local.

    >>> ks = russian_cards_structure()
    >>> ks.is_valid("K_Cath has(Cath, 6) | ~has(Cath, 6)"), ks.is_valid("K_Bob has(Cath, 6)")
    (True, False)
    """
    return KnowledgeStructure(
        russian_vocabulary(), russian_law(), russian_observed(), backend=backend
    )


def russian_cards_deal(
    alice: Iterable[int], bob: Iterable[int], cath: Iterable[int]
) -> frozenset[str]:
    """The state of a deal, e.g. Alice 012, Bob 345, Cath 6.

    >>> sorted(russian_cards_deal((0, 1, 2), (3, 4, 5), (6,)))[:4]
    ['has(Alice, 0)', 'has(Alice, 1)', 'has(Alice, 2)', 'has(Bob, 3)']
    """
    hands = {"Alice": tuple(alice), "Bob": tuple(bob), "Cath": tuple(cath)}
    dealt = [card for hand in hands.values() for card in hand]
    if sorted(dealt) != list(RUSSIAN_CARDS) or any(
        len(hands[agent]) != RUSSIAN_HAND_SIZES[agent] for agent in RUSSIAN_AGENTS
    ):
        raise ModelError(
            f"not a deal: {hands}; expected cards 0..6 once each, 3 to Alice and Bob, 1 to Cath"
        )
    return frozenset(
        russian_atom(agent, card).name for agent, hand in hands.items() for card in hand
    )


def russian_cards_alice_says(hands: Iterable[Iterable[int]]) -> Formula:
    """Alice's announcement "my hand is one of these": ``K_Alice`` of the disjunction.

    >>> str(russian_cards_alice_says([(0, 2, 4), (1, 2, 3)]))[:48]
    'K_Alice (has(Alice, 0) & ~has(Alice, 1) & has(Al'
    """
    return russian_alice_announces(hands)


def russian_cards_bob_knows_alice() -> Formula:
    """Bob knows Alice's hand (and so the whole deal): he knows whether she holds each card.

    >>> russian_cards_structure().is_satisfiable(russian_cards_bob_knows_alice())
    False
    """
    return russian_bob_knows_alice()


def russian_cards_cath_ignorant() -> Formula:
    """Cath knows of no card that Alice holds it, and of no card that Bob holds it.

    >>> russian_cards_structure().is_valid(russian_cards_cath_ignorant())
    True
    """
    return russian_cath_ignorant()
