"""The law of a position as a CNF formula in DIMACS form, for general model counters.

:func:`law_cnf` writes the worlds of a position (the public ones, or those a player
considers possible) as a propositional formula whose models are exactly the worlds the
counting engine (:class:`~kwartet_epistemic.epistemics.counting.WorldCounter`) counts:
the same number, and the same marginals.  Exact counters (d-DNNF and SDD compilers,
#SAT solvers such as Ganak) and approximate ones with guarantees (ApproxMC) can then
count them, as baselines for the counting engine.

The encoding:

- *primary variables* ``x(c, s)``: card c came from slot s (a hand, a draw, a pile), one
  for each slot the record and the viewers' own cards still allow (as the symbolic
  engine's ``o_c_s``); a card with one possible origin gets none (it is a constant);
- exactly one origin per card: one clause "at least one", and "at most one" pairwise
  (no auxiliary variable);
- the family clauses of the record: "some card of the family is with the player" is one
  clause; "not all of them are" is one clause too, because with exactly one origin per
  card "not from a slot of the mask" is "from one of the card's other slots"; "all or
  none" (Memory Kwartet) is a clause per ordered pair of cards;
- each slot holds exactly its capacity: a sequential counter (Sinz) per slot whose
  auxiliary variable ``r(i, j)`` is *defined* (both directions) as "at least j of the
  slot's first i variables are true";
- where cards lie face down out of play while the game goes on, some unexposed family
  has none of its cards there (the counting engine's dead-card correction), with one
  defined variable per family;
- Memory Kwartet: at every moment of :meth:`PublicHistory.stuck_facts` the player could
  ask (the counting engine's inclusion-exclusion over stuck moments, as one clause per
  moment), with defined variables where a family's part of it is a conjunction.

Every auxiliary variable is defined by an equivalence with primary ones, so each
assignment of the primary variables that satisfies the law extends to exactly one
model: the plain model count equals the count projected on the primary variables
(``c p show`` / ``c ind``), and both are the counting engine's count.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
>>> law = law_cnf(game)
>>> law.n_vars, len(law.clauses), len(law.primary)
(97, 301, 24)
>>> law.to_dimacs().splitlines()[3:5]
['p cnf 97 301', 'c p show 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 0']
>>> len(law.models()) == kw.knowledge(game).count_worlds() == 560
True
"""

from __future__ import annotations

import importlib
import itertools
import math
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from kwartet_epistemic.epistemics.counting.counter import viewer_masks
from kwartet_epistemic.epistemics.history import (
    IGNORED,
    Clause,
    PrivateInfo,
    PublicHistory,
    private_info,
)
from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.game import Game, PlayerView

__all__ = [
    "CnfLaw",
    "CnfLawError",
    "compile_sdd",
    "count_with_approxmc",
    "count_with_ganak",
    "count_with_sdd",
    "law_cnf",
    "sdd_model_count",
]

# A literal of the encoding, or a constant: True and False are tested by identity (a
# bool is an int in Python, and 1 is also the first variable).
_Lit = int | bool
_ENUMERATION_LIMIT = 200_000  # models() tries at most this many choices of origins


class CnfLawError(KwartetError):
    """An input :func:`law_cnf` cannot write as a CNF law (what it got, and what it
    expects, are in the message)."""


