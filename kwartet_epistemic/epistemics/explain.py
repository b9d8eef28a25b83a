"""Why does a player know where a card is?  Deletion-minimal explanations.

:func:`explain` (and :meth:`EpistemicState.explain
<kwartet_epistemic.epistemics.state.EpistemicState.explain>`) answers with an
:class:`Explanation`: the public facts that force the card's location for the player,
each a sentence with its move number, such that dropping any one of them loses the
conclusion; or, when the player does not know, the holders still possible with their
exact probabilities.

**Facts.**  The public record (RULES.md, "What is public, exactly") is split into atomic
facts, each a constraint on the cards' origins (the hand each card was dealt to, or the
draw that brought it):

* ``"hand sizes"``: the size of every hand and pile at the deal (every later change is
  public, and a draw brings one card).  With the rules that lay cards out of play it also
  carries the two facts that couple all families (the game goes on, so some unexposed
  family has no card out of play; in Memory Kwartet the player to move can ask);
* ``"ask"``: the asker holds a card of the asked card's family;
* ``"no bluff"``: the asker does not hold the asked card (without bluffing);
* ``"refusal"``: the asked player does not hold the card;
* ``"move"``: a card handed over was in the giver's hand;
* ``"exposure"``: the four cards laid down were in the player's hand;
* ``"rule"``: at one settled moment, one player does not hold all four cards of one
  unexposed family (they would have laid it down);
* ``"cannot ask"`` / ``"draw"``: a player passed over, or a draw because nobody could
  ask, says that player could not ask for anything;
* ``"turned"`` / ``"revealed"``: a card turned up in, or shown at the end from, a pile.

**Exactness.**  The world model of a set of facts is the set of origin assignments that
satisfy exactly those facts' constraints together with the player's own hand (and draws).
The public *structure* of the record (who sits where, which card moved when and to whom,
when draws happened) is kept, since every fact is read against it; only the constraints
are chosen.  With the hand sizes kept, the worlds are counted by the counting engine
(:class:`~kwartet_epistemic.epistemics.counting.WorldCounter` over a
:class:`~kwartet_epistemic.epistemics.history.PublicHistory` holding only the kept
constraints).  Without them nothing couples the families, so a card's possible places
are those its own family's kept constraints allow, found by enumerating that family's
four origins.  Fewer facts always leave at least the same worlds, so one pass of
deletions (the hand sizes first, then the facts about other families in one block, then
blocks of decreasing size: the "rule", "no bluff" and "ask" facts first, each kind the
latest first, then the others, the latest first) ends deletion-minimal.

A card seen moving (or laid down) is known from that public event alone; a card in the
player's own hand (or drawn by them) from their private information, with no public fact.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=3), {"A": ["7S", "8S", "9S", "9H"],
...     "B": ["7H", "8H", "9D", "7C"], "C": ["7D", "8D", "8C", "9C"]}, first="A")
>>> _ = game.ask("B", "7D")
>>> why = kw.knowledge(game).explain("A", "7D")
>>> why.known_holder
'C'
>>> print(why)
A knows C holds 7♦, because:
  move 1: B has no 7♦: B said no to A.
>>> print(kw.knowledge(game).explain("A", "8H"))
A does not know where 8♥ is: B 4/7 (57%), C 3/7 (43%).
"""

from __future__ import annotations

import html
import itertools
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from kwartet_epistemic.cards import Card
from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.epistemics.history import (
    HAND_SIZES,
    Clause,
    FactHistory,
    FactKey,
    PrivateInfo,
    PublicHistory,
)
from kwartet_epistemic.events import (
    Answered,
    Asked,
    CardMoved,
    Dealt,
    Drew,
    GameEnded,
    MiddleCardTurned,
    QuartetExposed,
)

if TYPE_CHECKING:
    from kwartet_epistemic.epistemics.state import EpistemicState

__all__ = ["Explanation", "Fact", "FactSet", "explain", "fact_set", "facts_force"]


@dataclass(frozen=True)
class Fact:
    """One public fact of an explanation: the move it is from (0 is the deal), a plain
    sentence, and its kind (``"refusal"``, ``"ask"``, ``"no bluff"``, ``"move"``,
    ``"hand sizes"``, ``"rule"``, ``"exposure"``, ``"cannot ask"``, ``"draw"``,
    ``"turned"``, ``"revealed"``)."""

    move: int
    sentence: str
    kind: str

    def __str__(self) -> str:
        return f"move {self.move}: {self.sentence}"


