"""Exceptions raised by kwartet_epistemic.

Every error caused by bad input subclasses :class:`KwartetError`, which is a
:class:`ValueError`, and its message names the offending input and what was
expected.  An operation that raises leaves every object as it was.

>>> issubclass(IllegalAskError, ValueError)
True
"""

from __future__ import annotations

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


class KwartetError(ValueError):
    """Base class of every input error of the library."""


class UnknownCardError(KwartetError):
    """A card name that is not in the deck (the message lists the closest names)."""


class InvalidDeckError(KwartetError):
    """A deck or themed pack that is not a set of families of exactly 4 unique cards."""


class RuleOptionError(KwartetError):
    """An unknown rule option or preset, or an option value out of range."""


class IllegalAskError(KwartetError):
    """An ask that the rules forbid; the message says which rule it breaks."""


class GameSetupError(KwartetError):
    """Players, hands or seats that do not make a valid game."""


class RecordError(KwartetError):
    """A game record that is not valid JSON, has the wrong format, or replays illegally."""


class FormulaSyntaxError(KwartetError):
    """Formula text that does not parse; carries the position and what was expected."""

    def __init__(self, message: str, text: str = "", position: int = 0) -> None:
        super().__init__(message)
        self.text = text
        self.position = position


class FalseAnnouncementError(KwartetError):
    """A public announcement of a formula that is false at the actual world."""


class ModelError(KwartetError):
    """An epistemic model that is malformed (e.g. a relation that is not an equivalence)."""


class ModelTooLargeError(KwartetError):
    """An explicit model was requested above the stated size limit."""


class ModelFileError(ModelError):
    """A saved Kripke model or knowledge structure that is not valid JSON, has the wrong
    format or version, or does not describe a model."""


class UnknownToViewerError(KwartetError):
    """A formula whose truth differs between the worlds that the player whose view built
    the state considers possible: that player cannot tell whether it holds.  It means
    nothing else: a formula an engine cannot evaluate raises
    :class:`UnsupportedFormulaError`, one too large for it :class:`ModelTooLargeError`."""


class UnsupportedFormulaError(KwartetError):
    """A formula that the chosen engine cannot evaluate on this state (the message names
    the engine and the engines that can)."""


class ExerciseAnswerError(KwartetError):
    """An answer to an exercise of the wrong kind (the message names the exercise, the
    answer and what the exercise expects), or an unknown exercise id."""