@dataclass(frozen=True)
class CnfLaw:
    """A position's law as a CNF formula over variables ``1..n_vars``.

    ``clauses`` are tuples of nonzero literals (DIMACS signs); ``primary`` the origin
    variables, ``1..len(primary)``, on which the count is projected; ``origin`` maps
    each of them to ``(card index, slot)`` and ``variables`` back; ``fixed`` maps each
    card with one possible origin to its slot.  ``slot_names``, ``slot_owner``, ``players`` and ``location``
    (where each publicly seen card is now, else None) are the history's, and let the
    models be read as worlds and as who holds what.
    """

    n_vars: int
    clauses: tuple[tuple[int, ...], ...]
    primary: tuple[int, ...]
    origin: Mapping[int, tuple[int, int]]
    fixed: Mapping[int, int]
    cards: tuple[str, ...]
    players: tuple[str, ...]
    slot_names: tuple[str, ...]
    slot_owner: tuple[str | None, ...]
    location: tuple[str | None, ...]
    variables: Mapping[tuple[int, int], int]
    description: str = ""

    def var(self, card: int, slot: int) -> int | bool:
        """The variable of "``card`` came from ``slot``", or True / False where that is
        settled (the card's only origin, or a slot it cannot come from)."""
        found = self.variables.get((card, slot))
        if found is not None:
            return found
        return self.fixed.get(card) == slot

    def holds(self, card: int, player: str) -> tuple[int, ...] | bool:
        """ "``player`` holds ``card`` now" as a clause (the primary variables of the card's
        origins in the player's slots: their hand and draws), or True / False where the
        record settles it (a card seen is with its holder; exposed and piled cards with
        nobody)."""
        if player not in self.players:
            raise CnfLawError(f"player {player!r}: expected one of {', '.join(self.players)}")
        where = self.location[card]
        if where is not None:
            return where == player
        literals: list[int] = []
        for s, owner in enumerate(self.slot_owner):
            if owner != player:
                continue
            lit = self.var(card, s)
            if lit is True:
                return True
            if lit is not False:
                literals.append(int(lit))
        return tuple(literals) if literals else False

    def assuming(self, *clauses: Sequence[int]) -> CnfLaw:
        """The same law with more clauses (e.g. ``law.assuming(law.holds(c, p))`` counts
        the worlds in which p holds c: a marginal)."""
        extra = tuple(tuple(int(x) for x in clause) for clause in clauses)
        for clause in extra:
            if not clause or any(x == 0 or abs(x) > self.n_vars for x in clause):
                raise CnfLawError(
                    f"clause {list(clause)!r}: expected nonzero literals of variables 1 to "
                    f"{self.n_vars}"
                )
        return replace(self, clauses=self.clauses + extra)

    def to_dimacs(self, *, projected: bool = True, names: bool = False) -> str:
        """The law as DIMACS CNF text: ``p cnf`` and the clauses, preceded (``projected``)
        by the primary variables as the projection, in both the model counting
        competition's form (``c t pmc``, ``c p show ... 0``: Ganak, d4) and ApproxMC's
        (``c ind ... 0``); ``names`` adds a comment line per primary variable saying
        which card and slot it stands for."""
        lines = [f"c {self.description or 'kwartet_epistemic law'}"]
        lines.append("c t pmc" if projected else "c t mc")
        lines.append(
            f"c {len(self.primary)} primary variables (card origins), "
            f"{self.n_vars - len(self.primary)} defined auxiliary variables"
        )
        lines.append(f"p cnf {self.n_vars} {len(self.clauses)}")
        if projected:
            shown = " ".join(str(v) for v in self.primary)
            lines.append(f"c p show {shown} 0".replace("  ", " "))
            lines.append(f"c ind {shown} 0".replace("  ", " "))
        if names:
            for v in self.primary:
                card, slot = self.origin[v]
                lines.append(f"c var {v} {self.cards[card]} from {self.slot_names[slot]}")
        lines.extend(" ".join(str(x) for x in clause) + " 0" for clause in self.clauses)
        return "\n".join(lines) + "\n"

    def world(self, model: Iterable[int]) -> dict[int, int]:
        """The world of a model (its true variables, or its literals): card -> origin
        slot, as :meth:`WorldCounter.sample` gives one."""
        world = dict(self.fixed)
        for lit in model:
            if lit > 0 and lit in self.origin:
                card, slot = self.origin[lit]
                world[card] = slot
        return world

    def location_table(self, origin_table: np.ndarray, count: int) -> np.ndarray:
        """``[n_cards, n_players]`` counts of the worlds in which each player holds each
        card now, from ``[n_cards, n_slots]`` counts of the worlds in which each card came
        from each slot and their number: what
        :meth:`WorldCounter.location_table` answers."""
        result = np.zeros((len(self.cards), len(self.players)), dtype=object)
        for s, owner in enumerate(self.slot_owner):
            if owner is not None:
                q = self.players.index(owner)
                for c in range(len(self.cards)):
                    result[c, q] += int(origin_table[c, s])
        for c, where in enumerate(self.location):
            if where is not None:
                result[c] = 0
                if where in self.players:
                    result[c, self.players.index(where)] = count
        return result

    def models(self, limit: int = _ENUMERATION_LIMIT) -> list[frozenset[int]]:
        """Every model, as its set of true variables, for small laws and tests: each
        choice of one origin per card (at most ``limit`` choices) is extended by unit
        propagation (the auxiliary variables are defined) and kept if it satisfies every
        clause.  Assignments with no origin or two for some card violate the law's
        "exactly one" clauses, so none is left out."""
        choices = math.prod(max(1, len(self.slots_of(c))) for c in range(len(self.cards)))
        if choices > limit:
            raise CnfLawError(
                f"models() of a law with {choices:,} choices of origins: expected at most "
                f"{limit:,} (count with a model counter instead)"
            )
        per_card = [
            [self.variables[(c, s)] for s in self.slots_of(c)]
            for c in range(len(self.cards))
            if c not in self.fixed
        ]
        found = []
        for chosen in itertools.product(*per_card):
            true = set(chosen)
            value = {v: v in true for v in self.primary}
            extended = _propagate(self.clauses, value, self.n_vars)
            if extended is not None:
                found.append(frozenset(v for v, on in extended.items() if on))
        return found

    def slots_of(self, card: int) -> list[int]:
        """The slots ``card`` may have come from (one for a fixed card)."""
        if card in self.fixed:
            return [self.fixed[card]]
        return sorted(s for (c, s) in self.variables if c == card)


