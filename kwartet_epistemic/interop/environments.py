"""Kwartet for reinforcement learning (optional extra ``rl``: gymnasium, pettingzoo).

Two environments:

* :class:`KwartetEnv`, a PettingZoo AEC environment with every seat an agent
  (:func:`env` wraps it as PettingZoo's own classic games are wrapped);
* :class:`KwartetGymEnv`, a single-agent Gymnasium environment: the learner in one seat
  (or every seat in turn), the other seats played by agent specs such as
  ``"defensive:facts"`` or ``"knowledge"`` (registered with Gymnasium as ``Kwartet-v0``).

**Agents.**  PettingZoo's agents are named ``player_0``, ``player_1``, ... (PettingZoo's
convention); ``player_i`` sits in the game's seat ``"ABCDEF"[i]``, so ``env.game``, its
views and records name the seats ``A``, ``B``, ... (:meth:`KwartetEnv.seat_of`,
:meth:`KwartetEnv.agent_of` translate).  An unknown agent name raises
:class:`~kwartet_epistemic.GameSetupError`.

**Actions.**  One integer ``target * n_cards + card``, where ``target`` counts seats to the
acting player's left (1 is the next seat; 0, the player itself, is never legal), so a
quarter of the actions of a 4-player game is never legal.  OpenSpiel's ``python_kwartet``
numbers the target as an absolute seat instead;
:func:`~kwartet_epistemic.interop.encoding.gym_to_openspiel_action` and
:func:`~kwartet_epistemic.interop.encoding.openspiel_to_gym_action` convert.

**Action masks** have one dtype everywhere, ``int8`` (1 legal, 0 not;
:data:`~kwartet_epistemic.interop.encoding.ACTION_MASK_DTYPE`):
``observation["action_mask"]`` and :meth:`KwartetEnv.action_mask` in the AEC
environment, :meth:`KwartetGymEnv.action_masks` (the method sb3-contrib's
``MaskablePPO`` calls) and ``info["action_mask"]`` in the Gymnasium one.  It is the dtype
of PettingZoo's classic games; sb3-contrib turns whatever it is given into a boolean
tensor, so integer masks serve it unchanged.  The illegal actions are ``mask == 0``
(not ``~mask``, which on integers flips bits).

**Illegal actions** (mask 0):

* the bare AEC environment (:func:`raw_env`) refuses them with
  :class:`~kwartet_epistemic.IllegalAskError` and changes nothing (a program that asks
  illegally has a bug);
* :func:`env` wraps it as PettingZoo's classic games are (``TerminateIllegalWrapper`` with
  ``illegal_reward=-1``, ``AssertOutOfBoundsWrapper``, ``OrderEnforcingWrapper``): an
  illegal action ends the game for everyone, the actor gets -1 and the others 0;
* the Gymnasium environment ends the episode (``terminated=True``) with reward
  ``illegal_reward`` (-1 by default) and ``info["illegal"] = True``, the game unchanged, so
  that an unmasked learner (or ``gymnasium.utils.env_checker.check_env``, which samples
  any action) never crashes; a masked learner never sees it.

**Seeding** follows Gymnasium: ``reset(seed=s)`` makes a new generator ``env.np_random``
from ``s``; a plain ``reset()`` draws the next deal (and the opponents' random numbers)
from that generator, so a run that seeds once and then resets reproduces deal for deal.
Without any seed the first reset seeds the generator from fresh entropy.  The deal's own
seed is ``env.deal_seed`` (``Game.deal(deck, seats, seed=env.deal_seed, rules=rules)``
deals the same game).

**Observations** are ``float32`` vectors in [0, 1], seats counted from the observer:

* own hand (one per card), exposed cards (one per card);
* hand sizes (per seat, over the deck size), quartets laid down (per seat, over the
  number of families);
* the public record, per card and seat: asked for it, refused it, was seen receiving it
  (and still holds it) -- ``"raw"``;
* the observer's exact location probabilities (per card and seat), from its epistemic
  state (:class:`~kwartet_epistemic.agents.knowledge.ExactKnowledge`) -- ``"knowledge"``.

The AEC environment observes both; :class:`KwartetGymEnv` takes ``observation="raw"``,
``"knowledge"`` or ``"both"``.  Each part has a name, and ``env.observation_slices`` maps
the names (``hand``, ``exposed``, ``hand_sizes``, ``quartets``, ``asked``, ``refused``,
``received``, ``probabilities``) to their slices of the vector;
``env.layout.split(vector, parts)`` gives each part in its shape (``[card, seat]`` for
the tables), as OpenSpiel's observers name their tensors
(:meth:`~kwartet_epistemic.interop.encoding.ObservationLayout.shapes`).  ``state()`` is
the referee's view: every seat's hand, the exposed cards, hand sizes, scores and whose
turn it is, in seat order.

**Rendering**: ``render_mode="ansi"`` returns the table as text (``"human"``, in the AEC
environment, prints it); ``"rgb_array"`` returns a ``uint8`` picture ``(H, W, 3)`` of the
table (hand sizes, quartets, the seat to move, the last move) beside a heatmap of the
learner's (AEC: the agent to move's) exact location probabilities, drawn on matplotlib's
Agg canvas in a fraction of a second, so that Gymnasium's ``RecordVideo`` can film it.

**Subprocesses.**  Importing this module registers ``Kwartet-v0``; a new process (a
``SubprocVecEnv`` started with ``"spawn"`` or ``"forkserver"``) has not imported it, so
there name the module in the id, ``"kwartet_epistemic.interop.environments:Kwartet-v0"``
(Gymnasium imports it first), or give the class itself:
``make_vec_env(KwartetGymEnv, n_envs=8, vec_env_cls=SubprocVecEnv)``.

**Rewards**: with ``reward="win"`` each player gets its share of the win when the game
ends (shared wins split); with ``reward="quartets"`` a player gets 1 for every quartet it
lays down, when it does.

>>> from kwartet_epistemic.interop.environments import KwartetEnv
>>> env = KwartetEnv(players=3, deck=kw.Deck.piquet(families=4))
>>> env.reset(seed=1)
>>> env.agent_selection in env.agents, env.seat_of(env.agent_selection) == env.game.to_move
(True, True)
>>> observation = env.observe(env.agent_selection)
>>> observation["action_mask"].dtype, observation["observation"].dtype
(dtype('int8'), dtype('float32'))
>>> action = int(np.flatnonzero(observation["action_mask"])[0])
>>> env.step(action)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsFloat

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
    from gymnasium.utils import seeding
    from pettingzoo import AECEnv
except ImportError as error:  # pragma: no cover - the rl extra is missing
    raise ImportError(
        "kwartet_epistemic.interop.environments needs the 'rl' extra: pip install 'kwartet_epistemic[rl]'"
    ) from error

from kwartet_epistemic._safejson import short
from kwartet_epistemic.agents.knowledge import make_knowledge
from kwartet_epistemic.cards import Deck
from kwartet_epistemic.errors import GameSetupError, IllegalAskError
from kwartet_epistemic.game import Ask, Game
from kwartet_epistemic.interop.encoding import (
    ACTION_MASK_DTYPE,
    OBSERVATIONS,
    ObservationLayout,
    RecordPlanes,
)
from kwartet_epistemic.rules import RuleSet

__all__ = ["KwartetEnv", "KwartetGymEnv", "env", "raw_env"]

_SEED_BOUND = 1 << 63
_AEC_RENDER_MODES = ("human", "ansi", "rgb_array")
_GYM_RENDER_MODES = ("ansi", "rgb_array")


def _shares(game: Game) -> dict[str, float]:
    """Each seat's share of the win of a finished game (else of the leaders now)."""
    if game.is_over:
        winners = game.winners
    else:
        scores = game.scores
        best = max(scores.values())
        winners = tuple(p for p in game.players if scores[p] == best)
    return {p: (1.0 / len(winners) if p in winners else 0.0) for p in game.players}


