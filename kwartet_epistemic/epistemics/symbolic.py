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

Before any BDD is built, :func:`shortcut_holds` tries to answer from the structure of
the game: atoms whose truth the public record settles, knowledge of what an agent
observes anyway, and exact counts of the family programme for knowledge of
propositional formulas (one programme per agent gives every card's marginals).  The
engine's ``holds`` (``kw.knowledge(game, engine="symbolic").holds``) goes through it
and builds the law only when it returns None; :meth:`SymbolicKwartet.holds` is the
plain BDD route.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=2)
>>> k = kw.knowledge(game, engine="symbolic")
>>> k.count_worlds() == kw.knowledge(game).count_worlds()
True
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from functools import reduce
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from kwartet_epistemic.epistemics.history import IGNORED, PublicHistory
from kwartet_epistemic.errors import KwartetError, ModelError, UnknownToViewerError
from kwartet_epistemic.logic import (
    And,
    Announce,
    AnnounceDual,
    Atom,
    Bottom,
    C,
    D,
    E,
    Formula,
    Iff,
    Implies,
    K,
    Kw,
    M,
    Not,
    Or,
    Top,
    parse,
)
from kwartet_epistemic.logic._trampoline import Step, run
from kwartet_epistemic.logic.formula import formula_excerpt
from kwartet_epistemic.symbolic.backend import exact_count, new_manager, plain_errors
from kwartet_epistemic.symbolic.smcdel import SmcdelExport, export_structure, queries_of
from kwartet_epistemic.symbolic.structure import BddKnowledgeStructure

if TYPE_CHECKING:
    from kwartet_epistemic.epistemics.evaluate import CountingEngine
    from kwartet_epistemic.epistemics.state import EpistemicState

__all__ = ["SymbolicEngine", "SymbolicKwartet", "Truth", "shortcut_holds"]


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
        for facts in history.stuck_facts():
            # Memory Kwartet: the player to move can ask, and so could a player just
            # before turning a card over.
            cannot = manager.true
            for f, kind, conditions in facts:
                held = [
                    self._origin_in(4 * f + i, mask)
                    for i, mask in enumerate(conditions)
                    if mask != IGNORED
                ]
                if not held:
                    continue
                some = reduce(lambda a, b: a | b, held)
                if kind == "none":
                    cannot &= ~some
                else:
                    cannot &= reduce(lambda a, b: a & b, held) | ~some
            law &= ~cannot
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
            raise KwartetError(f"atom {formula_excerpt(atom)}: expected has(player, card)")
        player, card_text = atom.arguments
        history = self.history
        if player not in history.players:
            raise KwartetError(f"atom {formula_excerpt(atom)}: {player[:40]!r} is not a player")
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

    def observation_cube(self, players: list[str]) -> Any:
        """The observation of ``players`` at the actual world (their own variables)."""
        manager = self.manager
        cube = manager.true
        for p in players:
            info = self.state.private_info(p)
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

    def actual_cube(self) -> Any:
        """The actual world (known on the god's-eye state) as a full assignment."""
        manager = self.manager
        actual = self.state.actual_origins()
        cube = self.law
        for (c, s), name in self.var.items():
            var = manager.var(name)
            cube &= var if actual.get(c) == s else ~var
        return cube

    def count_worlds(self, player: str | None) -> int:
        if player is None:
            return self._count(self.law)
        return self._count(self.law & self.observation_cube([player]))

    def possible_origins(self, player: str, c: int) -> set[int]:
        """The slots card ``c`` may have come from in ``player``'s worlds."""
        if len(self.options[c]) == 1:
            return set(self.options[c])
        base = self.law & self.observation_cube([player])
        return {
            s
            for s in self.options[c]
            if (base & self.manager.var(self.var[(c, s)])) != self.manager.false
        }

    def location_counts(self, player: str | None) -> np.ndarray:
        history = self.history
        result = np.zeros((len(history.deck), len(history.players)), dtype=object)
        base = self.law if player is None else self.law & self.observation_cube([player])
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
            return (self.actual_cube() & truth) != self.manager.false
        mine = self.law & self.observation_cube([state.viewer])
        if (mine & ~truth) == self.manager.false:
            return True
        if (mine & truth) == self.manager.false:
            return False
        raise UnknownToViewerError(
            f"{state.viewer} cannot tell whether {formula_excerpt(f)} holds: it is true in "
            f"some of {state.viewer}'s worlds and false in others"
        )


