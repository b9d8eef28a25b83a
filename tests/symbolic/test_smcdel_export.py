"""The SMCDEL export: the text SMCDEL reads, checked two ways.

- Without SMCDEL: the text is read back by a small reader of SMCDEL's input language
  written here (from SMCDEL's ``Lex.x``/``Parse.y``), into one of our knowledge
  structures; its answers must be those of the exported object.  That checks that the
  text is well formed (every token, every number declared, every agent in OBS) and that
  the encoding (Kripke worlds as states, the law's auxiliary variables) keeps the
  answers.  The variable map written in the comments reads back.
- With SMCDEL's ``smcdel`` (``$SMCDEL``, the PATH or ``/tmp/smcdel/inst/bin``; skipped
  without it): random small Kripke models, knowledge structures and game positions
  (several presets) with random formulas; SMCDEL's TRUE?, VALID? and WHERE? answers
  must be ours.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from kwartet_testing import SMALL_SETUPS, random_formula, random_game

import kwartet_epistemic as kw
from kwartet_epistemic.conversions import smcdel_export
from kwartet_epistemic.errors import ModelError, ModelTooLargeError
from kwartet_epistemic.logic import (
    And,
    Announce,
    AnnounceDual,
    Atom,
    Bottom,
    C,
    D,
    Formula,
    Iff,
    Implies,
    K,
    Kw,
    Not,
    Or,
    Top,
    conjunction,
    disjunction,
    has,
)
from kwartet_epistemic.symbolic import KnowledgeStructure
from kwartet_epistemic.symbolic import smcdel as smcdel_module
from kwartet_epistemic.symbolic.smcdel import (
    SMCDEL_JOBS,
    SmcdelError,
    find_smcdel,
    read_smcdel_output,
    read_smcdel_variables,
    run_smcdel,
)
from kwartet_epistemic.symbolic.translations import kripke_to_structure

# ----------------------------------------------------------------- a reader of SMCDEL's input

_TOKEN = re.compile(
    r"\s+|--[^\n]*"
    r"|(?P<word>knows that|knows whether|comknow that|comknow whether|distknow that"
    r"|distknow whether|TRUE\?|VALID\?|WHERE\?|->|[:,()\[\]{}<>!?~&|])"
    r"|(?P<int>[0-9]+)|(?P<str>[A-Za-z][A-Za-z0-9]*)"
)


def tokens(text: str) -> list[tuple[str, str]]:
    """SMCDEL's tokens of the text: (kind, text); fails on anything its lexer refuses."""
    found = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        assert match is not None, f"SMCDEL's lexer stops at {text[position : position + 40]!r}"
        position = match.end()
        for kind in ("word", "int", "str"):
            if match.group(kind) is not None:
                found.append((kind, match.group(kind)))
    return found


