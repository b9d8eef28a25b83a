"""Adapters to the conventions of other tools, each in its own module and each loaded only
when used (they need optional extras):

- :mod:`.environments`: the PettingZoo AEC environment and the Gymnasium single-agent
  environment (``Kwartet-v0``), extra ``rl``;
- :mod:`.encoding`: the observation layout and the public record's planes they share;
- :mod:`.openspiel_game`: the OpenSpiel game ``python_kwartet`` (game, state, observer);
- :mod:`.openspiel_bots`: OpenSpiel's bots as agents (``openspiel:ismcts``) and agents
  as OpenSpiel bots, extra ``openspiel``;
- :mod:`.cnf`: the law of a position as DIMACS CNF, whose models are the counting
  engine's worlds, for general model counters (Ganak, ApproxMC, SDD: extra
  ``baselines``).

SMCDEL's text input, a conversion rather than an environment, is
:func:`kwartet_epistemic.to_smcdel`.
"""

__all__: list[str] = []  # the adapters are the modules themselves
