"""``python -m kwartet_epistemic``: the ``kwartet`` command (see :mod:`kwartet_epistemic.cli`)."""

import sys

from kwartet_epistemic.cli import main

if __name__ == "__main__":
    sys.exit(main())
