"""A page to share: the deduction of one game as a single self-contained HTML file.

:func:`to_html` writes one HTML file that needs nothing else (no server, no network,
no scripts or fonts from elsewhere: the CSS and the script are inline, the game's data
is embedded as JSON).  Opened in any browser it steps through the game with a slider
and the arrow keys and shows, after every move, the table (hand sizes, quartets laid
down, whose turn), what the move taught the table (the demo's narration), the exact
number of worlds every player still considers possible and every player's exact
probability heatmap (hover a cell for the fraction).  ``kwartet replay game.json --html
game.html`` writes the same page for a saved game.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> _ = game.ask("B", "7D")
>>> page = kw.viz.to_html(game)
>>> page.startswith("<!DOCTYPE html>"), "B has no 7♦." in page, "http://" in page
(True, True, False)
"""

from __future__ import annotations

import html
import json
import math
import os
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.game import Game
from kwartet_epistemic.viz._style import AGENT_COLOURS, card_label, family_spans
from kwartet_epistemic.viz.heatmap import has_piles
from kwartet_epistemic.viz.progress import GameProgress, game_progress

__all__ = ["page_data", "to_html"]

_RED = ("♥", "♦")


def _big(count: int) -> str:
    """An exact count as a string (JSON numbers lose digits past 2**53)."""
    return str(int(count))


def _log10(count: int) -> float:
    return round(math.log10(count), 2) if count > 0 else 0.0


def _fraction(count: int, total: int) -> str:
    value = Fraction(int(count), int(total))
    return str(value.numerator) if value.denominator == 1 else f"{value}"


def page_data(progress: GameProgress, *, title: str | None = None) -> dict[str, Any]:
    """The data :func:`to_html` embeds: plain JSON types, exact counts as strings.

    ``steps[s]["heat"][viewer][row][card]`` is the exact probability as a fraction
    (``"0"``, ``"1"``, ``"3/7"``), or None for a card in a quartet on the table.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> data = page_data(kw.viz.game_progress(game))
    >>> data["steps"][0]["worlds"], data["steps"][0]["heat"][0][0][0]
    (['10', '10', '20'], '0')
    """
    if not isinstance(progress, GameProgress):
        raise KwartetError(f"progress {progress!r}: expected a GameProgress (kw.viz.game_progress)")
    if progress.location_counts is None or not progress.to_move:
        raise KwartetError(
            "progress: it carries no exact location counts; build it with kw.viz.game_progress"
        )
    from kwartet_epistemic.viz.progress import narrate

    deck, players = progress.deck, progress.players
    piles = has_piles(progress)
    rows = list(players) + (["piles"] if piles else [])
    cards = [
        {
            "label": card_label(card),
            "name": card.name,
            "family": card.family_index,
            "red": any(suit in card_label(card) for suit in _RED),
        }
        for card in deck.cards
    ]
    families = [
        {"title": family_title, "first": first, "last": last}
        for first, last, family_title in family_spans(deck)
    ]
    title_of = {deck.families[f]: deck.family_title(f) for f in range(deck.n_families)}
    steps = []
    for step in range(progress.n_steps + 1):
        worlds = [int(n) for n in progress.worlds[step]]
        heat: list[list[list[str | None]]] = []
        for v, total in enumerate(worlds):
            table: list[list[str | None]] = []
            for r in range(len(rows)):
                row: list[str | None] = []
                for c in range(len(deck)):
                    if progress.exposed[step, c]:
                        row.append(None)
                        continue
                    counts = progress.location_counts[step, v, c]
                    count = int(counts[r]) if r < len(players) else total - sum(map(int, counts))
                    row.append(_fraction(count, total))
                table.append(row)
            heat.append(table)
        holder = progress.holder[step]
        hands = [
            [int(c) for c in range(len(deck)) if holder[c] == seat] for seat in range(len(players))
        ]
        laid = progress.laid[step]
        public = progress.public_worlds[step]
        ask = progress.asks[step]
        steps.append(
            {
                "kind": progress.kinds[step],
                "quartet": bool(progress.quartet[step]),
                "line": progress.lines[step],
                "lessons": narrate(progress, step) if step > 0 else [],
                "asker": ask.asker if ask is not None else None,
                "target": ask.target if ask is not None else None,
                "card": ask.card.index if ask is not None else None,
                "to_move": progress.to_move[step],
                "hands": hands,
                "quartets": [
                    [title_of.get(f, f) for f, p in laid.items() if p == player]
                    for player in players
                ],
                "worlds": [_big(n) for n in worlds],
                "log10": [_log10(n) for n in worlds],
                "public": None if public is None else _big(public),
                "public_log10": None if public is None else _log10(public),
                "known": [int(progress.known[step, v].sum()) for v in range(len(players))],
                "exposed": [bool(x) for x in progress.exposed[step]],
                "heat": heat,
            }
        )
    return {
        "title": title
        if title is not None
        else f"Kwartet: a {len(deck)}-card game of {len(players)} players, "
        f"{progress.rules.name} rules",
        "players": list(players),
        "colours": [AGENT_COLOURS[i % len(AGENT_COLOURS)] for i in range(len(players))],
        "rows": rows,
        "cards": cards,
        "families": families,
        "steps": steps,
    }