class SymbolicEngine:
    """The symbolic engine: a BDD knowledge structure of the state (SMCDEL-style), built
    once per public version, with the game's structure answering first where it settles
    a formula without a BDD (:func:`shortcut_holds`).

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> engine = kw.knowledge(game.view("A"), engine="symbolic").engine_named("symbolic")
    >>> engine.count_worlds("A"), engine.truth(kw.parse("C_{A,B,C} has(A, 7S)"))
    (10, False)
    """

    name = "symbolic"

    def __init__(self, state: EpistemicState) -> None:
        self._state = state
        self._structure: tuple[tuple[int, int], SymbolicKwartet] | None = None
        self._marginals: dict[tuple[str, ...], tuple[tuple[int, int], np.ndarray, int]] = {}

    @property
    def state(self) -> EpistemicState:
        """The epistemic state this engine answers for."""
        return self._state

    def structure(self) -> SymbolicKwartet:
        """The state's knowledge structure (rebuilt when the public record changes)."""
        state = self.state
        version = state.version
        if self._structure is None or self._structure[0] != version:
            self._structure = (version, SymbolicKwartet(state))
        return self._structure[1]

    def marginals(self, group: tuple[str, ...]) -> tuple[np.ndarray, int]:
        """Origin counts per card and slot of the worlds ``group``'s pooled information
        leaves (none: the public worlds), and their number, by the counting programme
        (what the shortcuts read; kept until the record changes)."""
        state = self._state
        version = state.version
        cached = self._marginals.get(group)
        if cached is None or cached[0] != version:
            counter = state.world_counter(group)
            cached = (version, counter.origin_counts(), counter.count)
            self._marginals[group] = cached
        return cached[1], cached[2]

    def count_worlds(self, player: str | None) -> int:
        """The worlds consistent with the record (``player``'s, if given)."""
        return self.structure().count_worlds(player)

    def location_table(self, player: str | None) -> tuple[np.ndarray, int]:
        """Location counts (Python ints) of ``player``'s worlds, and their number."""
        structure = self.structure()
        return structure.location_counts(player), structure.count_worlds(player)

    def known_place(self, player: str, card: int) -> str | None:
        """Where ``player`` knows the unseen card lies, else None."""
        history = self.state.history
        slots = self.structure().possible_origins(player, card)
        places = {history.slot_owner[s] or history.slot_names[s] for s in slots}
        return places.pop() if len(places) == 1 else None

    def truth(self, formula: Formula) -> bool:
        """Truth at the actual world; on a player's view, whether the formula holds in
        all the viewer's worlds (True) or in none (False), else
        :class:`~kwartet_epistemic.errors.UnknownToViewerError`."""
        answer = shortcut_holds(self.state, formula)
        if answer is not None:
            return answer
        return bool(self.structure().holds(formula))


# ----- answers from the structure of the game, before any BDD -----------------------

Truth = bool | None
"""Three-valued: a proven answer, or None when the shortcuts cannot tell."""


def shortcut_holds(state: EpistemicState, formula: Formula | str) -> Truth:
    """The answer of :meth:`SymbolicKwartet.holds`, when the game's structure gives it
    without a BDD; None when the BDD route is needed.

    Three kinds of exact reasoning, all valid in every S5 model and every rule preset:

    - *settled atoms*: ``has(P, c)`` is a constant when the public record leaves card c
      no origin with P, or only origins with P (its location is public);
    - *own knowledge*: a formula whose truth P observes (P's own atoms, P's knowledge,
      common knowledge of a group with P) is known to P exactly when it is true, so
      ``K_P`` of it is the formula itself, and ``K_A K_B has(B, c)`` is ``K_A has(B, c)``;
    - *counting*: ``K``/``D`` of a propositional formula, and validity of one in the
      whole law, are exact counts of the family programme
      (:class:`~kwartet_epistemic.epistemics.counting.WorldCounter`), microseconds to
      milliseconds where the law's BDD takes a second to build.

    Modal formulas beyond that are bounded: ``K_P ψ`` fails if ψ fails at the actual
    world or P does not know a propositional consequence of ψ, and holds if ψ is valid;
    ``C_G ψ`` fails as soon as some ``K_a ψ`` or ``K_a K_b ψ`` with a, b in G fails.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> k = kw.knowledge(game, engine="symbolic")
    >>> shortcut_holds(k, "C_{A,B,C,D} ~has(B, 7S)"), shortcut_holds(k, "K_A K_B has(B, 7S)")
    (False, False)
    """
    f = parse(formula) if isinstance(formula, str) else formula
    shortcuts = _Shortcuts(state)
    if not shortcuts.well_formed(f):
        return None  # the BDD route reports what is wrong
    if state.viewer is None:
        return shortcuts.truth(shortcuts.fold(f))
    # On a view: true when the viewer knows it, false when the viewer knows its negation.
    viewer, folded = state.viewer, shortcuts.fold(f)
    if shortcuts.truth(K(viewer, folded)) is True:
        return True
    if shortcuts.truth(K(viewer, _negation(folded))) is True:
        return False
    return None


