"""Formulas of dynamic epistemic logic as small immutable trees.

Every node is a frozen, hashable dataclass whose child formulas are in ``args``
(as in ``sympy``).  Python operators build them: ``~f`` is :class:`Not`, ``f & g``
is :class:`And`, ``f | g`` is :class:`Or` and ``f >> g`` is :class:`Implies`.
``str(f)`` prints the text syntax with as few parentheses as the precedence allows,
so that ``parse(str(f)) == f`` for every formula ``f``.

>>> p, q = Atom("p"), has("B", "Q♥")
>>> f = K("A", p >> ~q)
>>> str(f)
'K_A (p -> ~has(B, Q♥))'
>>> sorted(a.name for a in f.atoms()), sorted(f.agents())
(['has(B, Q♥)', 'p'], ['A'])
>>> f.args == (p >> ~q,)
True
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from kwartet_epistemic.errors import FormulaSyntaxError, KwartetError

if TYPE_CHECKING:  # sympy is imported lazily: it takes a while to load
    import sympy

__all__ = [
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
    "Formula",
    "FormulaLike",
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
    "SYMPY_DEPTH_LIMIT",
    "Top",
    "conjunction",
    "disjunction",
    "has",
]


class NotPropositionalError(KwartetError):
    """A propositional-only operation (e.g. ``to_sympy``) met a modal or dynamic operator."""


class FormulaTypeError(KwartetError, TypeError):
    """A formula built from, or parsed out of, something of the wrong type (it is also a
    :class:`TypeError`)."""


class FormulaTooLargeError(KwartetError):
    """Formula text longer than :data:`FORMULA_TEXT_LIMIT` to parse (or than
    :data:`FORMULA_PRINT_LIMIT` to print), or a formula nested deeper than sympy takes."""


FORMULA_TEXT_LIMIT = 2_000_000
"""The longest formula text ``parse`` reads (characters).

Parsing takes up to about 160 bytes of memory per character, so this bounds a parse to
a few hundred MB.  Formulas built with the constructors may be larger: every operation
takes them, and printing up to :data:`FORMULA_PRINT_LIMIT`."""

FORMULA_PRINT_LIMIT = 20_000_000
"""The longest text ``str`` and ``to_latex`` write (characters; LaTeX is about three
times as long as the text syntax).  A formula built with shared parts may spell far more
text than it has nodes (``f = f & f`` 70 times is 2**70 atoms long): beyond this limit
those refuse with :class:`FormulaTooLargeError`, and ``repr`` shows the beginning."""

_DISPLAY_LIMIT = 20_000  # characters of LaTeX that Jupyter typesets

SYMPY_DEPTH_LIMIT = 100
"""The deepest formula ``to_sympy`` converts (after flattening chains of ``&`` and
``|``): sympy's printing, hashing and simplification recurse once or more per level and
fail at a few hundred levels."""


# Binding strength used by the printer; the parser implements the same table.
_PREC_IFF = 1
_PREC_IMPLIES = 2
_PREC_OR = 3
_PREC_AND = 4
_PREC_UNARY = 5
_PREC_ATOMIC = 6

# Identifiers that start with one of these prefixes are modal operators, never atoms.
MODAL_PREFIX = re.compile(r"^(Kw|K|M|E|C|D)_")
RESERVED_WORDS = frozenset({"top", "bot"})
_AGENT_CHARS = re.compile(r"\w+")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")
# Characters that delimit predicate arguments in the text syntax.
_ARGUMENT_DELIMITERS = frozenset("(),")

_T = TypeVar("_T")

_LATEX_SYMBOLS = {"♥": r"\heartsuit", "♡": r"\heartsuit", "♦": r"\diamondsuit",
                  "♢": r"\diamondsuit", "♣": r"\clubsuit", "♧": r"\clubsuit",
                  "♠": r"\spadesuit", "♤": r"\spadesuit"}  # fmt: skip


def is_atom_identifier(word: str) -> bool:
    """Whether ``word`` may name an atom or a predicate (not a keyword or modal prefix).

    >>> is_atom_identifier("muddy3"), is_atom_identifier("K_A"), is_atom_identifier("top")
    (True, False, False)
    """
    return (
        bool(_IDENTIFIER.fullmatch(word))
        and word not in RESERVED_WORDS
        and not MODAL_PREFIX.match(word)
    )


def normalize_argument(argument: str, atom_text: str) -> str:
    """Return a predicate argument in canonical form (inner whitespace collapsed).

    Arguments may hold card symbols (``Q♥``, ``10H``) and ``?variables``; they may not
    hold the delimiters ``( ) ,`` or control characters.

    >>> normalize_argument("  Q♥ ", "has(B,  Q♥ )")
    'Q♥'
    """
    canonical = " ".join(argument.split())
    if not canonical:
        raise FormulaSyntaxError(
            f"empty argument in atom {atom_text!r}: expected a name such as 'B' or 'Q♥'",
            atom_text,
            0,
        )
    bad = [ch for ch in canonical if ch in _ARGUMENT_DELIMITERS or not ch.isprintable()]
    if bad:
        raise FormulaSyntaxError(
            f"argument {argument!r} of atom {atom_text!r} contains {bad[0]!r}: "
            "arguments may not contain '(', ')', ',' or control characters",
            atom_text,
            0,
        )
    return canonical


def check_agent(agent: object) -> str:
    """Return ``agent`` as an agent name (letters, digits, underscores; ints become text).

    >>> check_agent(3), check_agent("Alice")
    ('3', 'Alice')
    """
    if isinstance(agent, int) and not isinstance(agent, bool):
        agent = str(agent)
    if not isinstance(agent, str) or not _AGENT_CHARS.fullmatch(agent):
        raise FormulaSyntaxError(
            f"bad agent name {agent!r}: expected letters, digits or underscores such as "
            "'A', '1' or 'me'",
            str(agent),
            0,
        )
    return agent


def _check_formula(value: object, role: str) -> Formula:
    if not isinstance(value, Formula):
        raise FormulaTypeError(
            f"{role} must be a Formula, got {reprlib.repr(value)} of type "
            f"{type(value).__name__} (parse text with parse())"
        )
    return value


def _latex_text(text: str) -> str:
    """Escape a name for LaTeX math mode and turn suit symbols into suit macros."""
    pieces = []
    for ch in text:
        if ch in _LATEX_SYMBOLS:
            pieces.append(_LATEX_SYMBOLS[ch] + " ")
        elif ch in "_#$%&{}":
            pieces.append("\\" + ch)
        elif ch == " ":
            pieces.append(r"\ ")
        elif ch == "?":
            pieces.append("?")
        else:
            pieces.append(ch)
    return "".join(pieces).rstrip()


_SUIT_LETTERS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_CARD_CODE = re.compile(r"(10|[2-9AJQKT])([SHDC])")


def _latex_argument(argument: str) -> str:
    """An atom argument in LaTeX; a card code such as ``QH`` shows its suit: Q♥."""
    match = _CARD_CODE.fullmatch(argument)
    if match:
        argument = match.group(1) + _SUIT_LETTERS[match.group(2)]
    return _latex_text(argument)


def _latex_name(name: str) -> str:
    return name if len(name) == 1 else r"\mathit{" + _latex_text(name) + "}"


# Printers build ropes (nested tuples of strings) and join them once at the end, so
# printing a long conjunction takes linear, not quadratic, time.
_Rope = str | tuple[Any, ...]


def _join_rope(rope: _Rope, limit: int | None = None) -> str:
    """The text of a rope; with ``limit``, only its first ``limit`` characters (a rope
    of shared parts may spell far more text than it holds)."""
    pieces: list[str] = []
    length = 0
    stack: list[_Rope] = [rope]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            pieces.append(item)
            length += len(item)
            if limit is not None and length >= limit:
                break
        else:
            stack.extend(reversed(item))
    text = "".join(pieces)
    return text if limit is None else text[:limit]


def _rope_length(rope: _Rope) -> int:
    """The length of a rope's text, each shared part measured once (no recursion)."""
    lengths: dict[int, int] = {}
    stack: list[_Rope] = [rope]
    while stack:
        item = stack[-1]
        if isinstance(item, str) or id(item) in lengths:
            stack.pop()
            continue
        waiting = [part for part in item if not isinstance(part, str) and id(part) not in lengths]
        if waiting:
            stack.extend(waiting)
            continue
        stack.pop()
        lengths[id(item)] = sum(
            len(part) if isinstance(part, str) else lengths[id(part)] for part in item
        )
    return len(rope) if isinstance(rope, str) else lengths[id(rope)]