def _json_for_script(data: dict[str, Any]) -> str:
    """JSON safe inside ``<script>``: no ``<``, ``>`` or ``&`` can end the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                         ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):  # fmt: skip
        text = text.replace(raw, escaped)
    return text


_MARKER = re.compile(r"%%([A-Z]+)%%")


def _filled(**values: str) -> str:
    """The page template with each marker replaced by its value, in one pass over the
    template: a value is never searched for markers, so user text (a title holding
    ``%%SCRIPT%%``) stays text."""
    return _MARKER.sub(lambda match: values[match.group(1)], _TEMPLATE)


def to_html(
    source: Game | GameProgress,
    path: str | os.PathLike[str] | None = None,
    *,
    title: str | None = None,
    step: int = 0,
) -> str:
    """One self-contained HTML page that steps through a game's deduction.

    ``source`` is a :class:`~kwartet_epistemic.Game` (replayed here) or its
    :class:`GameProgress` (``kw.viz.game_progress(game)``).  The page shows, after each
    move: the table (hand sizes, quartets, whose turn), what the move taught (as the
    demo tells it), every player's exact world count and probability heatmap (exact
    fractions on hover).  A slider, the arrow keys (Home and End too) and the page's
    address (``#move=12``) choose the move; ``step`` is the one shown first.  Every text
    from the game (names, cards, titles) is escaped.  With ``path`` the page is also
    written there (atomically, UTF-8).  Returns the page's text.

    >>> import kwartet_epistemic as kw, pathlib, tempfile
    >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=2)
    >>> _ = game.play(game.legal_asks()[0])
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "game.html"
    >>> page = kw.viz.to_html(game, target)
    >>> target.read_text(encoding="utf-8") == page, "<script src" in page
    (True, False)
    """
    if isinstance(source, Game):
        progress = game_progress(source)
    elif isinstance(source, GameProgress):
        progress = source
    else:
        raise KwartetError(f"to_html({source!r}): expected a Game or a GameProgress")
    if title is not None and not isinstance(title, str):
        raise KwartetError(f"title {title!r}: expected a string")
    if isinstance(step, bool) or not isinstance(step, int) or not 0 <= step <= progress.n_steps:
        raise KwartetError(f"step {step!r}: expected a move number 0..{progress.n_steps}")
    data = page_data(progress, title=title)
    data["start"] = step
    page = _filled(
        TITLE=html.escape(data["title"]),
        STYLE=_STYLE,
        SCRIPT=_SCRIPT,
        DATA=_json_for_script(data),
    )
    if path is not None:
        from kwartet_epistemic.files import atomic_path

        try:
            target = Path(path)
        except TypeError as err:
            raise KwartetError(f"path {path!r}: expected a file name") from err
        if target.is_dir():
            raise KwartetError(f"path {str(target)!r}: is a folder, expected a file name")
        if not target.parent.is_dir():
            raise KwartetError(
                f"path {str(target)!r}: the folder {str(target.parent)!r} does not exist"
            )
        with atomic_path(target) as temporary:
            temporary.write_text(page, encoding="utf-8")
    return page


_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%%TITLE%%</title>
<style>%%STYLE%%</style>
</head>
<body>
<header>
  <h1 id="title">%%TITLE%%</h1>
  <p class="sub">Every public ask and refusal prunes the possible worlds. Step through the
  moves to see what each player can deduce.</p>
</header>
<nav id="controls" aria-label="moves">
  <button id="prev" type="button" title="previous move (&larr;)">&#9664;</button>
  <input id="slider" type="range" min="0" max="0" value="0" step="1" aria-label="move">
  <button id="next" type="button" title="next move (&rarr;)">&#9654;</button>
  <span id="move-label"><span class="muted">move</span> <b id="move-number">0</b>
  <span class="muted">of <span id="move-count">0</span></span></span>
  <span id="kind" class="badge"></span>
  <span class="hint">&larr; &rarr; step &middot; Home / End</span>
</nav>
<main>
  <section id="top">
    <div class="panel" id="move-panel">
      <h2>The move</h2>
      <p id="line"></p>
      <ul id="narration"></ul>
    </div>
    <div class="panel" id="table-panel">
      <h2>The table</h2>
      <table id="table"><thead><tr><th>player</th><th>cards</th><th>quartets</th>
      <th class="num">worlds they consider possible</th><th class="num">cards located</th></tr></thead>
      <tbody></tbody></table>
      <p id="public"></p>
      <label class="toggle"><input type="checkbox" id="show-hands"> show the hands (the true deal)</label>
    </div>
  </section>
  <section id="legend" class="panel">
    <span class="legend-title">Probability that a player holds a card, in each player's eyes:</span>
    <span class="scale"><span>0</span><span id="scale-bar"></span><span>1</span></span>
    <span class="key"><span class="cell-sample known">&#9679;</span> known location (probability 1)</span>
    <span class="key"><span class="cell-sample truth"></span> the true holder (with the hands shown)</span>
    <span class="key"><span class="cell-sample gone"></span> quartet on the table</span>
    <span class="key"><span class="cell-sample asked"></span> the card asked for</span>
    <span class="key muted">hover a cell for the exact fraction</span>
  </section>
  <section id="heatmaps"></section>
</main>
<script type="application/json" id="data">%%DATA%%</script>
<script>%%SCRIPT%%</script>
</body>
</html>
"""

