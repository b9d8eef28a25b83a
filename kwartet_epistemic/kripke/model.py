"""Explicit S5 Kripke models held as numpy arrays.

A :class:`KripkeModel` has ``n`` worlds numbered ``0..n-1``, one partition per agent
(held as one block label per world), a valuation (one boolean mask per atom) and a
designated, actual world.  Truth sets are boolean masks over the worlds, so models of
a few million worlds are checked with whole-array numpy work:

- ``K_a φ``: the worlds whose a-block has no ``¬φ`` world (a scatter and a gather);
- ``C_G φ``: the same over the connected components of the union of G's partitions;
- ``D_G φ``: the same over the intersection of G's partitions;
- ``[!φ]ψ``: ψ evaluated in the submodel of the φ-worlds.

>>> from kwartet_epistemic.logic import parse
>>> model = KripkeModel.from_worlds(
...     ["w0", "w1"], {"w0": [], "w1": ["p"]}, partitions={"A": [["w0", "w1"]], "B": []},
...     actual="w1")
>>> model
<KripkeModel: 2 worlds, agents A B, atoms p, actual world 1 'w1'>
>>> model.holds("p & ~K_A p & K_B p"), model.truth_set("K_B p").tolist()
(True, [False, True])
>>> model.announce("p").holds("K_A p")
True
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from kwartet_epistemic._deprecation import deprecated
from kwartet_epistemic._safejson import short
from kwartet_epistemic.errors import (
    FalseAnnouncementError,
    KwartetError,
    ModelError,
    ModelFileError,
    ModelTooLargeError,
)
from kwartet_epistemic.kripke.partition import (
    BoolArray,
    IntArray,
    PartitionLike,
    Relation,
    box,
    compact,
    connected_components,
    first_of_each,
    intersection,
    partition_labels,
    set_ids,
    sorted_unique,
)
from kwartet_epistemic.logic._trampoline import Step, run
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
    check_agent,
    formula_excerpt,
)
from kwartet_epistemic.logic.parser import as_formula
from kwartet_epistemic.model_files import (
    KRIPKE_MODEL_FORMAT,
    MODEL_FILE_VERSION,
    check_model_data,
    dump_json,
    read_model_file,
    read_model_text,
    save_text,
)

if TYPE_CHECKING:
    import networkx

    from kwartet_epistemic.kripke.action import ActionModel
    from kwartet_epistemic.symbolic.structure import KnowledgeStructure

__all__ = ["KripkeModel", "Valuation"]

Valuation = (
    Mapping[str, npt.ArrayLike]
    | Mapping[Atom, npt.ArrayLike]
    | Mapping[str | Atom, npt.ArrayLike]
    | Callable[[str], npt.ArrayLike | None]
)

# Truth sets of subformulas are kept per model up to this many bytes, so repeated
# queries (and shared subformulas across queries) are not recomputed.
_CACHE_BYTES = 256 * 2**20


def _read_only(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    array.setflags(write=False)
    return array


def _evaluated_children(node: Formula) -> tuple[Formula, ...]:
    """The children whose truth sets a node needs in the same (sub)model."""
    # The operand of an announcement is evaluated in the submodel, not here.
    return (node.announced,) if isinstance(node, Announce | AnnounceDual) else node.args


def _box_within(
    partition: tuple[IntArray, int], truth: BoolArray, within: BoolArray | None
) -> BoolArray:
    """Knowledge in the submodel ``within``: blocks count only their worlds inside it."""
    labels, count = partition
    if within is None:
        return box(labels, count, truth)
    spoiled = np.zeros(count, dtype=bool)
    spoiled[labels[within & ~truth]] = True
    result: BoolArray = ~spoiled[labels]
    return result


_UNARY = K("A", Top()).precedence

# Nested announcements keep two truth sets per level while their operands are evaluated.
_NESTED_BYTES = 512 * 2**20


def _announcement_depth(root: Formula) -> int:
    """The deepest nesting of announcements' operands (each a submodel held at once)."""
    if not any(isinstance(node, Announce | AnnounceDual) for node in _distinct_nodes(root)):
        return 0

    def depth(node: Formula, depths: list[int]) -> int:
        if isinstance(node, Announce | AnnounceDual):
            return max(depths[0], depths[1] + 1)
        return max(depths, default=0)

    return root.fold(depth)


def _distinct_nodes(root: Formula) -> list[Formula]:
    seen: set[int] = set()
    found: list[Formula] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            found.append(node)
            stack.extend(node.args)
    return found


def _register_needs(root: Formula, needs: dict[int, int]) -> None:
    """Fill ``needs`` with the number of truth sets each node's evaluation holds at once
    at best (the Ershov number: children in decreasing need), for the nodes evaluated
    in the same (sub)model as ``root``."""
    stack = [root]
    while stack:
        node = stack[-1]
        if id(node) in needs:
            stack.pop()
            continue
        children = _evaluated_children(node)
        waiting = [child for child in children if id(child) not in needs]
        if waiting:
            stack.extend(waiting)
            continue
        stack.pop()
        ordered = sorted((needs[id(child)] for child in children), reverse=True)
        needs[id(node)] = max([1] + [need + i for i, need in enumerate(ordered)])


def _atom_name(atom: str | Atom) -> str:
    return atom.name if isinstance(atom, Atom) else Atom(atom).name


