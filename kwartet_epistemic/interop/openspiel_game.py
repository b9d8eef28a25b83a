"""Kwartet in OpenSpiel (optional extra ``openspiel``: the ``open-spiel`` package).

Importing this module registers the Python game ``python_kwartet`` with OpenSpiel: the
game, its states and its observer, as OpenSpiel's own game files hold them.  OpenSpiel's
bots as agents, and agents as bots, are :mod:`~kwartet_epistemic.interop.openspiel_bots`.

**The game.**  Parameters (``pyspiel.load_game("python_kwartet", {...})``):

* ``players`` (3 to 6, default 4); OpenSpiel player ``i`` is seat ``"ABCDEF"[i]``;
* ``deck`` (default ``"piquet"``): ``piquet`` or ``standard`` with ``families`` families
  (default 8), or a bundled themed pack by name (``animals``; ``families`` is then unused);
* ``preset`` (default ``"publisher"``) and ``options``, rule changes such as
  ``"bluffing:true;tie_break:earliest_last_quartet"`` (read as text, never evaluated;
  OpenSpiel writes games as ``name(key=value,...)``, hence ``:`` and ``;``);
* ``max_asks`` (default 5,000, as in tournaments): a game still running after that many
  asks ends there, the leaders sharing the win (OpenSpiel needs a bounded game).
  ``max_game_length()`` is ``max_asks`` (OpenSpiel counts decisions only) and
  ``max_chance_nodes_in_history()`` is one plus the cards dealt.

A bad value (``players=9``, ``deck=nonsense``, ``families=0``, ``max_asks=-1``) raises
:class:`GameParameterError` or, for ``preset`` and ``options``, :class:`RuleParameterError`:
the library's errors that are also ``pyspiel.SpielError``, as OpenSpiel raises for its own
games (as it does itself for an unknown parameter name or a value of the wrong type).

**Exact algorithms.**  Kwartet can go round in circles, so only ``max_asks`` bounds the
tree: at the defaults ``get_all_states`` recurses past Python's limit, and no tabular
algorithm could hold the tree anyway.  Three players, one family and a few asks are small
enough: ``{"players": 3, "families": 1, "max_asks": 4}`` has 19,060 states (4,968 decision
nodes, 2,322 information states) and OpenSpiel's ``get_all_states``, ``cfr.CFRSolver``
and ``exploitability.nash_conv`` run on it in seconds (``max_asks=6``: 252,340 states,
about 13 times slower).  The game is constant-sum (the win shares sum to 1) with three or
more players, so use ``nash_conv`` (``exploitability.exploitability`` is for two players
only).  ``experiments/openspiel_exploitability.py`` measures the library's agents there.

Chance deals as :meth:`~kwartet_epistemic.Game.deal` does: the first chance node picks the
dealer (each seat 1/n), then the cards are dealt one at a time from the dealer's left, each
undealt card equally likely (1/k for k left).  Every ordering of the deck is then equally
likely, so every deal is: a deal with hand sizes h_1..h_n is dealt by exactly h_1!...h_n!
orderings, the same number for every deal of those sizes (uneven hands included: the
seats left of the dealer get the extra cards, as in the referee).  With ``dealing="equal"``
(the ``dutch`` preset) the undealt rest is set aside face down.  Rules with a draw pile
(``fish``) or Memory Kwartet are refused with :class:`RuleParameterError`:
their private draws and turned cards would need chance nodes in the middle of play and an
exact resampler of who drew what, which this module does not have.

Actions: ``target * n_cards + card`` (deck order), the target an absolute seat (asking
oneself is never legal).  Returns: each player's share of the win (1 alone, 1/k when k
share it, else 0), so the game is constant-sum (1).  Information state (perfect recall):
the player's dealt hand and the public record (dealer, every ask and answer, every
exposure); observation: the hand now, hand sizes, exposures, whose turn, the last ask.
The tensors hold the same private parts, the dealer, and a fixed-size summary of the
record (per card and seat: seen receiving it and still holding it, refused it since; per
family and seat: asked for one of its cards); the strings are exact.

:meth:`KwartetState.resample_from_infostate` draws the hidden cards exactly uniformly from
the player's possible worlds with the library's counting engine
(:meth:`~kwartet_epistemic.EpistemicState.sample_worlds`) and replays the record.

>>> import pyspiel
>>> from kwartet_epistemic.interop import openspiel_game as kos
>>> game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 3})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 3)
>>> rng = np.random.default_rng(1)
>>> while state.is_chance_node():
...     outcomes = [a for a, _ in state.chance_outcomes()]
...     state.apply_action(int(rng.choice(outcomes)))
>>> state.current_player() in (0, 1, 2), sorted(kos.core_game(state).hand_sizes.values())
(True, [4, 4, 4])
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - the openspiel extra is missing
    raise ImportError(
        "kwartet_epistemic.interop needs the 'openspiel' extra: "
        "pip install 'kwartet_epistemic[openspiel]'"
    ) from error

from kwartet_epistemic._safejson import short
from kwartet_epistemic.cards import Deck
from kwartet_epistemic.epistemics.state import World, knowledge
from kwartet_epistemic.errors import GameSetupError, KwartetError, RuleOptionError
from kwartet_epistemic.events import (
    Answered,
    Asked,
    CardMoved,
    Dealt,
    Event,
    GameEnded,
    QuartetExposed,
    TurnPassed,
)
from kwartet_epistemic.game import Ask, Game, PlayerView
from kwartet_epistemic.interop.encoding import RecordSummary
from kwartet_epistemic.rules import RuleSet

__all__ = [
    "GAME_NAME",
    "SEATS",
    "GameParameterError",
    "KwartetGame",
    "KwartetState",
    "RuleParameterError",
    "action_of",
    "ask_of",
    "core_game",
    "load_game",
    "resampled_state",
    "state_from_world",
]

GAME_NAME = "python_kwartet"
SEATS = "ABCDEF"
MAX_ASKS = 5_000

_DEFAULTS: dict[str, Any] = {
    "players": 4,
    "families": 8,
    "deck": "piquet",
    "preset": "publisher",
    "options": "",
    "max_asks": MAX_ASKS,
}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Kwartet",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.CONSTANT_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(_DEFAULTS),
)


class GameParameterError(GameSetupError, pyspiel.SpielError):
    """A bad ``python_kwartet`` parameter (players, deck, families, max_asks): both the
    library's :class:`~kwartet_epistemic.GameSetupError` and ``pyspiel.SpielError``, which
    OpenSpiel raises for a bad parameter of its own games (so code that loads games by
    name catches it either way).

    >>> try:
    ...     pyspiel.load_game("python_kwartet", {"players": 9})
    ... except pyspiel.SpielError as error:
    ...     print(type(error).__name__, error)
    GameParameterError python_kwartet players=9: expected a whole number from 3 to 6
    """


class RuleParameterError(RuleOptionError, pyspiel.SpielError):
    """A bad ``python_kwartet`` ``preset`` or ``options``, or rules the game cannot play:
    both the library's :class:`~kwartet_epistemic.RuleOptionError` and
    ``pyspiel.SpielError``.

    >>> isinstance(RuleParameterError("x"), (kw.KwartetError, pyspiel.SpielError))
    True
    """


# ----- settings -----------------------------------------------------------------------


def _read_options(text: str) -> dict[str, Any]:
    """``"bluffing:true;cards_each:5"`` as rule options (booleans, whole numbers, text).

    (OpenSpiel writes a game as ``name(key=value,...)``, so the options use ``:`` and
    ``;``.)
    """
    options: dict[str, Any] = {}
    for item in text.split(";"):
        if not item.strip():
            continue
        key, sep, value = item.partition(":")
        key, value = key.strip(), value.strip()
        if not sep or not re.fullmatch(r"[a-z_]+", key) or not value:
            raise RuleOptionError(
                f"python_kwartet options {short(text)}: {short(item.strip())} is not "
                "KEY:VALUE (such as bluffing:true; options are separated by ';')"
            )
        if value.lower() in ("true", "false"):
            options[key] = value.lower() == "true"
        elif value.isdigit() and len(value) <= 4:
            options[key] = int(value)
        else:
            options[key] = value
    return options


def _deck(name: str, families: int) -> Deck:
    """The deck of the ``deck`` parameter: piquet or standard with ``families``, or a
    bundled themed pack by name."""
    from kwartet_epistemic.cards import bundled_packs

    key = name.strip().lower()
    if key in ("", "piquet"):
        return Deck.piquet(families=families)
    if key == "standard":
        return Deck.standard(families=families)
    packs = {p.lower(): p for p in bundled_packs()}
    if key in packs:
        return Deck.themed(packs[key])
    raise GameSetupError(
        f"python_kwartet deck={short(name)}: expected piquet, standard or a bundled pack ("
        + ", ".join(bundled_packs())
        + ")"
    )


class _Setup:
    """The checked parameters of a game: deck, rules, seats, the ask limit."""

    def __init__(self, params: Mapping[str, Any]) -> None:
        unknown = sorted(set(params) - set(_DEFAULTS))
        if unknown:
            raise GameSetupError(
                f"python_kwartet parameter(s) {', '.join(map(short, unknown))}: known are "
                + ", ".join(_DEFAULTS)
            )
        values = {**_DEFAULTS, **params}
        players, families, max_asks = values["players"], values["families"], values["max_asks"]
        for name, value, low, high in (
            ("players", players, 3, 6),
            ("families", families, 1, 64),
            ("max_asks", max_asks, 1, 1_000_000),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise GameSetupError(
                    f"python_kwartet {name}={short(value)}: expected a whole number from "
                    f"{low} to {high:,}"
                )
        deck_spec = values["deck"]
        if not isinstance(deck_spec, str):
            raise GameSetupError(f"python_kwartet deck={short(deck_spec)}: expected a deck name")
        self.deck = _deck(deck_spec, families)
        preset, options = values["preset"], values["options"]
        if not isinstance(options, str):
            raise RuleOptionError(f"python_kwartet options={short(options)}: expected text")
        try:
            self.rules = RuleSet.preset(preset).replace(**_read_options(options))
        except RuleOptionError as error:
            if str(error).startswith(GAME_NAME):
                raise
            raise RuleOptionError(
                f"python_kwartet preset={short(preset)} options={short(options)}: {error}"
            ) from None
        if self.rules.draw_pile or self.rules.memory_cards:
            raise RuleOptionError(
                f"python_kwartet rules {self.rules.name}: a draw pile or Memory Kwartet is not "
                "supported (private draws and turned cards would need chance nodes during "
                "play); use publisher, dutch or lamas, with any other option"
            )
        self.n = players
        self.names = tuple(SEATS[:players])
        self.max_asks = max_asks
        n_cards = len(self.deck)
        if self.rules.dealing == "equal":
            self.to_deal = (n_cards // players) * players
        else:
            self.to_deal = n_cards
        if self.to_deal < players:
            raise GameSetupError(
                f"python_kwartet: {n_cards} cards for {players} players: every player needs a card"
            )
        self.params = {
            "players": players,
            "families": families,
            "deck": deck_spec,
            "preset": preset,
            "options": options,
            "max_asks": max_asks,
        }


# ----- the state's data, cheap to copy ---------------------------------------------------


class _Core:
    """Everything a state holds; OpenSpiel clones a Python state by deep-copying its
    attributes, so this one attribute copies itself the fast way (Game.copy)."""

    __slots__ = (
        "setup",
        "dealer",
        "dealt",
        "game",
        "asks",
        "public",
        "seen",
        "summary",
    )

    def __init__(self, setup: _Setup) -> None:
        self.setup = setup
        self.dealer = -1
        self.dealt: list[int] = []  # card indices in the order dealt
        self.game: Game | None = None
        self.asks = 0
        self.public: list[str] = []  # the public record as short tokens
        self.seen = 0  # public events tokenised
        # The record's summary (holds, lacks, asked families, the last ask), as the
        # environments' encoding reads it too.
        self.summary = RecordSummary(setup.deck, setup.names)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        other = object.__new__(_Core)
        other.setup = self.setup
        other.dealer = self.dealer
        other.dealt = list(self.dealt)
        other.game = self.game.copy() if self.game is not None else None
        other.asks = self.asks
        other.public = list(self.public)
        other.seen = self.seen
        other.summary = self.summary.copy()
        return other

    @property
    def holds(self) -> list[int]:
        """Per card: the seat publicly seen receiving it and holding it, else -1."""
        return self.summary.holds

    @property
    def lacks(self) -> list[int]:
        """Per seat: the cards it refused since it last received one (bit masks)."""
        return self.summary.lacks

    @property
    def asked(self) -> list[int]:
        """Per seat: the families it asked from (bit masks)."""
        return self.summary.asked_families

    @property
    def last(self) -> tuple[int, int, int, bool] | None:
        """The last ask and its answer: (asker, target, card, yes)."""
        return self.summary.last

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    # ----- moves ------------------------------------------------------------------

    def deal(self, card: int) -> None:
        self.dealt.append(card)
        if len(self.dealt) == self.setup.to_deal:
            self.start()

    def start(self) -> None:
        """Build the referee from the finished deal."""
        setup = self.setup
        n, cards = setup.n, setup.deck.cards
        hands: dict[str, list[Any]] = {p: [] for p in setup.names}
        for k, c in enumerate(self.dealt):
            hands[setup.names[(self.dealer + 1 + k) % n]].append(cards[c])
        dealt = set(self.dealt)
        aside = [card for card in cards if card.index not in dealt]
        self.game = Game(
            setup.deck, setup.names, hands, dealer=setup.names[self.dealer], rules=setup.rules,
            aside=aside,
        )  # fmt: skip
        self.take_record()

    def ask(self, seat: int, target: int, card: int) -> None:
        game = self.game
        assert game is not None
        game.ask(
            self.setup.names[target], self.setup.deck.cards[card], asker=self.setup.names[seat]
        )
        self.asks += 1
        self.take_record()

    def take_record(self) -> None:
        """Tokenise the public events not yet seen, and keep the record's summary."""
        game = self.game
        assert game is not None
        new = game.record_since(self.seen)
        self.seen += len(new)
        self.summary.take(new)
        public = self.public
        asked: Asked | None = None
        for event in new:
            kind = type(event)
            if kind is Asked:
                asked = event  # type: ignore[assignment]
            elif kind is Answered:
                assert asked is not None
                yes = event.has_card  # type: ignore[attr-defined]
                public.append(
                    f"{asked.asker}>{asked.target}:{asked.card.code}{'+' if yes else '-'}"
                )
            elif kind is QuartetExposed:
                public.append(f"{event.player}#{event.family}")  # type: ignore[attr-defined]
            elif kind is Dealt:
                public.append(f"dealer:{event.dealer}")  # type: ignore[attr-defined]
            elif kind is TurnPassed and event.cannot_ask:  # type: ignore[attr-defined]
                public.append(f"pass:{','.join(event.cannot_ask)}")  # type: ignore[attr-defined]
            elif kind is GameEnded:
                public.append("end")

    # ----- queries ----------------------------------------------------------------

    def current_player(self) -> int:
        if self.dealer < 0 or self.game is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        to_move = self.game.to_move
        assert to_move is not None
        return self.setup.names.index(to_move)

    def terminal(self) -> bool:
        game = self.game
        return game is not None and (game.is_over or self.asks >= self.setup.max_asks)

    def legal_actions(self) -> list[int]:
        game = self.game
        assert game is not None
        n_cards = len(self.setup.deck)
        seat = {p: i for i, p in enumerate(self.setup.names)}
        return sorted(seat[a.target] * n_cards + a.card.index for a in game.legal_asks())

    def returns(self) -> list[float]:
        if not self.terminal():
            return [0.0] * self.setup.n
        game = self.game
        assert game is not None
        if game.is_over:
            winners = game.winners
        else:  # stopped at max_asks: the leaders share the win
            scores = game.scores
            best = max(scores.values())
            winners = tuple(p for p in self.setup.names if scores[p] == best)
        return [1.0 / len(winners) if p in winners else 0.0 for p in self.setup.names]

    def dealt_to(self, seat: int) -> list[int]:
        """The cards dealt to ``seat`` so far, in deck order."""
        n = self.setup.n
        start = (seat - self.dealer - 1) % n
        return sorted(self.dealt[start::n]) if self.dealer >= 0 else []