class Reader:
    """SMCDEL's input as our objects: the structure (variables named v1, v2, ...), and
    the jobs as (kind, state or None, formula)."""

    def __init__(self, text: str) -> None:
        self.tokens = tokens(text)
        self.at = 0
        self.expect("str", "VARS")
        self.vars = self.ints()
        self.expect("str", "LAW")
        self.law = self.form()
        self.expect("str", "OBS")
        self.observed: dict[str, list[int]] = {}
        while self.peek() == ("str", self.peek()[1]) and self.peek(1) == ("word", ":"):
            name = self.take()[1]
            self.take()
            self.observed[name] = self.ints()
        self.jobs: list[tuple[str, frozenset[str] | None, Formula]] = []
        while self.at < len(self.tokens):
            kind = self.take()[1]
            state = None
            if kind == "TRUE?":
                self.expect("word", "{")
                numbers = [] if self.peek() == ("word", "}") else self.ints()
                self.expect("word", "}")
                assert set(numbers) <= set(self.vars)
                state = frozenset(f"v{n}" for n in numbers)
            else:
                assert kind in ("VALID?", "WHERE?"), kind
            self.jobs.append((kind, state, self.form()))
        assert len(set(self.vars)) == len(self.vars)
        for seen in self.observed.values():
            assert set(seen) <= set(self.vars)
        self.structure = KnowledgeStructure(
            [f"v{n}" for n in self.vars],
            self.law,
            {a: [f"v{n}" for n in seen] for a, seen in self.observed.items()},
        )

    def peek(self, ahead: int = 0) -> tuple[str, str]:
        index = self.at + ahead
        return self.tokens[index] if index < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.at += 1
        return token

    def expect(self, kind: str, text: str) -> None:
        assert self.take() == (kind, text), f"expected {text!r} at token {self.at}"

    def ints(self) -> list[int]:
        numbers = [int(self.take()[1])]
        while self.peek() == ("word", ","):
            self.take()
            assert self.peek()[0] == "int"
            numbers.append(int(self.take()[1]))
        return numbers

    def agent(self) -> str:
        kind, name = self.take()
        assert kind == "str" and name in self.observed, f"agent {name!r} is not in OBS"
        return name

    def form(self) -> Formula:
        left = self.primary()
        kind, text = self.peek()
        binary = {"&": And, "|": Or, "->": Implies, "iff": Iff}
        if text in binary and kind in ("word", "str"):
            self.take()
            return binary[text](left, self.primary())
        return left

    def formulas(self) -> list[Formula]:
        self.expect("word", "(")
        found = [self.form()]
        while self.peek() == ("word", ","):
            self.take()
            found.append(self.form())
        self.expect("word", ")")
        return found

    def primary(self) -> Formula:
        kind, text = self.take()
        if kind == "int":
            assert int(text) in self.vars, f"variable {text} is not in VARS"
            return Atom(f"v{text}")
        if (kind, text) == ("str", "Top"):
            return Top()
        if (kind, text) == ("str", "Bot"):
            return Bottom()
        if text == "~":
            return Not(self.primary())
        if (kind, text) == ("str", "AND"):
            return conjunction(self.formulas())
        if (kind, text) == ("str", "OR"):
            return disjunction(self.formulas())
        if (kind, text) in (("str", "K"), ("str", "Kw")):
            agent = self.agent()
            return (K if text == "K" else Kw)(agent, self.primary())
        if text in ("[", "<"):
            self.expect("word", "!")
            announced = self.form()
            self.expect("word", "]" if text == "[" else ">")
            return (Announce if text == "[" else AnnounceDual)(announced, self.primary())
        assert text == "(", f"unexpected token {text!r}"
        keywords = ("Top", "Bot", "AND", "OR", "K", "Kw", "iff")
        if self.peek()[0] == "str" and self.peek()[1] not in keywords and self.peek(1)[1] in ",)":
            group = [self.agent()]
            while self.peek() == ("word", ","):
                self.take()
                group.append(self.agent())
            self.expect("word", ")")
            operator = self.take()[1]
            assert operator in ("comknow that", "distknow that"), operator
            return (C if operator.startswith("com") else D)(group, self.primary())
        inside = self.form()
        self.expect("word", ")")
        return inside

    def answers(self) -> list[bool | frozenset[frozenset[str]]]:
        """Our answers on the structure read (as SMCDEL's semantics give them)."""
        found: list[bool | frozenset[frozenset[str]]] = []
        for kind, state, formula in self.jobs:
            if kind == "TRUE?":
                assert state is not None
                found.append(self.structure.holds(formula, state))
            elif kind == "VALID?":
                found.append(self.structure.is_valid(formula))
            else:
                satisfied = self.structure.is_satisfiable(formula)
                found.append(
                    frozenset(self.structure.announce(formula).states())
                    if satisfied
                    else frozenset()
                )
        return found


def where_states(export, value) -> frozenset[frozenset[str]]:
    """A WHERE? answer (sets of numbers) as states over our variable names."""
    return frozenset(export.state_names(state) for state in value)


# ----------------------------------------------------------------- random objects


def random_model(rng: np.random.Generator, agents=("A", "B", "1"), atoms=("p", "q", "r")):
    n = int(rng.integers(1, 9))
    partitions = {a: rng.integers(0, int(rng.integers(1, n + 1)), size=n) for a in agents}
    valuation = {p: rng.random(n) < 0.5 for p in atoms}
    return kw.KripkeModel(n, partitions, valuation, actual=int(rng.integers(n)))


