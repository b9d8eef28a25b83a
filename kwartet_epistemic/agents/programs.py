"""Knowledge-based programs: an agent written as ordered (epistemic condition, ask) rules.

A rule pairs a condition in the formula language with an action ``ask P CARD``, where
``P`` and ``CARD`` are names or variables such as ``?p`` and ``?c``::

    ("K_me has(?p, ?c) & need(?c)", "ask ?p ?c")

The first rule whose condition holds for some binding of its variables fires; among its
bindings that make a legal ask, one is chosen uniformly at random.  If no rule fires the
agent asks at random.  Formulas are parsed into trees and interpreted here: no text is
ever evaluated as Python.

Conditions are evaluated in the agent's local state (what it can know):

* ``me`` names the agent, also as a modal index: ``K_me``, ``M_me``, ``Kw_me``;
* ``K_me φ`` / ``M_me φ`` for φ built from ``has(P, c)`` with ``& | ~ -> <->``: read off
  the agent's knowledge (exact knowledge decides every such φ exactly; a fact list
  decides literals and conjunctions, and a disjunction only when one side is known);
* ``has(me, c)`` (the own hand), ``need(c)`` (a card it may ask for and lacks),
  ``opponent(P)`` (another player who holds cards) and ``asked(P, c)`` (somebody asked
  P for c earlier): facts the agent sees directly;
* other agents' knowledge (``K_B ...``), E, C, D and announcements go to the library's
  epistemic state of the view (exact; nested operators need the explicit engine, so
  small decks, or the symbolic engine when available);
* a bare ``has(B, c)`` about another player's hand is refused: the agent cannot see it.

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.agents.knowledge import ExactKnowledge
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> _ = game.ask("B", "7D"); _ = game.ask("A", "7C")     # two refusals: A to move
>>> view = game.view("A")
>>> knowledge = ExactKnowledge("A"); knowledge.update(view)
>>> OWNER_PROGRAM.choose(view, knowledge, view.legal_asks(), np.random.default_rng(0))
Ask('A', 'C', '7C')
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np

from kwartet_epistemic.agents.knowledge import ExactKnowledge
from kwartet_epistemic.agents.policies import Policy, Situation
from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.events import Asked
from kwartet_epistemic.game import Ask
from kwartet_epistemic.logic import (
    And,
    Atom,
    Bottom,
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

__all__ = [
    "GREEDY_PROGRAM",
    "OWNER_PROGRAM",
    "KnowledgeProgram",
    "ProgramError",
    "Rule",
]

_PREDICATES = {"has": ("player", "card"), "need": ("card",), "opponent": ("player",),
               "asked": ("player", "card")}  # fmt: skip
_ACTION = re.compile(r"^\s*ask\s+(\S+)\s+(\S+)\s*$", re.IGNORECASE)


class ProgramError(KwartetError):
    """A knowledge-based program that cannot be run: bad rule text, an untyped or
    ill-typed variable, or a condition the agent cannot evaluate."""


def _rename_me(formula: Formula, player: str) -> Formula:
    """``formula`` with the name ``me`` replaced by ``player``, in atoms and modal indices."""

    def rebuild(node: Formula, children: list[Formula]) -> Formula:
        if isinstance(node, Atom):
            return node.substitute({"me": player})
        if isinstance(node, K | M | Kw):
            agent = player if node.agent == "me" else node.agent
            return type(node)(agent, children[0])
        return node.rebuild(children) if children else node

    return formula.fold(rebuild)


@dataclass(frozen=True)
class Rule:
    """One rule: when ``condition`` holds, ask ``target`` for ``card`` (names or variables).

    >>> rule = Rule.parse("K_me has(?p, ?c) & need(?c)", "ask ?p ?c")
    >>> rule.target, rule.card, sorted(rule.variables)
    ('?p', '?c', ['?c', '?p'])
    >>> Rule.parse("need(?c)", "take ?c")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.agents.programs.ProgramError: action 'take ?c': expected 'ask PLAYER CARD', e.g. 'ask ?p ?c'
    """

    condition: Formula
    target: str
    card: str

    @classmethod
    def parse(cls, condition: str | Formula, action: str) -> Rule:
        """A rule from condition text (or a Formula) and action text ``ask P CARD``."""
        formula = parse(condition) if isinstance(condition, str) else condition
        if not isinstance(formula, Formula):
            raise ProgramError(f"condition {condition!r}: expected formula text or a Formula")
        match = _ACTION.match(action) if isinstance(action, str) else None
        if match is None:
            raise ProgramError(f"action {action!r}: expected 'ask PLAYER CARD', e.g. 'ask ?p ?c'")
        rule = cls(formula, match.group(1), match.group(2))
        rule.types()  # refuse ill-typed variables now, not mid-game
        return rule

    @property
    def variables(self) -> frozenset[str]:
        """Every ``?variable`` of the condition and the action."""
        names = set(self.condition.variables())
        names.update(x for x in (self.target, self.card) if x.startswith("?"))
        return frozenset(names)

    def types(self) -> dict[str, str]:
        """Each variable's type, ``player`` or ``card``, from where it is used."""
        types: dict[str, str] = {}

        def note(name: str, kind: str, where: str) -> None:
            if not name.startswith("?"):
                return
            if types.setdefault(name, kind) != kind:
                raise ProgramError(
                    f"variable {name} is used as a {types[name]} and as a {kind} (in {where})"
                )

        note(self.target, "player", "the action")
        note(self.card, "card", "the action")
        for atom in self.condition.atoms():
            predicate = atom.predicate or atom.name
            if predicate not in _PREDICATES:
                raise ProgramError(
                    f"atom {formula_excerpt(atom)} in a rule: expected one of "
                    + ", ".join(f"{p}({', '.join(a)})" for p, a in _PREDICATES.items())
                )
            kinds = _PREDICATES[predicate]
            if len(atom.arguments) != len(kinds):
                raise ProgramError(
                    f"atom {formula_excerpt(atom)}: {predicate} takes {len(kinds)} argument(s)"
                )
            for argument, kind in zip(atom.arguments, kinds, strict=True):
                note(argument, kind, str(atom))
        return types

    def __str__(self) -> str:
        return f"({self.condition}, ask {self.target} {self.card})"