def _propagate(
    clauses: Sequence[tuple[int, ...]], value: dict[int, bool], n_vars: int
) -> dict[int, bool] | None:
    """The extension of ``value`` by unit propagation that satisfies every clause, or
    None if there is none; a :class:`CnfLawError` if variables stay open (not a law
    made here: its auxiliary variables are all defined)."""
    changed = True
    while changed:
        changed = False
        for clause in clauses:
            open_literal = 0
            n_open = 0
            for lit in clause:
                known = value.get(abs(lit))
                if known is None:
                    open_literal = lit
                    n_open += 1
                elif known == (lit > 0):
                    break
            else:
                if n_open == 0:
                    return None
                if n_open == 1:
                    value[abs(open_literal)] = open_literal > 0
                    changed = True
    if len(value) != n_vars:
        raise CnfLawError("models(): unit propagation left variables open")
    return value


def _tool(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"{module} is not installed: pip install 'kwartet_epistemic[baselines]'"
        ) from error


def count_with_ganak(law: CnfLaw, *, projected: bool = True) -> int:
    """The law's exact model count by Ganak (``pyganak``, extra ``baselines``), projected
    on the primary variables (``projected``) or over every variable: the same number, the
    auxiliary variables being defined.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> count_with_ganak(law_cnf(game))  # doctest: +SKIP
    560
    """
    counter = _tool("pyganak").Counter()
    counter.new_vars(law.n_vars)
    counter.add_clauses([list(clause) for clause in law.clauses])
    if projected:
        counter.set_sampling_set(list(law.primary))
    return int(counter.count())