# ----- the OpenSpiel game and state --------------------------------------------------------


class KwartetGame(pyspiel.Game):
    """The OpenSpiel game ``python_kwartet`` (see the module's text for its parameters).

    >>> game = KwartetGame({"players": 3, "families": 4, "preset": "lamas"})
    >>> game.num_players(), game.num_distinct_actions(), game.setup.rules.name
    (3, 48, 'lamas')
    >>> KwartetGame({"preset": "fish"})
    Traceback (most recent call last):
    ...
    kwartet_epistemic.interop.openspiel_game.RuleParameterError: python_kwartet rules fish: a draw pile ...
    """

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        try:
            setup = _Setup(dict(params or {}))
        except RuleOptionError as error:
            raise RuleParameterError(str(error)) from None
        except KwartetError as error:
            raise GameParameterError(str(error)) from None
        n_cards = len(setup.deck)
        info = pyspiel.GameInfo(
            num_distinct_actions=setup.n * n_cards,
            max_chance_outcomes=max(n_cards, setup.n),
            num_players=setup.n,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=1.0,
            # OpenSpiel counts decisions only: chance outcomes (the dealer and the
            # dealt cards) are max_chance_nodes_in_history's.
            max_game_length=setup.max_asks,
        )
        super().__init__(_GAME_TYPE, info, dict(setup.params))
        self.setup = setup

    def __repr__(self) -> str:
        # A traceback through a failed __init__ shows this object before OpenSpiel's
        # part exists, and OpenSpiel's own repr would then crash the interpreter.
        if "setup" not in vars(self):
            return "<python_kwartet game, not set up>"
        return str(self)

    def max_chance_nodes_in_history(self) -> int:
        """The chance nodes of any history: the dealer's, then one per dealt card.

        >>> game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 2})
        >>> game.max_chance_nodes_in_history(), game.max_game_length(), game.max_history_length()
        (9, 5000, 5009)
        """
        return self.setup.to_deal + 1

    def new_initial_state(self) -> KwartetState:
        """A state before the deal (a chance node choosing the dealer)."""
        return KwartetState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
    ) -> _Observer:
        """The observer OpenSpiel asks for (information state or observation)."""
        if params:
            raise GameSetupError(f"python_kwartet observer parameters {short(params)}: none exist")
        return _Observer(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), self.setup
        )


