"""experiments/statistics_review.py: the multiple-comparison adjustments against known
answers and their invariants, the Bradley-Terry goodness of fit on data drawn from the
model, and the review of the committed games (it reproduces the figures the paper
quotes from them)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from kwartet_testing import load_script

ROOT = Path(__file__).resolve().parents[2]
review = load_script("experiments/statistics_review.py", "statistics_review_under_test")


def test_holm_and_benjamini_hochberg_known_answers() -> None:
    # Holm: sorted 0.01, 0.02, 0.03, 0.04 times 4, 3, 2, 1, made monotone
    assert [round(float(x), 4) for x in review.holm([0.01, 0.04, 0.03, 0.02])] == [
        0.04, 0.06, 0.06, 0.06,
    ]  # fmt: skip
    # BH: p_(k) m / k from the top, made monotone: 0.04, 0.04, 0.04, 0.04
    assert [round(float(x), 4) for x in review.benjamini_hochberg([0.01, 0.04, 0.03, 0.02])] == [
        0.04, 0.04, 0.04, 0.04,
    ]  # fmt: skip
    assert [round(float(x), 4) for x in review.benjamini_hochberg([0.001, 0.5])] == [0.002, 0.5]


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40))
def test_adjusted_p_values_keep_their_order_and_bounds(p: list[float]) -> None:
    by_holm, by_bh = review.holm(p), review.benjamini_hochberg(p)
    raw = np.asarray(p)
    assert (by_holm >= raw - 1e-12).all() and (by_holm <= 1).all()
    assert (by_bh >= raw - 1e-12).all() and (by_bh <= by_holm + 1e-12).all()
    order = np.argsort(raw, kind="stable")
    assert (np.diff(by_holm[order]) >= -1e-12).all()
    assert (np.diff(by_bh[order]) >= -1e-12).all()


def test_the_fit_statistic_accepts_data_drawn_from_the_model() -> None:
    """Shares drawn from a Bradley-Terry model with known ratings: the deviance is of
    the order of its degrees of freedom, and a pair made to contradict the model
    raises it far beyond."""
    rng = np.random.default_rng(3)
    ratings = {"random": 0.0, "b": 200.0, "c": 400.0, "d": 500.0}
    names = list(ratings)
    shares = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            chance = 1 / (1 + 10 ** ((ratings[b] - ratings[a]) / 400))
            shares[(a, b)] = rng.binomial(1, chance, 400).astype(float)
    fit = review.fit_ladder(shares, 20, 1)
    good = review.goodness_of_fit(shares, fit)
    assert good["dof"] == 3 and good["p_deviance"] > 0.01
    shares[("random", "d")] = np.ones(400) * 0.5  # an upset no rating explains
    bad = review.goodness_of_fit(shares, review.fit_ladder(shares, 20, 1))
    assert bad["deviance"] > 10 * good["deviance"]


def test_the_review_of_the_committed_games(tmp_path: Path) -> None:
    macros = review.main(["--bootstrap", "50", "--out", str(tmp_path)])
    text = (tmp_path / "statistics_review.txt").read_text()
    assert "Holm" in text and "Benjamini-Hochberg" in text
    assert int(macros["kwStatsTests"]) >= 40
    assert int(macros["kwStatsHolm"]) <= int(macros["kwStatsRaw"])
    assert int(macros["kwStatsMisfits"]) == 14  # the ladder's own count of misfit pairs
    # the late shares as exact_vs_facts quotes them, from the same rows
    numbers = (ROOT / "paper" / "measurements" / "exact_vs_facts_numbers.tex").read_text()
    assert "\\newcommand{\\kwExactLateExactShare}{0.492}" in numbers
    assert "exact 0.492, facts 0.450" in text
    assert macros["kwStatsLateReach"] == "2{,}493" and macros["kwStatsLateGames"] == "3{,}000"
    table = (tmp_path / "statistics_review_table.tex").read_text()
    assert table.count("\\\\") == int(macros["kwStatsTests"]) + 1 + 3  # header, 3 headings
    assert not math.isnan(float(macros["kwStatsSearchSameP"]))
