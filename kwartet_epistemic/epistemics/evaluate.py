"""The counting engine, and ``"auto"``: truth of formulas by counting worlds.

The counting engine answers every formula whose modal operators (K, M, Kw, E, D) apply to
propositional formulas over the atoms ``has(P, card)``: ``K_P ψ`` holds iff no world that
P considers possible satisfies ``¬ψ``, and that is a count (zero or not) of the worlds
under extra restrictions, one per term of ``¬ψ`` in disjunctive normal form.  A part it
cannot count (nested modalities, common knowledge, announcements) goes to the explicit
engine at teaching sizes; beyond them :class:`CountingEngine` refuses it
(:class:`~kwartet_epistemic.errors.UnsupportedFormulaError`) and :class:`AutoEngine`
hands it to the symbolic engine.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> _ = game.ask("B", "7D")
>>> k = kw.knowledge(game)
>>> k.holds("K_A has(C, 7D)"), k.holds("K_B has(C, 7D)"), k.holds("K_A has(C, 7C)")
(True, True, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from kwartet_epistemic.epistemics.counting import WorldCounter, family_probabilities
from kwartet_epistemic.epistemics.explicit import EXPLICIT_LIMIT
from kwartet_epistemic.epistemics.history import PublicHistory
from kwartet_epistemic.errors import KwartetError, UnknownToViewerError, UnsupportedFormulaError
from kwartet_epistemic.events import (
    Answered,
    Asked,
    CardMoved,
    GameEnded,
    HandEmptied,
    QuartetExposed,
    TurnPassed,
)
from kwartet_epistemic.game import Game
from kwartet_epistemic.logic import (
    And,
    Atom,
    Bottom,
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

if TYPE_CHECKING:
    from kwartet_epistemic.epistemics.state import EpistemicState

__all__ = [
    "AutoEngine",
    "CountingEngine",
    "canonical_formula",
    "evaluate",
    "UnsupportedFormulaError",
]

_MAX_TERMS = 512  # terms of a conjunction's normal form
_MAX_COUNTS = 4096  # terms of a disjunction's: each is one count of worlds
_MAX_WORK = 4_000_000  # unions and term copies of one normal form: a few seconds


Literal = tuple[int, str, bool]  # (card index, player, positive)


def evaluate(state: EpistemicState, formula: Any) -> bool:
    """Truth of ``formula`` (a Formula or its text) at the actual world of ``state``,
    by the state's engine (see :meth:`EpistemicState.holds
    <kwartet_epistemic.epistemics.state.EpistemicState.holds>`).

    Every atom is first read against the game: ``has(P, card)`` with P a player and the
    card in any spelling the deck knows (``7S``, ``7s``, ``7♠``, ``seven of spades``),
    which every engine then sees as the one canonical atom (``has(P, 7S)``); any other
    atom is refused.  No evaluator recurses, so any nesting depth is answered.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
    >>> k = kw.knowledge(game, engine="explicit")
    >>> k.holds("K_B M_C has(A, seven of spades)") == k.holds("K_B M_C has(A, 7S)")
    True
    >>> k.holds("~" * 10_000 + "has(A, 7♠)")
    True
    """
    f = parse(formula) if isinstance(formula, str) else formula
    if not isinstance(f, Formula):
        raise KwartetError(f"formula {formula!r}: expected a Formula or formula text")
    return state.engine_named(state.engine).truth(canonical_formula(state, f))


def canonical_formula(state: EpistemicState, formula: Formula) -> Formula:
    """``formula`` with every atom in the game's canonical spelling, ``has(P, code)``.

    Refuses (KwartetError) an atom that is not ``has(player, card)`` for a player of the
    game and a card of its deck; returns ``formula`` itself when every atom is already
    canonical.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> str(canonical_formula(kw.knowledge(game), parse("K_A ~has(B, queen of hearts)")))
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.UnknownCardError: no card 'queen of hearts' in ...
    >>> str(canonical_formula(kw.knowledge(game), parse("K_A ~has(B, 7♥) | has(C, 8s)")))
    'K_A ~has(B, 7H) | has(C, 8S)'
    """
    atoms: dict[str, Atom] = {}

    def rebuild(node: Formula, children: list[Formula]) -> Formula:
        if not isinstance(node, Atom):
            return node.rebuild(children)
        found = atoms.get(node.name)
        if found is None:
            card, player = _atom(state, node)
            found = Atom(f"has({player}, {state.deck.cards[card].code})")
            if found == node:
                found = node
            atoms[node.name] = found
        return found

    return formula.fold(rebuild)


_PROPOSITIONAL = (Top, Bottom, Atom, Not, And, Or, Implies, Iff)


def _is_propositional(f: Formula) -> bool:
    seen: set[int] = set()
    stack = [f]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if not isinstance(node, _PROPOSITIONAL):
            return False
        stack.extend(node.args)
    return True


def _atom(state: EpistemicState, atom: Atom) -> tuple[int, str]:
    if atom.predicate != "has" or len(atom.arguments) != 2:
        raise KwartetError(
            f"atom {formula_excerpt(atom)}: a Kwartet state knows only atoms has(player, "
            "card), such as has(B, QH)"
        )
    player, card_text = atom.arguments
    if player not in state.players:
        raise KwartetError(
            f"atom {formula_excerpt(atom)}: {player[:40]!r} is not a player; players are "
            f"{', '.join(state.players)}"
        )
    return state.deck.card(card_text).index, player


class CountingEngine:
    """The counting engine: counts, location counts and formulas by the family-by-family
    counting programme (:class:`~kwartet_epistemic.epistemics.counting.WorldCounter`),
    at any table size.

    Formulas: K, M, Kw, E and D of propositional formulas are counts; a part beyond
    that is answered by the explicit engine where the state has at most a quarter of
    :data:`~kwartet_epistemic.epistemics.explicit.EXPLICIT_LIMIT` worlds, and refused
    (:class:`~kwartet_epistemic.errors.UnsupportedFormulaError`) above.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> engine = kw.knowledge(game, engine="counting").engine_named("counting")
    >>> engine.count_worlds("A")
    9096824880
    >>> engine.truth(parse("K_A has(A, " + game.hand("A")[0].code + ")"))
    True
    """

    name = "counting"

    def __init__(self, state: EpistemicState) -> None:
        self._state = state
        self._places: dict[str, tuple[PublicHistory, int, list[str | None]]] = {}
        self._slot_places: tuple[np.ndarray, list[str]] | None = None
        # Per player (None: public): (events taken in, families, probabilities, count).
        self._families: dict[str | None, tuple[int, frozenset[int], np.ndarray, int]] = {}

    @property
    def state(self) -> EpistemicState:
        """The epistemic state this engine answers for."""
        return self._state

    # ----- counts ---------------------------------------------------------------------

    def count_worlds(self, player: str | None) -> int:
        """The worlds consistent with the record (``player``'s, if given)."""
        return self.state.world_counter(() if player is None else (player,)).count

    def location_table(self, player: str | None) -> tuple[np.ndarray, int]:
        """``[n_cards, n_players]`` location counts (int64 where every count fits, else
        Python ints) of ``player``'s worlds (all worlds for None), and their number."""
        counter = self.state.world_counter(() if player is None else (player,))
        return counter.location_table(), counter.count

    def family_probabilities(
        self, player: str | None, families: Iterable[int] | None = None
    ) -> tuple[np.ndarray, int]:
        """``player``'s exact probabilities (``[n_cards, n_players]``) for the cards of
        ``families`` (every family by default; other rows may be NaN) and the number of
        their worlds, by :func:`~kwartet_epistemic.epistemics.counting.family_probabilities`
        (the kernel's whole recount where it applies).  Kept until the record grows;
        after the viewer's own ask for a card they knew the target held, only that row
        changes (the worlds map one to one), so the answer is patched, not recounted.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
        >>> counting = kw.knowledge(game.view("A")).engine_named("counting")
        >>> matrix, count = counting.family_probabilities("A", [0])
        >>> count, bool(np.isnan(matrix[4:]).all())
        (9096824880, True)
        """
        state = self.state
        seen = len(state.source.record)
        cached = self._families.get(player)
        if families is None:
            wanted = None
        else:
            wanted = families if isinstance(families, frozenset) else frozenset(families)
            if cached is not None and cached[0] == seen and wanted <= cached[1]:
                # Nothing new in the record since: the constraints change only with it.
                return cached[2], cached[3]
        if player is not None:
            state.check_player(player)
        history = state.history  # caught up: the source's record is taken in
        if wanted is None:
            wanted = frozenset(range(history.deck.n_families))
        if cached is not None and cached[0] != seen and player == state.viewer:
            cached = self._patched(cached, seen)
        if cached is not None and cached[0] == seen:
            if wanted <= cached[1]:
                self._families[player] = cached
                return cached[2], cached[3]
            wanted |= cached[1]  # one computation for both, so the cache keeps both
        infos = [] if player is None else [state.private_info(player)]
        matrix, count = family_probabilities(history, infos, wanted)
        if count == 0:
            raise KwartetError("no world is consistent with the record")
        self._families[player] = (seen, wanted, matrix, count)
        return matrix, count

    def _patched(
        self, cached: tuple[int, frozenset[int], np.ndarray, int], seen: int
    ) -> tuple[int, frozenset[int], np.ndarray, int] | None:
        """The viewer's answer after their own sure ask, without recounting; else None.

        If the viewer knew that the target held the card, every one of their worlds has
        it there: moving it to them maps worlds one to one, so nothing else changes.
        """
        state = self.state
        before, families, matrix, count = cached
        new = state.source.record[before:seen]
        if len(new) < 3:
            return None
        asked, answered, moved = new[0], new[1], new[2]
        if not (
            type(asked) is Asked
            and asked.asker == state.viewer
            and type(answered) is Answered
            and answered.has_card
            and type(moved) is CardMoved
            and moved.destination == state.viewer
        ):
            return None
        players = state.players
        c = asked.card.index
        if asked.card.family_index not in families:
            return None
        row = matrix[c]
        holders = np.flatnonzero(row)
        if not (len(holders) == 1 and row[holders[0]] == 1.0):
            return None
        if players[int(holders[0])] != asked.target:
            return None
        deck = state.deck
        patched = matrix.copy()
        patched[c] = 0.0
        patched[c, players.index(state.viewer)] = 1.0
        for event in new[3:]:
            if type(event) is QuartetExposed:
                f = deck.family_index(event.family)
                patched[4 * f : 4 * f + 4] = 0.0
            elif type(event) not in (HandEmptied, TurnPassed, GameEnded):
                return None
        return seen, families, patched, count

    def known_place(self, player: str, card: int) -> str | None:
        """Where ``player`` knows the unseen card (deck index ``card``) lies, else None
        (worked out for every card at once, once per public version)."""
        history = self._state.history
        cached = self._places.get(player)  # only ever holds players of the game
        # Kept with the history object itself: a state may take up another (shared) one.
        if cached is None or cached[0] is not history or cached[1] != history.version:
            cached = (history, history.version, self._known_places(player))
            self._places[player] = cached
        return cached[2][card]

    def _known_places(self, player: str) -> list[str | None]:
        state = self.state
        counter = state.world_counter((player,))
        history = state.history
        n_slots = len(history.slot_owner)
        if self._slot_places is None or len(self._slot_places[0]) != n_slots:
            names = [
                owner or name
                for owner, name in zip(history.slot_owner, history.slot_names, strict=True)
            ]
            place_index = {name: i for i, name in enumerate(dict.fromkeys(names))}
            place_of_slot = np.array([place_index[name] for name in names], dtype=np.int64)
            self._slot_places = (place_of_slot, list(place_index))
        place_of_slot, place_names = self._slot_places
        possible = counter.origin_table() != 0
        if len(place_names) == n_slots:  # no draws: every slot is a place of its own
            only = np.where(possible.sum(axis=1) == 1, possible.argmax(axis=1), -1).tolist()
            return [place_names[slot] if slot >= 0 else None for slot in only]
        # A card is located when all its possible origin slots name one place.
        lowest = np.where(possible, place_of_slot, len(place_names)).min(axis=1)
        highest = np.where(possible, place_of_slot, -1).max(axis=1)
        return [
            place_names[low] if low == high else None
            for low, high in zip(lowest.tolist(), highest.tolist(), strict=True)
        ]

    # ----- formulas -------------------------------------------------------------------

    def truth(self, formula: Formula) -> bool:
        """Truth of a canonical formula at the actual world; on a player's view, whether
        it holds in all the viewer's worlds (True) or in none (False), and
        :class:`~kwartet_epistemic.errors.UnknownToViewerError` where that differs."""
        if self.state.viewer is not None:
            return self._viewer_truth(formula)
        return self._truth(formula)

    def knows(self, group: Sequence[str], operand: Formula) -> bool:
        """Whether the pooled information of ``group`` (one player: K; several: D; none:
        the public record) rules out every world where ``operand`` fails.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
        >>> counting = kw.knowledge(game).engine_named("counting")
        >>> counting.knows(["A"], parse("has(A, 7C)")), counting.knows([], parse("has(A, 7C)"))
        (True, False)
        """
        state = self.state
        if not group:
            return not self._counts_some(group, Not(operand))
        modal = K(group[0], operand) if len(group) == 1 else D(group, operand)
        if not _is_propositional(operand):
            return self.fallback(modal)
        try:
            return not self._counts_some(group, Not(operand))
        except UnsupportedFormulaError:
            if state.engine == "counting":
                raise
            return self.fallback(modal)  # a normal form too large to count term by term

    def _counts_some(self, group: Sequence[str], formula: Formula) -> bool:
        """Whether some world of ``group``'s pooled information satisfies the
        propositional ``formula`` (one count per term of its normal form)."""
        state = self.state
        terms = _dnf(state, formula, positive=True)
        history = state.history
        players = tuple(sorted(set(group)))
        infos = [state.private_info(p) for p in players]
        possible: np.ndarray | None = None  # which origins the group's worlds allow each card
        for term in terms:
            restrict: dict[int, int] = {}
            feasible = True
            for card, player, positive in term:
                where = history.location[card]
                if where is not None:
                    if (where == player) != positive:
                        feasible = False
                        break
                    continue
                reach = history.reach[player]
                restrict[card] = restrict.get(card, -1) & (reach if positive else ~reach)
            if not feasible:
                continue
            if len(restrict) == 1:
                # One card: the group's origin table says whether a world allows it, so a
                # long conjunction under K costs one count, not one per conjunct.
                if possible is None:
                    possible = state.world_counter(players).origin_table() != 0
                ((card, allowed),) = restrict.items()
                if any(possible[card, s] for s in range(possible.shape[1]) if allowed >> s & 1):
                    return True
                continue
            if WorldCounter(history, infos, restrict).count > 0:
                return True
        return False

    def fallback(self, formula: Formula) -> bool:
        """A formula beyond counting: the explicit engine at teaching sizes (a quarter
        of :data:`~kwartet_epistemic.epistemics.explicit.EXPLICIT_LIMIT` worlds),
        refused above."""
        state = self.state
        if state.world_counter(()).count <= EXPLICIT_LIMIT // 4:
            return state.engine_named("explicit").truth(formula)
        raise UnsupportedFormulaError(
            f"formula {formula_excerpt(formula)}: the counting engine answers K, M, Kw, E "
            "and D of propositional formulas (and the rest up to "
            f"{EXPLICIT_LIMIT // 4:,} worlds, by the explicit engine); this state has "
            f"{state.world_counter(()).count:,}: use engine='auto' or 'symbolic' for "
            "nested knowledge, C and announcements"
        )

    def _viewer_truth(self, f: Formula) -> bool:
        state = self.state
        viewer = state.viewer
        assert viewer is not None
        negated = False
        while isinstance(f, Not):
            f, negated = f.operand, not negated
        if isinstance(f, K | M | Kw) and f.agent == viewer:
            return self._truth(f) != negated  # the viewer's own knowledge: no actual world
        if not _is_propositional(f):
            # True in all the viewer's worlds, false in all, or neither (refused there).
            return self.fallback(f) != negated
        if self.knows((viewer,), f):
            return not negated
        if self.knows((viewer,), Not(f)):
            return negated
        raise UnknownToViewerError(
            f"{viewer} cannot tell whether {formula_excerpt(f)} holds: it is true in some "
            f"of {viewer}'s worlds and false in others"
        )

    def _truth(self, root: Formula) -> bool:
        """Truth at the actual world (left to right, short-circuit); on a view only of
        the viewer's own knowledge."""
        state = self.state
        game = state.source
        memo: dict[int, bool] = {}

        def truth(f: Formula) -> Step[bool]:
            known = memo.get(id(f))
            if known is not None:
                return known
            value: bool
            if isinstance(f, Top):
                value = True
            elif isinstance(f, Bottom):
                value = False
            elif isinstance(f, Atom):
                card, player = _atom(state, f)
                assert isinstance(game, Game)  # a view-based state asks only about knowledge
                value = state.deck.cards[card] in game.hand(player)
            elif isinstance(f, Not):
                value = not (yield truth(f.operand))
            elif isinstance(f, And):
                value = bool((yield truth(f.left)) and (yield truth(f.right)))
            elif isinstance(f, Or):
                value = bool((yield truth(f.left)) or (yield truth(f.right)))
            elif isinstance(f, Implies):
                value = bool((not (yield truth(f.left))) or (yield truth(f.right)))
            elif isinstance(f, Iff):
                value = (yield truth(f.left)) == (yield truth(f.right))
            elif isinstance(f, K):
                value = self.knows((f.agent,), f.operand)
            elif isinstance(f, M):
                value = not self.knows((f.agent,), Not(f.operand))
            elif isinstance(f, Kw):
                value = self.knows((f.agent,), f.operand) or self.knows((f.agent,), Not(f.operand))
            elif isinstance(f, E):
                value = all(self.knows((a,), f.operand) for a in f.group)
            elif isinstance(f, D):
                value = self.knows(f.group, f.operand)
            else:
                value = self.fallback(f)
            memo[id(f)] = value
            return value

        return run(truth(root))


class AutoEngine(CountingEngine):
    """``engine="auto"``: the counting engine, and for a part it cannot count the
    explicit engine at teaching sizes, the symbolic engine beyond.  It answers every
    formula that the state settles (on a player's view: true in all the viewer's worlds
    or in none), with the explicit engine's answer wherever that fits.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> kw.knowledge(game.view("A")).holds("K_B has(B, 7H) | ~K_B has(B, 7H)")
    True
    """

    name = "auto"

    def fallback(self, formula: Formula) -> bool:
        """A formula beyond counting: explicit at teaching sizes, symbolic beyond."""
        state = self.state
        if state.world_counter(()).count <= EXPLICIT_LIMIT // 4:
            return state.engine_named("explicit").truth(formula)
        return state.engine_named("symbolic").truth(formula)


Term = frozenset[Literal]
Normal = tuple[list[Term], Term]
"""A disjunctive normal form: its terms, and literals that every term has."""


def _conjunctive(f: Formula, positive: bool) -> bool:
    """Whether ``f`` (negated if not ``positive``), an ``&``, ``|`` or ``->``, is a
    conjunction of its sides (else it is a disjunction: ``a -> b`` is ``~a | b``)."""
    return positive if isinstance(f, And) else not positive


def _chain(f: Formula, positive: bool) -> tuple[bool, list[tuple[Formula, bool]]]:
    """The operands (and their signs) of the longest chain of conjunctions, or of
    disjunctions, below ``f``, seen through negations; left to right."""
    conjunctive = _conjunctive(f, positive)
    parts: list[tuple[Formula, bool]] = []
    stack = [(f, positive)]
    while stack:
        g, sign = stack.pop()
        while isinstance(g, Not):
            g, sign = g.operand, not sign
        if isinstance(g, And | Or | Implies) and _conjunctive(g, sign) == conjunctive:
            stack.append((g.right, sign))
            stack.append((g.left, not sign if isinstance(g, Implies) else sign))
        else:
            parts.append((g, sign))
    return conjunctive, parts


def _dnf(state: EpistemicState, root: Formula, positive: bool) -> list[Term]:
    """``root`` (negated if not ``positive``) as a list of conjunctions of literals.

    Each (subformula, sign) is worked out once, without recursion; a chain of ``&`` or
    of ``|`` is one step over its operands.  Refused with UnsupportedFormulaError when
    a conjunction has more than ``_MAX_TERMS`` terms, a disjunction more than
    ``_MAX_COUNTS`` (each is one count of worlds), or the whole takes more than
    ``_MAX_WORK`` steps, so that no formula takes more than a few seconds here."""
    memo: dict[tuple[int, bool], Normal] = {}
    budget = [_MAX_WORK]

    def spend(steps: int) -> None:
        budget[0] -= steps
        if budget[0] < 0:
            raise UnsupportedFormulaError(
                f"formula {formula_excerpt(root)}: its normal form takes more than "
                f"{_MAX_WORK:,} steps to work out"
            )

    def product(left: Normal, right: Normal, f: Formula) -> Normal:
        """The consistent unions of a term of ``left`` and one of ``right``, each once."""
        (left_terms, left_sure), (right_terms, right_sure) = left, right
        if len(right_terms) == 1 and right_terms[0] <= left_sure:
            return left  # every term of left has it already: a long chain costs nothing
        if len(left_terms) == 1 and left_terms[0] <= right_sure:
            return right
        spend(len(left_terms) * len(right_terms))
        found: dict[Term, None] = {}
        for a in left_terms:
            for b in right_terms:
                small, large = (a, b) if len(a) <= len(b) else (b, a)
                if any((c, p, not s) in large for c, p, s in small):
                    continue
                found[a | b] = None
                if len(found) > _MAX_TERMS:
                    raise UnsupportedFormulaError(
                        f"formula {formula_excerpt(f)}: its normal form has more than "
                        f"{_MAX_TERMS:,} terms"
                    )
        return list(found), left_sure | right_sure

    def union(normals: list[Normal], f: Formula) -> Normal:
        """The terms of all ``normals``, each once (one empty term if any has it)."""
        found: dict[Term, None] = {}
        sure: Term | None = None
        for part_terms, part_sure in normals:
            spend(len(part_terms))
            if frozenset() in part_terms:
                return [frozenset()], frozenset()
            if part_terms:
                found.update(dict.fromkeys(part_terms))
                sure = part_sure if sure is None else sure & part_sure
            if len(found) > _MAX_COUNTS:
                raise UnsupportedFormulaError(
                    f"formula {formula_excerpt(f)}: its normal form has more than "
                    f"{_MAX_COUNTS:,} terms"
                )
        return list(found), frozenset() if sure is None else sure

    def terms(f: Formula, positive: bool) -> Step[Normal]:
        key = (id(f), positive)
        known = memo.get(key)
        if known is not None:
            return known
        result: Normal
        if isinstance(f, Top | Bottom):
            result = ([frozenset()] if isinstance(f, Top) == positive else [], frozenset())
        elif isinstance(f, Atom):
            card, player = _atom(state, f)
            literal = frozenset({(card, player, positive)})
            result = ([literal], literal)
        elif isinstance(f, Not):
            result = yield terms(f.operand, not positive)
        elif isinstance(f, And | Or | Implies):
            conjunctive, parts = _chain(f, positive)
            spend(len(parts))
            if conjunctive:
                result = ([frozenset()], frozenset())
                for g, sign in parts:
                    result = product(result, (yield terms(g, sign)), f)
                    if not result[0]:
                        break  # false: the other operands do not matter
            else:
                normals: list[Normal] = []
                for g, sign in parts:
                    normals.append((yield terms(g, sign)))
                    if frozenset() in normals[-1][0]:
                        break  # true: the other operands do not matter
                result = union(normals, f)
        elif isinstance(f, Iff):
            left_true, left_false = (yield terms(f.left, True)), (yield terms(f.left, False))
            right_true, right_false = (yield terms(f.right, True)), (yield terms(f.right, False))
            if positive:
                pairs = [(left_true, right_true), (left_false, right_false)]
            else:
                pairs = [(left_true, right_false), (left_false, right_true)]
            result = union([product(a, b, f) for a, b in pairs], f)
        else:
            raise UnsupportedFormulaError(f"formula {formula_excerpt(f)} is not propositional")
        memo[key] = result
        return result

    return run(terms(root, positive))[0]
