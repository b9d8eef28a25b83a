"""Cards and decks: families of four, the piquet and standard substitutes, themed packs.

A deck is an ordered tuple of cards, family by family; a card belongs to one family and
is one of its four members.  Every card has a short ``code`` (``"QH"``, ``"10S"`` or a
themed label without spaces) that the formula language uses in atoms such as
``has(B, QH)``.

>>> deck = Deck.piquet(families=3)
>>> [str(c) for c in deck.family_cards("8")]
['8S', '8H', '8D', '8C']
>>> deck.card("queen of hearts") if "Q" in deck.families else deck.card("9♥")
Card('9H')
>>> deck.card("9 of hearts").name
'nine of hearts'
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from kwartet_epistemic.errors import InvalidDeckError, UnknownCardError

__all__ = ["Card", "Deck", "bundled_packs"]

SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
PIQUET_RANKS = ("7", "8", "9", "10", "J", "Q", "K", "A")
STANDARD_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_NAMES = {
    "A": "ace", "2": "two", "3": "three", "4": "four", "5": "five", "6": "six",
    "7": "seven", "8": "eight", "9": "nine", "10": "ten", "J": "jack", "Q": "queen",
    "K": "king",
}  # fmt: skip
RANK_PLURALS = {
    rank: name + ("es" if name.endswith("x") else "s") for rank, name in RANK_NAMES.items()
}


@dataclass(frozen=True, slots=True)
class Card:
    """One card: member ``member`` of family ``family``, at position ``index`` in its deck.

    >>> card = Deck.piquet().card("QH")
    >>> card.family, card.member, card.symbol, card.index
    ('Q', 'H', 'Q♥', 21)
    """

    code: str
    family: str
    member: str
    index: int = field(compare=False)
    family_index: int = field(compare=False)
    name: str = field(compare=False, default="")
    symbol: str = field(compare=False, default="")

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code!r})"


def _squash(text: str) -> str:
    """Lower-case and drop spaces and punctuation, for forgiving name lookup."""
    return re.sub(r"[\s_\-'.,]+", "", text.strip().lower())


@dataclass(frozen=True)
class Deck:
    """An ordered deck of 4k cards in k families of exactly four.

    Build one with :meth:`piquet`, :meth:`standard`, :meth:`themed` or
    :meth:`from_families`; ``repr`` gives the expression that rebuilds it.

    >>> Deck.piquet()
    Deck.piquet()
    >>> len(Deck.standard()), Deck.standard().families[:3]
    (52, ('A', '2', '3'))
    """

    name: str
    families: tuple[str, ...]
    cards: tuple[Card, ...]
    spec: str
    family_titles: tuple[str, ...] = ()
    _lookup: dict[str, Card] = field(default_factory=dict, compare=False, repr=False)
    _family_lookup: dict[str, int] = field(default_factory=dict, compare=False, repr=False)

    # ----- construction -------------------------------------------------------------

    @classmethod
    def piquet(cls, families: int = 8) -> Deck:
        """The 32-card substitute deck (7 8 9 10 J Q K A), or its first ``families`` ranks.

        >>> [str(c) for c in Deck.piquet(families=1).cards]
        ['7S', '7H', '7D', '7C']
        """
        if not isinstance(families, int) or not 1 <= families <= len(PIQUET_RANKS):
            raise InvalidDeckError(
                f"piquet deck: families={families!r}; expected an integer from 1 to 8"
            )
        spec = "piquet()" if families == 8 else f"piquet(families={families})"
        return cls._from_ranks("piquet", PIQUET_RANKS[:families], spec)

    @classmethod
    def standard(cls, families: int = 13) -> Deck:
        """The 52-card deck as 13 families (A 2 .. 10 J Q K), or its first ``families`` ranks.

        >>> Deck.standard().card("ace of spades")
        Card('AS')
        """
        if not isinstance(families, int) or not 1 <= families <= len(STANDARD_RANKS):
            raise InvalidDeckError(
                f"standard deck: families={families!r}; expected an integer from 1 to 13"
            )
        spec = "standard()" if families == 13 else f"standard(families={families})"
        return cls._from_ranks("standard", STANDARD_RANKS[:families], spec)

    @classmethod
    def _from_ranks(cls, name: str, ranks: Sequence[str], spec: str) -> Deck:
        cards: list[Card] = []
        for f, rank in enumerate(ranks):
            for suit in SUITS:
                cards.append(
                    Card(
                        code=rank + suit,
                        family=rank,
                        member=suit,
                        index=len(cards),
                        family_index=f,
                        name=f"{RANK_NAMES[rank]} of {SUIT_NAMES[suit]}",
                        symbol=rank + SUIT_SYMBOLS[suit],
                    )
                )
        titles = tuple(RANK_PLURALS[r] for r in ranks)
        deck = cls(name, tuple(ranks), tuple(cards), spec, titles)
        for card in cards:
            rank, suit = card.family, card.member
            aliases = [
                card.code,
                card.symbol,
                card.name,
                f"{rank} of {SUIT_NAMES[suit]}",
                f"{rank}{SUIT_NAMES[suit]}",
            ]
            if rank == "10":
                aliases += ["T" + suit, "T" + SUIT_SYMBOLS[suit]]
            for alias in aliases:
                deck._lookup[_squash(alias)] = card
        return deck

    @classmethod
    def from_families(cls, name: str, families: Mapping[str, Sequence[str]]) -> Deck:
        """A themed deck from ``{family name: [4 unique member labels]}``.

        Labels must be unique over the whole deck (ignoring case and spaces), because
        players ask for a card by its label alone.

        >>> deck = Deck.from_families("tiny", {"Painters": ["Rembrandt", "Vermeer",
        ...     "Van Gogh", "Mondriaan"]})
        >>> deck.card("van gogh").code, deck.card("Vermeer").family
        ('VanGogh', 'Painters')
        >>> Deck.from_families("bad", {"Painters": ["Rembrandt", "Vermeer"]})
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.InvalidDeckError: themed pack 'bad': family 'Painters' has 2 members; every family needs exactly 4
        """
        if not isinstance(families, Mapping) or not families:
            raise InvalidDeckError(
                f"themed pack {name!r}: expected a non-empty mapping of family names to "
                f"4 member labels, got {families!r}"
            )
        cards: list[Card] = []
        seen: dict[str, str] = {}
        lookup: dict[str, Card] = {}
        family_names: list[str] = []
        for f, (family, members) in enumerate(families.items()):
            if not isinstance(family, str) or not family.strip():
                raise InvalidDeckError(f"themed pack {name!r}: family name {family!r} is empty")
            if _squash(family) in (_squash(x) for x in family_names):
                raise InvalidDeckError(f"themed pack {name!r}: family {family!r} appears twice")
            if isinstance(members, str) or not isinstance(members, Sequence):
                raise InvalidDeckError(
                    f"themed pack {name!r}: family {family!r} must list 4 member labels, "
                    f"got {members!r}"
                )
            if len(members) != 4:
                raise InvalidDeckError(
                    f"themed pack {name!r}: family {family!r} has {len(members)} members; "
                    "every family needs exactly 4"
                )
            family_names.append(family)
            for label in members:
                if not isinstance(label, str) or not _squash(label):
                    raise InvalidDeckError(
                        f"themed pack {name!r}: family {family!r} has an empty label {label!r}"
                    )
                key = _squash(label)
                if key in seen:
                    raise InvalidDeckError(
                        f"themed pack {name!r}: label {label!r} in family {family!r} duplicates "
                        f"{seen[key]!r}; every label must be unique"
                    )
                seen[key] = f"{label} ({family})"
                code = re.sub(r"[^\w]", "", label, flags=re.UNICODE)
                card = Card(
                    code=code,
                    family=family,
                    member=label,
                    index=len(cards),
                    family_index=f,
                    name=label,
                    symbol=label,
                )
                cards.append(card)
                lookup[key] = card
                lookup[_squash(f"{label} {family}")] = card
        spec = (
            "themed(" + json.dumps({"name": name, "families": families}, ensure_ascii=False) + ")"
        )
        deck = cls(name, tuple(family_names), tuple(cards), spec, tuple(family_names))
        deck._lookup.update(lookup)
        return deck

    @classmethod
    def themed(cls, source: str | Path | Mapping[str, Any]) -> Deck:
        """A themed pack: a bundled pack's name, a path to a TOML or JSON file, or its data.

        The file holds ``name`` and a table ``families`` mapping family names to four
        labels.  :func:`bundled_packs` lists the bundled names.

        >>> deck = Deck.themed("dutch_masters")
        >>> len(deck), deck.card("vermeer").family
        (32, 'Dutch painters')
        """
        if isinstance(source, Mapping):
            data: Any = source
            origin = "themed pack data"
        else:
            path = Path(source)
            # Bundled packs match by file name or by their title ("Dutch masters"), so
            # that a themed deck's repr rebuilds it.
            bundled = [p for p in bundled_packs() if _squash(p) == _squash(str(source))]
            if not path.suffix and bundled:
                text = resources.files("kwartet_epistemic.packs").joinpath(f"{bundled[0]}.toml")
                data = tomllib.loads(text.read_text(encoding="utf-8"))
                origin = f"bundled pack {bundled[0]!r}"
            else:
                if not path.is_file():
                    raise InvalidDeckError(
                        f"themed pack {str(source)!r}: no such file and no bundled pack of "
                        f"that name; bundled packs are {', '.join(bundled_packs())}"
                    )
                origin = f"themed pack file {str(path)!r}"
                text_data = path.read_text(encoding="utf-8")
                try:
                    if path.suffix.lower() == ".json":
                        data = json.loads(text_data)
                    else:
                        data = tomllib.loads(text_data)
                except (json.JSONDecodeError, tomllib.TOMLDecodeError) as err:
                    raise InvalidDeckError(f"{origin}: not valid {path.suffix[1:]}: {err}") from err
        if not isinstance(data, Mapping) or "families" not in data:
            raise InvalidDeckError(f"{origin}: expected a table with 'name' and 'families'")
        return cls.from_families(str(data.get("name", "themed")), data["families"])

    @classmethod
    def from_spec(cls, spec: str) -> Deck:
        """Rebuild a deck from its ``spec`` string (as stored in game records).

        >>> Deck.from_spec("piquet(families=3)") == Deck.piquet(families=3)
        True
        """
        match = re.fullmatch(r"\s*(piquet|standard)\(\s*(?:families\s*=\s*(\d+))?\s*\)\s*", spec)
        if match:
            maker = cls.piquet if match.group(1) == "piquet" else cls.standard
            return maker() if match.group(2) is None else maker(families=int(match.group(2)))
        match = re.fullmatch(r"\s*themed\((.*)\)\s*", spec, flags=re.DOTALL)
        if match:
            try:
                data = json.loads(match.group(1))
            except (json.JSONDecodeError, RecursionError) as err:
                raise InvalidDeckError(f"deck spec {spec[:60]!r}: bad themed data: {err}") from err
            # Only inline data: a spec comes from game records, which must never make the
            # library read a file path or bundled pack named inside them.
            if not isinstance(data, dict):
                raise InvalidDeckError(
                    f"deck spec {spec[:60]!r}: themed(...) must hold a JSON object with "
                    "'name' and 'families'"
                )
            return cls.themed(data)
        raise InvalidDeckError(
            f"deck spec {spec[:60]!r}: expected 'piquet(families=N)', 'standard()' or 'themed({{...}})'"
        )

    # ----- queries ------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __contains__(self, item: object) -> bool:
        return (
            isinstance(item, Card)
            and 0 <= item.index < len(self.cards)
            and self.cards[item.index] == item
        )

    def __repr__(self) -> str:
        return (
            f"Deck.{self.spec}"
            if not self.spec.startswith("themed(")
            else f"Deck.themed({self.name!r})"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deck) and self.spec == other.spec

    def __hash__(self) -> int:
        return hash(self.spec)

    @property
    def n_families(self) -> int:
        """The number of families (quartets)."""
        return len(self.families)

    def family_cards(self, family: str | int) -> tuple[Card, ...]:
        """The four cards of a family, given by name or index.

        >>> Deck.piquet().family_cards("Q")[1]
        Card('QH')
        """
        f = family if isinstance(family, int) else self.family_index(family)
        return self.cards[4 * f : 4 * f + 4]

    def family_index(self, family: str) -> int:
        """The position of a family in :attr:`families` (case-insensitive).

        >>> Deck.piquet().family_index("q")
        5
        """
        # Exact names are looked up directly (the referee and agents ask this often).
        index = self._family_lookup.get(family)
        if index is not None:
            return index
        key = _squash(family)
        for f, (short, title) in enumerate(zip(self.families, self.family_titles, strict=False)):
            if key in (_squash(short), _squash(title)):
                self._family_lookup[family] = f
                return f
        raise UnknownCardError(
            f"family {family!r} is not in the deck; families are {', '.join(self.families)}"
        )

    def card(self, text: str | Card) -> Card:
        """The card named by ``text``: a code ("QH"), symbol ("Q♥"), long name ("queen of
        hearts") or themed label ("Vermeer"), case-insensitively.

        >>> Deck.piquet().card("Q♥") == Deck.piquet().card("queen of hearts")
        True
        >>> Deck.piquet().card("QX")
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.UnknownCardError: no card 'QX' in Deck.piquet(); closest: QS, QH, QD
        """
        if isinstance(text, Card):
            if text in self:
                return self.cards[text.index]
            raise UnknownCardError(f"card {text!r} is not in {self!r}")
        if not isinstance(text, str):
            raise UnknownCardError(f"card name {text!r}: expected a string such as 'QH'")
        # The keys are squashed names, so a name without spaces or punctuation (every
        # code, as records and most asks give) is found lower-cased, skipping the regex.
        found = self._lookup.get(text.lower()) or self._lookup.get(_squash(text))
        if found is not None:
            return found
        names = [c.code for c in self.cards] + [c.name for c in self.cards]
        close = difflib.get_close_matches(text.strip(), names, n=3, cutoff=0.4)
        if not close:
            close = difflib.get_close_matches(text.strip().upper(), names, n=3, cutoff=0.3)
        hint = (
            f"; closest: {', '.join(close)}" if close else f"; cards are like {self.cards[0].code}"
        )
        raise UnknownCardError(f"no card {text!r} in {self!r}{hint}")

    def family_title(self, family: str | int) -> str:
        """The readable name of a family ("queens", or a themed family name).

        >>> Deck.piquet().family_title("Q")
        'queens'
        """
        f = family if isinstance(family, int) else self.family_index(family)
        return self.family_titles[f]


def bundled_packs() -> tuple[str, ...]:
    """The names of the themed packs shipped with the library.

    >>> "dutch_masters" in bundled_packs()
    True
    """
    folder = resources.files("kwartet_epistemic.packs")
    return tuple(
        sorted(p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml"))
    )