def _checked_text(rope: _Rope, what: str) -> str:
    """The rope's text, refused above :data:`FORMULA_PRINT_LIMIT` characters."""
    length = _rope_length(rope)
    if length > FORMULA_PRINT_LIMIT:
        raise FormulaTooLargeError(
            f"the formula beginning {_join_rope(rope, 60)!r} is {length:,} characters long "
            f"as {what}; the limit is {FORMULA_PRINT_LIMIT:,} characters "
            "(FORMULA_PRINT_LIMIT): evaluate it, or print a part of it"
        )
    return _join_rope(rope)


def formula_excerpt(formula: Formula, width: int = 100) -> str:
    """The formula's text for a message: whole when short, else its first ``width``
    characters, ``...`` and its length.  Never refuses, however large the formula.

    >>> formula_excerpt(conjunction([Atom("p")] * 3))
    'p & p & p'
    >>> formula_excerpt(conjunction([Atom("p")] * 100), width=12)
    'p & p & p & ... (397 characters)'
    """
    rope = formula.fold(lambda node, texts: node._text_from(texts))
    head = _join_rope(rope, width + 1)
    if len(head) <= width:
        return head
    return f"{head[:width]}... ({_rope_length(rope):,} characters)"


def _wrap(child: Formula, text: _Rope, minimum: int) -> _Rope:
    """Parenthesise a child's text when it binds more weakly than its position needs."""
    return text if child.precedence >= minimum else ("(", text, ")")