class KwartetState(pyspiel.State):
    """A state of ``python_kwartet``: the deal so far, then the referee's game.

    >>> game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 2})
    >>> state = game.new_initial_state()
    >>> state.apply_action(2)  # C deals
    >>> for card in range(8):
    ...     state.apply_action(card)  # 7S to A, 7H to B, 7D to C, ...
    >>> state.current_player(), state.information_state_string(0)
    (0, 'A | dealt 7S 7C 8D | dealer:C')
    >>> state.action_to_string(0, action_of(state, Ask("A", "B", "7H")))
    'A asks B for 7H'
    """

    def __init__(self, game: KwartetGame) -> None:
        super().__init__(game)
        self._core = _Core(game.setup)

    @property
    def core(self) -> Any:
        """The state's data (the game so far, whose turn, the record's summary): what a
        play-out copies, cheaply."""
        return self._core

    def current_player(self) -> int:
        """The seat to move, or OpenSpiel's CHANCE or TERMINAL."""
        return self._core.current_player()

    def _legal_actions(self, player: int) -> list[int]:
        return self._core.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The dealer (each seat 1/n), then the next card (each undealt card alike)."""
        core = self._core
        if core.dealer < 0:
            return [(s, 1.0 / core.setup.n) for s in range(core.setup.n)]
        dealt = set(core.dealt)
        left = [c for c in range(len(core.setup.deck)) if c not in dealt]
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        core = self._core
        if core.dealer < 0:
            core.dealer = int(action)
        elif core.game is None:
            core.deal(int(action))
        else:
            target, card = divmod(int(action), len(core.setup.deck))
            core.ask(self.current_player(), target, card)

    def _action_to_string(self, player: int, action: int) -> str:
        setup = self._core.setup
        if player == pyspiel.PlayerId.CHANCE:
            if self._core.dealer < 0:
                return f"dealer {setup.names[action]}"
            return f"deal {setup.deck.cards[action].code}"
        target, card = divmod(int(action), len(setup.deck))
        return f"{setup.names[player]} asks {setup.names[target]} for {setup.deck.cards[card].code}"

    def is_terminal(self) -> bool:
        """Whether the game is over (or stopped at ``max_asks``)."""
        return self._core.terminal()

    def returns(self) -> list[float]:
        """Each player's share of the win once the game is over, else zeros."""
        return self._core.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> KwartetState:
        """A state ``player_id`` cannot tell from this one, drawn exactly uniformly among
        them: the hidden cards come from the library's counting engine
        (:meth:`~kwartet_epistemic.EpistemicState.sample_worlds` on the player's view),
        and the state is built by applying the sampled deal as chance outcomes and then
        the recorded asks, so its ``history()``, ``move_number()`` and serialisation
        agree with its information state.  ``probability_sampler()`` seeds the draw.

        >>> game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 2})
        >>> state = game.new_initial_state()
        >>> for action in [0, 3, 1, 2, 0, 7, 5, 6, 4]:
        ...     state.apply_action(action)
        >>> state.apply_action(state.legal_actions()[0])
        >>> other = state.resample_from_infostate(1, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        >>> len(other.history()), other.move_number() == state.move_number()
        (10, True)
        >>> other.information_state_string(1) == state.information_state_string(1)
        True
        """
        seed = int(float(probability_sampler()) * 2**53)
        rng = np.random.default_rng(seed)
        core = self._core
        if core.game is None:
            return self._resample_deal(player_id, rng)
        view = core.game.view(core.setup.names[player_id])
        (world,) = knowledge(view).sample_worlds(view.player, 1, rng)
        return _replayed(self.get_game(), core.setup.names, core.game.record, world)

    def _resample_deal(self, player_id: int, rng: np.random.Generator) -> KwartetState:
        """During the deal: the player's own cards stay, the others' come from the rest."""
        core = self._core
        other = self.get_game().new_initial_state()
        if core.dealer < 0:
            return other
        other.apply_action(core.dealer)
        n = core.setup.n
        mine = {k for k in range(len(core.dealt)) if (core.dealer + 1 + k) % n == player_id}
        pool = [c for c in range(len(core.setup.deck)) if c not in {core.dealt[k] for k in mine}]
        rng.shuffle(pool)
        for k, card in enumerate(core.dealt):
            other.apply_action(card if k in mine else pool.pop())
        return other

    def __str__(self) -> str:
        core = self._core
        if core.game is None:
            return f"dealing: {len(core.dealt)} of {core.setup.to_deal} cards dealt"
        return str(core.game)


