"""Export to SMCDEL's text input, so any answer of this library can be checked in SMCDEL.

`SMCDEL <https://github.com/jrclogic/SMCDEL>`_ (Gattinger's symbolic model checker for
dynamic epistemic logic) reads a knowledge structure as text: ``VARS`` (numbered
variables), ``LAW`` (a Boolean formula: its models are the states), ``OBS`` (per agent
the variables it observes), then queries ``TRUE? {state} φ``, ``VALID? φ`` and
``WHERE? φ``.  :func:`to_smcdel` writes that text for a
:class:`~kwartet_epistemic.kripke.KripkeModel`, a knowledge structure or a game position
(a :class:`~kwartet_epistemic.Game`, a player's view or an epistemic state), with the
mapping from our names (``has(A, 7S)``, ``o3_1``) to SMCDEL's numbers in comments.

- A **knowledge structure** keeps its variables.  A small law is written as a formula
  (the BDD's Shannon expansion); a larger one in size about linear in the BDD, with
  auxiliary variables: per level of the BDD, the bits of the number of the node that
  the state's evaluation path passes there (0: none), each defined from the level's
  incoming edges.  They are determined by the state, so no state is added, and nobody
  observes them.  (One variable per node would do too, but SMCDEL's BDD of such a law
  grows as the number of nodes times the width: over two minutes instead of about
  two seconds on a 12-card fish position whose law has 2,169 nodes.)
- A **Kripke model** (S5: one partition per agent) becomes the structure of
  :func:`kripke_to_structure`: its atoms, per agent bits ``cell(A, j)`` naming the agent's
  block (which the agent observes), and bits ``copy(j)`` only where two worlds would
  otherwise be the same state; the law is the disjunction of the worlds.
- A **game position** is the symbolic engine's structure: variables ``o<card>_<slot>``
  ("this card came from that slot"), each player observing those of their own slots;
  ``has(P, card)`` is written as the formula over them that the engine uses.

Formulas: SMCDEL has K, Kw, common and distributed knowledge and public announcements;
``M_a φ`` is written ``~K a ~φ``, ``E_G φ`` as the conjunction of ``K_a φ`` over G, and
``<!φ>ψ`` with SMCDEL's own ``<! φ>`` (``~[!φ]~ψ``).  Agent names that SMCDEL cannot read
(``1``, ``K``, ``Top``) are renamed (listed in the comments).

>>> from kwartet_epistemic.symbolic import KnowledgeStructure
>>> ks = KnowledgeStructure(["p", "q"], "p | q", {"A": ["p"], "B": ["q"]})
>>> print(ks.to_smcdel("K_A p", actual={"p"}))  # doctest: +NORMALIZE_WHITESPACE
-- SMCDEL input written by kwartet_epistemic
-- variables:
--   1 = "p"
--   2 = "q"
-- agents: A = "A", B = "B"
VARS 1, 2
LAW (1 | 2)
OBS
  A: 1
  B: 2
-- query 1: "K_A p"
TRUE? {1} (K A 1)
VALID? (K A 1)
WHERE? (K A 1)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kwartet_epistemic._deprecation import moved_name
from kwartet_epistemic._safejson import short
from kwartet_epistemic.errors import KwartetError, ModelError, ModelTooLargeError
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
from kwartet_epistemic.symbolic.backend import plain_errors

if TYPE_CHECKING:
    from kwartet_epistemic.symbolic.structure import BddKnowledgeStructure

__all__ = [
    "SMCDEL_JOBS",
    "SmcdelAnswer",
    "SmcdelError",
    "SmcdelExport",
    "comment_text",
    "export_structure",
    "find_smcdel",
    "formula_text",
    "queries_of",
    "read_smcdel_output",
    "read_smcdel_variables",
    "run_smcdel",
]

# Names that moved to the floor above the types they convert (deprecated here).
_MOVED = {
    "kripke_to_structure": "kwartet_epistemic.symbolic.translations",
    "export_kripke": "kwartet_epistemic.symbolic.translations",
    "export_game": "kwartet_epistemic.epistemics.symbolic",
    "smcdel_export": "kwartet_epistemic.conversions",
    "to_smcdel": "kwartet_epistemic.conversions",
}

SMCDEL_JOBS = ("TRUE?", "VALID?", "WHERE?")
"""The kinds of query SMCDEL's text input has, in the order they are written per formula."""