_TOP, _BOTTOM = Top(), Bottom()
_PROPOSITIONAL = (Top, Bottom, Atom, Not, And, Or, Implies, Iff)


def _is_constant(f: Formula) -> bool:
    return isinstance(f, Top | Bottom)


def _is_propositional(f: Formula) -> bool:
    seen: set[int] = set()
    stack = [f]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            if not isinstance(node, _PROPOSITIONAL):
                return False
            seen.add(id(node))
            stack.extend(node.args)
    return True


def _not(value: Truth) -> Truth:
    return None if value is None else not value


def _and(values: list[Truth]) -> Truth:
    if any(v is False for v in values):
        return False
    return True if all(v is True for v in values) else None


def _or(values: list[Truth]) -> Truth:
    if any(v is True for v in values):
        return True
    return False if all(v is False for v in values) else None


class _Shortcuts:
    """The shortcut reasoning of :func:`shortcut_holds` on one state (memoised)."""

    def __init__(self, state: EpistemicState) -> None:
        self.state = state
        self.history = state.history
        self._known: dict[tuple[tuple[str, ...], Formula], Truth] = {}
        # Memos of the steps below, keyed by formula (equal parts are worked out once):
        # nested operators would otherwise be walked again at every level.
        self._truths: dict[Formula, Truth] = {}
        self._valids: dict[Formula, Truth] = {}
        self._consequences: dict[Formula, Formula] = {}
        self._knowing: dict[tuple[tuple[str, ...], Formula], Truth] = {}
        self._observed: dict[tuple[str, Formula], bool] = {}

    def well_formed(self, f: Formula) -> bool:
        """Whether every atom is ``has(player, card)`` and every agent a player."""
        players = set(self.history.players)
        if not f.agents() <= players:
            return False
        return all(self._literal(atom) is not None for atom in f.atoms())

    # ----- rewriting: settled atoms and own knowledge -------------------------------

    def _settled(self, atom: Atom) -> Formula:
        """The atom, or the constant it is in every world of the law."""
        if atom.predicate != "has" or len(atom.arguments) != 2:
            return atom  # the BDD route reports the error
        player, card_text = atom.arguments
        history = self.history
        if player not in history.players:
            return atom
        try:
            c = history.deck.card(card_text).index
        except KwartetError:
            return atom
        where = history.location[c]
        if where is not None:
            return _TOP if where == player else _BOTTOM
        reach = history.reach[player]
        if not history.allowed[c] & reach:
            return _BOTTOM
        if not history.allowed[c] & ~reach:
            return _TOP
        return atom

    def _observed_by(self, agent: str, f: Formula) -> bool:
        """Whether ``agent`` observes the truth of ``f`` (it is constant on each of
        the agent's cells).  Memoised per part: folding asks it at every level."""
        memo = self._observed
        stack = [f]
        while stack:
            node = stack[-1]
            if (agent, node) in memo:
                stack.pop()
                continue
            if isinstance(node, Not | And | Or | Implies | Iff):
                waiting = [child for child in node.args if (agent, child) not in memo]
                if waiting:
                    stack.extend(waiting)
                    continue
                observed = all(memo[agent, child] for child in node.args)
            elif _is_constant(node):
                observed = True
            elif isinstance(node, Atom):
                observed = self._atom_observed_by(agent, node)
            elif isinstance(node, K | M | Kw):
                observed = node.agent == agent
            elif isinstance(node, C):
                observed = agent in node.group  # a union of the group's components
            else:
                observed = False
            memo[agent, node] = observed
            stack.pop()
        return memo[agent, f]

    def _atom_observed_by(self, agent: str, atom: Atom) -> bool:
        """Whether ``agent`` observes the (unsettled) atom: it is the agent's own, or the
        public record leaves the card only the agent and the atom's player as holders
        (then the atom holds iff the agent lacks the card)."""
        if atom.predicate != "has" or len(atom.arguments) != 2:
            return False
        player, card_text = atom.arguments
        history = self.history
        if player == agent:
            return True
        if player not in history.players or agent not in history.players:
            return False
        try:
            c = history.deck.card(card_text).index
        except KwartetError:
            return False
        if history.location[c] is not None:
            return True  # a constant
        return not history.allowed[c] & ~(history.reach[player] | history.reach[agent])

    def fold(self, f: Formula) -> Formula:
        """An equivalent formula (in every world of every announced sub-law) with the
        settled atoms replaced by constants and the S5 reductions applied."""
        return f.fold(self._fold_node)

    def _fold_node(self, f: Formula, parts: list[Formula]) -> Formula:
        """One node of :meth:`fold` over its already folded children."""
        if isinstance(f, Atom):
            return self._settled(f)
        if _is_constant(f):
            return f
        if isinstance(f, Not):
            (x,) = parts
            if _is_constant(x):
                return _BOTTOM if isinstance(x, Top) else _TOP
            return Not(x)
        if isinstance(f, And | Or | Implies | Iff):
            return _fold_connective(f, parts[0], parts[1])
        if isinstance(f, K | M | Kw):
            (x,) = parts
            if _is_constant(x) or self._observed_by(f.agent, x):
                # K_a φ = φ and M_a φ = φ when a observes φ; Kw_a of it is true.
                return _TOP if isinstance(f, Kw) else x
            return type(f)(f.agent, x)
        if isinstance(f, E | C | D):
            (x,) = parts
            if _is_constant(x):
                return x
            if isinstance(f, D) and any(self._observed_by(a, x) for a in f.group):
                return x  # D_G φ implies φ, and φ implies K_a φ, which implies D_G φ
            if isinstance(f, E) and all(self._observed_by(a, x) for a in f.group):
                return x
            return type(f)(f.group, x)
        if isinstance(f, Announce | AnnounceDual):
            announced, operand = parts
            if isinstance(announced, Top):
                return operand
            if isinstance(announced, Bottom):
                return _TOP if isinstance(f, Announce) else _BOTTOM
            return type(f)(announced, operand)
        return f

    # ----- truth at the actual world ------------------------------------------------
    #
    # The steps below call each other as a recursion would; they are generators run by
    # run() (each yields the steps it needs), so no nesting depth reaches Python's
    # recursion limit, and each is memoised per formula.

    def truth(self, f: Formula) -> Truth:
        """Truth of a folded formula at the actual world (None: not decided here)."""
        return run(self._truth(f))

    def _truth(self, f: Formula) -> Step[Truth]:
        if f in self._truths:
            return self._truths[f]
        value: Truth = None
        if isinstance(f, Top):
            value = True
        elif isinstance(f, Bottom):
            value = False
        elif isinstance(f, Atom):
            value = self._actual_atom(f)
        elif isinstance(f, Not):
            value = _not((yield self._truth(f.operand)))
        elif isinstance(f, And):
            left = yield self._truth(f.left)
            value = False if left is False else _and([left, (yield self._truth(f.right))])
        elif isinstance(f, Or):
            left = yield self._truth(f.left)
            value = True if left is True else _or([left, (yield self._truth(f.right))])
        elif isinstance(f, Implies):
            left = _not((yield self._truth(f.left)))
            value = True if left is True else _or([left, (yield self._truth(f.right))])
        elif isinstance(f, Iff):
            left, right = (yield self._truth(f.left)), (yield self._truth(f.right))
            value = None if left is None or right is None else left == right
        elif isinstance(f, K):
            value = yield self._knows_at_actual((f.agent,), f.operand)
        elif isinstance(f, M):
            value = _not((yield self._knows_at_actual((f.agent,), _negation(f.operand))))
        elif isinstance(f, Kw):
            knows = yield self._knows_at_actual((f.agent,), f.operand)
            if knows is not True:
                knows = _or(
                    [knows, (yield self._knows_at_actual((f.agent,), _negation(f.operand)))]
                )
            value = knows
        elif isinstance(f, E):
            values: list[Truth] = []
            for a in f.group:
                values.append((yield self._knows_at_actual((a,), f.operand)))
                if values[-1] is False:
                    break
            value = _and(values)
        elif isinstance(f, D):
            value = yield self._knows_at_actual(tuple(f.group), f.operand)
        elif isinstance(f, C):
            value = yield self._common_at_actual(tuple(f.group), f.operand)
        elif isinstance(f, Announce | AnnounceDual):
            # The announced formula is no constant here (fold took those out): only a
            # false announcement decides the answer without the announced law.
            announced = yield self._truth(f.announced)
            value = isinstance(f, Announce) if announced is False else None
        self._truths[f] = value
        return value

    def _actual_atom(self, atom: Atom) -> Truth:
        state = self.state
        if state.viewer is not None or atom.predicate != "has" or len(atom.arguments) != 2:
            return None  # a view has no actual world; malformed atoms go to the BDD route
        player, card_text = atom.arguments
        if player not in self.history.players:
            return None
        try:
            card = self.history.deck.card(card_text)
        except KwartetError:
            return None
        return card in state.actual_hand(player)

    def _counted_knowledge(self, group: tuple[str, ...], operand: Formula) -> Truth:
        """Exact: whether the pooled information of ``group`` (nobody: the public
        record) rules out every world where the propositional ``operand`` fails."""
        key = (tuple(sorted(set(group))), operand)
        if key not in self._known:
            try:
                literal = self._literal(operand)
                if literal is None:
                    counting = cast("CountingEngine", self.state.engine_named("counting"))
                    self._known[key] = counting.knows(key[0], operand)
                else:
                    self._known[key] = self._knows_literal(key[0], *literal)
            except KwartetError:  # another player's hand on a view, a huge normal form
                self._known[key] = None
        return self._known[key]

    def _literal(self, f: Formula) -> tuple[int, str, bool] | None:
        """(card, player, positive) if ``f`` is a well-formed atom or its negation."""
        positive = not isinstance(f, Not)
        atom = f if positive else f.operand  # type: ignore[attr-defined]
        if not isinstance(atom, Atom) or atom.predicate != "has" or len(atom.arguments) != 2:
            return None
        player, card_text = atom.arguments
        if player not in self.history.players:
            return None
        try:
            return self.history.deck.card(card_text).index, player, positive
        except KwartetError:
            return None

    def _knows_literal(
        self, group: tuple[str, ...], card: int, player: str, positive: bool
    ) -> bool:
        """K/D of ``has(player, card)`` (or its negation) from the group's marginals: one
        programme (cached on the state) answers every card and player."""
        history = self.history
        where = history.location[card]
        if where is not None:
            return (where == player) == positive
        counts, total = _marginals(self.state, group)
        reach = history.reach[player]
        with_player = sum(counts[card, s] for s in range(counts.shape[1]) if reach >> s & 1)
        return with_player == (total if positive else 0)

    def _valid(self, f: Formula) -> Step[Truth]:
        """Whether ``f`` holds in every world of the law (None: not decided here)."""
        if f in self._valids:
            return self._valids[f]
        value: Truth = None
        if _is_propositional(f):
            value = self._counted_knowledge((), f)
        elif isinstance(f, K | E | C | D):
            value = yield self._valid(f.operand)  # S5: K_a φ is valid iff φ is
        elif isinstance(f, And):
            left = yield self._valid(f.left)
            value = False if left is False else _and([left, (yield self._valid(f.right))])
        elif isinstance(f, Or | M | Kw):
            for g in f.args:
                if (yield self._valid(g)) is True:
                    value = True
                    break
        self._valids[f] = value
        return value

    def _knows_at_actual(self, group: tuple[str, ...], operand: Formula) -> Step[Truth]:
        """``K`` (one agent) or ``D`` (a group) of ``operand`` at the actual world."""
        key = (group, operand)
        if key in self._knowing:
            return self._knowing[key]
        value: Truth = None
        if _is_propositional(operand):
            value = self._counted_knowledge(group, operand)
        elif (yield self._truth(operand)) is False:
            value = False  # S5 is reflexive: the actual world refutes it
        else:
            consequence = yield self._consequence(operand)
            if (
                not isinstance(consequence, Top)
                and self._counted_knowledge(group, consequence) is False
            ):
                value = False
            elif (yield self._valid(operand)) is True:
                value = True
        self._knowing[key] = value
        return value

    def _common_at_actual(self, group: tuple[str, ...], operand: Formula) -> Step[Truth]:
        if (yield self._valid(operand)) is True:
            return True
        if (yield self._truth(operand)) is False:
            return False
        # C_G φ implies K_a φ and K_a K_b φ for a, b in G.
        agents = list(dict.fromkeys(group))
        for a in agents:
            if (yield self._knows_at_actual((a,), operand)) is False:
                return False
        for a in agents:
            for b in agents:
                if a != b and (yield self._knows_at_actual((a,), K(b, operand))) is False:
                    return False
        return None

    def _consequence(self, f: Formula) -> Step[Formula]:
        """A propositional formula true wherever ``f`` is (knowledge is truthful)."""
        if f in self._consequences:
            return self._consequences[f]
        value: Formula = _TOP
        if _is_propositional(f):
            value = f
        elif isinstance(f, K | E | C | D):
            value = yield self._consequence(f.operand)
        elif isinstance(f, And | Or):
            left = yield self._consequence(f.left)
            value = _fold_connective(f, left, (yield self._consequence(f.right)))
        self._consequences[f] = value
        return value


