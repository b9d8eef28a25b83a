"""The paper's generated numbers: paper/world_counts.py, the committed macro
files that paper/paper.tex reads, and the TeX outputs of the experiment scripts."""

from __future__ import annotations

import itertools
import math
import re
from pathlib import Path

import pytest
from kwartet_testing import load_script

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.epistemics.history import PublicHistory

ROOT = Path(__file__).resolve().parents[2]
MEASUREMENTS = ROOT / "paper" / "measurements"
MACRO = re.compile(r"\\newcommand\{\\(kw[A-Za-z]+)\}\{(.*)\}$")


def _macros(path: Path) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in path.read_text().splitlines():
        match = MACRO.match(line)
        if match:
            assert match.group(1) not in found, f"{path.name}: {match.group(1)} twice"
            found[match.group(1)] = match.group(2)
    return found


def test_world_counts_match_the_counter_and_the_cost_bound(tmp_path):
    module = load_script("paper/world_counts.py", "world_counts_under_test")
    row = module.measure(32, 4, repeats=1)
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=0)
    history = PublicHistory(game.deck, game.players, game.rules)
    history.extend(game.record)
    assert row["public"] == WorldCounter(history).count
    # 32 cards dealt 8/8/8/8: the deals are the multinomial, minus those with a complete
    # family in one hand, and the public programme has (8 + 1)^3 states (one slot implied)
    assert row["deals"] == math.factorial(32) // math.factorial(8) ** 4
    assert 0 < row["public"] < row["deals"]
    assert (row["dims"], row["states"]) == (3, 9**3)
    assert (row["mine_dims"], row["mine_states"]) == (2, 9**2)
    # Proposition (cost): at most (n / r + 1)^(r - 1) states for n free cards in r slots
    for cards, players in ((32, 3), (32, 6), (52, 5)):
        r = module.measure(cards, players, repeats=1)
        slots = r["dims"] + 1
        assert r["states"] <= (cards / slots + 1) ** (slots - 1)


