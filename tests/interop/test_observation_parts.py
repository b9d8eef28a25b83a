"""The observation vector's named parts (slices that tile it, each reading what its name
says) and the two action numberings, the environments' (the target counted from the
asker) and OpenSpiel's (the target an absolute seat)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kwartet_testing import require_extra

import kwartet_epistemic as kw

require_extra("gymnasium", "rl")
require_extra("pettingzoo", "rl")

from kwartet_epistemic.events import Answered, Asked, CardMoved  # noqa: E402
from kwartet_epistemic.interop.encoding import (  # noqa: E402
    OBSERVATIONS,
    ObservationLayout,
    gym_to_openspiel_action,
    openspiel_to_gym_action,
)
from kwartet_epistemic.interop.environments import KwartetEnv, KwartetGymEnv  # noqa: E402

NAMES = ["hand", "exposed", "hand_sizes", "quartets", "asked", "refused", "received"]


def _layout(players: int, families: int = 8) -> ObservationLayout:
    deck = kw.Deck.piquet(families=families)
    return ObservationLayout(players, deck, None, "win", "exact", 100, None, ())


@pytest.mark.parametrize("players", [3, 4, 6])
@pytest.mark.parametrize("parts", OBSERVATIONS)
def test_the_named_slices_tile_the_observation_vector_exactly(players: int, parts: str) -> None:
    environment = KwartetGymEnv(players=players, opponents="random", observation=parts)
    slices = environment.observation_slices
    expected = NAMES[:4]
    if parts in ("raw", "both"):
        expected += NAMES[4:]
    if parts in ("knowledge", "both"):
        expected += ["probabilities"]
    assert list(slices) == expected
    stop = 0
    for name, part in slices.items():
        assert part.start == stop and part.step is None and part.stop > part.start, name
        assert part.stop - part.start == int(np.prod(environment.layout.shapes(parts)[name]))
        stop = part.stop
    assert stop == environment.observation_space.shape[0]
    # every position of the vector belongs to exactly one part
    covered = np.zeros(stop, dtype=int)
    for part in slices.values():
        covered[part] += 1
    assert (covered == 1).all()


def test_the_aec_environment_names_the_same_parts_of_its_both_observation() -> None:
    aec = KwartetEnv(players=4)
    assert aec.observation_slices == KwartetGymEnv(players=4, observation="both").observation_slices
    assert list(aec.observation_slices)[-1] == "probabilities"


def test_each_named_part_reads_what_its_name_says_on_a_known_position() -> None:
    environment = KwartetGymEnv(players=4, opponents="random", observation="both", seat="C")
    observation, _ = environment.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(6):
        mask = environment.action_masks()
        if not mask.any():
            break
        observation, *_ = environment.step(int(rng.choice(np.flatnonzero(mask))))
    game = environment.game
    view = game.view("C")
    deck, n_cards, n = game.deck, len(game.deck), 4
    order = ["C", "D", "A", "B"]  # the observer first, then to its left
    where = {seat: k for k, seat in enumerate(order)}
    assert any(isinstance(e, Answered) for e in view.record)  # the record is not empty

    read = {name: observation[part] for name, part in environment.observation_slices.items()}
    named = environment.layout.split(observation, "both")
    for name in read:
        assert np.array_equal(read[name].reshape(named[name].shape), named[name])
        assert np.shares_memory(named[name], observation)  # views, not copies

    assert set(np.flatnonzero(read["hand"])) == {c.index for c in view.hand}
    laid = {c.index for f in view.exposed for c in deck.cards if c.family == f}
    assert set(np.flatnonzero(read["exposed"])) == laid
    assert np.allclose(read["hand_sizes"] * n_cards, [view.hand_sizes[p] for p in order])
    assert np.allclose(read["quartets"] * deck.n_families, [view.scores[p] for p in order])
    asked = np.zeros((n_cards, n))
    refused = np.zeros((n_cards, n))
    received = np.zeros((n_cards, n))
    for event in view.record:
        if isinstance(event, Asked):
            asked[event.card.index, where[event.asker]] = 1
        elif isinstance(event, Answered) and not event.has_card:
            refused[event.card.index, where[event.target]] = 1
        elif isinstance(event, CardMoved):
            received[event.card.index] = 0
            received[event.card.index, where[event.destination]] = 1
    assert np.array_equal(named["asked"], asked)
    assert np.array_equal(named["refused"], refused)
    assert np.array_equal(named["received"], received)
    expected = kw.knowledge(view).location_probabilities("C")
    columns = [game.players.index(p) for p in order]
    assert np.allclose(named["probabilities"], expected[:, columns], atol=1e-6)


def test_bad_parts_and_vectors_are_refused_by_name() -> None:
    layout = _layout(4)
    with pytest.raises(kw.GameSetupError, match="'pixels'.*raw, knowledge, both"):
        layout.slices("pixels")
    vector = np.zeros(layout.length("raw"), dtype=np.float32)
    with pytest.raises(kw.GameSetupError, match=r"shape \(456,\): expected shape \(200,\)"):
        layout.split(vector, "knowledge")
    with pytest.raises(kw.GameSetupError, match="expected shape"):
        layout.split(list(vector), "raw")  # type: ignore[arg-type]
    assert not vector.any() and vector.shape == (456,)


# ----- the two action numberings ------------------------------------------------------


@st.composite
def _numbered(draw):
    players = draw(st.integers(2, 6))
    n_cards = 4 * draw(st.integers(1, 13))
    action = draw(st.integers(0, players * n_cards - 1))
    asker = draw(st.integers(0, players - 1))
    return action, asker, players, n_cards


@settings(max_examples=300, deadline=None)
@given(_numbered(), st.booleans())
def test_the_converters_are_inverse_of_each_other(numbered, by_name: bool) -> None:
    action, asker, players, n_cards = numbered
    who = "ABCDEF"[asker] if by_name else asker
    absolute = gym_to_openspiel_action(action, who, players, n_cards)
    relative = openspiel_to_gym_action(action, who, players, n_cards)
    assert 0 <= absolute < players * n_cards and 0 <= relative < players * n_cards
    assert openspiel_to_gym_action(absolute, who, players, n_cards) == action
    assert gym_to_openspiel_action(relative, who, players, n_cards) == action
    # the card stays; the target turns by the asker's seat
    assert absolute % n_cards == action % n_cards
    assert absolute // n_cards == (asker + action // n_cards) % players


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(3, 5),
    families=st.integers(3, 6),
    asks=st.integers(0, 25),
)
def test_the_converters_agree_on_the_same_ask_at_random_positions(
    seed: int, players: int, families: int, asks: int
) -> None:
    require_extra("pyspiel", "openspiel")
    from kwartet_epistemic.interop import openspiel_game as kos

    deck = kw.Deck.piquet(families=families)
    state = kos.load_game(players, deck).new_initial_state()
    rng = np.random.default_rng(seed)
    while state.is_chance_node():
        outcomes, chances = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(outcomes, p=chances)))
    for _ in range(asks):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))
    if state.is_terminal():
        return
    layout = _layout(players, families)
    game, player, n_cards = kos.core_game(state), state.current_player(), len(deck)
    legal_gym = {layout.encode(ask) for ask in game.legal_asks()}
    converted = set()
    for action in state.legal_actions():
        ask = kos.ask_of(state, action)
        relative = openspiel_to_gym_action(action, player, players, n_cards)
        assert relative == layout.encode(ask)
        assert layout.decode(game, ask.asker, relative) == ask
        assert gym_to_openspiel_action(relative, ask.asker, players, n_cards) == action
        assert kos.action_of(state, ask) == action
        converted.add(relative)
    assert converted == legal_gym  # the legal actions of one numbering are the other's


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((128, 0, 4, 32), "action 128: expected a whole number from 0 to 127"),
        ((-1, 0, 4, 32), "action -1"),
        ((True, 0, 4, 32), "action True"),
        ((5, 4, 4, 32), "asker=4: expected a seat number from 0 to 3 or one of A, B, C, D"),
        ((5, "E", 4, 32), "asker='E'"),
        ((5, 0, 7, 32), "players=7: expected 2 to 6"),
        ((5, 0, 4, 0), "n_cards=0: expected a whole number >= 1"),
    ],
)
def test_the_converters_refuse_bad_input_by_name(arguments, message: str) -> None:
    for convert in (gym_to_openspiel_action, openspiel_to_gym_action):
        with pytest.raises(kw.KwartetError, match=message.replace("(", r"\(")):
            convert(*arguments)