# ----- observer --------------------------------------------------------------------------


class _Observer:
    """Information state (``perfect_recall``) or observation, as string and tensor."""

    def __init__(self, iig_obs_type: Any, setup: _Setup) -> None:
        self.setup = setup
        n, n_cards, n_families = setup.n, len(setup.deck), setup.deck.n_families
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info
        self.public_info = bool(iig_obs_type.public_info)
        pieces: list[tuple[str, tuple[int, ...]]] = [("player", (n,))]
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            if self.perfect_recall:
                pieces.append(("dealt", (n_cards,)))
            pieces.append(("hand", (n_cards,)))
        elif self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            pieces.append(("hands", (n, n_cards)))
        if self.public_info:
            pieces += [("dealer", (n,)), ("sizes", (n,)), ("exposed", (n_families, n))]
            pieces.append(("to_move", (n,)))
            if self.perfect_recall:
                pieces += [("holds", (n_cards, n)), ("lacks", (n_cards, n))]
                pieces += [("asked", (n_families, n)), ("asks", (1,))]
            else:
                pieces.append(("last", (2 * n + n_cards + 1,)))
        size = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        start = 0
        for name, shape in pieces:
            width = int(np.prod(shape))
            self.dict[name] = self.tensor[start : start + width].reshape(shape)
            start += width

    def set_from(self, state: KwartetState, player: int) -> None:
        """Fill the tensor for ``player`` in ``state``."""
        core = state._core
        setup = self.setup
        n, n_cards = setup.n, len(setup.deck)
        self.tensor.fill(0.0)
        parts = self.dict
        parts["player"][player] = 1.0
        game = core.game
        hands = [_hand_indices(core, s) for s in range(n)]
        if "dealt" in parts:
            parts["dealt"][core.dealt_to(player)] = 1.0
        if "hand" in parts:
            parts["hand"][hands[player]] = 1.0
        if "hands" in parts:
            for s in range(n):
                parts["hands"][s, hands[s]] = 1.0
        if not self.public_info:
            return
        if core.dealer >= 0:
            parts["dealer"][core.dealer] = 1.0
        for s in range(n):
            parts["sizes"][s] = len(hands[s]) / n_cards
        if game is not None:
            for family, owner in game.exposed.items():
                parts["exposed"][setup.deck.family_index(family), setup.names.index(owner)] = 1.0
            if not core.terminal():
                parts["to_move"][core.current_player()] = 1.0
        if self.perfect_recall:
            for c, s in enumerate(core.holds):
                if s >= 0:
                    parts["holds"][c, s] = 1.0
            for s in range(n):
                lacks, asked = core.lacks[s], core.asked[s]
                for c in range(n_cards):
                    if lacks >> c & 1:
                        parts["lacks"][c, s] = 1.0
                for f in range(setup.deck.n_families):
                    if asked >> f & 1:
                        parts["asked"][f, s] = 1.0
            parts["asks"][0] = core.asks / setup.max_asks
        elif core.last is not None:
            asker, target, card, yes = core.last
            last = parts["last"]
            last[asker] = last[n + target] = last[2 * n + card] = 1.0
            last[2 * n + n_cards] = float(yes)

    def string_from(self, state: KwartetState, player: int) -> str:
        """The string for ``player`` in ``state``."""
        core = state._core
        setup = self.setup
        codes = [c.code for c in setup.deck.cards]
        name = setup.names[player]
        pieces = [name]
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            if self.perfect_recall:
                pieces.append("dealt " + " ".join(codes[c] for c in core.dealt_to(player)))
            else:
                pieces.append("hand " + " ".join(codes[c] for c in _hand_indices(core, player)))
        elif self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            pieces.append(
                " ".join(
                    f"{setup.names[s]}:" + ",".join(codes[c] for c in _hand_indices(core, s))
                    for s in range(setup.n)
                )
            )
        if self.public_info:
            if self.perfect_recall:
                if core.game is None:  # dealing: the dealer is known
                    dealer = f"dealer:{setup.names[core.dealer]}" if core.dealer >= 0 else ""
                    pieces.append(dealer)
                else:
                    pieces.append(" ".join(core.public))
            elif core.game is not None:
                game = core.game
                sizes = " ".join(f"{p}{k}" for p, k in game.hand_sizes.items())
                exposed = " ".join(f"{p}#{f}" for f, p in game.exposed.items())
                turn = game.to_move or "-"
                last = "-"
                if core.last is not None:
                    asker, target, card, yes = core.last
                    last = f"{setup.names[asker]}>{setup.names[target]}:{codes[card]}"
                    last += "+" if yes else "-"
                pieces.append(f"sizes {sizes} exposed {exposed or '-'} turn {turn} last {last}")
        return " | ".join(pieces)