def _wrap_latex(child: Formula, text: _Rope, minimum: int) -> _Rope:
    return text if child.precedence >= minimum else (r"\left(", text, r"\right)")


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Formula:
    """Base class of all formulas.

    Formulas compare and hash structurally; hashing is O(1) (each node stores its hash)
    and every traversal is iterative, so conjunctions of many thousands of formulas work.
    Python's operator precedence is not the text syntax's: ``>>`` binds tighter than
    ``&`` and ``|``, so parenthesise implications built with operators.

    >>> p, q = Atom("p"), Atom("q")
    >>> ((p & q) | (~p >> q)) == Or(And(p, q), Implies(Not(p), q))
    True
    """

    _hash: int = field(default=0, init=False, repr=False, compare=False)
    precedence: ClassVar[int] = _PREC_ATOMIC
    """How tightly the operator binds when printed (atoms and constants the most,
    prefix operators next, then ``&``, ``|``, ``->``, ``<->``)."""

    def __post_init__(self) -> None:
        self._seal()

    def _seal(self) -> None:
        """Store the structural hash; called once the node's fields are final."""
        child_hashes = tuple(child._hash for child in self.args)
        object.__setattr__(self, "_hash", hash((type(self).__name__, self._label(), child_hashes)))

    def _label(self) -> tuple[object, ...]:
        """The node's data other than its child formulas (names, agents)."""
        return ()

    @property
    def args(self) -> tuple[Formula, ...]:
        """The child formulas, in order."""
        return ()

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Formula):
            return NotImplemented
        pairs: list[tuple[Formula, Formula]] = [(self, other)]
        # Shared subtrees are compared once: without this, two separately built formulas
        # with heavy sharing (f = f & f, n times) take time exponential in n.
        seen: set[tuple[int, int]] = set()
        while pairs:
            left, right = pairs.pop()
            if left is right:
                continue
            key = (id(left), id(right))
            if key in seen:
                continue
            seen.add(key)
            if (
                type(left) is not type(right)
                or left._hash != right._hash
                or left._label() != right._label()
            ):
                return False
            pairs.extend(zip(left.args, right.args, strict=True))
        return True

    def __invert__(self) -> Not:
        return Not(self)

    def __and__(self, other: Formula) -> And:
        return And(self, other)

    def __or__(self, other: Formula) -> Or:
        return Or(self, other)

    def __rshift__(self, other: Formula) -> Implies:
        return Implies(self, other)

    def fold(self, combine: Callable[[Formula, list[_T]], _T]) -> _T:
        """Combine bottom-up: ``combine(node, [results of its children])``, once per node.

        Iterative, and a subformula object shared by several parents is visited once.

        >>> (Atom("p") & ~Atom("q")).fold(lambda node, sizes: 1 + sum(sizes))
        4
        """
        results: dict[int, _T] = {}
        stack: list[Formula] = [self]
        while stack:
            node = stack[-1]
            if id(node) in results:
                stack.pop()
                continue
            waiting = [child for child in node.args if id(child) not in results]
            if waiting:
                stack.extend(reversed(waiting))
                continue
            stack.pop()
            results[id(node)] = combine(node, [results[id(child)] for child in node.args])
        return results[id(self)]

    def subformulas(self) -> Iterator[Formula]:
        """The distinct subformulas, each after its own subformulas (post-order).

        Equal subformulas are recognised from their node data and the numbers already
        given to their children, so this takes linear time even when equal deep parts
        were built separately.

        >>> [str(f) for f in (Atom("p") & ~Atom("q") & Atom("p")).subformulas()]
        ['p', 'q', '~q', 'p & ~q', 'p & ~q & p']
        """
        numbers: dict[tuple[object, ...], int] = {}
        order: list[Formula] = []

        def number(node: Formula, children: list[int]) -> int:
            key = (type(node), node._label(), *children)
            found = numbers.get(key)
            if found is None:
                found = numbers[key] = len(order)
                order.append(node)
            return found

        self.fold(number)
        yield from order

    def atoms(self) -> frozenset[Atom]:
        """The atoms that occur in the formula.

        >>> from kwartet_epistemic.logic import parse
        >>> sorted(str(a) for a in parse("K_A p & [!q]r").atoms())
        ['p', 'q', 'r']
        """
        return frozenset(f for f in self.subformulas() if isinstance(f, Atom))

    def agents(self) -> frozenset[str]:
        """The agents named by the modal operators of the formula.

        >>> from kwartet_epistemic.logic import parse
        >>> sorted(parse("K_A p & C_{B,C} q").agents())
        ['A', 'B', 'C']
        """
        names: set[str] = set()
        for f in self.subformulas():
            if isinstance(f, _AgentModal):
                names.add(f.agent)
            elif isinstance(f, _GroupModal):
                names.update(f.group)
        return frozenset(names)

    def variables(self) -> frozenset[str]:
        """The ``?variables`` that occur as predicate arguments.

        >>> sorted(has("A", "?card").variables())
        ['?card']
        """
        return frozenset(
            arg for atom in self.atoms() for arg in atom.arguments if arg.startswith("?")
        )

    def substitute(self, bindings: Mapping[str, str]) -> Formula:
        """Replace predicate arguments (typically ``?variables``) by the bound names.

        >>> str(K("A", has("B", "?c")).substitute({"?c": "Q♥"}))
        'K_A has(B, Q♥)'
        """
        if not bindings:
            return self

        def rebuild(node: Formula, children: list[Formula]) -> Formula:
            if isinstance(node, Atom):
                return node._substitute(bindings)
            return node.rebuild(children)

        return self.fold(rebuild)

    def rebuild(self, children: Sequence[Formula]) -> Formula:
        """The same node over new children (itself when they are the same objects): what
        a :meth:`fold` that rewrites some parts returns for the others.

        >>> from kwartet_epistemic.logic import parse
        >>> str(parse("K_A p").rebuild([parse("q")]))
        'K_A q'
        """
        return self

    def modal_depth(self) -> int:
        """The greatest nesting of knowledge operators.

        >>> from kwartet_epistemic.logic import parse
        >>> parse("K_A (p & M_B K_A q)").modal_depth()
        3
        """
        return self.fold(
            lambda node, depths: (
                max(depths, default=0) + (1 if isinstance(node, _AgentModal | _GroupModal) else 0)
            )
        )

    def size(self) -> int:
        """The number of nodes of the formula as a tree.

        >>> (Atom("p") >> K("A", Atom("p"))).size()
        4
        """
        return self.fold(lambda node, sizes: 1 + sum(sizes))

    def __str__(self) -> str:
        return _checked_text(self.fold(lambda node, texts: node._text_from(texts)), "text")

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled and copied as a flat list of nodes, children first: the default (one
        # nested state per node) recursed once per level, and it kept the hash, which
        # differs between processes (string hashing is salted).
        return (_from_nodes, (_to_nodes(self),))

    def __repr__(self) -> str:
        def show(node: Formula, child_reprs: list[_Rope]) -> _Rope:
            by_id = {id(child): text for child, text in zip(node.args, child_reprs, strict=True)}
            parts: list[_Rope] = [f"{type(node).__name__}("]
            for attribute in fields(node):
                if attribute.repr:
                    value = getattr(node, attribute.name)
                    shown = by_id[id(value)] if isinstance(value, Formula) else repr(value)
                    parts += [", " if len(parts) > 1 else "", f"{attribute.name}=", shown]
            return (*parts, ")")

        rope = self.fold(show)
        length = _rope_length(rope)
        if length <= FORMULA_PRINT_LIMIT:
            return _join_rope(rope)
        head = _join_rope(rope, 1000)
        return f"{head}... <a formula of {length:,} characters in all>"

    def _text_from(self, texts: list[_Rope]) -> _Rope:
        raise NotImplementedError  # pragma: no cover - every node overrides it

    def _latex_from(self, texts: list[_Rope]) -> _Rope:
        raise NotImplementedError  # pragma: no cover - every node overrides it

    def to_latex(self) -> str:
        r"""LaTeX math for the formula (without dollar signs).

        >>> K("A", has("B", "Q♥")).to_latex()
        'K_{A}\\,\\mathit{has}(B, Q\\heartsuit)'
        """
        return _checked_text(self.fold(lambda node, texts: node._latex_from(texts)), "LaTeX")

    def _repr_latex_(self) -> str | None:
        """The formula in Jupyter as typeset math; None (the text is shown) when its
        LaTeX is longer than a page, which MathJax would take minutes to typeset."""
        rope = self.fold(lambda node, texts: node._latex_from(texts))
        if _rope_length(rope) > _DISPLAY_LIMIT:
            return None
        return f"${_join_rope(rope)}$"

    def to_sympy(self) -> sympy.logic.boolalg.Boolean:
        """The propositional formula as a sympy Boolean; atoms become sympy Symbols.

        Chains of ``&`` and of ``|`` become one n-ary sympy ``And`` or ``Or``.  Raises
        :class:`NotPropositionalError` on knowledge or announcement operators, and
        :class:`FormulaTooLargeError` when the result would nest deeper than
        :data:`SYMPY_DEPTH_LIMIT` (sympy itself recurses once per level).

        >>> (Atom("p") >> Atom("q")).to_sympy()
        Implies(p, q)
        >>> conjunction(Atom(f"p{i}") for i in range(4)).to_sympy()
        p0 & p1 & p2 & p3
        """
        import sympy

        modal = next((f for f in self.subformulas() if f.precedence == _PREC_UNARY), None)
        if modal is not None and not isinstance(modal, Not):
            raise NotPropositionalError(
                f"{type(modal).__name__} in {formula_excerpt(modal)!r} has no propositional "
                "(sympy) meaning; expected only atoms, top, bot, ~, &, |, ->, <->"
            )
        # Operands of each node, with chains of one associative operator flattened.
        operands: dict[int, tuple[Formula, ...]] = {}
        depths: dict[int, int] = {}
        values: dict[int, Any] = {}
        for building in (False, True):  # depths first: refuse before any sympy work
            if building and depths[id(self)] > SYMPY_DEPTH_LIMIT:
                raise FormulaTooLargeError(
                    f"the formula {formula_excerpt(self)!r} nests {depths[id(self)]:,} deep; "
                    f"to_sympy takes at most {SYMPY_DEPTH_LIMIT} levels (SYMPY_DEPTH_LIMIT), "
                    "as sympy recurses once per level"
                )
            stack: list[Formula] = [self]
            done = values if building else depths
            while stack:
                node = stack[-1]
                if id(node) in done:
                    stack.pop()
                    continue
                parts = operands.get(id(node))
                if parts is None:
                    parts = operands[id(node)] = _chain_operands(node)
                waiting = [part for part in parts if id(part) not in done]
                if waiting:
                    stack.extend(waiting)
                    continue
                stack.pop()
                if not building:
                    depths[id(node)] = 1 + max((depths[id(part)] for part in parts), default=0)
                    continue
                try:
                    values[id(node)] = node._sympy_node([values[id(p)] for p in parts], sympy)
                except RecursionError:  # the caller's own stack was deep already
                    raise FormulaTooLargeError(
                        f"sympy ran out of Python stack converting {formula_excerpt(self)!r}"
                        f" ({depths[id(self)]} levels)"
                    ) from None
        return values[id(self)]

    def _sympy_node(self, children: list[Any], sympy: Any) -> Any:
        raise NotPropositionalError(
            f"{type(self).__name__} in {formula_excerpt(self)!r} has no propositional "
            "(sympy) meaning; expected only atoms, top, bot, ~, &, |, ->, <->"
        )


def _chain_operands(node: Formula) -> tuple[Formula, ...]:
    """The operands of a chain of ``&`` (or of ``|``) under ``node``, left to right; a
    node's own children otherwise."""
    kind = type(node)
    if kind is not And and kind is not Or:
        return node.args
    found: list[Formula] = []
    stack: list[Formula] = [node]
    while stack:
        part = stack.pop()
        if type(part) is kind:
            stack.extend(reversed(part.args))
        else:
            found.append(part)
    return tuple(found)


_NodeRow = tuple[type, tuple[tuple[str, object], ...], tuple[tuple[str, int], ...]]


def _to_nodes(root: Formula) -> list[_NodeRow]:
    """The formula as rows (class, plain fields, formula fields by row number), each
    distinct node object once and after its children."""
    rows: list[_NodeRow] = []

    def row(node: Formula, children: list[int]) -> int:
        numbers = {id(child): number for child, number in zip(node.args, children, strict=True)}
        plain, nested = [], []
        for name in _field_names(type(node)):
            value = getattr(node, name)
            if isinstance(value, Formula):
                nested.append((name, numbers[id(value)]))
            else:
                plain.append((name, value))
        rows.append((type(node), tuple(plain), tuple(nested)))
        return len(rows) - 1

    root.fold(row)
    return rows


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _field_names(kind: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(kind) if f.name != "_hash")
    return names


def _from_nodes(rows: Sequence[_NodeRow]) -> Formula:
    """The formula of :func:`_to_nodes`' rows (the last row is the root)."""
    built: list[Formula] = []
    for kind, plain, nested in rows:
        if not (isinstance(kind, type) and issubclass(kind, Formula)):
            raise FormulaSyntaxError(f"not a formula node: {kind!r}", str(kind), 0)
        arguments: dict[str, object] = dict(plain)
        arguments.update((name, built[number]) for name, number in nested)
        built.append(kind(**arguments))
    return built[-1]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Top(Formula):
    """The formula that is always true (``top`` or ``⊤``).

    >>> str(Top()), Top() == Top(), Top()
    ('top', True, Top())
    """

    def _text_from(self, texts: list[_Rope]) -> _Rope:
        return "top"

    def _latex_from(self, texts: list[_Rope]) -> _Rope:
        return r"\top"

    def _sympy_node(self, children: list[Any], sympy: Any) -> Any:
        return sympy.true


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Bottom(Formula):
    """The formula that is always false (``bot`` or ``⊥``).

    >>> str(Bottom())
    'bot'
    """

    def _text_from(self, texts: list[_Rope]) -> _Rope:
        return "bot"

    def _latex_from(self, texts: list[_Rope]) -> _Rope:
        return r"\bot"

    def _sympy_node(self, children: list[Any], sympy: Any) -> Any:
        return sympy.false


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Atom(Formula):
    """A proposition letter: a plain name (``p``, ``m3``) or a predicate ``has(B, Q♥)``.

    The name is stored in canonical form, with ``", "`` between arguments, so that
    differently spaced spellings are the same atom.  Plain names are identifiers other
    than ``top``, ``bot`` and the modal prefixes (``K_``, ``M_``, ``Kw_``, ``E_``, ``C_``,
    ``D_``); arguments may hold card symbols and ``?variables`` but not ``( ) ,``.

    >>> a = Atom("has(B,QH)")
    >>> a.name, a.predicate, a.arguments
    ('has(B, QH)', 'has', ('B', 'QH'))
    >>> Atom("p").predicate, Atom("p").arguments
    (None, ())
    """

    name: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _canonical_atom_name(self.name))
        self._seal()

    def _label(self) -> tuple[object, ...]:
        return (self.name,)

    @property
    def predicate(self) -> str | None:
        """The predicate name of ``pred(args)`` atoms, ``None`` for plain names."""
        opening = self.name.find("(")
        return None if opening < 0 else self.name[:opening]

    @property
    def arguments(self) -> tuple[str, ...]:
        """The arguments of a predicate atom (``()`` for plain names)."""
        opening = self.name.find("(")
        return () if opening < 0 else tuple(self.name[opening + 1 : -1].split(", "))

    def _substitute(self, bindings: Mapping[str, str]) -> Atom:
        arguments = self.arguments
        if not any(arg in bindings for arg in arguments):
            return self
        new = ", ".join(str(bindings.get(arg, arg)) for arg in arguments)
        return Atom(f"{self.predicate}({new})")

    def _text_from(self, texts: list[_Rope]) -> _Rope:
        return self.name

    def _latex_from(self, texts: list[_Rope]) -> _Rope:
        predicate = self.predicate
        if predicate is None:
            return _latex_name(self.name)
        arguments = ", ".join(_latex_argument(arg) for arg in self.arguments)
        return f"{_latex_name(predicate)}({arguments})"

    def _sympy_node(self, children: list[Any], sympy: Any) -> Any:
        return sympy.Symbol(self.name)