@dataclass(frozen=True)
class Explanation:
    """Why ``player`` knows where ``card`` is, or that they do not.

    ``known_holder`` is what :meth:`EpistemicState.knows_location` gives (a player, a
    pile's name, ``"exposed"``) or None.  ``facts`` is a deletion-minimal set of public
    facts that forces it, in the order they happened (empty when the card is the player's
    own, then ``note`` says so).  ``probabilities`` are the player's exact chances for
    every place still possible, in seat order (piles last).

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
    >>> _ = game.ask("B", "7D")
    >>> why = kw.knowledge(game).explain("B", "7D")
    >>> [fact.kind for fact in why.facts]
    ['no bluff']
    >>> why.probabilities
    (('C', Fraction(1, 1)),)
    """

    player: str
    card: Card
    known_holder: str | None
    facts: tuple[Fact, ...]
    probabilities: tuple[tuple[str, Fraction], ...]
    note: str = ""

    @property
    def known(self) -> bool:
        """Whether the player knows where the card is."""
        return self.known_holder is not None

    def because(self) -> str:
        """The reasons on one line (for narration): ``"B has no Q♥ (move 3); ..."``."""
        if not self.known:
            return "not known: " + _chances(self.probabilities)
        if not self.facts:
            return self.note
        return "; ".join(f"{_unstop(f.sentence)} (move {f.move})" for f in self.facts)

    def __str__(self) -> str:
        label = _label(self.card)
        if not self.known:
            return f"{self.player} does not know where {label} is: {_chances(self.probabilities)}."
        where = self.known_holder
        what = f"{where} holds {label}" if where != "exposed" else f"{label} lies in a quartet"
        if where in ("stock", "aside", "middle"):
            what = f"{label} lies in the {where} pile"
        if not self.facts:
            return f"{self.player} knows {what}: {self.note}"
        lines = [f"{self.player} knows {what}, because:"]
        lines += [f"  {fact}" for fact in self.facts]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        lines = str(self).split("\n")
        items = "".join(f"<li>{html.escape(line.strip())}</li>" for line in lines[1:])
        return f"<p>{html.escape(lines[0])}</p>" + (f"<ul>{items}</ul>" if items else "")


def _label(card: Card) -> str:
    return card.symbol or card.code


def _unstop(sentence: str) -> str:
    return sentence[:-1] if sentence.endswith(".") else sentence


def _chances(probabilities: Sequence[tuple[str, Fraction]]) -> str:
    return ", ".join(f"{place} {p} ({_percent(p)})" for place, p in probabilities)


def _percent(p: Fraction) -> str:
    """A probability as the percentage ``kwartet play``'s chances table shows: whole
    percents, "<1%" and ">99%" near the ends, so that no "0%" or "100%" is shown for
    what is not sure."""
    value = round(100 * p)
    if 0 < p < 1 and value < 1:
        return "<1%"
    if 0 < p < 1 and value > 99:
        return ">99%"
    return f"{value}%"


# ----- the record as facts ------------------------------------------------------------


