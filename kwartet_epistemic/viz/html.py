"""How games, views, epistemic states and Kripke models show themselves in Jupyter.

The ``_repr_html_`` / ``_repr_svg_`` hooks of those classes import this module on first
display.  HTML is plain tables (no matplotlib); only a Kripke model is drawn, as SVG.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
>>> "<table" in game_html(game) and "to move" in game_html(game)
True
>>> kripke_svg(kw.examples.muddy_children(2, 1))[:4]
'<svg'
"""

from __future__ import annotations

import html
import io
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from kwartet_epistemic.cards import Card, Deck
from kwartet_epistemic.errors import KwartetError

if TYPE_CHECKING:
    from kwartet_epistemic.epistemics import EpistemicState
    from kwartet_epistemic.game import Game, PlayerView
    from kwartet_epistemic.kripke import KripkeModel

__all__ = ["SVG_LIMIT", "epistemic_state_html", "game_html", "kripke_svg", "view_html"]

#: Kripke models up to this many worlds draw themselves in Jupyter; larger ones print.
SVG_LIMIT = 150
_RECENT = 6
_STYLE = "border-collapse:collapse;font-size:0.9em"
_CELL = "padding:2px 8px;text-align:left;border-bottom:1px solid #ddd"
_RED_SUITS = ("♥", "♦")


def _card_html(card: Card) -> str:
    text = html.escape(card.symbol or card.code)
    if any(suit in text for suit in _RED_SUITS):
        return f'<span style="color:#C00000">{text}</span>'
    return text


def _hand_html(deck: Deck, cards: Sequence[Card]) -> str:
    """Cards grouped by family: ``7♠ 7♥ · Q♦``."""
    groups: dict[int, list[Card]] = {}
    for card in sorted(cards, key=lambda c: c.index):
        groups.setdefault(card.family_index, []).append(card)
    return " · ".join(" ".join(_card_html(c) for c in group) for group in groups.values()) or "–"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f'<th style="{_CELL}">{h}</th>' for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{cell}</td>' for cell in row) + "</tr>"
        for row in rows
    )
    return f'<table style="{_STYLE}"><tr>{head}</tr>{body}</table>'


def _recent(lines: str) -> str:
    tail = [line for line in lines.splitlines() if line][-_RECENT:]
    if not tail:
        return ""
    return '<pre style="font-size:0.85em;margin:4px 0">' + html.escape("\n".join(tail)) + "</pre>"


def _status(to_move: str | None, scores: Any, players: Sequence[str]) -> str:
    if to_move is not None:
        return f"<b>{html.escape(to_move)}</b> to move"
    best = max(scores[p] for p in players)
    winners = [p for p in players if scores[p] == best]
    return (
        "game over: "
        + " and ".join(html.escape(w) for w in winners)
        + " win"
        + ("s" if len(winners) == 1 else "")
    )


def game_html(game: Game) -> str:
    """A game as HTML: every hand (grouped by family), quartets, whose turn, the last
    lines of the transcript."""
    rows = [
        [f"<b>{html.escape(p)}</b>", _hand_html(game.deck, game.hand(p)),
         str(len(game.hand(p))), str(game.scores[p])]
        for p in game.players
    ]  # fmt: skip
    head = (
        f"<div><b>Kwartet</b>, {html.escape(game.rules.name)} rules, "
        f"{len(game.deck)} cards; {_status(game.to_move, game.scores, game.players)}</div>"
    )
    return head + _table(["player", "hand", "cards", "quartets"], rows) + _recent(game.transcript())


