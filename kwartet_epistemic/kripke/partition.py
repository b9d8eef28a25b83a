"""Partitions of worlds held as integer block labels, and the vectorised work on them.

An S5 accessibility relation is an equivalence relation, so it is a partition of the
worlds into blocks.  Each partition is held as one integer per world (its block label):
two worlds are related iff their labels are equal.  Knowledge is then one scatter and
one gather over the labels, common knowledge is the same over the connected components
of the union of the group's partitions, and distributed knowledge over the labels of
the intersection partition.

>>> import numpy as np
>>> labels, count = partition_labels([0, 0, 1, 2, 2], 5, "agent 'A'")
>>> labels.tolist(), count
([0, 0, 1, 2, 2], 3)
>>> box(labels, count, np.array([True, True, False, True, False])).tolist()
[True, True, False, False, False]
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from kwartet_epistemic.errors import ModelError

__all__ = [
    "BoolArray",
    "IntArray",
    "PartitionLike",
    "Relation",
    "box",
    "compact",
    "connected_components",
    "diamond",
    "first_of_each",
    "intersection",
    "partition_labels",
    "set_ids",
    "sorted_unique",
]

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Relation:
    """An accessibility relation given as pairs of worlds; it must be an equivalence.

    Use it where a partition is expected to say "these are pairs, not blocks".

    >>> labels, count = partition_labels(Relation([(0, 0), (1, 1), (0, 1), (1, 0)]), 2, "A")
    >>> labels.tolist(), count
    ([0, 0], 1)
    """

    pairs: Any


PartitionLike = (
    Relation
    | AbstractSet[tuple[Any, Any]]
    | Mapping[Any, Iterable[Any]]
    | Sequence[Collection[Any]]
    | npt.ArrayLike
)


def sorted_unique(values: npt.ArrayLike) -> npt.NDArray[Any]:
    """The distinct values, sorted.

    (``np.unique`` without ``return_inverse`` takes a hash-table path that is several
    times slower than sorting on arrays of millions of distinct integers.)

    >>> sorted_unique([3, 1, 3, 2]).tolist()
    [1, 2, 3]
    """
    ordered = np.sort(np.asarray(values).reshape(-1))
    if ordered.size == 0:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def compact(labels: npt.ArrayLike) -> tuple[IntArray, int]:
    """Relabel blocks 0..k-1 in the order of the label values and return (labels, k).

    >>> compact([7, 3, 7, 9])[0].tolist()
    [1, 0, 1, 2]
    """
    array = np.asarray(labels).reshape(-1)
    if array.size == 0:
        return np.zeros(0, dtype=np.int64), 0
    if np.issubdtype(array.dtype, np.integer):
        low, high = int(array.min()), int(array.max())
        if high - low < 4 * array.size + 1024:
            # Small value range: a presence table instead of a sort.
            present = np.zeros(high - low + 1, dtype=bool)
            present[array - low] = True
            renumber = np.cumsum(present, dtype=np.int64) - 1
            return renumber[array - low], int(renumber[-1]) + 1
    order = np.argsort(array)
    ordered = array[order]
    starts = np.empty(array.size, dtype=bool)
    starts[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    numbers = np.cumsum(starts, dtype=np.int64) - 1
    result = np.empty(array.size, dtype=np.int64)
    result[order] = numbers
    return result, int(numbers[-1]) + 1


def first_of_each(labels: IntArray, count: int) -> IntArray:
    """For compact labels 0..count-1, the first world carrying each label.

    >>> first_of_each(np.array([1, 0, 1, 2]), 3).tolist()
    [1, 0, 3]
    """
    first = np.full(count, labels.size, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(labels.size, dtype=np.int64))
    return first


def _tidy(labels: npt.NDArray[Any], n_worlds: int) -> tuple[IntArray, int]:
    """Integer labels usable for scatter/gather: non-negative and not much above n."""
    if labels.size == 0:
        return np.zeros(0, dtype=np.int64), 0
    if np.issubdtype(labels.dtype, np.integer):
        low, high = int(labels.min()), int(labels.max())
        # Sparse but small labels (e.g. hand bitmasks) are used as they are: gathers
        # over an array of size high+1 are cheaper than a sort to compact them.
        if low >= 0 and high < 4 * n_worlds + 1024:
            return labels.astype(np.int64, copy=False), high + 1
    return compact(labels)


def partition_labels(value: PartitionLike, n_worlds: int, what: str) -> tuple[IntArray, int]:
    """Normalise a partition given in any accepted form to (labels, number of labels).

    Accepted forms:

    - one label per world (a 1-D sequence or array of length ``n_worlds``; any values,
      equal labels mean the same block);
    - blocks: a sequence of collections of world indices; worlds in no block are alone
      in their own block;
    - a relation that must be an equivalence: :class:`Relation` of pairs, a set of
      pairs, a mapping world -> related worlds, or an ``n × n`` boolean matrix.

    ``what`` names the partition in error messages.

    >>> partition_labels([{0, 2}, {1}], 4, "A")[0].tolist()
    [0, 1, 0, 2]
    """
    if isinstance(value, Relation):
        return _labels_from_pairs(value.pairs, n_worlds, what)
    if isinstance(value, set | frozenset):
        return _labels_from_pairs(list(value), n_worlds, what)
    if isinstance(value, Mapping):
        pairs = [(u, v) for u, related in value.items() for v in related]
        return _labels_from_pairs(pairs, n_worlds, what)
    if isinstance(value, np.ndarray):
        if value.ndim == 1:
            return _labels_from_array(value, n_worlds, what)
        if value.ndim == 2 and value.dtype == np.bool_:
            if value.shape != (n_worlds, n_worlds):
                raise ModelError(
                    f"the relation matrix of {what} has shape {value.shape}: expected "
                    f"({n_worlds}, {n_worlds})"
                )
            return _labels_from_pairs(np.argwhere(value), n_worlds, what)
        raise ModelError(
            f"the partition of {what} is a {value.ndim}-D array of {value.dtype}: expected "
            "one label per world, an n × n boolean matrix, Relation(pairs) or a list of blocks"
        )
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | Iterable):
        raise ModelError(
            f"the partition of {what} is {value!r}: expected one label per world, a list "
            "of blocks, or a relation (Relation(pairs), a set of pairs, a mapping or a matrix)"
        )
    items = list(value)
    if not items:  # no blocks listed: every world alone
        return _labels_from_blocks([], n_worlds, what)
    if all(_is_block(item) for item in items):
        return _labels_from_blocks(cast(list[Collection[Any]], items), n_worlds, what)
    if any(_is_block(item) for item in items):
        raise ModelError(
            f"the partition of {what} mixes blocks and labels: expected either one label "
            "per world or a list of blocks (collections of worlds)"
        )
    return _labels_from_array(np.asarray(items), n_worlds, what)


def _is_block(item: object) -> bool:
    return isinstance(item, Collection) and not isinstance(item, str | bytes)


def _labels_from_array(labels: npt.NDArray[Any], n_worlds: int, what: str) -> tuple[IntArray, int]:
    if labels.shape != (n_worlds,):
        raise ModelError(
            f"the partition of {what} has {labels.size} labels: expected one per world ({n_worlds})"
        )
    if labels.dtype == object:
        # Labels such as tuples (hands of cards) compare fine but do not sort.
        seen: dict[Hashable, int] = {}
        codes = np.fromiter(
            (seen.setdefault(label, len(seen)) for label in labels), np.int64, n_worlds
        )
        return codes, len(seen)
    return _tidy(labels, n_worlds)


def _check_worlds(worlds: npt.NDArray[Any], n_worlds: int, what: str) -> None:
    if worlds.size and (
        not np.issubdtype(worlds.dtype, np.integer)
        or int(worlds.min()) < 0
        or int(worlds.max()) >= n_worlds
    ):
        bad = next(
            w for w in worlds.ravel().tolist() if not isinstance(w, int) or w < 0 or w >= n_worlds
        )
        raise ModelError(f"{what} mentions world {bad!r}: expected world indices 0..{n_worlds - 1}")


def _labels_from_blocks(
    blocks: list[Collection[Any]], n_worlds: int, what: str
) -> tuple[IntArray, int]:
    labels = np.full(n_worlds, -1, dtype=np.int64)
    for number, block in enumerate(blocks):
        members = np.asarray(list(block))
        if members.size == 0:
            continue
        _check_worlds(members, n_worlds, f"block {number} of {what}")
        taken = labels[members] >= 0
        if taken.any() or sorted_unique(members).size != members.size:
            world = int(members[taken][0]) if taken.any() else int(members[0])
            raise ModelError(
                f"world {world} is in two blocks of {what}: blocks of a partition must "
                "not overlap (to give a relation as pairs, pass a set of pairs or "
                "Relation(pairs))"
            )
        labels[members] = number
    alone = np.flatnonzero(labels < 0)
    labels[alone] = len(blocks) + np.arange(alone.size)
    return labels, len(blocks) + int(alone.size)


def _labels_from_pairs(pairs_like: Any, n_worlds: int, what: str) -> tuple[IntArray, int]:
    pairs = np.asarray(pairs_like)
    if pairs.size == 0:
        pairs = pairs.reshape(0, 2).astype(np.int64)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise ModelError(
            f"the relation of {what} must be pairs of worlds, got an array of shape {pairs.shape}"
        )
    _check_worlds(pairs, n_worlds, f"the relation of {what}")
    pairs = pairs.astype(np.int64)
    source, target = pairs[:, 0], pairs[:, 1]
    reflexive = np.zeros(n_worlds, dtype=bool)
    reflexive[source[source == target]] = True
    if not reflexive.all():
        world = int(np.flatnonzero(~reflexive)[0])
        raise ModelError(
            f"the relation of {what} is not an equivalence: it is not reflexive (world "
            f"{world} is not related to itself)"
        )
    keys = sorted_unique(source * n_worlds + target)
    reverse = (keys % n_worlds) * n_worlds + keys // n_worlds
    asymmetric = ~np.isin(reverse, keys)
    if asymmetric.any():
        key = int(keys[asymmetric][0])
        raise ModelError(
            f"the relation of {what} is not an equivalence: it is not symmetric (it "
            f"relates {key // n_worlds} to {key % n_worlds} but not back)"
        )
    labels, count = connected_components(
        [(np.arange(n_worlds, dtype=np.int64), n_worlds)], extra_edges=(source, target)
    )
    sizes = np.bincount(labels, minlength=count)
    if int(keys.size) != int((sizes.astype(np.int64) ** 2).sum()):
        raise ModelError(
            f"the relation of {what} is not an equivalence: it is not transitive ("
            f"{_transitivity_witness(keys, n_worlds)})"
        )
    return labels, count


def _transitivity_witness(keys: IntArray, n_worlds: int) -> str:
    related: dict[int, set[int]] = {}
    for key in keys.tolist():
        related.setdefault(key // n_worlds, set()).add(key % n_worlds)
    for x, x_related in related.items():
        for y in x_related:
            missing = related[y] - x_related
            if missing:
                z = min(missing)
                return f"{x} ~ {y} and {y} ~ {z} but not {x} ~ {z}"
    return "some related worlds are not related in turn"  # pragma: no cover


def box(labels: IntArray, count: int, truth: BoolArray) -> BoolArray:
    """Worlds whose whole block lies inside ``truth`` (knowledge).

    >>> box(np.array([0, 0, 1]), 2, np.array([True, False, True])).tolist()
    [False, False, True]
    """
    spoiled = np.zeros(count, dtype=bool)
    spoiled[labels[~truth]] = True
    result: BoolArray = ~spoiled[labels]
    return result


def diamond(labels: IntArray, count: int, truth: BoolArray) -> BoolArray:
    """Worlds whose block meets ``truth`` (possibility).

    >>> diamond(np.array([0, 0, 1]), 2, np.array([True, False, False])).tolist()
    [True, True, False]
    """
    met = np.zeros(count, dtype=bool)
    met[labels[truth]] = True
    result: BoolArray = met[labels]
    return result


def intersection(partitions: Sequence[tuple[IntArray, int]]) -> tuple[IntArray, int]:
    """The labels of the intersection (common refinement) of the partitions.

    >>> intersection([(np.array([0, 0, 1, 1]), 2), (np.array([0, 1, 1, 1]), 2)])[0].tolist()
    [0, 1, 2, 2]
    """
    labels, count = partitions[0]
    for other, other_count in partitions[1:]:
        labels, count = compact(labels * other_count + other)
    return labels, count


def connected_components(
    partitions: Sequence[tuple[IntArray, int]],
    extra_edges: tuple[IntArray, IntArray] | None = None,
) -> tuple[IntArray, int]:
    """Labels of the connected components of the union of the partitions (per world).

    The graph has one node per block of each partition and, for every world, an edge
    joining its blocks; ``extra_edges`` adds world-to-world edges when the (single)
    partition is the identity.  Components are found by vectorised min-label hooking
    with pointer jumping: every round at least halves the number of roots, so there
    are O(log n) rounds of whole-array numpy work.

    >>> a, b = (np.array([0, 0, 1, 2]), 3), (np.array([0, 1, 1, 2]), 3)
    >>> connected_components([a, b])[0].tolist()
    [0, 0, 0, 1]
    """
    offsets = np.cumsum([0] + [count for _, count in partitions])
    n_nodes = int(offsets[-1])
    sources: list[IntArray] = []
    targets: list[IntArray] = []
    for i in range(len(partitions) - 1):
        sources.append(partitions[i][0] + offsets[i])
        targets.append(partitions[i + 1][0] + offsets[i + 1])
    if extra_edges is not None:
        sources.append(extra_edges[0] + offsets[0])
        targets.append(extra_edges[1] + offsets[0])
    parent = np.arange(n_nodes, dtype=np.int64)
    if sources:
        # Repeated edges are harmless; removing them would cost a sort.
        source, target = np.concatenate(sources), np.concatenate(targets)
        while True:
            root_source, root_target = parent[source], parent[target]
            differ = root_source != root_target
            if not differ.any():
                break
            low = np.minimum(root_source[differ], root_target[differ])
            high = np.maximum(root_source[differ], root_target[differ])
            # parent[x] <= x always holds, so hooking never makes a cycle.
            np.minimum.at(parent, high, low)
            while True:
                jumped = parent[parent]
                if np.array_equal(jumped, parent):
                    break
                parent = jumped
            source, target = source[differ], target[differ]
    return compact(parent[partitions[0][0] + offsets[0]])


def set_ids(
    block_labels: IntArray, block_count: int, classes: IntArray, class_count: int
) -> tuple[IntArray, int]:
    """An exact id per block for the set of ``classes`` found in it.

    Two blocks get the same id iff they contain worlds of exactly the same classes.
    The sorted class list of each block is hash-consed one position at a time (prefix
    id, next class) -> new id, so the work is linear in the number of (block, class)
    pairs and no hashing can collide.

    >>> ids, _ = set_ids(np.array([0, 0, 1, 2]), 3, np.array([5, 6, 6, 5]) - 5, 2)
    >>> bool(ids[1] == ids[2]), bool(ids[0] == ids[1])
    (False, False)
    """
    pair_keys = sorted_unique(block_labels * class_count + classes)
    blocks, members = pair_keys // class_count, pair_keys % class_count
    run_start = np.flatnonzero(np.r_[True, blocks[1:] != blocks[:-1]])
    run_lengths = np.diff(np.r_[run_start, blocks.size])
    position = np.arange(blocks.size) - np.repeat(run_start, run_lengths)
    ids = np.zeros(block_count, dtype=np.int64)
    next_id = 1
    order = np.argsort(position, kind="stable")
    level_ends = np.searchsorted(position[order], np.arange(1, int(position.max(initial=0)) + 2))
    level_start = 0
    for level_end in level_ends.tolist():
        chosen = order[level_start:level_end]
        level_start = level_end
        chosen_blocks = blocks[chosen]
        keys = ids[chosen_blocks] * class_count + members[chosen]
        numbers, count = compact(keys)
        ids[chosen_blocks] = next_id + numbers
        next_id += count
    return ids, next_id
