"""Course assignment: write a Kwartet agent that beats fact-list players.

Hand in this file.  It must define ONE of:

* ``StudentAgent``: a subclass of ``Policy`` that can be built without arguments and
  overrides ``decide(self, situation, rng)``, returning one of ``situation.asks``; or
* ``make_policy()``: a function without arguments returning a Policy, for example a
  knowledge-based program (``kw.KnowledgeProgram.from_rules([...])``).

What ``situation`` offers (see ``help(kwartet_epistemic.agents.policies.Situation)``):
``situation.asks`` (the legal asks), ``situation.view`` (your hand, hand sizes, the public
record), ``situation.knowledge`` (what you know: ``known_holder(card)``, ...),
``situation.chance(ask)`` (the probability that the ask gets a yes).  ``rng`` is a NumPy
Generator: use it for any randomness, so that graded games can be replayed.

Grade it yourself exactly as your teacher will:

    kwartet grade agent_template.py --against defensive:facts --games 400

It passes when the lower end of the 95% interval of its win share is above the bar (0.2
unless your teacher says otherwise: ``kwartet grade --calibrate`` shows what the library's
own agents reach).  It runs in a process of its own that sees only your view of the table;
each decision has a time limit (2 s by default).  This template as it stands does not pass:
improve it.  With ``--own-work`` your teacher refuses a file that returns, subclasses or
calls one of the library's ready-made policies.
"""

from __future__ import annotations

import numpy as np

from kwartet_epistemic.agents.policies import Policy, Situation
from kwartet_epistemic.game import Ask


class StudentAgent(Policy):
    """A starting point: ask a sure card if there is one, else the likeliest yes."""

    name = "student"

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        asks = list(situation.asks)
        chances = [situation.chance(ask) for ask in asks]
        best = max(chances)
        # TODO: break ties better than at random (which family? which opponent?)
        ties = [ask for ask, chance in zip(asks, chances, strict=True) if chance == best]
        return ties[int(rng.integers(len(ties)))]


# Or, instead of the class above, a knowledge-based program:
#
# import kwartet_epistemic as kw
#
# def make_policy():
#     return kw.KnowledgeProgram.from_rules(
#         [
#             ("K_me has(?p, ?c) & need(?c)", "ask ?p ?c"),
#             ("M_me has(?p, ?c) & need(?c) & ~asked(?p, ?c)", "ask ?p ?c"),
#         ],
#         name="mine",
#     )
