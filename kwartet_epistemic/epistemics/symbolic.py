"""The symbolic engine for Kwartet: the game's worlds as a knowledge structure on BDDs.

Variables ``o_c_s`` say that card c came from slot s (a hand, a draw, a pile); there is
one only for the slots the public record still allows, so late in a game most cards need
one or two variables.  The law is the conjunction of: exactly one origin per card, the
family clauses of :class:`~kwartet_epistemic.epistemics.history.PublicHistory`, the slot
capacities as cardinality constraints, and (with cards out of play) that some family can
still be completed.  Player P observes the variables of P's own slots (P's hand and
draws), so two worlds are indistinguishable for P exactly when P's own cards agree.
``K_P φ`` is then ``¬∃(unobserved)(law ∧ ¬φ)``, evaluated by CUDD's relational product.

Variables are ordered family by family (the clauses stay local) and, within a family,
card by card; the capacities couple the families only through their running counts.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=2)
>>> k = kw.knowledge(game, engine="symbolic")
>>> k.count_worlds() == kw.knowledge(game).count_worlds()
True
"""

from __future__ import annotations

import weakref
from functools import reduce
from typing import TYPE_CHECKING, Any

import numpy as np

from kwartet_epistemic.epistemics.history import IGNORED, PublicHistory
from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.logic import Atom, Formula, parse
from kwartet_epistemic.symbolic.backend import exact_count, new_manager
from kwartet_epistemic.symbolic.structure import BddKnowledgeStructure

if TYPE_CHECKING:
    from kwartet_epistemic.epistemics.state import EpistemicState

__all__ = ["SymbolicKwartet"]


def _exactly(manager: Any, variables: list[str], k: int) -> Any:
    """The BDD of "exactly k of ``variables`` are true" (variables in BDD order)."""
    if k < 0 or k > len(variables):
        return manager.false
    # Build bottom-up: row[j] = exactly j of the variables from position i on.
    row = [manager.true if j == 0 else manager.false for j in range(k + 1)]
    for name in reversed(variables):
        var = manager.var(name)
        row = [manager.ite(var, row[j - 1], row[j]) if j else ~var & row[0] for j in range(k + 1)]
    return row[k]