def _marginals(state: EpistemicState, group: tuple[str, ...]) -> tuple[np.ndarray, int]:
    """Origin counts per card and slot of the worlds the group's pooled information
    leaves (all public worlds for no group), and their number, kept by the state's
    symbolic engine until the record changes."""
    engine = state.engine_named("symbolic")
    assert isinstance(engine, SymbolicEngine)
    return engine.marginals(group)


def _negation(f: Formula) -> Formula:
    if isinstance(f, Top):
        return _BOTTOM
    if isinstance(f, Bottom):
        return _TOP
    return f.operand if isinstance(f, Not) else Not(f)


def _fold_connective(f: Formula, left: Formula, right: Formula) -> Formula:
    """``f``'s binary connective over folded parts, constants taken out."""
    if isinstance(f, Iff):
        if _is_constant(left):
            return right if isinstance(left, Top) else _negation(right)
        if _is_constant(right):
            return left if isinstance(right, Top) else _negation(left)
        return Iff(left, right)
    kind: type[And] | type[Or] = And if isinstance(f, And) else Or
    if isinstance(f, Implies):
        left = _negation(left)  # a -> b is ~a | b
    absorbing, neutral = (_BOTTOM, _TOP) if kind is And else (_TOP, _BOTTOM)
    if absorbing in (left, right):
        return absorbing
    if left == neutral:
        return right
    if right == neutral:
        return left
    return kind(left, right)