def _canonical_atom_name(name: object) -> str:
    if not isinstance(name, str):
        raise FormulaSyntaxError(
            f"atom name {name!r} is not a string: expected e.g. 'p' or 'has(B, QH)'", str(name), 0
        )
    text = name.strip()
    opening = text.find("(")
    word = text if opening < 0 else text[:opening]
    if not is_atom_identifier(word):
        raise FormulaSyntaxError(
            f"bad atom name {name!r}: expected an identifier such as 'p' or 'muddy3', or a "
            "predicate such as 'has(B, QH)' (not 'top', 'bot' or a modal prefix like 'K_')",
            name,
            0,
        )
    if opening < 0:
        return word
    if not text.endswith(")"):
        raise FormulaSyntaxError(
            f"bad atom name {name!r}: expected ')' at the end of the arguments", name, len(name)
        )
    arguments = [normalize_argument(arg, name) for arg in text[opening + 1 : -1].split(",")]
    return f"{word}({', '.join(arguments)})"


def has(player: object, card: object) -> Atom:
    """The game atom ``has(player, card)``: card is in the player's hand now.

    >>> has("B", "Q♥")
    Atom(name='has(B, Q♥)')
    """
    return Atom(f"has({player}, {card})")


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Not(Formula):
    """Negation ``~φ`` (also ``¬φ``).

    >>> str(~(Atom("p") & Atom("q")))
    '~(p & q)'
    """

    operand: Formula
    precedence: ClassVar[int] = _PREC_UNARY

    def __post_init__(self) -> None:
        _check_formula(self.operand, "the operand of Not")
        self._seal()

    @property
    def args(self) -> tuple[Formula, ...]:
        return (self.operand,)

    def rebuild(self, children: Sequence[Formula]) -> Formula:
        return self if children[0] is self.operand else Not(children[0])

    def _text_from(self, texts: list[_Rope]) -> _Rope:
        return ("~", _wrap(self.operand, texts[0], _PREC_UNARY))

    def _latex_from(self, texts: list[_Rope]) -> _Rope:
        return (r"\neg ", _wrap_latex(self.operand, texts[0], _PREC_UNARY))

    def _sympy_node(self, children: list[Any], sympy: Any) -> Any:
        return sympy.Not(children[0])


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class _Binary(Formula):
    left: Formula
    right: Formula
    _symbol: ClassVar[str] = ""
    _latex_symbol: ClassVar[str] = ""
    # Minimal precedence of each side: left-associative operators accept their own
    # precedence on the left, right-associative ones on the right.
    _left_minimum: ClassVar[int] = 0
    _right_minimum: ClassVar[int] = 0

    def __post_init__(self) -> None:
        _check_formula(self.left, f"the left operand of {type(self).__name__}")
        _check_formula(self.right, f"the right operand of {type(self).__name__}")
        self._seal()

    @property
    def args(self) -> tuple[Formula, ...]:
        return (self.left, self.right)

    def rebuild(self, children: Sequence[Formula]) -> Formula:
        if children[0] is self.left and children[1] is self.right:
            return self
        return type(self)(children[0], children[1])

    def _text_from(self, texts: list[_Rope]) -> _Rope:
        left = _wrap(self.left, texts[0], self._left_minimum)
        right = _wrap(self.right, texts[1], self._right_minimum)
        return (left, f" {self._symbol} ", right)

    def _latex_from(self, texts: list[_Rope]) -> _Rope:
        left = _wrap_latex(self.left, texts[0], self._left_minimum)
        right = _wrap_latex(self.right, texts[1], self._right_minimum)
        return (left, f" {self._latex_symbol} ", right)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class And(_Binary):
    """Conjunction ``φ & ψ`` (also ``∧``); left-associative.

    >>> p, q, r = Atom("p"), Atom("q"), Atom("r")
    >>> str(p & q & r), str(p & (q & r))
    ('p & q & r', 'p & (q & r)')
    """

    precedence: ClassVar[int] = _PREC_AND
    _symbol: ClassVar[str] = "&"
    _latex_symbol: ClassVar[str] = r"\land"
    _left_minimum: ClassVar[int] = _PREC_AND
    _right_minimum: ClassVar[int] = _PREC_AND + 1

    def _sympy_node(self, children: list[Any], sympy: Any) -> Any:
        return sympy.And(*children)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Or(_Binary):
    """Disjunction ``φ | ψ`` (also ``∨``); left-associative, binds weaker than ``&``.

    >>> p, q, r = Atom("p"), Atom("q"), Atom("r")
    >>> str((p | q) & r), str(p | q & r)
    ('(p | q) & r', 'p | q & r')
    """

    precedence: ClassVar[int] = _PREC_OR
    _symbol: ClassVar[str] = "|"
    _latex_symbol: ClassVar[str] = r"\lor"
    _left_minimum: ClassVar[int] = _PREC_OR
    _right_minimum: ClassVar[int] = _PREC_OR + 1

    def _sympy_node(self, children: list[Any], sympy: Any) -> Any:
        return sympy.Or(*children)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Implies(_Binary):
    """Implication ``φ -> ψ`` (also ``→``); right-associative.

    >>> p, q, r = Atom("p"), Atom("q"), Atom("r")
    >>> str(p >> (q >> r)), str((p >> q) >> r)
    ('p -> q -> r', '(p -> q) -> r')
    """

    precedence: ClassVar[int] = _PREC_IMPLIES
    _symbol: ClassVar[str] = "->"
    _latex_symbol: ClassVar[str] = r"\rightarrow"
    _left_minimum: ClassVar[int] = _PREC_IMPLIES + 1
    _right_minimum: ClassVar[int] = _PREC_IMPLIES

    def _sympy_node(self, children: list[Any], sympy: Any) -> Any:
        return sympy.Implies(*children)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Iff(_Binary):
    """Equivalence ``φ <-> ψ`` (also ``↔``); left-associative, binds weakest.

    >>> p, q = Atom("p"), Atom("q")
    >>> str(Iff(p >> q, ~q >> ~p))
    'p -> q <-> ~q -> ~p'
    """

    precedence: ClassVar[int] = _PREC_IFF
    _symbol: ClassVar[str] = "<->"
    _latex_symbol: ClassVar[str] = r"\leftrightarrow"
    _left_minimum: ClassVar[int] = _PREC_IFF
    _right_minimum: ClassVar[int] = _PREC_IFF + 1

    def _sympy_node(self, children: list[Any], sympy: Any) -> Any:
        return sympy.Equivalent(*children)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class _AgentModal(Formula):
    agent: str
    operand: Formula
    precedence: ClassVar[int] = _PREC_UNARY
    _keyword: ClassVar[str] = ""
    _latex_keyword: ClassVar[str] = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "agent", check_agent(self.agent))
        _check_formula(self.operand, f"the operand of {type(self).__name__}")
        self._seal()

    def _label(self) -> tuple[object, ...]:
        return (self.agent,)

    @property
    def args(self) -> tuple[Formula, ...]:
        return (self.operand,)

    def rebuild(self, children: Sequence[Formula]) -> Formula:
        return self if children[0] is self.operand else type(self)(self.agent, children[0])

    def _text_from(self, texts: list[_Rope]) -> _Rope:
        return (f"{self._keyword}_{self.agent} ", _wrap(self.operand, texts[0], _PREC_UNARY))

    def _latex_from(self, texts: list[_Rope]) -> _Rope:
        operand = _wrap_latex(self.operand, texts[0], _PREC_UNARY)
        return (rf"{self._latex_keyword}_{{{_latex_text(self.agent)}}}\,", operand)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class K(_AgentModal):
    """``K_a φ``: agent a knows φ (φ holds in every world a cannot tell apart).

    >>> str(K("A", Atom("p"))), str(K(1, ~Atom("m1")))
    ('K_A p', 'K_1 ~m1')
    """

    _keyword: ClassVar[str] = "K"
    _latex_keyword: ClassVar[str] = "K"


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class M(_AgentModal):
    """``M_a φ``: agent a considers φ possible (``~K_a ~φ``).

    >>> str(M("A", Atom("p")))
    'M_A p'
    """

    _keyword: ClassVar[str] = "M"
    _latex_keyword: ClassVar[str] = "M"


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Kw(_AgentModal):
    """``Kw_a φ``: agent a knows whether φ (``K_a φ | K_a ~φ``).

    >>> str(Kw("2", Atom("m2")))
    'Kw_2 m2'
    """

    _keyword: ClassVar[str] = "Kw"
    _latex_keyword: ClassVar[str] = r"\mathit{Kw}"


