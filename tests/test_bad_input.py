"""Bad input gets a clear error and changes nothing.

Every public entry point given junk (wrong types, bools for counts, negative counts,
unknown or unicode player names, 2 or 7 players, odd deck sizes, deep or huge JSON)
either works or raises a :class:`KwartetError` (a ``ValueError``) whose message names
the input and what was expected, and the objects involved are left exactly as they were:
each test compares a game's record, events and JSON (or a state's answers) before and
after a refused call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kwartet_epistemic as kw
from kwartet_epistemic.errors import GameSetupError, IllegalAskError, KwartetError

# ----- helpers -------------------------------------------------------------------------


def snapshot(game: kw.Game) -> tuple[Any, ...]:
    """Everything a caller can see of a game (and its record as JSON)."""
    return (
        kw.GameRecord.from_game(game).to_json(),
        game.events,
        game.record,
        game.actions,
        game.to_move,
        game.hand_sizes,
        {p: game.hand(p) for p in game.players},
        game.scores,
        game.middle,
        game.stock_size,
        game.legal_asks(),
        game.view(game.players[0]),
    )


def refused_and_unchanged(game: kw.Game, call: Callable[[], object], *words: str) -> str:
    """``call`` raises a KwartetError naming ``words`` and leaves ``game`` as it was."""
    before = snapshot(game)
    with pytest.raises(KwartetError) as info:
        call()
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    for word in words:
        assert word in message, (word, message)
    assert snapshot(game) == before
    return message


def memory_game(seed: int = 1) -> kw.Game:
    return kw.Game.deal(
        kw.Deck.piquet(), ["A", "B", "C"], seed=seed, rules=kw.RuleSet(memory_cards=3)
    )


def played(rules: kw.RuleSet, seed: int, players: int = 4, deck: kw.Deck | None = None) -> kw.Game:
    game = kw.Game.deal(
        deck or kw.Deck.piquet(), [f"P{i}" for i in range(players)], seed=seed, rules=rules
    )
    rng = np.random.default_rng(seed)
    while not game.is_over:
        asks = game.legal_asks()
        game.play(asks[rng.integers(len(asks))])
    return game


# ----- the referee ---------------------------------------------------------------------


@pytest.mark.parametrize("slot", [True, False, -1, 3, 1.0, "0", None])
def test_turn_over_refuses_bools_and_other_non_slots_changing_nothing(slot: object) -> None:
    game = memory_game()
    refused_and_unchanged(game, lambda: game.turn_over(slot), "middle slot", "0 to 2")  # type: ignore[arg-type]


def test_turn_over_takes_a_numpy_integer_and_records_a_plain_int() -> None:
    game = memory_game()
    game.turn_over(np.int64(1))  # type: ignore[arg-type]
    assert game.actions[-1] == (
        "turn_over",
        "A" if game.actions[-1][1] == "A" else game.actions[-1][1],
        1,
    )
    assert type(game.actions[-1][2]) is int
    json.loads(kw.GameRecord.from_game(game).to_json())


@pytest.mark.parametrize(
    ("target", "card"),
    [("Z", "QH"), (["B"], "QH"), (None, "QH"), ("B", "QX"), ("B", ["QH"]), ("B", 5), ("B", None)],
)
def test_a_refused_ask_changes_nothing(target: object, card: object) -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    refused_and_unchanged(game, lambda: game.ask(target, card))  # type: ignore[arg-type]
    refused_and_unchanged(game, lambda: game.ask("B", "KD", asker=["A"]))  # type: ignore[arg-type]


def test_every_illegal_ask_of_a_random_game_changes_nothing() -> None:
    game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=3)
    rng = np.random.default_rng(3)
    while not game.is_over:
        legal = set(game.legal_asks())
        for target in (*game.players, "Z"):
            for card in game.deck.cards:
                if kw.Ask(game.to_move, target, card) not in legal:  # type: ignore[arg-type]
                    refused_and_unchanged(game, lambda t=target, c=card: game.ask(t, c))
        asks = sorted(legal, key=str)
        game.play(asks[rng.integers(len(asks))])
    refused_and_unchanged(game, lambda: game.ask("A", "7S"), "the game is over")


@pytest.mark.parametrize(
    ("players", "words"),
    [
        (["A", "B"], ["2 players", "3 to 6"]),
        (["A", "B", "C", "D", "E", "F", "G"], ["7 players", "3 to 6"]),
        ([f"P{i}" for i in range(1_000_000)], ["1000000 players"]),
        (["A"], ["1 players"]),
        ([], ["0 players"]),
        (["Ä", "B", "C"], ["player name 'Ä'", "ASCII letters"]),
        (["A", "B", "名前"], ["player name '名前'"]),
        (["A", "B", "C\n"], ["player name 'C\\n'"]),
        (["A", "B", "x" * 41], ["40 ASCII letters"]),
        (["A", "B", 3], ["player name 3"]),
        (["A", "B", ["C"]], ["player name ['C']"]),
        (["A", "A", "B"], ["must be unique"]),
        ("ABC", ["players 'ABC'"]),
        (None, ["players None"]),
    ],
)
def test_bad_seatings_are_refused_naming_the_players(players: Any, words: list[str]) -> None:
    with pytest.raises(GameSetupError) as info:
        kw.Game.deal(kw.Deck.piquet(), players, seed=1)
    for word in words:
        assert word in str(info.value)


def test_two_players_play_with_a_draw_pile_and_six_with_one_family() -> None:
    two = played(kw.RuleSet.preset("fish"), 1, players=2)
    assert sum(two.scores.values()) == 8
    six = played(kw.RuleSet(), 2, players=6, deck=kw.Deck.piquet(families=1))
    assert sum(six.scores.values()) == 1 and list(six.hand_sizes.values()).count(0) >= 2


@pytest.mark.parametrize("seed", [True, -1, 2**256, 1.5, "7", [7], np.float64(3.0)], ids=repr)
def test_bad_seeds_are_refused(seed: object) -> None:
    with pytest.raises(
        GameSetupError, match="seed .*expected None or an integer from 0 to 2\\*\\*256 - 1"
    ):
        kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=seed)  # type: ignore[arg-type]


def test_the_largest_seed_deals_saves_and_loads(tmp_path: Any) -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=2**256 - 1)
    game.save(tmp_path / "big.json")
    assert kw.Game.load(tmp_path / "big.json").events == game.events
    numpy_seed = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=np.uint64(5))
    assert type(numpy_seed.seed) is int


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: kw.Game.from_hands(kw.Deck.piquet(families=1), {}), ["no players"]),
        (lambda: kw.Game.from_hands(kw.Deck.piquet(families=1), [("A", ["7S"])]), ["hands"]),
        (
            lambda: kw.Game.from_hands(
                kw.Deck.piquet(families=1), {"A": 5, "B": ["7H"], "C": ["7D", "7C"]}
            ),
            ["A's hand: expected a list of cards, got 5"],
        ),
        (
            lambda: kw.Game.from_hands(
                kw.Deck.piquet(families=1),
                {"A": ["7S"], "B": ["7H"], "C": ["7D", "7C"]},
                first=["A"],
            ),
            ["first player ['A']"],
        ),
        (
            lambda: kw.Game(
                kw.Deck.piquet(families=1),
                ["A", "B", "C"],
                {"A": ["7S"], "B": ["7H"], "C": ["7D", "7C"]},
                dealer=["A"],
            ),
            ["dealer ['A']"],
        ),
        (
            lambda: kw.Game(
                kw.Deck.piquet(families=1), ["A", "B", "C"], ["A", "B", "C"], dealer="A"
            ),
            ["hands ['A', 'B', 'C']: expected a mapping"],
        ),
        (
            lambda: kw.Game(
                kw.Deck.piquet(families=1),
                ["A", "B", "C"],
                {"A": ["7S"], "B": ["7H"], "C": ["7D", "7C"]},
                dealer="A",
                seed="x",
            ),
            ["seed 'x'"],
        ),
        (
            lambda: kw.Game.from_hands(
                kw.Deck.piquet(families=1),
                {"A": ["7S"], "B": ["7H"], "C": ["7D"]},
                stock=5,
            ),
            ["the stock: expected a list of cards, got 5"],
        ),
    ],
)
def test_bad_game_setups_are_game_setup_errors(
    call: Callable[[], object], words: list[str]
) -> None:
    with pytest.raises(GameSetupError) as info:
        call()
    for word in words:
        assert word in str(info.value)


def test_random_legal_ask_and_parse_ask_refuse_the_wrong_types() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=1)
    refused_and_unchanged(
        game, lambda: game.random_legal_ask(5), "expected a numpy.random.Generator"
    )  # type: ignore[arg-type]
    with pytest.raises(IllegalAskError, match="expected a Game or a PlayerView"):
        kw.parse_ask("B QH", "not a game")  # type: ignore[arg-type]
    with pytest.raises(IllegalAskError, match="at most 1,000"):
        kw.parse_ask("B " + "Q" * 1_000_000, game)
    with pytest.raises(KwartetError):
        game.view(["A"])  # type: ignore[arg-type]
    with pytest.raises(KwartetError):
        game.hand("Z")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    families=st.integers(1, 5),
    n=st.integers(0, 8),
    rules=st.sampled_from(
        [
            kw.RuleSet(),
            kw.RuleSet.preset("dutch"),
            kw.RuleSet.preset("lamas"),
            kw.RuleSet(draw_pile=True, cards_each=2),
            kw.RuleSet(draw_pile=True, cards_each=1, bonus_turn=True),
            kw.RuleSet(memory_cards=2),
            kw.RuleSet(memory_cards=5, dealing="equal"),
            kw.RuleSet(bluffing=True),
        ]
    ),
    seed=st.integers(0, 2**64),
)
def test_any_deck_size_and_seating_deals_and_plays_or_is_refused(
    families: int, n: int, rules: kw.RuleSet, seed: int
) -> None:
    players = [f"P{i}" for i in range(n)]
    try:
        game = kw.Game.deal(kw.Deck.piquet(families=families), players, seed=seed, rules=rules)
    except GameSetupError as err:
        assert str(n) in str(err) or "cards" in str(err) or "middle" in str(err)
        return
    rng = np.random.default_rng(seed)
    k = kw.knowledge(game)
    while not game.is_over:
        if game.view(game.to_move).may_turn_over and rng.random() < 0.3:  # type: ignore[arg-type]
            game.turn_over([i for i, c in enumerate(game.middle) if c is None][0])
        else:
            game.play(game.random_legal_ask(rng))
    for p in players:
        assert k.count_worlds(p) >= 1
        probabilities = k.location_probabilities(p)
        rows = probabilities.sum(axis=1)  # piles and exposures take the rest of a row
        assert ((rows >= -1e-9) & (rows <= 1 + 1e-9)).all()
    again = kw.GameRecord.from_json(kw.GameRecord.from_game(game).to_json()).replay()
    assert again.events == game.events


# ----- the epistemic state -------------------------------------------------------------


@pytest.mark.parametrize("engine", ["auto", "counting", "explicit", "symbolic"])
@pytest.mark.parametrize("player", ["Z", ["A"], 5, None, b"A"], ids=repr)
def test_unknown_players_are_kwartet_errors_on_every_engine(engine: str, player: Any) -> None:
    game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    k = kw.knowledge(game, engine=engine)
    before = (k.count_worlds(), k.count_worlds("A"), k.knows_location("A", "7S"))
    calls: list[Callable[[], object]] = [lambda: k.knows_location(player, "7S")]
    if player is not None:  # None means "all worlds" here
        calls += [
            lambda: k.sample_worlds(player, 1, 0),
            lambda: k.count_worlds(player),
            lambda: k.location_counts(player),
            lambda: k.location_probabilities(player),
        ]
    for call in calls:
        with pytest.raises(KwartetError):
            call()
    assert (k.count_worlds(), k.count_worlds("A"), k.knows_location("A", "7S")) == before


@pytest.mark.parametrize("limit", ["x", True, -1, 2.5, [10]], ids=repr)
def test_kripke_model_refuses_a_limit_that_is_not_a_number_of_worlds(limit: object) -> None:
    k = kw.knowledge(kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1))
    with pytest.raises(KwartetError, match=r"kripke_model\(limit=.*expected None"):
        k.kripke_model(limit=limit)  # type: ignore[arg-type]
    assert k.kripke_model(limit=np.int64(10**6)).n_worlds == k.count_worlds()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("n", "rng"), [(-1, 0), (True, 0), (1.0, 0), ("2", 0), (1, "seed"), (1, -5), (1, True)]
)
def test_sample_worlds_refuses_bad_counts_and_generators(n: object, rng: object) -> None:
    k = kw.knowledge(kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3))
    with pytest.raises(KwartetError, match="sample_worlds"):
        k.sample_worlds("A", n, rng)  # type: ignore[arg-type]
    assert len(k.sample_worlds("A", 0)) == 0


def test_an_unknown_engine_is_refused() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=1)
    for engine in ("fast", ["auto"], None):
        with pytest.raises(KwartetError, match="engine .*expected one of auto"):
            kw.knowledge(game, engine=engine)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rules", "players"),
    [
        (kw.RuleSet.preset("dutch"), 3),  # 2 cards set aside
        (kw.RuleSet(memory_cards=2), 4),
        (kw.RuleSet(dealing="equal", memory_cards=2), 4),  # both piles: 2 set aside, 2 middle
    ],
    ids=["dutch", "memory", "equal+memory"],
)
@pytest.mark.parametrize("seed", range(4))
def test_after_the_end_revealed_cards_are_located_in_their_own_pile(
    rules: kw.RuleSet, players: int, seed: int
) -> None:
    game = played(rules, seed, players=players)
    deal = game.initial_deal
    piles = {**dict.fromkeys(deal["aside"], "aside"), **dict.fromkeys(deal["middle"], "middle")}
    assert piles and game.is_over
    for k in (kw.knowledge(game), kw.knowledge(game.view("P1")), kw.knowledge(game, "explicit")):
        for code, pile in piles.items():
            assert k.knows_location("P1", code) == pile  # not 'face down'


# ----- tournaments and agents ----------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"games": True}, ["games=True", "0 to 1,000,000"]),
        ({"games": -1}, ["games=-1"]),
        ({"games": 10**5000}, ["games=<an integer of about 5001 digits>"]),
        ({"games": 1_000_001}, ["games=1000001"]),
        ({"jobs": True}, ["jobs=True", "1 to 1024"]),
        ({"jobs": 0}, ["jobs=0"]),
        ({"seed": True}, ["seed=True", "2**256 - 1"]),
        ({"seed": -1}, ["seed=-1"]),
        ({"seed": 2**256}, ["seed="]),
        ({"scheduler": 5}, ["scheduler=5"]),
        ({"agents": "random"}, ["agents 'random': expected a list of agent specs"]),
        ({"agents": None}, ["agents None"]),
        ({"agents": ["random"] * 7}, ["7 agents"]),
    ],
)
def test_bad_tournament_options_are_refused_before_any_game(
    options: dict[str, Any], words: list[str], tmp_path: Any
) -> None:
    arguments: dict[str, Any] = {"agents": ["random"] * 3, "games": 2, "seed": 1}
    arguments.update(options)
    out = tmp_path / "results.csv"
    with pytest.raises(GameSetupError) as info:
        kw.tournament(arguments.pop("agents"), arguments.pop("games"), out=out, **arguments)
    for word in words:
        assert word in str(info.value)
    assert not out.exists()  # nothing was written


def test_replay_game_and_read_results_refuse_what_is_not_theirs(tmp_path: Any) -> None:
    from kwartet_epistemic.tournament import read_results

    with pytest.raises(KwartetError, match="expected a GameResult"):
        kw.replay_game(5)  # type: ignore[arg-type]
    with pytest.raises(KwartetError, match="cannot read tournament results"):
        read_results(tmp_path / "missing.csv")
    out = tmp_path / "results.csv"
    kw.tournament(["random"] * 3, 2, seed=1, out=out)
    good = out.read_text(encoding="utf-8")
    for bad, words in (
        (good.replace("\n0,", "\nx,", 1).encode(), "line 2: game .x.: expected a whole number"),
        (
            good.replace("\n0,", "\n0," + "9" * 5000, 1).encode(),
            "line 2: seed .*at most 80 digits",
        ),
        (b"\xff\xfe\x00game,seed\n", "not a tournament results file"),
    ):
        out.write_bytes(bad)
        with pytest.raises(KwartetError, match=words):
            read_results(out)
        with pytest.raises(KwartetError):
            kw.tournament(["random"] * 3, 3, seed=1, out=out)  # resuming reads it too


# ----- the teaching examples -----------------------------------------------------------


@pytest.mark.parametrize(
    "n", [True, 0, -1, 2.5, "3", 10**5000], ids=["True", "0", "-1", "2.5", "3", "huge"]
)
def test_muddy_children_refuse_what_is_not_a_number_of_children(n: object) -> None:
    from kwartet_epistemic.errors import ModelError

    for build in (
        lambda: kw.examples.muddy_children(n, 1),  # type: ignore[arg-type]
        lambda: kw.examples.father_announcement(n),  # type: ignore[arg-type]
        lambda: kw.examples.nobody_knows(n),  # type: ignore[arg-type]
        lambda: kw.symbolic.muddy_children_structure(n),  # type: ignore[arg-type]
    ):
        with pytest.raises(ModelError):
            build()


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: kw.examples.muddy_children(27, 1), "stops at n=26"),
        (lambda: kw.examples.muddy_children(3, True), "muddy=True"),
        (lambda: kw.examples.muddy_children(3, "12"), "muddy='12'"),
        (lambda: kw.examples.muddy_children(3, [1, 2, 3, 4]), "more than the 3 children"),
        (lambda: kw.examples.muddy_children(3, [True]), "children [True] do not exist"),
        (lambda: kw.examples.father_announcement(100_001), "at most 100,000"),
        (lambda: kw.symbolic.muddy_children_structure(1_001), "at most 1,000"),
        (lambda: kw.examples.card_deals({"A": 20, "B": 20}), "1.38e+11 deals"),
        (lambda: kw.examples.card_deals(5), "hand sizes 5"),
        (lambda: kw.examples.card_deals({"A": True}), "hand sizes {'A': True}"),
        (lambda: kw.examples.card_deals({"A": 2, "B": 1}, 3.5), "cards 3.5"),
        (lambda: kw.examples.russian_cards(5), "deal 5"),
        (lambda: kw.examples.alice_says_one_of(5), "hands 5"),
        (lambda: kw.examples.alice_says_one_of([5]), "hand 5"),
        (lambda: kw.symbolic.muddy_children_state(5), "muddy 5"),
    ],
)
def test_teaching_examples_refuse_junk_and_sizes_past_their_limit(
    call: Callable[[], object], words: str
) -> None:
    with pytest.raises(KwartetError) as info:
        call()
    assert words in str(info.value)


# ----- the PettingZoo environment -----------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"players": True},
        {"players": 7},
        {"reward": ["win"]},
        {"max_asks": True},
        {"max_asks": 0},
        {"knowledge": 5},
        {"render_mode": "video"},
    ],
)
def test_the_environment_refuses_bad_options(options: dict[str, Any]) -> None:
    pytest.importorskip("pettingzoo")
    from kwartet_epistemic.interop.environments import KwartetEnv

    with pytest.raises(GameSetupError):
        KwartetEnv(**options)


@pytest.mark.parametrize("action", [2.7, "3", None, True, [1], -1, 10**5000], ids=list("abcdefg"))
def test_the_environment_refuses_an_action_that_is_not_an_action_number(action: Any) -> None:
    pytest.importorskip("pettingzoo")
    from kwartet_epistemic.interop.environments import KwartetEnv

    environment = KwartetEnv(players=3)
    environment.reset(seed=1)
    assert environment.game is not None
    before = snapshot(environment.game)
    with pytest.raises(IllegalAskError):
        environment.decode(environment.agent_selection, action)
    assert snapshot(environment.game) == before
