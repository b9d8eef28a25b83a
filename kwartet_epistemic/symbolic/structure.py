"""Knowledge structures: S5 epistemic models as BDDs, in the style of SMCDEL.

A knowledge structure (van Benthem, van Eijck, Gattinger and Su, "Symbolic model
checking for dynamic epistemic logic", LORI 2015) is a vocabulary of atoms, a law (a
Boolean function whose models are the states) and, per agent, the atoms the agent
observes.  Two states are indistinguishable for an agent iff they agree on its
observed atoms.  Every formula denotes a BDD, so nothing ever loops over states:

- ``K_a φ`` is ``¬∃(atoms a does not observe)(law ∧ ¬φ)``, one relational product;
- ``D_G φ`` is the same with the unobserved sets intersected (observations pooled);
- ``Kw_a φ`` is ``K_a φ ∨ K_a ¬φ``, or ``¬∀x law`` when φ is the one atom x (or ¬x)
  that a does not observe;
- ``C_G φ`` is the greatest fixpoint of ``X = ⋀_{a∈G} K_a(φ ∧ X)``;
- ``[!φ]ψ`` is ``φ → ψ`` where ψ is evaluated under the law ``law ∧ φ``.

There are two layers.  :class:`BddKnowledgeStructure` works on any BDD encoding: the
caller gives the manager, the law, per agent the BDD variables it does *not* observe,
and a function from atoms to BDDs (so an atom such as ``has(B, QH)`` may be a formula
over binary owner bits).  :class:`KnowledgeStructure` is the textbook form built on
it: one BDD variable per atom, observations given as atoms.

>>> from kwartet_epistemic.logic import parse
>>> ks = KnowledgeStructure(["p", "q"], parse("p | q"), {"A": ["p"], "B": ["q"]})
>>> ks.count_states()
3
>>> ks.holds("K_A p", {"p"}), ks.holds("K_A q", {"p"}), ks.holds("K_A q", {"q"})
(True, False, True)
>>> ks.announce("p").is_valid("C_{A,B} p")
True
"""

from __future__ import annotations

import copy
import difflib
import functools
import os
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, Self, cast

from kwartet_epistemic._safejson import short
from kwartet_epistemic.errors import (
    FalseAnnouncementError,
    KwartetError,
    ModelError,
    ModelFileError,
    ModelTooLargeError,
)
from kwartet_epistemic.kripke import KripkeModel
from kwartet_epistemic.logic.formula import (
    And,
    Announce,
    AnnounceDual,
    Atom,
    Bottom,
    C,
    D,
    E,
    Formula,
    FormulaLike,
    Iff,
    Implies,
    K,
    Kw,
    M,
    Not,
    Or,
    Top,
    formula_excerpt,
)
from kwartet_epistemic.logic.parser import as_formula
from kwartet_epistemic.model_files import (
    KNOWLEDGE_STRUCTURE_FORMAT,
    MODEL_FILE_VERSION,
    check_model_data,
    dump_json,
    read_model_file,
    read_model_text,
    save_text,
)
from kwartet_epistemic.symbolic.backend import (
    SMALL_CACHE,
    and_exists_function,
    backend_of,
    exact_count,
    new_manager,
    plain_errors,
)
from kwartet_epistemic.symbolic.smcdel import export_structure

__all__ = [
    "BddKnowledgeStructure",
    "KnowledgeStructure",
    "UnknownAgentError",
    "UnknownAtomError",
    "cache_sizes",
]

# A BDD node of either backend (dd.cudd.Function or dd.autoref.Function).
Bdd = Any

_PROPOSITIONAL = (Top, Bottom, Atom, Not, And, Or, Implies, Iff)
# How many top-level truth sets a structure remembers (queries repeat a lot in loops).
_REMEMBERED_RESULTS = 256
# states() refuses to enumerate more than this many states.
_DEFAULT_STATE_LIMIT = 1_000_000


class UnknownAtomError(ModelError):
    """A formula or state names an atom that is not in the structure's vocabulary."""


class UnknownAgentError(ModelError):
    """A formula names an agent that the structure does not have."""


# Operation codes of compiled formulas, one per formula class.
_TOP, _BOTTOM, _ATOM, _NOT, _AND, _OR, _IMPLIES, _IFF = range(8)
_K, _M, _KW, _E, _D, _C, _ANNOUNCE, _ANNOUNCE_DUAL = range(8, 16)
_OPCODES: dict[type, int] = {
    Top: _TOP, Bottom: _BOTTOM, Atom: _ATOM, Not: _NOT, And: _AND, Or: _OR,
    Implies: _IMPLIES, Iff: _IFF, K: _K, M: _M, Kw: _KW, E: _E, D: _D, C: _C,
    Announce: _ANNOUNCE, AnnounceDual: _ANNOUNCE_DUAL,
}  # fmt: skip
# Per formula class, its fields that are not subformulas (an agent, a group, a name):
# with the numbers of its parts (``args``) they identify a node.
_EXTRA_FIELDS: dict[type, tuple[str, ...]] = {
    kind: tuple(
        f.name
        for f in fields(kind)
        if not f.name.startswith("_") and f.type not in ("Formula", Formula)
    )
    for kind in _OPCODES
}