def _natural_key(agent: str) -> tuple[list[Any], str]:
    """Sort key of an agent name with its numbers compared as numbers ("2" before "10"),
    then the name itself, so that names the numbers alone do not tell apart ("0", "00")
    still have one order whatever order they came in.

    >>> sorted(["W", "00", "10", "0", "2"], key=_natural_key)
    ['0', '00', '2', '10', 'W']
    """
    return [int(t) if k % 2 else t for k, t in enumerate(re.split(r"(\d+)", agent))], agent


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class _GroupModal(Formula):
    group: tuple[str, ...]
    operand: Formula
    precedence: ClassVar[int] = _PREC_UNARY
    _keyword: ClassVar[str] = ""

    def __init__(self, group: Iterable[str] | str, operand: Formula) -> None:
        # A lone string is one agent, not the sequence of its characters.
        if isinstance(group, str | int):
            members: tuple[object, ...] = (group,)
        else:
            try:
                members = tuple(group)
            except TypeError:
                raise FormulaTypeError(
                    f"group {reprlib.repr(group)} of {type(self).__name__}: expected an agent "
                    "name or a collection of them, such as ['A', 'B']"
                ) from None
        if not members:
            raise FormulaSyntaxError(
                f"empty group in {type(self).__name__}: expected at least one agent", "", 0
            )
        # A group is a set: its members once each, in a fixed (natural) order, so that
        # C_{B,A} p and C_{A,B} p are the same formula.
        agents = {check_agent(a) for a in members}
        object.__setattr__(self, "group", tuple(sorted(agents, key=_natural_key)))
        object.__setattr__(
            self, "operand", _check_formula(operand, f"the operand of {type(self).__name__}")
        )
        self._seal()

    def _label(self) -> tuple[object, ...]:
        return self.group

    @property
    def args(self) -> tuple[Formula, ...]:
        return (self.operand,)

    def rebuild(self, children: Sequence[Formula]) -> Formula:
        return self if children[0] is self.operand else type(self)(self.group, children[0])

    def _text_from(self, texts: list[_Rope]) -> _Rope:
        operand = _wrap(self.operand, texts[0], _PREC_UNARY)
        return (f"{self._keyword}_{{{','.join(self.group)}}} ", operand)

    def _latex_from(self, texts: list[_Rope]) -> _Rope:
        group = ",".join(_latex_text(a) for a in self.group)
        operand = _wrap_latex(self.operand, texts[0], _PREC_UNARY)
        return (rf"{self._keyword}_{{{group}}}\,", operand)


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class E(_GroupModal):
    """``E_G φ``: everybody in group G knows φ.

    >>> str(E(["A", "B"], Atom("p"))), E("A", Atom("p")).group
    ('E_{A,B} p', ('A',))
    """

    _keyword: ClassVar[str] = "E"


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class C(_GroupModal):
    """``C_G φ``: φ is common knowledge in group G.

    >>> str(C(("A", "B", "C"), Atom("p")))
    'C_{A,B,C} p'
    >>> C(["B", "A", "B"], Atom("p")) == C(["A", "B"], Atom("p"))  # a group is a set
    True
    """

    _keyword: ClassVar[str] = "C"


