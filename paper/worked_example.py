"""The worked example of the paper: a 12-card, 3-player deal and what each ask teaches whom.

The deal and the asks are reference position 0 of ``shared/data/reference_positions.json``
(checked there by brute force over every deal).  After every ask the script prints the
exact world counts (public and per player) from the three engines, which must agree, and
the card locations each player newly knows, split into those the table saw (a card that
moved) and those the player *deduced*.  At the end it checks a few higher-order formulas
and shows what the rule "nobody ever holds an unexposed complete family" contributes.

Run from the repository root:  python paper/worked_example.py
"""

from __future__ import annotations

import json
from pathlib import Path

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.epistemics.history import PublicHistory
from kwartet_epistemic.events import Answered

REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "data" / "reference_positions.json"
HANDS = {
    "A": ["8H", "8D", "8C", "9C"],
    "B": ["7S", "7H", "9S", "9D"],
    "C": ["7D", "7C", "8S", "9H"],
}
ASKS = [
    ("A", "C", "9D", "no"),
    ("C", "A", "9D", "no"),
    ("A", "B", "9H", "no"),
    ("B", "C", "9C", "no"),
    ("C", "B", "7H", "yes"),
    ("C", "A", "9C", "yes"),
    ("C", "A", "7S", "no"),
    ("A", "B", "8S", "no"),
]
ENGINES = ("counting", "explicit", "symbolic")
# Formulas checked after a given ask (1-based), to show higher-order and common knowledge.
FORMULAS = {
    1: ["C_{A,B,C} has(B, 9D)"],
    3: ["K_B has(A, 9C)", "K_C has(A, 9C)", "K_A K_B has(A, 9C)", "K_A Kw_B has(A, 9C)"],
    4: ["C_{A,B,C} has(A, 9C)"],
    7: ["C_{A,B,C} has(B, 7S)", "K_B K_C has(B, 7S)"],
    8: ["K_A has(C, 7D)", "K_C ~K_A has(C, 7D)", "C_{A,B,C} ~K_A has(C, 7D)"],
}


def counts(states: dict[str, kw.EpistemicState], players: tuple[str, ...]) -> list[int]:
    """Public and per-player world counts; every engine must give the same numbers."""
    answers = {
        name: [state.count_worlds()] + [state.count_worlds(p) for p in players]
        for name, state in states.items()
    }
    first = answers[ENGINES[0]]
    assert all(a == first for a in answers.values()), answers
    return first


def known(state: kw.EpistemicState, game: kw.Game) -> dict[str, dict[str, str]]:
    """For each player: card -> holder, for every card whose holder the player knows
    (own hand and exposed cards left out)."""
    result: dict[str, dict[str, str]] = {}
    for p in game.players:
        mine = {c.code for c in game.hand(p)}
        result[p] = {}
        for card in game.deck.cards:
            if card.code in mine:
                continue
            holder = state.knows_location(p, card)
            if holder is not None and holder != "exposed":
                result[p][card.code] = holder
    return result


def without_no_complete_family_rule(game: kw.Game, player: str | None) -> int:
    """The count if the 'not-all' clauses (nobody holds an unexposed complete family)
    were dropped: what a reasoner who ignores that rule would consider possible."""
    history = PublicHistory(game.deck, game.players, game.rules)
    history.extend(e.public() for e in game.record)
    for f in range(game.deck.n_families):
        history.clauses[f] = {c for c in history.clauses[f] if c.kind == "some"}
        history.family_changed(f)
    viewers = []
    if player is not None:
        state = kw.knowledge(game)
        viewers = [state.private_info(player)]
    return WorldCounter(history, viewers).count