def _hand_indices(core: _Core, seat: int) -> list[int]:
    """The seat's cards now (during the deal: dealt so far), in deck order."""
    if core.game is None:
        return core.dealt_to(seat)
    return [c.index for c in core.game.hand(core.setup.names[seat])]


pyspiel.register_game(_GAME_TYPE, KwartetGame)


# ----- between the library and OpenSpiel ----------------------------------------------------


def load_game(
    players: int = 4,
    deck: Deck | None = None,
    rules: RuleSet | None = None,
    max_asks: int = MAX_ASKS,
) -> KwartetGame:
    """The ``python_kwartet`` game for a deck and rule set of the library.

    >>> game = load_game(3, kw.Deck.piquet(families=4), kw.RuleSet(bluffing=True))
    >>> game.setup.rules.bluffing, str(game)
    (True, 'python_kwartet(deck=piquet,families=4,max_asks=5000,options=bluffing:true,players=3,preset=publisher)')
    >>> pyspiel.load_game(str(game)).setup.rules == game.setup.rules
    True
    """
    deck = deck if deck is not None else Deck.piquet()
    rules = rules if rules is not None else RuleSet()
    if not isinstance(deck, Deck):
        raise GameSetupError(f"deck {short(deck)}: expected a Deck such as Deck.piquet()")
    if not isinstance(rules, RuleSet):
        raise GameSetupError(f"rules {short(rules)}: expected a RuleSet")
    name = deck.name if deck.name in ("piquet", "standard") else deck.name.lower()
    if _deck(name, deck.n_families) != deck:
        raise GameSetupError(
            f"deck {short(deck)}: python_kwartet plays piquet, standard and bundled packs"
        )
    defaults = RuleSet().to_dict()
    options = ";".join(
        f"{k}:{str(v).lower() if isinstance(v, bool) else v}"
        for k, v in rules.to_dict().items()
        if v != defaults[k]
    )
    params = {
        "players": players,
        "deck": name,
        "families": deck.n_families,
        "options": options,
        "max_asks": max_asks,
    }
    key = tuple(sorted(params.items()))
    game = _GAMES.get(key)
    if game is None:
        game = pyspiel.load_game(GAME_NAME, params)
        if len(_GAMES) > 64:
            _GAMES.clear()
        _GAMES[key] = game
    return game


