"""The text syntax of formulas: a hand-written parser (never ``eval``).

Grammar, from weakest to tightest binding::

    φ <-> ψ        left-associative            also ↔
    φ -> ψ         right-associative           also →
    φ | ψ          left-associative            also ∨
    φ & ψ          left-associative            also ∧
    ~φ  K_a φ  M_a φ  Kw_a φ  E_{a,b} φ  C_{a,b} φ  D_{a,b} φ  [!φ]ψ  <!φ>ψ
                   prefix operators             also ¬ and ⟨!φ⟩ψ
    p  muddy3  has(B, Q♥)  top  bot  (φ)        also ⊤ ⊥

The parser is an operator-precedence (shunting-yard) loop with explicit stacks, so
deeply nested formulas need no recursion and every malformed text raises
:class:`~kwartet_epistemic.errors.FormulaSyntaxError` with the position and what was
expected there.

>>> str(parse("K_A has(B,QH) ∧ ¬p → [!q]C_{A,B} r"))
'K_A has(B, QH) & ~p -> [!q]C_{A,B} r'
>>> parse("p &")
Traceback (most recent call last):
...
kwartet_epistemic.errors.FormulaSyntaxError: expected a formula (...) at position 3, found ...
"""

from __future__ import annotations

import re
import reprlib
from dataclasses import dataclass
from typing import Literal

from kwartet_epistemic.errors import FormulaSyntaxError
from kwartet_epistemic.logic.formula import (
    FORMULA_TEXT_LIMIT,
    MODAL_PREFIX,
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
    Or,
    Top,
    normalize_argument,
)

__all__ = ["as_formula", "parse"]

_WORD = re.compile(r"[^\W\d]\w*")
_AGENT = re.compile(r"\w+")
_EXPECTED_FORMULA = "a formula (an atom, top, bot, '~', a modal operator, '(', '[!' or '<!')"
_EXPECTED_OPERATOR = "an operator ('&', '|', '->', '<->') or the end of the text"

_BINARY_PRECEDENCE = {"&": 4, "|": 3, "->": 2, "<->": 1}
_RIGHT_ASSOCIATIVE = frozenset({"->"})
_BINARY_NODE: dict[str, type[And | Or | Implies | Iff]] = {
    "&": And,
    "|": Or,
    "->": Implies,
    "<->": Iff,
}
_AGENT_MODALS: dict[str, type[K | M | Kw]] = {"K": K, "M": M, "Kw": Kw}
_GROUP_MODALS: dict[str, type[E | C | D]] = {"E": E, "C": C, "D": D}

TokenKind = Literal["formula", "prefix", "binary", "(", ")", "[!", "]", "<!", ">", "end"]

_SIMPLE_TOKENS: dict[str, tuple[TokenKind, object]] = {
    "~": ("prefix", Not),
    "¬": ("prefix", Not),
    "&": ("binary", "&"),
    "∧": ("binary", "&"),
    "|": ("binary", "|"),
    "∨": ("binary", "|"),
    "→": ("binary", "->"),
    "↔": ("binary", "<->"),
    "(": ("(", None),
    ")": (")", None),
    "]": ("]", None),
    ">": (">", None),
    "⟩": (">", None),
    "⊤": ("formula", Top()),
    "⊥": ("formula", Bottom()),
}


@dataclass(frozen=True, slots=True)
class _Token:
    kind: TokenKind
    position: int
    text: str  # as written, for messages
    value: object = None  # a Formula, a binary symbol, or a prefix builder


def _error(text: str, position: int, problem: str) -> FormulaSyntaxError:
    message = f"{problem}\n  {text}\n  {' ' * position}^"
    return FormulaSyntaxError(message, text, position)


def _expected(text: str, token: _Token, what: str) -> FormulaSyntaxError:
    found = "the end of the text" if token.kind == "end" else repr(token.text)
    return _error(
        text, token.position, f"expected {what} at position {token.position}, found {found}"
    )


