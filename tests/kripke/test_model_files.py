"""Kripke models and knowledge structures saved as JSON: round trips keep
every answer, the text is reproducible, and bad files raise ModelFileError naming the
field and what was expected."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_testing import nested_formulas

import kwartet_epistemic as kw
from kwartet_epistemic import model_files
from kwartet_epistemic.errors import ModelFileError
from kwartet_epistemic.logic import Atom, Iff, Not, conjunction, disjunction
from kwartet_epistemic.symbolic import KnowledgeStructure
from kwartet_epistemic.symbolic.backend import available_backends

AGENTS = ["A", "B", "1"]
ATOMS = [Atom("p"), Atom("q"), Atom("has(A, 7S)")]


@st.composite
def models(draw) -> kw.KripkeModel:
    n = draw(st.integers(1, 6))
    agents = draw(st.lists(st.sampled_from(AGENTS), min_size=1, max_size=3, unique=True))
    labels = st.lists(st.integers(0, 7), min_size=n, max_size=n)
    partitions = {a: draw(labels) for a in agents}
    truth = st.lists(st.booleans(), min_size=n, max_size=n)
    valuation = {atom.name: draw(truth) for atom in ATOMS}
    named = draw(st.booleans())
    names = [f"w{i} ♥" for i in range(n)] if named else None
    actual = draw(st.none() | st.integers(0, n - 1))
    return kw.KripkeModel(n, partitions, valuation, actual=actual, world_names=names)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(model=models(), formulas=st.lists(nested_formulas(AGENTS, ATOMS), min_size=1, max_size=3))
def test_kripke_round_trip_keeps_every_answer(model, formulas):
    text = model.to_json()
    again = kw.KripkeModel.from_json(text)
    assert again.to_json() == text  # reproducible
    assert (again.n_worlds, again.actual, again.world_names) == (
        model.n_worlds,
        model.actual,
        model.world_names,
    )
    assert again.agents == model.agents and again.atoms == model.atoms
    for f in formulas:
        if not f.agents() <= set(model.agents):
            continue
        assert again.truth_set(f).tolist() == model.truth_set(f).tolist(), str(f)


@st.composite
def structures(draw) -> KnowledgeStructure:
    names = ["p", "q", "has(A, 7S)", "r"][: draw(st.integers(1, 4))]
    rows = draw(st.lists(st.booleans(), min_size=2 ** len(names), max_size=2 ** len(names)))
    if not any(rows):
        rows[0] = True
    cubes = []
    for index, keep in enumerate(rows):
        if keep:
            literals = [
                Atom(name) if index >> i & 1 else Not(Atom(name)) for i, name in enumerate(names)
            ]
            cubes.append(conjunction(literals))
    observed = {
        a: draw(st.lists(st.sampled_from(names), unique=True))
        for a in draw(st.lists(st.sampled_from(AGENTS), min_size=1, max_size=3, unique=True))
    }
    order = draw(st.permutations(names))
    return KnowledgeStructure(names, disjunction(cubes), observed, order=order)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    structure=structures(),
    formulas=st.lists(nested_formulas(AGENTS, ATOMS[:2]), min_size=1, max_size=3),
    backend=st.sampled_from(available_backends()),
)
def test_structure_round_trip_keeps_every_answer(structure, formulas, backend):
    text = structure.to_json()
    again = KnowledgeStructure.from_json(text, backend=backend)
    assert again.backend == backend
    assert again.to_json() == text  # reproducible, whatever the backend
    assert again.vocabulary == structure.vocabulary
    assert dict(again.observed) == dict(structure.observed)
    states = list(structure.states())
    assert list(again.states()) == states
    for f in formulas:
        if not f.agents() <= set(structure.agents) or not {a.name for a in f.atoms()} <= set(
            structure.vocabulary
        ):
            continue
        assert [again.holds(f, s) for s in states] == [structure.holds(f, s) for s in states]


def test_save_and_load(tmp_path):
    model = kw.KripkeModel.from_worlds(
        ["x", "y"], {"x": ["p"]}, partitions={"A": [["x", "y"]]}, actual="y"
    )
    path = tmp_path / "model.json"
    model.save(path)
    loaded = kw.KripkeModel.load(path)
    assert loaded.world_name(loaded.actual) == "y" and loaded.holds("~p & M_A p")
    ks = KnowledgeStructure(["m1", "m2"], "m1 | m2", {"1": ["m2"], "2": ["m1"]})
    ks.save(tmp_path / "ks.json")
    assert KnowledgeStructure.load(tmp_path / "ks.json").count_states() == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ks.json", "model.json"]


def test_equal_partitions_write_equal_text():
    one = kw.KripkeModel(3, {"A": [7, 7, 2]}, {"p": [True, False, True]})
    two = kw.KripkeModel(3, {"A": [[0, 1], [2]]}, {"p": [True, False, True]})
    assert one.to_json() == two.to_json()
    assert json.loads(one.to_json())["partitions"] == {"A": [0, 0, 1]}


# ----------------------------------------------------------------- bad input

GOOD_MODEL = kw.KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]}).to_dict()
GOOD_STRUCTURE = KnowledgeStructure(["p", "q"], "p & ~q | ~p & q", {"A": ["p"]}).to_dict()


def changed(data, **fields):
    return {**json.loads(json.dumps(data)), **fields}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"format": "kwartet-game-record"}, "format: 'kwartet-game-record' is not a saved Kripke"),
        ({"version": 2}, "version: 2 is not supported.*newer version"),
        ({"version": "1"}, "version: '1' is not supported"),
        ({"version": True}, "version: True is not supported"),
        ({"worlds": -1}, r"worlds: -1: expected the number of worlds.*\(at \$\.worlds\)"),
        ({"worlds": 10**50}, "worlds: .*expected the number of worlds"),
        ({"worlds": 3}, "agent 'A' has 2 labels: expected one per world"),
        ({"actual": 2}, "actual: 2: expected a world index 0..1"),
        ({"actual": 1.0}, "actual: 1.0: expected null, or the index"),
        ({"world_names": ["x"]}, "world_names: 1 names: expected one per world"),
        ({"partitions": {"A": [0, 2]}}, r"agent 'A', world 1: 2: expected a block label 0..1"),
        (
            {"partitions": {"A": [0, True]}},
            r"partitions: True: expected a block label, an integer from 0 to 2\^63 - 1 \(at \$\.partitions\.A\[1\]\)",
        ),
        ({"partitions": {"A B": [0, 0]}}, "key 'A B': expected an agent name"),
        # a final newline is not a letter: Python's $ matches before it, the schema's must not
        ({"partitions": {"A\n": [0, 0]}}, r"key 'A\\n': expected an agent name"),
        # past 2^63 a label cannot be a NumPy integer: refused as a file error, not OverflowError
        (
            {"partitions": {"A": [0, 2**63]}},
            r"9223372036854775808: expected a block label, an integer from 0 to 2\^63 - 1",
        ),
        ({"actual": 2**63}, "actual: 9223372036854775808: expected null, or the index"),
        ({"valuation": {"p": "1x"}}, "valuation: '1x': expected a text of 0s and 1s"),
        ({"valuation": {"p": "1\n"}}, r"valuation: '1\\n': expected a text of 0s and 1s"),
        ({"valuation": {"p": "1"}}, "atom 'p' has 1 truth values: expected one per world"),
        ({"valuation": {"has(A,7S)": "10"}}, "expected it written as 'has.A, 7S.'"),
        ({"valuation": {"K_A": "10"}}, "valuation: atom 'K_A'"),
        ({"colour": "red"}, "unknown field.*'colour'"),
    ],
)
def test_bad_kripke_models(fields, message):
    with pytest.raises(ModelFileError, match=message):
        kw.KripkeModel.from_dict(changed(GOOD_MODEL, **fields))


def test_missing_fields_and_bad_text():
    data = changed(GOOD_MODEL)
    del data["valuation"]
    with pytest.raises(ModelFileError, match="missing field.*valuation"):
        kw.KripkeModel.from_dict(data)
    text = kw.KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]}).to_json()
    with pytest.raises(ModelFileError, match="not valid JSON"):
        kw.KripkeModel.from_json(text[: len(text) // 2])  # truncated
    with pytest.raises(ModelFileError, match="not UTF-8|not valid JSON"):
        kw.KripkeModel.from_json(b'{"format": "\xff"}')
    with pytest.raises(ModelFileError, match="numbers have at most 100 digits"):
        kw.KripkeModel.from_json(text.replace('"worlds": 2', '"worlds": ' + "9" * 5000))
    with pytest.raises(ModelFileError, match="key 'worlds' appears twice"):
        kw.KripkeModel.from_json(text.replace('"worlds": 2', '"worlds": 2, "worlds": 2'))
    with pytest.raises(ModelFileError, match="nested more than"):
        kw.KripkeModel.from_json("[" * 10_000 + "]" * 10_000)
    with pytest.raises(ModelFileError, match="expected a JSON object"):
        kw.KripkeModel.from_json("[]")
    with pytest.raises(ModelFileError, match="not a saved knowledge structure"):
        KnowledgeStructure.from_json(text)


def test_bad_files(tmp_path, monkeypatch):
    with pytest.raises(ModelFileError, match="cannot read Kripke model"):
        kw.KripkeModel.load(tmp_path / "missing.json")
    path = tmp_path / "model.json"
    path.write_bytes(b"\xff\xfe not json")
    with pytest.raises(ModelFileError, match=f"{path}: Kripke model: not valid JSON"):
        kw.KripkeModel.load(path)
    kw.KripkeModel(2, {"A": [0, 0]}).save(path)
    monkeypatch.setattr(model_files, "MAX_MODEL_BYTES", 50)
    with pytest.raises(ModelFileError, match="at most 50 are read"):
        kw.KripkeModel.load(path)


def law(root, *nodes):
    return {"root": root, "nodes": [list(n) for n in nodes]}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"format": "kwartet-kripke-model"}, "not a saved knowledge structure"),
        ({"version": 0}, "version: 0 is not supported"),
        ({"vocabulary": ["p", "p"]}, "vocabulary: .*expected the atoms"),
        ({"vocabulary": ["p", "K_A x"]}, "vocabulary: atom 'K_A x'"),
        ({"order": ["p", "r"]}, "order: .*expected the vocabulary"),
        ({"observed": {"A": ["z"]}}, "agent 'A' observes 'z', which is not in the vocabulary"),
        ({"law": law(9)}, "law: root 9: expected a reference 0..1"),
        ({"law": law(2, (0, 1, 1))}, "node 0 has the same high and low child"),
        ({"law": law(2, (0, 3, 0))}, "node 0: child 3: expected a reference to an earlier"),
        ({"law": law(2, (5, 1, 0))}, "variable position 5: expected 0..1"),
        ({"law": law(3, (0, 1, 0), (1, 2, 0))}, "expected an ordered BDD"),
        ({"law": law(3, (1, 1, 0), (1, 2, 0))}, "expected an ordered BDD"),
        ({"law": law(3, (1, 1, 0), (1, 1, 0))}, "repeats an earlier node"),
        ({"law": law(1, (1, 1, 0))}, "expected the last node"),
        ({"law": law(2, (1, 1))}, r"expected a node \[variable position, high reference, low"),
        ({"law": {"root": 1}}, "missing field.*nodes"),
        ({"law": law(2**63, (0, 1, 0))}, "law: 9223372036854775808: expected a reference"),
        ({"law": law(2, (0, 2**64, 0))}, "law: 18446744073709551616: expected an integer from 0"),
        ({"observed": {"A\n": ["p"]}}, r"key 'A\\n': expected an agent name"),
    ],
)
def test_bad_structures(fields, message):
    with pytest.raises(ModelFileError, match=message):
        KnowledgeStructure.from_dict(changed(GOOD_STRUCTURE, **fields))


def test_a_saved_law_is_the_bdd_in_its_order():
    ks = KnowledgeStructure(["p", "q"], Iff(Atom("p"), Atom("q")), {"A": ["p"]}, order=["q", "p"])
    data = ks.to_dict()
    assert data["order"] == ["q", "p"]
    again = KnowledgeStructure.from_dict(data)
    assert again.manager.level_of_var("q") < again.manager.level_of_var("p")
    assert again.count_states() == 2 and again.is_valid("p <-> q")
    # the structure is unchanged by saving
    assert ks.to_dict() == data
    assert np.array_equal(
        [ks.holds("K_A q", s) for s in ks.states()], [again.holds("K_A q", s) for s in ks.states()]
    )


SCHEMAS = sorted(
    (Path(kw.__file__).parent / "schemas").glob("*.schema.json"), key=lambda path: path.name
)


def patterns_of(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern":
                yield value
            yield from patterns_of(value)
    elif isinstance(node, list):
        for value in node:
            yield from patterns_of(value)


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda path: path.name)
def test_every_schema_pattern_matches_whole_strings_in_python_too(schema):
    """JSON Schema's ``$`` ends the text; Python's (which jsonschema uses) also matches
    before a final newline.  Every pattern must refuse a valid text with a newline added."""
    found = list(patterns_of(json.loads(schema.read_text(encoding="utf-8"))))
    assert found
    for pattern in found:
        valid = {"^\\w+$(?!\\n)": "A", "^[01]*$(?!\\n)": "10"}.get(pattern, "A_1")
        assert re.search(pattern, valid), (pattern, valid)
        assert not re.search(pattern, valid + "\n"), pattern
