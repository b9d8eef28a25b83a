"""Rule options of Kwartet and the named presets.

The rules themselves, and what is public at every moment, are written out in RULES.md,
which ships inside the package: ``kwartet rules`` prints it, :func:`rules_text` returns it
and :func:`rules_path` says where it is.  Its sections are "Default profile", "Rule
options", "What is public, exactly" (what the epistemic model is built from) and "The
worked example".

A :class:`RuleSet` is a frozen value; the default is the publisher profile.

>>> RuleSet() == RuleSet.preset("publisher")
True
>>> RuleSet.preset("dutch").refusal_turn
'clockwise'
>>> RuleSet(bluffing=True).name
'publisher+bluffing'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from kwartet_epistemic._safejson import short
from kwartet_epistemic.errors import RuleOptionError

__all__ = ["RuleSet", "PRESETS", "rules_path", "rules_text"]


def rules_path() -> Path:
    """Where the package's RULES.md is: the rules the library plays and what is public.

    >>> rules_path().name, rules_path().is_file()
    ('RULES.md', True)
    """
    return Path(__file__).with_name("RULES.md")


def rules_text() -> str:
    """The rules the library plays, as Markdown (what ``kwartet rules`` prints).

    >>> import kwartet_epistemic as kw
    >>> "## What is public, exactly" in kw.rules_text()
    True
    """
    return rules_path().read_text(encoding="utf-8")


# 64 families of 4, the largest themed pack: no rule deals or lays out more cards.
MAX_DECK_CARDS = 256

RefusalTurn = Literal["asked", "clockwise"]
Dealing = Literal["all", "equal"]
TieBreak = Literal["shared", "earliest_last_quartet"]

_CHOICES: dict[str, tuple[str, ...]] = {
    "refusal_turn": ("asked", "clockwise"),
    "dealing": ("all", "equal"),
    "tie_break": ("shared", "earliest_last_quartet"),
}


@dataclass(frozen=True)
class RuleSet:
    """Every rule option of the game; the defaults are the publisher profile.

    Attributes:
        refusal_turn: who moves after a "no": the asked player (``"asked"``) or the next
            seat clockwise from the asker (``"clockwise"``).
        draw_pile: deal ``cards_each`` cards to every player and keep the rest as a
            face-down stock; a refused asker draws its top card, seen only by them.
        cards_each: hand size dealt when ``draw_pile`` is on.
        bonus_turn: completing a quartet with a drawn card gives the drawer another ask.
        bluffing: players may ask for a card they hold themselves.
        dealing: ``"all"`` deals every card singly (hands may differ by one);
            ``"equal"`` deals equal hands and sets the leftover cards aside face down.
        tie_break: ``"shared"`` (tied leaders share the win) or ``"earliest_last_quartet"``
            (the tied leader whose last quartet was completed earliest wins).
        memory_cards: Memory Kwartet: this many cards lie face down in the middle; on
            their turn a player may turn one over for all to see (once per turn).

    >>> RuleSet(draw_pile=True, cards_each=7).uses_stock
    True
    >>> RuleSet(dealing="diagonal")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.RuleOptionError: rule option dealing='diagonal': expected one of 'all', 'equal'
    """

    refusal_turn: RefusalTurn = "asked"
    draw_pile: bool = False
    cards_each: int = 7
    bonus_turn: bool = False
    bluffing: bool = False
    dealing: Dealing = "all"
    tie_break: TieBreak = "shared"
    memory_cards: int = 0

    def __post_init__(self) -> None:
        for option, choices in _CHOICES.items():
            value = getattr(self, option)
            if not isinstance(value, str) or value not in choices:
                raise RuleOptionError(
                    f"rule option {option}={short(value)}: expected one of "
                    + ", ".join(repr(c) for c in choices)
                )
        for option in ("draw_pile", "bonus_turn", "bluffing"):
            if not isinstance(getattr(self, option), bool):
                raise RuleOptionError(
                    f"rule option {option}={short(getattr(self, option))}: expected True or False"
                )
        for option, low in (("cards_each", 1), ("memory_cards", 0)):
            value = getattr(self, option)
            if (
                not isinstance(value, int)
                or isinstance(value, bool)
                or not low <= value <= MAX_DECK_CARDS
            ):
                raise RuleOptionError(
                    f"rule option {option}={short(value)}: expected an integer from {low} to "
                    f"{MAX_DECK_CARDS} (the cards of the largest deck)"
                )
        if self.bonus_turn and not self.draw_pile:
            raise RuleOptionError(
                "rule option bonus_turn=True needs draw_pile=True (the bonus is for a quartet "
                "completed by a draw)"
            )
        if self.draw_pile and self.dealing == "equal":
            raise RuleOptionError(
                "rule options draw_pile=True and dealing='equal' exclude each other: with a "
                "draw pile the undealt cards form the stock"
            )

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """A named preset: ``publisher``, ``dutch``, ``lamas`` or ``fish``.

        >>> RuleSet.preset("fish").draw_pile
        True
        """
        key = name.strip().lower() if isinstance(name, str) else None
        if key not in PRESETS:
            raise RuleOptionError(
                f"rule preset {short(name)}: expected one of {', '.join(sorted(PRESETS))}"
            )
        return PRESETS[key]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RuleSet:
        """Rebuild a rule set from :meth:`to_dict` output; unknown options are refused.

        >>> RuleSet.from_dict(RuleSet.preset("dutch").to_dict()) == RuleSet.preset("dutch")
        True
        """
        if not isinstance(data, Mapping):
            raise RuleOptionError(f"rules {short(data)}: expected a mapping of option to value")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted((short(k) for k in data if k not in names), key=str)
        if unknown:
            raise RuleOptionError(
                f"unknown rule option(s) {', '.join(unknown)}; options are "
                + ", ".join(sorted(names))
            )
        return cls(**dict(data))

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict (for JSON)."""
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some options changed.

        >>> RuleSet().replace(refusal_turn="clockwise") == RuleSet.preset("lamas")
        True
        """
        return self.from_dict({**self.to_dict(), **changes})

    @property
    def uses_stock(self) -> bool:
        """Whether undealt cards form a draw pile."""
        return self.draw_pile

    @property
    def name(self) -> str:
        """The preset name, or the nearest preset plus the options that differ."""
        for preset_name, preset in PRESETS.items():
            if preset == self:
                return preset_name
        base = PRESETS["fish"] if self.draw_pile else PRESETS["publisher"]
        base_name = "fish" if self.draw_pile else "publisher"
        diffs = [
            f.name if getattr(self, f.name) is True else f"{f.name}={getattr(self, f.name)}"
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        ]
        return base_name + "".join("+" + d for d in diffs)

    def __str__(self) -> str:
        return self.name


PRESETS: dict[str, RuleSet] = {
    "publisher": RuleSet(),
    "dutch": RuleSet(refusal_turn="clockwise", dealing="equal", tie_break="earliest_last_quartet"),
    "lamas": RuleSet(refusal_turn="clockwise"),
    "fish": RuleSet(draw_pile=True, cards_each=7),
}
