"""experiments/search_budget.py in its quick mode: the tuning picks the best ISMCTS
setting it tried, each budget's games are seat-rotated and resumable, and the win shares
of the two sides add up to one half per game."""

from __future__ import annotations

from pathlib import Path

import pytest
from kwartet_testing import load_script, require_extra

require_extra("pyspiel", "openspiel")
budget = load_script("experiments/search_budget.py", "search_budget_under_test")


def test_quick_run_and_resume(tmp_path: Path) -> None:
    rows = budget.main(["--quick", "--jobs", "1", "--out", str(tmp_path)])
    assert [r["ms"] for r in rows] == [10, 30]
    for r in rows:
        assert r["games"] == 6
        assert r["search_share"] + r["ismcts_share"] == pytest.approx(0.5)
    text = (tmp_path / "search_budget.txt").read_text()
    assert "tuned: openspiel:ismcts[uct_c=0.7,final=visits]" in text
    assert (tmp_path / "search_budget.pdf").is_file()
    # A second run finds every game played and only summarises.
    again = budget.main(["--quick", "--jobs", "1", "--out", str(tmp_path)])
    assert again == rows