class FactSet:
    """The public facts of one record, and the places a card may be in the worlds of any
    subset of them, for one player (what explanations are built from; experiments
    compare fact lists with it).

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=3), {"A": ["7S", "8S", "9S", "9H"],
    ...     "B": ["7H", "8H", "9D", "7C"], "C": ["7D", "8D", "8C", "9C"]}, first="A")
    >>> _ = game.ask("B", "7D")
    >>> facts = fact_set(kw.knowledge(game), "A")
    >>> sorted({facts.fact(key).kind for key in facts.keys})
    ['ask', 'no bluff', 'refusal', 'rule']
    >>> every = frozenset([*facts.keys, HAND_SIZES])
    >>> seven = game.deck.card("7D").index
    >>> facts.possible_places(every, seven), sorted(facts.possible_places(frozenset(), seven))
    ({'C'}, ['B', 'C'])
    """

    def __init__(self, state: EpistemicState, player: str) -> None:
        record = [event.public() for event in state.record]
        self.record = record
        self.deck = state.deck
        self.info: PrivateInfo = state.private_info(player)
        recorder = FactHistory(state.deck, state.players, state.rules)
        recorder.extend(record)
        self.full = recorder
        # Move numbers as the demo counts them: each ask (or turned card) starts a move.
        moves, number = [], 0
        for event in record:
            if isinstance(event, Asked | MiddleCardTurned):
                number += 1
            moves.append(number)
        self.move_of_event = moves
        self.keys: list[FactKey] = list(
            dict.fromkeys(op[1] for op in recorder.ops if op[0] != "draw")
        )
        self.families_of = recorder.families_of
        self.places = [
            owner or name
            for owner, name in zip(recorder.slot_owner, recorder.slot_names, strict=True)
        ]
        self._cache: dict[tuple[frozenset[FactKey], int], set[str]] = {}
        own_slots = 1 << state.players.index(player)
        own_card = {c: own_slots for c in self.info.dealt}
        for number, card in self.info.draws:
            bit = 1 << recorder.draw_slots[number]
            own_slots |= bit
            own_card[card] = bit
        self.own_card, self.keep_mask = own_card, ~own_slots

    # ----- the constraints of a subset --------------------------------------------

    def history(self, kept: frozenset[FactKey]) -> PublicHistory:
        """A plain :class:`PublicHistory` of the record's structure with only the
        constraints of the ``kept`` facts (the hand sizes always, as slot capacities)."""
        return self.full.restricted(kept)

    def possible_places(self, kept: frozenset[FactKey], c: int) -> set[str]:
        """The places ``c`` may be in, in the worlds of the ``kept`` facts (with the hand
        sizes iff :data:`HAND_SIZES` is kept) and the player's own hand."""
        cache_key = (kept, c)
        if cache_key in self._cache:
            return self._cache[cache_key]
        if HAND_SIZES in kept:
            counter = WorldCounter(
                self.history(kept), [self.info], marginals=True, stable_layout=True
            )
            row = counter.origin_table()[c]
            places = {self.places[s] for s in range(len(row)) if row[s]}
        else:
            places = self._family_places(kept, c)
        self._cache[cache_key] = places
        return places

    def _family_places(self, kept: frozenset[FactKey], c: int) -> set[str]:
        """Without hand sizes the families are independent: enumerate c's family."""
        allowed, clauses = self.full.constraints_of(kept)
        f = c // 4
        options = []
        for x in range(4 * f, 4 * f + 4):
            mask = allowed[x] & self.own_card.get(x, self.keep_mask)
            options.append([s for s in range(len(self.places)) if mask >> s & 1])
        rules = [Clause(k, cond) for k, cond in clauses[f]]  # type: ignore[arg-type]
        i = c - 4 * f
        places: set[str] = set()
        by_place: dict[str, list[int]] = {}
        for s in options[i]:
            by_place.setdefault(self.places[s], []).append(s)
        others = [options[j] for j in range(4) if j != i]
        for place, slots in by_place.items():
            found = False
            for s in slots:
                for rest in itertools.product(*others):
                    origins = list(rest)
                    origins.insert(i, s)
                    if all(rule.satisfied(origins) for rule in rules):
                        found = True
                        break
                if found:
                    break
            if found:
                places.add(place)
        return places

    # ----- sentences ----------------------------------------------------------------

    def move_of(self, key: FactKey) -> int:
        kind, index, _ = key
        if kind == "hand sizes":
            return 0
        if kind == "rule":  # the settled moment before event ``index``
            return self.move_of_event[index - 1] if index > 0 else 0
        return self.move_of_event[index]

    def fact(self, key: FactKey) -> Fact:
        """The fact ``key`` as a sentence."""
        kind, index, detail = key
        deck = self.deck
        if kind == "hand sizes":
            dealt = next((e for e in self.record if isinstance(e, Dealt)), None)
            deal = _unstop(dealt.sentence()) if dealt is not None else "The cards are dealt"
            extra = " and a draw brings one card" if self.full.stock_slot >= 0 else ""
            if self.full.dead_slots:
                extra += "; while the game goes on some family can still be completed"
            return Fact(0, f"{deal}; every change of a hand's size is public{extra}.", kind)
        move = self.move_of(key)
        event = self.record[index] if index < len(self.record) else None
        if kind == "rule":
            family, player = detail
            title = deck.family_title(family)
            return Fact(
                move, f"{player} does not hold all four {title} (they would be laid down).", kind
            )
        if kind in ("ask", "no bluff"):
            assert isinstance(event, Asked)
            label, title = _label(event.card), deck.family_title(event.card.family_index)
            if kind == "ask":
                text = f"{event.asker} asks for {label}, so {event.asker} holds one of the {title}."
            else:
                text = f"{event.asker} asks for {label}, so {event.asker} does not hold it."
            return Fact(move, text, kind)
        if kind == "refusal":
            assert isinstance(event, Answered)
            asker = self._asker_before(index)
            by = f": {event.target} said no to {asker}" if asker else ""
            return Fact(move, f"{event.target} has no {_label(event.card)}{by}.", kind)
        if kind == "move":
            assert isinstance(event, CardMoved)
            return Fact(
                move, f"{event.source} gives {_label(event.card)} to {event.destination}.", kind
            )
        if kind == "exposure":
            assert isinstance(event, QuartetExposed)
            title = deck.family_title(event.family)
            return Fact(move, f"{event.player} lays down the {title}.", kind)
        if kind == "cannot ask":
            return Fact(move, f"{detail} is passed over: {detail} cannot ask for any card.", kind)
        if kind == "draw":
            drawer = event.player if isinstance(event, Drew) else "someone"
            return Fact(
                move, f"{drawer} draws because nobody can ask, so {detail} cannot ask either.", kind
            )
        if kind == "turned":
            assert isinstance(event, MiddleCardTurned)
            return Fact(
                move, f"{event.player} turns over {_label(event.card)} in the middle.", kind
            )
        if kind == "revealed":
            return Fact(move, "The end shows the cards that lay face down.", kind)
        return Fact(move, event.sentence() if event is not None else kind, kind)

    def _asker_before(self, index: int) -> str:
        for event in reversed(self.record[:index]):
            if isinstance(event, Asked):
                return event.asker
        return ""


