"""OpenSpiel's bots as the library's agents, and the library's agents as OpenSpiel bots
(optional extra ``openspiel``).

Agent specs ``openspiel:ismcts[...]``, ``openspiel:mcts[...]`` and ``openspiel:random``
name OpenSpiel's bots (the player registry loads this module on first use); their
determinizations are drawn exactly uniformly from the agent's knowledge, with the public
record replayed.  :class:`AgentBot` makes any agent spec a ``pyspiel.Bot``.  The game
itself is :mod:`~kwartet_epistemic.interop.openspiel_game`.  :func:`agent_policy` makes
agent specs an OpenSpiel ``TabularPolicy`` over every information state of a small game,
for OpenSpiel's exact algorithms (``exploitability.nash_conv``).

>>> policy = openspiel_policy("mcts", {"simulations": "20", "worlds": "2"})
>>> policy.kind
'mcts'
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

try:
    import pyspiel
    from open_spiel.python import policy as _policy
    from open_spiel.python.algorithms import ismcts as _ismcts
    from open_spiel.python.algorithms import mcts as _mcts
except ImportError as error:  # pragma: no cover - the openspiel extra is missing
    raise ImportError(
        "kwartet_epistemic.interop needs the 'openspiel' extra: "
        "pip install 'kwartet_epistemic[openspiel]'"
    ) from error

from kwartet_epistemic._safejson import short
from kwartet_epistemic.agents.agent import Agent
from kwartet_epistemic.agents.knowledge import ExactKnowledge, KnowledgeBase
from kwartet_epistemic.agents.policies import Policy
from kwartet_epistemic.epistemics.state import World
from kwartet_epistemic.errors import GameSetupError, KwartetError
from kwartet_epistemic.game import Ask, PlayerView
from kwartet_epistemic.interop.openspiel_game import (
    SEATS,
    KwartetGame,
    KwartetState,
    action_of,
    load_game,
    resampled_state,
    state_from_world,
)

__all__ = ["POLICIES", "AgentBot", "OpenSpielPolicy", "agent_policy", "openspiel_policy"]


# ----- OpenSpiel's bots as the library's agents ---------------------------------------------


def _options(
    name: str,
    options: Mapping[str, str],
    known: Mapping[str, tuple[type, Callable[[Any], bool], str]],
) -> dict[str, Any]:
    """Read and check ``options`` of ``openspiel:name``: key -> (type, test, expected)."""
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise GameSetupError(
            f"agent 'openspiel:{name}': unknown option(s) {', '.join(unknown)}; known: "
            + (", ".join(known) or "none")
        )
    values: dict[str, Any] = {}
    for key, text in options.items():
        kind, test, expected = known[key]
        try:
            value = kind(text)
        except (TypeError, ValueError):
            value = None
        if value is None or not test(value):
            raise GameSetupError(
                f"agent 'openspiel:{name}': option {key}={text!r}: expected {expected}"
            )
        values[key] = value
    return values


_POSITIVE_INT = (int, lambda v: v >= 1, "a whole number >= 1")
# ISMCTS's first simulation only expands the root: its final policy needs a second.
_TWO_OR_MORE = (int, lambda v: v >= 2, "a whole number >= 2")
_SEED = (int, lambda v: 0 <= v < 2**32, "a whole number from 0 to 2**32 - 1")
_MS = (float, lambda v: 0 < v <= 3_600_000, "milliseconds > 0")
_UCT = (float, lambda v: 0 <= v <= 1000, "a number from 0 to 1000")
_ROLLOUT = (str, lambda v: v in ("fast", "openspiel"), "fast or openspiel")
_FINAL = (str, lambda v: v in ("visits", "value"), "visits or value")


class _FastRollouts(_mcts.Evaluator):
    """OpenSpiel's random roll-out evaluator, run on the referee directly: every move a
    uniformly random legal ask (as ``RandomRolloutEvaluator`` picks a random legal
    action), without the OpenSpiel state's per-move overhead; priors are uniform."""

    def __init__(self, rollouts: int, rng: np.random.Generator) -> None:
        self.rollouts = rollouts
        self.rng = rng

    def evaluate(self, state: KwartetState) -> np.ndarray:
        core = state.core
        total = np.zeros(core.setup.n)
        for _ in range(self.rollouts):
            copy = core.__deepcopy__({})
            game = copy.game
            assert game is not None
            rng = self.rng
            while not game.is_over and copy.asks < copy.setup.max_asks:
                game.play(game.random_legal_ask(rng))
                copy.asks += 1
            total += copy.returns()
        return total / self.rollouts

    def prior(self, state: KwartetState) -> list[tuple[int, float]]:
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


