"""``python -m experiments``: run every experiment (see ``experiments/run_all.py``)."""

import sys

from experiments.run_all import main

sys.exit(main())