_GAMES: dict[tuple[Any, ...], KwartetGame] = {}


def core_game(state: KwartetState) -> Game:
    """The referee's :class:`~kwartet_epistemic.Game` inside a state (after the deal)."""
    game = getattr(state, "_core", None)
    if game is None or game.game is None:
        raise GameSetupError(f"{short(str(state))}: expected a python_kwartet state after the deal")
    return game.game


def action_of(state: KwartetState, ask: Ask) -> int:
    """The OpenSpiel action of an :class:`~kwartet_epistemic.Ask` in ``state``."""
    setup = state._core.setup
    card = setup.deck.card(ask.card)
    if ask.target not in setup.names:
        raise GameSetupError(f"{ask}: target {ask.target!r} is not one of {setup.names}")
    return setup.names.index(ask.target) * len(setup.deck) + card.index


def ask_of(state: KwartetState, action: int) -> Ask:
    """The :class:`~kwartet_epistemic.Ask` of an OpenSpiel action of the player to move."""
    setup = state._core.setup
    target, card = divmod(int(action), len(setup.deck))
    return Ask(setup.names[state.current_player()], setup.names[target], setup.deck.cards[card])


def _dealt_hands(world: World, record: Sequence[Event], deck: Deck) -> dict[str, set[int]]:
    """The hands as dealt, from a world (where every card is now) and the public record:
    the record is walked back, every move and exposure undone."""
    held = {p: {c.index for c in cards} for p, cards in world.hands.items()}
    for event in reversed(record):
        if type(event) is CardMoved:
            held[event.destination].discard(event.card.index)
            held[event.source].add(event.card.index)
        elif type(event) is QuartetExposed:
            held[event.player].update(c.index for c in deck.family_cards(event.family))
    return held