# Words SMCDEL's lexer reads as keywords, so never as agent names.
_KEYWORDS = frozenset(
    [
        "VARS",
        "LAW",
        "OBS",
        "Top",
        "Bot",
        "Not",
        "not",
        "iff",
        "AND",
        "OR",
        "XOR",
        "ONEOF",
        "ForAll",
        "Forall",
        "Exists",
        "K",
        "Kw",
    ]
)
_SMCDEL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*\Z")
# The longest text written (characters): SMCDEL reads the whole file into memory.
TEXT_LIMIT = 20_000_000
# A law whose Shannon expansion is at most this long is written as a formula.
_DIRECT_LAW_LENGTH = 2_000
# Else a law of at most this many states is written as the list of its states (one
# conjunction of literals each), as an SMCDEL user writes a small model; only larger laws
# need the auxiliary variables.
_LISTED_STATES = 4_096
_ANSI = re.compile(r"\x1b\[[0-9;]*m")

Bdd = Any


class SmcdelError(KwartetError):
    """SMCDEL could not be found or run, or its output could not be read."""


# ------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class SmcdelAnswer:
    """One answer of SMCDEL: the job (``"TRUE?"``, ``"VALID?"`` or ``"WHERE?"``), the
    query's number (0-based, in the order given to the export) and the value: a bool,
    or for ``WHERE?`` the states where the query holds, each as the frozenset of the
    numbers of its true variables."""

    job: str
    query: int
    value: bool | tuple[frozenset[int], ...]


def read_smcdel_output(output: str) -> list[bool | tuple[frozenset[int], ...]]:
    """The answers in SMCDEL's output, in order: True/False per ``TRUE?`` and ``VALID?``,
    a tuple of states (sets of true variable numbers) per ``WHERE?``.

    >>> read_smcdel_output("Is K a 1 valid on F?\\nFalse\\n\\nAt which states is 1 true?\\n"
    ...                    "[1]\\n[1,2]\\n\\n")
    [False, (frozenset({1}), frozenset({1, 2}))]
    """
    lines = [_ANSI.sub("", line).strip() for line in output.splitlines()]
    answers: list[bool | tuple[frozenset[int], ...]] = []
    position = 0
    while position < len(lines):
        line = lines[position]
        position += 1
        if line.startswith("Is ") and line.endswith("?"):
            value = lines[position] if position < len(lines) else ""
            if value not in ("True", "False"):
                raise SmcdelError(f"SMCDEL output: {short(value)} after {short(line)}")
            answers.append(value == "True")
            position += 1
        elif line.startswith("At which states is "):
            states: list[frozenset[int]] = []
            while position < len(lines) and lines[position].startswith("["):
                inside = lines[position].strip("[]")
                try:
                    states.append(frozenset(int(x) for x in inside.split(",") if x))
                except ValueError:
                    raise SmcdelError(f"SMCDEL output: {short(lines[position])}") from None
                position += 1
            answers.append(tuple(states))
    return answers


_VARIABLE_LINE = re.compile(r'--   (\d+) = ("(?:[^"\\]|\\.)*")')


def read_smcdel_variables(text: str) -> dict[str, int]:
    """The map from our variable names to SMCDEL's numbers, read back from the comments
    of an export (the inverse of how :func:`to_smcdel` lists them).

    >>> from kwartet_epistemic.symbolic import KnowledgeStructure
    >>> read_smcdel_variables(KnowledgeStructure(["p", "has(A, Q♥)"], "top", {}).to_smcdel())
    {'p': 1, 'has(A, Q♥)': 2}
    """
    found: dict[str, int] = {}
    for match in _VARIABLE_LINE.finditer(text):
        name = json.loads(match.group(2))
        if name in found:
            raise SmcdelError(f"SMCDEL input: variable {name!r} is listed twice")
        found[name] = int(match.group(1))
    return found


# ------------------------------------------------------------------------- the export