@dataclass(frozen=True, slots=True, eq=False, repr=False, init=False)
class D(_GroupModal):
    """``D_G φ``: φ is distributed knowledge in group G (pooling what they know).

    >>> str(D(("A", "B"), Atom("p")))
    'D_{A,B} p'
    """

    _keyword: ClassVar[str] = "D"


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class _Dynamic(Formula):
    announced: Formula
    operand: Formula
    precedence: ClassVar[int] = _PREC_UNARY
    _opening: ClassVar[str] = ""
    _closing: ClassVar[str] = ""
    _latex_opening: ClassVar[str] = ""
    _latex_closing: ClassVar[str] = ""

    def __post_init__(self) -> None:
        _check_formula(self.announced, f"the announced formula of {type(self).__name__}")
        _check_formula(self.operand, f"the operand of {type(self).__name__}")
        self._seal()

    @property
    def args(self) -> tuple[Formula, ...]:
        return (self.announced, self.operand)

    def rebuild(self, children: Sequence[Formula]) -> Formula:
        if children[0] is self.announced and children[1] is self.operand:
            return self
        return type(self)(children[0], children[1])

    def _text_from(self, texts: list[_Rope]) -> _Rope:
        operand = _wrap(self.operand, texts[1], _PREC_UNARY)
        return (f"{self._opening}!", texts[0], self._closing, operand)

    def _latex_from(self, texts: list[_Rope]) -> _Rope:
        operand = _wrap_latex(self.operand, texts[1], _PREC_UNARY)
        return (rf"{self._latex_opening} !", texts[0], rf"{self._latex_closing}\,", operand)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Announce(_Dynamic):
    """``[!φ]ψ``: after every truthful public announcement of φ, ψ holds.

    >>> str(Announce(Atom("p"), K("A", Atom("p"))))
    '[!p]K_A p'
    """

    _opening: ClassVar[str] = "["
    _closing: ClassVar[str] = "]"
    _latex_opening: ClassVar[str] = "["
    _latex_closing: ClassVar[str] = "]"


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class AnnounceDual(_Dynamic):
    """``<!φ>ψ``: φ is true and after its public announcement ψ holds.

    >>> str(AnnounceDual(Atom("p") & Atom("q"), Atom("r")))
    '<!p & q>r'
    """

    _opening: ClassVar[str] = "<"
    _closing: ClassVar[str] = ">"
    _latex_opening: ClassVar[str] = r"\langle"
    _latex_closing: ClassVar[str] = r"\rangle"


