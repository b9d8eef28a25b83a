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
import operator
import re
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path, PurePath
from typing import Any

from kwartet_epistemic._safejson import check_nesting, load_json, short
from kwartet_epistemic.errors import InvalidDeckError, UnknownCardError

__all__ = ["Card", "Deck", "bundled_packs"]

# Themed packs: the referee keeps a family's cards in 4 bits of a 64-family table, and a
# pack file or label longer than these is no card game.
MAX_FAMILIES = 64
MAX_LABEL_LENGTH = 100
MAX_PACK_BYTES = 1_000_000

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


def _is_count(value: object) -> bool:
    """An integer that is not a bool (``True`` is not a number of families)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _code_of(label: str) -> str:
    """A themed label's card code: its letters, digits and '_' (used in formulas)."""
    return re.sub(r"[^\w]", "", label, flags=re.UNICODE)


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
        if not _is_count(families) or not 1 <= families <= len(PIQUET_RANKS):
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
        if not _is_count(families) or not 1 <= families <= len(STANDARD_RANKS):
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
        players ask for a card by its label alone.  Each card's code (what formulas such as
        ``has(B, Vermeer)`` use) is its label's letters, digits and '_': labels whose codes
        are empty or clash are refused here, not when a saved game is loaded.  A pack has
        at most 64 families, each name and label at most 100 characters.

        >>> deck = Deck.from_families("tiny", {"Painters": ["Rembrandt", "Vermeer",
        ...     "Van Gogh", "Mondriaan"]})
        >>> deck.card("van gogh").code, deck.card("Vermeer").family
        ('VanGogh', 'Painters')
        >>> Deck.from_families("bad", {"Painters": ["Rembrandt", "Vermeer"]})
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.InvalidDeckError: themed pack 'bad': family 'Painters' has 2 members; every family needs exactly 4
        >>> Deck.from_families("bad", {"Cats": ["Cat!", "Cat?", "Tiger", "Lion"]})
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.InvalidDeckError: themed pack 'bad': labels 'Cat!' (Cats) and 'Cat?' (Cats) both give the card code 'Cat'; card codes keep only letters, digits and '_', and must differ (ignoring case)
        """
        if not isinstance(name, str) or len(name) > MAX_LABEL_LENGTH:
            raise InvalidDeckError(
                f"themed pack name {short(name)}: expected text of at most "
                f"{MAX_LABEL_LENGTH} characters"
            )
        if not isinstance(families, Mapping) or not families:
            raise InvalidDeckError(
                f"themed pack {name!r}: expected a non-empty mapping of family names to "
                f"4 member labels, got {short(families)}"
            )
        if len(families) > MAX_FAMILIES:
            raise InvalidDeckError(
                f"themed pack {name!r}: {len(families)} families; a pack has at most {MAX_FAMILIES}"
            )
        cards: list[Card] = []
        seen: dict[str, str] = {}
        # Every name a card is found by exactly (its squashed label, its code lower-cased)
        # -> the card, to refuse two cards answering to one name.
        primary: dict[str, Card] = {}
        aliases: dict[str, Card] = {}
        family_names: list[str] = []
        members_of: dict[str, list[str]] = {}

        def where(card: Card) -> str:
            return f"{card.member!r} ({card.family})"

        for f, (family, members) in enumerate(families.items()):
            if not isinstance(family, str) or not family.strip():
                raise InvalidDeckError(
                    f"themed pack {name!r}: family name {short(family)} is empty"
                )
            if len(family) > MAX_LABEL_LENGTH:
                raise InvalidDeckError(
                    f"themed pack {name!r}: family name {short(family)} has {len(family)} "
                    f"characters; at most {MAX_LABEL_LENGTH}"
                )
            if _squash(family) in (_squash(x) for x in family_names):
                raise InvalidDeckError(f"themed pack {name!r}: family {family!r} appears twice")
            if isinstance(members, str) or not isinstance(members, Sequence):
                raise InvalidDeckError(
                    f"themed pack {name!r}: family {family!r} must list 4 member labels, "
                    f"got {short(members)}"
                )
            if len(members) != 4:
                raise InvalidDeckError(
                    f"themed pack {name!r}: family {family!r} has {len(members)} members; "
                    "every family needs exactly 4"
                )
            family_names.append(family)
            members_of[family] = []
            for label in members:
                if not isinstance(label, str) or not _squash(label):
                    raise InvalidDeckError(
                        f"themed pack {name!r}: family {family!r} has an empty label {short(label)}"
                    )
                if len(label) > MAX_LABEL_LENGTH:
                    raise InvalidDeckError(
                        f"themed pack {name!r}: label {short(label)} in family {family!r} has "
                        f"{len(label)} characters; at most {MAX_LABEL_LENGTH}"
                    )
                key = _squash(label)
                if key in seen:
                    raise InvalidDeckError(
                        f"themed pack {name!r}: label {label!r} in family {family!r} duplicates "
                        f"{seen[key]!r}; every label must be unique"
                    )
                seen[key] = f"{label} ({family})"
                code = _code_of(label)
                if not code:
                    raise InvalidDeckError(
                        f"themed pack {name!r}: label {label!r} in family {family!r} gives an "
                        "empty card code; a card code keeps only the label's letters, digits "
                        "and '_' (formulas name cards by it), so a label needs at least one"
                    )
                card = Card(
                    code=code,
                    family=family,
                    member=label,
                    index=len(cards),
                    family_index=f,
                    name=label,
                    symbol=label,
                )
                for exact in (key, code.lower()):
                    other = primary.get(exact)
                    if other is not None and other is not card:
                        clash = code if exact == code.lower() else exact
                        first, second = (other, card)
                        raise InvalidDeckError(
                            f"themed pack {name!r}: labels {where(first)} and {where(second)} "
                            f"both give the card code {clash!r}; card codes keep only letters, "
                            "digits and '_', and must differ (ignoring case)"
                        )
                    primary[exact] = card
                cards.append(card)
                members_of[family].append(label)
                aliases.setdefault(_squash(f"{label} {family}"), card)
        lookup = {**aliases, **primary}  # an alias never hides another card's own name
        spec = (
            "themed(" + json.dumps({"name": name, "families": members_of}, ensure_ascii=False) + ")"
        )
        deck = cls(name, tuple(family_names), tuple(cards), spec, tuple(family_names))
        deck._lookup.update(lookup)
        return deck

    @classmethod
    def themed(cls, source: str | Path | Mapping[str, Any]) -> Deck:
        """A themed pack: a bundled pack's name, a path to a TOML or JSON file, or its data.

        The file holds ``name`` and a table ``families`` mapping family names to four
        labels (UTF-8, at most 1 MB).  :func:`bundled_packs` lists the bundled names.
        Anything wrong with the file or its data is an :class:`InvalidDeckError`.

        >>> deck = Deck.themed("dutch_masters")
        >>> len(deck), deck.card("vermeer").family
        (32, 'Dutch painters')
        >>> Deck.themed(5)
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.InvalidDeckError: themed pack 5: expected a bundled pack's name, a path to a .toml or .json file, or a mapping with 'name' and 'families'
        """
        if isinstance(source, Mapping):
            data: Any = source
            origin = "themed pack data"
            check_nesting(data, what=origin, error=InvalidDeckError, max_depth=8)
        elif isinstance(source, str | PurePath):
            data, origin = cls._read_pack(source)
        else:
            raise InvalidDeckError(
                f"themed pack {short(source)}: expected a bundled pack's name, a path to a "
                ".toml or .json file, or a mapping with 'name' and 'families'"
            )
        if not isinstance(data, Mapping) or "families" not in data:
            raise InvalidDeckError(f"{origin}: expected a table with 'name' and 'families'")
        name = data.get("name", "themed")
        if not isinstance(name, str):
            raise InvalidDeckError(f"{origin}: name {short(name)}: expected text")
        return cls.from_families(name, data["families"])

    @staticmethod
    def _read_pack(source: str | PurePath) -> tuple[Any, str]:
        """The data of a bundled pack or a pack file, and how to name it in errors."""
        if "\0" in str(source):
            raise InvalidDeckError(f"themed pack {short(str(source))}: a path holds no NUL")
        path = Path(source)
        # Bundled packs match by file name or by their title ("Dutch masters"), so that a
        # themed deck's repr rebuilds it.
        bundled = [p for p in bundled_packs() if _squash(p) == _squash(str(source))]
        if not path.suffix and bundled:
            resource = resources.files("kwartet_epistemic.packs").joinpath(f"{bundled[0]}.toml")
            return tomllib.loads(resource.read_text(encoding="utf-8")), (
                f"bundled pack {bundled[0]!r}"
            )
        origin = f"themed pack file {short(str(path))}"
        try:
            is_file = path.is_file()
        except (OSError, ValueError):
            is_file = False
        if not is_file:
            raise InvalidDeckError(
                f"themed pack {short(str(source))}: no such file and no bundled pack of "
                f"that name; bundled packs are {', '.join(bundled_packs())}"
            )
        try:
            with path.open("rb") as handle:
                raw = handle.read(MAX_PACK_BYTES + 1)
        except OSError as err:
            raise InvalidDeckError(f"{origin}: cannot be read: {err.strerror or err}") from err
        if len(raw) > MAX_PACK_BYTES:
            raise InvalidDeckError(
                f"{origin}: larger than {MAX_PACK_BYTES:,} bytes; a pack file is at most that"
            )
        if path.suffix.lower() == ".json":
            data = load_json(raw, what=origin, error=InvalidDeckError, max_depth=8)
            return data, origin
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InvalidDeckError(f"{origin}: not UTF-8 text: {err}") from err
        # tomllib would hand Python's own ValueError for a number past 4300 digits: look
        # first (no number, name or label of a pack has more than 100 characters).
        long_digits = re.search(rf"\d{{{MAX_LABEL_LENGTH + 1},}}", text)
        if long_digits:
            raise InvalidDeckError(
                f"{origin}: a run of {len(long_digits.group())} digits at character "
                f"{long_digits.start()}; numbers, names and labels have at most "
                f"{MAX_LABEL_LENGTH} characters"
            )
        try:
            data = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, RecursionError, ValueError) as err:
            # (ValueError: Python's limit on the digits of a number in the text.)
            raise InvalidDeckError(f"{origin}: not valid toml: {err}") from err
        check_nesting(data, what=origin, error=InvalidDeckError, max_depth=8)
        return data, origin

    @classmethod
    def from_spec(cls, spec: str, *, bundled: bool = True) -> Deck:
        """Rebuild a deck from its ``spec`` string (as stored in game records) or from its
        ``repr`` (a bundled themed pack's repr names the pack; a pack read from a file is
        rebuilt from its ``spec``, which holds the cards).  ``bundled=False`` refuses a
        bundled pack's name: game records hold every card inline.

        >>> Deck.from_spec("piquet(families=3)") == Deck.piquet(families=3)
        True
        >>> all(Deck.from_spec(repr(d)) == d for d in
        ...     [Deck.piquet(), Deck.standard(families=10), Deck.themed("animals")])
        True
        """
        if not isinstance(spec, str):
            raise InvalidDeckError(f"deck spec {short(spec)}: expected text such as 'piquet()'")
        if len(spec) > 2 * MAX_PACK_BYTES:
            raise InvalidDeckError(
                f"deck spec of {len(spec):,} characters: a spec has at most {2 * MAX_PACK_BYTES:,}"
            )
        match = re.fullmatch(
            r"\s*(?:Deck\.)?(piquet|standard)\(\s*(?:families\s*=\s*(\d+))?\s*\)\s*", spec
        )
        if match:
            maker = cls.piquet if match.group(1) == "piquet" else cls.standard
            digits = match.group(2)
            if digits is None:
                return maker()
            if len(digits) > 3:  # int() of thousands of digits is a ValueError of Python's
                top = len(PIQUET_RANKS) if maker == cls.piquet else len(STANDARD_RANKS)
                raise InvalidDeckError(
                    f"deck spec {spec[:40]!r}...: families has {len(digits)} digits; expected "
                    f"an integer from 1 to {top}"
                )
            return maker(families=int(digits))
        match = re.fullmatch(r"\s*Deck\.themed\(\s*('[^'\\]*'|\"[^\"\\]*\")\s*\)\s*", spec)
        if match:  # the repr of a bundled pack's deck: only bundled packs, never a path
            name = match.group(1)[1:-1]
            if not bundled:
                raise InvalidDeckError(
                    f"deck spec {spec[:60]!r}: expected the pack inline, 'themed({{...}})'"
                )
            if _squash(name) not in {_squash(p) for p in bundled_packs()}:
                raise InvalidDeckError(
                    f"deck {spec[:60]!r}: {name!r} is no bundled pack ({', '.join(bundled_packs())});"
                    " a deck from a pack file is rebuilt from its spec, deck.spec"
                )
            return cls.themed(name)
        match = re.fullmatch(r"\s*(?:Deck\.)?themed\((.*)\)\s*", spec, flags=re.DOTALL)
        if match:
            data = load_json(
                match.group(1),
                what=f"deck spec {spec[:60]!r}: bad themed data",
                error=InvalidDeckError,
                max_depth=8,
            )
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
        if not isinstance(item, Card) or not 0 <= item.index < len(self.cards):
            return False
        own = self.cards[item.index]
        return own is item or own == item  # the deck's own card object, most often

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
        f = self._family_number(family)
        return self.cards[4 * f : 4 * f + 4]

    def _family_number(self, family: str | int) -> int:
        """A family's index from its index (checked) or its name."""
        if type(family) is int and 0 <= family < len(self.families):
            return family
        if isinstance(family, str):
            return self.family_index(family)
        try:
            number = operator.index(family) if not isinstance(family, bool) else None
        except TypeError:
            number = None
        if number is None or not 0 <= number < len(self.families):
            raise UnknownCardError(
                f"family {short(family)}: expected a family name or a number from 0 to "
                f"{len(self.families) - 1}"
            )
        return number

    def family_index(self, family: str) -> int:
        """The position of a family in ``families`` (case-insensitive).

        >>> Deck.piquet().family_index("q")
        5
        """
        if not isinstance(family, str):
            raise UnknownCardError(
                f"family {short(family)}: expected a family name; families are "
                f"{', '.join(self.families)}"
            )
        # Exact names are looked up directly (the referee and agents ask this often).
        index = self._family_lookup.get(family)
        if index is not None:
            return index
        key = _squash(family)
        for f, (rank, title) in enumerate(zip(self.families, self.family_titles, strict=False)):
            if key in (_squash(rank), _squash(title)):
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
        >>> Deck.piquet().card(repr(Deck.piquet().card("QH")))  # a card's printed form too
        Card('QH')
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
        printed = re.fullmatch(r"\s*Card\(\s*('[^']*'|\"[^\"]*\")\s*\)\s*", text)
        if printed:  # a card's repr, Card('QH'), names the card too
            return self.card(printed.group(1)[1:-1])
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
        return self.family_titles[self._family_number(family)]


def bundled_packs() -> tuple[str, ...]:
    """The names of the themed packs shipped with the library.

    >>> "dutch_masters" in bundled_packs()
    True
    """
    folder = resources.files("kwartet_epistemic.packs")
    return tuple(
        sorted(p.name.removesuffix(".toml") for p in folder.iterdir() if p.name.endswith(".toml"))
    )
