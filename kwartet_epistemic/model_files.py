"""Kripke models and knowledge structures saved as JSON, and read back with checks.

Both formats carry ``"format"`` and ``"version"`` fields, checked first on load (as game
records' are), then the JSON Schema in ``schemas/`` (``kripke_model.schema.json``,
``knowledge_structure.schema.json``), then what a schema cannot say (lengths agree with
the number of worlds, a BDD is ordered and reduced).  Anything wrong raises
:class:`~kwartet_epistemic.errors.ModelFileError` naming the field and what was expected.

- A **Kripke model** is written as its number of worlds, world names, actual world, per
  agent one block label per world (renumbered 0, 1, ... in the order of first use) and
  per atom a text of ``0``/``1`` per world.
- A **knowledge structure** is written as its vocabulary, the BDD variable order, the
  observations and the law's BDD as its nodes ``[variable, high, low]`` in a fixed order
  (children first, high before low).  A BDD is canonical for its variable order, so
  equal structures write equal text.

>>> from kwartet_epistemic.kripke import KripkeModel
>>> m = KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]})
>>> text = m.to_json()
>>> KripkeModel.from_json(text).holds("~K_A p"), KripkeModel.from_json(text).to_json() == text
(True, True)
>>> KripkeModel.from_json('{"format": "kwartet-kripke-model", "version": 7}')
Traceback (most recent call last):
...
kwartet_epistemic.errors.ModelFileError: version: 7 is not supported; this library reads version 1 (written by a newer version of the library?)
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kwartet_epistemic._files import atomic_write_text
from kwartet_epistemic._safejson import check_nesting, load_json, short
from kwartet_epistemic.errors import KwartetError, ModelFileError
from kwartet_epistemic.symbolic.structure import _plain_errors

if TYPE_CHECKING:
    from kwartet_epistemic.kripke import KripkeModel
    from kwartet_epistemic.symbolic.structure import KnowledgeStructure

__all__ = [
    "KNOWLEDGE_STRUCTURE_FORMAT",
    "KRIPKE_MODEL_FORMAT",
    "MAX_MODEL_BYTES",
    "MODEL_FILE_VERSION",
    "knowledge_structure_from_dict",
    "knowledge_structure_to_dict",
    "kripke_from_dict",
    "kripke_to_dict",
    "model_schema",
    "model_schema_path",
]

KRIPKE_MODEL_FORMAT = "kwartet-kripke-model"
KNOWLEDGE_STRUCTURE_FORMAT = "kwartet-knowledge-structure"
MODEL_FILE_VERSION = 1
MAX_MODEL_BYTES = 256 * 2**20
"""The largest saved model read (bytes): larger files are refused before parsing."""
# Both formats nest 4 levels (file, partitions/law, a list, a node).
_MAX_DEPTH = 5
# Long lists (labels of millions of worlds, many BDD nodes) are checked in Python; the
# schema sees their first entries, enough for its messages.
_SCHEMA_ITEMS = 1000
_SCHEMAS = {
    KRIPKE_MODEL_FORMAT: "kripke_model.schema.json",
    KNOWLEDGE_STRUCTURE_FORMAT: "knowledge_structure.schema.json",
}
_KIND = {KRIPKE_MODEL_FORMAT: "Kripke model", KNOWLEDGE_STRUCTURE_FORMAT: "knowledge structure"}


def model_schema_path(format_name: str) -> Path:
    """The JSON Schema file of a saved-model format.

    >>> model_schema_path("kwartet-kripke-model").name
    'kripke_model.schema.json'
    """
    if format_name not in _SCHEMAS:
        raise ModelFileError(
            f"format {short(format_name)}: expected one of {', '.join(map(repr, _SCHEMAS))}"
        )
    return Path(__file__).with_name("schemas") / _SCHEMAS[format_name]


@cache
def _schema(format_name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(model_schema_path(format_name).read_text("utf-8"))
    return schema


def model_schema(format_name: str) -> dict[str, Any]:
    """A copy of the JSON Schema of a saved-model format.

    >>> model_schema("kwartet-knowledge-structure")["properties"]["format"]["const"]
    'kwartet-knowledge-structure'
    """
    return copy.deepcopy(_schema(format_name))


@cache
def _validator(format_name: str) -> Any:
    import jsonschema  # loaded on the first model read

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    )
    return jsonschema.validators.extend(base, type_checker=checker)(_schema(format_name))


def _json_path(path: list[Any]) -> str:
    text = "$"
    for step in path:
        if isinstance(step, int):
            text += f"[{step}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(step)):
            text += "." + str(step)
        else:
            text += "[" + short(step) + "]"
    return text


def _schema_check(data: dict[str, Any], format_name: str) -> None:
    """Raise for the first place (in path order) where ``data`` breaks the schema."""
    shown = dict(data)
    for key in ("partitions", "observed"):
        if isinstance(shown.get(key), dict):
            shown[key] = {
                k: v[:_SCHEMA_ITEMS] if isinstance(v, list) else v for k, v in shown[key].items()
            }
    law = shown.get("law")
    if isinstance(law, dict) and isinstance(law.get("nodes"), list):
        shown["law"] = {**law, "nodes": law["nodes"][:_SCHEMA_ITEMS]}
    errors = list(_validator(format_name).iter_errors(shown))
    if not errors:
        return
    order = list(_schema(format_name)["properties"])

    def position(error: Any) -> tuple[Any, ...]:
        return tuple(
            (order.index(s) if s in order else len(order)) if isinstance(s, str) else s
            for s in error.absolute_path
        )

    error = min(errors, key=position)
    path = list(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    expected = schema.get("description") or error.message
    where = str(path[0]) if path else _KIND[format_name]
    at = f" (at {_json_path(path)})"
    if error.validator == "additionalProperties" and schema.get("additionalProperties") is False:
        unknown = ", ".join(short(k) for k in error.instance if k not in schema["properties"])
        raise ModelFileError(f"{where}: unknown field(s) {unknown}; expected {expected}{at}")
    if error.validator == "required":
        missing = ", ".join(k for k in schema.get("required", ()) if k not in error.instance)
        raise ModelFileError(f"{where}: missing field(s) {missing}; expected {expected}{at}")
    if "propertyNames" in error.absolute_schema_path:
        raise ModelFileError(f"{where}: key {short(error.instance)}: expected {expected}{at}")
    raise ModelFileError(f"{where}: {short(error.instance)}: expected {expected}{at}")


def _check_header(data: Any, format_name: str) -> dict[str, Any]:
    check_nesting(data, what=_KIND[format_name], error=ModelFileError, max_depth=_MAX_DEPTH)
    kind = _KIND[format_name]
    if not isinstance(data, dict):
        raise ModelFileError(
            f"{kind}: expected a JSON object with format {format_name!r}; got {type(data).__name__}"
        )
    if data.get("format") != format_name:
        raise ModelFileError(
            f"format: {short(data.get('format'))} is not a saved {kind}; expected {format_name!r}"
        )
    version = data.get("version")
    if type(version) is not int or version != MODEL_FILE_VERSION:
        newer = " (written by a newer version of the library?)" if type(version) is int else ""
        raise ModelFileError(
            f"version: {short(version)} is not supported; this library reads version "
            f"{MODEL_FILE_VERSION}{newer}"
        )
    _schema_check(data, format_name)
    return data


def _read_text(text: str | bytes, format_name: str) -> Any:
    return load_json(
        text,
        what=_KIND[format_name],
        error=ModelFileError,
        max_depth=_MAX_DEPTH,
        max_bytes=MAX_MODEL_BYTES,
    )


def _read_file(path: str | PathLike[str], format_name: str) -> Any:
    kind = _KIND[format_name]
    try:
        with Path(path).open("rb") as handle:
            text = handle.read(MAX_MODEL_BYTES + 1)
    except (OSError, ValueError) as err:  # (ValueError: a NUL in the path)
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        raise ModelFileError(f"cannot read {kind} {short(str(path))}: {reason}") from err
    try:
        return _read_text(text, format_name)
    except ModelFileError as err:
        raise ModelFileError(f"{path}: {err}") from err


# ------------------------------------------------------------------------- Kripke models


def kripke_to_dict(model: KripkeModel) -> dict[str, Any]:
    """A Kripke model as plain JSON data (what ``KripkeModel.to_json`` writes).

    >>> from kwartet_epistemic.kripke import KripkeModel
    >>> kripke_to_dict(KripkeModel(2, {"A": [5, 3]}, {"p": [True, False]}))["partitions"]
    {'A': [0, 1]}
    """
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


def kripke_from_dict(data: Any) -> KripkeModel:
    """A Kripke model from JSON data, checked (see the module's description).

    >>> kripke_from_dict({"format": "kwartet-kripke-model", "version": 1, "worlds": 1,
    ...     "world_names": None, "actual": 0, "partitions": {"A": [0, 0]}, "valuation": {}})
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.ModelFileError: partitions: agent 'A' has 2 labels: expected one per world (1)
    """
    from kwartet_epistemic.kripke import KripkeModel
    from kwartet_epistemic.logic.formula import Atom

    data = _check_header(data, KRIPKE_MODEL_FORMAT)
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


def kripke_from_json(text: str | bytes) -> KripkeModel:
    """A Kripke model from JSON text (``KripkeModel.from_json``)."""
    return kripke_from_dict(_read_text(text, KRIPKE_MODEL_FORMAT))


def kripke_load(path: str | PathLike[str]) -> KripkeModel:
    """A Kripke model from a JSON file (``KripkeModel.load``)."""
    data = _read_file(path, KRIPKE_MODEL_FORMAT)
    try:
        return kripke_from_dict(data)
    except ModelFileError as err:
        raise ModelFileError(f"{path}: {err}") from err


def dump_json(data: dict[str, Any]) -> str:
    """The data as JSON text: one line per top-level field (and per BDD node)."""

    def dump(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = []
    for key, value in data.items():
        if key == "law":
            nodes = ",\n".join("      " + dump(node) for node in value["nodes"])
            nodes = "[\n" + nodes + "\n    ]" if value["nodes"] else "[]"
            text = '{\n    "root": ' + dump(value["root"]) + ',\n    "nodes": ' + nodes + "\n  }"
        elif isinstance(value, dict) and value:
            inner = ",\n".join(f"    {dump(k)}: {dump(v)}" for k, v in value.items())
            text = "{\n" + inner + "\n  }"
        else:
            text = dump(value)
        lines.append(f"  {dump(key)}: {text}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def save_text(path: str | PathLike[str], text: str) -> None:
    """Write the text atomically (a stop at any moment leaves the old file or the new)."""
    atomic_write_text(path, text)


# ------------------------------------------------------------------------- structures


@_plain_errors
def knowledge_structure_to_dict(structure: KnowledgeStructure) -> dict[str, Any]:
    """A knowledge structure as plain JSON data (what ``KnowledgeStructure.to_json``
    writes): the law as its BDD's nodes, children first.

    >>> from kwartet_epistemic.symbolic import KnowledgeStructure
    >>> ks = KnowledgeStructure(["p", "q"], "p & ~q", {"A": ["p"]})
    >>> knowledge_structure_to_dict(ks)["law"]
    {'root': 3, 'nodes': [[1, 0, 1], [0, 2, 0]]}
    """
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


@_plain_errors
def knowledge_structure_from_dict(data: Any, *, backend: str = "auto") -> KnowledgeStructure:
    """A knowledge structure from JSON data, checked (see the module's description).

    >>> knowledge_structure_from_dict({"format": "kwartet-knowledge-structure",
    ...     "version": 1, "vocabulary": ["p"], "order": ["p"], "observed": {},
    ...     "law": {"root": 2, "nodes": [[0, 1, 1]]}})
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.ModelFileError: law: node 0 has the same high and low child (1): expected a reduced BDD (at $.law.nodes[0])
    """
    from kwartet_epistemic.logic.formula import Atom
    from kwartet_epistemic.symbolic.backend import new_manager
    from kwartet_epistemic.symbolic.structure import KnowledgeStructure

    data = _check_header(data, KNOWLEDGE_STRUCTURE_FORMAT)
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


def knowledge_structure_from_json(
    text: str | bytes, *, backend: str = "auto"
) -> KnowledgeStructure:
    """A knowledge structure from JSON text (``KnowledgeStructure.from_json``)."""
    return knowledge_structure_from_dict(
        _read_text(text, KNOWLEDGE_STRUCTURE_FORMAT), backend=backend
    )


def knowledge_structure_load(
    path: str | PathLike[str], *, backend: str = "auto"
) -> KnowledgeStructure:
    """A knowledge structure from a JSON file (``KnowledgeStructure.load``)."""
    data = _read_file(path, KNOWLEDGE_STRUCTURE_FORMAT)
    try:
        return knowledge_structure_from_dict(data, backend=backend)
    except ModelFileError as err:
        raise ModelFileError(f"{path}: {err}") from err