def _evaluator(kind: str, rollouts: int, rng: np.random.Generator) -> _mcts.Evaluator:
    if kind == "fast":
        return _FastRollouts(rollouts, rng)
    return _mcts.RandomRolloutEvaluator(
        n_rollouts=rollouts, random_state=np.random.RandomState(int(rng.integers(2**32)))
    )


class _TimedISMCTS(_ismcts.ISMCTSBot):
    """OpenSpiel's ISMCTS bot with a time budget: simulations run until ``seconds`` are
    spent (or ``max_simulations`` are done, whichever comes first)."""

    def __init__(self, *args: Any, seconds: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seconds = seconds
        self.simulations_done = 0

    def run_search(self, state: KwartetState) -> list[tuple[int, float]]:
        if self.seconds is None:
            result: list[tuple[int, float]] = super().run_search(state)
            self.simulations_done = self._max_simulations
            return result
        self.reset()
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)]
        deadline = time.perf_counter() + self.seconds
        self._root_node = self.create_new_node(state)
        done = 0
        # The first simulation only expands the root; the second is the first to visit a
        # child, and OpenSpiel's final policy needs one.
        while done < self._max_simulations and (done < 2 or time.perf_counter() < deadline):
            self.run_simulation(self.sample_root_state(state))
            done += 1
        self.simulations_done = done
        return self.get_final_policy(state, self._root_node)


class OpenSpielPolicy(Policy):
    """One of OpenSpiel's bots playing from an agent's view (spec ``openspiel:KIND[...]``).

    The bot gets an OpenSpiel state that the agent cannot tell from the true one: a world
    drawn exactly uniformly from the agent's knowledge, with the public record replayed.

    * ``ismcts``: OpenSpiel's information-set MCTS; its determinizations (every
      simulation's world) are drawn exactly uniformly by the library (its resampler).
      Options ``ms`` (time per decision) and/or ``simulations`` (default 200 without
      ``ms``), ``uct_c`` (default 0.7; returns are win shares in [0, 1]), ``worlds``
      (OpenSpiel's ``max_world_samples``, default unlimited), ``final`` (``visits``, the
      most visited ask, or ``value``), ``rollout`` (``fast``: random roll-outs on the
      referee; ``openspiel``: OpenSpiel's ``RandomRolloutEvaluator``), ``rollouts``
      (per leaf, default 1), ``seed``.
    * ``mcts``: OpenSpiel's MCTS on determinizations (it is a perfect-information
      search): ``worlds`` exactly sampled worlds (default 4), ``simulations`` each
      (default 50), the visit counts summed; with ``ms``, worlds are drawn until the time
      is up.  ``uct_c`` (default 0.7), ``rollout``, ``rollouts``, ``seed``.
    * ``random``: OpenSpiel's uniform random bot.  Option ``seed``.

    Without ``seed`` the bot's random numbers come from the agent's generator.  ISMCTS's
    resampler is given that generator (OpenSpiel's default would build a new
    ``UniformProbabilitySampler`` per call); its resampled states are built on the referee
    directly, without replaying OpenSpiel actions, so their ``history()`` is empty (ISMCTS
    reads only their information states, legal actions and returns).

    >>> table = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=4)
    >>> agent = kw.agents.make_agent("openspiel:ismcts[simulations=20]", table.to_move,
    ...                              np.random.default_rng(0))
    >>> agent.choose(table.view(table.to_move)) in table.legal_asks()
    True
    """

    name = "openspiel"

    def __init__(self, kind: str, settings: Mapping[str, Any]) -> None:
        self.kind = kind
        self.settings = dict(settings)
        self.simulations_done = 0  # the last decision's

    def choose(
        self,
        view: PlayerView,
        knowledge: KnowledgeBase,
        asks: Sequence[Ask],
        rng: np.random.Generator,
    ) -> Ask:
        if not isinstance(knowledge, ExactKnowledge):
            raise GameSetupError(
                "openspiel agents sample worlds from exact knowledge; got "
                f"{getattr(knowledge, 'kind', short(knowledge))!r} knowledge"
            )
        if len(asks) == 1:
            return asks[0]
        settings = self.settings
        if "seed" in settings:
            rng = np.random.default_rng([settings["seed"], len(view.record)])
        game = load_game(len(view.players), view.deck, view.rules)
        seat = view.players.index(view.player)
        root = _determinized(game, view, knowledge, rng)
        if self.kind == "random":
            bot = pyspiel.make_uniform_random_bot(seat, int(rng.integers(2**31)))
            action = bot.step(root)
        elif self.kind == "ismcts":
            action = self._ismcts(game, view, knowledge, root, rng)
        else:
            action = self._mcts(game, view, knowledge, root, rng)
        # The state names the seats A, B, ...; the view may name them otherwise.
        target, card = divmod(int(action), len(view.deck))
        ask = Ask(view.player, view.players[target], view.deck.cards[card])
        if ask not in asks:  # pragma: no cover - the state and the view agree on legality
            raise KwartetError(f"openspiel:{self.kind} chose {ask}, which is not legal (a bug)")
        return ask

    def _ismcts(
        self,
        game: KwartetGame,
        view: PlayerView,
        knowledge: ExactKnowledge,
        root: KwartetState,
        rng: np.random.Generator,
    ) -> int:
        s = self.settings
        ms = s.get("ms")
        simulations = s.get("simulations", 200 if ms is None else 10**9)
        bot = _TimedISMCTS(
            game,
            _evaluator(s.get("rollout", "fast"), s.get("rollouts", 1), rng),
            s.get("uct_c", 0.7),
            simulations,
            max_world_samples=s.get("worlds", _ismcts.UNLIMITED_NUM_WORLD_SAMPLES),
            random_state=np.random.RandomState(int(rng.integers(2**32))),
            final_policy_type=(
                _ismcts.ISMCTSFinalPolicyType.MAX_VALUE
                if s.get("final") == "value"
                else _ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT
            ),
            seconds=None if ms is None else ms / 1000.0,
        )
        template = root

        names = game.setup.names

        def resample(state: KwartetState, player: int) -> KwartetState:
            (world,) = knowledge.sample_worlds(1, rng)
            seated = World(  # the view's names -> the state's seat names
                {s: world.hands[p] for s, p in zip(names, view.players, strict=True)},
                world.piles,
            )
            return resampled_state(game, template, seated)

        bot.set_resampler(resample)
        action = int(bot.step(root))
        self.simulations_done = bot.simulations_done
        return action

    def _mcts(
        self,
        game: KwartetGame,
        view: PlayerView,
        knowledge: ExactKnowledge,
        root: KwartetState,
        rng: np.random.Generator,
    ) -> int:
        s = self.settings
        ms = s.get("ms")
        worlds = s.get("worlds", 4 if ms is None else 10**9)
        evaluator = _evaluator(s.get("rollout", "fast"), s.get("rollouts", 1), rng)
        bot = _mcts.MCTSBot(
            game,
            s.get("uct_c", 0.7),
            s.get("simulations", 50),
            evaluator,
            solve=False,
            random_state=np.random.RandomState(int(rng.integers(2**32))),
        )
        deadline = None if ms is None else time.perf_counter() + ms / 1000.0
        visits: dict[int, int] = {}
        done = 0
        state = root
        while done < worlds and (done == 0 or deadline is None or time.perf_counter() < deadline):
            if done:
                state = _determinized(game, view, knowledge, rng)
            node = bot.mcts_search(state)
            for child in node.children:
                visits[child.action] = visits.get(child.action, 0) + child.explore_count
            done += 1
        self.simulations_done = done * bot.max_simulations
        best = max(visits.values())
        ties = sorted(a for a, v in visits.items() if v == best)
        return ties[int(rng.integers(len(ties)))]


