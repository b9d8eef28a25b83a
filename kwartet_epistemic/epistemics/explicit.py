"""The explicit engine: a game's epistemic state as a :class:`~kwartet_epistemic.KripkeModel`.

Worlds are enumerated (vectorised, family by family, pruned by the counting engine's
tables), each player's partition groups the worlds that agree on the player's private
information (their dealt hand and their draws), and the atoms ``has(P, c)`` say where
each card is now.  It is the reference for teaching sizes and for drawing; above
:data:`EXPLICIT_LIMIT` worlds it refuses with :class:`ModelTooLargeError`.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> model = kw.knowledge(game).kripke_model()
>>> model.n_worlds, model.holds("K_A ~has(A, 7H)")
(560, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from kwartet_epistemic.cards import Deck
from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.epistemics.history import PrivateInfo, PublicHistory
from kwartet_epistemic.errors import KwartetError, ModelTooLargeError, UnknownToViewerError
from kwartet_epistemic.kripke import KripkeModel
from kwartet_epistemic.logic import Formula
from kwartet_epistemic.logic.formula import formula_excerpt

if TYPE_CHECKING:
    from kwartet_epistemic.epistemics.state import EpistemicState

__all__ = [
    "EXPLICIT_LIMIT",
    "ExplicitEngine",
    "GameAtomSpelling",
    "build_model",
    "enumerate_origins",
    "explicit_holds",
]

EXPLICIT_LIMIT = 2_100_000
"""The largest number of worlds the explicit engine builds (a 16-card, 3-player deal fits)."""


def enumerate_origins(counter: WorldCounter, limit: int = EXPLICIT_LIMIT) -> np.ndarray:
    """Every world of ``counter`` as a row of origin slots, one column per card."""
    total = counter.programme_count  # enumerated first, then filtered (see below)
    if total > limit:
        raise ModelTooLargeError(
            f"the explicit engine builds at most {limit:,} worlds; this state has {total:,} "
            "(use the counting or symbolic engine, or a smaller deck)"
        )
    n_cards = len(counter.history.deck)
    if counter.zero or total == 0:
        return np.zeros((0, n_cards), dtype=np.int16)
    backward = counter.backward_tables()
    origins = np.full((1, n_cards), -1, dtype=np.int16)
    for card, slot in counter.fixed.items():
        origins[0, card] = slot
    remaining = np.array([counter.cap], dtype=np.int64).reshape(1, len(counter.cap))
    for index, table in enumerate(counter.tables):
        after = backward[index + 1]
        pieces_o, pieces_r = [], []
        for vector, group in zip(table.vectors, table.assignments, strict=True):
            left = remaining - np.array(vector, dtype=np.int64)
            ok = (left >= 0).all(axis=1)
            if not ok.any():
                continue
            rows = np.nonzero(ok)[0]
            left = left[rows]
            feasible = after[tuple(left.T)] > 0 if left.shape[1] else np.ones(len(rows), bool)
            rows, left = rows[feasible], left[feasible]
            if not len(rows):
                continue
            for assignment in group:
                block = origins[rows].copy()
                block[:, list(table.cards)] = assignment
                pieces_o.append(block)
                pieces_r.append(left)
        if not pieces_o:
            return np.zeros((0, n_cards), dtype=np.int16)
        origins = np.concatenate(pieces_o)
        remaining = np.concatenate(pieces_r)
    if len(origins):  # the dead-card rule and "the mover can ask" filter the rows
        origins = origins[counter.excluded(origins.astype(np.int64)) == 0]
    return origins


def _slot_mask(history: PublicHistory, player: str) -> list[int]:
    return [s for s, owner in enumerate(history.slot_owner) if owner == player]


def _partition_labels(origins: np.ndarray, slots: list[int]) -> np.ndarray:
    """One label per world: equal iff the worlds agree on which cards came from each of
    ``slots`` (a player's hand and draws).  Rows are keyed by bit masks, one 1-D
    factorisation per slot, which is far faster than a row-wise unique."""
    labels = np.zeros(len(origins), dtype=np.int64)
    weights = [1 << c for c in range(origins.shape[1])]
    for slot in slots:
        if origins.shape[1] <= 62:
            key = (origins == slot).astype(np.int64) @ np.array(weights, dtype=np.int64)
        else:  # wider decks: factorise the two halves separately
            half = origins.shape[1] // 2
            low = (origins[:, :half] == slot).astype(np.int64) @ np.array(
                weights[:half], dtype=np.int64
            )
            high = (origins[:, half:] == slot).astype(np.int64) @ np.array(
                [1 << c for c in range(origins.shape[1] - half)], dtype=np.int64
            )
            _, low_labels = np.unique(low, return_inverse=True)
            _, high_labels = np.unique(high, return_inverse=True)
            key = low_labels.reshape(-1) * (
                int(high_labels.max(initial=0)) + 1
            ) + high_labels.reshape(-1)
        _, slot_labels = np.unique(key, return_inverse=True)
        slot_labels = slot_labels.reshape(-1)
        combined = labels * (int(slot_labels.max(initial=0)) + 1) + slot_labels
        _, labels = np.unique(combined, return_inverse=True)
        labels = labels.reshape(-1).astype(np.int64)
    return labels


def build_model(
    history: PublicHistory,
    viewers: list[PrivateInfo],
    actual: dict[int, int] | None,
    limit: int = EXPLICIT_LIMIT,
) -> tuple[KripkeModel, np.ndarray]:
    """The Kripke model of the worlds consistent with ``history`` (and with the pooled
    information of ``viewers``, if any), designated at ``actual`` (card -> origin slot)
    when given.  Returns the model and its origin matrix."""
    counter = WorldCounter(history, viewers)
    origins = enumerate_origins(counter, limit)
    deck = history.deck
    players = history.players
    owners = np.array(
        [players.index(o) if o is not None else -1 for o in history.slot_owner], dtype=np.int64
    )
    located = {c: where for c, where in enumerate(history.location) if where is not None}

    def valuation(name: str) -> np.ndarray | None:
        try:
            card_index, player = _parse_has(name, history)
        except KwartetError:
            return None
        where = located.get(card_index)
        if where is not None:
            return np.full(len(origins), where == player, dtype=bool)
        return owners[origins[:, card_index].astype(np.int64)] == players.index(player)

    partitions = {p: _partition_labels(origins, _slot_mask(history, p)) for p in players}
    actual_index: int | None = None
    if actual is not None and len(origins):
        row = np.array([actual.get(c, -1) for c in range(len(deck))], dtype=np.int16)
        matches = np.nonzero((origins == row).all(axis=1))[0]
        if not len(matches):
            raise KwartetError("the actual deal is not among the enumerated worlds")
        actual_index = int(matches[0])
    atoms = [f"has({p}, {c.code})" for c in deck.cards for p in players]
    spelling = GameAtomSpelling(deck, tuple(players))
    model = KripkeModel(
        len(origins), partitions, valuation, actual=actual_index, atoms=atoms, spelling=spelling
    )
    return model, origins


class GameAtomSpelling:
    """The one spelling rule of a game's atoms: ``has(player, card)`` with the card in
    any spelling the deck reads (``7D``, ``7d``, ``7♦``, ``seven of diamonds``), named
    ``has(player, code)``; what a game's Kripke model reads its atoms with, as
    ``kw.knowledge`` reads formulas.

    >>> import kwartet_epistemic as kw
    >>> spelling = GameAtomSpelling(kw.Deck.piquet(), ("A", "B", "C"))
    >>> spelling("has(C, 7♦)"), spelling("has( C ,seven of diamonds)")
    ('has(C, 7D)', 'has(C, 7D)')
    >>> spelling("has(Z, 7D)")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.KwartetError: atom 'has(Z, 7D)': expected has(player, card) with a player of the game (A, B, C)
    """

    def __init__(self, deck: Deck, players: tuple[str, ...]) -> None:
        self.deck = deck
        self.players = players

    def __call__(self, name: str) -> str:
        text = name.strip()
        if not (text.startswith("has(") and text.endswith(")")):
            raise KwartetError(f"atom {name!r}: expected has(player, card)")
        player, _, card = text[4:-1].partition(",")
        player = player.strip()
        if player not in self.players:
            raise KwartetError(
                f"atom {name!r}: expected has(player, card) with a player of the game "
                f"({', '.join(self.players)})"
            )
        return f"has({player}, {self.deck.card(card.strip()).code})"


def _parse_has(name: str, history: PublicHistory) -> tuple[int, str]:
    text = name.strip()
    if not (text.startswith("has(") and text.endswith(")")):
        raise KwartetError(f"atom {name!r}: expected has(player, card)")
    parts = [x.strip() for x in text[4:-1].split(",")]
    if len(parts) != 2 or parts[0] not in history.players:
        raise KwartetError(f"atom {name!r}: expected has(player, card) with a player of the game")
    return history.deck.card(parts[1]).index, parts[0]


def explicit_holds(state: EpistemicState, formula: Formula) -> Any:
    """Truth of any formula on the explicit model of ``state`` (see
    :meth:`ExplicitEngine.truth`)."""
    return state.engine_named("explicit").truth(formula)


class ExplicitEngine:
    """The explicit engine: the enumerated :class:`~kwartet_epistemic.KripkeModel` of a
    state (teaching sizes, up to :data:`EXPLICIT_LIMIT` worlds), the reference the other
    engines are tested against.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> engine = kw.knowledge(game.view("A"), engine="explicit").engine_named("explicit")
    >>> engine.count_worlds("A"), engine.truth(kw.parse("~K_B has(A, 7H)"))
    (10, True)
    """

    name = "explicit"

    def __init__(self, state: EpistemicState) -> None:
        self._state = state
        self._model: tuple[Any, KripkeModel, np.ndarray] | None = None

    @property
    def state(self) -> EpistemicState:
        """The epistemic state this engine answers for."""
        return self._state

    def kripke_model(self, limit: int | None = None) -> KripkeModel:
        """The state's Kripke model (see :meth:`EpistemicState.kripke_model
        <kwartet_epistemic.epistemics.state.EpistemicState.kripke_model>`), built once
        per public version and limit."""
        return self._built(limit)[0]

    def origins(self) -> np.ndarray:
        """The model's worlds as rows of origin slots, one column per card."""
        return self._built(None)[1]

    def _built(self, limit: int | None) -> tuple[KripkeModel, np.ndarray]:
        state = self.state
        history = state.history
        key = (state.version, limit)
        if self._model is None or self._model[0] != key:
            actual = state.actual_origins() if state.viewer is None else None
            model, origins = build_model(
                history, [], actual, EXPLICIT_LIMIT if limit is None else limit
            )
            self._model = (key, model, origins)
        return self._model[1], self._model[2]

    def worlds(self, player: str | None) -> np.ndarray:
        """Mask of the model's worlds that ``player`` considers possible (all for None)."""
        state = self.state
        model = self.kripke_model()
        if player is None:
            return np.ones(model.n_worlds, dtype=bool)
        if player == state.viewer:
            return self._viewer_worlds()
        state.private_info(player)  # refuses another player's worlds on a view
        if model.actual is None:
            raise KwartetError("the explicit model has no actual world")
        mask = np.zeros(model.n_worlds, dtype=bool)
        mask[model.indistinguishable(player, model.actual)] = True
        return mask

    def _viewer_worlds(self) -> np.ndarray:
        state = self.state
        viewer = state.viewer
        assert viewer is not None
        origins = self.origins()
        info = state.private_info(viewer)
        history = state.history
        own = {state.players.index(viewer)}
        expected = {c: state.players.index(viewer) for c in info.dealt}
        for number, card in info.draws:
            own.add(history.draw_slots[number])
            expected[card] = history.draw_slots[number]
        mine = np.isin(origins, sorted(own))
        target = np.zeros(origins.shape[1], dtype=bool)
        target[list(expected)] = True
        ok = (mine == target).all(axis=1)
        for card, slot in expected.items():
            ok &= origins[:, card] == slot
        return ok

    def count_worlds(self, player: str | None) -> int:
        """The worlds consistent with the record (``player``'s, if given)."""
        return int(self.worlds(player).sum())

    def location_table(self, player: str | None) -> tuple[np.ndarray, int]:
        """Location counts (Python ints) of ``player``'s worlds, and their number."""
        state = self.state
        model = self.kripke_model()
        worlds = self.worlds(player)
        result = np.zeros((len(state.deck), len(state.players)), dtype=object)
        for c, card in enumerate(state.deck.cards):
            for q, holder in enumerate(state.players):
                mask = model.truth_set(f"has({holder}, {card.code})")
                result[c, q] = int((mask & worlds).sum())
        return result, int(worlds.sum())

    def known_place(self, player: str, card: int) -> str | None:
        """Where ``player`` knows the unseen card lies, else None."""
        history = self.state.history
        slots = set(self.origins()[self.worlds(player), card].tolist())
        places = {history.slot_owner[s] or history.slot_names[s] for s in slots}
        return places.pop() if len(places) == 1 else None

    def truth(self, formula: Formula) -> bool:
        """Truth at the actual world; on a player's view, whether the formula holds in
        all the viewer's worlds (True) or in none (False), else
        :class:`~kwartet_epistemic.errors.UnknownToViewerError`."""
        state = self.state
        model = self.kripke_model()
        if state.viewer is None:
            return bool(model.holds(formula))
        truth = model.truth_set(formula)
        mine = self._viewer_worlds()
        if truth[mine].all():
            return True
        if not truth[mine].any():
            return False
        raise UnknownToViewerError(
            f"{state.viewer} cannot tell whether {formula_excerpt(formula)} holds: it is "
            f"true in some of {state.viewer}'s worlds and false in others"
        )
