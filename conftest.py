"""Names every doctest may use: ``kw`` (the package) and ``np``."""

import sys
from pathlib import Path

import numpy as np
import pytest

# Shared test helpers (tests/kwartet_testing.py) import as a plain module.
sys.path.insert(0, str(Path(__file__).parent / "tests"))

# The deprecated module paths hold no doctest, and importing them warns; their own tests
# (tests/interop) check the warning and what they forward to.
collect_ignore = ["kwartet_epistemic/env.py", "kwartet_epistemic/openspiel.py"]


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict) -> None:
    import kwartet_epistemic as kw

    doctest_namespace["kw"] = kw
    doctest_namespace["np"] = np