class _Context:
    """What the conditions of one decision are evaluated against."""

    def __init__(self, situation: Situation) -> None:
        self.situation = situation
        self.view = situation.view
        self.me = situation.me
        self.deck = situation.view.deck
        self.own = situation.own
        self.needed = {a.card.index for a in situation.asks if a.card.index not in situation.own}
        self.active = {p for p in self.view.players if p != self.me and self.view.hand_sizes[p]}
        self.asked = {(e.target, e.card.index) for e in self.view.record if type(e) is Asked}
        self._matrix: np.ndarray | None = None
        self._state: Any = None
        self._truths: dict[Formula, bool] = {}
        self._known: dict[tuple[Formula, bool], bool] = {}

    @property
    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            self._matrix = self.situation.knowledge.probabilities()
        return self._matrix

    def exact_state(self, formula: Formula) -> Any:
        """The library's epistemic state of the view (exact knowledge only)."""
        if not isinstance(self.situation.knowledge, ExactKnowledge):
            raise ProgramError(
                f"condition {formula_excerpt(formula)}: only exact knowledge can evaluate it (it "
                "concerns "
                f"another agent's knowledge or a disjunction {self.me} does not know a side of)"
            )
        if self._state is None:
            from kwartet_epistemic.epistemics import knowledge

            self._state = knowledge(self.view)
        return self._state

    def card(self, text: str) -> int:
        return self.deck.card(text).index

    def player(self, name: str) -> str:
        if name not in self.view.players:
            raise ProgramError(
                f"{name!r} is not a player; players are {', '.join(self.view.players)}"
            )
        return name

    # ----- truth in the agent's local state ----------------------------------------
    #
    # truth and knows call each other as a recursion would; they run as generators on
    # an explicit stack (logic._trampoline.run), so a condition of any depth is read,
    # and each (part, sign) is worked out once per decision.

    def truth(self, f: Formula) -> bool:
        return run(self._truth(f))

    def knows(self, f: Formula, positive: bool = True) -> bool:
        """Whether the agent knows ``f`` (or ``~f`` when not ``positive``)."""
        return run(self._knows(f, positive))

    def atom(self, f: Atom) -> bool:
        predicate, arguments = f.predicate, f.arguments
        if predicate == "has":
            player, card = self.player(arguments[0]), self.card(arguments[1])
            if player != self.me:
                raise ProgramError(
                    f"{f} is about {player}'s hand, which {self.me} cannot see: write "
                    f"K_me {f} or M_me {f}"
                )
            return card in self.own
        if predicate == "need":
            return self.card(arguments[0]) in self.needed
        if predicate == "opponent":
            return self.player(arguments[0]) in self.active
        if predicate == "asked":
            return (self.player(arguments[0]), self.card(arguments[1])) in self.asked
        raise ProgramError(f"atom {f}: unknown predicate")  # pragma: no cover - typed earlier

    def _truth(self, f: Formula) -> Step[bool]:
        known = self._truths.get(f)
        if known is not None:
            return known
        value: bool
        if isinstance(f, Top):
            value = True
        elif isinstance(f, Bottom):
            value = False
        elif isinstance(f, Atom):
            value = self.atom(f)
        elif isinstance(f, Not):
            value = not (yield self._truth(f.operand))
        elif isinstance(f, And):
            value = bool((yield self._truth(f.left)) and (yield self._truth(f.right)))
        elif isinstance(f, Or):
            value = bool((yield self._truth(f.left)) or (yield self._truth(f.right)))
        elif isinstance(f, Implies):
            value = bool((not (yield self._truth(f.left))) or (yield self._truth(f.right)))
        elif isinstance(f, Iff):
            value = (yield self._truth(f.left)) == (yield self._truth(f.right))
        elif isinstance(f, K | M | Kw) and f.agent == self.me:
            if isinstance(f, K):
                value = yield self._knows(f.operand, True)
            elif isinstance(f, M):
                value = not (yield self._knows(f.operand, False))
            else:
                value = bool(
                    (yield self._knows(f.operand, True)) or (yield self._knows(f.operand, False))
                )
        else:
            value = bool(self.exact_state(f).holds(f))
        self._truths[f] = value
        return value

    def _knows(self, f: Formula, positive: bool) -> Step[bool]:
        key = (f, positive)
        known = self._known.get(key)
        if known is not None:
            return known
        value: bool
        if isinstance(f, Top | Bottom):
            value = isinstance(f, Top) == positive
        elif isinstance(f, Not):
            value = yield self._knows(f.operand, not positive)
        elif isinstance(f, Atom):
            if f.predicate != "has":
                value = self.atom(f) == positive  # seen directly: known either way
            else:
                player, card = self.player(f.arguments[0]), self.card(f.arguments[1])
                chance = self.matrix[card, self.view.players.index(player)]
                value = bool(chance == 1.0 if positive else chance == 0.0)
        elif isinstance(f, Iff):
            both = Or(And(f.left, f.right), And(Not(f.left), Not(f.right)))
            value = yield self._knows(both, positive)
        elif isinstance(f, And | Or | Implies):
            # a -> b is ~a | b: a disjunction whose left side has the other sign.
            left_sign = not positive if isinstance(f, Implies) else positive
            conjunctive = isinstance(f, And) == positive
            left = yield self._knows(f.left, left_sign)
            right = yield self._knows(f.right, positive)
            if conjunctive:
                value = left and right
            elif left or right:
                value = True
            else:
                # Neither side known alone: only counting worlds can tell.
                whole: Formula = f if positive else Not(f)
                value = bool(self.exact_state(whole).holds(K(self.me, whole)))
        elif isinstance(f, K | M | Kw) and f.agent == self.me:
            # Introspection (S5): the agent knows what it knows and what it does not.
            value = (yield self._truth(f)) == positive
        else:
            other: Formula = f if positive else Not(f)
            value = bool(self.exact_state(other).holds(K(self.me, other)))
        self._known[key] = value
        return value


