"""Agents: a knowledge part and a policy, built from a short spec such as ``defensive:facts``.

Spec syntax: ``POLICY[OPTIONS][:KNOWLEDGE]``.  ``POLICY`` is a registered policy name
(:func:`policy_names`), ``OPTIONS`` a comma-separated list of ``key=value`` settings or
switches (``search[samples=50]``, ``tips[remember,spread]``), ``KNOWLEDGE`` one of
``exact`` (the default), ``facts`` or ``hand``.  A namespace is recognised first:
``openspiel:ismcts[ms=300]`` is OpenSpiel's ISMCTS bot (:mod:`kwartet_epistemic.interop.openspiel_bots`,
the ``openspiel`` extra), and takes no ``:KNOWLEDGE``.

>>> import kwartet_epistemic as kw
>>> spec = AgentSpec.parse("tips[spread,remember]:facts")
>>> str(spec), spec.policy, spec.knowledge
('tips[remember,spread]:facts', 'tips', 'facts')
>>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
>>> agent = make_agent("defensive:facts", game.to_move, np.random.default_rng(0))
>>> agent.choose(game.view(game.to_move)) in game.legal_asks()
True
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from kwartet_epistemic.agents.knowledge import KNOWLEDGE_KINDS, KnowledgeBase, make_knowledge
from kwartet_epistemic.agents.policies import (
    TIPS,
    Aggressive,
    Defensive,
    Greedy,
    GreedyBluff,
    HigherOrder,
    KnowledgePolicy,
    Mixed,
    Owner,
    Policy,
    RandomPolicy,
    Silent,
    Tips,
)
from kwartet_epistemic.agents.programs import GREEDY_PROGRAM, OWNER_PROGRAM
from kwartet_epistemic.agents.search import Search
from kwartet_epistemic.epistemics.counting import limit_from_environment, memory_limit
from kwartet_epistemic.errors import GameSetupError, IllegalAskError, ModelTooLargeError
from kwartet_epistemic.game import Ask, PlayerView

__all__ = [
    "AGENT_MEMORY_LIMIT",
    "Agent",
    "AgentSpec",
    "PolicyFactory",
    "legal_asks",
    "make_agent",
    "make_player",
    "make_policy",
    "player_names",
    "policy_names",
    "register_namespace",
    "register_player",
    "register_policy",
]


def _agent_limit_from_environment() -> int:
    """``KWARTET_AGENT_MEMORY_LIMIT`` (bytes) if the environment gives a positive
    integer, else four GiB."""
    return limit_from_environment("KWARTET_AGENT_MEMORY_LIMIT") or 4 << 30


AGENT_MEMORY_LIMIT = _agent_limit_from_environment()
"""The most memory (bytes) that the exact counting of one decision may take (see
:func:`~kwartet_epistemic.epistemics.counting.memory_limit`): a fixed limit, so that
where an agent's exact knowledge does not fit, it does not fit on any machine with that
much memory free, and games repeat.  Above it the agent decides on its fallback
knowledge (:class:`Agent`).  Four GiB unless the environment's
``KWARTET_AGENT_MEMORY_LIMIT`` gives bytes (tournament workers read it too); time grows
with it: in 52-card fish games of knowledge agents a decision takes about a second on
average and the slowest tens of seconds (``experiments/bench_draw_pile.py --agent-deck
standard``)."""

#: Builds a policy from its spec options (``key -> value``; a bare switch maps to "").
PolicyFactory = Callable[[Mapping[str, str]], Policy]

_SPEC = re.compile(
    r"^(?P<policy>[A-Za-z][A-Za-z0-9_-]*)(?:\[(?P<options>[^\]]*)\])?(?::(?P<knowledge>[A-Za-z]+(?:\+[A-Za-z]+)*))?$"
)


@dataclass(frozen=True)
class _Entry:
    """One name of the player registry: a policy (``build`` makes it from the spec's
    options; the player is an :class:`Agent` with the spec's knowledge), a plain player
    (``build(player, rng)``), or a namespace whose names a module provides on first use
    (``module.function(name, options)`` makes the policy; it needs the ``extra``)."""

    kind: str
    build: Callable[..., Any] | None = None
    module: str = ""
    function: str = ""
    extra: str = ""


# The one registry of computer players: every name a spec can start with.  Namespaces are
# kept under their name and a colon (``openspiel:``), recognised before the
# POLICY:KNOWLEDGE split.
_PLAYERS: dict[str, _Entry] = {}


def _namespace(text: str) -> str | None:
    """The registered namespace ``text`` starts with (``openspiel`` of
    ``openspiel:ismcts[ms=300]``), or None."""
    head, colon, _ = text.strip().partition(":")
    key = head.strip().lower() + ":"
    return key[:-1] if colon and _PLAYERS.get(key, _Entry("")).kind == "namespace" else None


def _namespace_policy(name: str, options: Mapping[str, str]) -> Policy:
    """The policy of a namespaced spec ``NAMESPACE:NAME`` (its module imported now)."""
    import importlib

    namespace, _, inner = name.partition(":")
    entry = _PLAYERS[namespace + ":"]
    try:
        module = importlib.import_module(entry.module)
    except ImportError as err:
        raise GameSetupError(
            f"agent {name!r} needs the {entry.extra!r} extra: pip install "
            f"'kwartet_epistemic[{entry.extra}]' ({err})"
        ) from err
    policy: Policy = getattr(module, entry.function)(inner, options)
    return policy


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec; ``str(spec)`` gives it back in canonical form.

    >>> AgentSpec.parse("Search[ samples=8 ]")
    AgentSpec(policy='search', options=(('samples', '8'),), knowledge='exact')
    >>> str(AgentSpec.parse("Defensive:Facts+Hands"))
    'defensive:facts+hands'
    >>> AgentSpec.parse("knowledge:psychic")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.GameSetupError: agent 'knowledge:psychic': knowledge 'psychic' is not one of exact, facts, facts+hands, hand
    """

    policy: str
    options: tuple[tuple[str, str], ...] = ()
    knowledge: str = "exact"

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """Read ``POLICY[OPTIONS][:KNOWLEDGE]``."""
        if not isinstance(text, str):
            raise GameSetupError(
                f"agent {text!r}: expected text such as 'knowledge' or 'defensive:facts'"
            )
        namespace, colon, rest = text.strip().partition(":")
        namespaced = _namespace(text) is not None
        match = _SPEC.match(rest.strip() if namespaced else text.strip())
        if namespaced and match is not None and match.group("knowledge"):
            raise GameSetupError(
                f"agent {text!r}: {namespace.strip().lower()} agents take no :KNOWLEDGE (they "
                "sample worlds from exact knowledge)"
            )
        if match is None:
            raise GameSetupError(
                f"agent {text!r}: expected POLICY[OPTIONS][:KNOWLEDGE], such as 'knowledge', "
                "'defensive:facts' or 'search[samples=50]'"
            )
        knowledge = (match.group("knowledge") or "exact").lower()
        if knowledge not in KNOWLEDGE_KINDS:
            raise GameSetupError(
                f"agent {text!r}: knowledge {knowledge!r} is not one of "
                + ", ".join(KNOWLEDGE_KINDS)
            )
        options: dict[str, str] = {}
        for item in (match.group("options") or "").split(","):
            if not item.strip():
                continue
            key, _, value = item.partition("=")
            key = key.strip().lower()
            if not re.fullmatch(r"[a-z][a-z0-9_]*", key):
                raise GameSetupError(
                    f"agent {text!r}: option {item.strip()!r} is not KEY or KEY=VALUE"
                )
            options[key] = value.strip()
        policy = match.group("policy").lower().replace("-", "_")
        if namespaced:
            policy = f"{namespace.strip().lower()}:{policy}"
        return cls(policy, tuple(sorted(options.items())), knowledge)

    def __str__(self) -> str:
        options = ",".join(k if v == "" else f"{k}={v}" for k, v in self.options)
        text = self.policy + (f"[{options}]" if options else "")
        return text if self.knowledge == "exact" else f"{text}:{self.knowledge}"


class Agent:
    """A computer player: its knowledge (updated from each view) and its policy.

    It sees only the views it is given and returns an :class:`~kwartet_epistemic.Ask`;
    it never touches the game itself.

    Where exact counting for a decision would take more than ``memory_limit`` bytes
    (:data:`AGENT_MEMORY_LIMIT`; a 52-card draw-pile game, after many unseen draws),
    the agent decides that ask on ``fallback`` knowledge (``facts`` by default: it never
    locates a card that the exact knowledge does not), kept up to date from then on, and
    counts it in :attr:`fallbacks`, warning once; with ``fallback=None`` the
    :class:`~kwartet_epistemic.errors.ModelTooLargeError` reaches the caller.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    >>> agent = Agent("A", KnowledgePolicy(), make_knowledge("exact", "A"), np.random.default_rng(0))
    >>> agent.choose(game.view("A")).asker, agent.fallbacks
    ('A', 0)
    """

    def __init__(
        self,
        player: str,
        policy: Policy,
        knowledge: KnowledgeBase,
        rng: np.random.Generator | None = None,
        spec: AgentSpec | None = None,
        *,
        fallback: str | None = "facts",
        memory_limit: int | None = None,
    ) -> None:
        if knowledge.player != player:
            raise GameSetupError(
                f"agent {player}: its knowledge belongs to {knowledge.player}, not to {player}"
            )
        if fallback is not None and fallback not in KNOWLEDGE_KINDS:
            raise GameSetupError(
                f"agent {player}: fallback {fallback!r} is not one of "
                + ", ".join(KNOWLEDGE_KINDS)
                + " (or None)"
            )
        if memory_limit is not None and (
            isinstance(memory_limit, bool) or not isinstance(memory_limit, int) or memory_limit <= 0
        ):
            raise GameSetupError(
                f"agent {player}: memory_limit={memory_limit!r}: expected a whole number of "
                "bytes above 0 (or None: AGENT_MEMORY_LIMIT)"
            )
        self.player = player
        self.policy = policy
        self.knowledge = knowledge
        self.rng = rng if rng is not None else np.random.default_rng()
        self.spec = spec
        self.fallback = fallback
        self.memory_limit = memory_limit
        #: Decisions taken on the fallback knowledge (exact counting did not fit).
        self.fallbacks = 0
        self._fallback_knowledge: KnowledgeBase | None = None

    def observe(self, view: PlayerView) -> None:
        """Take in a view without choosing (e.g. to follow the game between turns)."""
        self.knowledge.update(view)
        if self._fallback_knowledge is not None:
            self._fallback_knowledge.update(view)

    def choose(self, view: PlayerView) -> Ask:
        """The ask this agent makes in ``view`` (it must be the agent's turn)."""
        if not isinstance(view, PlayerView):
            raise GameSetupError(f"{view!r}: expected a PlayerView (game.view(player))")
        if view.player != self.player:
            raise GameSetupError(f"agent {self.player} was given {view.player}'s view")
        asks = legal_asks(view)
        if not asks:
            raise IllegalAskError(f"{self.player} has no legal ask: it is not their turn")
        self.observe(view)
        limit = AGENT_MEMORY_LIMIT if self.memory_limit is None else self.memory_limit
        try:
            with memory_limit(limit):
                return self.policy.choose(view, self.knowledge, asks, self.rng)
        except ModelTooLargeError:
            if self.fallback is None or self.fallback == self.knowledge.kind:
                raise
        if self._fallback_knowledge is None:
            self._fallback_knowledge = make_knowledge(self.fallback, self.player)
            self._fallback_knowledge.update(view)
            # One text per player and limit: Python's filter shows it once, not per game.
            warnings.warn(
                f"agent {self.player}: exact counting for a decision needs more than its "
                f"memory limit of {limit:,} bytes; it decides on {self.fallback} knowledge "
                "there (Agent.fallbacks counts those decisions)",
                RuntimeWarning,
                stacklevel=2,
            )
        self.fallbacks += 1
        return self.policy.choose(view, self._fallback_knowledge, asks, self.rng)

    def __repr__(self) -> str:
        name = str(self.spec) if self.spec else f"{self.policy.name}:{self.knowledge.kind}"
        return f"<Agent {self.player} {name}>"


def legal_asks(view: PlayerView) -> list[Ask]:
    """The legal asks of the view's player (empty if it is not their turn).

    The view's own :meth:`~kwartet_epistemic.PlayerView.legal_asks` hands out the
    referee's shared Ask objects, picked by a bit mask, which is several times faster than
    building new ones (agents call this every move); the order is the same.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    >>> legal_asks(game.view("A")) == game.view("A").legal_asks() == game.legal_asks()
    True
    """
    return view.legal_asks()


# ----- the policy registry ------------------------------------------------------------


def _no_options(name: str, build: Callable[[], Policy]) -> PolicyFactory:
    def factory(options: Mapping[str, str]) -> Policy:
        if options:
            raise GameSetupError(f"policy {name!r} takes no options; got {', '.join(options)}")
        return build()

    return factory


def _number(options: Mapping[str, str], key: str, kind: type, name: str) -> object:
    try:
        return kind(options[key])
    except (TypeError, ValueError):
        raise GameSetupError(
            f"policy {name!r}: option {key}={options[key]!r} is not a {kind.__name__}"
        ) from None


def _search(options: Mapping[str, str]) -> Policy:
    known = {
        "samples": int,
        "candidates": int,
        "ms": float,
        "objective": str,
        "spread": float,
        "confidence": float,
        "rollout": str,
    }
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise GameSetupError(
            f"policy 'search': unknown option(s) {', '.join(unknown)}; known: {', '.join(known)}"
        )
    settings: dict[str, object] = {}
    for key, kind in known.items():
        if key in options:
            settings["milliseconds" if key == "ms" else key] = _number(options, key, kind, "search")
    return Search(**settings)  # type: ignore[arg-type]


def _higher_order(options: Mapping[str, str]) -> Policy:
    unknown = sorted(set(options) - {"tolerance"})
    if unknown:
        raise GameSetupError(
            f"policy 'higher_order': unknown option(s) {', '.join(unknown)}; known: tolerance"
        )
    if "tolerance" in options:
        return HigherOrder(tolerance=float(_number(options, "tolerance", float, "higher_order")))  # type: ignore[arg-type]
    return HigherOrder()


def _tips(options: Mapping[str, str]) -> Policy:
    bad = [k for k, v in options.items() if v]
    if bad:
        raise GameSetupError(f"policy 'tips': switches take no value ({', '.join(bad)})")
    if "none" in options:  # tips[none]: the base player, no tip switched on
        if len(options) > 1:
            raise GameSetupError(
                f"policy 'tips': 'none' switches every tip off; it cannot go with "
                f"{', '.join(sorted(k for k in options if k != 'none'))}"
            )
        return Tips(())
    return Tips(tuple(options) if options else TIPS)


_BUILT_IN: dict[str, PolicyFactory] = {
    "random": _no_options("random", RandomPolicy),
    "owner": _no_options("owner", Owner),
    "defensive": _no_options("defensive", Defensive),
    "aggressive": _no_options("aggressive", Aggressive),
    "greedy": _no_options("greedy", Greedy),
    "silent": _no_options("silent", Silent),
    "mixed": _no_options("mixed", Mixed),
    "greedy_bluff": _no_options("greedy_bluff", GreedyBluff),
    "tips": _tips,
    "knowledge": _no_options("knowledge", KnowledgePolicy),
    "higher_order": _higher_order,
    "search": _search,
    "owner_program": _no_options("owner_program", lambda: OWNER_PROGRAM),
    "greedy_program": _no_options("greedy_program", lambda: GREEDY_PROGRAM),
}


def _checked_name(name: object, what: str) -> str:
    key = name.strip().lower() if isinstance(name, str) else ""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", key):
        raise GameSetupError(f"{what} name {name!r}: expected letters, digits or '_'")
    return key


def _register(key: str, entry: _Entry, replace: bool, what: str) -> None:
    if key in _PLAYERS and not replace:
        raise GameSetupError(f"{what} {key!r} is already registered; pass replace=True")
    _PLAYERS[key] = entry


def register_policy(name: str, factory: PolicyFactory, *, replace: bool = False) -> None:
    """Make ``name`` a policy of the player registry: usable in agent specs everywhere
    (``make_agent``, tournaments, ``kwartet play`` opponents).

    >>> from kwartet_epistemic.agents.programs import KnowledgeProgram
    >>> cautious = KnowledgeProgram.from_rules([("K_me has(?p, ?c) & need(?c)", "ask ?p ?c")])
    >>> register_policy("cautious_doc", lambda options: cautious)
    >>> "cautious_doc" in policy_names() and "cautious_doc" in player_names()
    True
    """
    key = _checked_name(name, "policy")
    _register(key, _Entry("policy", factory), replace, "policy")


def register_player(
    name: str,
    factory: Callable[[str, np.random.Generator], Any],
    *,
    replace: bool = False,
) -> None:
    """Make ``name`` a plain computer player of the registry: ``factory(seat, rng)`` makes
    one, an object with ``choose(view)`` (it takes no spec options or knowledge).

    >>> from kwartet_epistemic.opponents import RandomPlayer
    >>> register_player("coin_doc", RandomPlayer)
    >>> type(make_player("coin_doc", "B", np.random.default_rng(0))).__name__
    'RandomPlayer'
    """
    key = _checked_name(name, "player")
    _register(key, _Entry("player", factory), replace, "player")


def register_namespace(
    namespace: str, module: str, function: str, extra: str, *, replace: bool = False
) -> None:
    """Make ``NAMESPACE:NAME`` specs name players that ``module.function(NAME, options)``
    provides as policies, the module imported on first use (it may need the optional
    ``extra``): how OpenSpiel's bots register (``openspiel:ismcts[ms=300]``)."""
    key = _checked_name(namespace, "namespace") + ":"
    _register(key, _Entry("namespace", None, module, function, extra), replace, "namespace")


def policy_names() -> tuple[str, ...]:
    """The registered policy names, sorted.

    >>> "knowledge" in policy_names() and "defensive" in policy_names()
    True
    """
    return tuple(sorted(k for k, e in _PLAYERS.items() if e.kind == "policy"))


def player_names() -> tuple[str, ...]:
    """Every name the registry knows, sorted: policies, plain players, and namespaces
    (as ``openspiel:``).

    >>> {"knowledge", "openspiel:"} <= set(player_names())
    True
    """
    return tuple(sorted(_PLAYERS))


def make_policy(name: str, options: Mapping[str, str] | None = None) -> Policy:
    """A policy by name, with spec options.

    >>> make_policy("search", {"samples": "8"}).samples
    8
    """
    key = name.strip().lower() if isinstance(name, str) else name
    if isinstance(key, str) and _namespace(key) is not None:
        return _namespace_policy(key, dict(options or {}))
    entry = _PLAYERS.get(key) if isinstance(key, str) else None
    if entry is None or entry.kind != "policy":
        raise GameSetupError(f"unknown policy {name!r}; known: {', '.join(policy_names())}")
    assert entry.build is not None
    policy: Policy = entry.build(dict(options or {}))
    return policy


def make_player(spec: str | AgentSpec, player: str, rng: np.random.Generator | None = None) -> Any:
    """A computer player for seat ``player`` from a spec: an :class:`Agent` for a policy
    (``knowledge``, ``defensive:facts``, ``search[samples=50]``, ``openspiel:ismcts``),
    else the plain player registered under that name.  The one constructor every
    namespace registers into (:func:`register_policy`, :func:`register_player`,
    :func:`register_namespace`).

    >>> make_player("defensive:facts", "B").knowledge.kind
    'facts'
    >>> make_player("genius", "B")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.GameSetupError: unknown agent 'genius'; known: ...
    """
    if isinstance(spec, str) and not spec.strip().startswith(("[", ":")):
        entry = _PLAYERS.get(spec.strip().lower().replace("-", "_"))
        if entry is not None and entry.kind == "player":
            assert entry.build is not None
            return entry.build(player, rng if rng is not None else np.random.default_rng())
    parsed = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
    if _namespace(parsed.policy) is not None:
        policy = _namespace_policy(parsed.policy, dict(parsed.options))
        return Agent(player, policy, make_knowledge(parsed.knowledge, player), rng, parsed)
    entry = _PLAYERS.get(parsed.policy)
    if entry is None:
        raise GameSetupError(f"unknown agent {parsed.policy!r}; known: {', '.join(player_names())}")
    if entry.kind == "player":
        raise GameSetupError(
            f"agent {str(parsed)!r}: {parsed.policy!r} is a plain computer player: it takes "
            "no options or knowledge"
        )
    policy = make_policy(parsed.policy, dict(parsed.options))
    return Agent(player, policy, make_knowledge(parsed.knowledge, player), rng, parsed)


def make_agent(spec: str | AgentSpec, player: str, rng: np.random.Generator | None = None) -> Agent:
    """A new agent (a policy with knowledge) for seat ``player`` from a spec such as
    ``knowledge`` or ``defensive:facts`` (see :func:`make_player`).

    >>> make_agent("genius", "B")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.GameSetupError: unknown agent 'genius'; known: ...
    """
    made = make_player(spec, player, rng)
    if not isinstance(made, Agent):
        raise GameSetupError(
            f"agent {spec!r} is a plain computer player, not an agent; use it with "
            "make_player or kwartet play --opponents"
        )
    return made


for _name, _factory in _BUILT_IN.items():
    register_policy(_name, _factory)
register_namespace(
    "openspiel", "kwartet_epistemic.interop.openspiel_bots", "openspiel_policy", "openspiel"
)
# A student's agent file, played in a process of its own (how grading seats it).
register_namespace("student", "kwartet_epistemic.grading", "student_policy", "")