@dataclass(frozen=True)
class SmcdelExport:
    """SMCDEL's text input for a structure and queries, with the maps to read it back.

    ``text`` is the input; ``variables`` maps our variable names (atoms of a knowledge
    structure, ``o<card>_<slot>`` of a game, ``cell(A, 0)`` of a Kripke model) to
    SMCDEL's numbers; ``auxiliary`` lists the numbers of the law's auxiliary (and
    constant) variables; ``agents`` maps our agent names to SMCDEL's; ``jobs`` lists
    ``(job, query number)`` in the order SMCDEL answers them; ``queries`` are the
    formulas as given; ``worlds`` (Kripke models only) maps each SMCDEL state back to
    its world.
    """

    text: str
    variables: Mapping[str, int]
    auxiliary: tuple[int, ...]
    agents: Mapping[str, str]
    jobs: tuple[tuple[str, int], ...]
    queries: tuple[Formula, ...]
    worlds: Mapping[frozenset[int], int] | None = field(default=None)

    def answers(self, output: str) -> list[SmcdelAnswer]:
        """SMCDEL's output read back, one :class:`SmcdelAnswer` per job."""
        values = read_smcdel_output(output)
        if len(values) != len(self.jobs):
            raise SmcdelError(
                f"SMCDEL gave {len(values)} answers to {len(self.jobs)} queries; output "
                f"starts {short(output[:300])}"
            )
        return [
            SmcdelAnswer(job, query, value)
            for (job, query), value in zip(self.jobs, values, strict=True)
        ]

    def world_of(self, state: Collection[int]) -> int:
        """The world of a Kripke model whose state SMCDEL printed (auxiliary variables,
        which SMCDEL lists too, are ignored).

        >>> from kwartet_epistemic.kripke import KripkeModel
        >>> export = kw.smcdel_export(KripkeModel(3, {"A": [0, 0, 1]}, {"p": [True, False, False]}))
        >>> export.world_of({1}), export.world_of(set()), export.world_of({2})
        (0, 1, 2)
        """
        if self.worlds is None:
            raise SmcdelError("world_of: this export is not of a Kripke model")
        kept = frozenset(state) - frozenset(self.auxiliary)
        found = self.worlds.get(kept)
        if found is None:
            raise SmcdelError(f"SMCDEL state {sorted(state)} is no world of the model")
        return found

    def state_names(self, state: Collection[int]) -> frozenset[str]:
        """Our names of the true (non-auxiliary) variables of an SMCDEL state.

        >>> from kwartet_epistemic.symbolic import KnowledgeStructure
        >>> export = kw.smcdel_export(KnowledgeStructure(["p", "q"], "top", {}))
        >>> sorted(export.state_names({2}))
        ['q']
        """
        names = {number: name for name, number in self.variables.items()}
        return frozenset(names[n] for n in state if n in names)

    def run(self, binary: str | os.PathLike[str] | None = None) -> list[SmcdelAnswer]:
        """Run SMCDEL on the text (see :func:`run_smcdel`) and read its answers."""
        return self.answers(run_smcdel(self.text, binary))


def _agent_names(agents: Iterable[str]) -> dict[str, str]:
    """SMCDEL names for our agents: the same where SMCDEL can read them, else ``aN``."""
    agents = list(agents)
    chosen: dict[str, str] = {}
    taken = {a for a in agents if _SMCDEL_NAME.match(a) and a not in _KEYWORDS}
    number = 0
    for agent in agents:
        if agent in taken:
            chosen[agent] = agent
            continue
        while True:
            number += 1
            candidate = f"a{number}"
            if candidate not in taken:
                break
        taken.add(candidate)
        chosen[agent] = candidate
    return chosen