_STYLE = """
:root { --ink:#1d2430; --muted:#6b7280; --line:#e5e7eb; --bg:#f6f7f9; --panel:#fff;
  --yes:#009E73; --no:#D55E00; --quartet:#E69F00; }
* { box-sizing:border-box; }
body { margin:0; font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
  color:var(--ink); background:var(--bg); }
header { padding:16px 24px 4px; }
h1 { font-size:1.35em; margin:0 0 2px; }
h2 { font-size:0.95em; text-transform:uppercase; letter-spacing:.04em; color:var(--muted);
  margin:0 0 8px; }
.sub { margin:0; color:var(--muted); font-size:0.92em; }
nav#controls { position:sticky; top:0; z-index:5; display:flex; align-items:center; gap:10px;
  flex-wrap:wrap; padding:10px 24px; background:rgba(246,247,249,.96);
  border-bottom:1px solid var(--line); }
nav button { font-size:1em; width:2.2em; height:2.2em; border:1px solid #cbd2dc;
  background:#fff; border-radius:6px; cursor:pointer; }
nav button:hover { background:#eef2f7; }
#slider { flex:1 1 320px; min-width:200px; accent-color:#2563eb; }
#move-label { font-size:1.05em; min-width:8.5em; }
.muted { color:var(--muted); }
.hint { color:var(--muted); font-size:0.85em; }
.badge { display:inline-block; min-width:4.5em; text-align:center; padding:2px 8px;
  border-radius:10px; font-size:0.85em; font-weight:600; color:#fff; background:#9ca3af; }
.badge.yes { background:var(--yes); } .badge.no { background:var(--no); }
.badge.quartet { background:var(--quartet); }
main { padding:12px 24px 32px; }
.panel { background:var(--panel); border:1px solid var(--line); border-radius:10px;
  padding:12px 16px; }
#top { display:grid; grid-template-columns:minmax(320px,1fr) minmax(420px,1.2fr); gap:14px; }
@media (max-width:900px) { #top { grid-template-columns:minmax(0,1fr); } }
#top > .panel { min-width:0; }
#table-panel { overflow-x:auto; }
#line, #public, #narration, .sub, h1 { overflow-wrap:anywhere; }
@media (max-width:520px) {
  header, main { padding-left:10px; padding-right:10px; }
  .panel { padding:10px 10px; }
  #table .approx { display:none; }
  #table th, #table td { padding:3px 4px; }
  #table th.num { white-space:normal; }
}
#line { margin:0 0 8px; font-weight:600; }
#narration { margin:0; padding-left:1.2em; }
#narration li { margin:2px 0; }
#narration li.none { list-style:none; margin-left:-1.2em; color:var(--muted); }
table#table { border-collapse:collapse; width:100%; font-size:0.92em; }
#table th { text-align:left; font-weight:600; color:var(--muted); font-size:0.85em;
  border-bottom:1px solid var(--line); padding:3px 8px; }
#table td { padding:4px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
#table .num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
#table tr.to-move td { background:#eef6ff; }
.swatch { display:inline-block; width:.7em; height:.7em; border-radius:50%; margin-right:6px; }
.turn { font-size:0.75em; font-weight:600; color:#2563eb; margin-left:6px; }
.hand { font-size:0.85em; color:#374151; margin-top:2px; }
.red { color:#c00000; }
.approx { color:var(--muted); font-size:0.85em; }
#public { margin:8px 0 4px; font-size:0.9em; color:var(--muted); }
.toggle { font-size:0.85em; color:var(--muted); cursor:pointer; }
#legend { display:flex; flex-wrap:wrap; gap:6px 18px; align-items:center; margin:14px 0;
  font-size:0.88em; }
.legend-title { font-weight:600; }
.scale { display:inline-flex; align-items:center; gap:6px; }
#scale-bar { display:inline-block; width:160px; height:12px; border-radius:3px;
  border:1px solid #cbd2dc; }
.key { display:inline-flex; align-items:center; gap:6px; }
.cell-sample { display:inline-block; width:18px; height:16px; border:1px solid #cbd2dc;
  text-align:center; font-size:11px; line-height:14px; background:#fff; }
.cell-sample.known { background:#08306b; color:#f2d64b; }
.cell-sample.truth { box-shadow:inset 0 0 0 2px #111; }
.cell-sample.gone { background:repeating-linear-gradient(45deg,#e5e7eb 0 3px,#f3f4f6 3px 6px); }
.cell-sample.asked { border:2px solid #E69F00; }
#heatmaps { display:grid; grid-template-columns:1fr; gap:14px; }
.heat h3 { font-size:1em; margin:0 0 6px; display:flex; align-items:baseline; gap:10px;
  flex-wrap:wrap; }
.heat h3 .worlds { font-weight:400; font-variant-numeric:tabular-nums; }
.heat { min-width:0; }
.heat-wrap { overflow-x:auto; }
table.hm { border-collapse:separate; border-spacing:0; font-size:11px; width:100%;
  table-layout:fixed; }
.hm col.rowhead { width:30px; }
.hm th { font-weight:600; padding:1px 2px; white-space:nowrap; }
.hm th.family { font-weight:500; color:var(--muted); font-size:10px;
  border-bottom:1px solid var(--line); }
.hm th.card { font-size:10px; letter-spacing:-0.04em; padding:1px 0; overflow:hidden; }
.hm th.row { text-align:right; padding-right:6px; }
.hm td { min-width:18px; height:22px; text-align:center; padding:0;
  border-right:1px solid rgba(255,255,255,.7); border-bottom:1px solid rgba(255,255,255,.7);
  font-variant-numeric:tabular-nums; font-size:10px; cursor:default; }
.hm .sep { border-left:3px solid #fff; }
.hm th.sep { border-left:3px solid transparent; }
.hm td.truth { box-shadow:inset 0 0 0 2px #222; }
.hm td.gone { background:repeating-linear-gradient(45deg,#e5e7eb 0 3px,#f3f4f6 3px 6px); }
.hm th.asked { outline:2px solid #E69F00; outline-offset:-1px; border-radius:3px; }
.hm td.known { color:#f2d64b; font-size:12px; }
"""

_SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("data").textContent);
  var steps = data.steps, last = steps.length - 1;
  var slider = document.getElementById("slider");
  var current = -1;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function probability(fraction) {  // "3/7" -> 0.4286 (counts past 2**53 stay close)
    var parts = fraction.split("/");
    var p = parts.length === 1 ? Number(parts[0]) : Number(parts[0]) / Number(parts[1]);
    return Math.round(p * 1e4) / 1e4;
  }
  function grouped(digits) { return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function countText(digits, log10) {
    return digits.length > 6 ? grouped(digits) + "  (\u2248 10^" + log10.toFixed(1) + ")" : grouped(digits);
  }
  var STOPS = [[0, [247, 251, 255]], [0.25, [198, 219, 239]], [0.5, [107, 174, 214]],
               [0.75, [33, 113, 181]], [1, [8, 48, 107]]];
  function colour(p) {
    for (var i = 1; i < STOPS.length; i++) {
      if (p <= STOPS[i][0]) {
        var a = STOPS[i - 1], b = STOPS[i], t = (p - a[0]) / (b[0] - a[0]);
        var c = a[1].map(function (x, k) { return Math.round(x + (b[1][k] - x) * t); });
        return "rgb(" + c.join(",") + ")";
      }
    }
    return "rgb(8,48,107)";
  }
  document.getElementById("scale-bar").style.background =
    "linear-gradient(to right," + [0, 0.25, 0.5, 0.75, 1].map(colour).join(",") + ")";
  function cardSpan(index) {
    var card = data.cards[index];
    return el("span", card.red ? "red" : "", card.label);
  }

  // The heatmaps are built once; each step only recolours their cells.
  var heat = [], CELL = 23;
  data.players.forEach(function (viewer, v) {
    var box = el("div", "panel heat");
    box.setAttribute("data-viewer", viewer);
    var h3 = el("h3");
    var who = el("span", "", viewer + "\u2019s view");
    who.style.color = data.colours[v];
    h3.appendChild(who);
    var worlds = el("span", "worlds");
    worlds.setAttribute("data-player", viewer);
    h3.appendChild(worlds);
    var located = el("span", "muted");
    h3.appendChild(located);
    box.appendChild(h3);
    var wrap = el("div", "heat-wrap"), table = el("table", "hm");
    table.style.minWidth = (data.cards.length * CELL + 30) + "px";  // narrower scrolls
    var cols = el("colgroup"), rowhead = el("col", "rowhead");
    cols.appendChild(rowhead);
    data.cards.forEach(function () { cols.appendChild(el("col")); });
    table.appendChild(cols);
    var fam = el("tr"), head = el("tr");
    fam.appendChild(el("th")); head.appendChild(el("th"));
    data.families.forEach(function (f, i) {
      var th = el("th", "family" + (i ? " sep" : ""), f.title);
      th.colSpan = f.last - f.first + 1;
      fam.appendChild(th);
    });
    var firsts = {};
    data.families.forEach(function (f, i) { if (i) firsts[f.first] = true; });
    var heads = [];
    data.cards.forEach(function (card, c) {
      var th = el("th", "card" + (firsts[c] ? " sep" : ""));
      th.appendChild(cardSpan(c));
      th.title = card.name;
      head.appendChild(th);
      heads.push(th);
    });
    var thead = el("thead"); thead.appendChild(fam); thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody"), cells = [];
    data.rows.forEach(function (holder, r) {
      var tr = el("tr"), rowCells = [];
      tr.appendChild(el("th", "row", holder));
      data.cards.forEach(function (card, c) {
        var td = el("td", firsts[c] ? "sep" : "");
        td.setAttribute("data-viewer", viewer);
        td.setAttribute("data-holder", holder);
        td.setAttribute("data-card", card.label);
        tr.appendChild(td);
        rowCells.push(td);
      });
      tbody.appendChild(tr);
      cells.push(rowCells);
    });
    table.appendChild(tbody);
    wrap.appendChild(table);
    box.appendChild(wrap);
    document.getElementById("heatmaps").appendChild(box);
    heat.push({worlds: worlds, located: located, cells: cells, heads: heads});
  });
  // One heatmap per row, stretched; two side by side where both fit whole.
  var grid = document.getElementById("heatmaps");
  function layout() {
    var need = data.cards.length * CELL + 30 + 36;
    grid.style.gridTemplateColumns = grid.clientWidth >= 2 * need + 14 ? "1fr 1fr" : "1fr";
  }
  layout();
  window.addEventListener("resize", layout);

  var tbody = document.querySelector("#table tbody");
  var showHands = document.getElementById("show-hands");

  function renderTable(s) {
    tbody.textContent = "";
    data.players.forEach(function (player, p) {
      var tr = el("tr", s.to_move === player ? "to-move" : "");
      tr.setAttribute("data-player", player);
      var name = el("td");
      var dot = el("span", "swatch"); dot.style.background = data.colours[p];
      name.appendChild(dot);
      name.appendChild(el("b", "", player));
      if (s.to_move === player) name.appendChild(el("span", "turn", "to move"));
      if (showHands.checked) {
        var hand = el("div", "hand");
        s.hands[p].forEach(function (c, i) {
          if (i) hand.appendChild(document.createTextNode(" "));
          hand.appendChild(cardSpan(c));
        });
        if (!s.hands[p].length) hand.textContent = "\u2013";
        name.appendChild(hand);
      }
      tr.appendChild(name);
      tr.appendChild(el("td", "num cards", String(s.hands[p].length)));
      tr.appendChild(el("td", "quartets", s.quartets[p].length ? s.quartets[p].join(", ") : "\u2013"));
      var w = el("td", "num worlds", grouped(s.worlds[p]));
      w.setAttribute("data-player", player);
      if (s.worlds[p].length > 6) {
        w.appendChild(el("span", "approx", " \u2248 10^" + s.log10[p].toFixed(1)));
      }
      tr.appendChild(w);
      tr.appendChild(el("td", "num", s.known[p] + " of " + data.cards.length));
      tbody.appendChild(tr);
    });
    var pub = document.getElementById("public");
    pub.textContent = (s.public !== null ? "Deals that fit the public record: " +
      countText(s.public, s.public_log10) + ". " : "") +
      (s.to_move === null ? "The game is over." : "");
  }

  function render(step) {
    step = Math.max(0, Math.min(last, step | 0));
    current = step;
    var s = steps[step];
    slider.value = String(step);
    document.getElementById("move-number").textContent = String(step);
    var kind = document.getElementById("kind");
    kind.className = "badge " + (s.quartet ? "quartet" : s.kind);
    kind.textContent = step === 0 ? "the deal" : s.kind === "turn" ? "card turned" :
      s.kind + (s.quartet ? " + quartet" : "");
    document.getElementById("line").textContent = step === 0 ?
      "The deal: every player sees only their own hand." + (s.line ? " " + s.line : "") : s.line;
    var list = document.getElementById("narration");
    list.textContent = "";
    if (s.lessons.length) {
      s.lessons.forEach(function (text) { list.appendChild(el("li", "", text)); });
    } else {
      list.appendChild(el("li", "none", step === 0 ? "Nobody knows more than their own hand yet." :
        "Nobody learns where a card is from this move."));
    }
    renderTable(s);
    heat.forEach(function (h, v) {
      h.worlds.textContent = countText(s.worlds[v], s.log10[v]) +
        (s.worlds[v] === "1" ? " world" : " worlds");
      h.located.textContent = "\u00b7 " + s.known[v] + " of " + data.cards.length + " cards located";
      h.heads.forEach(function (th, c) { th.classList.toggle("asked", s.card === c); });
      h.cells.forEach(function (row, r) {
        row.forEach(function (td, c) {
          var cell = s.heat[v][r][c];
          // The true holder only when the hands are shown: else the outlines give the deal away.
          var truth = showHands.checked && r < data.players.length && s.hands[r].indexOf(c) >= 0;
          td.classList.toggle("truth", truth);
          td.classList.toggle("gone", cell === null);
          if (cell === null) {
            td.style.background = ""; td.textContent = "";
            td.removeAttribute("data-p"); td.removeAttribute("data-fraction");
            td.title = data.cards[c].label + ": in a quartet on the table";
            td.classList.remove("known");
            return;
          }
          var p = probability(cell), known = cell === "1";
          td.style.background = colour(p);
          td.style.color = known ? "#f2d64b" : p > 0.55 ? "#fff" : "#1d2430";
          td.classList.toggle("known", known);
          td.textContent = known ? "\u25cf" : p >= 0.005 ? String(Math.round(p * 100)) : "";
          td.setAttribute("data-p", String(p));
          td.setAttribute("data-fraction", cell);
          td.title = data.players[v] + "\u2019s probability that " + data.rows[r] + " holds " +
            data.cards[c].label + ": " + cell + (cell.indexOf("/") >= 0 ?
            " \u2248 " + (p * 100).toFixed(1) + "%" : "") + (truth ? " (true holder)" : "");
        });
      });
    });
    if (window.history && history.replaceState) {
      try { history.replaceState(null, "", "#move=" + step); } catch (e) { /* file: on some browsers */ }
    }
  }

  slider.max = String(last);
  document.getElementById("move-count").textContent = String(last);
  slider.addEventListener("input", function () { render(parseInt(slider.value, 10)); });
  document.getElementById("prev").addEventListener("click", function () { render(current - 1); });
  document.getElementById("next").addEventListener("click", function () { render(current + 1); });
  showHands.addEventListener("change", function () { render(current); });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var to = {ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: last}[event.key];
    if (to === undefined) return;
    event.preventDefault();
    render(to);
  });
  var fromHash = /move=(\d+)/.exec(window.location.hash || "");
  render(fromHash ? parseInt(fromHash[1], 10) : data.start);
})();
"""