def count_with_approxmc(
    law: CnfLaw, *, epsilon: float = 0.8, delta: float = 0.2, seed: int = 1
) -> int:
    """ApproxMC's estimate of the law's model count (``pyapproxmc``, extra
    ``baselines``), projected on the primary variables: with probability at least
    ``1 - delta`` it lies within a factor ``1 + epsilon`` of the count (ApproxMC's
    guarantee)."""
    counter = _tool("pyapproxmc").Counter(epsilon=epsilon, delta=delta, seed=seed)
    counter.add_clauses([list(clause) for clause in law.clauses])
    cells, hashes = counter.count(list(law.primary))
    return int(cells) * 2 ** int(hashes)


def compile_sdd(law: CnfLaw, *, vtree: str = "balanced") -> tuple[Any, Any]:
    """The law compiled into a sentential decision diagram by the SDD package's own CNF
    compiler (``pysdd``, extra ``baselines``) over a ``vtree`` of that type
    (``"balanced"``, ``"right"``, ...): ``(manager, root)``."""
    sdd = _tool("pysdd.sdd")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "law.cnf")
        # The SDD package fails on a formula without variables (every card's origin
        # settled): one variable, forced true, has the same single model.
        text = law.to_dimacs(projected=False) if law.n_vars else "p cnf 1 1\n1 0\n"
        with open(path, "w", encoding="ascii") as handle:
            handle.write(text)
        return sdd.SddManager.from_cnf_file(path.encode(), vtree.encode())


def sdd_model_count(manager: Any, root: Any) -> int:
    """The exact model count of an SDD over its manager's variables, in Python integers
    (the SDD package counts in 64 bits, which a 52-card deal overflows): a decision node
    normalised for vtree node v counts the sum over its elements of the prime's count
    over v's left variables times the sub's over its right ones, a node normalised for a
    vtree node below w counts 2^(variables of w not below it) times more over w."""
    counts: dict[int, int] = {}

    def over(node: Any, vtree: Any) -> int:
        if node.is_true():
            return 2 ** vtree.var_count()
        if node.is_false():
            return 0
        own = 1 if node.is_literal() else counts[node.id]
        return own * 2 ** (vtree.var_count() - node.vtree().var_count())

    stack = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if node.is_true() or node.is_false() or node.is_literal() or node.id in counts:
            continue
        elements = node.elements()
        if not ready:
            stack.append((node, True))
            for prime, sub in elements:
                stack.append((prime, False))
                stack.append((sub, False))
            continue
        where = node.vtree()
        left, right = where.left(), where.right()
        counts[node.id] = sum(over(p, left) * over(s, right) for p, s in elements)
    return over(root, manager.vtree())


def count_with_sdd(law: CnfLaw, *, vtree: str = "balanced") -> int:
    """The law's exact model count through an SDD (:func:`compile_sdd`, then
    :func:`sdd_model_count`): over every variable, which equals the projected count (the
    auxiliary variables are defined)."""
    manager, root = compile_sdd(law, vtree=vtree)
    return sdd_model_count(manager, root)


class _Builder:
    """Numbers variables and collects clauses, dropping False literals and clauses a
    True literal satisfies."""

    def __init__(self) -> None:
        self.n_vars = 0
        self.clauses: list[tuple[int, ...]] = []
        self.unsat = False

    def new(self) -> int:
        self.n_vars += 1
        return self.n_vars

    def clause(self, *literals: _Lit) -> None:
        kept: list[int] = []
        for lit in literals:
            if lit is True:
                return
            if lit is not False:
                kept.append(int(lit))
        if not kept:
            self.unsat = True
            return
        self.clauses.append(tuple(dict.fromkeys(kept)))

    def define_or(self, literals: Sequence[int]) -> int:
        """A new variable defined as the disjunction of ``literals`` (at least two)."""
        a = self.new()
        self.clause(-a, *literals)
        for lit in literals:
            self.clause(a, -lit)
        return a


