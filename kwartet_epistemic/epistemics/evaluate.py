"""Truth of formulas on the epistemic state of a game.

The counting engine answers every formula whose modal operators (K, M, Kw, E, D) apply to
propositional formulas over the atoms ``has(P, card)``: ``K_P ψ`` holds iff no world that
P considers possible satisfies ``¬ψ``, and that is a count (zero or not) of the worlds
under extra restrictions, one per term of ``¬ψ`` in disjunctive normal form.
Nested modalities, common knowledge and announcements go to the explicit engine for
teaching sizes.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> _ = game.ask("B", "7D")
>>> k = kw.knowledge(game)
>>> k.holds("K_A has(C, 7D)"), k.holds("K_B has(C, 7D)"), k.holds("K_A has(C, 7C)")
(True, True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.errors import KwartetError
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

if TYPE_CHECKING:
    from kwartet_epistemic.epistemics.state import EpistemicState

__all__ = ["evaluate", "UnsupportedFormulaError"]

_MAX_TERMS = 512


class UnsupportedFormulaError(KwartetError):
    """A formula that no available engine can evaluate on this state."""


Literal = tuple[int, str, bool]  # (card index, player, positive)


def evaluate(state: EpistemicState, formula: Any) -> bool:
    """Truth of ``formula`` (a Formula or its text) at the actual world of ``state``."""
    f = parse(formula) if isinstance(formula, str) else formula
    if not isinstance(f, Formula):
        raise KwartetError(f"formula {formula!r}: expected a Formula or formula text")
    if state.engine == "symbolic":
        return _symbolic_holds(state, f)
    if state.engine == "explicit":
        from kwartet_epistemic.epistemics.explicit import explicit_holds

        return bool(explicit_holds(state, f))
    if state.viewer is not None:
        return _evaluate_for_viewer(state, f)
    return _truth(state, f)


def _truth(state: EpistemicState, f: Formula) -> bool:
    """Truth at the actual world of the god's-eye state."""
    if isinstance(f, Top):
        return True
    if isinstance(f, Bottom):
        return False
    if isinstance(f, Atom):
        card, player = _atom(state, f)
        game = state._source
        assert isinstance(game, Game)  # a view-based state never comes here
        return state.deck.cards[card] in game.hand(player)
    if isinstance(f, Not):
        return not _truth(state, f.operand)
    if isinstance(f, And):
        return _truth(state, f.left) and _truth(state, f.right)
    if isinstance(f, Or):
        return _truth(state, f.left) or _truth(state, f.right)
    if isinstance(f, Implies):
        return not _truth(state, f.left) or _truth(state, f.right)
    if isinstance(f, Iff):
        return _truth(state, f.left) == _truth(state, f.right)
    if isinstance(f, K):
        return _knows(state, (f.agent,), f.operand)
    if isinstance(f, M):
        return not _knows(state, (f.agent,), Not(f.operand))
    if isinstance(f, Kw):
        return _knows(state, (f.agent,), f.operand) or _knows(state, (f.agent,), Not(f.operand))
    if isinstance(f, E):
        return all(_knows(state, (a,), f.operand) for a in f.group)
    if isinstance(f, D):
        return _knows(state, f.group, f.operand)
    return _fallback(state, f)


def _evaluate_for_viewer(state: EpistemicState, f: Formula) -> bool:
    viewer = state.viewer
    assert viewer is not None
    if isinstance(f, K | M | Kw) and f.agent == viewer:
        return _truth(state, f)  # the viewer's own knowledge needs no actual world
    if isinstance(f, Not):
        return not _evaluate_for_viewer(state, f.operand)
    if _is_propositional(f):
        if _knows(state, (viewer,), f):
            return True
        if _knows(state, (viewer,), Not(f)):
            return False
    from kwartet_epistemic.epistemics.state import UnknownToViewerError

    raise UnknownToViewerError(
        f"{viewer} cannot tell whether {f} holds (it is true in some of {viewer}'s worlds "
        f"and false in others, or it concerns what others know)"
    )