class KripkeModel:
    """An S5 Kripke model with a designated world, stored as numpy arrays.

    ``KripkeModel(worlds, partitions, valuation, actual=0, world_names=None)``:

    - ``worlds``: the number of worlds, or a sequence of world names (their number);
    - ``partitions``: per agent, one label per world (equal labels = indistinguishable),
      a list of blocks of world indices, or a relation that must be an equivalence
      (:class:`~kwartet_epistemic.kripke.partition.Relation` of pairs, a set of pairs, a
      mapping world -> related worlds, or an ``n × n`` boolean matrix); otherwise
      :class:`~kwartet_epistemic.errors.ModelError`;
    - ``valuation``: per atom (name or :class:`Atom`) a boolean mask over the worlds,
      or a function from atom name to mask (or ``None`` for unknown atoms), consulted
      lazily; pass ``atoms=`` to name the vocabulary of a function valuation;
    - ``actual``: the index (or name) of the designated world, or ``None``;
    - ``spelling``: a function from an atom's name to its name in the vocabulary, for
      models whose atoms have several spellings (a game's model reads ``has(C, 7♦)``,
      ``has(C, 7d)`` and ``has(C, seven of diamonds)`` as ``has(C, 7D)``, as
      ``kw.knowledge`` does); it raises ``ValueError`` for a name that is no atom.  It is
      kept by announcements and updates, not by saved files.

    Models never change: announcements and updates return new models.  See
    :meth:`from_worlds` for building small models from Python objects.

    >>> model = KripkeModel(4, {"A": [0, 0, 1, 1], "B": [0, 1, 0, 1]},
    ...                     {"p": [True, True, False, False], "q": [True, False, True, False]})
    >>> model.holds("K_A p & ~K_A q & K_B q"), model.holds("C_{A,B} (p | ~p)")
    (True, True)
    """

    def __init__(
        self,
        worlds: int | Sequence[Hashable],
        partitions: Mapping[str, PartitionLike],
        valuation: Valuation | None = None,
        actual: int | Hashable | None = 0,
        world_names: Sequence[Hashable] | None = None,
        *,
        atoms: Iterable[str | Atom] | None = None,
        spelling: Callable[[str], str] | None = None,
    ) -> None:
        if spelling is not None and not callable(spelling):
            raise ModelError(f"spelling {spelling!r}: expected a function from atom to atom name")
        self._spelling = spelling
        if isinstance(worlds, int | np.integer):
            n_worlds = int(worlds)
        else:
            world_names = list(worlds) if world_names is None else world_names
            n_worlds = len(worlds)
        if n_worlds < 0:
            raise ModelError(f"a model needs a non-negative number of worlds, got {n_worlds}")
        self._n = n_worlds
        self._names: npt.NDArray[np.object_] | None = None
        if world_names is not None:
            names = np.empty(len(world_names), dtype=object)
            names[:] = [str(name) for name in world_names]
            if names.size != n_worlds:
                raise ModelError(f"{names.size} world names given for {n_worlds} worlds")
            self._names = names
        if not isinstance(partitions, Mapping):
            raise ModelError(
                f"partitions must map agent names to partitions, got {type(partitions).__name__}"
            )
        self._partitions: dict[str, tuple[IntArray, int]] = {}
        for agent, partition in partitions.items():
            name = check_agent(agent)
            labels, count = partition_labels(partition, n_worlds, f"agent {name!r}")
            self._partitions[name] = (_read_only(labels), count)
        # The valuation is a function over the worlds of the model first built (the
        # base); models derived by announcements and updates keep that function and the
        # positions of their worlds among the base worlds, and fetch masks on demand.
        self._masks: dict[str, BoolArray] = {}  # fetched masks, over our worlds
        self._overrides: dict[str, BoolArray] = {}  # atoms set by postconditions
        self._base_index: IntArray | None = None
        self._base_size = n_worlds
        self._vocabulary: frozenset[str] | None = None
        if callable(valuation) and not isinstance(valuation, Mapping):
            self._base: Callable[[str], npt.ArrayLike | None] = valuation
        else:
            for atom, mask in (valuation or {}).items():
                self._masks[_atom_name(atom)] = self._check_mask(mask, f"atom {str(atom)!r}")
            self._base = dict(self._masks).get
            self._vocabulary = frozenset(self._masks)
        if atoms is not None:
            self._vocabulary = frozenset(_atom_name(a) for a in atoms) | frozenset(self._masks)
        self._actual = self._world_index(actual) if actual is not None else None
        self._cache: dict[Formula, BoolArray] = {}
        self._cache_bytes = 0
        self._group_labels: dict[tuple[str, frozenset[str]], tuple[IntArray, int]] = {}

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_worlds(
        cls,
        worlds: Iterable[Hashable],
        valuation: Mapping[Any, Iterable[str | Atom]],
        *,
        partitions: Mapping[str, Iterable[Iterable[Any]]] | None = None,
        relations: Mapping[str, Iterable[tuple[Any, Any]]] | None = None,
        actual: Hashable | None = None,
        atoms: Iterable[str | Atom] = (),
    ) -> KripkeModel:
        """A model from Python objects: world names, true atoms per world, blocks or pairs.

        - ``worlds``: hashable world names (shown with ``str``);
        - ``valuation``: world -> the atoms true there (worlds not listed: none);
        - ``partitions``: agent -> blocks (collections of worlds); worlds in no block of
          an agent are alone in their block;
        - ``relations``: agent -> pairs of worlds; must be an equivalence relation;
        - ``actual``: the actual world (default: the first);
        - ``atoms``: more atoms for the vocabulary (false everywhere unless listed).

        >>> m = KripkeModel.from_worlds(
        ...     ["pq", "p", "q"], {"pq": ["p", "q"], "p": ["p"], "q": ["q"]},
        ...     relations={"A": {("pq", "pq"), ("p", "p"), ("q", "q"), ("pq", "p"),
        ...                      ("p", "pq")}})
        >>> m.holds("K_A p"), m.holds("K_A q"), m.labels("A").tolist()
        (True, False, [0, 0, 1])
        """
        names = list(worlds)
        index: dict[Hashable, int] = {}
        for position, world in enumerate(names):
            if world in index:
                raise ModelError(f"world {world!r} is listed twice")
            index[world] = position

        def find(world: Hashable, where: str) -> int:
            if world not in index:
                close = difflib.get_close_matches(str(world), [str(w) for w in names], n=3)
                hint = f" (did you mean {', '.join(close)}?)" if close else ""
                raise ModelError(f"{where} mentions unknown world {world!r}{hint}")
            return index[world]

        all_partitions: dict[str, PartitionLike] = {}
        for agent, blocks in (partitions or {}).items():
            all_partitions[agent] = [
                [find(w, f"a block of agent {agent!r}") for w in block] for block in blocks
            ]
        for agent, pairs in (relations or {}).items():
            if agent in all_partitions:
                raise ModelError(f"agent {agent!r} has both a partition and a relation")
            all_partitions[agent] = Relation(
                [
                    (find(u, f"the relation of {agent!r}"), find(v, f"the relation of {agent!r}"))
                    for u, v in pairs
                ]
            )
        masks: dict[str, BoolArray] = {_atom_name(a): np.zeros(len(names), bool) for a in atoms}
        for world, true_atoms in valuation.items():
            position = find(world, "the valuation")
            if isinstance(true_atoms, str | Atom):
                raise ModelError(
                    f"the valuation of world {world!r} must be a collection of atoms, "
                    f"got the single {str(true_atoms)!r}; write [{str(true_atoms)!r}]"
                )
            for atom in true_atoms:
                masks.setdefault(_atom_name(atom), np.zeros(len(names), bool))[position] = True
        if actual is not None:
            actual_index: int | None = find(actual, "actual")
        else:
            actual_index = 0 if names else None
        return cls(len(names), all_partitions, masks, actual_index, world_names=names)

    def _check_mask(self, mask: npt.ArrayLike, what: str) -> BoolArray:
        array = np.asarray(mask)
        if array.shape != (self._n,):
            raise ModelError(
                f"the valuation of {what} has shape {array.shape}: expected one truth value "
                f"per world ({self._n},)"
            )
        if array.dtype != np.bool_ and not np.isin(array, (0, 1)).all():
            raise ModelError(f"the valuation of {what} is not boolean (0/1, False/True)")
        # A private copy: the caller may change their array later.
        return _read_only(np.array(array, dtype=bool))

    def _world_index(self, world: int | Hashable) -> int:
        if isinstance(world, int | np.integer) and not isinstance(world, bool):
            index = int(world)
            if not 0 <= index < self._n:
                raise ModelError(f"world {index} is out of range: the model has {self._n} worlds")
            return index
        if self._names is not None:
            matches = np.flatnonzero(self._names == str(world))
            if matches.size:
                return int(matches[0])
            known = [str(n) for n in self._names[:10000]]
            close = difflib.get_close_matches(str(world), known, n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            raise ModelError(f"no world is named {world!r}{hint}")
        raise ModelError(f"world {world!r} is not an index 0..{self._n - 1} (worlds have no names)")

    # ------------------------------------------------------------------ inspection

    @property
    def n_worlds(self) -> int:
        """The number of worlds."""
        return self._n

    def __len__(self) -> int:
        return self._n

    @property
    def agents(self) -> tuple[str, ...]:
        """The agents, in the order given."""
        return tuple(self._partitions)

    @property
    def actual(self) -> int | None:
        """The index of the designated (actual) world, or ``None``."""
        return self._actual

    @property
    def atoms(self) -> frozenset[Atom]:
        """The vocabulary (raises ModelError for a lazy valuation without ``atoms=``)."""
        return frozenset(Atom(name) for name in self._vocabulary_names())

    def _vocabulary_names(self) -> frozenset[str]:
        if self._vocabulary is None:
            raise ModelError(
                "the valuation is a function and the vocabulary is unknown: pass atoms=[...] "
                "to KripkeModel"
            )
        return self._vocabulary

    @property
    def world_names(self) -> tuple[str, ...] | None:
        """The world names, or ``None`` when the worlds are only numbered."""
        return None if self._names is None else tuple(self._names.tolist())

    def world_name(self, world: int | Hashable) -> str:
        """The name of a world (its index as text when worlds have no names).

        >>> KripkeModel(2, {"A": [0, 1]}).world_name(1)
        '1'
        """
        index = self._world_index(world)
        return str(index) if self._names is None else str(self._names[index])

    def world_index(self, world: int | Hashable) -> int:
        """The index of a world given by index or name.

        >>> KripkeModel(["x", "y"], {"A": [0, 0]}).world_index("y")
        1
        """
        return self._world_index(world)

    def labels(self, agent: str) -> IntArray:
        """The agent's block label per world (read-only); equal labels = indistinguishable."""
        return self._partition(agent)[0]

    def block_count(self, agent: str) -> int:
        """The number of blocks of the agent's partition.

        >>> KripkeModel(3, {"A": [0, 0, 1]}).block_count("A")
        2
        """
        labels, _ = self._partition(agent)
        return int(sorted_unique(labels).size)

    def indistinguishable(self, agent: str, world: int | Hashable) -> IntArray:
        """The worlds the agent cannot tell apart from ``world`` (its block), as indices.

        >>> KripkeModel(3, {"A": [0, 0, 1]}).indistinguishable("A", 1).tolist()
        [0, 1]
        """
        labels, _ = self._partition(agent)
        index = self._world_index(world)
        result: IntArray = np.flatnonzero(labels == labels[index])
        return result

    def true_atoms(self, world: int | Hashable) -> frozenset[Atom]:
        """The atoms true at a world.

        >>> m = KripkeModel(2, {"A": [0, 1]}, {"p": [True, False], "q": [True, True]})
        >>> sorted(str(a) for a in m.true_atoms(0))
        ['p', 'q']
        """
        index = self._world_index(world)
        return frozenset(Atom(name) for name in self._vocabulary_names() if self._mask(name)[index])

    def _repr_svg_(self) -> str | None:
        """The model drawn in Jupyter (None, so the text repr shows, above 150 worlds)."""
        from kwartet_epistemic.viz.html import kripke_svg  # matplotlib loads on first display

        return kripke_svg(self)

    def __repr__(self) -> str:
        atoms = (
            "lazy atoms"
            if self._vocabulary is None
            else (
                "atoms " + " ".join(sorted(self._vocabulary))
                if len(self._vocabulary) <= 8
                else f"{len(self._vocabulary)} atoms"
            )
        )
        actual = (
            "no actual world"
            if self._actual is None
            else f"actual world {self._actual}"
            + ("" if self._names is None else f" {self.world_name(self._actual)!r}")
        )
        agents = " ".join(self.agents) if len(self.agents) <= 8 else f"{len(self.agents)}"
        return f"<KripkeModel: {self._n} worlds, agents {agents}, {atoms}, {actual}>"

    # ------------------------------------------------------------------ semantics

    def _partition(self, agent: str) -> tuple[IntArray, int]:
        try:
            return self._partitions[agent]
        except KeyError:
            raise ModelError(
                f"agent {agent!r} is not in the model: expected one of {list(self.agents)}"
            ) from None

    def _mask(self, name: str) -> BoolArray:
        mask = self._overrides.get(name)
        if mask is None:
            mask = self._masks.get(name)
        if mask is not None:
            return mask
        if self._vocabulary is None or name in self._vocabulary:
            source = self._base(name)
            if source is not None:
                array = np.asarray(source)
                if array.shape != (self._base_size,) or (
                    array.dtype != np.bool_ and not np.isin(array, (0, 1)).all()
                ):
                    raise ModelError(
                        f"the valuation function gave atom {name!r} an array of shape "
                        f"{array.shape} and type {array.dtype}: expected {self._base_size} "
                        "truth values"
                    )
                array = array.astype(bool, copy=False)
                if self._base_index is not None:
                    array = array[self._base_index]
                mask = _read_only(np.array(array, dtype=bool))
                self._masks[name] = mask
                return mask
        if self._spelling is not None:
            # Another spelling of an atom of the vocabulary (a game's model reads
            # has(C, 7♦), has(C, 7d) and has(C, seven of diamonds) as has(C, 7D)).
            try:
                canonical = self._spelling(name)
            except ValueError as error:
                raise ModelError(
                    f"atom {name!r} is not in the model's vocabulary: {error}"
                ) from None
            if canonical != name:
                return self._mask(canonical)
        known = sorted(self._vocabulary or self._masks)
        close = difflib.get_close_matches(name, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise ModelError(f"atom {name!r} is not in the model's vocabulary{hint}")

    def _group_partition(self, kind: str, group: Iterable[str] | str) -> tuple[IntArray, int]:
        members = frozenset((group,) if isinstance(group, str) else group)
        if not members:
            raise ModelError("a group needs at least one agent")
        key = (kind, members)
        cached = self._group_labels.get(key)
        if cached is None:
            parts = [self._partition(agent) for agent in sorted(members)]
            if len(parts) == 1:
                cached = parts[0]
            elif kind == "C":
                cached = connected_components(parts)
            else:
                cached = intersection(parts)
            cached = (_read_only(cached[0]), cached[1])
            self._group_labels[key] = cached
        return cached

    def common_knowledge_labels(self, group: Iterable[str] | str) -> IntArray:
        """Per world, its component of the union of the group's partitions.

        ``C_G φ`` holds where the whole component satisfies φ.

        >>> m = KripkeModel(3, {"A": [0, 0, 1], "B": [0, 1, 1]})
        >>> m.common_knowledge_labels(["A", "B"]).tolist(), m.common_knowledge_labels("A").tolist()
        ([0, 0, 0], [0, 0, 1])
        """
        return self._group_partition("C", group)[0]

    def truth_set(self, formula: Formula | str) -> BoolArray:
        """The worlds where the formula holds, as a read-only boolean mask.

        >>> m = KripkeModel(3, {"A": [0, 0, 1]}, {"p": [True, False, True]})
        >>> m.truth_set("M_A ~p").tolist(), m.truth_set("[!p]K_A p").tolist()
        ([True, True, False], [True, True, True])
        """
        root = as_formula(formula)
        hit = self._cache.get(root)
        if hit is not None:
            return hit
        value = _read_only(self._evaluate(root, None))
        self._remember(root, value)
        return value

    def _remember(self, formula: Formula, value: BoolArray) -> None:
        if isinstance(formula, Atom):
            return  # the valuation already holds it
        self._cache[formula] = value
        self._cache_bytes += value.nbytes
        while self._cache_bytes > _CACHE_BYTES and len(self._cache) > 1:
            oldest = next(iter(self._cache))
            self._cache_bytes -= self._cache.pop(oldest).nbytes

    def _evaluate(self, root: Formula, within: BoolArray | None) -> BoolArray:
        """Truth set of ``root`` in the submodel of the worlds in ``within`` (all: None).

        Announcements evaluate their operand in a submodel given by a mask over this
        model's worlds, so nested announcements build no new models; values outside
        ``within`` are meaningless.  Nothing recurses (an announcement's operand is a
        sub-evaluation on an explicit stack), children that need more intermediate
        truth sets are evaluated first, and each intermediate truth set is dropped as
        soon as its last parent has used it, so a long chain holds only a few arrays.
        """
        depth = _announcement_depth(root)
        if depth and 2 * depth * self._n > _NESTED_BYTES:
            raise ModelTooLargeError(
                f"the formula {formula_excerpt(root)!r} nests announcements {depth:,} deep: "
                f"on {self._n:,} worlds that holds {2 * depth * self._n:,} bytes of truth "
                f"sets at once, and the limit is {_NESTED_BYTES:,}; use fewer nested "
                "announcements or a smaller model (contract() it)"
            )
        return run(self._evaluation(root, within, {}))

    def _evaluation(
        self, root: Formula, within: BoolArray | None, needs: dict[int, int]
    ) -> Step[BoolArray]:
        """:meth:`_evaluate` as a step of :func:`run` (it yields announcements' operands)."""
        _register_needs(root, needs)
        results: dict[int, BoolArray] = {}
        uses: dict[int, int] = {}
        order: list[Formula] = []
        seen: set[int] = set()
        stack: list[tuple[Formula, bool]] = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            if within is None:
                hit = self._cache.get(node)
                if hit is not None:
                    results[id(node)] = hit
                    continue
            stack.append((node, True))
            children = _evaluated_children(node)
            for child in children:
                uses[id(child)] = uses.get(id(child), 0) + 1
            # The child needing the most arrays at once is popped, so evaluated, first.
            for child in sorted(children, key=lambda c: needs[id(c)]):
                if id(child) not in seen:
                    stack.append((child, False))
        for node in order:
            children = _evaluated_children(node)
            parts = [results[id(c)] for c in children]
            value: BoolArray
            if isinstance(node, Announce | AnnounceDual):
                announced = parts[0]
                inner_worlds = announced if within is None else announced & within
                inside = yield self._evaluation(node.operand, inner_worlds, needs)
                # Outside the announced worlds [!φ]ψ holds vacuously and <!φ>ψ fails.
                value = ~announced | inside if isinstance(node, Announce) else announced & inside
            else:
                value = self._evaluate_node(node, parts, within)
            results[id(node)] = value
            del parts
            for child in children:
                uses[id(child)] -= 1
                if uses[id(child)] == 0:
                    del results[id(child)]
            if within is None and node.precedence == _UNARY and not isinstance(node, Not):
                self._remember(node, _read_only(value))
        return results[id(root)]

    def _evaluate_node(
        self, node: Formula, children: list[BoolArray], within: BoolArray | None
    ) -> BoolArray:
        if isinstance(node, Atom):
            return self._mask(node.name)
        if isinstance(node, Top):
            return np.ones(self._n, dtype=bool)
        if isinstance(node, Bottom):
            return np.zeros(self._n, dtype=bool)
        if isinstance(node, Not):
            return ~children[0]
        if isinstance(node, And):
            return children[0] & children[1]
        if isinstance(node, Or):
            return children[0] | children[1]
        if isinstance(node, Implies):
            return ~children[0] | children[1]
        if isinstance(node, Iff):
            return children[0] == children[1]
        if isinstance(node, K):
            return _box_within(self._partition(node.agent), children[0], within)
        if isinstance(node, M):
            return ~_box_within(self._partition(node.agent), ~children[0], within)
        if isinstance(node, Kw):
            partition = self._partition(node.agent)
            return _box_within(partition, children[0], within) | _box_within(
                partition, ~children[0], within
            )
        if isinstance(node, E):
            result = np.ones(self._n, dtype=bool)
            for agent in dict.fromkeys(node.group):
                result &= _box_within(self._partition(agent), children[0], within)
            return result
        if isinstance(node, C):
            if within is None:
                return box(*self._group_partition("C", node.group), children[0])
            # Components of a submodel are not those of the model: compute them anew.
            kept = np.flatnonzero(within)
            parts = [self._partition(agent) for agent in sorted(set(node.group))]
            components, count = connected_components(
                [(labels[kept], size) for labels, size in parts]
            )
            labels = np.zeros(self._n, dtype=np.int64)
            labels[kept] = components
            return _box_within((labels, max(count, 1)), children[0], within)
        if isinstance(node, D):
            # The intersection of partitions commutes with taking a submodel.
            return _box_within(self._group_partition("D", node.group), children[0], within)
        raise TypeError(f"unknown formula node {type(node).__name__}")  # pragma: no cover

    def holds(self, formula: Formula | str, world: int | Hashable | None = None) -> bool:
        """Whether the formula holds at the actual world (or at ``world``).

        >>> KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]}).holds("M_A ~p")
        True
        """
        if world is None:
            if self._actual is None:
                raise ModelError("the model has no actual world: pass world=... to holds")
            index = self._actual
        else:
            index = self._world_index(world)
        return bool(self.truth_set(formula)[index])

    def is_valid(self, formula: Formula | str) -> bool:
        """Whether the formula holds at every world of the model.

        >>> KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]}).is_valid("K_A p | M_A ~p")
        True
        """
        return bool(self.truth_set(formula).all())

    # ------------------------------------------------------------------ updates

    def _reindex(self, worlds: IntArray, actual: int | None) -> KripkeModel:
        """The model over the given worlds (indices, possibly repeated), in that order."""
        new = KripkeModel.__new__(KripkeModel)
        new._n = int(worlds.size)
        new._names = None if self._names is None else self._names[worlds]
        new._partitions = {}
        for agent, (labels, count) in self._partitions.items():
            kept = labels[worlds]
            if count > 4 * new._n + 1024:
                kept, count = compact(kept)
            new._partitions[agent] = (_read_only(kept), count)
        new._masks = {}
        new._overrides = {name: _read_only(mask[worlds]) for name, mask in self._overrides.items()}
        new._base = self._base
        new._base_size = self._base_size
        new._base_index = worlds if self._base_index is None else self._base_index[worlds]
        new._vocabulary = self._vocabulary
        new._spelling = self._spelling
        new._actual = actual
        new._cache = {}
        new._cache_bytes = 0
        new._group_labels = {}
        return new

    def restrict(self, worlds: npt.ArrayLike) -> KripkeModel:
        """The submodel on the given worlds (a boolean mask or indices), order kept.

        The actual world stays designated if kept, otherwise the result has none.

        >>> KripkeModel(3, {"A": [0, 0, 1]}).restrict([True, False, True]).labels("A").tolist()
        [0, 1]
        """
        selection = np.asarray(worlds)
        if selection.dtype == np.bool_:
            if selection.shape != (self._n,):
                raise ModelError(f"a world mask has shape {selection.shape}: expected ({self._n},)")
            indices = np.flatnonzero(selection)
        else:
            indices = (
                sorted_unique(selection.astype(np.int64))
                if selection.size
                else np.zeros(0, np.int64)
            )
            if indices.size and (indices[0] < 0 or indices[-1] >= self._n):
                raise ModelError(f"world indices must be in 0..{self._n - 1}")
        actual = None
        if self._actual is not None:
            position = int(np.searchsorted(indices, self._actual))
            if position < indices.size and indices[position] == self._actual:
                actual = position
        return self._reindex(indices, actual)

    def announce(self, formula: Formula | str) -> KripkeModel:
        """The public announcement of the formula: the submodel where it holds.

        Raises :class:`~kwartet_epistemic.errors.FalseAnnouncementError` (and changes
        nothing) when the formula is false at the actual world.

        >>> m = KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]})
        >>> m.announce("p").n_worlds
        1
        """
        truth = self.truth_set(formula)
        if self._actual is not None and not truth[self._actual]:
            raise FalseAnnouncementError(
                f"cannot announce {formula_excerpt(as_formula(formula))!r}: it is false at the "
                f"actual world {self.world_name(self._actual)!r}"
            )
        return self.restrict(truth)

    def with_actual(self, world: int | Hashable) -> KripkeModel:
        """The same model pointed at another world.

        >>> KripkeModel(2, {"A": [0, 1]}, {"p": [True, False]}).with_actual(1).holds("p")
        False
        """
        return self._reindex(np.arange(self._n), self._world_index(world))

    def product_update(self, action: ActionModel) -> KripkeModel:
        """The product update with an action (event) model.

        Worlds of the result are the pairs (world, event) where the event's precondition
        holds; an agent cannot tell two pairs apart iff it can tell neither the worlds
        nor the events apart; postconditions set atoms (factual change).  Raises
        FalseAnnouncementError when the designated event cannot happen at the actual
        world.

        >>> from kwartet_epistemic.kripke import ActionModel
        >>> m = KripkeModel(2, {"A": [0, 0], "B": [0, 0]}, {"p": [True, False]})
        >>> private = ActionModel.semi_private({"p": Atom("p"), "not p": ~Atom("p")},
        ...                                    observers=["A"], agents=["A", "B"], actual="p")
        >>> after = m.product_update(private)
        >>> after.holds("K_A p & ~K_B p & K_B (K_A p | K_A ~p)")
        True
        """
        missing = set(self.agents) - set(action.agents)
        extra = set(action.agents) - set(self.agents)
        if missing or extra:
            raise ModelError(
                "the action model must have a partition for exactly the model's agents: "
                + (f"missing {sorted(missing)}" if missing else "")
                + ("; " if missing and extra else "")
                + (f"unknown {sorted(extra)}" if extra else "")
            )
        executable = [self.truth_set(pre) for pre in action.preconditions]
        worlds_per_event = [np.flatnonzero(mask) for mask in executable]
        sizes = [int(w.size) for w in worlds_per_event]
        world_index = (
            np.concatenate(worlds_per_event) if worlds_per_event else np.zeros(0, np.int64)
        ).astype(np.int64)
        event_index = np.repeat(np.arange(len(action.events)), sizes)
        actual: int | None = None
        if self.actual is not None:
            designated = action.actual
            if not executable[designated][self.actual]:
                raise FalseAnnouncementError(
                    f"event {action.events[designated]!r} cannot happen at the actual world "
                    f"{self.world_name(self.actual)!r}: its precondition "
                    f"{formula_excerpt(action.preconditions[designated])!r} is false there"
                )
            before = sum(sizes[:designated])
            actual = before + int(np.count_nonzero(executable[designated][: self.actual]))
        result = self._reindex(world_index, actual)
        n_events = len(action.events)
        for agent, event_labels in action.partitions:
            labels, _ = result._partitions[agent]
            combined, count = compact(labels * n_events + np.asarray(event_labels)[event_index])
            combined.setflags(write=False)
            result._partitions[agent] = (combined, count)
        changed: dict[str, np.ndarray[Any, np.dtype[np.bool_]]] = {}
        for event, assignments in enumerate(action.postconditions):
            rows = np.flatnonzero(event_index == event)
            for atom, value in assignments:
                if atom not in changed:
                    self._mask(atom)  # unknown atoms raise ModelError here
                    changed[atom] = np.array(result._mask(atom))
                changed[atom][rows] = self.truth_set(value)[world_index[rows]]
        for atom, mask in changed.items():
            mask.setflags(write=False)
            result._overrides[atom] = mask
        if result._names is not None and n_events > 1:
            names = np.empty(result.n_worlds, dtype=object)
            names[:] = [
                f"({world}, {action.events[event]})"
                for world, event in zip(result._names.tolist(), event_index.tolist(), strict=True)
            ]
            result._names = names
        return result

    # ------------------------------------------------------------------ bisimulation

    def bisimulation_classes(self) -> IntArray:
        """Per world, its class of the coarsest bisimulation (same class = bisimilar).

        Classes are numbered 0, 1, ... in the order of their first world.

        Partition refinement: start from the valuation, then split worlds whose
        blocks (per agent) reach different sets of classes, until stable.

        >>> m = KripkeModel(3, {"A": [0, 0, 1]}, {"p": [True, True, True]})
        >>> m.bisimulation_classes().tolist()
        [0, 0, 0]
        """
        names = sorted(self._vocabulary_names())
        classes, class_count = compact(np.zeros(self._n, dtype=np.int64))
        # 31 atoms at a time, so that (class, bits) fits in one int64 key.
        for start in range(0, len(names), 31):
            bits = np.zeros(self._n, dtype=np.int64)
            for offset, name in enumerate(names[start : start + 31]):
                bits |= self._mask(name).astype(np.int64) << offset
            classes, class_count = compact(classes * (1 << 31) + bits)
        while True:
            signature = classes
            for agent in self.agents:
                labels, count = self._partitions[agent]
                ids, id_count = set_ids(labels, count, classes, class_count)
                signature, _ = compact(signature * id_count + ids[labels])
            refined, refined_count = compact(signature)
            if refined_count == class_count:
                # Number the classes in the order of their first world.
                rank = np.empty(refined_count, dtype=np.int64)
                rank[np.argsort(first_of_each(refined, refined_count))] = np.arange(refined_count)
                result: IntArray = rank[refined]
                return result
            classes, class_count = refined, refined_count

    def contract(self) -> KripkeModel:
        """The bisimulation contraction: the smallest model bisimilar to this one.

        One world per bisimulation class (the first of the class, names kept); every
        formula has the same truth value at a world and at its class.

        >>> m = KripkeModel(4, {"A": [0, 0, 1, 1]}, {"p": [True, False, True, False]})
        >>> m.contract().n_worlds
        2
        """
        classes = self.bisimulation_classes()
        class_count = int(classes.max()) + 1 if classes.size else 0
        representatives = first_of_each(classes, class_count)
        actual = None if self._actual is None else int(classes[self._actual])
        contracted = self._reindex(representatives.astype(np.int64), actual)
        # In the quotient two classes are related iff some of their worlds are; for a
        # bisimulation that is the set of classes seen from any block holding the class.
        for agent, (labels, count) in self._partitions.items():
            ids, _ = set_ids(labels, count, classes, class_count)
            new_labels, new_count = compact(ids[labels[representatives]])
            contracted._partitions[agent] = (_read_only(new_labels), new_count)
        return contracted

    def generated_submodel(self) -> KripkeModel:
        """The submodel generated by the actual world: the worlds reachable from it.

        >>> KripkeModel(3, {"A": [0, 0, 1]}, actual=2).generated_submodel().n_worlds
        1
        """
        if self._actual is None:
            raise ModelError("the model has no actual world to generate a submodel from")
        if not self._partitions:
            return self.restrict(np.arange(self._n) == self._actual)
        components = self.common_knowledge_labels(self.agents)
        return self.restrict(components == components[self._actual])

    def possible_for(self, agent: str, world: int | Hashable | None = None) -> KripkeModel:
        """The worlds ``agent`` considers possible at ``world`` (default: the actual
        world), with every agent's relation among them: what the agent sees and who could
        not tell those worlds apart.  The actual world stays designated.

        >>> m = KripkeModel(4, {"A": [0, 0, 1, 1], "B": [0, 1, 0, 1]}, actual=0)
        >>> view = m.possible_for("A")
        >>> view.n_worlds, view.block_count("B")
        (2, 2)
        """
        if agent not in self.agents:
            raise ModelError(f"agent {agent!r}: expected one of {', '.join(self.agents)}")
        if world is None:
            if self._actual is None:
                raise ModelError(
                    "the model has no actual world: give the world whose block to take"
                )
            world = self._actual
        return self.restrict(self.indistinguishable(agent, world))

    # ------------------------------------------------------------------ export

    @deprecated("use kwartet_epistemic.symbolic.translations.kripke_to_structure(model)")
    def to_knowledge_structure(
        self, *, backend: str = "auto", max_worlds: int = 100_000
    ) -> tuple[KnowledgeStructure, tuple[frozenset[str], ...]]:
        """A knowledge structure with the same states, and per world its state (the set
        of its true variables): deprecated, use
        :func:`~kwartet_epistemic.symbolic.translations.kripke_to_structure`."""
        from kwartet_epistemic.symbolic.translations import kripke_to_structure

        return kripke_to_structure(self, backend=backend, max_worlds=max_worlds)

    @deprecated("use kwartet_epistemic.to_smcdel(model, ...)")
    def to_smcdel(
        self,
        query: Formula | str | Sequence[Formula | str] | None = None,
        *,
        jobs: Iterable[str] | None = None,
    ) -> str:
        """SMCDEL's text input for this model and the queries: deprecated, use
        :func:`kwartet_epistemic.to_smcdel`."""
        from kwartet_epistemic.symbolic.translations import export_kripke

        return export_kripke(self, query, jobs=jobs).text

    def to_dict(self) -> dict[str, Any]:
        """The model as plain JSON data (see :mod:`kwartet_epistemic.model_files`).

        >>> KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]}).to_dict()["valuation"]
        {'p': '10'}
        """
        return _kripke_to_dict(self)

    def to_json(self) -> str:
        """The model as JSON text, with ``"format": "kwartet-kripke-model"`` and
        ``"version"``; :meth:`from_json` reads it back (the same text for equal models).

        >>> print(KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]}).to_json())
        {
          "format": "kwartet-kripke-model",
          "version": 1,
          "worlds": 2,
          "world_names": null,
          "actual": 0,
          "partitions": {
            "A": [0, 0]
          },
          "valuation": {
            "p": "10"
          }
        }
        <BLANKLINE>
        """
        return dump_json(_kripke_to_dict(self))

    @classmethod
    def from_dict(cls, data: Any) -> KripkeModel:
        """A model from JSON data, checked: format, version, the schema
        (``schemas/kripke_model.schema.json``) and the sizes; otherwise
        :class:`~kwartet_epistemic.errors.ModelFileError`."""
        return _kripke_from_dict(data)

    @classmethod
    def from_json(cls, text: str | bytes) -> KripkeModel:
        """A model from the JSON text of :meth:`to_json` (checked as :meth:`from_dict`).

        >>> KripkeModel.from_json("[1, 2")
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.ModelFileError: Kripke model: not valid JSON: Expecting ',' delimiter: line 1 column 6 (char 5)
        """
        return _kripke_from_dict(read_model_text(text, KRIPKE_MODEL_FORMAT))

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model's JSON to ``path`` atomically (the old file or the new one,
        never half, whenever the writer stops)."""
        save_text(path, self.to_json())

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> KripkeModel:
        """A model from a JSON file written by :meth:`save`; an unreadable file is a
        :class:`~kwartet_epistemic.errors.ModelFileError` too.

        >>> KripkeModel.load("/no/such/model.json")
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.ModelFileError: cannot read Kripke model '/no/such/model.json': No such file or directory
        """
        data = read_model_file(path, KRIPKE_MODEL_FORMAT)
        try:
            return _kripke_from_dict(data)
        except ModelFileError as err:
            raise ModelFileError(f"{path}: {err}") from err

    def to_networkx(self, max_worlds: int = 2000) -> networkx.Graph:
        """The model as an undirected networkx graph (for drawing and graph algorithms).

        Nodes are world indices with attributes ``name``, ``atoms`` (sorted names of the
        true atoms) and ``actual``; an edge joins two distinct worlds that some agent
        cannot tell apart, with attribute ``agents`` (sorted tuple).  Reflexive loops
        are left out (every world is related to itself).  Models above ``max_worlds``
        raise ModelTooLargeError.

        >>> g = KripkeModel(3, {"A": [0, 0, 1], "B": [0, 1, 1]}, {"p": [1, 0, 0]}).to_networkx()
        >>> sorted(g.edges(data="agents")), g.nodes[0]["atoms"]
        ([(0, 1, ('A',)), (1, 2, ('B',))], ['p'])
        """
        import networkx

        if self._n > max_worlds:
            raise ModelTooLargeError(
                f"to_networkx draws at most {max_worlds} worlds, the model has {self._n}: "
                "contract() it, take generated_submodel(), or raise max_worlds"
            )
        graph = networkx.Graph()
        names = sorted(self._vocabulary_names())
        masks = [self._mask(name) for name in names]
        for world in range(self._n):
            graph.add_node(
                world,
                name=self.world_name(world),
                atoms=[name for name, mask in zip(names, masks, strict=True) if mask[world]],
                actual=world == self._actual,
            )
        edge_agents: dict[tuple[int, int], list[str]] = {}
        for agent, (labels, _) in self._partitions.items():
            order = np.argsort(labels, kind="stable")
            sorted_labels = labels[order]
            starts = np.flatnonzero(np.r_[True, sorted_labels[1:] != sorted_labels[:-1]])
            for block in np.split(order, starts[1:]):
                members = block.tolist()
                for i, u in enumerate(members):
                    for v in members[i + 1 :]:
                        edge_agents.setdefault((u, v), []).append(agent)
        for (u, v), agents in edge_agents.items():
            graph.add_edge(u, v, agents=tuple(sorted(agents)))
        return graph


# ------------------------------------------------------------------ files


def _kripke_to_dict(model: KripkeModel) -> dict[str, Any]:
    partitions: dict[str, list[int]] = {}
    for agent in model.agents:
        labels = model.labels(agent)
        # Renumber in the order of first use: the same partition, the same text.
        _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
        rank = np.empty(first.size, dtype=np.int64)
        rank[np.argsort(first)] = np.arange(first.size)
        partitions[agent] = rank[inverse.reshape(-1)].tolist()
    valuation: dict[str, str] = {}
    for atom in sorted(model.atoms, key=lambda a: a.name):
        mask = model.truth_set(atom)
        valuation[atom.name] = np.where(mask, 49, 48).astype(np.uint8).tobytes().decode("ascii")
    names = model.world_names
    return {
        "format": KRIPKE_MODEL_FORMAT,
        "version": MODEL_FILE_VERSION,
        "worlds": model.n_worlds,
        "world_names": None if names is None else list(names),
        "actual": model.actual,
        "partitions": partitions,
        "valuation": valuation,
    }


def _kripke_from_dict(data: Any) -> KripkeModel:
    data = check_model_data(data, KRIPKE_MODEL_FORMAT)
    n = data["worlds"]
    names = data["world_names"]
    if names is not None and len(names) != n:
        raise ModelFileError(f"world_names: {len(names)} names: expected one per world ({n})")
    actual = data["actual"]
    if actual is not None and not actual < n:
        raise ModelFileError(f"actual: {actual}: expected a world index 0..{n - 1}")
    partitions: dict[str, np.ndarray] = {}
    for agent, labels in data["partitions"].items():
        if len(labels) != n:
            raise ModelFileError(
                f"partitions: agent {agent!r} has {len(labels)} labels: expected one per "
                f"world ({n})"
            )
        array = np.asarray(labels, dtype=np.int64) if labels else np.zeros(0, np.int64)
        if not all(type(label) is int for label in labels) or (
            array.size and (array.min() < 0 or array.max() >= n)
        ):
            position = next(i for i, x in enumerate(labels) if type(x) is not int or not 0 <= x < n)
            raise ModelFileError(
                f"partitions: agent {agent!r}, world {position}: {short(labels[position])}: "
                f"expected a block label 0..{n - 1} (at $.partitions.{agent}[{position}])"
            )
        partitions[agent] = array
    valuation: dict[str, np.ndarray] = {}
    for name, bits in data["valuation"].items():
        try:
            canonical = Atom(name).name
        except KwartetError as err:
            raise ModelFileError(f"valuation: atom {short(name)}: {err}") from None
        if canonical != name:
            raise ModelFileError(
                f"valuation: atom {short(name)}: expected it written as {canonical!r}"
            )
        if len(bits) != n:
            raise ModelFileError(
                f"valuation: atom {name!r} has {len(bits)} truth values: expected one per "
                f"world ({n})"
            )
        valuation[name] = np.frombuffer(bits.encode("ascii"), dtype=np.uint8) == ord("1")
    try:
        return KripkeModel(n, partitions, valuation, actual=actual, world_names=names)
    except KwartetError as err:
        raise ModelFileError(f"Kripke model: {err}") from None
