"""Shared looks of the drawings: one colour and line style per agent, card labels.

The colours are the Okabe-Ito palette (distinguishable with the common colour-vision
deficiencies); each agent also gets its own line style, so a drawing printed in grey
still tells the agents apart.

>>> agent_style(0), agent_style(9)[1]
(('#0072B2', '-'), ':')
"""

from __future__ import annotations

from collections.abc import Sequence

from kwartet_epistemic.cards import Card, Deck

__all__ = [
    "AGENT_COLOURS",
    "AGENT_LINESTYLES",
    "EXPOSED_COLOUR",
    "HAND_COLOUR",
    "agent_style",
    "card_label",
    "family_spans",
]

AGENT_COLOURS = (
    "#0072B2",  # blue
    "#D55E00",  # vermillion
    "#009E73",  # bluish green
    "#CC79A7",  # reddish purple
    "#E69F00",  # orange
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#8C6D31",  # brown (Okabe-Ito's yellow is too pale on white)
)
AGENT_LINESTYLES: tuple[str | tuple[int, tuple[int, ...]], ...] = (
    "-",
    "--",
    ":",
    "-.",
    (0, (6, 2, 1, 2, 1, 2)),
    (0, (1, 3)),
    (0, (8, 3)),
    (0, (3, 2, 3, 6)),
)
EXPOSED_COLOUR = "#BBBBBB"
HAND_COLOUR = "#F2D64B"


def agent_style(position: int) -> tuple[str, str | tuple[int, tuple[int, ...]]]:
    """The colour and line style of the agent at ``position`` (cycling past eight;
    colours and styles cycle at different points so pairs stay distinct longer)."""
    colour = AGENT_COLOURS[position % len(AGENT_COLOURS)]
    style = AGENT_LINESTYLES[(position + position // len(AGENT_COLOURS)) % len(AGENT_LINESTYLES)]
    return colour, style


def card_label(card: Card) -> str:
    """The shortest readable label of a card: its symbol ("Q♥") or its code.

    >>> card_label(Deck.piquet().card("QH"))
    'Q♥'
    """
    return card.symbol or card.code


def family_spans(deck: Deck, cards: Sequence[Card] | None = None) -> list[tuple[int, int, str]]:
    """``(first, last, title)`` column ranges of each family among ``cards`` (deck order).

    >>> family_spans(Deck.piquet(families=2))
    [(0, 3, 'sevens'), (4, 7, 'eights')]
    """
    shown = deck.cards if cards is None else tuple(cards)
    spans: list[tuple[int, int, str]] = []
    for position, card in enumerate(shown):
        title = deck.family_title(card.family_index)
        if spans and spans[-1][2] == title and spans[-1][1] == position - 1:
            spans[-1] = (spans[-1][0], position, title)
        else:
            spans.append((position, position, title))
    return spans