def formula_text(
    formula: Formula,
    atom_text: Callable[[Atom], str],
    agents: Mapping[str, str],
    limit: int = TEXT_LIMIT,
) -> str:
    """The formula in SMCDEL's syntax, fully parenthesised; atoms as ``atom_text`` says.

    >>> from kwartet_epistemic.logic import parse
    >>> formula_text(parse("M_A p & E_{A,B} q"), lambda a: {"p": "1", "q": "2"}[a.name],
    ...              {"A": "A", "B": "B"})
    '((~(K A ~1)) & (AND (K A 2, K B 2)))'
    """

    def agent(name: str) -> str:
        found = agents.get(name)
        if found is None:
            raise ModelError(
                f"unknown agent {name!r} in {formula_excerpt(formula)!r}: expected one of "
                f"{sorted(agents)}"
            )
        return found

    def group(members: Sequence[str]) -> str:
        return "(" + ",".join(agent(a) for a in members) + ")"

    def node_text(node: Formula, parts: list[str]) -> str:
        if isinstance(node, Atom):
            text = atom_text(node)
            return text if text.isdigit() or text in ("Top", "Bot") else f"({text})"
        elif isinstance(node, Top):
            text = "Top"
        elif isinstance(node, Bottom):
            text = "Bot"
        elif isinstance(node, Not):
            text = f"~{parts[0]}"
        elif isinstance(node, And):
            text = f"{parts[0]} & {parts[1]}"
        elif isinstance(node, Or):
            text = f"{parts[0]} | {parts[1]}"
        elif isinstance(node, Implies):
            text = f"{parts[0]} -> {parts[1]}"
        elif isinstance(node, Iff):
            text = f"{parts[0]} iff {parts[1]}"
        elif isinstance(node, K):
            text = f"K {agent(node.agent)} {parts[0]}"
        elif isinstance(node, Kw):
            text = f"Kw {agent(node.agent)} {parts[0]}"
        elif isinstance(node, M):
            text = f"~(K {agent(node.agent)} ~{parts[0]})"
        elif isinstance(node, E):
            text = "AND (" + ", ".join(f"K {agent(a)} {parts[0]}" for a in node.group) + ")"
        elif isinstance(node, C):
            text = f"{group(node.group)} comknow that {parts[0]}"
        elif isinstance(node, D):
            text = f"{group(node.group)} distknow that {parts[0]}"
        elif isinstance(node, Announce):
            text = f"[ ! {parts[0]} ] {parts[1]}"
        elif isinstance(node, AnnounceDual):
            text = f"< ! {parts[0]} > {parts[1]}"
        else:
            raise ModelError(
                f"SMCDEL has no counterpart of {type(node).__name__} in "
                f"{formula_excerpt(formula)!r}"
            )
        if len(text) > limit:
            raise ModelTooLargeError(
                f"the formula {formula_excerpt(formula)!r} is more than {limit:,} characters "
                "in SMCDEL's syntax (shared parts are written out, E_G once per agent)"
            )
        return text if isinstance(node, Top | Bottom) else f"({text})"

    return formula.fold(node_text)


def queries_of(query: FormulaLike | Sequence[FormulaLike] | None) -> tuple[Formula, ...]:
    if query is None:
        return ()
    if isinstance(query, Formula | str):
        return (as_formula(query),)
    if isinstance(query, Sequence):
        return tuple(as_formula(q) for q in query)
    raise ModelError(f"query {short(query)}: expected a formula, its text, a list of them or None")


def _jobs_of(jobs: Iterable[str] | None, has_actual: bool) -> tuple[str, ...]:
    if jobs is None:
        return SMCDEL_JOBS if has_actual else SMCDEL_JOBS[1:]
    chosen = tuple(jobs) if not isinstance(jobs, str) else (jobs,)
    for job in chosen:
        if job not in SMCDEL_JOBS:
            raise ModelError(f"SMCDEL job {short(job)}: expected one of {', '.join(SMCDEL_JOBS)}")
    if "TRUE?" in chosen and not has_actual:
        raise ModelError("the TRUE? job needs a state: give actual=...")
    return chosen


def comment_text(value: str) -> str:
    """A name in a comment: JSON text in ASCII (SMCDEL reads files in the locale)."""
    return json.dumps(value, ensure_ascii=True)


class _LawGraph:
    """The nodes of a BDD (as functions, so either backend and complement edges work
    alike), found by cofactoring on each node's top variable."""

    def __init__(self, manager: Any, root: Bdd) -> None:
        self.manager = manager
        self.root = root
        self.order: list[Bdd] = []  # non-terminal nodes, parents before children
        self.top: dict[Bdd, str] = {}
        self.children: dict[Bdd, tuple[Bdd, Bdd]] = {}  # (high, low)
        terminal = (manager.true, manager.false)
        if root in terminal:
            return
        seen = {root}
        stack = [root]
        while stack:
            node = stack.pop()
            self.order.append(node)
            name = node.var
            high = manager.let({name: True}, node)
            low = manager.let({name: False}, node)
            self.top[node] = name
            self.children[node] = (high, low)
            for child in (high, low):
                if child not in terminal and child not in seen:
                    seen.add(child)
                    stack.append(child)
        self.order.sort(key=lambda n: manager.level_of_var(self.top[n]))

    def expansion_length(self, variable_length: int) -> int:
        """About how long the Shannon expansion of the law is, as text."""
        manager = self.manager
        length: dict[Bdd, int] = {manager.true: 3, manager.false: 3}
        for node in reversed(self.order):
            high, low = self.children[node]
            length[node] = 2 * variable_length + length[high] + length[low] + 16
            if length[node] > 10 * TEXT_LIMIT:
                length[node] = 10 * TEXT_LIMIT
        return length[self.root] if self.order else 3


