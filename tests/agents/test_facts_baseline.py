"""The fact-list baseline (``facts``) is the earlier student projects' fact list.

The two projects are P-Zande/quartets (LAMAS 2023: Facts, Disjunctions and ExclusiveOrs
per quartet group, updated after every public announcement) and ivopascal/Epistemic_Kwartet
(2020: known cards, known non-cards and "unknown cards" per opponent).  Below,
:class:`ReferenceFactList` restates their update rules as their reports describe them, in
the most direct form (one fact at a time, consequences drawn at once), written for these
tests and sharing no code with :class:`FactKnowledge`.  On random games the library's fact
list must

* never locate a card the exact epistemic state does not locate (it is sound and weaker),
* locate every card the reference locates, at every ask, whether it is updated after every
  ask, only at its own turns (as agents update), or built afresh from a later view.

Plus hand-built positions for the rule the library once got wrong: a player who receives a
card of a family it asked about keeps its clause "holds one of S", minus the received card.

The second baseline, ``facts+hands`` (:class:`FactKnowledgeWithHands`: the fact list plus
the hand-size rules), is checked at the end: on random games it locates only what the
exact state locates (its location probability 1) and everything ``facts`` locates; each
of its rules fires on a hand-built position where ``facts`` is silent; and the position
where the no-complete-family rule locates a card shows that exactness still knows more.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kwartet_epistemic as kw
from kwartet_epistemic.agents import FactKnowledge, FactKnowledgeWithHands
from kwartet_epistemic.events import (
    Answered,
    Asked,
    CardMoved,
    Event,
    HandEmptied,
    QuartetExposed,
)

NAMES = ["A", "B", "C", "D", "E"]
# The reference covers the rules both projects played: every card in a hand, no piles.
RULES = {
    "publisher": kw.RuleSet(),
    "lamas": kw.RuleSet.preset("lamas"),
    "bluffing": kw.RuleSet(bluffing=True),
}
GONE = "gone"


class ReferenceFactList:
    """One observer's fact list, rule for rule as the earlier projects state them.

    P-Zande/quartets (docs/_pages/03logic.md, 04model.md):

    * the observer's own cards are facts; every other card is an ExclusiveOr over the
      other players (exactly one of them holds it);
    * "P asks Q for c": the fact "P lacks c" (their flag ``agent_can_ask_owned_card`` is
      off; with bluffing it is on and this fact is not learnt) and the Disjunction "P holds
      one of the group", unless P already has one for this group (then nothing new);
    * "Q: no": the fact "Q lacks c";
    * "Q gives c to P": first the fact "Q holds c", then the fact "P holds c";
    * a new fact "X holds c" drops a Disjunction it satisfies (X's, with c in it), strikes c
      from the other players' Disjunctions, drops c's ExclusiveOr and adds "Y lacks c"
      for every other Y; a new fact "X lacks c" strikes X from c's ExclusiveOr and c from
      X's Disjunction; an ExclusiveOr or a Disjunction left with one member becomes a fact.

    ivopascal/Epistemic_Kwartet (README, player.py ``perform_inference``), as it runs:
    a card's only possible holder among the players that may hold it and hold cards at
    all holds it.  Their count of "unknown cards" (hand size minus known cards) was meant
    to exclude players whose cards are all known, but its helper compares a player object
    with an id (``is``), finds no known cards and so only ever excludes empty hands: that
    is the rule kept here (``HandEmptied``).

    Our referee lays a completed quartet open (``QuartetExposed``): its cards are gone.
    """

    def __init__(self, observer: str, game: kw.Game) -> None:
        self.observer = observer
        self.players = tuple(game.players)
        self.bluffing = game.rules.bluffing
        self.family_of = {card.code: card.family for card in game.deck.cards}
        self.family: dict[str, list[str]] = {}
        for card in game.deck.cards:
            self.family.setdefault(card.family, []).append(card.code)
        self.owner: dict[str, str | None] = {card.code: None for card in game.deck.cards}
        self.lacking: dict[str, set[str]] = {card.code: set() for card in game.deck.cards}
        others = [p for p in self.players if p != observer]
        self.exclusive_or: dict[str, list[str] | None] = {
            card.code: list(others) for card in game.deck.cards
        }
        self.disjunction: dict[tuple[str, str], set[str]] = {}  # (player, family) -> cards
        self.seen = 0
        own = {card.code for card in game.hand(observer)}
        for code in self.owner:
            if code in own:
                self.learn_holds(observer, code)
            else:
                self.learn_lacks(observer, code)

    # -- facts -------------------------------------------------------------------------

    def learn_holds(self, player: str, code: str) -> None:
        if self.owner[code] == player:
            return  # an old fact: nothing new
        self.owner[code] = player
        self.exclusive_or[code] = None
        self.lacking[code].discard(player)
        for (who, family), cards in list(self.disjunction.items()):
            if code in cards:
                if who == player:
                    del self.disjunction[who, family]  # satisfied
                else:
                    cards.discard(code)
        for other in self.players:
            if other != player:
                self.learn_lacks(other, code)
        self.collapse()

    def learn_lacks(self, player: str, code: str) -> None:
        if player in self.lacking[code]:
            return
        assert self.owner[code] != player, "a fact list never contradicts itself"
        self.lacking[code].add(player)
        options = self.exclusive_or[code]
        if options is not None and player in options:
            options.remove(player)
        cards = self.disjunction.get((player, self.family_of[code]))
        if cards is not None:
            cards.discard(code)
        self.collapse()

    def collapse(self) -> None:
        for code, options in self.exclusive_or.items():
            if options is not None and len(options) == 1 and self.owner[code] is None:
                self.learn_holds(options[0], code)
                return  # learn_holds collapses again
        for (who, family), cards in list(self.disjunction.items()):
            assert cards, "an empty disjunction: the reference is wrong"
            if len(cards) == 1:
                del self.disjunction[who, family]
                self.learn_holds(who, next(iter(cards)))
                return

    # -- announcements -----------------------------------------------------------------

    def asked(self, asker: str, code: str) -> None:
        if not self.bluffing:
            self.learn_lacks(asker, code)
        family = self.family_of[code]
        if asker == self.observer or (asker, family) in self.disjunction:
            return
        cards = set()
        for other in self.family[family]:
            if self.owner[other] == asker:
                return  # already satisfied: not kept
            if self.owner[other] is None and asker not in self.lacking[other]:
                cards.add(other)
        self.disjunction[asker, family] = cards
        self.collapse()

    def take(self, event: Event) -> None:
        if isinstance(event, Asked):
            self.asked(event.asker, event.card.code)
        elif isinstance(event, Answered) and not event.has_card:
            self.learn_lacks(event.target, event.card.code)
        elif isinstance(event, CardMoved):
            self.learn_holds(event.source, event.card.code)
            self.learn_holds(event.destination, event.card.code)
        elif isinstance(event, QuartetExposed):
            for code in self.family[event.family]:
                self.owner[code] = GONE
                self.exclusive_or[code] = None
            for key in [key for key in self.disjunction if key[1] == event.family]:
                del self.disjunction[key]
        elif isinstance(event, HandEmptied):
            for code, owner in self.owner.items():
                if owner is None:
                    self.learn_lacks(event.player, code)

    def follow(self, view: kw.PlayerView) -> None:
        for event in view.record[self.seen :]:
            self.take(event)
        self.seen = len(view.record)

    def located(self) -> dict[str, str]:
        return {code: p for code, p in self.owner.items() if p in self.players}


def _true_holders(game: kw.Game) -> dict[str, str]:
    return {card.code: p for p in game.players for card in game.hand(p)}


def _located(facts: FactKnowledge, game: kw.Game) -> dict[str, str]:
    found = {}
    for card in game.deck.cards:
        holder = facts.known_holder(card)
        if holder is not None:
            found[card.code] = holder
    return found


def _check_game(
    game: kw.Game, choose, rng: np.random.Generator, *, max_asks: int = 400
) -> tuple[int, int]:
    """Play ``game`` to the end with ``choose``, checking every observer after every ask;
    returns (reference locations checked, locations the facts found beyond the reference)."""
    players = list(game.players)
    exact = kw.knowledge(game)
    reference = {p: ReferenceFactList(p, game) for p in players}
    every_ask = {p: FactKnowledge(p) for p in players}
    own_turns = {p: FactKnowledge(p) for p in players}
    checked = beyond = 0
    asks = 0
    while True:
        truth = _true_holders(game)
        for p in players:
            view = game.view(p)
            reference[p].follow(view)
            wanted = reference[p].located()
            for code, holder in wanted.items():
                assert truth.get(code) == holder, ("the reference is unsound", p, code)
            bases = [every_ask[p]]
            if game.to_move == p or game.is_over:
                bases.append(own_turns[p])  # agents update when they choose
            if rng.random() < 0.05:
                bases.append(FactKnowledge(p))  # afresh from a later view
            for base in bases:
                base.update(view)
                found = _located(base, game)
                for code, holder in found.items():
                    assert exact.knows_location(p, code) == holder, (p, code, holder)
                missed = {c: h for c, h in wanted.items() if found.get(c) != h}
                assert not missed, (p, asks, missed, game.view(p).transcript()[-600:])
            checked += len(wanted)
            beyond += len(_located(every_ask[p], game)) - len(wanted)
        if game.is_over or asks >= max_asks:
            return checked, beyond
        game.play(choose(game))
        asks += 1


def _random_asks(rng: np.random.Generator):
    return lambda game: game.random_legal_ask(rng)


def _agents(game: kw.Game, specs: list[str], seed: int):
    agents = {
        p: kw.make_agent(specs[i % len(specs)], p, np.random.default_rng(seed + i))
        for i, p in enumerate(game.players)
    }
    return lambda g: agents[g.to_move].choose(g.view(g.to_move))


SETUPS = [(4, 8), (4, 6), (3, 4), (3, 6), (5, 6), (4, 3)]  # (players, families)


@pytest.mark.parametrize("rules", list(RULES), ids=str)
def test_facts_locate_what_the_earlier_projects_locate_and_no_more_than_exact(
    rules: str,
) -> None:
    """Seeded loops over random-ask games and fact-list agents' games of every size."""
    checked = 0
    for seed in range(12):
        players, families = SETUPS[seed % len(SETUPS)]
        for mode in ("random", "agents"):
            game = kw.Game.deal(
                kw.Deck.piquet(families=families),
                NAMES[:players],
                seed=1000 * seed + families,
                rules=RULES[rules],
            )
            rng = np.random.default_rng(seed)
            if mode == "random":
                choose = _random_asks(rng)
            else:
                choose = _agents(
                    game, ["defensive:facts", "owner:facts", "greedy", "aggressive:facts"], seed
                )
            got, _ = _check_game(game, choose, rng)
            checked += got
    assert checked > 1000  # the reference did locate cards to compare with


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.integers(0, 100_000),
    players=st.integers(3, 5),
    families=st.integers(2, 8),
    rules=st.sampled_from(list(RULES)),
)
def test_facts_cover_the_reference_on_random_games(
    seed: int, players: int, families: int, rules: str
) -> None:
    game = kw.Game.deal(
        kw.Deck.piquet(families=families), NAMES[:players], seed=seed, rules=RULES[rules]
    )
    rng = np.random.default_rng(seed)
    _check_game(game, _random_asks(rng), rng, max_asks=150)


