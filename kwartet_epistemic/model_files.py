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
from typing import Any

from kwartet_epistemic._safejson import check_nesting, load_json, short
from kwartet_epistemic.errors import ModelFileError
from kwartet_epistemic.files import atomic_write_text

__all__ = [
    "KNOWLEDGE_STRUCTURE_FORMAT",
    "KRIPKE_MODEL_FORMAT",
    "MAX_MODEL_BYTES",
    "MODEL_FILE_VERSION",
    "check_model_data",
    "dump_json",
    "model_schema",
    "model_schema_path",
    "read_model_file",
    "read_model_text",
    "save_text",
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


def check_model_data(data: Any, format_name: str) -> dict[str, Any]:
    """``data`` if it is a saved model of ``format_name`` (format, version, nesting and
    the JSON Schema checked), else :class:`~kwartet_epistemic.errors.ModelFileError`."""
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


def read_model_text(text: str | bytes, format_name: str) -> Any:
    """The JSON data of ``text`` (at most :data:`MAX_MODEL_BYTES`, nested at most a few
    levels), else :class:`~kwartet_epistemic.errors.ModelFileError`."""
    return load_json(
        text,
        what=_KIND[format_name],
        error=ModelFileError,
        max_depth=_MAX_DEPTH,
        max_bytes=MAX_MODEL_BYTES,
    )


def read_model_file(path: str | PathLike[str], format_name: str) -> Any:
    """The JSON data of the file at ``path`` (as :func:`read_model_text`); an unreadable
    file is a :class:`~kwartet_epistemic.errors.ModelFileError` too."""
    kind = _KIND[format_name]
    try:
        with Path(path).open("rb") as handle:
            text = handle.read(MAX_MODEL_BYTES + 1)
    except (OSError, ValueError) as err:  # (ValueError: a NUL in the path)
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        raise ModelFileError(f"cannot read {kind} {short(str(path))}: {reason}") from err
    try:
        return read_model_text(text, format_name)
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