class _FormulaTable:
    """Every distinct subformula met so far, numbered children first (hash-consing).

    ``nodes[i]`` is a representative of subformula i, ``opcodes[i]`` its operation,
    ``children[i]`` the numbers of its parts (in the order of ``args``), ``static[i]``
    whether it contains no announcement and ``agents[i]`` the agents it names.  Equal
    subtrees share a number, also across formulas: a part that many formulas share (a
    goal asked after many announcements, one side of many conjunctions) is translated
    once, and formula objects seen before are found by identity without a walk.

    Keys are shallow (a node's class, its other fields and its children's numbers),
    so numbering is linear even when equal subtrees are distinct objects, where
    comparing formulas structurally can cost far more.  The table keeps the formulas
    it has seen alive (so their ``id()`` stays theirs); :func:`_program_of` starts a
    new table when this one grows past ``_TABLE_LIMIT``.
    """

    def __init__(self) -> None:
        self.nodes: list[Formula] = []
        self.opcodes: list[int] = []
        self.children: list[tuple[int, ...]] = []
        self.static: list[bool] = []
        self.propositional: list[bool] = []
        self.agents: list[frozenset[str]] = []
        self.numbers: dict[int, tuple[Formula, int]] = {}  # id(node) -> (node, number)
        self.keys: dict[tuple[Any, ...], int] = {}
        self.segments: dict[int, tuple[int, ...]] = {}
        self.weight = 0  # numbers held in remembered segments

    def number(self, root: Formula) -> int:
        """The number of ``root``, numbering its new subformulas first (no recursion)."""
        numbers, keys = self.numbers, self.keys
        nodes, opcodes, children = self.nodes, self.opcodes, self.children
        static, agents = self.static, self.agents
        stack: list[tuple[Formula, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if id(node) in numbers:
                continue
            if not expanded:
                stack.append((node, True))
                stack.extend((child, False) for child in node.args if id(child) not in numbers)
                continue
            kind = type(node)
            opcode = _OPCODES.get(kind)
            if opcode is None:
                raise ModelError(f"unsupported formula type {kind.__name__}: {node!r}")
            parts = tuple([numbers[id(child)][1] for child in node.args])
            extras = _EXTRA_FIELDS[kind]
            key = (
                (opcode, parts)
                if not extras
                else (opcode, parts, *map(node.__getattribute__, extras))
            )
            number = keys.get(key)
            if number is None:
                number = keys[key] = len(nodes)
                nodes.append(node)
                opcodes.append(opcode)
                children.append(parts)
                static.append(opcode < _ANNOUNCE and all(static[part] for part in parts))
                self.propositional.append(
                    opcode <= _IFF and all(self.propositional[part] for part in parts)
                )
                agents.append(_agents_of(node, [agents[part] for part in parts]))
            numbers[id(node)] = (node, number)
        return numbers[id(root)][1]

    def segment(self, number: int) -> tuple[int, ...]:
        """Subformula ``number`` and its parts down to propositional ones, increasing.

        The insides of propositional parts are left out: their BDDs do not depend on
        the law, so they are computed once and looked up.
        """
        found = self.segments.get(number)
        if found is None:
            found = self.segments[number] = self._walk(number, self.propositional)
        return found

    def _walk(self, number: int, leaves: list[bool]) -> tuple[int, ...]:
        seen = {number}
        stack = [] if leaves[number] else [number]
        children = self.children
        while stack:
            for child in children[stack.pop()]:
                if child not in seen:
                    seen.add(child)
                    if not leaves[child]:
                        stack.append(child)
        self.weight += len(seen)
        return tuple(sorted(seen))

    def size(self) -> int:
        """A measure of the memory held: nodes, identities and remembered segments."""
        return len(self.numbers) + len(self.nodes) + self.weight


_NO_AGENTS: frozenset[str] = frozenset()


def _agents_of(node: Formula, parts: list[frozenset[str]]) -> frozenset[str]:
    """The agents named in ``node``, given those named in its parts (sharing sets)."""
    if isinstance(node, K | M | Kw):
        own: frozenset[str] = frozenset((node.agent,))
    elif isinstance(node, E | C | D):
        own = frozenset(node.group)
    else:
        own = _NO_AGENTS
    merged = own
    for found in parts:
        if found is not merged and not found <= merged:
            merged = found if merged <= found else merged | found
    return merged


@dataclass(frozen=True)
class _Program:
    """A formula to evaluate: its number in a :class:`_FormulaTable` and that table.

    ``static[i]`` says that subformula i contains no announcement, so all of it is
    evaluated under one law, in a single pass over ``segment(i)`` (children come
    first in the numbering).
    """

    table: _FormulaTable
    root: int
    agents: frozenset[str]
    nodes: list[Formula]
    opcodes: list[int]
    children: list[tuple[int, ...]]
    static: list[bool]

    def segment(self, number: int) -> tuple[int, ...]:
        """The numbers of subformula ``number`` and of its subformulas, increasing."""
        return self.table.segment(number)


# A fresh table is started past this size (numbers held, see size()): it keeps the
# formulas it has numbered alive, so this bounds that memory to some tens of MB.
_TABLE_LIMIT = 1 << 18
_TABLE = _FormulaTable()


def _compile(root: Formula) -> _Program:
    """The program of ``root``: its subformulas numbered in the current table.

    >>> from kwartet_epistemic.logic import parse
    >>> first, second = _compile(parse("K_a p & q")), _compile(parse("q | K_a p"))
    >>> first.table is second.table, sorted(second.agents)
    (True, ['a'])
    >>> # K_a p is translated once: the second formula's part has the same number
    >>> first.children[first.root][0] == second.children[second.root][1]
    True
    """
    global _TABLE
    if _TABLE.size() > _TABLE_LIMIT:
        _TABLE = _FormulaTable()  # programs made before keep the old table alive
    table = _TABLE
    number = table.number(root)
    return _Program(
        table,
        number,
        table.agents[number],
        table.nodes,
        table.opcodes,
        table.children,
        table.static,
    )


class _Memo:
    """BDDs of (subformula number, law) pairs, for one formula table at a time.

    Shared by a structure and those made from it by announcements (they differ only
    in the law, which is part of the key; propositional parts are keyed by number
    alone).  Only the parts worth keeping are stored: whole formulas, the
    announcement-free parts below announcements and propositional parts.  Emptied, at
    the start of an evaluation, when it holds more than ``_MEMO_LIMIT`` BDDs (so it
    keeps alive no more than a few evaluations would) or the formula table changed.
    """

    __slots__ = ("table", "values", "propositional")

    def __init__(self) -> None:
        self.table: _FormulaTable | None = None
        self.values: dict[tuple[int, Bdd], Bdd] = {}
        # BDDs of propositional subformulas, which do not depend on the law.
        self.propositional: dict[int, Bdd] = {}

    def values_for(self, table: _FormulaTable) -> dict[tuple[int, Bdd], Bdd]:
        if self.table is not table or len(self.values) + len(self.propositional) > _MEMO_LIMIT:
            self.table, self.values, self.propositional = table, {}, {}
        return self.values


_MEMO_LIMIT = 1 << 12


class _RecentByIdentity:
    """The last few values computed for formula objects, found by object identity.

    Identity rather than equality: it is what repeated queries present (a formula
    built once and asked in a loop, or text, parsed once by :func:`_formula_of`), and
    comparing distinct but equal formulas can cost far more than recomputing.  Each
    entry keeps its formula alive, so its ``id()`` cannot be reused while stored.
    """

    def __init__(self, capacity: int) -> None:
        self._capacity = capacity
        self._entries: dict[int, tuple[Formula, Any]] = {}

    def get(self, formula: Formula) -> Any | None:
        entry = self._entries.get(id(formula))
        return entry[1] if entry is not None and entry[0] is formula else None

    def __len__(self) -> int:
        return len(self._entries)

    def put(self, formula: Formula, value: Any) -> None:
        if len(self._entries) >= self._capacity:
            self._entries.pop(next(iter(self._entries)))
        self._entries[id(formula)] = (formula, value)


_REMEMBERED_PROGRAMS = 512
_PROGRAMS = _RecentByIdentity(_REMEMBERED_PROGRAMS)
_PARSED: dict[str, Formula] = {}
_REMEMBERED_TEXTS = 512
_REMEMBERED_LENGTH = 10_000


def cache_sizes() -> dict[str, tuple[int, int]]:
    """The module-level caches of knowledge structures: each one's entries now, with its
    bound (the oldest entry goes when full).

    >>> all(size <= bound for size, bound in cache_sizes().values())
    True
    """
    return {
        "compiled formulas": (len(_PROGRAMS), _REMEMBERED_PROGRAMS),
        "parsed texts": (len(_PARSED), _REMEMBERED_TEXTS),
    }


def _program_of(formula: Formula) -> _Program:
    program: _Program | None = _PROGRAMS.get(formula)
    if program is None:
        program = _compile(formula)
        _PROGRAMS.put(formula, program)
    return program


def _formula_of(formula: FormulaLike) -> Formula:
    """The formula, parsing text once per distinct text (so caches see one object)."""
    if not isinstance(formula, str):
        return as_formula(formula)
    parsed = _PARSED.get(formula)
    if parsed is None:
        parsed = as_formula(formula)
        if len(formula) > _REMEMBERED_LENGTH:
            return parsed  # 512 long texts and their formulas would hold gigabytes
        if len(_PARSED) >= _REMEMBERED_TEXTS:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[formula] = parsed
    return parsed


def _unique_nodes(root: Formula) -> Iterator[Formula]:
    """Every distinct node object of the formula once (no recursion)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(node.args)


class BddKnowledgeStructure:
    """A knowledge structure over an arbitrary BDD encoding (the lower layer).

    Arguments:
        manager: a ``dd.cudd.BDD`` or ``dd.autoref.BDD``; structures made from this one
            by announcements share it.
        law: the BDD of the set of states.
        unobserved_vars: per agent, the BDD variables the agent does *not* observe (the
            variables quantified in ``K_a``).  States agreeing on every other variable
            are indistinguishable for the agent.
        atom_bdd: the BDD of an atom; it raises a :class:`ModelError` for unknown atoms.
        count_vars: the variables that make up a state; counting and enumeration are
            over assignments to them (the law must not depend on other variables).

    >>> from kwartet_epistemic.logic import Atom, parse
    >>> from kwartet_epistemic.symbolic.backend import new_manager
    >>> manager = new_manager()
    >>> manager.declare("x", "y")
    >>> # one atom "same" encoded as x <-> y; agent A sees x, B sees nothing
    >>> def atom_bdd(atom):
    ...     return manager.var("x").equiv(manager.var("y"))
    >>> ks = BddKnowledgeStructure(
    ...     manager, manager.true, {"A": {"y"}, "B": {"x", "y"}}, atom_bdd, ["x", "y"])
    >>> ks.count_states(), ks.count_states(Atom("same"))
    (4, 2)
    >>> ks.is_valid(parse("~K_A same & ~K_B same"))
    True
    """

    @plain_errors
    def __init__(
        self,
        manager: Any,
        law: Bdd,
        unobserved_vars: Mapping[str, Collection[str]],
        atom_bdd: Callable[[Atom], Bdd],
        count_vars: Sequence[str],
    ) -> None:
        backend_of(manager)  # rejects anything but a dd manager
        declared = set(manager.vars)
        if id(getattr(law, "bdd", None)) != id(manager):
            raise ModelError(f"the law {law!r} is not a BDD node of the given manager")
        hidden: dict[str, frozenset[str]] = {}
        for agent, variables in unobserved_vars.items():
            names = frozenset(variables)
            missing = sorted(names - declared)
            if missing:
                raise ModelError(
                    f"agent {agent!r} has unobserved variables {missing} that the manager "
                    "does not declare"
                )
            hidden[str(agent)] = names
        counted = tuple(count_vars)
        if len(set(counted)) != len(counted):
            raise ModelError(f"count_vars {list(counted)} has repeated variables")
        missing_counted = sorted(set(counted) - declared)
        if missing_counted:
            raise ModelError(f"count_vars {missing_counted} are not declared in the manager")
        outside = sorted(set(manager.support(law)) - set(counted))
        if outside:
            raise ModelError(
                f"the law depends on {outside}, which are not among the count_vars {counted}"
            )
        self._manager = manager
        self._law = law
        self._unobserved: Mapping[str, frozenset[str]] = MappingProxyType(hidden)
        self._atom_to_bdd = atom_bdd
        self._count_vars = counted
        self._results = _RecentByIdentity(_REMEMBERED_RESULTS)
        self._memo = _Memo()
        self._and_exists = and_exists_function(manager)
        self._forall = manager.forall
        # Per agent that does not observe exactly one variable: that variable's BDD
        # and its negation (see _knows_whether).
        self._sole_hidden: dict[str, tuple[Bdd, Bdd]] = {}
        for agent, names in hidden.items():
            if len(names) == 1:
                (name,) = names
                variable = manager.var(name)
                self._sole_hidden[agent] = (variable, ~variable)

    # ----------------------------------------------------------------- properties

    @property
    def manager(self) -> Any:
        """The BDD manager, shared by every structure derived from this one."""
        return self._manager

    @property
    def backend(self) -> str:
        """``"cudd"`` or ``"autoref"``.

        >>> KnowledgeStructure(["p"], "p", {}, backend="autoref").backend
        'autoref'
        """
        return backend_of(self._manager)

    @property
    def law(self) -> Bdd:
        """The BDD of the set of states."""
        return self._law

    @property
    def agents(self) -> tuple[str, ...]:
        """The agents, in the order they were given."""
        return tuple(self._unobserved)

    @property
    def unobserved_vars(self) -> Mapping[str, frozenset[str]]:
        """Per agent, the BDD variables it does not observe (read-only)."""
        return self._unobserved

    @property
    def count_vars(self) -> tuple[str, ...]:
        """The BDD variables that make up a state."""
        return self._count_vars

    # ------------------------------------------------------------------ queries

    @plain_errors
    def bdd(self, formula: FormulaLike) -> Bdd:
        """The BDD of the set of states (models of the law) where the formula holds.

        >>> ks = KnowledgeStructure(["p", "q"], "p | q", {"A": ["p"]})
        >>> ks.bdd("K_A q") == ks.bdd("~p & q")
        True
        """
        return self._law & self._truth(_formula_of(formula))

    @plain_errors
    def is_valid(self, formula: FormulaLike) -> bool:
        """Whether the formula holds in every state of the structure.

        >>> KnowledgeStructure(["p"], "top", {"A": []}).is_valid("K_A p | K_A ~p")
        False
        """
        return (self._law & ~self._truth(_formula_of(formula))) == self._manager.false

    @plain_errors
    def is_satisfiable(self, formula: FormulaLike) -> bool:
        """Whether the formula holds in at least one state of the structure.

        >>> KnowledgeStructure(["p"], "top", {"A": ["p"]}).is_satisfiable("K_A p")
        True
        """
        return (self._law & self._truth(_formula_of(formula))) != self._manager.false

    @plain_errors
    def count_states(self, formula: FormulaLike | None = None) -> int:
        """The exact number of states (where the formula holds, if one is given).

        >>> ks = KnowledgeStructure([f"p{i}" for i in range(100)], "top", {})
        >>> ks.count_states() == 2**100, ks.count_states("p0 & p99") == 2**98
        (True, True)
        """
        target = self._law if formula is None else self.bdd(formula)
        return exact_count(self._manager, target, self._count_vars)

    @plain_errors
    def holds_at(self, formula: FormulaLike, assignment: Mapping[str, bool]) -> bool:
        """Truth of the formula at the state given as values of all ``count_vars``.

        >>> ks = KnowledgeStructure(["p", "q"], "top", {"A": ["p"]})
        >>> ks.holds_at("K_A p", {"p": True, "q": False})
        True
        """
        values = self.check_assignment(assignment)
        truth = self._manager.let(values, self._truth(_formula_of(formula)))
        return bool(truth == self._manager.true)

    @plain_errors
    def assignments(self, *, limit: int = _DEFAULT_STATE_LIMIT) -> Iterator[dict[str, bool]]:
        """Every state as values of the ``count_vars``; refuses above ``limit`` states.

        >>> ks = KnowledgeStructure(["p", "q"], "p & ~q", {})
        >>> list(ks.assignments())
        [{'p': True, 'q': False}]
        """
        total = self.count_states()
        if total > limit:
            raise ModelTooLargeError(
                f"the structure has {total} states, above the enumeration limit of {limit}; "
                "count them with count_states() or raise the limit"
            )
        found = (
            {name: bool(model[name]) for name in self._count_vars}
            for model in self._manager.pick_iter(self._law, care_vars=set(self._count_vars))
        )
        # A fixed order (lexicographic in count_vars, false before true) for reproducibility.
        return iter(sorted(found, key=lambda model: tuple(model[v] for v in self._count_vars)))

    # ---------------------------------------------------------------- updates

    @plain_errors
    def announce(self, formula: FormulaLike) -> Self:
        """The structure after a public announcement: the law becomes ``law ∧ φ``.

        The announced formula is evaluated in this structure; the result shares the
        manager.  Announcing a formula that holds in no state raises
        :class:`FalseAnnouncementError` (it cannot be announced truthfully anywhere).

        >>> ks = KnowledgeStructure(["p", "q"], "top", {"A": ["p"]})
        >>> ks.announce("p -> q").count_states()
        3
        """
        announced = _formula_of(formula)
        law = self._law & self._truth(announced)
        if law == self._manager.false:
            raise FalseAnnouncementError(
                f"announcing {str(announced)!r} leaves no state: it is false in every state"
            )
        return self._with_law(law)

    @plain_errors
    def restrict(self, states: Bdd) -> Self:
        """The structure whose law is ``law ∧ states``: an announcement given as a BDD.

        For encodings that compute what an announcement leaves more directly than by
        evaluating a formula.  Like :meth:`announce`, refuses to leave no state.

        >>> ks = KnowledgeStructure(["p", "q"], "top", {"A": ["p"]})
        >>> ks.restrict(ks.manager.var("p")).count_states()
        2
        """
        if id(getattr(states, "bdd", None)) != id(self._manager):
            raise ModelError(f"{states!r} is not a BDD node of this structure's manager")
        law = self._law & states
        if law == self._manager.false:
            raise FalseAnnouncementError("the restriction leaves no state")
        return self._with_law(law)

    @plain_errors
    def to_smcdel(
        self,
        query: FormulaLike | Sequence[FormulaLike] | None = None,
        *,
        actual: Mapping[str, bool] | Iterable[str | Atom] | None = None,
        jobs: Iterable[str] | None = None,
    ) -> str:
        """SMCDEL's text input for this structure and the queries (``VALID?`` and
        ``WHERE?``, and ``TRUE?`` at ``actual``: the state as values of the
        ``count_vars`` or, for a :class:`KnowledgeStructure`, its set of true atoms);
        see :mod:`kwartet_epistemic.symbolic.smcdel`.

        >>> ks = KnowledgeStructure(["p"], "top", {"A": []})
        >>> print(ks.to_smcdel("K_A p").splitlines()[-2])
        VALID? (K A 1)
        """
        state: Mapping[str, bool] | None = None
        if isinstance(actual, Mapping):
            state = actual
        elif actual is not None and isinstance(self, KnowledgeStructure):
            state = self.assignment_of(actual)
        elif actual is not None:
            state = cast("Mapping[str, bool]", actual)  # the exporter says what is wrong
        return export_structure(self, query, actual=state, jobs=jobs).text

    def _with_law(self, law: Bdd) -> Self:
        twin = copy.copy(self)
        twin._law = law
        twin._results = _RecentByIdentity(_REMEMBERED_RESULTS)
        return twin

    # ---------------------------------------------------------------- evaluation

    def atom_bdd(self, atom: Atom) -> Bdd:
        """The BDD of ``atom`` over the structure's variables."""
        return self._atom_to_bdd(atom)

    def check_assignment(self, assignment: Mapping[str, bool]) -> dict[str, bool]:
        """``assignment`` as values of every state variable, checked: a value for each,
        no other variable, a state of the law; else
        :class:`~kwartet_epistemic.errors.ModelError`."""
        missing = [v for v in self._count_vars if v not in assignment]
        if missing:
            raise ModelError(f"the state gives no value to {missing[:5]}")
        values = {v: bool(assignment[v]) for v in self._count_vars}
        if self._manager.let(values, self._law) != self._manager.true:
            raise ModelError(f"{values} is not a state of this structure: it violates the law")
        return values

    def _truth(self, formula: Formula) -> Bdd:
        """A BDD that agrees with the formula's truth on the states of the law.

        Outside the law its value is unspecified (it is what the operators happen to
        give); every public query masks it with the law.
        """
        remembered = self._results.get(formula)
        if remembered is not None:
            return remembered
        result = self._evaluate(formula, self._law)
        self._results.put(formula, result)
        return result

    def _evaluate(self, root: Formula, law: Bdd) -> Bdd:
        """Evaluate without recursion, caching each (subformula, law) pair.

        A formula without announcements is one pass over its subformulas in numbering
        order; otherwise an explicit work stack walks the announcements and evaluates
        each announcement-free part, under its law, in such a pass.
        """
        program = _program_of(root)
        if not program.agents <= self._unobserved.keys():
            for agent in sorted(program.agents - self._unobserved.keys()):
                raise UnknownAgentError(
                    f"unknown agent {agent!r} in {formula_excerpt(root)!r}: expected one of "
                    f"{sorted(self._unobserved)}"
                )
        root_number = program.root
        # Shared with the structures made from this one by announcements: a part asked
        # again under the same law (the announcement's own formula, a goal checked after
        # it) is taken from there.
        cache = self._memo.values_for(program.table)
        remembered = cache.get((root_number, law))
        if remembered is not None:
            return remembered
        if program.static[root_number]:
            values: dict[int, Bdd] = {}
            self._run_static(program, program.segment(root_number), law, values)
            cache[root_number, law] = values[root_number]
            return values[root_number]
        needed: list[tuple[int, Bdd]] = []

        def value(number: int, part_law: Bdd) -> Bdd | None:
            found = cache.get((number, part_law))
            if found is None:
                needed.append((number, part_law))
            return found

        static = program.static
        stack: list[tuple[int, Bdd]] = [(root_number, law)]
        while stack:
            key = stack[-1]
            if key in cache:
                stack.pop()
                continue
            number, node_law = key
            if static[number]:
                part_values: dict[int, Bdd] = {}
                self._run_static(program, program.segment(number), node_law, part_values)
                cache[key] = part_values[number]
                stack.pop()
                continue
            needed.clear()
            result = self._step(program, number, node_law, value)
            if result is None:
                stack.extend(needed)
            else:
                cache[key] = result
                stack.pop()
        return cache[root_number, law]

    def _run_static(
        self,
        program: _Program,
        numbers: Iterable[int],
        law: Bdd,
        values: Any,
    ) -> None:
        """Fill ``values[i]`` for the announcement-free subformulas ``numbers`` (children
        first), all under ``law``; the common operations are inlined."""
        nodes, opcodes, children = program.nodes, program.opcodes, program.children
        propositional = program.table.propositional
        law_free = self._memo.propositional
        unobserved = self._unobserved
        exists = self._and_exists

        def known(part: int, _law: Bdd) -> Bdd:
            return values[part]

        for number in numbers:
            if propositional[number]:
                found = law_free.get(number)
                values[number] = (
                    found if found is not None else self._propositional(program, number)
                )
                continue
            opcode = opcodes[number]
            parts = children[number]
            if opcode == _AND:
                result = values[parts[0]] & values[parts[1]]
            elif opcode == _NOT:
                result = ~values[parts[0]]
            elif opcode == _K:
                hidden = unobserved[nodes[number].agent]  # type: ignore[attr-defined]
                result = ~exists(law, ~values[parts[0]], hidden)
            elif opcode == _KW:
                agent = nodes[number].agent  # type: ignore[attr-defined]
                result = self._knows_whether(agent, unobserved[agent], law, values[parts[0]])
            elif opcode == _OR:
                result = values[parts[0]] | values[parts[1]]
            else:
                result = self._step(program, number, law, known)
            values[number] = result

    def _propositional(self, program: _Program, number: int) -> Bdd:
        """The BDD of propositional subformula ``number``, remembered with its parts.

        A work stack that stops at parts already remembered, so a formula made of
        known pieces (hands shared by many announcements) costs only its new nodes.
        """
        opcodes, children = program.opcodes, program.children
        law_free = self._memo.propositional
        stack = [number]
        while stack:
            part = stack[-1]
            if part in law_free:
                stack.pop()
                continue
            missing = [child for child in children[part] if child not in law_free]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            opcode = opcodes[part]
            arguments = [law_free[child] for child in children[part]]
            if opcode == _ATOM:
                result = self.atom_bdd(program.nodes[part])  # type: ignore[arg-type]
            elif opcode == _NOT:
                result = ~arguments[0]
            elif opcode == _AND:
                result = arguments[0] & arguments[1]
            elif opcode == _OR:
                result = arguments[0] | arguments[1]
            elif opcode == _IMPLIES:
                result = ~arguments[0] | arguments[1]
            elif opcode == _IFF:
                result = arguments[0].equiv(arguments[1])
            else:
                result = self._manager.true if opcode == _TOP else self._manager.false
            law_free[part] = result
        return law_free[number]

    def _step(
        self,
        program: _Program,
        number: int,
        law: Bdd,
        value: Callable[[int, Bdd], Bdd | None],
    ) -> Bdd | None:
        """The BDD of subformula ``number`` under ``law`` if its parts are known.

        ``value`` returns a part's BDD, or ``None`` after asking for it to be computed;
        then this returns ``None`` too and is called again later.
        """
        opcode = program.opcodes[number]
        node = program.nodes[number]
        parts = program.children[number]
        if opcode <= _ATOM:
            if opcode == _ATOM:
                return self.atom_bdd(node)  # type: ignore[arg-type]
            return self._manager.true if opcode == _TOP else self._manager.false
        if opcode >= _ANNOUNCE:
            announced = value(parts[0], law)
            if announced is None:
                return None
            inner = value(parts[1], law & announced)
            if inner is None:
                return None
            return (~announced | inner) if opcode == _ANNOUNCE else (announced & inner)
        if opcode <= _IFF and opcode != _NOT:
            left, right = value(parts[0], law), value(parts[1], law)
            if left is None or right is None:
                return None
            if opcode == _AND:
                return left & right
            if opcode == _OR:
                return left | right
            return (~left | right) if opcode == _IMPLIES else left.equiv(right)
        operand = value(parts[0], law)
        if operand is None:
            return None
        if opcode == _NOT:
            return ~operand
        if opcode in (_K, _M, _KW):
            hidden = self._unobserved[node.agent]  # type: ignore[attr-defined]
            if opcode == _K:
                return self._knows(hidden, law, operand)
            if opcode == _M:
                return self._and_exists(law, operand, hidden)
            return self._knows_whether(node.agent, hidden, law, operand)  # type: ignore[attr-defined]
        group: tuple[str, ...] = node.group  # type: ignore[attr-defined]
        if opcode == _E:
            return self._everybody_knows(group, law, operand)
        if opcode == _D:
            pooled = frozenset.intersection(*(self._unobserved[a] for a in group))
            return self._knows(pooled, law, operand)
        return self._common_knowledge(group, law, operand)

    def _knows(self, hidden: frozenset[str], law: Bdd, target: Bdd) -> Bdd:
        # K_a φ = ¬∃hidden(law ∧ ¬φ): no indistinguishable law state refutes φ.
        return ~self._and_exists(law, ~target, hidden)

    def _knows_whether(self, agent: str, hidden: frozenset[str], law: Bdd, target: Bdd) -> Bdd:
        # Kw_a φ = K_a φ ∨ K_a ¬φ: two relational products.  When φ is (the negation
        # of) the one variable x that a does not observe, a's cell of a state is that
        # state with either value of x, so a knows whether x iff the law does not allow
        # both: ¬∀x law, one quantification (muddy children: "do you know whether you
        # are muddy?").
        sole = self._sole_hidden.get(agent)
        if sole is not None and (target == sole[0] or target == sole[1]):
            return ~self._forall(hidden, law)
        return ~self._and_exists(law, ~target, hidden) | ~self._and_exists(law, target, hidden)

    def _everybody_knows(self, group: Iterable[str], law: Bdd, target: Bdd) -> Bdd:
        result = self._manager.true
        # Agents that observe the same variables know the same: quantify once per set.
        for hidden in dict.fromkeys(self._unobserved[a] for a in group):
            result &= self._knows(hidden, law, target)
            if result == self._manager.false:
                break
        return result

    def _common_knowledge(self, group: Sequence[str], law: Bdd, target: Bdd) -> Bdd:
        # Greatest fixpoint of X = E_G(φ ∧ X), from X = true.  The operator is monotone
        # on whole functions, so the iterates decrease and equality of nodes ends it.
        current = self._manager.true
        while True:
            following = self._everybody_knows(group, law, target & current)
            if following == current:
                return current
            current = following


class KnowledgeStructure(BddKnowledgeStructure):
    """A knowledge structure with one BDD variable per atom (the textbook form).

    Arguments:
        vocabulary: the atom names, in BDD variable order unless ``order`` is given.
        law: the set of states, as a propositional formula (or its text) or a BDD
            over the vocabulary.
        observed: per agent, the atoms it observes.
        backend: ``"auto"`` (CUDD if ``dd.cudd`` imports, else pure Python),
            ``"cudd"`` or ``"autoref"``.  Ignored when ``manager`` or a BDD law is
            given.
        order: another BDD variable order for the vocabulary (a permutation of it).
        manager: a ``dd`` manager to share with other structures.  Without one the
            structure makes its own (a CUDD one starts with a small computed table,
            which CUDD enlarges as the work needs).

    A state is the frozenset of its true atoms.

    >>> ks = KnowledgeStructure(["m1", "m2"], "m1 | m2", {"1": ["m2"], "2": ["m1"]})
    >>> sorted(sorted(state) for state in ks.states())
    [['m1'], ['m1', 'm2'], ['m2']]
    >>> ks.holds("K_1 m1", {"m1"}), ks.holds("K_1 m1", {"m1", "m2"})
    (True, False)
    """

    @plain_errors
    def __init__(
        self,
        vocabulary: Iterable[str | Atom],
        law: FormulaLike | Bdd = "top",
        observed: Mapping[str, Iterable[str | Atom]] | None = None,
        *,
        backend: str = "auto",
        order: Iterable[str | Atom] | None = None,
        manager: Any | None = None,
    ) -> None:
        names = tuple(_atom_name(a) for a in vocabulary)
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ModelError(f"the vocabulary repeats the atoms {repeated}")
        known = frozenset(names)
        variable_order = names if order is None else tuple(_atom_name(a) for a in order)
        if sorted(variable_order) != sorted(names):
            raise ModelError(
                f"the order {list(variable_order)} is not a permutation of the vocabulary "
                f"{list(names)}"
            )
        law_is_bdd = not isinstance(law, Formula | str)
        if law_is_bdd and manager is None:
            manager = getattr(law, "bdd", None)
        if manager is None:
            # CUDD grows its computed table as needed: start small, set up fast.
            manager = new_manager(backend, initial_cache_size=SMALL_CACHE)
        backend_of(manager)
        undeclared = [n for n in variable_order if n not in manager.vars]
        if undeclared:
            manager.declare(*undeclared)
        self._vocabulary = names
        atom_bdd = _VocabularyAtoms({name: manager.var(name) for name in names}, names)

        hidden: dict[str, frozenset[str]] = {}
        seen: dict[str, frozenset[str]] = {}
        for agent, atoms in (observed or {}).items():
            visible = frozenset(_atom_name(a) for a in atoms)
            for name in sorted(visible - known):
                raise atom_bdd.unknown(name, f"the observations of agent {agent!r}")
            seen[str(agent)] = visible
            hidden[str(agent)] = known - visible

        law_formula: Formula | None = None
        if not law_is_bdd:
            law_formula = _formula_of(law)
            for node in _unique_nodes(law_formula):
                if not isinstance(node, _PROPOSITIONAL):
                    raise ModelError(
                        f"the law {str(law_formula)!r} contains {type(node).__name__}: "
                        "a law must be propositional (atoms, top, bot, ~, &, |, ->, <->)"
                    )
        self._observed: Mapping[str, frozenset[str]] = MappingProxyType(seen)
        self._vocabulary_atoms = atom_bdd
        # The last frozenset state that holds() checked against this law, and its values.
        self._checked_state: frozenset[Any] | None = None
        self._checked_values: dict[str, bool] = {}
        super().__init__(manager, law if law_is_bdd else manager.true, hidden, atom_bdd, names)
        if law_formula is not None:
            # A propositional law does not depend on the law it is evaluated under.
            self._law = self._evaluate(law_formula, manager.true)

    # ----------------------------------------------------------------- properties

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """The atom names, in the order given.

        >>> KnowledgeStructure(["q", "p"], "top", {}).vocabulary
        ('q', 'p')
        """
        return self._vocabulary

    @property
    def observed(self) -> Mapping[str, frozenset[str]]:
        """Per agent, the atoms it observes (read-only).

        >>> dict(KnowledgeStructure(["p", "q"], "top", {"A": ["p"]}).observed)
        {'A': frozenset({'p'})}
        """
        return self._observed

    # ------------------------------------------------------------------ queries

    @plain_errors
    def holds(self, formula: FormulaLike, state: Iterable[str | Atom]) -> bool:
        """Truth of the formula at the state given as its set of true atoms.

        >>> ks = KnowledgeStructure(["p", "q"], "top", {"A": ["p"], "B": ["q"]})
        >>> ks.holds("K_A p & ~K_B p & D_{A,B} (p & ~q)", {"p"})
        True
        """
        if isinstance(state, frozenset) and state is self._checked_state:
            # The same (immutable) state as the last query: already checked.
            values = self._checked_values
        else:
            values = self.check_assignment(self.assignment_of(state))
            if isinstance(state, frozenset):
                self._checked_state, self._checked_values = state, values
        truth = self._manager.let(values, self._truth(_formula_of(formula)))
        return bool(truth == self._manager.true)

    @plain_errors
    def states(self, *, limit: int = _DEFAULT_STATE_LIMIT) -> Iterator[frozenset[str]]:
        """Every state as the frozenset of its true atoms; refuses above ``limit`` states.

        >>> [sorted(s) for s in KnowledgeStructure(["p", "q"], "p", {}).states()]
        [['p'], ['p', 'q']]
        """
        return (
            frozenset(name for name, value in assignment.items() if value)
            for assignment in self.assignments(limit=limit)
        )

    @plain_errors
    def announce(self, formula: FormulaLike, *, actual: Iterable[str | Atom] | None = None) -> Self:
        """The structure after a public announcement: the law becomes ``law ∧ φ``.

        With ``actual`` (a state), announcing a formula false there raises
        :class:`FalseAnnouncementError`, as for a pointed model.

        >>> ks = KnowledgeStructure(["m1", "m2"], "top", {"1": ["m2"], "2": ["m1"]})
        >>> after = ks.announce("m1 | m2", actual={"m1"})
        >>> after.count_states(), after.holds("K_1 m1", {"m1"})
        (3, True)
        """
        announced = _formula_of(formula)
        if actual is not None and not self.holds(announced, actual):
            raise FalseAnnouncementError(
                f"cannot announce {str(announced)!r}: it is false at the actual state "
                f"{sorted(_atom_name(a) for a in actual)}"
            )
        after = super().announce(announced)
        if actual is not None and actual is self._checked_state:
            # It was a state here and the announcement holds there: a state after it.
            after._checked_state, after._checked_values = self._checked_state, self._checked_values
        return after

    @plain_errors
    def to_kripke(self, actual_state: Iterable[str | Atom], *, limit: int = 100_000) -> KripkeModel:
        """The explicit Kripke model of this structure, pointed at ``actual_state``.

        Worlds are the states, in the order of :meth:`states` and named by their true
        atoms; an agent's partition groups the states that agree on the atoms it
        observes; the valuation is the state itself.  Refuses above ``limit`` states.

        >>> ks = KnowledgeStructure(["p", "q"], "p | q", {"A": ["p"], "B": ["q"]})
        >>> model = ks.to_kripke({"p"})
        >>> model.n_worlds, model.world_name(model.actual), model.holds("K_A p & ~K_A q & K_B p")
        (3, '{p}', True)
        """
        actual = frozenset(
            name for name, value in self.assignment_of(actual_state).items() if value
        )
        if not self.holds("top", actual):  # refuses a state outside the law
            raise ModelError(f"{sorted(actual)} is not a state of this structure")
        states = list(self.states(limit=limit))
        labels: dict[str, list[int]] = {}
        for agent, visible in self._observed.items():
            cells: dict[frozenset[str], int] = {}
            labels[agent] = [cells.setdefault(state & visible, len(cells)) for state in states]
        return KripkeModel(
            len(states),
            labels,
            {name: [name in state for state in states] for name in self._vocabulary},
            actual=states.index(actual),
            world_names=["{" + ", ".join(sorted(state)) + "}" for state in states],
            atoms=self._vocabulary,
        )

    def to_dict(self) -> dict[str, Any]:
        """The structure as plain JSON data; see :mod:`kwartet_epistemic.model_files`."""
        return _structure_to_dict(self)

    def to_json(self) -> str:
        """The structure as JSON text (``"format": "kwartet-knowledge-structure"``,
        ``"version"``, the law as its BDD's nodes in a fixed order): equal structures
        give equal text, and :meth:`from_json` reads it back.

        >>> ks = KnowledgeStructure(["p", "q"], "p | q", {"A": ["p"]})
        >>> again = KnowledgeStructure.from_json(ks.to_json())
        >>> again.count_states(), again.to_json() == ks.to_json()
        (3, True)
        """
        return dump_json(_structure_to_dict(self))

    @classmethod
    def from_dict(cls, data: Any, *, backend: str = "auto") -> KnowledgeStructure:
        """A structure from JSON data, checked: format, version, the schema
        (``schemas/knowledge_structure.schema.json``), atoms and an ordered, reduced BDD;
        otherwise :class:`~kwartet_epistemic.errors.ModelFileError`."""
        return _structure_from_dict(data, backend=backend)

    @classmethod
    def from_json(cls, text: str | bytes, *, backend: str = "auto") -> KnowledgeStructure:
        """A structure from the JSON text of :meth:`to_json` (checked as :meth:`from_dict`).

        >>> KnowledgeStructure.from_json(b'{"format": "kwartet-kripke-model"}')
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.ModelFileError: format: 'kwartet-kripke-model' is not a saved knowledge structure; expected 'kwartet-knowledge-structure'
        """
        return _structure_from_dict(
            read_model_text(text, KNOWLEDGE_STRUCTURE_FORMAT), backend=backend
        )

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the structure's JSON to ``path`` atomically."""
        save_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, backend: str = "auto") -> KnowledgeStructure:
        """A structure from a JSON file written by :meth:`save` (checked as
        :meth:`from_dict`; an unreadable file is a ModelFileError too)."""
        data = read_model_file(path, KNOWLEDGE_STRUCTURE_FORMAT)
        try:
            return _structure_from_dict(data, backend=backend)
        except ModelFileError as err:
            raise ModelFileError(f"{path}: {err}") from err

    def _with_law(self, law: Bdd) -> Self:
        twin = super()._with_law(law)
        twin._checked_state = None  # a state of this law need not be one of the new law
        return twin

    def assignment_of(self, state: Iterable[str | Atom]) -> dict[str, bool]:
        """The state given as its true atoms, as values of every variable (the atoms
        not given are false)."""
        if isinstance(state, str | Atom):
            raise ModelError(
                f"a state is a collection of true atoms, not the single {state!r}; "
                f"write {{{str(state)!r}}}"
            )
        true_atoms = {_atom_name(a) for a in state}
        for name in sorted(true_atoms - self._vocabulary_atoms.known):
            raise self._vocabulary_atoms.unknown(name, "the state")
        return {name: name in true_atoms for name in self._vocabulary}

    def __repr__(self) -> str:
        return (
            f"<KnowledgeStructure: {len(self._vocabulary)} atoms, agents {list(self.agents)}, "
            f"law of {self._law.dag_size} BDD nodes, backend {self.backend}>"
        )