def law_cnf(
    source: Game | PlayerView | PublicHistory,
    viewer: str | PrivateInfo | Sequence[str | PrivateInfo] | None = None,
) -> CnfLaw:
    """The law of a position as a CNF formula (:class:`CnfLaw`): its models are exactly
    the worlds :class:`~kwartet_epistemic.epistemics.counting.WorldCounter` counts for
    ``source`` (a game, a player's view, or a public history) as ``viewer`` sees them.

    ``viewer``: None for the public worlds (on a player's view: that player), a player's
    name (on a game or that player's view), a :class:`PrivateInfo` (on any source), or a
    sequence of these (their information pooled: distributed knowledge).

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> _ = game.ask("B", "7S")
    >>> mine = law_cnf(game, "A")
    >>> len(mine.models()) == kw.knowledge(game).count_worlds("A")
    True
    >>> law_cnf(game, "Z")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.interop.cnf.CnfLawError: viewer 'Z': expected one of A, B, C, a PrivateInfo, or a sequence of these
    """
    history, infos = _history_and_viewers(source, viewer)
    return _encode(history, infos)


def _history_and_viewers(
    source: Game | PlayerView | PublicHistory,
    viewer: str | PrivateInfo | Sequence[str | PrivateInfo] | None,
) -> tuple[PublicHistory, tuple[PrivateInfo, ...]]:
    if isinstance(source, Game | PlayerView):
        history = PublicHistory(source.deck, source.players, source.rules)
        history.extend(source.record)
    elif isinstance(source, PublicHistory):
        history = source
    else:
        raise CnfLawError(
            f"law_cnf of {type(source).__name__}: expected a Game, a PlayerView or a PublicHistory"
        )
    if viewer is None:
        wanted: list[str | PrivateInfo] = [source.player] if isinstance(source, PlayerView) else []
    elif isinstance(viewer, str | PrivateInfo):
        wanted = [viewer]
    else:
        wanted = list(viewer)
    infos: list[PrivateInfo] = []
    for item in wanted:
        if isinstance(item, PrivateInfo):
            if item.player not in history.players:
                raise CnfLawError(
                    f"viewer {item.player!r}: expected one of {', '.join(history.players)}"
                )
            infos.append(item)
            continue
        if not isinstance(item, str) or item not in history.players:
            raise CnfLawError(
                f"viewer {item!r}: expected one of {', '.join(history.players)}, a "
                "PrivateInfo, or a sequence of these"
            )
        if isinstance(source, Game):
            view = source.view(item)
        elif isinstance(source, PlayerView) and item == source.player:
            view = source
        else:
            what = "a public history" if isinstance(source, PublicHistory) else "this view"
            raise CnfLawError(
                f"viewer {item!r}: {what} does not show {item}'s hand; pass a Game, "
                f"{item}'s own view, or {item}'s PrivateInfo"
            )
        infos.append(private_info(history.deck, item, view.hand, view.record))
    return history, tuple(infos)


def _check_draws(history: PublicHistory, infos: Sequence[PrivateInfo]) -> None:
    """Refuse a viewer whose private draws the record does not hold."""
    for info in infos:
        for number, _ in info.draws:
            if number >= len(history.draw_slots):
                raise CnfLawError(
                    f"viewer {info.player!r}: draw {number} is not in the record "
                    f"({len(history.draw_slots)} draws)"
                )


class _Origins:
    """The primary variables: per card the slots it may come from, a variable for each
    where there are several."""

    def __init__(self, build: _Builder, options: list[list[int]]) -> None:
        self.options = options
        self.var_of: dict[tuple[int, int], int] = {}
        self.origin: dict[int, tuple[int, int]] = {}
        self.fixed: dict[int, int] = {}
        for c, slots in enumerate(options):
            if len(slots) == 1:
                self.fixed[c] = slots[0]
            elif not slots:
                build.unsat = True
            else:
                for s in slots:
                    v = build.new()
                    self.var_of[(c, s)] = v
                    self.origin[v] = (c, s)

    def inside(self, c: int, mask: int) -> _Part:
        """ "Card c came from a slot of ``mask``" as a disjunction of primary variables,
        or a constant."""
        slots = self.options[c]
        hits = [s for s in slots if mask >> s & 1]
        if not hits:
            return False
        if len(hits) == len(slots):
            return True
        return [self.var_of[(c, s)] for s in hits]

    def outside(self, c: int, mask: int) -> _Part:
        """ "Card c did not come from a slot of ``mask``": with exactly one origin per
        card, it came from one of its other slots (a disjunction again)."""
        return self.inside(c, ~mask)


