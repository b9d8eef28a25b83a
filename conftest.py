"""Names every doctest may use: ``kw`` (the package) and ``np``."""

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace: dict) -> None:
    import kwartet_epistemic as kw

    doctest_namespace["kw"] = kw
    doctest_namespace["np"] = np
