"""``python -m experiments``: run every experiment (see ``experiments/run_all.py``)."""

import sys

from experiments.run_all import main

if __name__ == "__main__":  # dask's worker processes import this module again
    sys.exit(main())