class SymbolicKwartet:
    """A knowledge structure for the worlds of an epistemic state (all of them, with
    each player's observation), built on a fresh BDD manager."""

    def __init__(self, state: EpistemicState) -> None:
        # No reference cycles: CUDD's manager must outlive its nodes, which only plain
        # reference counting guarantees (a garbage-collected cycle frees in any order).
        self._state = weakref.ref(state)
        history: PublicHistory = state.history
        self.history = history
        manager = new_manager()
        self.manager = manager
        deck = history.deck
        n_slots = len(history.capacity)
        # Origins that are certain are constants; the rest get variables.
        options = [
            [s for s in range(n_slots) if history.allowed[c] >> s & 1] for c in range(len(deck))
        ]
        self.options = options
        names: list[str] = []
        self.var: dict[tuple[int, int], str] = {}
        for c in range(len(deck)):
            if len(options[c]) > 1:
                for s in options[c]:
                    name = f"o{c}_{s}"
                    self.var[(c, s)] = name
                    names.append(name)
        if names:
            manager.declare(*names)
        self.names = names
        capacity = list(history.capacity)
        for c in range(len(deck)):
            if len(options[c]) == 1:
                capacity[options[c][0]] -= 1
            elif not options[c]:
                raise KwartetError("the public record leaves a card without an origin")
        law = manager.true
        for c in range(len(deck)):
            if len(options[c]) > 1:
                law &= _exactly(manager, [self.var[(c, s)] for s in options[c]], 1)
        for f in range(deck.n_families):
            for clause in history.clauses[f]:
                literals = [
                    self._origin_in(4 * f + i, clause.conditions[i])
                    for i in range(4)
                    if clause.conditions[i] != IGNORED
                ]
                every = reduce(lambda a, b: a & b, literals)
                if clause.kind == "some":
                    law &= reduce(lambda a, b: a | b, literals)
                elif clause.kind == "notall":
                    law &= ~every
                else:
                    law &= every | ~reduce(lambda a, b: a | b, literals)
        for s in range(n_slots):
            members = [self.var[(c, s)] for c in range(len(deck)) if (c, s) in self.var]
            law &= _exactly(manager, members, capacity[s])
        if history.game_goes_on_with_dead_cards():
            dead = history.dead_slots
            live = manager.false
            for f in range(deck.n_families):
                if f in history.exposed_families:
                    continue
                none_dead = manager.true
                for i in range(4):
                    none_dead &= ~self._origin_in(4 * f + i, dead)
                live |= none_dead
            law &= live
        self.law = law
        players = history.players
        own: dict[str, set[str]] = {}
        for p in players:
            slots = {s for s, owner in enumerate(history.slot_owner) if owner == p}
            own[p] = {name for (c, s), name in self.var.items() if s in slots}
        unobserved = {p: set(names) - own[p] for p in players}
        self.own = own
        me = weakref.ref(self)

        def atom_bdd(atom: Atom) -> Any:
            owner = me()
            if owner is None:
                raise KwartetError("the symbolic structure behind this atom is gone")
            return owner._atom(atom)

        self.structure = BddKnowledgeStructure(manager, law, unobserved, atom_bdd, names)

    @property
    def state(self) -> EpistemicState:
        state = self._state()
        if state is None:
            raise KwartetError("the epistemic state behind this symbolic structure is gone")
        return state

    # ----- encoding -----------------------------------------------------------------

    def _origin_in(self, c: int, mask: int) -> Any:
        """BDD of "card c came from a slot in ``mask``"."""
        manager = self.manager
        hits = [s for s in self.options[c] if mask >> s & 1]
        if len(self.options[c]) == 1:
            return manager.true if hits else manager.false
        return reduce(
            lambda a, b: a | b, (manager.var(self.var[(c, s)]) for s in hits), manager.false
        )

    def _atom(self, atom: Atom) -> Any:
        if atom.predicate != "has" or len(atom.arguments) != 2:
            raise KwartetError(f"atom {atom}: expected has(player, card)")
        player, card_text = atom.arguments
        history = self.history
        if player not in history.players:
            raise KwartetError(f"atom {atom}: {player!r} is not a player")
        c = history.deck.card(card_text).index
        where = history.location[c]
        if where is not None:
            return self.manager.true if where == player else self.manager.false
        mask = 0
        for s, owner in enumerate(history.slot_owner):
            if owner == player:
                mask |= 1 << s
        return self._origin_in(c, mask)

    # ----- queries ------------------------------------------------------------------

    def _cube(self, players: list[str]) -> Any:
        """The observation of ``players`` at the actual world (their own variables)."""
        manager = self.manager
        cube = manager.true
        for p in players:
            info = self.state._info(p)
            history = self.history
            expected = {(c, p_slot) for c in info.dealt for p_slot in [history.players.index(p)]}
            for number, card in info.draws:
                expected.add((card, history.draw_slots[number]))
            for name in sorted(self.own[p]):
                c, s = (int(x) for x in name[1:].split("_"))
                var = manager.var(name)
                cube &= var if (c, s) in expected else ~var
        return cube

    def _count(self, node: Any) -> int:
        return exact_count(self.manager, node, self.names)

    def _actual_cube(self) -> Any:
        """The actual world (known on the god's-eye state) as a full assignment."""
        manager = self.manager
        actual = self.state._actual_origins()
        cube = self.law
        for (c, s), name in self.var.items():
            var = manager.var(name)
            cube &= var if actual.get(c) == s else ~var
        return cube

    def count_worlds(self, player: str | None) -> int:
        if player is None:
            return self._count(self.law)
        return self._count(self.law & self._cube([player]))

    def possible_origins(self, player: str, c: int) -> set[int]:
        """The slots card ``c`` may have come from in ``player``'s worlds."""
        if len(self.options[c]) == 1:
            return set(self.options[c])
        base = self.law & self._cube([player])
        return {
            s
            for s in self.options[c]
            if (base & self.manager.var(self.var[(c, s)])) != self.manager.false
        }

    def location_counts(self, player: str | None) -> np.ndarray:
        history = self.history
        result = np.zeros((len(history.deck), len(history.players)), dtype=object)
        base = self.law if player is None else self.law & self._cube([player])
        for c, card in enumerate(history.deck.cards):
            for q, holder in enumerate(history.players):
                atom = self._atom(Atom(f"has({holder}, {card.code})"))
                result[c, q] = self._count(atom & base)
        return result

    def holds(self, formula: Formula | str) -> bool:
        """Truth at the actual world (god's-eye state) or, on a view, when the viewer
        knows the answer."""
        f = parse(formula) if isinstance(formula, str) else formula
        truth = self.structure.bdd(f)
        state = self.state
        if state.viewer is None:
            return (self._actual_cube() & truth) != self.manager.false
        mine = self.law & self._cube([state.viewer])
        if (mine & ~truth) == self.manager.false:
            return True
        if (mine & truth) == self.manager.false:
            return False
        from kwartet_epistemic.epistemics.state import UnknownToViewerError

        raise UnknownToViewerError(f"{state.viewer} cannot tell whether {f} holds")