PILE_RULES = {
    "dutch": kw.RuleSet.preset("dutch"),
    "memory": kw.RuleSet(memory_cards=3),
    "fish": kw.RuleSet.preset("fish").replace(cards_each=4),
}


@pytest.mark.parametrize("rules", list(PILE_RULES), ids=str)
def test_with_piles_the_facts_stay_sound(rules: str) -> None:
    """Beyond the earlier projects' rules (set-aside, middle and stock cards, own and
    others' draws): every located card is where the facts say, at every ask, and (without
    a stock, where the exact state is cheap) the exact state locates it too."""
    for seed in range(8):
        players, families = SETUPS[seed % len(SETUPS)]
        try:
            game = kw.Game.deal(
                kw.Deck.piquet(families=families), NAMES[:players], seed=seed,
                rules=PILE_RULES[rules],
            )  # fmt: skip
        except kw.GameSetupError:
            continue  # too few cards for the stock
        rng = np.random.default_rng(seed)
        exact = kw.knowledge(game) if not game.rules.draw_pile else None
        facts = {p: FactKnowledge(p) for p in game.players}
        for _ in range(120):
            truth = _true_holders(game)
            for p in game.players:
                facts[p].update(game.view(p))
                for code, holder in _located(facts[p], game).items():
                    assert truth.get(code) == holder, (p, code, holder)
                    if exact is not None:
                        assert exact.knows_location(p, code) == holder, (p, code, holder)
            if game.is_over:
                break
            game.play(game.random_legal_ask(rng))