_Part = list[int] | bool
"""A disjunction of literals, or a constant."""


def _disjunction(parts: Iterable[_Part]) -> _Part:
    literals: list[int] = []
    for part in parts:
        if part is True:
            return True
        if part is not False:
            literals.extend(part)
    return literals if literals else False


def _literals(part: _Part) -> list[_Lit]:
    return [part] if isinstance(part, bool) else list(part)


def _encode(history: PublicHistory, infos: Sequence[PrivateInfo]) -> CnfLaw:
    deck = history.deck
    n_cards = len(deck)
    n_slots = len(history.capacity)
    _check_draws(history, infos)
    # The viewers' own cards from their own slots, every other card from none of them:
    # the counting engine's reading of a viewer.
    masks = viewer_masks(history, tuple(infos)) if infos else (-1,) * n_cards
    options = [
        [s for s in range(n_slots) if (history.allowed[c] & masks[c]) >> s & 1]
        for c in range(n_cards)
    ]
    build = _Builder()
    cards = _Origins(build, options)
    capacity = list(history.capacity)
    for slot in cards.fixed.values():
        capacity[slot] -= 1
    primary = tuple(range(1, build.n_vars + 1))
    # Exactly one origin per card that has a choice.
    for c in range(n_cards):
        if len(options[c]) > 1:
            own = [cards.var_of[(c, s)] for s in options[c]]
            build.clause(*own)
            for a, b in itertools.combinations(own, 2):
                build.clause(-a, -b)
    # The family clauses of the record.
    for f in range(deck.n_families):
        for clause in sorted(history.clauses[f], key=lambda c: (c.kind, c.conditions)):
            _family_clause(build, cards, clause, 4 * f)
    # Every slot holds exactly its capacity (the fixed cards taken out).
    for s in range(n_slots):
        members = [cards.var_of[(c, s)] for c in range(n_cards) if (c, s) in cards.var_of]
        _exactly(build, members, capacity[s])
    if history.game_goes_on_with_dead_cards():
        _some_family_alive(build, cards, history)
    # Memory Kwartet: at each of these moments the player could ask.
    for facts in history.stuck_facts():
        could: list[_Lit] = []
        for f, kind, conditions in facts:
            held = [(4 * f + i, m) for i, m in enumerate(conditions) if m != IGNORED]
            if not held:
                continue
            some = _disjunction(cards.inside(c, m) for c, m in held)
            if kind == "none":  # they could ask for this family: they hold a card of it
                could.extend(_literals(some))
            else:  # face-up cards of it: they hold some of its hidden cards, not all
                lacking = _disjunction(cards.outside(c, m) for c, m in held)
                could.append(_define_both(build, some, lacking))
        build.clause(*could)
    if build.unsat:
        # No world: one variable both true and false (an empty clause is not something
        # every counter reads).
        v = build.new()
        build.clauses += [(v,), (-v,)]
    described = f"{n_cards} cards, {len(history.players)} players, {n_slots} slots"
    if infos:
        described += ", as " + " and ".join(i.player for i in infos) + " see it"
    return CnfLaw(
        n_vars=build.n_vars,
        clauses=tuple(build.clauses),
        primary=primary,
        origin=cards.origin,
        fixed=cards.fixed,
        variables=cards.var_of,
        cards=tuple(card.code for card in deck.cards),
        players=tuple(history.players),
        slot_names=tuple(history.slot_names),
        slot_owner=tuple(history.slot_owner),
        location=tuple(history.location),
        description=f"kwartet_epistemic law: {described}",
    )


