"""Knowledge-based programs: rules in the formula language, interpreted (never eval'd)."""

from __future__ import annotations

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.agents import (
    GREEDY_PROGRAM,
    OWNER_PROGRAM,
    Agent,
    ExactKnowledge,
    FactKnowledge,
    KnowledgeProgram,
    ProgramError,
    Rule,
)


def _two_refusals() -> kw.Game:
    """A to move; everybody knows that C holds 7D and 7C."""
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]},
        first="A",
    )
    game.ask("B", "7D")
    game.ask("A", "7C")
    return game


def _agent(
    program: KnowledgeProgram, player: str, knowledge: str = "exact", seed: int = 0
) -> Agent:
    base = ExactKnowledge(player) if knowledge == "exact" else FactKnowledge(player)
    return Agent(player, program, base, np.random.default_rng(seed))


def test_rules_parse_into_formula_trees_with_typed_variables() -> None:
    rule = Rule.parse("K_me has(?p, ?c) & need(?c)", "ask ?p ?c")
    assert rule.types() == {"?p": "player", "?c": "card"}
    assert str(rule) == "(K_me has(?p, ?c) & need(?c), ask ?p ?c)"
    assert Rule.parse("need(QH) & opponent(B)", "ask B QH").target == "B"


@pytest.mark.parametrize(
    ("condition", "action", "message"),
    [
        ("need(?c)", "take ?c", "expected 'ask PLAYER CARD'"),
        ("has(?c, ?p)", "ask ?p ?c", "used as a card and as a player"),
        ("likes(?p)", "ask ?p QH", "expected one of has"),
        ("need(?c, ?d)", "ask B ?c", "need takes 1 argument"),
    ],
)
def test_bad_rules_are_refused_with_the_reason(condition: str, action: str, message: str) -> None:
    with pytest.raises(ProgramError, match=message):
        KnowledgeProgram.from_rules([(condition, action)])


def test_condition_text_is_parsed_never_evaluated_as_python() -> None:
    with pytest.raises(kw.KwartetError):
        KnowledgeProgram.from_rules([("__import__('os').system('true')", "ask ?p ?c")])


def test_the_first_firing_rule_decides() -> None:
    game = _two_refusals()
    program = KnowledgeProgram.from_rules(
        [
            ("K_me has(?p, ?c) & need(?c) & asked(B, ?c)", "ask ?p ?c"),  # only 7D was asked of B
            ("K_me has(?p, ?c) & need(?c)", "ask ?p ?c"),
        ]
    )
    for seed in range(5):
        ask = _agent(program, "A", seed=seed).choose(game.view("A"))
        assert (ask.target, ask.card.code) == ("C", "7D")


def test_shipped_programs_ask_a_known_holder_first_and_else_a_possible_holder() -> None:
    game = _two_refusals()
    for program in (OWNER_PROGRAM, GREEDY_PROGRAM):
        for knowledge in ("exact", "facts"):
            ask = _agent(program, "A", knowledge).choose(game.view("A"))
            assert (ask.target, ask.card.code) in {("C", "7D"), ("C", "7C")}
    # At the deal nothing is known: the owner program asks a possible holder.
    fresh = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=2)
    player = fresh.to_move or ""
    agent = _agent(OWNER_PROGRAM, player)
    ask = agent.choose(fresh.view(player))
    assert ask in fresh.legal_asks() and ask.card not in fresh.view(player).hand


def test_a_program_may_not_read_another_players_hand() -> None:
    program = KnowledgeProgram.from_rules([("has(?p, ?c) & need(?c)", "ask ?p ?c")])
    with pytest.raises(ProgramError, match="cannot see"):
        _agent(program, "A").choose(_two_refusals().view("A"))


def test_knowledge_of_a_disjunction_is_decided_exactly() -> None:
    # A knows that C holds 7D or B holds it (C does); so K_me (has(B,7D) | has(C,7D)).
    game = _two_refusals()
    program = KnowledgeProgram.from_rules(
        [("K_me (has(B, 7D) | has(C, ?c)) & need(?c) & opponent(?p)", "ask ?p ?c")]
    )
    ask = _agent(program, "A").choose(game.view("A"))
    assert ask.card.code in ("7D", "7C")


def test_other_agents_knowledge_goes_to_the_epistemic_state() -> None:
    # Nested knowledge at a teaching size: ask C for a card only if A knows that B knows
    # C holds it; the explicit engine decides K_A K_B has(C, c).
    game = _two_refusals()
    program = KnowledgeProgram.from_rules(
        [("K_me K_B has(C, ?c) & need(?c)", "ask C ?c"), ("need(?c)", "ask B ?c")]
    )
    ask = _agent(program, "A").choose(game.view("A"))
    state = kw.knowledge(game.view("A"))
    sure = {code for code in ("7D", "7C", "8C") if state.holds(f"K_A K_B has(C, {code})")}
    assert sure == {"7D", "7C"}  # B's own refusal and ask told B; B cannot place 8C
    assert ask.target == "C" and ask.card.code in sure
    with pytest.raises(ProgramError, match="only exact knowledge"):
        _agent(program, "A", "facts").choose(game.view("A"))


def test_a_program_is_usable_by_name_once_registered() -> None:
    from kwartet_epistemic.agents import make_agent, register_policy

    cautious = KnowledgeProgram.from_rules(
        [("K_me has(?p, ?c) & need(?c)", "ask ?p ?c")], name="cautious"
    )
    register_policy("cautious_test", lambda options: cautious, replace=True)
    agent = make_agent("cautious_test:facts", "A", np.random.default_rng(0))
    assert agent.policy is cautious and agent.knowledge.kind == "facts"