# ----- the received-card rule, by hand --------------------------------------------------

HANDS = {"A": ["8S", "8H"], "B": ["7S", "8D"], "C": ["7D", "8C"], "D": ["7H", "7C"]}


def _received_twice(rules: kw.RuleSet, watch_each_ask: bool) -> tuple[FactKnowledge, kw.Game]:
    """C asks D for 7H and gets it, then asks B for 7S and gets it; D watches."""
    game = kw.Game.from_hands(kw.Deck.piquet(families=2), HANDS, first="C", rules=rules)
    facts = FactKnowledge("D")
    for target, card in [("D", "7H"), ("B", "7S")]:
        game.ask(target, card)
        if watch_each_ask:
            facts.update(game.view("D"))
    facts.update(game.view("D"))
    return facts, game


@pytest.mark.parametrize("watch_each_ask", [True, False], ids=["each ask", "at the end"])
def test_a_received_card_is_struck_from_the_receivers_clause(watch_each_ask: bool) -> None:
    # Asking D for 7H, C shows it lacks 7H and holds one of 7S 7D 7C; D holds 7C, so one
    # of 7S 7D.  Receiving 7H does not satisfy that clause: C still holds one of 7S 7D.
    # Asking for 7S, C shows it lacks 7S: so C holds 7D.  (The fact list once took the
    # received 7H, then 7S, as satisfying C's clauses, and lost 7D.)
    facts, game = _received_twice(kw.RuleSet(), watch_each_ask)
    assert facts.known_holder("7D") == "C"
    assert kw.knowledge(game).knows_location("D", "7D") == "C"
    reference = ReferenceFactList("D", kw.Game.from_hands(
        kw.Deck.piquet(families=2), HANDS, first="C"))  # fmt: skip
    reference.follow(game.view("D"))
    assert reference.located()["7D"] == "C"