def _core_from_world(template: _Core, world: World) -> _Core:
    """A core in ``world`` with the record of ``template`` (its public tokens and summary
    are the same: only the hidden cards differ)."""
    setup = template.setup
    game = template.game
    assert game is not None
    record = game.record
    hands = _dealt_hands(world, record, setup.deck)
    n = setup.n
    core = _Core(setup)
    core.dealer = template.dealer
    order = [sorted(hands[p]) for p in setup.names]
    sizes = [len(h) for h in order]
    dealt: list[int] = []
    for k in range(sum(sizes)):
        dealt.append(order[(template.dealer + 1 + k) % n].pop(0))
    core.dealt = dealt
    cards = setup.deck.cards
    core.game = Game(
        setup.deck, setup.names, {p: [cards[c] for c in sorted(hands[p])] for p in setup.names},
        dealer=setup.names[template.dealer], rules=setup.rules,
        aside=world.piles.get("aside", ()),
    )  # fmt: skip
    for event in record:
        if type(event) is Asked:
            core.game.ask(event.target, event.card, asker=event.asker)
    if len(core.game.record) != len(record):
        raise KwartetError("a resampled world does not replay the record (a bug)")
    core.asks = template.asks
    core.public = list(template.public)
    core.seen = template.seen
    core.summary = template.summary.copy()
    return core


