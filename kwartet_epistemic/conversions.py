"""Conversions for other tools, on the floor above every kind of model they convert:
SMCDEL's text input of a Kripke model, a knowledge structure or a game position.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
>>> model = kw.knowledge(game).kripke_model()
>>> kw.to_smcdel(game, "K_A has(B, 7S)").count("TRUE?"), "VARS" in kw.to_smcdel(model)
(1, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from kwartet_epistemic._safejson import short
from kwartet_epistemic.epistemics.state import EpistemicState
from kwartet_epistemic.epistemics.symbolic import export_game
from kwartet_epistemic.errors import ModelError
from kwartet_epistemic.game import Game, PlayerView
from kwartet_epistemic.kripke import KripkeModel
from kwartet_epistemic.logic.formula import FormulaLike
from kwartet_epistemic.symbolic.backend import plain_errors
from kwartet_epistemic.symbolic.smcdel import SmcdelExport, export_structure
from kwartet_epistemic.symbolic.structure import BddKnowledgeStructure, KnowledgeStructure
from kwartet_epistemic.symbolic.translations import export_kripke

__all__ = ["smcdel_export", "to_smcdel"]


@plain_errors
def smcdel_export(
    source: Any,
    query: FormulaLike | Sequence[FormulaLike] | None = None,
    *,
    actual: Any = None,
    jobs: Iterable[str] | None = None,
) -> SmcdelExport:
    """The :class:`SmcdelExport` (text and maps) of a model, structure or game position.

    ``actual`` (knowledge structures only) is the state for ``TRUE?``: a set of true
    atoms (:class:`KnowledgeStructure`) or values of the variables.  Kripke models and
    game positions use their actual world.

    >>> from kwartet_epistemic.kripke import KripkeModel
    >>> export = smcdel_export(KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]}), "K_A p")
    >>> export.variables, export.jobs
    ({'p': 1}, (('TRUE?', 0), ('VALID?', 0), ('WHERE?', 0)))
    """
    if isinstance(source, KripkeModel):
        if actual is not None:
            raise ModelError("a Kripke model's TRUE? is at its actual world: drop actual=")
        return export_kripke(source, query, jobs=jobs)
    if isinstance(source, KnowledgeStructure):
        state = None
        if actual is not None:
            state = actual if isinstance(actual, Mapping) else source.assignment_of(actual)
        return export_structure(source, query, actual=state, jobs=jobs)
    if isinstance(source, BddKnowledgeStructure):
        return export_structure(source, query, actual=actual, jobs=jobs)
    if actual is not None:
        raise ModelError("a game position's TRUE? is at its actual deal: drop actual=")
    if isinstance(source, Game | PlayerView):
        source = EpistemicState(source)
    if isinstance(source, EpistemicState):
        return export_game(source, query, jobs=jobs)
    raise ModelError(
        f"to_smcdel of {short(source)}: expected a KripkeModel, a knowledge structure, a "
        "Game, a PlayerView or an EpistemicState"
    )


def to_smcdel(
    source: Any,
    query: FormulaLike | Sequence[FormulaLike] | None = None,
    *,
    actual: Any = None,
    jobs: Iterable[str] | None = None,
) -> str:
    """SMCDEL's text input for a Kripke model, a knowledge structure or a game position
    (a Game, a PlayerView or an EpistemicState), with ``TRUE?`` (where there is an
    actual world), ``VALID?`` and ``WHERE?`` per query (or the ``jobs`` given).

    Save it to a file and run ``smcdel file.txt`` to cross-check the answers;
    :func:`run_smcdel` does that here.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> text = kw.to_smcdel(game, "K_A has(B, 7S)")
    >>> text.count("TRUE?"), "OBS" in text
    (1, True)
    """
    return smcdel_export(source, query, actual=actual, jobs=jobs).text
