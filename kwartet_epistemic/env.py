"""A PettingZoo AEC environment of Kwartet (optional extra ``rl``: pettingzoo, gymnasium).

Agents are the seats ``A``, ``B``, ...; the agent to move is the player whose turn it is.
An action is one integer ``target * n_cards + card``, where ``target`` counts seats to the
acting player's left (1 is the next seat; 0, the player itself, is never legal).  Each
observation is a dict: ``"action_mask"``, an ``int8`` vector over those actions (the legal
asks), and ``"observation"``, a ``float32`` vector in [0, 1], seats again counted from the
observer:

* own hand (one per card), exposed cards (one per card);
* hand sizes (per seat, over the deck size), quartets laid down (per seat, over the
  number of families);
* the public record, per card and seat: asked for it, refused it, was seen receiving it
  (and still holds it);
* the observer's exact location probabilities (per card and seat), from its epistemic
  state (:class:`~kwartet_epistemic.agents.knowledge.ExactKnowledge`).

Rewards: with ``reward="win"`` each player gets its share of the win when the game ends
(shared wins split); with ``reward="quartets"`` a player gets 1 for every quartet it lays
down, when it does.

>>> from kwartet_epistemic.env import KwartetEnv
>>> env = KwartetEnv(players=3, deck=kw.Deck.piquet(families=4))
>>> env.reset(seed=1)
>>> env.agent_selection in env.agents
True
>>> observation = env.observe(env.agent_selection)
>>> observation["action_mask"].dtype, observation["observation"].dtype
(dtype('int8'), dtype('float32'))
>>> action = int(np.flatnonzero(observation["action_mask"])[0])
>>> env.step(action)
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as error:  # pragma: no cover - the rl extra is missing
    raise ImportError(
        "kwartet_epistemic.env needs the 'rl' extra: pip install 'kwartet_epistemic[rl]'"
    ) from error

from kwartet_epistemic._safejson import short
from kwartet_epistemic.agents.knowledge import make_knowledge
from kwartet_epistemic.cards import Deck
from kwartet_epistemic.errors import GameSetupError, IllegalAskError
from kwartet_epistemic.events import Answered, Asked, CardMoved
from kwartet_epistemic.game import Ask, Game
from kwartet_epistemic.rules import RuleSet

__all__ = ["KwartetEnv", "env", "raw_env"]

SEATS = "ABCDEF"
REWARDS = ("win", "quartets")


class KwartetEnv(AECEnv):
    """Kwartet as an AEC environment: ``reset(seed=...)``, ``observe(agent)``, ``step``.

    ``knowledge`` picks how the observer's location probabilities are computed
    (``exact`` by default; ``facts`` is faster with a large draw pile).  A game still
    running after ``max_asks`` asks is truncated.

    >>> environment = KwartetEnv(players=4)
    >>> environment.reset(seed=3)
    >>> environment.observation_space("A")["observation"].shape, environment.action_space("A")
    ((584,), Discrete(128))
    """

    metadata = {"render_modes": ["human", "ansi"], "name": "kwartet_v0", "is_parallelizable": False}

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
        if (
            isinstance(players, bool)
            or not isinstance(players, int)
            or not 2 <= players <= len(SEATS)
        ):
            raise GameSetupError(f"players={short(players)}: expected 3 to 6 (2 with a draw pile)")
        if not isinstance(reward, str) or reward not in REWARDS:
            raise GameSetupError(f"reward={short(reward)}: expected one of {', '.join(REWARDS)}")
        if render_mode is not None and render_mode not in ("human", "ansi"):
            raise GameSetupError(f"render_mode={short(render_mode)}: expected 'human' or 'ansi'")
        if isinstance(max_asks, bool) or not isinstance(max_asks, int) or max_asks < 1:
            raise GameSetupError(f"max_asks={short(max_asks)}: expected a whole number >= 1")
        if not isinstance(knowledge, str):
            raise GameSetupError(f"knowledge={short(knowledge)}: expected a knowledge kind")
        self.deck = deck if deck is not None else Deck.piquet()
        self.rules = rules if rules is not None else RuleSet()
        self.reward_kind = reward
        self.knowledge_kind = knowledge
        make_knowledge(knowledge, "A")  # refuse an unknown kind now
        self.max_asks = max_asks
        self.render_mode = render_mode
        self.possible_agents = list(SEATS[:players])
        Game.deal(
            self.deck, self.possible_agents, seed=0, rules=self.rules
        )  # a bad setup fails now
        n_cards, n = len(self.deck), players
        self.n_actions = n * n_cards
        self.observation_length = 2 * n_cards + 2 * n + 4 * n_cards * n
        self._observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(
                        0.0, 1.0, shape=(self.observation_length,), dtype=np.float32
                    ),
                    "action_mask": spaces.Box(0, 1, shape=(self.n_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self._action_spaces = {
            agent: spaces.Discrete(self.n_actions) for agent in self.possible_agents
        }
        self.game: Game | None = None

    # ----- spaces -----------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space:
        """The (fixed) observation space of ``agent``."""
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The (fixed) action space of ``agent``: one integer per (target, card)."""
        return self._action_spaces[agent]

    # ----- the AEC cycle -----------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (with ``seed``, a whole number >= 0, or at random)."""
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (1 << 63))  # type: ignore[operator]
        self.game = Game.deal(self.deck, self.possible_agents, seed=seed, rules=self.rules)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._knowledge = {a: make_knowledge(self.knowledge_kind, a) for a in self.agents}
        self._record_features = _RecordFeatures(len(self.deck), self.possible_agents)
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
        self.agent_selection = mover

    def step(self, action: int | np.integer | None) -> None:
        """The agent to move asks: ``action = target * n_cards + card`` (see the module)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._require_game()
        ask = self.decode(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        before = dict(game.scores)
        game.play(ask)  # refuses an illegal ask, changing nothing
        self.asks += 1
        after = game.scores
        if self.reward_kind == "quartets":
            for player in self.agents:
                self.rewards[player] = float(after[player] - before[player])
        if game.is_over and self.reward_kind == "win":
            winners = game.winners
            for player in self.agents:
                self.rewards[player] = 1.0 / len(winners) if player in winners else 0.0
        self._accumulate_rewards()
        self._settle()
        if self.render_mode == "human":
            self.render()

    def decode(self, agent: str, action: int | np.integer | None) -> Ask:
        """The ask that ``action`` means for ``agent`` (IllegalAskError if none)."""
        game = self._require_game()
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalAskError(
                f"{agent} must ask: expected an action number, got {short(action)}"
            )
        number = int(action)
        n_cards = len(self.deck)
        if not 0 <= number < self.n_actions:
            raise IllegalAskError(f"action {short(number)}: expected 0 to {self.n_actions - 1}")
        offset, card = divmod(number, n_cards)
        seats = self.possible_agents
        target = seats[(seats.index(agent) + offset) % len(seats)]
        ask = Ask(agent, target, self.deck.cards[card])
        if ask not in game.legal_asks():
            raise IllegalAskError(f"action {number} ({ask}) is not a legal ask now")
        return ask

    def encode(self, ask: Ask) -> int:
        """The action number of ``ask`` (its asker's point of view).

        >>> env = KwartetEnv(players=3); env.reset(seed=2)
        >>> ask = env.game.legal_asks()[0]
        >>> env.decode(ask.asker, env.encode(ask)) == ask
        True
        """
        seats = self.possible_agents
        offset = (seats.index(ask.target) - seats.index(ask.asker)) % len(seats)
        return offset * len(self.deck) + ask.card.index

    def action_mask(self, agent: str) -> np.ndarray:
        """``int8`` over the actions: 1 for each legal ask of ``agent`` now."""
        game = self._require_game()
        mask = np.zeros(self.n_actions, dtype=np.int8)
        if game.to_move == agent and not (self.terminations[agent] or self.truncations[agent]):
            for ask in game.legal_asks():
                mask[self.encode(ask)] = 1
        return mask

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """What ``agent`` observes: its own view only (see the module text)."""
        game = self._require_game()
        view = game.view(agent)
        deck = self.deck
        n_cards, seats = len(deck), self.possible_agents
        me = seats.index(agent)
        order = [seats[(me + k) % len(seats)] for k in range(len(seats))]
        hand = np.zeros(n_cards, dtype=np.float32)
        hand[[c.index for c in view.hand]] = 1.0
        exposed = np.zeros(n_cards, dtype=np.float32)
        for family in view.exposed:
            f = deck.families.index(family)
            exposed[4 * f : 4 * f + 4] = 1.0
        sizes = np.array([view.hand_sizes[p] / n_cards for p in order], dtype=np.float32)
        scores = np.array([view.scores[p] / deck.n_families for p in order], dtype=np.float32)
        record = self._record_features.update(view.record)[:, :, [seats.index(p) for p in order]]
        knowledge = self._knowledge[agent]
        knowledge.update(view)
        probabilities = np.nan_to_num(knowledge.probabilities())
        located = probabilities[:, [seats.index(p) for p in order]].astype(np.float32)
        vector = np.concatenate(
            [hand, exposed, sizes, scores, record.reshape(-1), located.reshape(-1)]
        )
        return {
            "observation": np.clip(vector, 0.0, 1.0).astype(np.float32),
            "action_mask": self.action_mask(agent),
        }

    def render(self) -> str | None:
        """The game so far as text (``ansi``: returned; ``human``: printed)."""
        if self.game is None:
            return None
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


class _RecordFeatures:
    """The public record as three [card, seat] planes: asked for, refused, seen receiving
    (and still holding); kept up to date event by event."""

    def __init__(self, n_cards: int, seats: list[str]) -> None:
        self.seat = {p: i for i, p in enumerate(seats)}
        self.planes = np.zeros((3, n_cards, len(seats)), dtype=np.float32)
        self.seen = 0

    def update(self, record: tuple[Any, ...]) -> np.ndarray:
        planes = self.planes
        for event in record[self.seen :]:
            kind = type(event)
            if kind is Asked:
                planes[0, event.card.index, self.seat[event.asker]] = 1.0
            elif kind is Answered and not event.has_card:
                planes[1, event.card.index, self.seat[event.target]] = 1.0
            elif kind is CardMoved:
                planes[2, event.card.index, :] = 0.0
                planes[2, event.card.index, self.seat[event.destination]] = 1.0
        self.seen = len(record)
        return planes


def raw_env(**kwargs: Any) -> KwartetEnv:
    """The bare environment (see :class:`KwartetEnv` for the options).

    >>> raw_env(players=3).possible_agents
    ['A', 'B', 'C']
    """
    return KwartetEnv(**kwargs)


def env(**kwargs: Any) -> Any:
    """The environment wrapped in PettingZoo's order checks (the usual entry point).

    >>> e = env(players=3)
    >>> e.reset(seed=0)
    >>> sorted(e.agents)
    ['A', 'B', 'C']
    """
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))