def _expansion(manager: Any, root: Bdd, variable: Callable[[str], str]) -> str:
    """The BDD as a formula: its Shannon expansion, shared parts written out."""
    true, false = manager.true, manager.false
    if root == true:
        return "Top"
    if root == false:
        return "Bot"
    graph = _LawGraph(manager, root)
    text: dict[Bdd, str] = {true: "Top", false: "Bot"}
    for node in reversed(graph.order):
        v = variable(graph.top[node])
        high, low = graph.children[node]
        if high == true and low == false:
            text[node] = v
        elif high == false and low == true:
            text[node] = f"~{v}"
        elif high == true:
            text[node] = f"({v} | {text[low]})"
        elif low == true:
            text[node] = f"(~{v} | {text[high]})"
        elif high == false:
            text[node] = f"(~{v} & {text[low]})"
        elif low == false:
            text[node] = f"({v} & {text[high]})"
        else:
            text[node] = f"(({v} & {text[high]}) | (~{v} & {text[low]}))"
        if len(text[node]) > TEXT_LIMIT:
            raise ModelTooLargeError(
                f"a formula over the variables is more than {TEXT_LIMIT:,} characters long"
            )
    return text[root]


def _listed_law(
    states: Iterable[Mapping[str, bool]], names: Sequence[str], var: Callable[[str], str]
) -> str:
    """The law as the disjunction of its states, each the conjunction of its literals."""
    terms = [
        "AND (" + ", ".join(var(n) if state[n] else f"~{var(n)}" for n in names) + ")"
        for state in states
    ]
    return terms[0] if len(terms) == 1 else "OR (" + ",\n    ".join(terms) + ")"


def _coded_law(
    graph: _LawGraph,
    manager: Any,
    var: Callable[[str], str],
    index_of: Mapping[Bdd, int],
    bits_at: Mapping[str, list[int]],
) -> str:
    """The law as definitions of the bits of the node the evaluation path passes at
    each level, and the condition that the path ends at true.

    One-hot variables (one per node) would make SMCDEL's BDD of the law about as large
    as the number of nodes times the width; numbers in binary keep it near the number
    of nodes times the logarithm of the width.
    """

    def at(node: Bdd) -> list[str]:
        if node not in index_of:
            return []  # the root: every path passes it
        bits = bits_at[graph.top[node]]
        return [str(b) if index_of[node] >> j & 1 else f"~{b}" for j, b in enumerate(bits)]

    entering: dict[Bdd, list[str]] = {}
    accept: list[str] = []
    for node in graph.order:
        v = var(graph.top[node])
        high, low = graph.children[node]
        here = at(node)
        for child, literal in ((high, v), (low, f"~{v}")):
            edge = "AND (" + ", ".join([*here, literal]) + ")"
            if child == manager.true:
                accept.append(edge)
            elif child != manager.false:
                entering.setdefault(child, []).append(edge)
    conjuncts = []
    level_nodes: dict[str, list[Bdd]] = {}
    for node in index_of:
        level_nodes.setdefault(graph.top[node], []).append(node)
    for name, bits in bits_at.items():
        for j, bit in enumerate(bits):
            ways = [
                way
                for node in level_nodes[name]
                if index_of[node] >> j & 1
                for way in entering[node]
            ]
            conjuncts.append(f"({bit} iff OR ({', '.join(ways)}))")
    conjuncts.append(f"OR ({', '.join(accept)})")
    return "AND (" + ",\n     ".join(conjuncts) + ")"