@pytest.mark.parametrize("watch_each_ask", [True, False], ids=["each ask", "at the end"])
def test_with_bluffing_the_giver_held_the_card_so_it_leaves_the_receivers_clause(
    watch_each_ask: bool,
) -> None:
    # With bluffing an ask shows only "C holds a seven" (C may hold 7H).  D gives 7H: at
    # that moment D held it, so C's seven is among 7S 7D (7C is D's).  B gives 7S: B held
    # it, so C's seven from before is 7D.
    facts, game = _received_twice(kw.RuleSet(bluffing=True), watch_each_ask)
    assert facts.known_holder("7D") == "C"
    assert kw.knowledge(game).knows_location("D", "7D") == "C"


def test_a_clause_goes_when_its_holder_gives_one_of_its_cards_away() -> None:
    # C asks B for 7H (no): B, holding no seven, knows C holds one of 7S 7D 7C.  A takes
    # 7C from C: C may have given its only seven away, so the clause goes (kept as "one
    # of 7S 7D", C's refusal of 7D would wrongly put 7S with C; A holds it).
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=3),
        {"A": ["7S", "8S", "9S"], "B": ["8H", "8D", "9H"], "C": ["7C", "8C", "9D"],
         "D": ["7H", "7D", "9C"]},
        first="C",
    )  # fmt: skip
    facts = FactKnowledge("B")
    for asker, target, card in [("C", "B", "7H"), ("B", "A", "9C"), ("A", "C", "7C"),
                                ("A", "C", "7D")]:  # fmt: skip
        game.ask(target, card, asker=asker)
        facts.update(game.view("B"))
    assert facts.known_holder("7C") == "A"
    assert facts.known_holder("7S") is None
    assert "C" in facts.candidates("7S") and "A" in facts.candidates("7S")


def test_the_empty_hand_rule_ivopascal_ran_locates_the_last_candidate() -> None:
    # C refuses 9C, so D sees that A or B holds it; A takes B's last card and B is out:
    # an empty hand holds nothing, so A holds 9C (ivopascal's "unknown cards > 0" test,
    # the one part of their counting that ran).
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=3),
        {"A": ["7S", "9H", "9C"], "B": ["7H"], "C": ["8S", "8H", "8D", "9D"],
         "D": ["7D", "7C", "8C", "9S"]},
        first="D",
    )  # fmt: skip
    facts = FactKnowledge("D")
    game.ask("C", "9C")  # D asks C: no, C's turn
    game.ask("A", "8C")  # C asks A: no, A's turn
    facts.update(game.view("D"))
    assert set(facts.candidates("9C")) == {"A", "B"}
    game.ask("B", "7H")  # A asks B: yes, and B's hand is empty
    facts.update(game.view("D"))
    assert facts.known_holder("9C") == "A"
    assert kw.knowledge(game).knows_location("D", "9C") == "A"