def _determinized(
    game: KwartetGame, view: PlayerView, knowledge: ExactKnowledge, rng: np.random.Generator
) -> KwartetState:
    """A state of the view's information set: an exactly uniform world, the record replayed."""
    knowledge.update(view)
    (world,) = knowledge.sample_worlds(1, rng)
    return state_from_world(game, view, world)


POLICIES: dict[str, dict[str, tuple[type, Callable[[Any], bool], str]]] = {
    "ismcts": {
        "simulations": _TWO_OR_MORE,
        "ms": _MS,
        "uct_c": _UCT,
        "worlds": _POSITIVE_INT,
        "final": _FINAL,
        "rollout": _ROLLOUT,
        "rollouts": _POSITIVE_INT,
        "seed": _SEED,
    },
    "mcts": {
        "simulations": _POSITIVE_INT,
        "ms": _MS,
        "uct_c": _UCT,
        "worlds": _POSITIVE_INT,
        "rollout": _ROLLOUT,
        "rollouts": _POSITIVE_INT,
        "seed": _SEED,
    },
    "random": {"seed": _SEED},
}
"""The OpenSpiel bots usable as ``openspiel:NAME[OPTIONS]``, with their options."""


def openspiel_policy(name: str, options: Mapping[str, str] | None = None) -> OpenSpielPolicy:
    """The policy of spec ``openspiel:NAME[OPTIONS]`` (options as text, checked here).

    >>> openspiel_policy("ismcts", {"ms": "300", "uct_c": "1.5"}).settings
    {'ms': 300.0, 'uct_c': 1.5}
    >>> openspiel_policy("ismcts", {"simulations": "many"})
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.GameSetupError: agent 'openspiel:ismcts': option simulations='many': expected a whole number >= 2
    """
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in POLICIES:
        raise GameSetupError(
            f"unknown agent 'openspiel:{short(name)}'; OpenSpiel bots are "
            + ", ".join(f"openspiel:{k}" for k in POLICIES)
        )
    return OpenSpielPolicy(key, _options(key, dict(options or {}), POLICIES[key]))


