"""Properties of random games over every preset, 3-6 players (2 with a stock) and random
rule options: cards are conserved, every game ends, points add up, the turn follows the
rules, records replay identically, illegal asks change nothing, views hide others' cards.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kwartet_epistemic as kw
from kwartet_epistemic.errors import IllegalAskError
from kwartet_epistemic.rules import PRESETS

MAX_ACTIONS = 20_000  # far above any random game seen (about 100 asks for 32 cards)


def fast(examples: int) -> settings:
    """Few examples and no deadline: each example plays whole games."""
    return settings(
        max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )


@dataclass(frozen=True)
class Setup:
    deck: kw.Deck
    players: tuple[str, ...]
    rules: kw.RuleSet
    seed: int


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    rules = PRESETS[draw(st.sampled_from(sorted(PRESETS)))]
    families = draw(st.sampled_from([3, 4, 6, 8, 8, 8, 13]))
    deck = kw.Deck.standard() if families == 13 else kw.Deck.piquet(families=families)
    if draw(st.booleans()):  # random rule options on top of the preset
        changes: dict[str, Any] = {
            "refusal_turn": draw(st.sampled_from(["asked", "clockwise"])),
            "bluffing": draw(st.booleans()),
            "tie_break": draw(st.sampled_from(["shared", "earliest_last_quartet"])),
            "memory_cards": draw(st.sampled_from([0, 0, 1, 2, 4])),
        }
        if rules.draw_pile:
            changes["bonus_turn"] = draw(st.booleans())
        else:
            changes["dealing"] = draw(st.sampled_from(["all", "equal"]))
        rules = rules.replace(**changes)
    low = 2 if rules.draw_pile else 3
    n = draw(st.integers(low, 6))
    playable = len(deck) - rules.memory_cards
    if rules.draw_pile:
        most = max(1, playable // n - 1)  # leave a stock
        rules = rules.replace(cards_each=draw(st.integers(1, min(7, most))))
    if playable < n:
        rules = rules.replace(memory_cards=0)
    players = tuple("ABCDEF"[:n])
    return Setup(deck, players, rules, draw(st.integers(0, 2**32 - 1)))


# ----- an independent model of the rules the referee must follow ---------------------


def can_ask(game: kw.Game, player: str) -> bool:
    """Whether ``player`` has a legal ask, computed from the public state and their hand."""
    hand = game.hand(player)
    if not hand or not any(game.hand_sizes[q] for q in game.players if q != player):
        return False
    face_up = {c for c in game.middle if c is not None}
    return any(
        other not in face_up and (game.rules.bluffing or other not in hand)
        for card in hand
        for other in game.deck.family_cards(card.family)
    )


def first_able_from(game: kw.Game, seat: int) -> str | None:
    n = len(game.players)
    for k in range(n):
        player = game.players[(seat + k) % n]
        if can_ask(game, player):
            return player
    return None


def completable_families(game: kw.Game) -> set[str]:
    deal = game.initial_deal
    dead = {game.deck.card(c).family for c in deal["aside"] + deal["middle"]}
    return set(game.deck.families) - dead


def check_cards_conserved(game: kw.Game) -> None:
    """Hands + stock + aside + middle + exposed quartets hold every card exactly once."""
    deal = game.initial_deal
    placed = [c.code for p in game.players for c in game.hand(p)]
    placed += deal["stock"][: game.stock_size]  # drawn from the top, the end of the list
    placed += deal["aside"] + deal["middle"]
    for family in game.exposed:
        placed += [c.code for c in game.deck.family_cards(family)]
    assert sorted(placed) == sorted(c.code for c in game.deck.cards)
    assert sum(game.scores.values()) == len(game.exposed)


def check_turn(game: kw.Game, mover: str, events: list[kw.Event]) -> None:
    """The player to move after an action is the one the rules name."""
    if game.is_over:
        assert set(game.exposed) == completable_families(game)
        return
    assert set(game.exposed) < completable_families(game)
    seat = game.players.index(mover)
    n = len(game.players)
    due = seat  # after a yes or a turn-over the mover is due again
    own_draw = None
    answer = events[1] if len(events) > 1 else None
    refused = isinstance(answer, kw.Answered) and not answer.has_card
    if isinstance(events[0], kw.Asked) and refused:
        asked = game.players.index(events[0].target)
        due = asked if game.rules.refusal_turn == "asked" else (seat + 1) % n
        if len(events) > 2 and isinstance(events[2], kw.Drew):
            own_draw = events[2]
            assert own_draw.player == mover  # the refused asker draws
            follow = events[3] if len(events) > 3 else None
            completed = isinstance(follow, kw.QuartetExposed) and follow.player == mover
            if completed and game.rules.bonus_turn and game.hand(mover):
                due = seat
    if any(isinstance(e, kw.Drew) and e is not own_draw for e in events):
        return  # nobody could ask, so the stock dealt cards out: no turn choice to check
    assert game.to_move == first_able_from(game, due)
    passed = [e for e in events if isinstance(e, kw.TurnPassed)]
    # A refusal (without a bonus turn) always starts a new turn, even if nobody else can
    # ask and the turn comes back to the asker.
    assert bool(passed) == (game.to_move != mover or (refused and due != seat))
    if passed:
        assert passed[-1].player == game.to_move


# ----- playing ------------------------------------------------------------------------


def play_random(
    setup: Setup, after_action: Callable[[kw.Game, str, list[kw.Event]], None] | None = None
) -> kw.Game:
    """A random game; Memory Kwartet players sometimes turn a middle card over."""
    game = kw.Game.deal(setup.deck, setup.players, seed=setup.seed, rules=setup.rules)
    rng = np.random.default_rng(setup.seed)
    for step in range(MAX_ACTIONS):
        if game.is_over:
            return game
        mover = game.to_move
        assert mover is not None
        down = [i for i, c in enumerate(game.middle) if c is None]
        if down and rng.random() < 0.15:
            try:
                events = game.turn_over(down[int(rng.integers(len(down)))])
            except IllegalAskError as err:  # already turned one this turn
                assert "this turn" in str(err)
                continue
        elif step % 2:
            events = game.play(game.random_legal_ask(rng))
        else:
            asks = game.legal_asks()
            events = game.play(asks[int(rng.integers(len(asks)))])
        if after_action is not None:
            after_action(game, mover, events)
    raise AssertionError(f"no end after {MAX_ACTIONS} actions: {setup}")


@fast(60)
@given(setups())
def test_random_games_conserve_cards_follow_the_turn_rules_and_end_with_points_adding_up(
    setup: Setup,
) -> None:
    def after(game: kw.Game, mover: str, events: list[kw.Event]) -> None:
        check_cards_conserved(game)
        check_turn(game, mover, events)

    game = play_random(setup, after)
    check_cards_conserved(game)
    assert game.is_over and game.to_move is None
    points = sum(game.scores.values())
    assert points == len(completable_families(game))
    deal = game.initial_deal
    if not deal["aside"] and not deal["middle"]:
        assert points == len(game.deck) // 4
    best = max(game.scores.values())
    leaders = {p for p, s in game.scores.items() if s == best}
    assert set(game.winners) <= leaders
    if game.rules.tie_break == "shared":
        assert set(game.winners) == leaders
    ended = game.record[-1]
    assert isinstance(ended, kw.GameEnded) and ended.winners == game.winners


@fast(30)
@given(setups())
def test_a_saved_record_replays_identically_and_views_hide_other_players_cards(
    setup: Setup,
) -> None:
    game = play_random(setup)
    record = kw.GameRecord.from_json(kw.GameRecord.from_game(game).to_json())
    replayed = record.replay()
    assert replayed.events == game.events and replayed.actions == game.actions
    assert replayed.scores == game.scores and replayed.winners == game.winners
    for player in game.players:
        view = game.view(player)
        assert view.hand == game.hand(player)
        assert view == replayed.view(player)
        assert len(view.record) == len(game.events)
        for seen, full in zip(view.record, game.events, strict=True):
            if isinstance(full, kw.Drew) and full.player != player:
                assert seen == kw.Drew(full.player, None)  # others' draws stay hidden
            else:
                assert seen == full


@fast(30)
@given(setups(), st.data())
def test_illegal_asks_change_nothing_and_views_mid_game_show_only_the_own_hand(
    setup: Setup, data: st.DataObject
) -> None:
    checks = data.draw(st.lists(st.integers(0, 60), min_size=1, max_size=3, unique=True))
    counter = iter(range(MAX_ACTIONS))

    def after(game: kw.Game, mover: str, events: list[kw.Event]) -> None:
        if next(counter) not in checks or game.is_over:
            return
        for player in game.players:
            view = game.view(player)
            assert view.hand == game.hand(player)
            assert all(
                e.card is None for e in view.record if isinstance(e, kw.Drew) and e.player != player
            )
        legal = set(game.legal_asks())
        assert game.to_move is not None
        target = data.draw(st.sampled_from(game.players))
        card = data.draw(st.sampled_from(game.deck.cards))
        asker = data.draw(st.sampled_from([game.to_move, *game.players]))
        ask = kw.Ask(asker, target, card)
        if ask in legal:
            return
        before = copy.deepcopy(vars(game))
        try:
            game.play(ask)
        except IllegalAskError:
            pass
        else:
            raise AssertionError(f"{ask} is not legal but was accepted")
        assert vars(game) == before

    play_random(setup, after)


def naive_legal_asks(game: kw.Game) -> list[tuple[str, str, str]]:
    """The legal asks straight from the rules: opponents holding cards, in seat order,
    times the cards (in deck order) of the mover's unexposed families that are not face up
    and, without bluffing, not held."""
    me = game.to_move
    assert me is not None
    hand = game.hand(me)
    face_up = {c for c in game.middle if c is not None}
    families = {c.family for c in hand} - set(game.exposed)
    cards = [
        c
        for c in game.deck.cards
        if c.family in families and c not in face_up and (game.rules.bluffing or c not in hand)
    ]
    targets = [p for p in game.players if p != me and game.hand_sizes[p]]
    return [(me, t, c.code) for t in targets for c in cards]


@fast(40)
@given(setups())
def test_legal_asks_follow_the_rules_in_order_for_the_game_and_the_movers_view(
    setup: Setup,
) -> None:
    rng = np.random.default_rng(setup.seed)

    def after(game: kw.Game, mover: str, events: list[kw.Event]) -> None:
        if game.is_over:
            assert game.legal_asks() == []
            return
        asks = game.legal_asks()
        assert [(a.asker, a.target, a.card.code) for a in asks] == naive_legal_asks(game)
        assert all(a.card is game.deck.cards[a.card.index] for a in asks)
        assert game.view(game.to_move).legal_asks() == asks  # type: ignore[arg-type]
        assert game.random_legal_ask(rng) in asks
        assert all(game.view(p).legal_asks() == [] for p in game.players if p != game.to_move)

    play_random(setup, after)