# ----- SMCDEL's input of a position -------------------------------------------------


@plain_errors
def export_game(
    state: EpistemicState,
    query: Formula | str | Sequence[Formula | str] | None = None,
    *,
    jobs: Iterable[str] | None = None,
) -> SmcdelExport:
    """The SMCDEL input of a game position (its epistemic state).

    The structure is the symbolic engine's.  On the whole table (a Game, or its state)
    ``TRUE?`` asks at the actual deal.  On a player's view the actual deal is unknown:
    each query φ is asked as ``K_P φ`` and ``K_P ~φ`` (P the viewer) at a state P
    considers possible, which is how ``holds`` answers on a view.
    """
    engine = state.engine_named("symbolic")
    assert isinstance(engine, SymbolicEngine)
    symbolic = engine.structure()
    manager = symbolic.manager
    structure = symbolic.structure
    history = symbolic.history
    queries = queries_of(query)
    if state.viewer is None:
        cube = symbolic.actual_cube()
    else:
        cube = symbolic.law & symbolic.observation_cube([state.viewer])
        queries = tuple(f for q in queries for f in (K(state.viewer, q), K(state.viewer, Not(q))))
    picked = manager.pick(cube, care_vars=set(symbolic.names)) if symbolic.names else {}
    if picked is None:  # pragma: no cover - the actual deal is always a state
        raise ModelError("the actual deal is not a state of the symbolic structure")
    actual = {name: bool(picked[name]) for name in symbolic.names}
    describe: dict[str, str] = {}
    for (c, s), name in symbolic.var.items():
        owner = history.slot_owner[s]
        where = f"{owner}'s hand or draw" if owner is not None else "a pile"
        describe[name] = f"card {history.deck.cards[c].code} came from slot {s}, {where}"
    who = "the whole table" if state.viewer is None else f"{state.viewer}'s view"
    title = [
        f"a Kwartet position ({who}) after {len(state.record)} events; a variable "
        "o<card>_<slot> says where a card came from, each player observes those of "
        "their own slots",
    ]
    if state.viewer is not None:
        title.append(
            f"each query q is asked as K {state.viewer} q and K {state.viewer} ~q at a state "
            f"{state.viewer} considers possible"
        )
    return export_structure(
        structure,
        queries,
        actual=actual,
        jobs=jobs,
        describe=describe,
        atom_comments=True,
        title=title,
    )