def conjunction(formulas: Iterable[Formula]) -> Formula:
    """The left-nested conjunction of the formulas; ``Top()`` when there are none.

    >>> str(conjunction([Atom("p"), Atom("q"), Atom("r")])), conjunction([])
    ('p & q & r', Top())
    """
    result: Formula | None = None
    for f in _formulas_of(formulas, "conjunction"):
        result = f if result is None else And(result, f)
    return Top() if result is None else result


def disjunction(formulas: Iterable[Formula]) -> Formula:
    """The left-nested disjunction of the formulas; ``Bottom()`` when there are none.

    >>> str(disjunction([Atom("p"), Atom("q")])), disjunction([])
    ('p | q', Bottom())
    """
    result: Formula | None = None
    for f in _formulas_of(formulas, "disjunction"):
        result = f if result is None else Or(result, f)
    return Bottom() if result is None else result


def _formulas_of(formulas: Iterable[Formula], caller: str) -> Iterator[Formula]:
    try:
        items = iter(formulas)
    except TypeError:
        raise FormulaTypeError(
            f"{caller}({reprlib.repr(formulas)}): expected an iterable of formulas"
        ) from None
    for f in items:
        yield _check_formula(f, f"every formula given to {caller}")


#: What every ``formula`` argument of the library takes: a :class:`Formula`, or its text
#: (``"K_A has(C, 7H)"``), read by :func:`kwartet_epistemic.logic.parse`.
FormulaLike = Formula | str