def view_html(view: PlayerView) -> str:
    """A player's view as HTML: own hand, the others' hand sizes and quartets, the last
    lines of the record as that player saw it."""
    rows = []
    for p in view.players:
        hand = _hand_html(view.deck, view.hand) if p == view.player else "<i>hidden</i>"
        rows.append(
            [f"<b>{html.escape(p)}</b>" + (" (me)" if p == view.player else ""), hand,
             str(view.hand_sizes[p]), str(view.scores[p])]
        )  # fmt: skip
    head = (
        f"<div><b>{html.escape(view.player)}'s view</b>, {html.escape(view.rules.name)} rules; "
        f"{_status(view.to_move, view.scores, view.players)}"
        + (f"; stock {view.stock_size}" if view.rules.draw_pile else "")
        + "</div>"
    )
    return head + _table(["player", "hand", "cards", "quartets"], rows) + _recent(view.transcript())


def _count_html(count: int) -> str:
    exponent = f" (≈10<sup>{math.log10(count):.1f}</sup>)" if count >= 10**6 else ""
    return f"{count:,}{exponent}"


def _heat_cell(value: float) -> str:
    # White to dark blue; text flips to white on dark cells.
    shade = int(255 - 200 * value)
    colour = f"rgb({shade},{int(255 - 150 * value)},255)" if value else "#fff"
    text = "●" if value >= 0.9995 else f"{value * 100:.0f}" if value >= 0.005 else ""
    ink = "#fff" if value > 0.6 else "#222"
    return (
        f'<td style="background:{colour};color:{ink};width:1.6em;text-align:center;'
        f'font-size:0.75em;padding:1px">{text}</td>'
    )


def epistemic_state_html(state: EpistemicState) -> str:
    """An epistemic state as HTML: the worlds each player considers possible and how
    many card locations they know; on a player's view also that player's location
    probabilities as a coloured table (● = known)."""
    players = state.players if state.viewer is None else (state.viewer,)
    rows = []
    for p in players:
        try:
            worlds = state.count_worlds(p)
            located = sum(state.knows_location(p, c) is not None for c in state.deck.cards)
        except KwartetError as err:  # a state that cannot answer still displays
            rows.append([html.escape(p), html.escape(str(err)), ""])
            continue
        rows.append(
            [f"<b>{html.escape(p)}</b>", _count_html(worlds), f"{located} of {len(state.deck)}"]
        )
    who = f"{state.viewer}'s view" if state.viewer else "the whole table"
    head = f"<div><b>Epistemic state</b> of {html.escape(who)} (engine {html.escape(state.engine)})"
    if state.viewer is None:
        head += f"; worlds of the public record: {_count_html(state.count_worlds())}"
    head += "</div>"
    body = head + _table(["player", "worlds considered possible", "cards located"], rows)
    if state.viewer is not None:
        body += _probability_table(state, state.viewer)
    return body


def _probability_table(state: EpistemicState, player: str) -> str:
    probabilities = state.location_probabilities(player)
    cards = state.deck.cards
    header = (
        "<tr><td></td>"
        + "".join(
            f'<td style="font-size:0.7em;text-align:center">{_card_html(c)}</td>' for c in cards
        )
        + "</tr>"
    )
    rows = "".join(
        f'<tr><td style="font-size:0.8em;padding-right:4px"><b>{html.escape(holder)}</b></td>'
        + "".join(_heat_cell(float(probabilities[c, q])) for c in range(len(cards)))
        + "</tr>"
        for q, holder in enumerate(state.players)
    )
    return (
        f'<div style="font-size:0.85em;margin-top:4px">{html.escape(player)}\'s probability that '
        "each player holds each card:</div>"
        f'<table style="border-collapse:collapse">{header}{rows}</table>'
    )


def kripke_svg(model: KripkeModel, limit: int = SVG_LIMIT) -> str | None:
    """The model drawn as SVG text, or None above ``limit`` worlds (Jupyter then shows
    the text repr, which says how big the model is)."""
    if model.n_worlds > limit or model.n_worlds == 0:
        return None
    from kwartet_epistemic.viz.kripke import draw_kripke

    figure = draw_kripke(model)
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg")
    text = buffer.getvalue()
    return text[text.index("<svg") :]