def facts_force(
    state: EpistemicState, player: str, card: Card | str, facts: Sequence[Fact]
) -> bool:
    """Whether ``facts`` (of an :class:`Explanation` of ``state``, or any of their subsets)
    force where ``card`` is for ``player``: in every world of only those facts and the
    player's own hand (and draws), the card has the place the explanation names.  With
    the hand sizes among them the counting engine counts the worlds.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=3), {"A": ["7S", "8S", "9S", "9H"],
    ...     "B": ["7H", "8H", "9D", "7C"], "C": ["7D", "8D", "8C", "9C"]}, first="A")
    >>> _ = game.ask("B", "7D")
    >>> k = kw.knowledge(game)
    >>> why = k.explain("A", "7D")
    >>> facts_force(k, "A", "7D", why.facts), facts_force(k, "A", "7D", ())
    (True, False)
    """
    state.check_player(player)
    c = state.deck.card(card)
    base = fact_set(state, player)
    where = state.knows_location(player, c)
    if where is None:
        return False
    if state.history.location[c.index] is not None:  # known from the event that showed it
        return any(base.fact(k) in facts for k in _sighting(base, c.index))
    if _own(base.info, c.index):
        return True
    wanted = set(facts)
    kept = frozenset(key for key in [HAND_SIZES, *base.keys] if base.fact(key) in wanted)
    return base.possible_places(kept, c.index) == {where}


def _own(info: PrivateInfo, c: int) -> bool:
    return c in info.dealt or any(card == c for _, card in info.draws)


def _sighting(base: FactSet, c: int) -> list[FactKey]:
    """The last public event that showed where ``c`` is now (a move, an exposure, a
    turned or revealed card), as a fact key; empty for a card never seen."""
    for key in reversed(base.keys):
        kind, index, _ = key
        if kind not in ("move", "exposure", "turned", "revealed"):
            continue
        event = base.record[index]
        if isinstance(event, CardMoved | MiddleCardTurned) and event.card.index == c:
            return [key]
        if isinstance(event, QuartetExposed) and base.deck.family_index(event.family) == c // 4:
            return [key]
        if isinstance(event, GameEnded) and any(x.index == c for x in event.revealed):
            return [key]
    return []


_FACTS: weakref.WeakKeyDictionary[EpistemicState, dict[str, tuple[tuple[int, ...], FactSet]]] = (
    weakref.WeakKeyDictionary()
)


def fact_set(state: EpistemicState, player: str) -> FactSet:
    """The public facts of the state's record for ``player`` (a :class:`FactSet`), kept
    for the state until the record grows."""
    cache = _FACTS.setdefault(state, {})
    version = (len(state.record), *state.version)
    cached = cache.get(player)
    if cached is None or cached[0] != version:
        cached = (version, FactSet(state, player))
        cache[player] = cached
    return cached[1]