class _VocabularyAtoms:
    """The atom -> BDD variable map of a :class:`KnowledgeStructure`.

    A separate object rather than a bound method: a structure that referred to itself
    would be freed by the cycle collector, in an order that dd.autoref rejects.
    """

    def __init__(self, variables: dict[str, Bdd], vocabulary: tuple[str, ...]) -> None:
        self._variables = variables
        self._vocabulary = vocabulary
        self.known = frozenset(vocabulary)

    def __call__(self, atom: Atom) -> Bdd:
        variable = self._variables.get(atom.name)
        if variable is None:
            raise self.unknown(atom.name, "the formula")
        return variable

    def unknown(self, name: str, where: str) -> UnknownAtomError:
        close = difflib.get_close_matches(name, self._vocabulary, n=3)
        hint = f"; did you mean {close}?" if close else ""
        shown = list(self._vocabulary[:8]) + (["..."] if len(self._vocabulary) > 8 else [])
        return UnknownAtomError(
            f"unknown atom {name!r} in {where}: expected an atom of the vocabulary {shown}{hint}"
        )


def _atom_name(atom: str | Atom) -> str:
    """The canonical name of an atom given as text or :class:`Atom`.

    >>> _atom_name("has(B,QH)"), _atom_name(Atom("p"))
    ('has(B, QH)', 'p')
    """
    return atom.name if isinstance(atom, Atom) else _text_atom_name(atom)