def random_structure(rng: np.random.Generator, size: int = 5) -> KnowledgeStructure:
    names = [f"x{i}" for i in range(size)]
    clauses = [
        disjunction(
            Atom(str(rng.choice(names)))
            if rng.random() < 0.5
            else Not(Atom(str(rng.choice(names))))
            for _ in range(3)
        )
        for _ in range(int(rng.integers(1, 2 * size)))
    ]
    law = conjunction(clauses)
    observed = {a: [n for n in names if rng.random() < 0.4] for a in ("A", "B", "C")}
    structure = KnowledgeStructure(names, law, observed)
    if structure.count_states() == 0:
        return KnowledgeStructure(names, "top", observed)
    return structure


def model_answers(model, export) -> list:
    found = []
    for job, index in export.jobs:
        f = export.queries[index]
        if job == "TRUE?":
            found.append(model.holds(f))
        elif job == "VALID?":
            found.append(model.is_valid(f))
        else:
            found.append(frozenset(np.flatnonzero(model.truth_set(f)).tolist()))
    return found


def structure_answers(structure, export, actual) -> list:
    found = []
    for job, index in export.jobs:
        f = export.queries[index]
        if job == "TRUE?":
            found.append(structure.holds(f, actual))
        elif job == "VALID?":
            found.append(structure.is_valid(f))
        else:
            found.append(
                frozenset(structure.announce(f).states())
                if structure.is_satisfiable(f)
                else frozenset()
            )
    return found


# ----------------------------------------------------------------- without SMCDEL


def test_the_text_has_smcdel_sections_and_maps_names_in_comments():
    ks = KnowledgeStructure(["p", "has(A, Q♥)"], "p | has(A, Q♥)", {"A": ["p"], "K": []})
    export = smcdel_export(ks, ["K_A has(A, Q♥)", "M_K p"], actual={"p"})
    lines = [line for line in export.text.splitlines() if not line.startswith("--")]
    assert [line.split()[0] for line in lines[:3]] == ["VARS", "LAW", "OBS"]
    assert export.text.isascii()  # SMCDEL reads the file in the locale's encoding
    assert read_smcdel_variables(export.text) == export.variables == {"p": 1, "has(A, Q♥)": 2}
    # "K" is SMCDEL's keyword: the agent is renamed, and sees the constant variable
    assert export.agents == {"A": "A", "K": "a1"}
    assert "a1: 3" in export.text and "~3" in export.text
    assert [job for job, _ in export.jobs] == ["TRUE?", "VALID?", "WHERE?"] * 2


@pytest.mark.parametrize("seed", range(9))
def test_kripke_export_read_back_answers_as_the_model(seed, monkeypatch):
    # seed % 3: 0 laws written as formulas, 1 as their list of states, 2 with auxiliaries
    if seed % 3:
        monkeypatch.setattr(smcdel_module, "_DIRECT_LAW_LENGTH", 0)
    if seed % 3 == 2:
        monkeypatch.setattr(smcdel_module, "_LISTED_STATES", 0)
    rng = np.random.default_rng(seed)
    model = random_model(rng)
    queries = [
        random_formula(rng, ["A", "B", "1"], [Atom("p"), Atom("q"), Atom("r")]) for _ in range(6)
    ]
    export = smcdel_export(model, queries)
    reader = Reader(export.text)
    ours = model_answers(model, export)
    read = reader.answers()
    assert len(read) == len(ours) == 3 * len(queries)
    for (job, _), mine, theirs in zip(export.jobs, ours, read, strict=True):
        if job == "WHERE?":
            theirs = frozenset(export.world_of({int(v[1:]) for v in s}) for s in theirs)
        assert mine == theirs, job
    assert reader.structure.count_states() == model.n_worlds


