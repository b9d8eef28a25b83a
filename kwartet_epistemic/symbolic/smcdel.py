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
from kwartet_epistemic.symbolic.structure import _plain_errors

if TYPE_CHECKING:
    from kwartet_epistemic.kripke import KripkeModel
    from kwartet_epistemic.symbolic.structure import BddKnowledgeStructure, KnowledgeStructure

__all__ = [
    "SMCDEL_JOBS",
    "SmcdelAnswer",
    "SmcdelError",
    "SmcdelExport",
    "find_smcdel",
    "kripke_to_structure",
    "read_smcdel_output",
    "read_smcdel_variables",
    "run_smcdel",
    "smcdel_export",
    "to_smcdel",
]

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
_ANSI = re.compile(r"\x1b\[[0-9;]*m")

Bdd = Any
FormulaLike = Formula | str


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
        >>> smcdel_export(KripkeModel(2, {"A": [0, 1]}, {"p": [True, False]})).world_of({2})
        1
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
        >>> export = smcdel_export(KnowledgeStructure(["p", "q"], "top", {}))
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


def _queries_of(query: FormulaLike | Sequence[FormulaLike] | None) -> tuple[Formula, ...]:
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


def _comment(value: str) -> str:
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


@_plain_errors
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
    queries = _queries_of(query)
    chosen_jobs = _jobs_of(jobs, actual is not None)
    agents = _agent_names(structure.agents)
    state: dict[str, bool] | None = None
    if actual is not None:
        if not isinstance(actual, Mapping):
            raise ModelError(
                f"actual {short(actual)}: expected the state as values of the variables "
                f"{count_vars[:5]}"
            )
        state = structure._check_assignment(actual)

    law = structure.law
    graph = _LawGraph(manager, law)
    longest = max((len(v) for v in count_vars), default=1) + 2
    direct = graph.expansion_length(longest) <= _DIRECT_LAW_LENGTH
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

    if direct:
        law_text = _expansion(manager, law, var)
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
            bdd = structure._atom_bdd(atom)
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
        lines.append(f"--   {numbers[name]} = {_comment(name)}{note}")
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
            lines.append(f"--   {_comment(atom.name)} = {text}")
    lines.append(
        "-- agents: " + ", ".join(f"{name} = {_comment(agent)}" for agent, name in agents.items())
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
        lines.append(f"-- query {index + 1}: {_comment(formula_excerpt(q, 200))}")
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


def _fresh_name(base: str, fallback: str, taken: set[str]) -> str:
    try:
        name = Atom(base).name
    except KwartetError:
        name = Atom(fallback).name
    while name in taken:
        name = Atom("x" + name).name
    taken.add(name)
    return name


@_plain_errors
def kripke_to_structure(
    model: KripkeModel, *, backend: str = "auto", max_worlds: int = 100_000
) -> tuple[KnowledgeStructure, tuple[frozenset[str], ...]]:
    """A knowledge structure with the same states as an S5 Kripke model, and per world
    its state (the set of true atoms).

    Variables: the model's atoms; per agent bits ``cell(A, j)``, the binary number of
    the agent's block, which the agent observes; and bits ``copy(j)`` numbering worlds
    that agree on all of those (only where some do).  The law is the disjunction of the
    worlds' states, so the worlds and the states correspond one to one and every
    formula over the model's atoms has the same truth value at a world and its state.

    >>> from kwartet_epistemic.kripke import KripkeModel
    >>> m = KripkeModel(3, {"A": [0, 0, 1]}, {"p": [True, False, False]})
    >>> ks, states = kripke_to_structure(m)
    >>> ks.vocabulary, [sorted(s) for s in states]
    (('p', 'cell(A, 0)'), [['p'], [], ['cell(A, 0)']])
    >>> [ks.holds("K_A ~p", s) for s in states] == m.truth_set("K_A ~p").tolist()
    True
    """
    from kwartet_epistemic.kripke.partition import compact
    from kwartet_epistemic.symbolic.backend import new_manager
    from kwartet_epistemic.symbolic.structure import KnowledgeStructure

    n = model.n_worlds
    if n > max_worlds:
        raise ModelTooLargeError(
            f"the model has {n:,} worlds; the export writes at most {max_worlds:,} "
            "(contract() it or raise max_worlds)"
        )
    atoms = sorted(a.name for a in model.atoms)
    taken = set(atoms)
    columns: dict[str, list[bool]] = {name: model.truth_set(Atom(name)).tolist() for name in atoms}
    observed: dict[str, list[str]] = {}
    for index, agent in enumerate(model.agents):
        labels, count = compact(model.labels(agent))
        bits = []
        for j in range((count - 1).bit_length()):
            name = _fresh_name(f"cell({agent}, {j})", f"cell({index}, {j})", taken)
            columns[name] = ((labels >> j) & 1).astype(bool).tolist()
            bits.append(name)
        observed[agent] = bits
    names = list(columns)
    signatures = list(zip(*(columns[name] for name in names), strict=True)) if names else [()] * n
    copies: list[int] = []
    counter: dict[tuple[bool, ...], int] = {}
    for signature in signatures:
        copies.append(counter.get(signature, 0))
        counter[signature] = copies[-1] + 1
    most = max(counter.values(), default=1)
    for j in range((most - 1).bit_length()):
        name = _fresh_name(f"copy({j})", f"copy({j})", taken)
        columns[name] = [bool(c >> j & 1) for c in copies]
        names.append(name)
    states = tuple(frozenset(name for name in names if columns[name][w]) for w in range(n))
    manager = new_manager(backend)
    if names:
        manager.declare(*names)
    law = manager.false
    for w in range(n):
        law |= manager.cube({name: columns[name][w] for name in names})
    return KnowledgeStructure(names, law, observed, manager=manager), states


@_plain_errors
def export_kripke(
    model: KripkeModel,
    query: FormulaLike | Sequence[FormulaLike] | None = None,
    *,
    jobs: Iterable[str] | None = None,
    max_worlds: int = 100_000,
) -> SmcdelExport:
    """The SMCDEL input of a Kripke model (see :func:`kripke_to_structure`)."""
    known = {atom.name for atom in model.atoms}
    for formula in _queries_of(query):
        for atom in sorted(formula.atoms() - model.atoms, key=lambda a: a.name):
            raise ModelError(
                f"atom {atom.name!r} in {formula_excerpt(formula)!r} is not in the model's "
                f"vocabulary {sorted(known)[:8]}"
            )
    structure, states = kripke_to_structure(model, max_worlds=max_worlds)
    actual = None if model.actual is None else structure._assignment_of(states[model.actual])
    title = [f"a Kripke model of {model.n_worlds} worlds, one state per world:"]
    if model.n_worlds <= 1000:
        for w, state in enumerate(states):
            title.append(
                f"  world {w} {_comment(model.world_name(w))}: "
                + (", ".join(_comment(a) for a in sorted(state)) or "(no true variable)")
            )
    export = export_structure(structure, query, actual=actual, jobs=jobs, title=title)
    worlds = {
        frozenset(export.variables[name] for name in state): w for w, state in enumerate(states)
    }
    return SmcdelExport(
        export.text,
        export.variables,
        export.auxiliary,
        export.agents,
        export.jobs,
        export.queries,
        worlds,
    )


# ------------------------------------------------------------------------- games


@_plain_errors
def export_game(
    source: Any,
    query: FormulaLike | Sequence[FormulaLike] | None = None,
    *,
    jobs: Iterable[str] | None = None,
) -> SmcdelExport:
    """The SMCDEL input of a game position (a Game, a PlayerView or an EpistemicState).

    The structure is the symbolic engine's.  On the whole table (a Game, or its state)
    ``TRUE?`` asks at the actual deal.  On a player's view the actual deal is unknown:
    each query φ is asked as ``K_P φ`` and ``K_P ~φ`` (P the viewer) at a state P
    considers possible, which is how ``holds`` answers on a view.
    """
    from kwartet_epistemic.epistemics.state import EpistemicState
    from kwartet_epistemic.game import Game, PlayerView

    if isinstance(source, Game | PlayerView):
        state = EpistemicState(source)
    elif isinstance(source, EpistemicState):
        state = source
    else:
        raise ModelError(
            f"to_smcdel of {short(source)}: expected a KripkeModel, a knowledge structure, a "
            "Game, a PlayerView or an EpistemicState"
        )
    symbolic = state.engine_named("symbolic").structure()
    manager = symbolic.manager
    structure = symbolic.structure
    history = symbolic.history
    queries = _queries_of(query)
    if state.viewer is None:
        cube = symbolic.actual_cube()
    else:
        cube = symbolic.law & symbolic.observation_cube([state.viewer])
        queries = tuple(f for q in queries for f in (K(state.viewer, q), K(state.viewer, Not(q))))
    picked = manager.pick(cube, care_vars=set(symbolic.names)) if symbolic.names else {}
    if picked is None:  # pragma: no cover - the actual deal is always a state
        raise ModelError("the actual deal is not a state of the symbolic structure")
    actual = {name: bool(picked[name]) for name in symbolic.names}
    describe: dict[str, str] = {}
    for (c, s), name in symbolic.var.items():
        owner = history.slot_owner[s]
        where = f"{owner}'s hand or draw" if owner is not None else "a pile"
        describe[name] = f"card {history.deck.cards[c].code} came from slot {s}, {where}"
    who = "the whole table" if state.viewer is None else f"{state.viewer}'s view"
    title = [
        f"a Kwartet position ({who}) after {len(state.record)} events; a variable "
        "o<card>_<slot> says where a card came from, each player observes those of "
        "their own slots",
    ]
    if state.viewer is not None:
        title.append(
            f"each query q is asked as K {state.viewer} q and K {state.viewer} ~q at a state "
            f"{state.viewer} considers possible"
        )
    return export_structure(
        structure,
        queries,
        actual=actual,
        jobs=jobs,
        describe=describe,
        atom_comments=True,
        title=title,
    )


# ------------------------------------------------------------------------- dispatch


@_plain_errors
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
    from kwartet_epistemic.kripke import KripkeModel
    from kwartet_epistemic.symbolic.structure import BddKnowledgeStructure, KnowledgeStructure

    if isinstance(source, KripkeModel):
        if actual is not None:
            raise ModelError("a Kripke model's TRUE? is at its actual world: drop actual=")
        return export_kripke(source, query, jobs=jobs)
    if isinstance(source, KnowledgeStructure):
        state = None
        if actual is not None:
            state = actual if isinstance(actual, Mapping) else source._assignment_of(actual)
        return export_structure(source, query, actual=state, jobs=jobs)
    if isinstance(source, BddKnowledgeStructure):
        return export_structure(source, query, actual=actual, jobs=jobs)
    if actual is not None:
        raise ModelError("a game position's TRUE? is at its actual deal: drop actual=")
    return export_game(source, query, jobs=jobs)


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
