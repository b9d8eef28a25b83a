"""The experiment scripts (each run as ``python experiments/<name>.py``) and their runner,
``python -m experiments --quick`` / ``--full`` (see :mod:`experiments.run_all`)."""