@pytest.mark.parametrize("seed", range(9))
def test_structure_export_read_back_answers_as_the_structure(seed, monkeypatch):
    rng = np.random.default_rng(100 + seed)
    # seed 0-2: laws written as formulas; 3-5: with auxiliary variables; 6-8: listed
    if seed >= 3:
        monkeypatch.setattr(smcdel_module, "_DIRECT_LAW_LENGTH", 0)
    if 3 <= seed < 6:
        monkeypatch.setattr(smcdel_module, "_LISTED_STATES", 0)
    structure = random_structure(rng, 4 if seed < 3 else 9)
    actual = next(iter(structure.states()))
    queries = [
        random_formula(rng, ["A", "B", "C"], [Atom(f"x{i}") for i in range(4)]) for _ in range(5)
    ]
    export = smcdel_export(structure, queries, actual=actual)
    assert bool(export.auxiliary) == (" iff OR (" in export.text)
    if 3 <= seed < 6:
        assert export.auxiliary and " iff OR (" in export.text
    if seed >= 6:  # a law too long as a formula, written as its list of states
        law = export.text.split("\nLAW ", 1)[1].split("\nOBS", 1)[0]
        assert not export.auxiliary and law.count("AND (") == structure.count_states()
    reader = Reader(export.text)
    # the auxiliary variables add no state: the structure read has as many states
    assert reader.structure.count_states() == structure.count_states()
    ours = structure_answers(structure, export, actual)
    for (job, _), mine, theirs in zip(export.jobs, ours, reader.answers(), strict=True):
        if job == "WHERE?":
            theirs = frozenset(export.state_names({int(v[1:]) for v in s}) for s in theirs)
        assert mine == theirs, job


@pytest.mark.parametrize("setup", SMALL_SETUPS[:5], ids=lambda s: f"{s[0]}-{s[1]}-{len(s[2])}")
def test_game_export_read_back_answers_as_the_game(setup):
    game = random_game(setup, seed=7, steps=4)
    players = list(game.players)
    rng = np.random.default_rng(7)
    atoms = [has(p, c.code) for p in players for c in game.deck.cards]
    picked = [atoms[i] for i in rng.choice(len(atoms), size=5, replace=False)]
    queries = [random_formula(rng, players, picked, depth=2) for _ in range(5)]
    export = smcdel_export(game, queries, jobs=["TRUE?"])
    reader = Reader(export.text)
    state = kw.knowledge(game)
    assert reader.answers() == [state.holds(q) for q in queries]
    assert read_smcdel_variables(export.text) == export.variables


def test_muddy_children_export_as_smcdel_writes_them():
    """SMCDEL's own example: VARS 1,2,3, LAW Top, each child observing the others."""
    model = kw.examples.muddy_children(3, [1, 2])
    export = smcdel_export(model, ["K_1 m1"])
    lines = [line for line in export.text.splitlines() if not line.startswith("--")]
    assert lines[:6] == ["VARS 1, 2, 3", "LAW Top", "OBS", "  a1: 2, 3", "  a2: 1, 3", "  a3: 1, 2"]
    assert export.auxiliary == ()
    assert Reader(export.text).answers() == model_answers(model, export)


def test_a_small_game_position_exports_its_origin_variables_only():
    hands = {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}
    game = kw.Game.from_hands(kw.Deck.piquet(families=2), hands, first="A")
    game.ask("B", "7D")
    export = smcdel_export(game, ["K_A has(C, 7D)", "C_{A,B,C} ~has(B, 7D)"])
    assert export.auxiliary == ()  # the 150 states listed, no auxiliary bit
    assert len(export.variables) <= 24
    state = kw.knowledge(game)
    assert Reader(export.text).answers()[::3] == [
        state.holds("K_A has(C, 7D)"),
        state.holds("C_{A,B,C} ~has(B, 7D)"),
    ]


def test_kripke_structure_keeps_every_world_apart():
    # two worlds alike in atoms and cells: a copy bit tells them apart
    model = kw.KripkeModel(3, {"A": [0, 0, 1]}, {"p": [True, True, False]})
    structure, states = kripke_to_structure(model)
    assert len(set(states)) == 3 and structure.count_states() == 3
    assert any(name.startswith("copy(") for name in structure.vocabulary)
    for f in ("K_A p", "M_A ~p", "[!p]K_A p"):
        assert [structure.holds(f, s) for s in states] == model.truth_set(f).tolist()