@plain_errors
def export_structure(
    structure: BddKnowledgeStructure,
    query: FormulaLike | Sequence[FormulaLike] | None = None,
    *,
    actual: Mapping[str, bool] | None = None,
    jobs: Iterable[str] | None = None,
    describe: Mapping[str, str] | None = None,
    atom_comments: bool = False,
    title: Sequence[str] = (),
) -> SmcdelExport:
    """The SMCDEL input of any :class:`BddKnowledgeStructure` (the general case).

    ``actual`` is a state as values of the structure's ``count_vars`` (for ``TRUE?``);
    ``describe`` adds a note per variable to the comments; with ``atom_comments`` the
    formula written for each atom of the queries is listed too.
    """
    manager = structure.manager
    count_vars = list(structure.count_vars)
    queries = queries_of(query)
    chosen_jobs = _jobs_of(jobs, actual is not None)
    agents = _agent_names(structure.agents)
    state: dict[str, bool] | None = None
    if actual is not None:
        if not isinstance(actual, Mapping):
            raise ModelError(
                f"actual {short(actual)}: expected the state as values of the variables "
                f"{count_vars[:5]}"
            )
        state = structure.check_assignment(actual)

    law = structure.law
    graph = _LawGraph(manager, law)
    longest = max((len(v) for v in count_vars), default=1) + 2
    expanded = graph.expansion_length(longest) <= _DIRECT_LAW_LENGTH
    listed = not expanded and 0 < structure.count_states() <= _LISTED_STATES
    direct = expanded or listed
    levels = sorted(count_vars, key=manager.level_of_var)
    # Numbers (SMCDEL's variable order) in the BDD's variable order, each level's
    # auxiliary bits just before the level's variable: below everything they are
    # defined from, above the variable that their node tests.
    numbers: dict[str, int] = {}
    # Per level (a variable the law tests), its nodes numbered 1, 2, ... and the bits
    # of the number of the node the evaluation path passes there (0: none).
    index_of: dict[Bdd, int] = {}
    bits_at: dict[str, list[int]] = {}
    nodes_at: dict[str, list[Bdd]] = {}
    if not direct:
        for node in graph.order[1:]:  # the root is the only node of its level
            nodes_at.setdefault(graph.top[node], []).append(node)
            index_of[node] = len(nodes_at[graph.top[node]])
    next_number = 1
    for name in levels:
        count = len(nodes_at.get(name, ()))
        bits_at[name] = list(range(next_number, next_number + count.bit_length()))
        next_number += count.bit_length()
        numbers[name] = next_number
        next_number += 1
    aux_numbers = [n for bits in bits_at.values() for n in bits]
    observed = {
        agent: sorted(numbers[v] for v in count_vars if v not in structure.unobserved_vars[agent])
        for agent in structure.agents
    }
    # SMCDEL needs at least one variable and one OBS line, each of at least one
    # variable: a variable that the law fixes to false stands in (it adds no state).
    constant: int | None = None
    if not numbers or not observed or any(not seen for seen in observed.values()):
        constant = next_number
        next_number += 1
    auxiliary = tuple(aux_numbers) + (() if constant is None else (constant,))

    def var(name: str) -> str:
        return str(numbers[name])

    if expanded:
        law_text = _expansion(manager, law, var)
    elif listed:
        law_text = _listed_law(structure.assignments(limit=_LISTED_STATES), count_vars, var)
    else:
        law_text = _coded_law(graph, manager, var, index_of, bits_at)
    if constant is not None:
        law_text = f"({law_text}) & ~{constant}"
    if len(law_text) > TEXT_LIMIT:
        raise ModelTooLargeError(f"the law is more than {TEXT_LIMIT:,} characters long")

    atom_texts: dict[Atom, str] = {}

    def atom_text(atom: Atom) -> str:
        found = atom_texts.get(atom)
        if found is None:
            bdd = structure.atom_bdd(atom)
            outside = sorted(set(manager.support(bdd)) - set(count_vars))
            if outside:
                raise ModelError(
                    f"atom {atom.name!r} depends on {outside}, which are not variables of the state"
                )
            found = atom_texts[atom] = _expansion(manager, bdd, var)
        return found

    query_texts = [formula_text(q, atom_text, agents) for q in queries]

    lines = ["-- SMCDEL input written by kwartet_epistemic", *(f"-- {t}" for t in title)]
    lines.append("-- variables:")
    for name in levels:
        note = f"  ({describe[name]})" if describe and name in describe else ""
        lines.append(f"--   {numbers[name]} = {comment_text(name)}{note}")
    if aux_numbers:
        lines.append(
            f"--   the other numbers up to {max(aux_numbers)}: auxiliary, the bits (just "
            "before each variable) of the number of the law's BDD node testing that "
            "variable that the state's evaluation path passes (0: none); determined by "
            "the state, observed by nobody"
        )
    if constant is not None:
        lines.append(
            f"--   {constant}: a constant (false) variable, observed by agents who see nothing"
        )
    if atom_comments and atom_texts:
        lines.append("-- atoms of the queries:")
        for atom, text in atom_texts.items():
            lines.append(f"--   {comment_text(atom.name)} = {text}")
    lines.append(
        "-- agents: "
        + ", ".join(f"{name} = {comment_text(agent)}" for agent, name in agents.items())
    )
    all_numbers = sorted([*numbers.values(), *auxiliary])
    lines.append("VARS " + ", ".join(map(str, all_numbers)))
    lines.append(f"LAW {law_text}")
    lines.append("OBS")
    if not agents:
        name = "nobody"
        lines.append(f"  {name}: {constant}")
    for agent, name in agents.items():
        seen = observed[agent] or [constant or 0]  # (constant is set when needed)
        lines.append(f"  {name}: {', '.join(map(str, seen))}")
    job_list: list[tuple[str, int]] = []
    true_numbers: list[int] = []
    if state is not None:
        true_numbers = [numbers[v] for v in count_vars if state[v]]
        if not direct:
            node = graph.root
            while node not in (manager.true, manager.false):
                if node in index_of:
                    bits = bits_at[graph.top[node]]
                    true_numbers += [b for j, b in enumerate(bits) if index_of[node] >> j & 1]
                high, low = graph.children[node]
                node = high if state[graph.top[node]] else low
        true_numbers.sort()
    for index, (q, text) in enumerate(zip(queries, query_texts, strict=True)):
        lines.append(f"-- query {index + 1}: {comment_text(formula_excerpt(q, 200))}")
        for job in chosen_jobs:
            if job == "TRUE?":
                lines.append(f"TRUE? {{{', '.join(map(str, true_numbers))}}} {text}")
            else:
                lines.append(f"{job} {text}")
            job_list.append((job, index))
    text = "\n".join(lines) + "\n"
    if len(text) > TEXT_LIMIT:
        raise ModelTooLargeError(f"the SMCDEL input is more than {TEXT_LIMIT:,} characters long")
    return SmcdelExport(text, dict(numbers), auxiliary, agents, tuple(job_list), queries)


