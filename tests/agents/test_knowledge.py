"""The knowledge part of agents: exact knowledge against the epistemic state, fact lists
sound but weaker, no memory knows only the own hand, and views followed incrementally."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kwartet_epistemic as kw
from kwartet_epistemic.agents import ExactKnowledge, FactKnowledge, HandKnowledge, make_knowledge
from kwartet_epistemic.epistemics import evaluate

NAMES = ["A", "B", "C", "D", "E", "F"]


def fast(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _random_game(
    seed: int, families: int, players: int, rules: kw.RuleSet, asks: int | None = None
) -> kw.Game:
    game = kw.Game.deal(kw.Deck.piquet(families=families), NAMES[:players], seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    count = 0
    while not game.is_over and (asks is None or count < asks):
        game.play(game.random_legal_ask(rng))
        count += 1
    return game


NO_PILE_RULES = [kw.RuleSet(), kw.RuleSet.preset("lamas"), kw.RuleSet(bluffing=True)]
ALL_RULES = [
    *NO_PILE_RULES,
    kw.RuleSet.preset("dutch"),
    kw.RuleSet.preset("fish"),
    kw.RuleSet(memory_cards=3),
]


# ----- exact knowledge, incrementally ------------------------------------------------


@pytest.mark.parametrize("rules", ALL_RULES, ids=lambda r: r.name)
def test_exact_knowledge_followed_move_by_move_equals_the_epistemic_state(
    rules: kw.RuleSet,
) -> None:
    deck = kw.Deck.piquet(families=6 if rules.draw_pile else 4)
    game = kw.Game.deal(deck, ["A", "B", "C"], seed=11, rules=rules)
    rng = np.random.default_rng(11)
    followers = {p: ExactKnowledge(p) for p in game.players}
    steps = 0
    while not game.is_over and steps < 40:
        for player, knowledge in followers.items():
            view = game.view(player)
            knowledge.update(view)
            state = kw.knowledge(view)
            assert knowledge.world_count() == state.count_worlds(player)
            assert np.allclose(knowledge.probabilities(), state.location_probabilities(player))
            for card in deck.cards:
                assert knowledge.known_holder(card) == _holder_or_none(
                    state.knows_location(player, card), game.players
                )
        game.play(game.random_legal_ask(rng))
        steps += 1


def _holder_or_none(where: str | None, players: tuple[str, ...]) -> str | None:
    return where if where in players else None


def test_own_sure_ask_patches_the_answer_and_the_patch_equals_a_recount(monkeypatch) -> None:
    # A learns that C holds 7D (B refuses it, and A lacks it), then takes it for sure.
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]},
        first="A",
    )
    game.ask("B", "7D")
    game.ask("A", "7C")
    me = ExactKnowledge("A")
    me.update(game.view("A"))
    assert me.known_holder("7D") == "C"
    before = me.world_count()
    game.ask("C", "7D")
    me.update(game.view("A"))
    recounts = []
    recount = evaluate.family_probabilities
    monkeypatch.setattr(
        evaluate, "family_probabilities", lambda *a: recounts.append(a) or recount(*a)
    )
    patched = me.probabilities().copy()
    assert recounts == []  # patched, not recounted
    monkeypatch.undo()
    fresh = ExactKnowledge("A")
    fresh.update(game.view("A"))
    assert np.array_equal(patched, fresh.probabilities())
    assert me.world_count() == before == fresh.world_count()


def test_exact_knowledge_refuses_another_players_view_and_restarts_on_a_new_game() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=5)
    me = ExactKnowledge("A")
    with pytest.raises(kw.GameSetupError, match="given B's view"):
        me.update(game.view("B"))
    with pytest.raises(kw.KwartetError, match="no view yet"):
        me.probabilities()
    me.update(game.view("A"))
    other = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=6)
    me.update(other.view("A"))
    assert me.world_count() == kw.knowledge(other.view("A")).count_worlds("A")


def test_exact_knowledge_follows_a_view_rebuilt_from_a_saved_record(tmp_path) -> None:
    game = _random_game(2, 8, 4, kw.RuleSet(), asks=12)
    me = ExactKnowledge("C")
    me.update(game.view("C"))
    path = tmp_path / "game.json"
    game.save(path)
    loaded = kw.Game.load(path)
    rng = np.random.default_rng(0)
    for _ in range(5):
        if not loaded.is_over:
            loaded.play(loaded.random_legal_ask(rng))
    me.update(loaded.view("C"))
    assert me.world_count() == kw.knowledge(loaded.view("C")).count_worlds("C")


def test_public_probabilities_are_what_everybody_knows() -> None:
    game = _random_game(4, 8, 4, kw.RuleSet(), asks=20)
    me = ExactKnowledge("B")
    me.update(game.view("B"))
    public = kw.knowledge(game)
    expected = public.location_counts(None).astype(float) / public.count_worlds()
    assert np.allclose(me.public_probabilities(), expected)


def test_sample_worlds_agree_with_the_own_hand_and_the_hand_sizes() -> None:
    game = _random_game(9, 8, 4, kw.RuleSet(), asks=15)
    view = game.view(game.to_move or "A")
    me = ExactKnowledge(view.player)
    me.update(view)
    for world in me.sample_worlds(5, np.random.default_rng(1)):
        assert world.hands[view.player] == view.hand
        assert {p: len(h) for p, h in world.hands.items()} == dict(view.hand_sizes)


# ----- fact lists: sound, weaker than exact ------------------------------------------


@fast(20)
@given(
    seed=st.integers(0, 10_000),
    families=st.integers(2, 6),
    players=st.integers(3, 5),
    rules=st.sampled_from(ALL_RULES),
)
def test_fact_lists_are_sound_and_never_know_more_than_exact_knowledge(
    seed: int, families: int, players: int, rules: kw.RuleSet
) -> None:
    try:
        game = kw.Game.deal(
            kw.Deck.piquet(families=families), NAMES[:players], seed=seed, rules=rules
        )
    except kw.GameSetupError:
        return  # e.g. a stock game with too few cards
    rng = np.random.default_rng(seed)
    facts = {p: FactKnowledge(p) for p in game.players}
    exact = {p: ExactKnowledge(p) for p in game.players} if not rules.draw_pile else {}
    for _ in range(25):
        if game.is_over:
            break
        for player in game.players:
            view = game.view(player)
            facts[player].update(view)
            if player in exact:
                exact[player].update(view)
            for card in game.deck.cards:
                holder = facts[player].known_holder(card)
                candidates = facts[player].candidates(card)
                true_holder = next((p for p in game.players if card in game.hand(p)), None)
                if holder is not None:
                    assert holder == true_holder, (player, card, holder)
                if true_holder is not None:
                    assert true_holder in candidates
                if holder is not None and player in exact:
                    assert exact[player].known_holder(card) == holder
        game.play(game.random_legal_ask(rng))


def test_hand_sizes_let_exact_knowledge_deduce_what_the_facts_miss() -> None:
    # B holds two cards; B lacks every 7 and 8 left (refusals and open moves), and asked
    # twice for 9S: so B holds 9H and 9D.  A fact list never counts hand sizes.
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=3),
        {"A": ["7H", "8D", "8C", "9C"], "B": ["7S", "8S", "9H", "9D"],
         "C": ["7D", "7C", "8H", "9S"]},
        first="B",
    )  # fmt: skip
    for asker, target, card in [
        ("B", "C", "8C"), ("C", "B", "8S"), ("C", "B", "7S"), ("C", "A", "9H"),
        ("A", "B", "8H"), ("B", "A", "9S"), ("A", "B", "7D"), ("B", "A", "9S"),
        ("A", "B", "7C"),
    ]:  # fmt: skip
        game.ask(target, card, asker=asker)
    view = game.view("A")
    exact, facts = ExactKnowledge("A"), FactKnowledge("A")
    exact.update(view)
    facts.update(view)
    assert exact.known_holder("9D") == "B" and exact.known_holder("9H") == "B"
    assert facts.known_holder("9D") is None
    assert set(facts.candidates("9D")) == {"B", "C"}


def test_fact_propagation_stays_inside_a_family() -> None:
    # C lacks 7H (refused it) and A asked for 7S: A holds one of 7H 7D 7C; the facts
    # cross out what they can inside the family of sevens only.
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7D", "8S"], "B": ["7H", "8H", "8D"], "C": ["7S", "7C", "8C"]},
        first="A",
    )
    game.ask("B", "7S")  # B: no -> B's turn
    facts = FactKnowledge("C")
    facts.update(game.view("C"))
    # C holds 7S and 7C; A holds one of 7H, 7D (not 7S: no bluffing; not 7C: C holds it).
    assert facts.candidates("7H") == ("A", "B")
    assert facts.known_holder("7D") is None
    game.ask("A", "8S")  # B asks A for 8S: yes -> B keeps the turn
    facts.update(game.view("C"))
    assert facts.known_holder("8S") == "B"


def test_no_memory_knows_only_the_own_hand() -> None:
    game = _random_game(1, 8, 4, kw.RuleSet(), asks=20)
    view = game.view("A")
    forgetful = HandKnowledge("A")
    forgetful.update(view)
    p = forgetful.probabilities()
    for card in game.deck.cards:
        holder = forgetful.known_holder(card)
        assert holder == ("A" if card in view.hand else None)
    open_rows = [c.index for c in game.deck.cards if card_is_open(view, c)]
    assert np.allclose(p[open_rows].sum(axis=1), 1.0)


def card_is_open(view: kw.PlayerView, card: kw.Card) -> bool:
    return view.deck.families[card.family_index] not in view.exposed


def test_make_knowledge_names_the_four_kinds() -> None:
    kinds = ("exact", "facts", "facts+hands", "hand")
    assert [make_knowledge(k, "A").kind for k in kinds] == list(kinds)
    assert str(kw.AgentSpec.parse("defensive:facts+hands")) == "defensive:facts+hands"
    with pytest.raises(
        kw.GameSetupError, match=r"expected one of exact, facts, facts\+hands, hand"
    ):
        make_knowledge("oracle", "A")


# ----- one public history for every player of a game ---------------------------------


def test_players_of_one_game_share_the_public_history_and_branches_do_not() -> None:
    import copy
    import dataclasses

    game = _random_game(3, 6, 4, kw.RuleSet(), asks=6)
    a, b = ExactKnowledge("A"), ExactKnowledge("B")
    a.update(game.view("A"))
    b.update(game.view("B"))
    assert a.history is b.history
    # Another branch of the same deal whose record starts with the very same event
    # object: its players' knowledge must follow their own record.
    branch = copy.deepcopy(game)
    old_view = game.view("C")
    for source, seed in ((game, 1), (branch, 2)):
        rng = np.random.default_rng(seed)
        for _ in range(4):
            if not source.is_over:
                source.play(source.random_legal_ask(rng))
    a.update(game.view("A"))
    view = branch.view("C")
    view = dataclasses.replace(view, record=(game.record[0], *view.record[1:]))
    assert view.record != game.record[: len(view.record)]  # the branches differ
    c = ExactKnowledge("C")
    c.update(view)
    assert c.history is not a.history
    assert np.allclose(
        c.probabilities(), kw.knowledge(branch.view("C")).location_probabilities("C")
    )
    # A view older than the shared history is followed on its own.
    late = ExactKnowledge("C")
    late.update(old_view)
    assert late.history is not a.history
    assert np.allclose(late.probabilities(), kw.knowledge(old_view).location_probabilities("C"))