@functools.lru_cache(maxsize=1 << 16)
def _text_atom_name(text: str) -> str:
    # States are given as sets of names over and over: validate each text once.
    return Atom(text).name


# ------------------------------------------------------------------------- files


@plain_errors
def _structure_to_dict(structure: KnowledgeStructure) -> dict[str, Any]:
    manager = structure.manager
    order = sorted(structure.vocabulary, key=manager.level_of_var)
    position = {name: index for index, name in enumerate(order)}
    refs: dict[Any, int] = {manager.false: 0, manager.true: 1}
    nodes: list[list[int]] = []
    stack: list[tuple[Any, bool]] = [(structure.law, False)]
    children: dict[Any, tuple[Any, Any]] = {}
    while stack:
        node, expanded = stack.pop()
        if node in refs:
            continue
        name = node.var
        if not expanded:
            high = manager.let({name: True}, node)
            low = manager.let({name: False}, node)
            children[node] = (high, low)
            stack.append((node, True))
            stack.append((low, False))
            stack.append((high, False))  # popped first: high before low
            continue
        high, low = children.pop(node)
        refs[node] = len(nodes) + 2
        nodes.append([position[name], refs[high], refs[low]])
    return {
        "format": KNOWLEDGE_STRUCTURE_FORMAT,
        "version": MODEL_FILE_VERSION,
        "vocabulary": list(structure.vocabulary),
        "order": order,
        "observed": {
            agent: sorted(seen, key=structure.vocabulary.index)
            for agent, seen in structure.observed.items()
        },
        "law": {"root": refs[structure.law], "nodes": nodes},
    }