# ------------------------------------------------------------------------- Kripke models


# ------------------------------------------------------------------------- running it


def find_smcdel() -> Path | None:
    """SMCDEL's ``smcdel`` command: ``$SMCDEL``, else ``smcdel`` on the PATH, else
    ``$ROOT/inst/bin/smcdel`` (``ROOT`` defaults to ``/tmp/smcdel``, where
    ``shared/tools/smcdel/build.sh`` builds it); None when there is none."""
    given = os.environ.get("SMCDEL")
    if given:
        path = Path(given)
        return path if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which("smcdel")
    if found:
        return Path(found)
    built = Path(os.environ.get("ROOT", "/tmp/smcdel")) / "inst" / "bin" / "smcdel"
    return built if built.is_file() and os.access(built, os.X_OK) else None


def run_smcdel(
    text: str, binary: str | os.PathLike[str] | None = None, *, timeout: float = 120
) -> str:
    """Run SMCDEL on the input text (read from its standard input); its output.

    Raises :class:`SmcdelError` when SMCDEL is not found, fails or takes too long.
    """
    path = Path(binary) if binary is not None else find_smcdel()
    if path is None:
        raise SmcdelError(
            "SMCDEL's smcdel command is not found: set SMCDEL to its path (build it with "
            "shared/tools/smcdel/build.sh)"
        )
    try:
        done = subprocess.run(
            [str(path), "-"],
            input=text,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise SmcdelError(f"running {path}: {err}") from err
    if done.returncode != 0:
        raise SmcdelError(
            f"{path} failed (exit {done.returncode}): {short(done.stderr.strip()[-500:])}"
        )
    return done.stdout


def __getattr__(name: str) -> Any:
    return moved_name(__name__, name, _MOVED)