def explain(state: EpistemicState, player: str, card: Card | str) -> Explanation:
    """Why ``player`` knows where ``card`` is (a deletion-minimal set of public facts that
    forces it), or the places still possible with their exact probabilities.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=3), {"A": ["7S", "8S", "9S", "9H"],
    ...     "B": ["7H", "8H", "9D", "7C"], "C": ["7D", "8D", "8C", "9C"]}, first="A")
    >>> _ = game.ask("B", "7D")
    >>> print(explain(kw.knowledge(game), "C", "7D"))
    C knows C holds 7♦: it is in C's own hand.
    """
    state.check_player(player)
    c = state.deck.card(card)  # UnknownCardError names the card
    where = state.knows_location(player, c)
    base = fact_set(state, player)
    probabilities = _probabilities(state, player, c, where)
    if where is None:
        return Explanation(player, c, None, (), probabilities)
    history = state.history
    if history.location[c.index] is not None:
        keys = _sighting(base, c.index)
        return Explanation(player, c, where, tuple(base.fact(k) for k in keys), probabilities)
    if c.index in base.info.dealt:
        note = f"it is in {player}'s own hand."
        return Explanation(player, c, where, (), probabilities, note)
    if _own(base.info, c.index):
        note = f"{player} drew it."
        return Explanation(player, c, where, (), probabilities, note)
    keys = _minimal(base, c.index, where)
    ordered = sorted(
        keys, key=lambda k: (base.move_of(k), k[1], base.keys.index(k) if k in base.keys else -1)
    )
    return Explanation(player, c, where, tuple(base.fact(k) for k in ordered), probabilities)


_DROP_FIRST = {"rule": 0, "no bluff": 1, "ask": 2}
"""Facts tried for deletion first: those drawn from the rules (an explanation in terms of
what was said and shown reads better); the others follow, the latest first."""


def _minimal(base: FactSet, c: int, where: str) -> list[FactKey]:
    """Delete facts while the rest still forces ``c`` to ``where``: the hand sizes first,
    then the facts of other families in one block, then blocks of halving size (facts
    drawn from the rules first, then the latest first).  The last pass tries every remaining fact alone, so the result is
    deletion-minimal (fewer facts never remove worlds)."""
    target = {where}
    current = frozenset([HAND_SIZES, *base.keys])

    def forces(kept: frozenset[FactKey]) -> bool:
        return base.possible_places(kept, c) == target

    if not forces(current):  # pragma: no cover - the engines agree
        raise AssertionError(f"the facts do not force {base.deck.cards[c].code} to {where}")
    without_sizes = current - {HAND_SIZES}
    if forces(without_sizes):
        current = without_sizes
    family = c // 4
    elsewhere = frozenset(
        k for k in current if k != HAND_SIZES and family not in base.families_of.get(k, ())
    )
    if elsewhere and forces(current - elsewhere):
        current = current - elsewhere
    candidates = sorted(
        (k for k in current if k != HAND_SIZES),
        key=lambda k: (_DROP_FIRST.get(k[0], len(_DROP_FIRST)), -base.keys.index(k)),
    )
    size = max(1, len(candidates) // 2)
    while True:
        i = 0
        while i < len(candidates):
            block = frozenset(candidates[i : i + size])
            if forces(current - block):
                current = current - block
                del candidates[i : i + size]
            else:
                i += size
        if size == 1:
            break
        size = max(1, size // 2)
    return sorted(current, key=lambda k: -1 if k == HAND_SIZES else base.keys.index(k))


def _probabilities(
    state: EpistemicState, player: str, card: Card, where: str | None
) -> tuple[tuple[str, Fraction], ...]:
    if where is not None:
        return ((where, Fraction(1)),)
    counter = state.world_counter((player,))
    history = state.history
    row = counter.origin_table()[card.index]
    total = counter.count
    chances: dict[str, int] = {}
    for slot, n in enumerate(row.tolist()):
        if n:
            place = history.slot_owner[slot] or history.slot_names[slot]
            chances[place] = chances.get(place, 0) + int(n)
    order = {p: i for i, p in enumerate(state.players)}
    ranked = sorted(chances, key=lambda p: (order.get(p, len(order)), p))
    return tuple((p, Fraction(chances[p], total)) for p in ranked)
