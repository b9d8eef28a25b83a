"""experiments/exact_vs_facts.py: what the exact state locates that the fact list misses.

By construction checks on a few 32-card games: the exact state never misses what the
fact list with the hand rules locates, which never misses what the fact list locates,
each extra location has one category and the categories sum to the extra count, the
hand rules' recovered cards sum to what they add, the rows agree with a state built afresh, the counting rules only draw
conclusions the exact state draws, and every worked example's explanation forces its
card.  Plus the two counting rules on hand-built fact lists, with known answers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from kwartet_testing import load_script

import kwartet_epistemic as kw
from kwartet_epistemic.agents import ExactKnowledge, FactKnowledge, FactKnowledgeWithHands

ROOT = Path(__file__).resolve().parents[2]


evf = load_script("experiments/exact_vs_facts.py")
GAMES = [(i, 14_000 + i) for i in range(4)]


@pytest.fixture(scope="module")
def played():
    return [evf.play_game(i, seed) for i, seed in GAMES]


def test_exact_never_misses_what_facts_locate_and_categories_sum_to_the_extra(played):
    columns = [f"extra_{c.replace(' ', '_')}" for c in evf.CATEGORIES]
    extra_seen = 0
    for result in played:
        assert {row["turn"] for row in result.rows} == set(range(result.asks + 1))
        for row in result.rows:
            assert list(row) == evf.COLUMNS
            assert 0 <= row["facts"] <= row["hands"] <= row["exact"] <= row["hidden"]
            assert row["extra"] == row["exact"] - row["facts"]
            assert sum(row[c] for c in columns) == row["extra"]
            # every card the hand rules add is an extra card of exactly one category
            recovered = [row[c.replace("extra_", "recovered_")] for c in columns]
            assert sum(recovered) == row["hands"] - row["facts"]
            assert all(0 <= n <= row[c] for n, c in zip(recovered, columns, strict=True))
            extra_seen += row["extra"]
        for episode in result.episodes:
            assert episode["category"] in evf.CATEGORIES
            assert episode["forces"]
    assert extra_seen > 0  # the games do show extra locations


def test_rows_agree_with_knowledge_built_afresh_at_later_turns(played):
    for result in played[:2]:
        for turn in (result.asks // 2, result.asks):
            state = evf.play_game(result.index, result.seed, (turn, "A", "7S"))
            game = state.source
            for row in (r for r in result.rows if r["turn"] == turn):
                p = row["player"]
                facts = FactKnowledge(p)
                facts.update(game.view(p))
                hands = FactKnowledgeWithHands(p)
                hands.update(game.view(p))
                hidden = [c for q in game.players if q != p for c in game.hand(q)]
                assert row["hidden"] == len(hidden)
                assert row["exact"] == sum(state.knows_location(p, c) is not None for c in hidden)
                assert row["facts"] == sum(facts.known_holder(c) is not None for c in hidden)
                assert row["hands"] == sum(hands.known_holder(c) is not None for c in hidden)


def test_episode_categories_match_their_explanations(played):
    for result in played:
        for episode in result.episodes:
            kinds = set(episode["kinds"])
            if episode["category"] == "rule":  # without the rule's facts it is not located
                assert "rule" in kinds
            elif episode["category"] != "family":  # counting was needed
                assert kinds & {"hand sizes", "rule"}


def test_counting_rules_only_conclude_what_the_exact_state_knows(played):
    result = played[0]
    for turn in range(0, result.asks + 1, 4):
        state = evf.play_game(result.index, result.seed, (turn, "A", "7S"))
        game = state.source
        for p in game.players:
            facts, exact = FactKnowledge(p), ExactKnowledge(p)
            facts.update(game.view(p))
            exact.update(game.view(p))
            sizes = dict(game.hand_sizes)
            one = evf.counting_locates(facts, sizes, 1)
            two = evf.counting_locates(facts, sizes, 2)
            for card in game.deck.cards:
                if state.history.location[card.index] is not None:
                    continue  # exposed: no holder
                known = facts.known_holder(card)
                assert known in (None, one[card.index])  # the rules only add
                assert one[card.index] in (None, two[card.index])
                assert two[card.index] in (None, exact.known_holder(card))


def _fact_list(lacks: dict[str, str], clauses: list[tuple[str, list[str]]]):
    """A's fact list in a 2-family game (A: 7S 8S; hands B 1, C 1, D 4), extended with
    hand-made facts: ``lacks`` maps a card to the players known to lack it."""
    deck = kw.Deck.piquet(families=2)
    hands = {"A": ["7S", "8S"], "B": ["7H"], "C": ["8H"], "D": ["7D", "7C", "8D", "8C"]}
    game = kw.Game.from_hands(deck, hands, first="A")
    facts = FactKnowledge("A")
    facts.update(game.view("A"))
    for code, players in lacks.items():
        facts._lacks[deck.card(code).index] |= set(players)
    for player, codes in clauses:
        cards = frozenset(deck.card(c).index for c in codes)
        facts._clauses[deck.card(codes[0]).family_index].append((player, cards))
    for f in range(deck.n_families):
        facts._propagate(f)
    return deck, facts, dict(game.hand_sizes)


def test_full_hand_rule_a_hand_whose_cards_are_all_known_holds_no_other():
    # B's one card is 8H (known), so B lacks 7H; D lacks 7H: C holds it.
    deck, facts, sizes = _fact_list({"7H": "D"}, [])
    facts._holder[deck.card("8H").index] = "B"
    assert facts.known_holder("7H") is None
    assert evf.counting_locates(facts, sizes, 1)[deck.card("7H").index] == "C"


def test_pigeonhole_rule_two_players_places_filled_by_a_card_and_a_clause():
    # Only B or C may hold 7H, and B holds one of 8H 8D: B's and C's two cards are those,
    # so 7D, 7C and 8C are D's.  No single hand is full, so the full-hand rule says nothing.
    deck, facts, sizes = _fact_list({"7H": "D"}, [("B", ["8H", "8D"])])
    one = evf.counting_locates(facts, sizes, 1)
    two = evf.counting_locates(facts, sizes, 2)
    for code in ("7D", "7C", "8C"):
        assert facts.known_holder(code) is None
        assert one[deck.card(code).index] is None
        assert two[deck.card(code).index] == "D"
    assert two[deck.card("7H").index] is None  # B or C: not decided


def test_hands_numbers_are_differences_of_the_located_shares():
    rows = [
        {"game": g, "turn": 0, "hidden": 20, "exact": e, "facts": f, "hands": h,
         **{f"extra_{c.replace(' ', '_')}": 0 for c in evf.CATEGORIES},
         **{f"recovered_{c.replace(' ', '_')}": 0 for c in evf.CATEGORIES}}
        for g, (e, f, h) in enumerate([(4, 2, 3), (6, 2, 6), (2, 2, 2)])
    ]  # fmt: skip
    rows[0]["extra_full_hand"], rows[0]["recovered_full_hand"] = 2, 1
    numbers = evf.headline(rows)["all"]
    assert numbers["exact_share"] == pytest.approx(12 / 60)
    assert numbers["hands_share"] == pytest.approx(11 / 60)
    assert numbers["exact_minus_facts_pts"] == pytest.approx(100 * 6 / 60)
    assert numbers["hands_minus_facts_pts"] == pytest.approx(100 * 5 / 60)
    assert numbers["exact_minus_hands_pts"] == pytest.approx(100 * 1 / 60)
    assert numbers["hands_recovered_pct"] == pytest.approx(100 * 5 / 6)
    assert numbers["more_than_hands_pct"] == pytest.approx(100 * 1 / 11)
    assert numbers["recovered"]["full hand"] == 0.5
    for key in ("exact_minus_facts_pts", "exact_minus_hands_pts", "hands_recovered_pct"):
        low, high = numbers[f"{key}_95"]
        assert low <= numbers[key] <= high


def test_intervals_do_not_depend_on_the_order_games_finished_in():
    rows = [
        {"game": g, "turn": t, "hidden": 20, "exact": (g * 7 + t) % 5 + 2, "facts": 2,
         "hands": (g * 7 + t) % 5 + 1 if g % 3 else 2,
         **{f"extra_{c.replace(' ', '_')}": 0 for c in evf.CATEGORIES},
         **{f"recovered_{c.replace(' ', '_')}": 0 for c in evf.CATEGORIES}}
        for g in range(12)
        for t in (0, 15, 31)  # some turns after 30, so that every part has rows
    ]  # fmt: skip
    shuffled = sorted(rows, key=lambda r: (-r["game"] * 5 % 12, r["turn"]))
    assert shuffled != rows
    assert evf.headline(shuffled) == evf.headline(rows)


def test_run_writes_every_output_and_resumes(tmp_path):
    first = evf.run(2, tmp_path, seed=14_000)
    again = evf.run(3, tmp_path, seed=14_000)  # plays only the third game
    assert again["meta"]["games_this_run"] == 1 and again["games"] == 3
    assert first["all"]["rows"] < again["all"]["rows"]
    for name in ("exact_vs_facts.csv", "exact_vs_facts_by_turn.csv", "exact_vs_facts.png",
                 "exact_vs_facts_episodes.csv", "exact_vs_facts.txt"):  # fmt: skip
        assert (tmp_path / name).stat().st_size > 0
    with pytest.raises(ValueError, match="holds games of"):  # a folder holds one set of agents
        evf.run(4, tmp_path, seed=14_000, agents=["knowledge"] * 4)
    assert evf.run(3, tmp_path, seed=14_000)["all"] == again["all"]  # nothing was changed
    (row,) = evf.compare([tmp_path], tmp_path / "table")  # the side-by-side table reads it back
    assert row["games"] == 3 and row["all_more_pct"] == round(again["all"]["more_pct"], 2)
    assert row["all_hands_share"] == round(again["all"]["hands_share"], 4)
    macros = (tmp_path / "exact_vs_facts_numbers.tex").read_text()
    for name in ("AllHandsShare", "AllExactMinusHandsPtsCI", "LateHandsRecovered",
                 "AllRecoveredPigeonhole", "AllMore", "AllCatFullHand"):  # fmt: skip
        assert f"\\kwExact{name}}}" in macros
    text = (tmp_path / "exact_vs_facts.txt").read_text()
    assert "exact - facts+hands" in text and "facts+hands - facts" in text
    import json

    for entry in json.loads((tmp_path / "exact_vs_facts_catalogue.json").read_text()):
        if entry["found"]:
            assert entry["forces"] and entry["holder"] == entry["true_holder"]
            assert len(entry["facts_candidates"]) > 1  # the fact list does not know it


def test_a_folder_of_rows_without_the_hand_rules_counts_is_not_resumed(tmp_path):
    evf.run(2, tmp_path, seed=14_000)
    path = tmp_path / "exact_vs_facts.csv"
    lines = path.read_text().splitlines()
    width = evf.COLUMNS.index("hands")  # the columns an earlier version wrote
    path.write_text("\n".join(",".join(line.split(",")[:width]) for line in lines) + "\n")
    with pytest.raises(ValueError, match="another version"):
        evf.run(3, tmp_path, seed=14_000)


def test_a_run_stopped_inside_its_last_game_resumes_to_the_same_numbers(tmp_path):
    """Cut either file inside the last game's lines (at its first byte, its last, and
    between): the game is played again, and the numbers equal those of the run that was
    never stopped.  (Every byte offset of a torn tail is tested on the files themselves.)"""
    whole = evf.run(3, tmp_path / "whole", seed=14_000)["all"]
    done = tmp_path / "done"
    evf.run(2, done, seed=14_000)
    csv_keep = (done / "exact_vs_facts.csv").stat().st_size
    log_keep = (done / "exact_vs_facts_games.jsonl").stat().st_size
    evf.run(3, done, seed=14_000)
    csv_bytes = (done / "exact_vs_facts.csv").read_bytes()
    log_bytes = (done / "exact_vs_facts_games.jsonl").read_bytes()

    def spread(start: int, end: int) -> list[int]:
        return sorted({start, start + 1, (start + end) // 2, end - 1})

    cuts = [(len(csv_bytes), cut) for cut in spread(log_keep, len(log_bytes))]
    cuts += [(cut, log_keep) for cut in spread(csv_keep, len(csv_bytes))]
    for csv_cut, log_cut in cuts:
        (done / "exact_vs_facts.csv").write_bytes(csv_bytes[:csv_cut])
        (done / "exact_vs_facts_games.jsonl").write_bytes(log_bytes[:log_cut])
        again = evf.run(3, done, seed=14_000)
        assert again["meta"]["games_this_run"] == 1 and again["all"] == whole, (csv_cut, log_cut)
