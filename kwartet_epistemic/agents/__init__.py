"""Knowledge-based agents for Kwartet: what an agent knows, and how it chooses.

An agent is a knowledge part (``exact``, ``facts``, ``facts+hands`` or ``hand``) plus a
policy, built from a spec such as ``knowledge``, ``defensive:facts`` or
``search[samples=50]``.  Agents get only their own :class:`~kwartet_epistemic.PlayerView` and return an
:class:`~kwartet_epistemic.Ask`.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
>>> agents = {p: make_agent(s, p, np.random.default_rng(i)) for i, (p, s) in
...           enumerate(zip(game.players, ["knowledge", "defensive:facts", "random", "owner"]))}
>>> while not game.is_over:
...     _ = game.play(agents[game.to_move].choose(game.view(game.to_move)))
>>> sum(game.scores.values())
8
"""

from kwartet_epistemic.agents.agent import (
    Agent,
    AgentSpec,
    PolicyFactory,
    make_agent,
    make_player,
    make_policy,
    player_names,
    policy_names,
    register_namespace,
    register_player,
    register_policy,
)
from kwartet_epistemic.agents.knowledge import (
    KNOWLEDGE_KINDS,
    ExactKnowledge,
    FactKnowledge,
    FactKnowledgeWithHands,
    HandKnowledge,
    KnowledgeBase,
    make_knowledge,
)
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
    Situation,
    Tips,
)
from kwartet_epistemic.agents.programs import (
    GREEDY_PROGRAM,
    OWNER_PROGRAM,
    KnowledgeProgram,
    ProgramError,
    Rule,
)
from kwartet_epistemic.agents.search import Playout, Search

__all__ = [
    "Agent",
    "AgentSpec",
    "Aggressive",
    "Defensive",
    "ExactKnowledge",
    "FactKnowledge",
    "FactKnowledgeWithHands",
    "GREEDY_PROGRAM",
    "Greedy",
    "GreedyBluff",
    "HandKnowledge",
    "HigherOrder",
    "KNOWLEDGE_KINDS",
    "KnowledgeBase",
    "KnowledgePolicy",
    "KnowledgeProgram",
    "Mixed",
    "OWNER_PROGRAM",
    "Owner",
    "Playout",
    "Policy",
    "PolicyFactory",
    "ProgramError",
    "RandomPolicy",
    "Rule",
    "Search",
    "Silent",
    "Situation",
    "TIPS",
    "Tips",
    "make_agent",
    "make_knowledge",
    "make_player",
    "make_policy",
    "player_names",
    "policy_names",
    "register_namespace",
    "register_player",
    "register_policy",
]