def _next_seed(rng: np.random.Generator) -> int:
    return int(rng.integers(_SEED_BOUND))


# 640 x 384 pixels: both multiples of 16, the block size of the video codecs, so that
# RecordVideo's encoder need not resize the frames.
_PICTURE_INCHES, _PICTURE_DPI = (8.0, 4.8), 80


def _picture(game: Game, seat: str, probabilities: np.ndarray) -> np.ndarray:
    """The table and ``seat``'s knowledge as an ``(H, W, 3)`` ``uint8`` image: hand sizes
    and quartets per seat (the seat to move marked), the last move, and ``seat``'s
    location probabilities (``[card, seat]`` in seat order) as a heatmap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    # A bare Figure on the Agg canvas: never registered with pyplot, so nothing stays open
    # and no window or notebook backend is involved, whatever the user's matplotlib setup.
    figure = Figure(figsize=_PICTURE_INCHES, dpi=_PICTURE_DPI)
    canvas = FigureCanvasAgg(figure)
    seats = list(game.players)
    deck = game.deck
    grid = figure.add_gridspec(
        1, 2, width_ratios=(1.0, 2.6), left=0.1, right=0.98, top=0.8, bottom=0.14, wspace=0.3
    )
    table = figure.add_subplot(grid[0])
    sizes = game.hand_sizes
    scores = game.scores
    rows = np.arange(len(seats))
    colours = ["tab:orange" if p == game.to_move else "tab:blue" for p in seats]
    table.barh(rows, [sizes[p] for p in seats], color=colours)
    table.set_yticks(rows, [f"{p} (you)" if p == seat else p for p in seats], fontsize=9)
    table.invert_yaxis()
    table.set_xlim(0, len(deck))
    table.set_xlabel("cards in hand", fontsize=9)
    table.tick_params(axis="x", labelsize=8)
    for row, p in zip(rows, seats, strict=True):
        table.text(
            len(deck) * 0.98,
            float(row),
            f"{scores[p]} quartets",
            ha="right",
            va="center",
            fontsize=8,
        )
    table.set_title("orange: to move" if game.to_move else "game over", fontsize=9)
    heat = figure.add_subplot(grid[1])
    heat.imshow(
        np.nan_to_num(probabilities).T, cmap="Greens", vmin=0.0, vmax=1.0, aspect="auto",
        interpolation="nearest",
    )  # fmt: skip
    heat.set_yticks(rows, seats, fontsize=9)
    heat.set_xticks([4 * f + 1.5 for f in range(deck.n_families)], deck.families, fontsize=8)
    for f in range(1, deck.n_families):
        heat.axvline(4 * f - 0.5, color="0.6", linewidth=0.8)
    heat.set_title(f"{seat}'s probability that each seat holds each card", fontsize=9)
    lines = game.transcript().splitlines()
    figure.suptitle(lines[-1] if lines else "", fontsize=9, wrap=True)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


# ----- the PettingZoo AEC environment --------------------------------------------------


class KwartetEnv(AECEnv):
    """Kwartet as an AEC environment: ``reset(seed=...)``, ``observe(agent)``, ``step``.

    ``knowledge`` picks how the observer's location probabilities are computed
    (``exact`` by default; ``facts`` is faster with a large draw pile).  A game still
    running after ``max_asks`` asks is truncated.  See the module text for the agents'
    names, the actions, illegal actions, seeding and the observations.

    The spaces are also the dicts ``observation_spaces`` and ``action_spaces`` keyed by
    agent, as PettingZoo's environments have them (the same space objects as
    :meth:`observation_space` and :meth:`action_space` return).

    >>> environment = KwartetEnv(players=4)
    >>> environment.reset(seed=3)
    >>> environment.observation_space("player_0")["observation"].shape
    (584,)
    >>> environment.action_space("player_0"), environment.state().shape
    (Discrete(128), (172,))
    >>> sorted(environment.action_spaces) == environment.possible_agents
    True
    """

    metadata = {
        "render_modes": list(_AEC_RENDER_MODES),
        "render_fps": 4,
        "name": "kwartet_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 4,
        deck: Deck | None = None,
        rules: RuleSet | None = None,
        reward: str = "win",
        knowledge: str = "exact",
        max_asks: int = 2000,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        table = ObservationLayout(
            players,
            deck,
            rules,
            reward,
            knowledge,
            max_asks,
            render_mode,
            _AEC_RENDER_MODES,
        )
        self.layout = table
        self.deck, self.rules = table.deck, table.rules
        self.reward_kind, self.knowledge_kind = reward, knowledge
        self.max_asks = max_asks
        self.render_mode = render_mode
        self.seats = table.seats
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._seat = dict(zip(self.possible_agents, self.seats, strict=True))
        self._agent = dict(zip(self.seats, self.possible_agents, strict=True))
        self.n_actions = table.n_actions
        self.observation_length = table.length("both")
        self.observation_slices = table.slices("both")
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(
                        0.0, 1.0, shape=(self.observation_length,), dtype=np.float32
                    ),
                    "action_mask": spaces.Box(
                        0, 1, shape=(self.n_actions,), dtype=ACTION_MASK_DTYPE
                    ),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(self.n_actions) for agent in self.possible_agents
        }
        n_cards, n = table.n_cards, players
        self.state_space = spaces.Box(
            0.0, 1.0, shape=(n_cards * n + n_cards + 3 * n,), dtype=np.float32
        )
        self.game: Game | None = None
        self.deal_seed: int | None = None
        self.np_random: np.random.Generator | None = None
        self.np_random_seed: int | None = None

    # ----- names and spaces ----------------------------------------------------------

    def seat_of(self, agent: str) -> str:
        """The game's seat (``A``, ``B``, ...) of PettingZoo agent ``agent``.

        >>> KwartetEnv(players=3).seat_of("player_2")
        'C'
        >>> KwartetEnv(players=3).seat_of("C")
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.GameSetupError: agent 'C': expected one of player_0, player_1, player_2
        """
        try:
            return self._seat[agent]
        except (KeyError, TypeError):
            raise GameSetupError(
                f"agent {short(agent)}: expected one of {', '.join(self.possible_agents)}"
            ) from None

    def agent_of(self, seat: str) -> str:
        """The PettingZoo agent sitting in the game's seat ``seat``.

        >>> KwartetEnv(players=3).agent_of("B")
        'player_1'
        """
        try:
            return self._agent[seat]
        except (KeyError, TypeError):
            raise GameSetupError(
                f"seat {short(seat)}: expected one of {', '.join(self.seats)}"
            ) from None

    def observation_space(self, agent: str) -> spaces.Space:
        """The (fixed) observation space of ``agent``."""
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> spaces.Space:
        """The (fixed) action space of ``agent``: one integer per (target, card)."""
        return self.action_spaces[self._known(agent)]

    def _known(self, agent: str) -> str:
        self.seat_of(agent)
        return agent

    # ----- the AEC cycle -------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: with ``seed``, from a new generator made from it; without,
        the next deal of the environment's generator (see Seeding in the module text).

        >>> a, b = KwartetEnv(players=3), KwartetEnv(players=3)
        >>> a.reset(seed=4); b.reset(seed=4); a.reset(); b.reset()
        >>> a.deal_seed == b.deal_seed and a.game.record == b.game.record
        True
        """
        if seed is not None or self.np_random is None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.deal_seed = _next_seed(self.np_random)
        self.game = Game.deal(self.deck, self.seats, seed=self.deal_seed, rules=self.rules)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._knowledge = {
            a: make_knowledge(self.knowledge_kind, self._seat[a]) for a in self.agents
        }
        self._record_features = RecordPlanes(self.deck, self.seats)
        self.asks = 0
        self._settle()

    def _settle(self) -> None:
        """Whose turn it is, or the end (every seat terminated)."""
        game = self._require_game()
        if game.is_over:
            for agent in self.agents:
                self.terminations[agent] = True
            self.agent_selection = self.agents[0]
            return
        if self.asks >= self.max_asks:
            for agent in self.agents:
                self.truncations[agent] = True
            self.agent_selection = self.agents[0]
            return
        mover = game.to_move
        assert mover is not None
        self.agent_selection = self._agent[mover]

    def step(self, action: int | np.integer | None) -> None:
        """The agent to move asks: ``action = target * n_cards + card`` (see the module).

        An illegal action raises :class:`~kwartet_epistemic.IllegalAskError` and changes
        nothing (:func:`env` ends the game instead, as PettingZoo's games do).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._require_game()
        ask = self.decode(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        before = dict(game.scores)
        game.play(ask)
        self.asks += 1
        after = game.scores
        if self.reward_kind == "quartets":
            for player in self.agents:
                seat = self._seat[player]
                self.rewards[player] = float(after[seat] - before[seat])
        if game.is_over and self.reward_kind == "win":
            shares = _shares(game)
            for player in self.agents:
                self.rewards[player] = shares[self._seat[player]]
        self._accumulate_rewards()
        self._settle()
        if self.render_mode == "human":
            self.render()

    def decode(self, agent: str, action: int | np.integer | None) -> Ask:
        """The ask that ``action`` means for ``agent`` (IllegalAskError if none)."""
        return self.layout.decode(self._require_game(), self.seat_of(agent), action)

    def encode(self, ask: Ask) -> int:
        """The action number of ``ask`` (its asker's point of view).

        >>> env = KwartetEnv(players=3); env.reset(seed=2)
        >>> ask = env.game.legal_asks()[0]
        >>> env.decode(env.agent_of(ask.asker), env.encode(ask)) == ask
        True
        """
        return self.layout.encode(ask)

    def action_mask(self, agent: str) -> np.ndarray:
        """``int8`` over the actions: 1 for each legal ask of ``agent`` now."""
        seat = self.seat_of(agent)
        game = self._require_game()
        if self.terminations[agent] or self.truncations[agent]:
            return np.zeros(self.n_actions, dtype=ACTION_MASK_DTYPE)
        return self.layout.mask(game, seat)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` observes: its own view only (see the module text)."""
        seat = self.seat_of(agent)
        game = self._require_game()
        vector = self.layout.features(
            game, seat, "both", self._record_features, self._knowledge[agent]
        )
        return {"observation": vector, "action_mask": self.action_mask(agent)}

    def state(self) -> np.ndarray:
        """The whole table as the referee sees it, in seat order (A, B, ...): each seat's
        hand (one per card and seat), the exposed cards (one per card), hand sizes (over the
        deck size), quartets (over the number of families) and whose turn it is (one-hot).

        >>> env = KwartetEnv(players=3); env.reset(seed=0)
        >>> state = env.state(); n_cards = len(env.deck)
        >>> int(state[: 3 * n_cards].sum()) == sum(env.game.hand_sizes.values())
        True
        """
        game = self._require_game()
        n_cards, n = len(self.deck), len(self.seats)
        hands = np.zeros((n_cards, n), dtype=np.float32)
        for s, seat in enumerate(self.seats):
            hands[[c.index for c in game.hand(seat)], s] = 1.0
        exposed = np.zeros(n_cards, dtype=np.float32)
        for family in game.exposed:
            f = self.deck.families.index(family)
            exposed[4 * f : 4 * f + 4] = 1.0
        sizes = game.hand_sizes
        scores = game.scores
        turn = np.zeros(n, dtype=np.float32)
        if game.to_move is not None:
            turn[self.seats.index(game.to_move)] = 1.0
        return np.concatenate(
            [
                hands.reshape(-1),
                exposed,
                np.array([sizes[p] / n_cards for p in self.seats], dtype=np.float32),
                np.array([scores[p] / self.deck.n_families for p in self.seats], dtype=np.float32),
                turn,
            ]
        )

    def render(self) -> str | np.ndarray | None:
        """The game so far: ``ansi``, as text returned; ``human``, printed; ``rgb_array``, a
        ``uint8`` picture ``(H, W, 3)`` of the table (hand sizes, quartets, the seat to
        move, the last move) and of the exact location probabilities of the agent to
        move (``player_0`` once the game is over); None before ``reset()``.

        >>> environment = KwartetEnv(players=3, render_mode="rgb_array")
        >>> environment.reset(seed=0)
        >>> frame = environment.render()
        >>> frame.dtype, frame.shape
        (dtype('uint8'), (384, 640, 3))
        """
        if self.game is None:
            return None
        if self.render_mode == "rgb_array":
            agent = self.agent_selection
            knowledge = self._knowledge[agent]
            knowledge.update(self.game.view(self._seat[agent]))
            return _picture(self.game, self._seat[agent], knowledge.probabilities())
        text = f"{self.game}\n{self.game.transcript().splitlines()[-1]}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release (no window)."""

    def _require_game(self) -> Game:
        if self.game is None:
            raise GameSetupError("call reset() before using the environment")
        return self.game


def raw_env(**kwargs: Any) -> KwartetEnv:
    """The bare environment (see :class:`KwartetEnv` for the options).

    >>> raw_env(players=3).possible_agents
    ['player_0', 'player_1', 'player_2']
    """
    return KwartetEnv(**kwargs)


def env(illegal_reward: float = -1.0, **kwargs: Any) -> Any:
    """The environment as PettingZoo wraps its classic games (the usual entry point): an
    illegal action ends the game with ``illegal_reward`` for the actor
    (``TerminateIllegalWrapper``), an action out of the space fails an assertion, and the
    order of calls is checked.

    >>> e = env(players=3)
    >>> e.reset(seed=0)
    >>> e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0]))
    >>> all(e.terminations.values()), sorted(float(r) for r in e.rewards.values())
    (True, [-1.0, 0.0, 0.0])
    """
    from pettingzoo.utils import wrappers

    wrapped: Any = wrappers.TerminateIllegalWrapper(raw_env(**kwargs), illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


# ----- the single-agent Gymnasium environment ------------------------------------------


class KwartetGymEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One learner against computer players, as a Gymnasium environment.

    ``opponents`` is one agent spec for every other seat (``"defensive:facts"``) or a list
    of ``players - 1`` specs, for the seats from the learner's left onwards.  ``seat`` fixes
    the learner's seat (a number from 0 or a seat name ``A``, ``B``, ...); ``None`` puts it
    in every seat in turn, one episode each, starting again at seat A at every seeded
    reset (``reset(options={"seat": k})`` overrides it for one episode).  ``observation``
    is ``"raw"`` (the public record), ``"knowledge"`` (the learner's exact location
    probabilities instead) or ``"both"``; the hand, table, hand sizes and scores are always
    there.  Each step is one ask of the learner, followed by the opponents' moves up to the
    learner's next turn or the end.  A deal in which the learner never moves (the game
    ends, or runs out of asks, first) is skipped: the next deal is drawn; ``skipped``
    counts them, and the reset's ``info["skipped"]`` lists the learner's share of the win
    in each deal it skipped (an evaluation must count those games: the learner is mostly
    skipped because its opponents took every card from it without a miss).

    Illegal actions end the episode with ``illegal_reward`` (see the module text); a game
    running after ``max_asks`` asks is truncated (the reward of ``"win"`` is then the
    learner's share among the leaders).  The opponents' random numbers come from the
    environment's generator, so an episode reproduces from its seed.

    >>> gym_env = KwartetGymEnv(players=3, deck=kw.Deck.piquet(families=4),
    ...                         opponents="random", observation="knowledge")
    >>> observation, info = gym_env.reset(seed=7)
    >>> observation.shape, gym_env.action_space, info["seat"]
    ((86,), Discrete(48), 'A')
    >>> hand = observation[gym_env.observation_slices["hand"]]
    >>> int(hand.sum()) == len(gym_env.game.hand("A"))
    True
    >>> mask = gym_env.action_masks()
    >>> bool((mask == info["action_mask"]).all()), mask.dtype
    (True, dtype('int8'))
    >>> observation, reward, terminated, truncated, info = gym_env.step(int(np.flatnonzero(mask)[0]))
    """

    metadata = {"render_modes": list(_GYM_RENDER_MODES), "render_fps": 4}

    def __init__(
        self,
        players: int = 4,
        deck: Deck | None = None,
        rules: RuleSet | None = None,
        opponents: str | Sequence[str] = "defensive:facts",
        seat: int | str | None = None,
        observation: str = "knowledge",
        reward: str = "win",
        knowledge: str = "exact",
        illegal_reward: float = -1.0,
        max_asks: int = 2000,
        render_mode: str | None = None,
    ) -> None:
        from kwartet_epistemic.agents.agent import make_player

        table = ObservationLayout(
            players,
            deck,
            rules,
            reward,
            knowledge,
            max_asks,
            render_mode,
            _GYM_RENDER_MODES,
        )
        if not isinstance(observation, str) or observation not in OBSERVATIONS:
            raise GameSetupError(
                f"observation={short(observation)}: expected one of {', '.join(OBSERVATIONS)}"
            )
        if isinstance(opponents, str):
            specs = [opponents] * (players - 1)
        elif isinstance(opponents, Sequence) and not isinstance(opponents, bytes):
            specs = list(opponents)
        else:
            raise GameSetupError(
                f"opponents={short(opponents)}: expected an agent spec such as "
                "'defensive:facts' or a list of one per other seat"
            )
        if len(specs) != players - 1 or not all(isinstance(s, str) for s in specs):
            raise GameSetupError(
                f"opponents={short(opponents)}: expected {players - 1} agent specs, one per "
                "other seat"
            )
        for spec in specs:
            make_player(spec, "A", np.random.default_rng(0))  # refuse a bad spec now
        self._fixed_seat = None if seat is None else self._check_seat(seat, table.seats)
        if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, int | float):
            raise GameSetupError(f"illegal_reward={short(illegal_reward)}: expected a number")
        self.layout = table
        self.deck, self.rules = table.deck, table.rules
        self.opponents = tuple(specs)
        self.observation_kind = observation
        self.reward_kind = reward
        self.illegal_reward = float(illegal_reward)
        self.max_asks = max_asks
        self.render_mode = render_mode
        self.seats = table.seats
        self.action_space = spaces.Discrete(table.n_actions)
        self.observation_space = spaces.Box(
            0.0, 1.0, shape=(table.length(observation),), dtype=np.float32
        )
        self.observation_slices = table.slices(observation)
        self.game: Game | None = None
        self.seat: str | None = None
        self.deal_seed: int | None = None
        self.skipped = 0
        self.asks = 0
        self._episode = 0
        self._done = True
        self._computer: dict[str, Any] = {}

    @staticmethod
    def _check_seat(seat: object, seats: list[str]) -> str:
        if isinstance(seat, str) and seat in seats:
            return seat
        if (
            isinstance(seat, int | np.integer)
            and not isinstance(seat, bool)
            and 0 <= int(seat) < len(seats)
        ):
            return seats[int(seat)]
        raise GameSetupError(
            f"seat={short(seat)}: expected None, a number from 0 to {len(seats) - 1} or one "
            f"of {', '.join(seats)}"
        )

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game and play the opponents up to the learner's first turn."""
        from kwartet_epistemic.agents.agent import make_player

        if options is not None and not isinstance(options, dict):
            raise GameSetupError(f"options={short(options)}: expected None or a dict")
        options = options or {}
        unknown = sorted(set(options) - {"seat"})
        if unknown:
            raise GameSetupError(f"reset options {unknown}: the only option is 'seat'")
        chosen = (
            self._check_seat(options["seat"], self.seats)
            if options.get("seat") is not None
            else None
        )
        super().reset(seed=seed)
        if seed is not None:
            self._episode = 0
        if chosen is None:
            chosen = self._fixed_seat or self.seats[self._episode % len(self.seats)]
        self._episode += 1
        self.seat = chosen
        skipped: list[float] = []
        while True:
            self.deal_seed = _next_seed(self.np_random)
            game = Game.deal(self.deck, self.seats, seed=self.deal_seed, rules=self.rules)
            me = self.seats.index(chosen)
            others = [self.seats[(me + k) % len(self.seats)] for k in range(1, len(self.seats))]
            rngs = [np.random.default_rng(_next_seed(self.np_random)) for _ in others]
            self._computer = {
                p: make_player(spec, p, rng)
                for p, spec, rng in zip(others, self.opponents, rngs, strict=True)
            }
            self.game, self.asks = game, 0
            self._play_opponents()
            if game.to_move == chosen:
                break
            self.skipped += 1
            skipped.append(_shares(game)[chosen])
        self._done = False
        self._record = RecordPlanes(self.deck, self.seats)
        # The picture shows the learner's knowledge even when the learner does not observe it.
        self._knowledge = (
            make_knowledge(self.layout.knowledge, chosen)
            if self.observation_kind != "raw" or self.render_mode == "rgb_array"
            else None
        )
        info = self._info()
        info["skipped"] = skipped
        return self._observe(), info

    def _play_opponents(self) -> None:
        game = self._require_game()
        while not game.is_over and game.to_move != self.seat and self.asks < self.max_asks:
            player = game.to_move
            assert player is not None
            choice = self._computer[player].choose(game.view(player))
            if isinstance(choice, Ask):
                game.play(choice)
                self.asks += 1
            else:
                game.turn_over(choice)

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        """The learner asks (``action``, see the module text); the opponents answer and
        play on up to the learner's next turn or the end of the game."""
        game = self._require_game()
        if self._done:
            raise GameSetupError("the episode is over: call reset() before step()")
        seat = self.seat
        assert seat is not None
        try:
            ask = self.layout.decode(game, seat, action)
        except IllegalAskError:
            self._done = True
            info = self._info()
            info["illegal"] = True
            return self._observe(), self.illegal_reward, True, False, info
        before = game.scores[seat]
        game.play(ask)
        self.asks += 1
        self._play_opponents()
        terminated = game.is_over
        truncated = not terminated and self.asks >= self.max_asks
        self._done = terminated or truncated
        if self.reward_kind == "quartets":
            reward = float(game.scores[seat] - before)
        else:
            reward = _shares(game)[seat] if self._done else 0.0
        return self._observe(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """``int8`` over the actions: 1 for each legal ask of the learner now, all 0 once
        the episode is over (sb3-contrib's ``MaskablePPO`` calls this; see Action masks
        in the module text)."""
        game = self._require_game()
        if self._done:
            return np.zeros(self.layout.n_actions, dtype=ACTION_MASK_DTYPE)
        assert self.seat is not None
        return self.layout.mask(game, self.seat)

    def encode(self, ask: Ask) -> int:
        """The action number of ``ask`` (its asker's point of view)."""
        return self.layout.encode(ask)

    def _observe(self) -> np.ndarray:
        assert self.seat is not None
        return self.layout.features(
            self._require_game(), self.seat, self.observation_kind, self._record, self._knowledge
        )

    def _info(self) -> dict[str, Any]:
        game = self._require_game()
        return {
            "action_mask": self.action_masks(),
            "seat": self.seat,
            "deal_seed": self.deal_seed,
            "scores": dict(game.scores),
            "asks": self.asks,
        }

    def render(self) -> str | np.ndarray | None:
        """The game so far: as text (``ansi``), or as a ``uint8`` picture ``(H, W, 3)``
        (``rgb_array``) of the table (hand sizes, quartets, the seat to move, the last
        move) and of the learner's exact location probabilities; None without a render
        mode or before ``reset()``.

        >>> gym_env = KwartetGymEnv(players=3, opponents="random", render_mode="rgb_array")
        >>> _ = gym_env.reset(seed=0)
        >>> frame = gym_env.render()
        >>> frame.dtype, frame.shape
        (dtype('uint8'), (384, 640, 3))
        """
        if self.render_mode is None or self.game is None:
            return None
        if self.render_mode == "rgb_array":
            assert self.seat is not None and self._knowledge is not None
            self._knowledge.update(self.game.view(self.seat))
            return _picture(self.game, self.seat, self._knowledge.probabilities())
        lines = self.game.transcript().splitlines()
        return f"{self.game}\n{lines[-1] if lines else ''}"

    def _require_game(self) -> Game:
        if self.game is None:
            raise GameSetupError("call reset() before using the environment")
        return self.game


if "Kwartet-v0" not in gymnasium.registry:
    gymnasium.register(
        id="Kwartet-v0", entry_point="kwartet_epistemic.interop.environments:KwartetGymEnv"
    )