def test_clear_errors():
    ks = KnowledgeStructure(["p"], "top", {"A": ["p"]})
    with pytest.raises(ModelError, match="unknown agent 'B'"):
        smcdel_export(ks, "K_B p")
    with pytest.raises(ModelError, match="unknown atom 'q'"):
        smcdel_export(ks, "q")
    with pytest.raises(ModelError, match="TRUE. job needs a state"):
        smcdel_export(ks, "p", jobs=["TRUE?"])
    with pytest.raises(ModelError, match="SMCDEL job 'MAYBE\\?'"):
        smcdel_export(ks, "p", jobs=["MAYBE?"])
    with pytest.raises(ModelError, match="violates the law|not a state"):
        smcdel_export(KnowledgeStructure(["p"], "p", {}), "p", actual=set())
    model = kw.KripkeModel(2, {"A": [0, 1]}, {"p": [True, False]})
    with pytest.raises(ModelError, match="atom 'cell.A, 0.' .* not in the model's vocabulary"):
        kw.to_smcdel(model, "cell(A, 0)")  # a variable of the encoding, not an atom of the model
    with pytest.raises(ModelError, match="unknown agent 'B'"):
        kw.to_smcdel(model, "K_B p")
    with pytest.raises(ModelError, match="expected a formula"):
        smcdel_export(ks, 42)
    with pytest.raises(ModelError, match="expected a KripkeModel"):
        kw.to_smcdel("not a model")
    with pytest.raises(ModelTooLargeError, match="at most 2 "):
        kripke_to_structure(kw.KripkeModel(3, {"A": [0, 1, 2]}), max_worlds=2)
    big = Atom("p")
    for _ in range(40):
        big = And(big, big)  # 2**40 atoms written out
    with pytest.raises(ModelTooLargeError, match="characters"):
        smcdel_export(ks, big)


def test_output_reader():
    output = (
        "SMCDEL 1.3.0\n\nIs K a 1 true at [1]?\n\x1b[97mTrue\n\n\x1b[mAt which states is 1 true?\n"
        "\x1b[97m[1]\n\x1b[m\x1b[97m[1,2]\n\x1b[m\n\nDoei!\n"
    )
    assert read_smcdel_output(output) == [True, (frozenset({1}), frozenset({1, 2}))]
    export = smcdel_export(KnowledgeStructure(["p"], "top", {"A": ["p"]}), "p")
    with pytest.raises(SmcdelError, match="1 answers to 2 queries"):
        export.answers("Is p valid on F?\nTrue\n")
    with pytest.raises(SmcdelError, match="after"):
        read_smcdel_output("Is p valid on F?\nmaybe\n")


def test_missing_smcdel_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("SMCDEL", str(tmp_path / "no-smcdel"))
    assert find_smcdel() is None
    with pytest.raises(SmcdelError, match="not found"):
        run_smcdel("VARS 1\nLAW Top\nOBS a: 1\n")


# ----------------------------------------------------------------- with SMCDEL

smcdel = pytest.mark.skipif(find_smcdel() is None, reason="SMCDEL's smcdel is not built here")


def compare(export, ours, answers) -> None:
    for (job, index), mine, answer in zip(export.jobs, ours, answers, strict=True):
        theirs = answer.value
        if job == "WHERE?" and export.worlds is not None:
            theirs = frozenset(export.world_of(s) for s in theirs)
        elif job == "WHERE?":
            theirs = where_states(export, theirs)
        assert mine == theirs, (job, str(export.queries[index]))


@smcdel
def test_smcdel_agrees_on_random_kripke_models(monkeypatch):
    for seed in range(6):
        monkeypatch.setattr(smcdel_module, "_DIRECT_LAW_LENGTH", 2000 if seed % 2 else 0)
        monkeypatch.setattr(smcdel_module, "_LISTED_STATES", 4096 if seed % 4 == 1 else 0)
        rng = np.random.default_rng(200 + seed)
        model = random_model(rng)
        queries = [
            random_formula(rng, ["A", "B", "1"], [Atom("p"), Atom("q"), Atom("r")])
            for _ in range(8)
        ]
        export = smcdel_export(model, queries)
        compare(export, model_answers(model, export), export.run())