def state_from_world(game: KwartetGame, view: PlayerView, world: World) -> KwartetState:
    """An OpenSpiel state of ``game`` in which the cards lie as in ``world`` and the
    public record is ``view``'s: a state the view's player cannot tell from the true one.
    The deal and every ask are applied as OpenSpiel actions, so ``history()`` is whole.

    >>> table = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=2)
    >>> _ = table.play(table.legal_asks()[0])
    >>> view = table.view("B")
    >>> (world,) = kw.knowledge(view).sample_worlds("B", 1, np.random.default_rng(0))
    >>> state = state_from_world(load_game(3, table.deck), view, world)
    >>> core_game(state).view("B").record == view.record
    True
    """
    setup = game.setup
    if view.deck != setup.deck or view.rules != setup.rules or len(view.players) != setup.n:
        raise GameSetupError(
            f"{view.player}'s view: its deck, rules or seats differ from the game {short(str(game))}"
        )
    names = tuple(view.players)
    dealt_event = view.record[0]
    if type(dealt_event) is not Dealt:
        raise GameSetupError(f"{view.player}'s view: its record does not start with the deal")
    return _replayed(game, names, view.record, world)


def _replayed(
    game: KwartetGame, names: Sequence[str], record: Sequence[Event], world: World
) -> KwartetState:
    """A new state of ``game``: the deal that leads to ``world`` under ``record`` (seats
    named ``names``), applied as chance outcomes (the dealer, then each card from the
    dealer's left), then every ask of ``record`` applied as an action."""
    setup = game.setup
    dealt_event = record[0]
    assert type(dealt_event) is Dealt
    hands = _dealt_hands(world, record, setup.deck)
    state = game.new_initial_state()
    dealer = list(names).index(dealt_event.dealer)
    state.apply_action(dealer)
    order = [sorted(hands[p]) for p in names]
    for k in range(setup.to_deal):
        state.apply_action(order[(dealer + 1 + k) % setup.n].pop(0))
    n_cards = len(setup.deck)
    for event in record:
        if type(event) is Asked:
            state.apply_action(list(names).index(event.target) * n_cards + event.card.index)
    return state


def resampled_state(game: KwartetGame, template: KwartetState, world: World) -> KwartetState:
    """A new state of ``game`` with ``template``'s public record replayed on ``world``
    (where every card lies now): a state that ``template``'s players who cannot see
    ``world``'s hidden cards cannot tell from ``template``."""
    other = game.new_initial_state()
    other._core = _core_from_world(template._core, world)
    return other
