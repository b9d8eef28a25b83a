"""Classic puzzles of epistemic logic as explicit Kripke models, built from their one
definition (:mod:`kwartet_epistemic.puzzles`); :mod:`kwartet_epistemic.symbolic.puzzles`
builds the same puzzles as knowledge structures.

Muddy children: after the father says that at least one child is muddy, and k-1 rounds
of "nobody knows whether they are muddy", the k muddy children know.

>>> from kwartet_epistemic.examples import muddy_children, father_announcement, nobody_knows
>>> model = muddy_children(3, muddy=[1, 2]).announce(father_announcement(3))
>>> model.holds("K_1 m1 | K_2 m2")
False
>>> model.announce(nobody_knows(3)).holds("K_1 m1 & K_2 m2")
True

Russian cards: seven cards 0..6; Alice and Bob hold three each and Cath one.

>>> from kwartet_epistemic.examples import russian_cards, alice_says_one_of
>>> deal = russian_cards()
>>> deal
<KripkeModel: 140 worlds, agents Alice Bob Cath, 21 atoms, actual world 0 '012|345|6'>
>>> after = deal.announce(alice_says_one_of(["012", "034", "056", "135", "246"]))
>>> after.holds(bob_knows_alice_hand()), after.holds(cath_ignorant())
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence, Sized
from itertools import combinations

import numpy as np

from kwartet_epistemic._safejson import short
from kwartet_epistemic.errors import ModelError, ModelTooLargeError
from kwartet_epistemic.kripke.model import KripkeModel
from kwartet_epistemic.logic.formula import (
    Formula,
    has,
)
from kwartet_epistemic.puzzles import (
    RUSSIAN_AGENTS,
    muddy_atom,
    muddy_father,
    muddy_nobody_knows,
    russian_alice_hand_one_of,
    russian_bob_knows_alice,
    russian_cath_ignorant,
)

__all__ = [
    "RUSSIAN_CARDS_PLAYERS",
    "alice_says_one_of",
    "bob_knows_alice_hand",
    "card_deals",
    "cath_ignorant",
    "father_announcement",
    "muddy_children",
    "nobody_knows",
    "russian_cards",
]

RUSSIAN_CARDS_PLAYERS = RUSSIAN_AGENTS
_RUSSIAN_CARDS = tuple(str(card) for card in range(7))
# Worlds get names ("012|345|6") only up to this size: names cost Python objects.
_NAMED_WORLDS_LIMIT = 20_000
# The deals card_deals enumerates (as the explicit engine's EXPLICIT_LIMIT).
MAX_DEALS = 2_100_000


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_children(n: object, top: int | None = None) -> None:
    """``n`` must be a whole number of children >= 1 (and at most ``top``)."""
    if not _is_count(n) or n < 1:  # type: ignore[operator]
        raise ModelError(f"muddy children needs at least one child, got n={short(n)}")
    if top is not None and n > top:  # type: ignore[operator]
        raise ModelError(f"muddy children: n={short(n)}: expected at most {top:,} children")


def muddy_children(n: int, muddy: int | Iterable[int]) -> KripkeModel:
    """The muddy children model before the father speaks: 2**n worlds.

    Agents are ``"1"``..``"n"``, atom ``m<i>`` says child i is muddy; child i sees every
    forehead but its own.  ``muddy`` is the number k of muddy children (children 1..k)
    or the collection of muddy children's numbers; it picks the actual world.  World
    names (for n <= 16) list the children's states, e.g. ``"110"``: 1 and 2 are muddy.

    >>> m = muddy_children(3, 2)
    >>> m.n_worlds, m.world_name(m.actual), m.holds("K_3 (m1 & m2) & ~Kw_1 m1")
    (8, '110', True)
    """
    _check_children(n)
    if n > 26:
        raise ModelError(
            f"n={short(n)} gives 2**{short(n)} worlds: the explicit model stops at n=26"
        )
    if isinstance(muddy, int) and not isinstance(muddy, bool):
        if not 0 <= muddy <= n:
            raise ModelError(f"muddy={short(muddy)} children out of {n}: expected 0..{n}")
        children = set(range(1, muddy + 1))
    elif isinstance(muddy, Iterable) and not isinstance(muddy, str | bytes | bool):
        items = list(muddy) if not isinstance(muddy, Sized) or len(muddy) <= n else []
        if isinstance(muddy, Sized) and len(muddy) > n:
            raise ModelError(f"muddy {short(muddy)}: more than the {n} children")
        outside = [c for c in items if not (_is_count(c) and 1 <= c <= n)]
        if outside:
            raise ModelError(f"children {short(outside)} do not exist: expected numbers 1..{n}")
        children = set(items)
    else:
        raise ModelError(
            f"muddy={short(muddy)}: expected the number of muddy children or their numbers"
        )
    worlds = np.arange(2**n, dtype=np.int64)
    # Child i cannot see bit i-1: its block label is the world with that bit cleared.
    partitions = {str(i): worlds & ~(1 << (i - 1)) for i in range(1, n + 1)}
    valuation = {
        muddy_atom(i).name: ((worlds >> (i - 1)) & 1).astype(bool) for i in range(1, n + 1)
    }
    actual = sum(1 << (i - 1) for i in children)
    names = None
    if n <= 16:
        names = ["".join("1" if w >> i & 1 else "0" for i in range(n)) for w in range(2**n)]
    return KripkeModel(2**n, partitions, valuation, actual, world_names=names)


def father_announcement(n: int) -> Formula:
    """ "At least one of you is muddy": ``m1 | ... | mn``.

    >>> str(father_announcement(3))
    'm1 | m2 | m3'
    """
    _check_children(n, 100_000)
    return muddy_father(n)


def nobody_knows(n: int) -> Formula:
    """ "Nobody knows whether they are muddy": the conjunction of ``~Kw_i mi``.

    >>> str(nobody_knows(2))
    '~Kw_1 m1 & ~Kw_2 m2'
    """
    _check_children(n, 100_000)
    return muddy_nobody_knows(n)


def card_deals(
    hand_sizes: Mapping[str, int],
    cards: Sequence[object] | int | None = None,
    actual: Mapping[str, Iterable[object]] | None = None,
    world_names: bool | None = None,
) -> KripkeModel:
    """All deals of the cards into hands of the given sizes; each player sees their hand.

    Worlds are deals; player P cannot tell apart two deals where P's hand is the same;
    atom ``has(P, c)`` says that P holds card c.  ``cards`` are card names (default
    ``0..n-1`` for n the total of the hand sizes); ``actual`` is the real deal (default:
    the cards in order, the first player's hand first).  Worlds are named (e.g.
    ``"012|345|6"``) when ``world_names`` is true (default: for at most 20,000 worlds).
    The valuation is computed lazily, atom by atom.

    >>> deals = card_deals({"A": 2, "B": 1})
    >>> deals.n_worlds, deals.world_names
    (3, ('01|2', '02|1', '12|0'))
    >>> deals.holds("K_B (has(A, 0) & has(A, 1))")
    True
    """
    if not isinstance(hand_sizes, Mapping) or not all(
        isinstance(p, str) and _is_count(s) for p, s in hand_sizes.items()
    ):
        raise ModelError(
            f"hand sizes {short(hand_sizes)}: expected a mapping of player names to hand sizes"
        )
    players = list(hand_sizes)
    sizes = list(hand_sizes.values())
    if any(s < 0 for s in sizes) or not players:
        raise ModelError(
            f"hand sizes must be non-negative and name players, got {short(hand_sizes)}"
        )
    total = sum(sizes)
    deals = math.factorial(total)
    for size in sizes:
        deals //= math.factorial(size)
    if deals > MAX_DEALS:
        raise ModelTooLargeError(
            f"hand sizes {short(hand_sizes)} give {deals:.3g} deals; card_deals builds at most "
            f"{MAX_DEALS:,} worlds"
        )
    if cards is not None and not isinstance(cards, int | Iterable) or isinstance(cards, bool):
        raise ModelError(f"cards {short(cards)}: expected card names or their number")
    card_names = (
        [str(c) for c in range(total if cards is None else cards)]
        if cards is None or isinstance(cards, int)
        else [str(c) for c in cards]
    )
    if len(card_names) != total or len(set(card_names)) != total:
        raise ModelError(
            f"{len(card_names)} cards {card_names} for hands of sizes {sizes} (total {total}): "
            "expected exactly as many distinct cards as the hands hold"
        )
    owner = _enumerate_deals(total, sizes)
    n_worlds = int(owner.shape[0])
    partitions: dict[str, np.ndarray] = {}
    for number, player in enumerate(players):
        holds = owner == number
        if total <= 62:
            partitions[player] = holds.astype(np.int64) @ (np.int64(1) << np.arange(total))
        else:
            # More cards than bits in an int64: number the distinct hands instead.
            packed = np.packbits(holds, axis=1)
            hands = np.ascontiguousarray(packed).view(f"V{packed.shape[1]}").reshape(-1)
            partitions[player] = np.unique(hands, return_inverse=True)[1].reshape(-1)
    atom_cells = {
        has(player, card).name: (number, column)
        for number, player in enumerate(players)
        for column, card in enumerate(card_names)
    }

    def valuation(name: str) -> np.ndarray | None:
        cell = atom_cells.get(name)
        return None if cell is None else owner[:, cell[1]] == cell[0]

    actual_index = _deal_index(owner, players, card_names, sizes, actual)
    names = None
    if world_names or (world_names is None and n_worlds <= _NAMED_WORLDS_LIMIT):
        separator = "" if all(len(c) == 1 for c in card_names) else ","
        names = [
            "|".join(
                separator.join(card_names[c] for c in np.flatnonzero(row == p))
                for p in range(len(players))
            )
            for row in owner
        ]
    return KripkeModel(
        n_worlds, partitions, valuation, actual_index, world_names=names, atoms=atom_cells
    )


def _enumerate_deals(n_cards: int, sizes: Sequence[int]) -> np.ndarray:
    """Owner (player number) of every card in every deal, one row per deal."""
    owner = np.full((1, n_cards), -1, dtype=np.int8)
    for player, size in enumerate(sizes):
        rows = owner.shape[0]
        free_count = n_cards - int((owner[0] >= 0).sum())
        free = np.nonzero(owner < 0)[1].reshape(rows, free_count)
        choices = np.array(list(combinations(range(free_count), size)), dtype=np.int64)
        choices = choices.reshape(-1, size)
        dealt = np.repeat(owner, choices.shape[0], axis=0)
        chosen = free[:, choices].reshape(rows * choices.shape[0], size)
        dealt[np.arange(dealt.shape[0])[:, None], chosen] = player
        owner = dealt
    return owner


def _deal_index(
    owner: np.ndarray,
    players: Sequence[str],
    card_names: Sequence[str],
    sizes: Sequence[int],
    actual: Mapping[str, Iterable[object]] | None,
) -> int:
    target = np.empty(len(card_names), dtype=np.int8)
    if actual is None:
        target[:] = np.repeat(np.arange(len(players)), sizes)
    else:
        column = {name: i for i, name in enumerate(card_names)}
        target[:] = -1
        for player, hand in actual.items():
            if str(player) not in players:
                raise ModelError(
                    f"the actual deal names unknown player {player!r}: expected {players}"
                )
            for card in hand:
                if str(card) not in column:
                    raise ModelError(
                        f"the actual deal names unknown card {card!r}: cards are {list(card_names)}"
                    )
                target[column[str(card)]] = players.index(str(player))
    matches = np.flatnonzero((owner == target).all(axis=1))
    if matches.size == 0:
        raise ModelError(
            f"the actual deal {dict(actual or {})} does not give every card once with hands of "
            f"sizes {dict(zip(players, sizes, strict=True))}"
        )
    return int(matches[0])


def russian_cards(deal: Mapping[str, Iterable[int]] | None = None) -> KripkeModel:
    """The Russian cards model: cards 0..6; Alice and Bob hold three, Cath one (140 deals).

    Agents ``Alice``, ``Bob``, ``Cath``; atoms ``has(Alice, 0)`` etc.  The actual deal is
    ``deal`` (default Alice 012, Bob 345, Cath 6).

    >>> russian_cards().holds("K_Alice ~has(Bob, 0) & ~K_Alice has(Bob, 3)")
    True
    """
    if deal is not None and not isinstance(deal, Mapping):
        raise ModelError(
            f"deal {short(deal)}: expected a mapping such as {{'Alice': [0, 1, 2], ...}}"
        )
    return card_deals(
        dict(zip(RUSSIAN_CARDS_PLAYERS, (3, 3, 1), strict=True)), _RUSSIAN_CARDS, deal
    )


def alice_says_one_of(hands: Iterable[Iterable[int | str]]) -> Formula:
    """Alice's announcement "my hand is one of these": a disjunction of hands.

    Each hand is a collection of cards, or text such as ``"012"``.  Alice knows her
    hand, so announcing this is announcing that she knows it.

    >>> str(alice_says_one_of(["01", "23"]))
    'has(Alice, 0) & has(Alice, 1) | has(Alice, 2) & has(Alice, 3)'
    """
    return russian_alice_hand_one_of(hands)


def bob_knows_alice_hand() -> Formula:
    """Bob knows for every card whether Alice holds it.

    >>> bob_knows_alice_hand().modal_depth()
    1
    """
    return russian_bob_knows_alice()


def cath_ignorant() -> Formula:
    """Cath knows of no card that Alice holds it, nor that Bob holds it.

    >>> russian_cards().holds(cath_ignorant())
    True
    """
    return russian_cath_ignorant()