def complete_family_rule_example() -> None:
    """A deduction that needs the rule 'nobody holds an unexposed complete family'
    (the position of tests/epistemics/test_counting_engine.py, 8 cards, 3 players)."""
    deck = kw.Deck.piquet(families=2)
    hands = {"A": ["7H", "7D", "8C"], "B": ["7C", "8S", "8H"], "C": ["7S", "8D"]}
    game = kw.Game.from_hands(deck, hands, first="A")
    print(
        "\nSecond example (8 cards): " + ", ".join(f"{p}: {' '.join(h)}" for p, h in hands.items())
    )
    for target, card in (("B", "8D"), ("C", "7S"), ("A", "7D"), ("A", "8C")):
        events = game.ask(target, card)
        print("  " + " ".join(e.sentence() for e in events[:2]))
    state = kw.knowledge(game)
    print(
        f"  C's worlds: {state.count_worlds('C')} (without the rule: "
        f"{without_no_complete_family_rule(game, 'C')});"
        f" C knows the holder of 8H: {state.knows_location('C', '8H')};"
        f" of 7H: {state.knows_location('C', '7H')}"
    )
    print(f"  K_C has(B, 8H): {state.holds('K_C has(B, 8H)')}")


def main() -> None:
    deck = kw.Deck.piquet(families=3)
    game = kw.Game.from_hands(deck, HANDS, first="A")
    players = game.players
    states = {name: kw.knowledge(game, engine=name) for name in ENGINES}
    auto = kw.knowledge(game)
    print("Deal (12 cards: families 7, 8, 9):")
    for p in players:
        print(f"  {p}: {' '.join(c.code for c in game.hand(p))}")
    header = "worlds public / A / B / C"
    print(f"At the deal: {header} = {' / '.join(map(str, counts(states, players)))}")
    print(
        "  without the no-complete-family rule: "
        + " / ".join(str(without_no_complete_family_rule(game, q)) for q in (None, *players))
    )
    before = known(auto, game)
    for number, (asker, target, card, answer) in enumerate(ASKS, start=1):
        events = game.ask(target, card, asker=asker)
        reply = events[1]
        assert isinstance(reply, Answered) and reply.has_card == (answer == "yes")
        line = " ".join(e.sentence() for e in events[:2])
        numbers = counts(states, players)
        print(f"\n{number}. {line}")
        print(f"   {header} = {' / '.join(map(str, numbers))}")
        ignoring = [without_no_complete_family_rule(game, q) for q in (None, *players)]
        if ignoring != numbers:
            print(f"   without the no-complete-family rule: {' / '.join(map(str, ignoring))}")
        after = known(auto, game)
        history = auto.history
        for p in players:
            new = {c: h for c, h in after[p].items() if before[p].get(c) != h}
            if not new:
                continue
            seen = [f"{c}@{h}" for c, h in new.items() if history.location[deck.card(c).index]]
            deduced = [
                f"{c}@{h}" for c, h in new.items() if not history.location[deck.card(c).index]
            ]
            parts = []
            if deduced:
                parts.append("deduces " + ", ".join(deduced))
            if seen:
                parts.append("sees " + ", ".join(seen))
            print(f"   {p} {'; '.join(parts)}")
        before = after
        for text in FORMULAS.get(number, []):
            # The explicit and the symbolic engine evaluate every formula; they must agree.
            answers = {name: states[name].holds(text) for name in ("explicit", "symbolic")}
            assert len(set(answers.values())) == 1, (text, answers)
            print(f"   {text:<34} {answers['explicit']}")

    print("\nAfter the eight asks, every card whose holder someone knows:")
    for p in players:
        listed = ", ".join(f"{c}@{h}" for c, h in sorted(before[p].items()))
        print(f"  {p} knows: {listed}")
    final = counts(states, players)
    if REFERENCE.exists():
        reference = json.loads(REFERENCE.read_text())["positions"][0]["worlds"]
        expected = [reference["public"]] + [reference[p] for p in players]
        assert final == expected, (final, expected)
        print(f"Final counts {final} = reference position 0 (brute force over every deal).")
    complete_family_rule_example()


if __name__ == "__main__":
    main()
