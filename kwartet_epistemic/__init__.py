"""kwartet_epistemic: dynamic epistemic logic for the Dutch card game Kwartet.

Every public ask and refusal in Kwartet is an announcement that prunes possible
worlds.  This package plays the game (the referee), states knowledge in an
epistemic language, and answers "who knows what" exactly, at full game size.

The names below are grouped as the package is layered, from the bottom up: errors; the
game (cards, rules, events, the referee, records); the epistemic language; explicit
Kripke models; knowledge structures; the epistemic state of a game; conversions for other
tools; agents and tournaments; exercises; pictures.

>>> import kwartet_epistemic as kw
>>> len(kw.Deck.piquet().cards)
32
"""

from __future__ import annotations

__version__ = "0.1.0"

# --- errors: every bad input is a KwartetError, which is a ValueError ---------------------
from kwartet_epistemic.errors import (
    ExerciseAnswerError,
    FalseAnnouncementError,
    FormulaSyntaxError,
    GameSetupError,
    IllegalAskError,
    InvalidDeckError,
    KwartetError,
    ModelError,
    ModelFileError,
    ModelTooLargeError,
    RecordError,
    RuleOptionError,
    UnknownCardError,
    UnknownToViewerError,
    UnsupportedFormulaError,
)

__all__ = [
    "ExerciseAnswerError",
    "FalseAnnouncementError",
    "FormulaSyntaxError",
    "GameSetupError",
    "IllegalAskError",
    "InvalidDeckError",
    "KwartetError",
    "ModelError",
    "ModelFileError",
    "ModelTooLargeError",
    "RecordError",
    "RuleOptionError",
    "UnknownCardError",
    "UnknownToViewerError",
    "UnsupportedFormulaError",
]

# --- the game: cards, rules, events, the referee and its records --------------------------
from kwartet_epistemic.cards import Card, Deck, bundled_packs  # noqa: E402
from kwartet_epistemic.events import (  # noqa: E402
    Answered,
    Asked,
    CardMoved,
    Dealt,
    Drew,
    Event,
    GameEnded,
    HandEmptied,
    MiddleCardTurned,
    QuartetExposed,
    TurnPassed,
)
from kwartet_epistemic.game import Ask, Game, PlayerView, UnknownAskCardError, parse_ask  # noqa: E402
from kwartet_epistemic.record import GameRecord, record_schema, record_schema_path  # noqa: E402
from kwartet_epistemic.rules import RuleSet, rules_path, rules_text  # noqa: E402

__all__ += [
    "Answered",
    "Ask",
    "Asked",
    "Card",
    "CardMoved",
    "Dealt",
    "Deck",
    "Drew",
    "Event",
    "Game",
    "GameEnded",
    "GameRecord",
    "HandEmptied",
    "MiddleCardTurned",
    "PlayerView",
    "QuartetExposed",
    "RuleSet",
    "TurnPassed",
    "UnknownAskCardError",
    "bundled_packs",
    "parse_ask",
    "record_schema",
    "record_schema_path",
    "rules_path",
    "rules_text",
]

# --- the epistemic language: formulas, their parser and printers ---------------------------
from kwartet_epistemic.logic import (  # noqa: E402
    FORMULA_PRINT_LIMIT,
    FORMULA_TEXT_LIMIT,
    SYMPY_DEPTH_LIMIT,
    And,
    Announce,
    AnnounceDual,
    Atom,
    Bottom,
    C,
    D,
    E,
    Formula,
    FormulaTooLargeError,
    FormulaTypeError,
    Iff,
    Implies,
    K,
    Kw,
    M,
    Not,
    NotPropositionalError,
    Or,
    Top,
    as_formula,
    conjunction,
    disjunction,
    has,
    parse,
)

__all__ += [
    "And",
    "Announce",
    "AnnounceDual",
    "Atom",
    "Bottom",
    "C",
    "D",
    "E",
    "FORMULA_PRINT_LIMIT",
    "FORMULA_TEXT_LIMIT",
    "SYMPY_DEPTH_LIMIT",
    "Formula",
    "FormulaTooLargeError",
    "FormulaTypeError",
    "Iff",
    "Implies",
    "K",
    "Kw",
    "M",
    "Not",
    "NotPropositionalError",
    "Or",
    "Top",
    "as_formula",
    "conjunction",
    "disjunction",
    "has",
    "parse",
]

# --- explicit S5 models: worlds, partitions, announcements, action models -----------------
from kwartet_epistemic.kripke import ActionModel, KripkeModel, Relation  # noqa: E402

__all__ += ["ActionModel", "KripkeModel", "Relation"]

# --- knowledge structures: a law on BDDs, what each agent observes ------------------------
from kwartet_epistemic import symbolic  # noqa: E402
from kwartet_epistemic.symbolic import (  # noqa: E402
    BddKnowledgeStructure,
    KnowledgeStructure,
    UnknownAgentError,
    UnknownAtomError,
)

__all__ += [
    "BddKnowledgeStructure",
    "KnowledgeStructure",
    "UnknownAgentError",
    "UnknownAtomError",
    "symbolic",
]

# --- classic puzzles, built as both kinds of model ----------------------------------------
from kwartet_epistemic import examples  # noqa: E402

__all__ += ["examples"]

# --- the epistemic state of a game: who knows what, by one of the engines -----------------
from kwartet_epistemic.epistemics import (  # noqa: E402
    EpistemicState,
    World,
    knowledge,
)
from kwartet_epistemic.epistemics.explain import Explanation, Fact  # noqa: E402

__all__ += ["EpistemicState", "Explanation", "Fact", "World", "knowledge"]

# --- conversions for other tools: SMCDEL's input of any model or position -----------------
from kwartet_epistemic.conversions import smcdel_export, to_smcdel  # noqa: E402
from kwartet_epistemic.symbolic.smcdel import SmcdelError  # noqa: E402

__all__ += ["SmcdelError", "smcdel_export", "to_smcdel"]

# --- agents: players that see only their own view, and tournaments -----------------------
from kwartet_epistemic import agents  # noqa: E402
from kwartet_epistemic.agents import (  # noqa: E402
    Agent,
    AgentSpec,
    ExactKnowledge,
    FactKnowledge,
    FactKnowledgeWithHands,
    HandKnowledge,
    KnowledgeBase,
    KnowledgeProgram,
    Policy,
    Rule,
    Situation,
    make_agent,
    make_player,
    player_names,
    policy_names,
    register_player,
    register_policy,
)
from kwartet_epistemic.tournament import (  # noqa: E402
    GameResult,
    TournamentResult,
    replay_game,
    tournament,
)

__all__ += [
    "Agent",
    "AgentSpec",
    "ExactKnowledge",
    "FactKnowledge",
    "FactKnowledgeWithHands",
    "GameResult",
    "HandKnowledge",
    "KnowledgeBase",
    "KnowledgeProgram",
    "Policy",
    "Rule",
    "Situation",
    "TournamentResult",
    "agents",
    "make_agent",
    "make_player",
    "player_names",
    "policy_names",
    "register_player",
    "register_policy",
    "replay_game",
    "tournament",
]

# --- exercises that check themselves --------------------------------------------------------
from kwartet_epistemic import exercises  # noqa: E402

__all__ += ["exercises"]

# --- pictures: the drawing modules (matplotlib, networkx) load on first use ---------------
from kwartet_epistemic import viz  # noqa: E402

__all__ += ["viz"]

# The future import binds a module global of this name: not part of the library's face.
del annotations
