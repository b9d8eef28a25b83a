"""Action (event) models and product update: private and semi-private events.

An action model has events, each with a precondition (a formula) and optionally
postconditions (atom := formula, for factual change), one partition per agent over the
events (which events the agent cannot tell apart) and a designated event (what really
happens).  The product update of a Kripke model with it keeps the pairs (world, event)
where the precondition holds.

Cath shows Bob her card, and Alice sees only that *some* card is shown:

>>> from kwartet_epistemic.examples import russian_cards
>>> from kwartet_epistemic.logic import has
>>> deal = russian_cards()
>>> shown = ActionModel.semi_private(
...     {str(card): has("Cath", card) for card in range(7)},
...     observers=["Bob", "Cath"], agents=deal.agents, actual="6")
>>> after = deal.product_update(shown)
>>> after.holds("K_Bob has(Cath, 6) & ~K_Alice has(Cath, 6)")
True
>>> after.holds("K_Alice (Kw_Bob has(Cath, 3) & Kw_Bob has(Cath, 6))")
True
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from kwartet_epistemic.errors import ModelError
from kwartet_epistemic.kripke.partition import (
    PartitionLike,
    Relation,
    compact,
    partition_labels,
)
from kwartet_epistemic.logic.formula import Atom, Formula, check_agent
from kwartet_epistemic.logic.parser import as_formula

if TYPE_CHECKING:
    from kwartet_epistemic.kripke.model import KripkeModel

__all__ = ["ActionModel", "product_update"]


@dataclass(frozen=True, init=False)
class ActionModel:
    """An S5 action model: events with pre- and postconditions, partitions, actual event.

    ``ActionModel(events, partitions, actual, postconditions=None)``:

    - ``events``: event name -> precondition (a Formula or formula text), in order;
    - ``partitions``: agent -> blocks of event names (events in no block are alone),
      one label per event (in event order), or :class:`Relation` of event-name pairs;
    - ``actual``: the name of the event that really happens;
    - ``postconditions``: event name -> {atom: formula}; the atom takes the value the
      formula had before the event (atoms not listed keep their value).

    >>> flip = ActionModel({"heads": "top", "tails": "top"}, {"A": [["heads", "tails"]]},
    ...                    actual="heads",
    ...                    postconditions={"heads": {"h": "top"}, "tails": {"h": "bot"}})
    >>> flip.events, flip.agents
    (('heads', 'tails'), ('A',))
    """

    events: tuple[str, ...]
    preconditions: tuple[Formula, ...]
    partitions: tuple[tuple[str, tuple[int, ...]], ...]
    actual: int
    postconditions: tuple[tuple[tuple[str, Formula], ...], ...]

    def __init__(
        self,
        events: Mapping[str, Formula | str],
        partitions: Mapping[str, PartitionLike],
        actual: str | int,
        postconditions: Mapping[str, Mapping[str | Atom, Formula | str]] | None = None,
    ) -> None:
        names = tuple(str(name) for name in events)
        if not names:
            raise ModelError("an action model needs at least one event")
        if len(set(names)) != len(names):
            raise ModelError(f"event names must be unique, got {list(names)}")
        index = {name: i for i, name in enumerate(names)}

        def find(event: object, where: str) -> int:
            # Events are named; an int that is no event name is taken as a position.
            if str(event) in index:
                return index[str(event)]
            if isinstance(event, int) and not isinstance(event, bool) and 0 <= event < len(names):
                return event
            raise ModelError(f"{where} mentions unknown event {event!r}: events are {list(names)}")

        preconditions = tuple(as_formula(pre) for pre in events.values())
        labelled: list[tuple[str, tuple[int, ...]]] = []
        for agent, partition in partitions.items():
            name = check_agent(agent)
            what = f"agent {name!r} over events"
            converted: PartitionLike
            if isinstance(partition, Relation):
                converted = Relation([(find(u, what), find(v, what)) for u, v in partition.pairs])
            elif isinstance(partition, Sequence) and all(
                isinstance(block, Collection) and not isinstance(block, str) for block in partition
            ):
                blocks = cast(Sequence[Collection[object]], partition)
                converted = [[find(e, what) for e in block] for block in blocks]
            else:
                converted = partition
            labels, _ = partition_labels(converted, len(names), what)
            labelled.append((name, tuple(compact(labels)[0].tolist())))
        posts: list[tuple[tuple[str, Formula], ...]] = [() for _ in names]
        for event, assignments in (postconditions or {}).items():
            position = find(event, "the postconditions")
            posts[position] = tuple(
                (atom.name if isinstance(atom, Atom) else Atom(atom).name, as_formula(value))
                for atom, value in assignments.items()
            )
        object.__setattr__(self, "events", names)
        object.__setattr__(self, "preconditions", preconditions)
        object.__setattr__(self, "partitions", tuple(labelled))
        object.__setattr__(self, "actual", find(actual, "actual"))
        object.__setattr__(self, "postconditions", tuple(posts))

    @property
    def agents(self) -> tuple[str, ...]:
        """The agents with a partition over the events."""
        return tuple(agent for agent, _ in self.partitions)

    @classmethod
    def public_announcement(cls, formula: Formula | str, agents: Iterable[str]) -> ActionModel:
        """The action model of a public announcement: one event, everyone sees it.

        >>> from kwartet_epistemic.kripke import KripkeModel
        >>> m = KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]})
        >>> m.product_update(ActionModel.public_announcement("p", ["A"])).holds("K_A p")
        True
        """
        return cls({"announce": formula}, {agent: [0] for agent in agents}, actual="announce")

    @classmethod
    def semi_private(
        cls,
        options: Mapping[str, Formula | str],
        observers: Iterable[str],
        agents: Iterable[str],
        actual: str,
        postconditions: Mapping[str, Mapping[str | Atom, Formula | str]] | None = None,
    ) -> ActionModel:
        """One of several events happens; observers see which, the others only that one did.

        E.g. a card drawn from the stock (the drawer sees it), a card shown to one
        player.  Every agent that is not an observer cannot tell the options apart.

        >>> draw = ActionModel.semi_private({"p": "p", "q": "q"}, ["A"], ["A", "B"], "p")
        >>> dict(draw.partitions)
        {'A': (0, 1), 'B': (0, 0)}
        """
        watching = set(observers)
        names = list(options)
        partitions: dict[str, PartitionLike] = {
            agent: ([[name] for name in names] if agent in watching else [names])
            for agent in agents
        }
        unknown = watching - set(partitions)
        if unknown:
            raise ModelError(f"observers {sorted(unknown)} are not among the agents")
        return cls(options, partitions, actual, postconditions)

    def __repr__(self) -> str:
        return (
            f"<ActionModel: events {list(self.events)}, agents {list(self.agents)}, "
            f"actual {self.events[self.actual]!r}>"
        )


def product_update(model: KripkeModel, action: ActionModel) -> KripkeModel:
    """The product update ``model ⊗ action`` (see :meth:`KripkeModel.product_update`).

    >>> from kwartet_epistemic.kripke import KripkeModel
    >>> m = KripkeModel(1, {"A": [0]}, {"h": [False]})
    >>> flip = ActionModel({"heads": "top", "tails": "top"}, {"A": [["heads", "tails"]]},
    ...                    "heads", {"heads": {"h": "top"}, "tails": {"h": "bot"}})
    >>> after = product_update(m, flip)
    >>> after.n_worlds, after.holds("h & ~K_A h")
    (2, True)
    """
    return model.product_update(action)