@smcdel
def test_smcdel_agrees_on_random_knowledge_structures(monkeypatch):
    for seed in range(6):
        # odd seeds: laws written as formulas; even seeds: with auxiliary variables
        monkeypatch.setattr(smcdel_module, "_DIRECT_LAW_LENGTH", 2000 if seed % 2 else 0)
        monkeypatch.setattr(smcdel_module, "_LISTED_STATES", 4096 if seed % 4 == 1 else 0)
        rng = np.random.default_rng(300 + seed)
        structure = random_structure(rng, 4 if seed % 2 else 10)
        states = list(structure.states())
        actual = states[int(rng.integers(len(states)))]
        queries = [
            random_formula(rng, ["A", "B", "C"], [Atom(f"x{i}") for i in range(4)])
            for _ in range(8)
        ]
        export = smcdel_export(structure, queries, actual=actual)
        compare(export, structure_answers(structure, export, actual), export.run())


@smcdel
@pytest.mark.parametrize(
    "setup", SMALL_SETUPS, ids=lambda s: f"{s[0]}-{s[1]}-{len(s[2])}-{sorted(s[3])}"
)
def test_smcdel_agrees_on_random_game_positions(setup):
    for seed in (1, 2):
        game = random_game(setup, seed=seed, steps=2 + 3 * seed)
        players = list(game.players)
        rng = np.random.default_rng(seed)
        atoms = [has(p, c.code) for p in players for c in game.deck.cards]
        picked = [atoms[i] for i in rng.choice(len(atoms), size=5, replace=False)]
        queries = [random_formula(rng, players, picked, depth=2) for _ in range(6)]
        state = kw.knowledge(game)
        symbolic = state.engine_named("symbolic").structure()
        structure = symbolic.structure
        # WHERE? prints every state: asked only where there are few
        few = structure.count_states() <= 300
        export = smcdel_export(game, queries, jobs=SMCDEL_JOBS if few else SMCDEL_JOBS[:2])
        answers = export.run()
        for answer in answers:
            f = export.queries[answer.query]
            if answer.job == "TRUE?":
                assert answer.value == state.holds(f), str(f)
            elif answer.job == "VALID?":
                assert answer.value == structure.is_valid(f), str(f)
            else:
                assert len(answer.value) == structure.count_states(f), str(f)
        # a player's view: K_P q and K_P ~q at a state the player considers possible
        view = game.view(players[0])
        # (the symbolic engine: the counting one declines what others know on a view)
        known = kw.knowledge(view, engine="symbolic")
        export = smcdel_export(view, queries[:3], jobs=["TRUE?"])
        values = [a.value for a in export.run()]
        for number, q in enumerate(queries[:3]):
            knows_true, knows_false = values[2 * number], values[2 * number + 1]
            try:
                expected = known.holds(q)
            except kw.UnknownToViewerError:
                assert not knows_true and not knows_false, str(q)
            else:
                assert (knows_true, knows_false) == (expected, not expected), str(q)


def test_the_old_homes_of_the_conversions_still_work_and_warn() -> None:
    model = kw.KripkeModel(2, {"A": [0, 1]}, {"p": [True, False]})
    with pytest.warns(DeprecationWarning, match="kwartet_epistemic.to_smcdel"):
        assert model.to_smcdel("K_A p") == kw.to_smcdel(model, "K_A p")
    with pytest.warns(DeprecationWarning, match="kripke_to_structure"):
        structure, states = model.to_knowledge_structure()
    assert states == kripke_to_structure(model)[1]
    with pytest.warns(DeprecationWarning, match="import it from kwartet_epistemic.conversions"):
        from kwartet_epistemic.symbolic.smcdel import to_smcdel as old_to_smcdel
    assert old_to_smcdel(model, "K_A p") == kw.to_smcdel(model, "K_A p")
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        smcdel_module.nothing  # noqa: B018