# ----- facts+hands: the fact list with the hand-size rules ------------------------------


def _sure_holders(state: kw.EpistemicState, player: str) -> dict[str, str]:
    """The cards ``player``'s exact state places with probability 1, and where."""
    matrix = state.location_probabilities(player)
    players = state.players
    return {
        card.code: players[int(np.argmax(matrix[card.index]))]
        for card in state.deck.cards
        if np.isclose(matrix[card.index].max(), 1.0)
    }


def _check_hands_game(game: kw.Game, rng: np.random.Generator, max_asks: int) -> int:
    """Random asks to the end; after every ask, for every observer, ``facts+hands``
    (updated every ask, at its own turns, or afresh) places each card it locates where
    the exact state does and where the game has it, and locates all that ``facts`` does.
    Returns how many cards it located beyond ``facts``."""
    exact = None if game.rules.draw_pile else kw.knowledge(game)
    facts = {p: FactKnowledge(p) for p in game.players}
    every_ask = {p: FactKnowledgeWithHands(p) for p in game.players}
    own_turns = {p: FactKnowledgeWithHands(p) for p in game.players}
    beyond = 0
    for _ in range(max_asks + 1):
        truth = _true_holders(game)
        for p in game.players:
            view = game.view(p)
            facts[p].update(view)
            plain = _located(facts[p], game)
            sure = _sure_holders(exact, p) if exact is not None else None
            bases = [every_ask[p]]
            if game.to_move == p or game.is_over:
                bases.append(own_turns[p])
            if rng.random() < 0.05:
                bases.append(FactKnowledgeWithHands(p))
            for base in bases:
                base.update(view)
                found = _located(base, game)
                for code, holder in found.items():
                    assert truth.get(code) == holder, (p, code, holder)
                    if sure is not None:
                        assert sure.get(code) == holder, (p, code, holder, "exact does not know")
                assert all(found.get(c) == h for c, h in plain.items()), (p, plain, found)
            beyond += len(_located(every_ask[p], game)) - len(plain)
        if game.is_over:
            break
        game.play(game.random_legal_ask(rng))
    return beyond


HANDS_RULES = {**RULES, **PILE_RULES}


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.integers(0, 100_000),
    players=st.integers(3, 5),
    families=st.integers(2, 8),
    rules=st.sampled_from(list(HANDS_RULES)),
)
def test_facts_with_hands_is_sound_and_knows_what_facts_know(
    seed: int, players: int, families: int, rules: str
) -> None:
    try:
        game = kw.Game.deal(
            kw.Deck.piquet(families=families), NAMES[:players], seed=seed,
            rules=HANDS_RULES[rules],
        )  # fmt: skip
    except kw.GameSetupError:
        return  # too few cards for the stock
    _check_hands_game(game, np.random.default_rng(seed), max_asks=150)


def test_facts_with_hands_locates_more_than_facts_on_seeded_games() -> None:
    """The rules do fire on ordinary games (the property test above would pass with
    rules that never fire)."""
    beyond = 0
    for seed in range(6):
        players, families = SETUPS[seed % len(SETUPS)]
        game = kw.Game.deal(kw.Deck.piquet(families=families), NAMES[:players], seed=seed)
        beyond += _check_hands_game(game, np.random.default_rng(seed), max_asks=200)
    assert beyond > 0


def _both(game: kw.Game, observer: str) -> tuple[FactKnowledge, FactKnowledgeWithHands]:
    facts, hands = FactKnowledge(observer), FactKnowledgeWithHands(observer)
    facts.update(game.view(observer))
    hands.update(game.view(observer))
    return facts, hands


def _play_asks(game: kw.Game, asks: list[tuple[str, str, str]]) -> None:
    for asker, target, card in asks:
        assert game.to_move == asker
        game.ask(target, card)


def test_full_hand_a_player_whose_cards_are_all_located_holds_no_other() -> None:
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7D", "8S"], "B": ["7S", "8H"], "C": ["8D", "8C"], "D": ["7H", "7C"]},
        first="B",
    )  # fmt: skip
    # B asks D for 8D (no); D asks C for 7D (no); C asks D for 8S (no).  B sees 7D and
    # 8S refused or asked for by C and D: both are A's, and A has two cards, so A lacks
    # 8D: it is C's (D refused it).  The fact list stops at "A or C".
    _play_asks(game, [("B", "D", "8D"), ("D", "C", "7D"), ("C", "D", "8S")])
    facts, hands = _both(game, "B")
    assert facts.known_holder("7D") == facts.known_holder("8S") == "A"
    assert facts.known_holder("8D") is None and set(facts.candidates("8D")) == {"A", "C"}
    assert hands.known_holder("8D") == "C"
    assert kw.knowledge(game).knows_location("B", "8D") == "C"