def _deals_without_a_quartet(hands: list[int]) -> int:
    """The ways of dealing 4F cards of F families into hands of these sizes with no
    family complete in one hand, by inclusion-exclusion over the families a hand is
    made to hold whole (j_p of them with player p): independent of the counting
    engine's programme."""
    families = sum(hands) // 4
    total = 0
    for whole in itertools.product(*(range(h // 4 + 1) for h in hands)):
        taken = sum(whole)
        if taken > families:
            continue
        chosen = math.factorial(families) // (
            math.prod(math.factorial(j) for j in whole) * math.factorial(families - taken)
        )
        rest = math.factorial(sum(hands) - 4 * taken) // math.prod(
            math.factorial(h - 4 * j) for h, j in zip(hands, whole, strict=True)
        )
        total += (-1) ** taken * chosen * rest
    return total


@pytest.mark.parametrize(("cards", "players"), [(32, 3), (32, 4), (52, 3), (52, 6)])
def test_table_one_against_an_independent_count(cards: int, players: int) -> None:
    """Each row of the world-count table: the deals are the multinomial over the hand
    sizes dealt (32 cards among 3 players: 11/10/11, before A lays down the jacks), the
    public worlds are the deals of the cards still hidden without a complete family in
    one hand."""
    module = load_script("paper/world_counts.py", "world_counts_independent")
    row = module.measure(cards, players, repeats=1)
    dealt = [cards // players + (1 if i < cards % players else 0) for i in range(players)]
    assert row["deals"] == math.factorial(cards) // math.prod(math.factorial(h) for h in dealt)
    game = kw.Game.deal(module.deck_of(cards), module.NAMES[:players], seed=0)
    hands = [len(game.hand(p)) for p in game.players]
    assert row["hidden"] == sum(hands)
    assert row["public"] == _deals_without_a_quartet(hands)
    if (cards, players) == (32, 3):
        assert row["hidden"] == 28 and f"{row['deals']:.1e}" == "4.6e+13"


def test_world_counts_script_writes_macros_the_paper_uses(tmp_path):
    module = load_script("paper/world_counts.py", "world_counts_script_under_test")
    module.main(["--out", str(tmp_path)])
    macros = _macros(tmp_path / "world_counts_numbers.tex")
    assert macros["kwWorldsExample"] == "34{,}032"  # brute force in the test suite
    exact = int(macros["kwWorldsThirtyTwoFourExact"].replace("{,}", ""))
    assert exact == 93_577_100_618_119_680  # the counting engine's doctest
    table = (tmp_path / "world_counts_table.tex").read_text()
    assert table.count("\\\\") == 1 + 8  # the header and one row per deck and player count


@pytest.mark.parametrize(
    "name",
    sorted(p.name for p in MEASUREMENTS.glob("*_numbers.tex")),
)
def test_committed_numbers_files_are_generated_and_well_formed(name):
    path = MEASUREMENTS / name
    lines = path.read_text().splitlines()
    assert lines[0].startswith("% generated by "), name
    macros = _macros(path)
    assert macros, f"{name}: no macros"
    for text in macros.values():
        assert text.count("{") == text.count("}")


def test_no_macro_is_defined_by_two_files():
    owner: dict[str, str] = {}
    for path in sorted(MEASUREMENTS.glob("*_numbers.tex")):
        for name in _macros(path):
            assert name not in owner, f"{name} in {owner.get(name)} and {path.name}"
            owner[name] = path.name


def test_every_macro_the_paper_uses_is_defined():
    sources = [ROOT / "paper" / "paper.tex", *sorted((ROOT / "paper" / "sections").glob("*.tex"))]
    paper = "\n".join(path.read_text() for path in sources)
    defined = set(re.findall(r"\\newcommand\{\\(kw[A-Za-z]+)\}", paper))  # none today, but allowed
    for path in MEASUREMENTS.glob("*_numbers.tex"):
        defined |= set(_macros(path))
    used = set(re.findall(r"\\(kw[A-Z][A-Za-z]*)", paper))
    assert used <= defined, sorted(used - defined)


def test_exact_vs_facts_agents_table_counts_each_agent(tmp_path):
    module = load_script("experiments/exact_vs_facts.py", "exact_vs_facts_tex_under_test")
    cell = module._agents_cell("knowledge knowledge knowledge:facts knowledge:facts")
    assert cell == "2 \\texttt{knowledge}, 2 \\texttt{knowledge:facts}"
    row = {"agents": "random random random random", "games": "12", "all_more_pct": "4.31",
           "all_more_low": "4.1", "all_more_high": "4.4", "after_30_more_pct": "5.0",
           "after_30_more_low": "4.8", "after_30_more_high": "5.2"}  # fmt: skip
    path = module.agents_table([row], tmp_path)
    body = [line for line in path.read_text().splitlines() if line.endswith("\\\\")]
    assert body[1] == "4 \\texttt{random} & 12 & 4.3 & [4.1, 4.4] & 5.0 & [4.8, 5.2] \\\\"


def test_paper_readme_names_only_labels_the_paper_has() -> None:
    """paper/README.md says where each generated file appears by the paper's LaTeX
    labels; every one it names must exist (numbers change as floats move)."""
    sources = [ROOT / "paper" / "paper.tex", *sorted((ROOT / "paper" / "sections").glob("*.tex"))]
    labels = set()
    for source in sources:
        labels |= set(re.findall(r"\\label\{([^}]+)\}", source.read_text()))
    readme = (ROOT / "paper" / "README.md").read_text()
    named = set(re.findall(r"`((?:tab|fig|sec|app):[^`]+)`", readme))
    assert named, "the README names no label"
    assert named <= labels, sorted(named - labels)
    assert not re.search(r"\((?:Table|Fig\.|Figs\.|Sec\.) ?\d", readme)