@dataclass(frozen=True)
class KnowledgeProgram(Policy):
    """A policy given as ordered rules (see the module text); ``name`` is for display.

    >>> program = KnowledgeProgram.from_rules([("K_me has(?p, ?c) & need(?c)", "ask ?p ?c")])
    >>> len(program.rules), program.name
    (1, 'program')
    """

    rules: tuple[Rule, ...]
    name: str = "program"

    @classmethod
    def from_rules(
        cls, rules: Iterable[tuple[str | Formula, str] | Rule], name: str = "program"
    ) -> KnowledgeProgram:
        """A program from ``(condition, action)`` pairs (or :class:`Rule` values)."""
        parsed = []
        for number, item in enumerate(rules, start=1):
            if isinstance(item, Rule):
                parsed.append(item)
                continue
            if not isinstance(item, tuple) or len(item) != 2:
                raise ProgramError(f"rule {number} {item!r}: expected a (condition, action) pair")
            try:
                parsed.append(Rule.parse(*item))
            except KwartetError as err:
                raise ProgramError(f"rule {number}: {err}") from None
        if not parsed:
            raise ProgramError("a knowledge-based program needs at least one rule")
        return cls(tuple(parsed), name)

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        context = _Context(situation)
        for rule in self.rules:
            firing = self._firing(rule, situation, context)
            if firing:
                return firing[int(rng.integers(len(firing)))]
        return situation.asks[int(rng.integers(len(situation.asks)))]

    def _firing(self, rule: Rule, situation: Situation, context: _Context) -> list[Ask]:
        """The legal asks that ``rule`` makes under some binding satisfying its condition."""
        me = situation.me
        condition = _rename_me(rule.condition, me)
        target = me if rule.target == "me" else rule.target
        card_text = rule.card
        types = rule.types()
        extra = sorted(v for v in types if v not in (target, card_text))
        domains = {
            "player": list(situation.view.players),
            "card": [
                c.code
                for c in situation.view.deck.cards
                if situation.view.deck.families[c.family_index] not in situation.view.exposed
            ],
        }
        firing = []
        for ask in situation.asks:
            if not target.startswith("?") and ask.target != target:
                continue
            if not card_text.startswith("?") and situation.view.deck.card(card_text) != ask.card:
                continue
            base = {}
            if target.startswith("?"):
                base[target] = ask.target
            if card_text.startswith("?"):
                base[card_text] = ask.card.code
            for values in product(*(domains[types[v]] for v in extra)):
                bindings = dict(base, **dict(zip(extra, values, strict=True)))
                if context.truth(condition.substitute(bindings)):
                    firing.append(ask)
                    break
        return firing


OWNER_PROGRAM = KnowledgeProgram.from_rules(
    [
        ("K_me has(?p, ?c) & need(?c)", "ask ?p ?c"),
        ("M_me has(?p, ?c) & need(?c)", "ask ?p ?c"),
    ],
    name="owner_program",
)
"""The ``owner`` strategy as a program: a known holder, else a possible holder."""

GREEDY_PROGRAM = KnowledgeProgram.from_rules(
    [
        ("K_me has(?p, ?c) & need(?c)", "ask ?p ?c"),
        ("opponent(?p) & need(?c)", "ask ?p ?c"),
    ],
    name="greedy_program",
)
"""The ``greedy`` strategy as a program: a known holder, else any card it needs."""