def test_no_room_to_spare_a_player_whose_possible_cards_fill_their_hand_holds_them() -> None:
    # Dutch rules: equal hands of five, one card set aside.  B is dealt the four tens
    # (laid down at once) and 8H.  B asks A for 8D (yes), so B's eight was 8H: B's two
    # cards are known and B holds no other (a full hand).  B asks C for 8C (no).  A sees
    # six cards left for C's five and the set-aside one; C lacks 8C, so C's five are the
    # other five (8C is set aside).  A card may lie in the pile, so neither list takes a
    # last candidate for the holder; the fact list does not even know B's hand is full.
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=4),
        {"A": ["7S", "8S", "8D", "9D", "9C"], "B": ["8H", "10S", "10H", "10D", "10C"],
         "C": ["7H", "7D", "7C", "9S", "9H"]},
        aside=["8C"], first="B", rules=kw.RuleSet.preset("dutch"),
    )  # fmt: skip
    _play_asks(game, [("B", "A", "8D"), ("B", "C", "8C")])
    facts, hands = _both(game, "A")
    exact = kw.knowledge(game)
    for code in ("7H", "7D", "7C", "9S", "9H"):
        assert facts.known_holder(code) is None
        assert set(facts.candidates(code)) == {"B", "C"}
        assert hands.known_holder(code) == "C" == exact.knows_location("A", code)
    assert hands.known_holder("8C") is None


def test_pigeonhole_one_player_holds_a_card_of_each_asked_family_and_nothing_else() -> None:
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=3),
        {"A": ["7S", "7H", "7D", "8C"], "B": ["8D", "9S", "9D", "9C"],
         "C": ["7C", "8S", "8H", "9H"]},
        first="A",
    )  # fmt: skip
    # A takes 7C and lays the sevens down: one card left.  A asks C for 8D (no), so A
    # holds an eight: A's one card is an eight, and A lacks 9H.  B sees 9H with A or C:
    # it is C's.
    _play_asks(game, [("A", "C", "7C"), ("A", "C", "8D")])
    facts, hands = _both(game, "B")
    assert game.hand_sizes["A"] == 1
    assert set(facts.candidates("9H")) == {"A", "C"}
    assert hands.known_holder("9H") == "C" == kw.knowledge(game).knows_location("B", "9H")


def test_pigeonhole_two_players_free_places_are_filled_so_they_hold_no_other_card() -> None:
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7D", "8C"], "B": ["7S", "7C"], "C": ["7H", "8H"], "D": ["8S", "8D"]},
        first="B",
    )  # fmt: skip
    # Five refusals.  D then sees: 7D is A's; B lacks 8H and 8C, so those two eights are
    # with A or C; C holds a seven, 7S or 7H.  A and C have three free places between
    # them: the two eights and C's seven fill them, so neither holds 7C: it is B's.  No
    # hand is full and no single player's count decides it.
    _play_asks(game, [("B", "D", "7D"), ("D", "B", "8C"), ("B", "C", "7D"),
                      ("C", "D", "7C"), ("D", "B", "8H")])  # fmt: skip
    facts, hands = _both(game, "D")
    assert facts.known_holder("7D") == "A"
    assert set(facts.candidates("7C")) == {"A", "B"}
    assert hands.known_holder("7C") == "B" == kw.knowledge(game).knows_location("D", "7C")


def test_exactness_still_locates_more_the_no_complete_family_rule() -> None:
    # C takes 8S from B.  A sees C's four cards and B's one among 7C 8H 8D 8C (with C's
    # 8S): were 7C B's, C would hold all four eights and would have laid them down.  So
    # 7C is C's, which only the exact state knows (the hand rules do not count families).
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "7H", "7D"], "B": ["8S", "8H"], "C": ["7C", "8D", "8C"]},
        first="C",
    )  # fmt: skip
    _play_asks(game, [("C", "B", "8S")])
    facts, hands = _both(game, "A")
    assert hands.known_holder("7C") is None and set(hands.candidates("7C")) == {"B", "C"}
    assert kw.knowledge(game).knows_location("A", "7C") == "C"