def _is_propositional(f: Formula) -> bool:
    if isinstance(f, Top | Bottom | Atom):
        return True
    if isinstance(f, Not | And | Or | Implies | Iff):
        return all(_is_propositional(child) for child in f.args)
    return False


def _atom(state: EpistemicState, atom: Atom) -> tuple[int, str]:
    if atom.predicate != "has" or len(atom.arguments) != 2:
        raise KwartetError(
            f"atom {atom}: a Kwartet state knows only atoms has(player, card), such as has(B, QH)"
        )
    player, card_text = atom.arguments
    if player not in state.players:
        raise KwartetError(
            f"atom {atom}: {player!r} is not a player; players are {', '.join(state.players)}"
        )
    return state.deck.card(card_text).index, player


def _knows(state: EpistemicState, group: Sequence[str], operand: Formula) -> bool:
    """Whether the pooled information of ``group`` rules out every world where
    ``operand`` fails (K for one agent, D for several)."""
    if not _is_propositional(operand):
        return _fallback(state, K(group[0], operand) if len(group) == 1 else D(group, operand))
    terms = _dnf(state, Not(operand), positive=True)
    state._catch_up()
    history = state._history
    infos = [state._info(p) for p in sorted(set(group))]
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
        if WorldCounter(history, infos, restrict).count > 0:
            return False
    return True


def _dnf(state: EpistemicState, f: Formula, positive: bool) -> list[frozenset[Literal]]:
    """``f`` (negated if not ``positive``) as a list of conjunctions of literals."""
    if isinstance(f, Top | Bottom):
        value = isinstance(f, Top) == positive
        return [frozenset()] if value else []
    if isinstance(f, Atom):
        card, player = _atom(state, f)
        return [frozenset({(card, player, positive)})]
    if isinstance(f, Not):
        return _dnf(state, f.operand, not positive)
    if isinstance(f, Implies):
        return _dnf(state, Or(Not(f.left), f.right), positive)
    if isinstance(f, Iff):
        both = Or(And(f.left, f.right), And(Not(f.left), Not(f.right)))
        return _dnf(state, both, positive)
    if isinstance(f, And | Or):
        conjunctive = isinstance(f, And) == positive
        left = _dnf(state, f.left, positive)
        right = _dnf(state, f.right, positive)
        if not conjunctive:
            return left + right
        terms = []
        for a in left:
            for b in right:
                merged = a | b
                if not any((c, p, not s) in merged for c, p, s in merged):
                    terms.append(merged)
                    if len(terms) > _MAX_TERMS:
                        raise UnsupportedFormulaError(
                            f"formula {f}: its normal form has more than {_MAX_TERMS} terms"
                        )
        return terms
    raise UnsupportedFormulaError(f"formula {f} is not propositional")


def _fallback(state: EpistemicState, f: Formula) -> bool:
    """Nested modalities, C and announcements: the explicit engine at teaching sizes, the
    symbolic engine beyond."""
    from kwartet_epistemic.epistemics.explicit import EXPLICIT_LIMIT, explicit_holds

    if state.count_worlds() <= EXPLICIT_LIMIT // 4:
        return bool(explicit_holds(state, f))
    if state.engine == "counting":
        raise UnsupportedFormulaError(
            f"formula {f}: the counting engine answers K, M, Kw, E and D of propositional "
            "formulas; use engine='auto' or 'symbolic' for nested knowledge, C and announcements"
        )
    return _symbolic_holds(state, f)


def _symbolic_holds(state: EpistemicState, f: Formula) -> bool:
    """The symbolic engine's answer: from the game's structure where that settles it
    (no BDD is built), else from the knowledge structure's BDDs."""
    from kwartet_epistemic.epistemics.symbolic import shortcut_holds

    answer = shortcut_holds(state, f)
    if answer is not None:
        return answer
    return bool(state._symbolic().holds(f))