# ----- the library's agents as OpenSpiel bots -----------------------------------------------


class AgentBot(pyspiel.Bot):
    """Any of the library's agent specs as an OpenSpiel bot for seat ``player_id`` of a
    ``python_kwartet`` game: it is given only that seat's view of the state.

    >>> from open_spiel.python.algorithms import evaluate_bots
    >>> game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 3})
    >>> bots = [AgentBot(game, p, spec, seed=p) for p, spec in enumerate(["knowledge", "random", "greedy"])]
    >>> returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    >>> sum(returns)
    1.0
    """

    def __init__(self, game: Any, player_id: int, spec: str, seed: int | None = None) -> None:
        super().__init__()
        if not isinstance(game, KwartetGame):
            raise GameSetupError(f"game {short(str(game))}: expected a python_kwartet game")
        setup = game.setup
        if (
            isinstance(player_id, bool)
            or not isinstance(player_id, int)
            or not 0 <= player_id < setup.n
        ):
            raise GameSetupError(
                f"player_id={short(player_id)}: expected a seat from 0 to {setup.n - 1}"
            )
        self.player_id = player_id
        self.spec = spec
        self._seed = seed
        self._agent: Agent | Any = self._make()

    def _make(self) -> Any:
        from kwartet_epistemic.agents.agent import make_player

        rng = np.random.default_rng(self._seed)
        return make_player(self.spec, SEATS[self.player_id], rng)

    def restart_at(self, state: Any) -> None:
        """A new game: a fresh agent (its knowledge follows the views it is given)."""
        self._agent = self._make()

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to do: the agent reads the record from its next view."""

    def step(self, state: Any) -> int:
        """The agent's ask in ``state`` as an OpenSpiel action."""
        core = getattr(state, "_core", None)
        if core is None or core.game is None:
            raise GameSetupError("AgentBot.step: expected a python_kwartet state after the deal")
        if state.current_player() != self.player_id:
            raise GameSetupError(
                f"AgentBot for seat {self.player_id} asked to move in seat {state.current_player()}"
            )
        name = core.setup.names[self.player_id]
        choice = self._agent.choose(core.game.view(name))
        if not isinstance(choice, Ask):
            raise GameSetupError(f"agent {self.spec!r} chose {short(choice)}, not an ask")
        return action_of(state, choice)


def agent_policy(game: Any, specs: str | Sequence[str], samples: int = 1, seed: int = 0) -> Any:
    """The agents of ``specs`` (one spec for every seat, or a list with one per seat) as
    an OpenSpiel ``policy.TabularPolicy`` of ``game``: at every information state, the
    share of ``samples`` decisions that chose each action, each decision made by a new
    agent (its own generator, from ``seed``) given only that seat's view.  A
    deterministic agent gets a pure policy; ``samples`` estimates a random one's
    (``random`` with ``samples=1`` is one random pure strategy, not the uniform policy).

    OpenSpiel enumerates every state to build the table, so ``game`` must be small,
    such as ``{"players": 3, "families": 1, "max_asks": 4}`` (see
    :mod:`~kwartet_epistemic.interop.openspiel_game`).

    >>> from open_spiel.python.algorithms import exploitability
    >>> game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 1, "max_asks": 2})
    >>> table = agent_policy(game, "greedy")
    >>> len(table.state_lookup), float(table.action_probability_array.sum())
    (162, 162.0)
    >>> bool(exploitability.nash_conv(game, table) >= 0)
    True
    """
    if not isinstance(game, KwartetGame):
        raise GameSetupError(f"game {short(str(game))}: expected a python_kwartet game")
    n = game.setup.n
    per_seat = [specs] * n if isinstance(specs, str) else list(specs)
    if len(per_seat) != n or not all(isinstance(s, str) for s in per_seat):
        raise GameSetupError(
            f"specs={short(specs)}: expected one agent spec or {n} of them (one per seat)"
        )
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise GameSetupError(f"samples={short(samples)}: expected a whole number >= 1")
    from kwartet_epistemic.agents.agent import make_player

    for seat, spec in enumerate(per_seat):  # a bad spec fails before the long walk
        make_player(spec, SEATS[seat])
    table = _policy.TabularPolicy(game)
    for index, state in enumerate(table.states):
        seat = state.current_player()
        name = SEATS[seat]
        view = state.core.game.view(name)
        probabilities = table.action_probability_array[index]
        probabilities[:] = 0.0
        for k in range(samples):
            rng = np.random.default_rng([seed, index, k])
            ask = make_player(per_seat[seat], name, rng).choose(view)
            probabilities[action_of(state, ask)] += 1.0 / samples
    return table