@plain_errors
def _structure_from_dict(data: Any, *, backend: str = "auto") -> KnowledgeStructure:
    data = check_model_data(data, KNOWLEDGE_STRUCTURE_FORMAT)
    vocabulary = data["vocabulary"]
    for name in vocabulary:
        try:
            canonical = Atom(name).name
        except KwartetError as err:
            raise ModelFileError(f"vocabulary: atom {short(name)}: {err}") from None
        if canonical != name:
            raise ModelFileError(
                f"vocabulary: atom {short(name)}: expected it written as {canonical!r}"
            )
    order = data["order"]
    if sorted(order) != sorted(vocabulary):
        raise ModelFileError(
            f"order: {short(order)}: expected the vocabulary {short(vocabulary)}, permuted"
        )
    known = set(vocabulary)
    for agent, seen in data["observed"].items():
        for name in seen:
            if name not in known:
                raise ModelFileError(
                    f"observed: agent {agent!r} observes {short(name)}, which is not in the "
                    "vocabulary"
                )
    law = data["law"]
    nodes = law["nodes"]
    manager = new_manager(backend)
    if order:
        manager.declare(*order)
    built: list[Any] = [manager.false, manager.true]
    levels: list[int] = [len(order), len(order)]  # terminals below every variable
    seen_nodes: set[tuple[int, int, int]] = set()
    for index, node in enumerate(nodes):
        at = f" (at $.law.nodes[{index}])"
        if not (type(node) is list and len(node) == 3 and all(type(x) is int for x in node)):
            raise ModelFileError(
                f"law: node {index}: {short(node)}: expected [variable position, high, low]{at}"
            )
        variable, high, low = node
        reference = index + 2
        if not 0 <= variable < len(order):
            raise ModelFileError(
                f"law: node {index}: variable position {variable}: expected 0..{len(order) - 1}{at}"
            )
        for child in (high, low):
            if not 0 <= child < reference:
                raise ModelFileError(
                    f"law: node {index}: child {child}: expected a reference to an earlier "
                    f"node or a terminal (0..{reference - 1}){at}"
                )
            if levels[child] <= variable:
                raise ModelFileError(
                    f"law: node {index} tests {order[variable]!r} above a child that tests a "
                    f"variable at or above it: expected an ordered BDD{at}"
                )
        if high == low:
            raise ModelFileError(
                f"law: node {index} has the same high and low child ({high}): expected a "
                f"reduced BDD{at}"
            )
        if (variable, high, low) in seen_nodes:
            raise ModelFileError(
                f"law: node {index} repeats an earlier node: expected a reduced BDD{at}"
            )
        seen_nodes.add((variable, high, low))
        built.append(manager.ite(manager.var(order[variable]), built[high], built[low]))
        levels.append(variable)
    root = law["root"]
    if root >= len(built):
        raise ModelFileError(
            f"law: root {root}: expected a reference 0..{len(built) - 1} (at $.law.root)"
        )
    if nodes and root != len(built) - 1:
        raise ModelFileError(
            f"law: root {root}: expected the last node ({len(built) - 1}); nodes the root "
            "does not reach are not written (at $.law.root)"
        )
    try:
        return KnowledgeStructure(vocabulary, built[root], data["observed"], manager=manager)
    except KwartetError as err:
        raise ModelFileError(f"knowledge structure: {err}") from None