class _Lexer:
    """Splits text into tokens; atoms and modal operators become whole tokens."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.position = 0

    def _skip_space(self) -> None:
        while self.position < len(self.text) and self.text[self.position].isspace():
            self.position += 1

    def _fail(self, position: int, problem: str) -> FormulaSyntaxError:
        return _error(self.text, position, problem)

    def next(self) -> _Token:
        self._skip_space()
        text, start = self.text, self.position
        if start >= len(text):
            return _Token("end", start, "")
        ch = text[start]
        self.position = start + 1
        if ch in _SIMPLE_TOKENS:
            kind, value = _SIMPLE_TOKENS[ch]
            return _Token(kind, start, ch, value)
        if ch == "-":
            if text.startswith(">", self.position):
                self.position += 1
                return _Token("binary", start, "->", "->")
            raise self._fail(start, f"expected '->' at position {start}, found '-'")
        if ch == "<":
            if text.startswith("->", self.position):
                self.position += 2
                return _Token("binary", start, "<->", "<->")
            return self._bang(start, "<!", "'<->' or '<!'")
        if ch == "⟨":
            return self._bang(start, "<!", "'!' after '⟨'")
        if ch == "[":
            return self._bang(start, "[!", "'!' after '['")
        word_match = _WORD.match(text, start)
        if word_match is None:
            raise self._fail(
                start,
                f"unexpected character {ch!r} at position {start}",
            )
        word = word_match.group()
        self.position = word_match.end()
        if word == "top":
            return _Token("formula", start, word, Top())
        if word == "bot":
            return _Token("formula", start, word, Bottom())
        modal = MODAL_PREFIX.match(word)
        if modal is not None:
            return self._modal(start, modal.group(1), word[modal.end() :])
        if text.startswith("(", self.position):
            return self._predicate(start, word)
        return _Token("formula", start, word, Atom(word))

    def _bang(self, start: int, kind: Literal["[!", "<!"], expected: str) -> _Token:
        self._skip_space()
        if self.text.startswith("!", self.position):
            self.position += 1
            return _Token(kind, start, self.text[start : self.position])
        raise self._fail(start, f"expected {expected} at position {start}")

    def _agent(self) -> str:
        self._skip_space()
        match = _AGENT.match(self.text, self.position)
        if match is None:
            raise self._fail(
                self.position,
                f"expected an agent name (letters, digits, '_') at position {self.position}",
            )
        self.position = match.end()
        return match.group()

    def _modal(self, start: int, keyword: str, written_agent: str) -> _Token:
        if written_agent:
            agents = [written_agent]
        else:
            self._skip_space()
            if not self.text.startswith("{", self.position):
                raise self._fail(
                    self.position,
                    f"expected an agent or '{{' after '{keyword}_' at position {self.position}",
                )
            self.position += 1
            agents = [self._agent()]
            self._skip_space()
            while self.text.startswith(",", self.position):
                self.position += 1
                agents.append(self._agent())
                self._skip_space()
            if not self.text.startswith("}", self.position):
                raise self._fail(
                    self.position,
                    f"expected ',' or '}}' in the agent list at position {self.position}",
                )
            self.position += 1
        written = self.text[start : self.position]
        if keyword in _AGENT_MODALS:
            if len(agents) != 1:
                raise self._fail(
                    start, f"'{keyword}' takes one agent, got {len(agents)} in {written!r}"
                )
            agent_builder = _AGENT_MODALS[keyword]
            agent = agents[0]
            return _Token("prefix", start, written, lambda f: agent_builder(agent, f))
        group_builder = _GROUP_MODALS[keyword]
        group = tuple(agents)
        return _Token("prefix", start, written, lambda f: group_builder(group, f))

    def _predicate(self, start: int, word: str) -> _Token:
        closing = self.position + 1
        while closing < len(self.text) and self.text[closing] not in "()":
            closing += 1
        if closing >= len(self.text) or self.text[closing] != ")":
            raise self._fail(
                closing,
                f"expected ')' closing the arguments of {word!r} at position {closing}",
            )
        written = self.text[start : closing + 1]
        arguments = []
        offset = self.position + 1
        for raw in self.text[self.position + 1 : closing].split(","):
            try:
                arguments.append(normalize_argument(raw, written))
            except FormulaSyntaxError as error:
                raise self._fail(offset, f"{error.args[0]} (at position {offset})") from None
            offset += len(raw) + 1
        self.position = closing + 1
        return _Token("formula", start, written, Atom(f"{word}({', '.join(arguments)})"))


@dataclass(slots=True)
class _Pending:
    """An entry of the operator stack."""

    kind: Literal["prefix", "binary", "(", "[!", "<!"]
    token: _Token
    builder: object = None  # a prefix builder, or the binary symbol


def _apply(entry: _Pending, operands: list[Formula]) -> None:
    if entry.kind == "prefix":
        operand = operands.pop()
        operands.append(entry.builder(operand))  # type: ignore[operator]
    else:
        right = operands.pop()
        left = operands.pop()
        operands.append(_BINARY_NODE[str(entry.builder)](left, right))


def parse(text: str) -> Formula:
    """Parse the text syntax into a :class:`Formula`.

    Any nesting depth is read (no recursion); text longer than
    :data:`~kwartet_epistemic.logic.formula.FORMULA_TEXT_LIMIT` characters is refused
    with :class:`~kwartet_epistemic.logic.formula.FormulaTooLargeError`.

    >>> parse("p -> q -> r") == parse("p -> (q -> r)")
    True
    >>> parse("⟨!p⟩ K_1 p") == parse("<!p>K_1 p")
    True
    >>> parse("~" * 100_000 + "p").size()
    100001
    """
    if not isinstance(text, str):
        raise FormulaTypeError(
            f"parse expects a str, got {reprlib.repr(text)} of type {type(text).__name__}"
        )
    if len(text) > FORMULA_TEXT_LIMIT:
        raise FormulaTooLargeError(
            f"formula text beginning {text[:40]!r} is {len(text):,} characters long; the "
            f"limit is {FORMULA_TEXT_LIMIT:,} (FORMULA_TEXT_LIMIT): build larger formulas "
            "with the constructors (And, conjunction, ...)"
        )
    lexer = _Lexer(text)
    operands: list[Formula] = []
    pending: list[_Pending] = []
    expecting_formula = True
    closers = {")": "(", "]": "[!", ">": "<!"}
    while True:
        token = lexer.next()
        if expecting_formula:
            if token.kind == "formula":
                operands.append(token.value)  # type: ignore[arg-type]
                expecting_formula = False
            elif token.kind in ("prefix", "(", "[!", "<!"):
                pending.append(_Pending(token.kind, token, token.value))
            else:
                raise _expected(text, token, _EXPECTED_FORMULA)
            continue
        if token.kind == "binary":
            symbol = str(token.value)
            precedence = _BINARY_PRECEDENCE[symbol]
            while pending:
                top = pending[-1]
                if top.kind == "prefix":
                    _apply(pending.pop(), operands)
                    continue
                if top.kind != "binary":
                    break
                top_precedence = _BINARY_PRECEDENCE[str(top.builder)]
                if top_precedence > precedence or (
                    top_precedence == precedence and symbol not in _RIGHT_ASSOCIATIVE
                ):
                    _apply(pending.pop(), operands)
                    continue
                break
            pending.append(_Pending("binary", token, symbol))
            expecting_formula = True
        elif token.kind in closers:
            opener = closers[token.kind]
            while pending and pending[-1].kind in ("prefix", "binary"):
                _apply(pending.pop(), operands)
            if not pending or pending[-1].kind != opener:
                if pending:
                    raise _expected(text, token, _closer_expected(pending[-1]))
                raise _error(
                    text,
                    token.position,
                    f"unmatched {token.text!r} at position {token.position}: "
                    f"expected {_EXPECTED_OPERATOR}",
                )
            opening = pending.pop()
            if opener != "(":
                announced = operands.pop()
                node = Announce if opener == "[!" else AnnounceDual
                pending.append(
                    _Pending("prefix", opening.token, _announcement_builder(node, announced))
                )
                expecting_formula = True
        elif token.kind == "end":
            while pending and pending[-1].kind in ("prefix", "binary"):
                _apply(pending.pop(), operands)
            if pending:
                raise _expected(text, token, _closer_expected(pending[-1]))
            return operands[0]
        else:
            innermost = next(
                (entry for entry in reversed(pending) if entry.kind in closers.values()), None
            )
            expected = _EXPECTED_OPERATOR if innermost is None else _closer_expected(innermost)
            raise _expected(text, token, expected)


def _closer_expected(opening: _Pending) -> str:
    closer = {"(": "')'", "[!": "']'", "<!": "'>'"}[opening.kind]
    where = opening.token.position
    return f"an operator or {closer} (to close the {opening.token.text!r} at position {where})"


def _announcement_builder(node: type[Announce | AnnounceDual], announced: Formula) -> object:
    return lambda operand: node(announced, operand)


def as_formula(formula: Formula | str) -> Formula:
    """A formula given as a :class:`Formula` or as text.

    >>> as_formula("K_A p") == as_formula(K("A", Atom("p")))
    True
    """
    if isinstance(formula, Formula):
        return formula
    if isinstance(formula, str):
        return parse(formula)
    raise FormulaTypeError(
        f"expected a Formula or formula text, got {reprlib.repr(formula)} of type "
        f"{type(formula).__name__}"
    )