def _family_clause(build: _Builder, cards: _Origins, clause: Clause, first: int) -> None:
    held = [(first + i, m) for i, m in enumerate(clause.conditions) if m != IGNORED]
    if clause.kind == "some":
        build.clause(*_literals(_disjunction(cards.inside(c, m) for c, m in held)))
    elif clause.kind == "notall":
        build.clause(*_literals(_disjunction(cards.outside(c, m) for c, m in held)))
    else:  # all or none: whichever card is with the player, every other one is too
        for (c, m), (d, n) in itertools.permutations(held, 2):
            build.clause(*_literals(_disjunction([cards.outside(c, m), cards.inside(d, n)])))


def _some_family_alive(build: _Builder, cards: _Origins, history: PublicHistory) -> None:
    """While the game goes on with cards face down out of play, some unexposed family
    has none of its cards there (else nobody could complete one): one clause over a
    defined variable per family ("none of its cards is out of play")."""
    dead = history.dead_slots
    alive: list[_Lit] = []
    for f in range(history.deck.n_families):
        if f in history.exposed_families:
            continue
        family = range(4 * f, 4 * f + 4)
        parts = [cards.outside(c, dead) for c in family]
        if any(p is False for p in parts):
            continue  # a card of it surely lies out of play
        open_parts = [p for p in parts if isinstance(p, list)]
        if not open_parts:
            return  # none of its cards can lie out of play: always true
        y = build.new()
        for part in open_parts:
            build.clause(-y, *part)
        # Not y: some card lies out of play (the negation of "elsewhere", one origin each).
        build.clause(y, *_literals(_disjunction(cards.inside(c, dead) for c in family)))
        alive.append(y)
    build.clause(*alive)


def _define_both(build: _Builder, a: _Part, b: _Part) -> _Lit:
    """A literal for "disjunction ``a`` and disjunction ``b``", defined."""
    if a is False or b is False:
        return False
    if a is True or b is True:
        rest = b if a is True else a
        return True if rest is True else _one(build, rest)
    x, y = _one(build, a), _one(build, b)
    w = build.new()
    build.clause(-w, x)
    build.clause(-w, y)
    build.clause(w, -x, -y)
    return w


def _one(build: _Builder, literals: Sequence[int]) -> int:
    """One literal equivalent to the disjunction ``literals`` (a defined variable where
    there are several)."""
    return literals[0] if len(literals) == 1 else build.define_or(literals)


def _exactly(build: _Builder, members: Sequence[int], k: int) -> None:
    """Exactly ``k`` of ``members`` are true: a sequential counter whose variable
    ``r[i][j]`` is defined as "at least j of the first i members are true", for j up to
    k + 1 (the count only has to tell k from k + 1)."""
    n = len(members)
    if k < 0 or k > n:
        build.unsat = True
        return
    if k == 0 or k == n:
        for v in members:
            build.clause(v if k else -v)
        return
    top = k + 1
    previous: list[_Lit] = [True]
    previous += [False] * top  # r[0][j]: true for j == 0 only
    for i, v in enumerate(members, 1):
        row: list[_Lit] = [True]
        for j in range(1, top + 1):
            if j > i:
                row.append(False)
                continue
            a, b = previous[j], previous[j - 1]  # r[i-1][j], r[i-1][j-1]
            r = build.new()
            # r <-> a | (b & v), both directions, so that r is a function of the members
            build.clause(_neg(a), r)
            build.clause(_neg(b), -v, r)
            build.clause(-r, a, v)
            build.clause(-r, a, b)
            row.append(r)
        previous = row
    build.clause(previous[k])
    build.clause(_neg(previous[top]))


def _neg(lit: _Lit) -> _Lit:
    if lit is True:
        return False
    if lit is False:
        return True
    return -lit
