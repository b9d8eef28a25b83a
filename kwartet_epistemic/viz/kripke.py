"""Drawings of explicit Kripke models: worlds, one colour and line style per agent.

Reflexive loops are never drawn (every S5 world sees itself).  Each agent's
indistinguishability blocks are drawn as all their pairs when that stays readable, and
otherwise as a short tree of nearest neighbours inside each block (``edges="tree"``,
transitive links implied by S5, as textbooks do).  Drawings stay readable up to
:data:`DRAW_LIMIT` worlds (:data:`SINGLE_AGENT_LIMIT` for one agent's relation); past
that :class:`~kwartet_epistemic.errors.ModelTooLargeError` says to contract the model,
take the generated submodel or draw one agent.

>>> from kwartet_epistemic.examples import muddy_children
>>> figure = draw_kripke(muddy_children(3, 2))
>>> [c.get_gid() for c in figure.axes[0].collections][:3]
['agent-1', 'agent-2', 'agent-3']
>>> print(kripke_to_tikz(muddy_children(2, 1)).splitlines()[0])
% Kripke model: 4 worlds, agents 1, 2; reflexive loops omitted
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from kwartet_epistemic.errors import ModelError, ModelTooLargeError
from kwartet_epistemic.kripke.model import KripkeModel
from kwartet_epistemic.logic.formula import Formula
from kwartet_epistemic.viz._style import agent_style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "DRAW_LIMIT",
    "SINGLE_AGENT_LIMIT",
    "GRID_LIMIT",
    "grid_axes",
    "draw_announcement",
    "draw_contraction",
    "draw_kripke",
    "kripke_edges",
    "kripke_layout",
    "kripke_to_tikz",
    "world_labels",
]

#: Most worlds drawn with every agent's relation (more is a hairball).
DRAW_LIMIT = 400
#: Most worlds drawn when only one agent's relation is shown.
SINGLE_AGENT_LIMIT = 1000
GRID_LIMIT = 800
"""The largest model drawn with every agent when two agents' blocks lay it out as a grid
(one row per block of one, one column per block of the other)."""
# Up to this many worlds every world gets its label; above, only the actual world.
_LABEL_LIMIT = 40
_LAYERS_LABEL_LIMIT = 64  # a lattice of short names is labelled up to here
# "auto" edges draw every pair while there are at most this many lines.
_ALL_PAIRS_LIMIT = 600

_HAS = re.compile(r"^has\((?P<player>[^,()]+),\s*(?P<card>[^,()]+)\)$")
_SUITS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_TEX_SUITS = {
    "♠": r"$\spadesuit$",
    "♥": r"$\heartsuit$",
    "♦": r"$\diamondsuit$",
    "♣": r"$\clubsuit$",
}


# ----- what to draw -----------------------------------------------------------------


def _check_size(model: KripkeModel, agent: str | None, max_worlds: int | None) -> None:
    limit = max_worlds
    if limit is None:
        limit = DRAW_LIMIT if agent is None else SINGLE_AGENT_LIMIT
        if agent is None and model.n_worlds <= GRID_LIMIT and _use_grid(model, model.agents):
            limit = GRID_LIMIT
    if model.n_worlds > limit:
        raise ModelTooLargeError(
            f"the model has {model.n_worlds} worlds; a drawing stays readable up to {limit}"
            + _remedies(model, agent, limit)
        )


def _remedies(model: KripkeModel, agent: str | None, limit: int) -> str:
    """The reductions that really bring the model within ``limit``, with their sizes."""
    options = []
    if model.actual is not None:
        for a in model.agents:
            size = len(model.indistinguishable(a, model.actual))
            if size <= limit:
                options.append(
                    f"the {size} worlds {a} considers possible: draw_kripke(model, "
                    f"possible_for={a!r})"
                )
                break
    if model.n_worlds <= 20_000:  # a partition refinement, cheap at these sizes
        classes = len(np.unique(model.bisimulation_classes()))
        if classes < model.n_worlds and classes <= limit:
            options.append(f"model.contract() ({classes} worlds, the same truths)")
    if agent is None and model.agents and model.n_worlds <= SINGLE_AGENT_LIMIT:
        options.append(
            f"one agent's relation: agent={model.agents[0]!r} (up to {SINGLE_AGENT_LIMIT})"
        )
    if not options:
        return (
            "; no reduction brings it that low (contraction does not shrink it): draw a "
            "smaller position, or pass max_worlds= to draw it anyway"
        )
    return ": draw " + "; or ".join(options)


def _agents(model: KripkeModel, agent: str | None) -> tuple[str, ...]:
    if agent is None:
        return model.agents
    if agent not in model.agents:
        raise ModelError(
            f"agent {agent!r} is not in the model: expected one of {list(model.agents)}"
        )
    return (agent,)


_RANK_ORDER = {
    r: i for i, r in enumerate(("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"))
}
_PIQUET_ORDER = {r: i for i, r in enumerate(("7", "8", "9", "10", "J", "Q", "K", "A"))}
_SUIT_ORDER = {s: i for i, s in enumerate("SHDC")}


def _card_order(atoms: Sequence[str]) -> list[str]:
    """``has(P, card)`` atoms with the cards in deck order (piquet ranks 7..A when no card
    below 7 appears, else A..K; suits spades, hearts, diamonds, clubs); other atoms
    after them, alphabetically."""
    cards = [m.group("card") for a in atoms if (m := _HAS.match(a))]
    ranks = _PIQUET_ORDER if all(c[:-1] in _PIQUET_ORDER for c in cards) else _RANK_ORDER

    def key(atom: str) -> tuple[int, int, str]:
        m = _HAS.match(atom)
        if m is not None:
            card = m.group("card")
            rank, suit = card[:-1], card[-1:]
            if rank in ranks and suit in _SUIT_ORDER:
                return (ranks[rank], _SUIT_ORDER[suit], atom)
        return (len(ranks), 0, atom)

    return sorted(atoms, key=key)


def _pretty_card(code: str) -> str:
    if len(code) >= 2 and code[-1] in _SUITS and re.fullmatch(r"(10|[2-9JQKA])", code[:-1]):
        return code[:-1] + _SUITS[code[-1]]
    return code


def world_labels(model: KripkeModel) -> list[str]:
    """A short label per world: its name if it has one; for a Kwartet model (atoms
    ``has(P, card)``) the cards whose holder differs between worlds, by holder; else the
    true atoms.

    >>> from kwartet_epistemic.examples import muddy_children
    >>> world_labels(muddy_children(2, 1))
    ['00', '10', '01', '11']
    >>> m = KripkeModel(2, {"A": [0, 0]}, {"has(A, QH)": [1, 0], "has(B, QH)": [0, 1]})
    >>> world_labels(m)
    ['A Q♥', 'B Q♥']
    """
    names = model.world_names
    if names is not None:
        return list(names)
    try:
        atoms = sorted(str(a) for a in model.atoms)
    except ModelError:
        return [str(w) for w in range(model.n_worlds)]
    masks = {a: np.asarray(model.truth_set(a)) for a in atoms}
    holdings = {a: _HAS.match(a) for a in atoms}
    n = model.n_worlds
    if atoms and all(holdings.values()):
        varying = _card_order([a for a in atoms if 0 < masks[a].sum() < n])
        players = sorted({m.group("player") for m in holdings.values() if m is not None})
        labels = []
        for world in range(n):
            parts = []
            for player in players:
                cards = [
                    _pretty_card(match.group("card"))
                    for a in varying
                    if (match := holdings[a]) is not None
                    and match.group("player") == player
                    and masks[a][world]
                ]
                if cards:
                    parts.append(f"{player} {''.join(cards)}")
            labels.append(" | ".join(parts) or str(world))
        return labels
    return [",".join(a for a in atoms if masks[a][w]) or "∅" for w in range(n)]


def kripke_edges(
    model: KripkeModel,
    agent: str,
    positions: np.ndarray | None = None,
    edges: str = "all",
) -> list[tuple[int, int]]:
    """The lines drawn for one agent: every pair of distinct worlds in each of its blocks
    (``"all"``), or a nearest-neighbour spanning tree of each block in the layout
    (``"tree"``: S5 makes the rest implied).  Never a reflexive loop.

    >>> m = KripkeModel(4, {"A": [0, 0, 0, 1]})
    >>> kripke_edges(m, "A")
    [(0, 1), (0, 2), (1, 2)]
    >>> len(kripke_edges(m, "A", np.array([[0, 0], [1, 0], [2, 0], [5, 5]]), "tree"))
    2
    """
    if edges not in ("all", "tree"):
        raise ModelError(f"edges={edges!r}: expected 'all', 'tree' or (when drawing) 'auto'")
    labels = np.asarray(model.labels(agent))
    order = np.argsort(labels, kind="stable")
    starts = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
    result: list[tuple[int, int]] = []
    for block in np.split(order, starts[1:]):
        members = [int(w) for w in block]
        if len(members) < 2:
            continue
        if edges == "all" or positions is None or len(members) == 2:
            result.extend((u, v) for i, u in enumerate(members) for v in members[i + 1 :])
        else:
            result.extend(_spanning_tree(members, positions))
    return result


def _spanning_tree(members: list[int], positions: np.ndarray) -> list[tuple[int, int]]:
    """Prim's minimum spanning tree of the block's points (short lines, few crossings)."""
    points = positions[members]
    distance = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    inside = np.zeros(len(members), dtype=bool)
    inside[0] = True
    best = distance[0].copy()
    parent = np.zeros(len(members), dtype=np.int64)
    tree = []
    for _ in range(len(members) - 1):
        candidates = np.where(inside, np.inf, best)
        nearest = int(np.argmin(candidates))
        tree.append(
            (
                min(members[parent[nearest]], members[nearest]),
                max(members[parent[nearest]], members[nearest]),
            )
        )
        inside[nearest] = True
        closer = distance[nearest] < best
        best = np.where(closer, distance[nearest], best)
        parent = np.where(closer, nearest, parent)
    return tree


def _pair_count(model: KripkeModel, agents: Sequence[str]) -> int:
    total = 0
    for agent in agents:
        _, sizes = np.unique(np.asarray(model.labels(agent)), return_counts=True)
        total += int((sizes * (sizes - 1) // 2).sum())
    return total


# ----- layout -----------------------------------------------------------------------


def kripke_layout(
    model: KripkeModel,
    layout: str = "auto",
    *,
    agent: str | None = None,
    seed: int = 0,
) -> np.ndarray:
    """``[n_worlds, 2]`` positions of the worlds in the unit square (deterministic).

    ``"spring"`` pulls each agent's blocks together (through one hidden hub per block,
    so big blocks do not become hairballs); ``"blocks"`` puts each block of the coarsest
    agent on a circle of its own, the circles on a grid; ``"kamada_kawai"`` places worlds
    by graph distances (slower, for up to about a hundred worlds); ``"circular"`` puts
    the worlds on a circle; ``"layers"`` puts them in rows by their number of true atoms
    (the classic muddy-children lattice).  ``"auto"`` takes, up to 40 worlds, whichever
    of a few spring layouts and Kamada-Kawai has the fewest crossing lines and crowded
    worlds; ``"spring"`` up to 60 worlds; ``"blocks"`` above that or for one agent.

    >>> from kwartet_epistemic.examples import muddy_children
    >>> kripke_layout(muddy_children(3, 2), "layers")[[0, 7]].round(2).tolist()
    [[0.5, 0.0], [0.5, 1.0]]
    """
    import networkx

    n = model.n_worlds
    if n == 0:
        return np.zeros((0, 2))
    if n == 1:
        return np.array([[0.5, 0.5]])
    agents = _agents(model, agent)
    layout = _structured(model, agents, layout)
    if layout == "grid":
        pair = grid_axes(model, agents if len(agents) > 1 else model.agents)
        if pair is None:
            raise ModelError(
                "layout='grid': no two agents' blocks pin down every world (try 'blocks')"
            )
        return _grid_layout(model, *pair)
    if layout == "auto":
        if len(agents) == 1 or n > 60:
            layout = "blocks"
        elif n <= _LABEL_LIMIT:
            return _fewest_crossings(model, agents, seed)
        else:
            layout = "spring"
    if layout == "layers":
        return _layers_layout(model)
    if layout == "circular":
        angles = 2 * np.pi * np.arange(n) / n + np.pi / 2
        return _unit(np.c_[np.cos(angles), np.sin(angles)])
    if layout == "blocks":
        return _blocks_layout(model, agents)
    if layout not in ("spring", "kamada_kawai"):
        raise ModelError(
            f"layout={layout!r}: expected 'auto', 'grid', 'spring', 'blocks', 'kamada_kawai', "
            "'circular' or 'layers'"
        )
    graph = networkx.Graph()
    graph.add_nodes_from(range(n))
    hub = n
    for a in agents:
        labels = np.asarray(model.labels(a))
        order = np.argsort(labels, kind="stable")
        starts = np.flatnonzero(np.r_[True, labels[order][1:] != labels[order][:-1]])
        for block in np.split(order, starts[1:]):
            members = [int(w) for w in block]
            if len(members) == 2:
                graph.add_edge(*members)
            elif len(members) > 2:
                graph.add_edges_from((hub, w) for w in members)
                hub += 1
    if layout == "kamada_kawai" and networkx.is_connected(graph):
        where = networkx.kamada_kawai_layout(graph)
    else:
        # Disconnected parts (worlds no agent confuses) would fly off: a gentle k keeps them in.
        where = networkx.spring_layout(
            graph, seed=seed, k=1.5 / np.sqrt(graph.number_of_nodes()), iterations=100
        )
    return _unit(np.array([where[w] for w in range(n)], dtype=float))


def _crossings(points: np.ndarray, pairs: list[tuple[int, int]]) -> int:
    """How many pairs of drawn lines cross (lines sharing a world do not count)."""
    if len(pairs) < 2:
        return 0
    ends = np.array(pairs)
    a, b = points[ends[:, 0]], points[ends[:, 1]]

    def side(p: np.ndarray, q: np.ndarray, r: np.ndarray) -> np.ndarray:
        # Sign of the turn p -> q -> r for every combination of segments (broadcast).
        return np.sign((q[..., 0] - p[..., 0]) * (r[..., 1] - p[..., 1])
                       - (q[..., 1] - p[..., 1]) * (r[..., 0] - p[..., 0]))  # fmt: skip

    a1, b1, a2, b2 = a[:, None], b[:, None], a[None, :], b[None, :]
    proper = (side(a1, b1, a2) * side(a1, b1, b2) < 0) & (side(a2, b2, a1) * side(a2, b2, b1) < 0)
    shared = (ends[:, None, :, None] == ends[None, :, None, :]).any(axis=(2, 3))
    return int(np.triu(proper & ~shared, 1).sum())


def _fewest_crossings(model: KripkeModel, agents: Sequence[str], seed: int) -> np.ndarray:
    """Of a few spring layouts (and Kamada-Kawai), the one whose lines cross least."""
    pairs = [pair for a in agents for pair in kripke_edges(model, a)]
    best: tuple[int, np.ndarray] | None = None
    for layout, candidate_seed in [("spring", seed + k) for k in range(10)] + [
        ("kamada_kawai", seed)
    ]:
        points = kripke_layout(model, layout, seed=candidate_seed)
        # Crossings, and worlds so close that they or their labels (wide, below the
        # world) would collide.
        gaps = np.linalg.norm(points[:, None] - points[None, :], axis=-1)
        across = np.abs(points[:, None, 0] - points[None, :, 0])
        down = np.abs(points[:, None, 1] - points[None, :, 1])
        crowded = int(np.triu((gaps < 0.14) | ((across < 0.16) & (down < 0.07)), 1).sum())
        score = _crossings(points, pairs) + 3 * crowded
        if best is None or score < best[0]:
            best = (score, points)
    assert best is not None
    return best[1]


def _grouping_agent(model: KripkeModel, agents: Sequence[str]) -> str | None:
    """The agent with the fewest blocks among those that confuse some worlds."""
    best: tuple[int, str] | None = None
    for a in agents:
        count = model.block_count(a)
        if count < model.n_worlds and (best is None or count < best[0]):
            best = (count, a)
    return None if best is None else best[1]


def _blocks_layout(model: KripkeModel, agents: Sequence[str]) -> np.ndarray:
    """One cluster per block of the coarsest agent, clusters on a grid, worlds of a
    cluster on a circle ordered by the next agent's blocks (fewer crossings)."""
    n = model.n_worlds
    group = _grouping_agent(model, agents)
    if group is None:
        side = int(np.ceil(np.sqrt(n)))
        return _unit(np.c_[np.arange(n) % side, -(np.arange(n) // side)].astype(float))
    labels = np.asarray(model.labels(group))
    others = [a for a in agents if a != group]
    secondary = np.asarray(model.labels(others[0])) if others else np.zeros(n, dtype=np.int64)
    blocks = [np.flatnonzero(labels == value) for value in np.unique(labels)]
    blocks.sort(key=lambda b: (-len(b), int(b[0])))
    columns = int(np.ceil(np.sqrt(len(blocks))))
    positions = np.zeros((n, 2))
    for number, block in enumerate(blocks):
        centre = np.array([number % columns, -(number // columns)], dtype=float)
        members = block[np.lexsort((block, secondary[block]))]
        if len(members) == 1:
            positions[members[0]] = centre
            continue
        radius = 0.38 * min(1.0, np.sqrt(len(members)) / 3.5 + 0.35)
        angles = 2 * np.pi * np.arange(len(members)) / len(members) + np.pi / 2
        positions[members] = centre + radius * np.c_[np.cos(angles), np.sin(angles)]
    return _unit(positions)


def grid_axes(model: KripkeModel, agents: Sequence[str] | None = None) -> tuple[str, str] | None:
    """Two agents whose blocks pin down every world (a world is fixed by the block it
    lies in for each of them, as in a three-player Kwartet deal: two hands fix the third),
    the pair with the smallest grid; None when no pair does.  The first names the rows.

    >>> from kwartet_epistemic.examples import card_deals
    >>> grid_axes(card_deals({"A": 1, "B": 1, "C": 1}))
    ('A', 'B')
    """
    agents = tuple(model.agents if agents is None else agents)
    n = model.n_worlds
    best: tuple[int, int, str, str] | None = None
    for i, x in enumerate(agents):
        for y in agents[i + 1 :]:
            lx, ly = np.asarray(model.labels(x)), np.asarray(model.labels(y))
            if len(set(zip(lx.tolist(), ly.tolist(), strict=True))) != n:
                continue
            rows, cols = len(np.unique(lx)), len(np.unique(ly))
            if rows > cols:
                x, y, rows, cols = y, x, cols, rows
            score = (rows * cols, cols - rows, x, y)
            if best is None or score < best:
                best = score
    return None if best is None else (best[2], best[3])


def _block_names(model: KripkeModel, agent: str) -> dict[int, str]:
    """A name per block of ``agent``: the agent's own part of the world labels (their
    hand, in a Kwartet model) where all of the block shares it, else a number."""
    labels = np.asarray(model.labels(agent))
    names = world_labels(model)
    result: dict[int, str] = {}
    for number, value in enumerate(np.unique(labels).tolist()):
        members = np.flatnonzero(labels == value)
        parts = {
            next((part for part in names[w].split(" | ") if part.startswith(f"{agent} ")), "")
            for w in members
        }
        name = parts.pop() if len(parts) == 1 else ""
        result[int(value)] = name or f"{agent} block {number + 1}"
    return result


def _structured(model: KripkeModel, agents: Sequence[str], layout: str) -> str:
    """``layout``, with ``"auto"`` made ``"grid"`` or ``"layers"`` where the relations
    have that structure (else left ``"auto"``)."""
    if layout != "auto":
        return layout
    if _use_grid(model, agents):
        return "grid"
    if _one_atom_apart(model, agents):
        return "layers"
    return layout


def _use_grid(model: KripkeModel, agents: Sequence[str]) -> bool:
    """Whether ``"auto"`` draws a grid: past 40 worlds (where other layouts tangle), with
    at least two agents, when two agents' blocks pin down the worlds and fill at least a
    fifth of the grid."""
    if model.n_worlds <= _LABEL_LIMIT or len(agents) < 2:
        return False
    pair = grid_axes(model, agents)
    if pair is None:
        return False
    cells = model.block_count(pair[0]) * model.block_count(pair[1])
    return model.n_worlds >= 0.2 * cells


def _grid_layout(model: KripkeModel, rows_agent: str, cols_agent: str) -> np.ndarray:
    """Worlds on a grid: one row per block of ``rows_agent``, one column per block of
    ``cols_agent``, both in the order of their names (hands in deck order)."""
    positions = np.zeros((model.n_worlds, 2))
    for axis, agent in ((1, rows_agent), (0, cols_agent)):
        names = _block_names(model, agent)
        order = sorted(names, key=lambda b: (_hand_key(names[b]), names[b]))
        place = {block: i for i, block in enumerate(order)}
        labels = np.asarray(model.labels(agent))
        coordinate = np.array([place[int(b)] for b in labels], dtype=float)
        positions[:, axis] = -coordinate if axis == 1 else coordinate
    return _unit(positions)


def _hand_key(name: str) -> tuple[int, ...]:
    """Sort key of a hand as :func:`world_labels` writes it ("A 7♠8♥"): its cards'
    positions in deck order, fewer cards first."""
    symbols = {v: k for k, v in _SUITS.items()}
    cards = re.findall(r"(10|[2-9JQKA])([♠♥♦♣])", name)
    ranks = _PIQUET_ORDER if all(r in _PIQUET_ORDER for r, _ in cards) else _RANK_ORDER
    return (len(cards), *(ranks[r] * 4 + _SUIT_ORDER[symbols[s]] for r, s in cards))


def _one_atom_apart(model: KripkeModel, agents: Sequence[str]) -> bool:
    """Whether every agent confuses only pairs of worlds one atom apart (as each muddy
    child confuses the worlds that differ in its own forehead): then ``"auto"`` draws the
    classic lattice of :func:`_layers_layout`, rows by the number of true atoms."""
    if len(agents) < 2 or model.n_worlds < 4:
        return False
    try:
        atoms = sorted(str(a) for a in model.atoms)
    except ModelError:
        return False
    if not atoms:
        return False
    truth = np.array([np.asarray(model.truth_set(a), dtype=bool) for a in atoms])
    for a in agents:
        labels = np.asarray(model.labels(a))
        for value in np.unique(labels).tolist():
            members = np.flatnonzero(labels == value)
            if len(members) > 2:
                return False
            if len(members) == 2 and int((truth[:, members[0]] != truth[:, members[1]]).sum()) != 1:
                return False
    return True


def _layers_layout(model: KripkeModel) -> np.ndarray:
    n = model.n_worlds
    try:
        atoms = sorted(str(a) for a in model.atoms)
    except ModelError:
        atoms = []
    level = np.zeros(n, dtype=np.int64)
    for a in atoms:
        level += np.asarray(model.truth_set(a), dtype=np.int64)
    positions = np.zeros((n, 2))
    levels = sorted(set(level.tolist()))
    rows = [np.flatnonzero(level == value) for value in levels]
    for row, members in enumerate(rows):
        positions[members, 0] = (np.arange(len(members)) + 1) / (len(members) + 1)
        positions[members, 1] = row / max(len(levels) - 1, 1)
    # Order each row by where its worlds' neighbours are (the barycentre heuristic of
    # layered drawing), down and up a few times: far fewer crossing lines.
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for agent in model.agents:
        for u, v in kripke_edges(model, agent):
            neighbours[u].append(v)
            neighbours[v].append(u)
    for sweep in range(4):
        order = range(1, len(rows)) if sweep % 2 == 0 else range(len(rows) - 2, -1, -1)
        for row in order:
            members = rows[row]
            keys = [
                float(np.mean(positions[neighbours[w], 0])) if neighbours[w] else positions[w, 0]
                for w in members
            ]
            ranked = members[np.argsort(keys, kind="stable")]
            positions[ranked, 0] = (np.arange(len(ranked)) + 1) / (len(ranked) + 1)
            rows[row] = ranked
    return positions


def _unit(points: np.ndarray) -> np.ndarray:
    """Scale points into [0, 1] x [0, 1] keeping the aspect ratio."""
    low = points.min(axis=0)
    span = float((points.max(axis=0) - low).max()) or 1.0
    scaled = (points - low) / span
    return scaled + (1 - scaled.max(axis=0)) / 2


# ----- matplotlib -------------------------------------------------------------------


def _new_axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    if ax is not None:
        return ax
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, layout="constrained")
    return figure.add_subplot()


def _pick_edges(model: KripkeModel, agents: Sequence[str], edges: str) -> str:
    if edges == "auto":
        # Every pair while that adds few lines per world; else cliques become hairballs.
        pairs = _pair_count(model, agents)
        return "all" if pairs <= min(_ALL_PAIRS_LIMIT, 2 * model.n_worlds) else "tree"
    if edges not in ("all", "tree"):
        raise ModelError(f"edges={edges!r}: expected 'auto', 'all' or 'tree'")
    return edges


def _draw_on(
    ax: Axes,
    model: KripkeModel,
    positions: np.ndarray,
    agents: Sequence[str],
    *,
    edges: str,
    labels: str | bool,
    highlight: np.ndarray | None,
    faded: np.ndarray | None,
    node_colours: Sequence[Any] | None = None,
    legend: bool = True,
    stretch: bool = False,
) -> None:
    """Draw the model's worlds and the agents' lines onto ``ax`` (``stretch``: fill a
    wide figure, not a square: a lattice's long rows)."""
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    n = model.n_worlds
    faded_mask = np.zeros(n, dtype=bool) if faded is None else faded
    scale = 1.0 if n <= 30 else 0.7 if n <= 120 else 0.45
    # One agent's relation, drawn as trees: its blocks as closed shapes instead, as the
    # textbooks draw equivalence classes (a tree reads as if its ends were unrelated).
    shapes = edges == "tree" and len(agents) == 1
    lined = () if shapes else tuple(agents)  # the agents drawn as lines
    # Lines shared by several agents run side by side instead of hiding each other.
    shared: dict[tuple[int, int], list[str]] = {}
    per_agent = {a: kripke_edges(model, a, positions, edges) for a in lined}
    if edges == "tree" and faded_mask.any():
        # Kept worlds stay joined by a tree of their own: the old tree may run through
        # removed worlds.
        kept_worlds = np.flatnonzero(~faded_mask)
        survivors = model.restrict(~faded_mask)
        for a in lined:
            kept_tree = [
                (int(kept_worlds[u]), int(kept_worlds[v]))
                for u, v in kripke_edges(survivors, a, positions[kept_worlds], "tree")
            ]
            gone = [(u, v) for u, v in per_agent[a] if faded_mask[u] or faded_mask[v]]
            per_agent[a] = kept_tree + gone
    for a in lined:
        for pair in per_agent[a]:
            shared.setdefault(pair, []).append(a)
    gap = 0.006 if n <= 30 else 0.003
    handles: list[Any] = []
    shaped = agents[0] if shapes else ""
    if shapes:
        a = agents[0]
        colour, style = agent_style(model.agents.index(a))
        _draw_blocks(ax, model, positions, a, colour, faded_mask, scale)
        handles.append(
            Patch(facecolor=colour, alpha=0.2, edgecolor=colour, label=f"a block of {a}")
        )
    for position_in_model, a in ((model.agents.index(a), a) for a in lined):
        colour, style = agent_style(position_in_model)
        kept_segments: list[list[np.ndarray]] = []
        faded_segments: list[list[np.ndarray]] = []
        for u, v in per_agent[a]:
            sharers = shared[(u, v)]
            offset = (sharers.index(a) - (len(sharers) - 1) / 2) * gap
            start, end = positions[u], positions[v]
            direction = end - start
            length = float(np.hypot(*direction)) or 1.0
            normal = np.array([-direction[1], direction[0]]) / length * offset
            segment = [start + normal, end + normal]
            (faded_segments if faded_mask[u] or faded_mask[v] else kept_segments).append(segment)
        width = 1.6 * scale + 0.3
        ax.add_collection(
            LineCollection(
                kept_segments, colors=colour, linestyles=style, linewidths=width,
                gid=f"agent-{a}", label=a, zorder=1,
            )
        )  # fmt: skip
        if faded_segments:
            ax.add_collection(
                LineCollection(
                    faded_segments, colors=colour, linestyles=style, linewidths=width,
                    alpha=0.12, gid=f"agent-{a}-faded", zorder=1,
                )
            )  # fmt: skip
        line_style: Any = style
        # An agent without a line tells every world apart: say so, not a key to nothing.
        name = a if per_agent[a] else f"{a} (no lines: tells every world apart)"
        handles.append(Line2D([], [], color=colour, linestyle=line_style, linewidth=2, label=name))
    if labels not in (True, False, "auto"):
        raise ModelError(f"labels={labels!r}: expected 'auto', True or False")
    show = labels if isinstance(labels, bool) else n <= _LABEL_LIMIT
    names = world_labels(model) if (show or model.actual is not None) else []
    # Short names (muddy children's "110") fit inside the node; longer ones go below.
    inside = show and n <= 30 and max(len(name) for name in names) <= 4
    size = 620.0 if inside else 260 * scale**2 if n <= 30 else 90 * scale
    face: list[Any]
    if node_colours is not None:
        face = list(node_colours)
    elif highlight is not None:
        face = ["#F2D64B" if h else "white" for h in highlight]
    else:
        face = ["white"] * n
    kept = ~faded_mask
    for mask, alpha, gid in ((kept, 1.0, "worlds"), (faded_mask, 0.15, "worlds-faded")):
        if mask.any():
            ax.scatter(
                positions[mask, 0], positions[mask, 1], s=size,
                c=[face[w] for w in np.flatnonzero(mask)], edgecolors="#333333",
                linewidths=0.8, alpha=alpha, zorder=2, gid=gid,
            )  # fmt: skip
    actual = model.actual
    if actual is not None:
        ax.scatter(
            [positions[actual, 0]], [positions[actual, 1]], s=size * 2.2, facecolors="none",
            edgecolors="#000000", linewidths=2.2, zorder=3, gid="actual",
        )  # fmt: skip
        handles.append(
            Line2D([], [], marker="o", linestyle="", markerfacecolor="none",
                   markeredgecolor="black", markeredgewidth=2, markersize=10,
                   label="actual world")
        )  # fmt: skip
    if highlight is not None:
        handles.append(
            Line2D([], [], marker="o", linestyle="", markerfacecolor="#F2D64B",
                   markeredgecolor="#333333", markersize=9, label="formula true")
        )  # fmt: skip
    font = 9 if n <= 12 else 7.5 if n <= 30 else 6
    # Below the node, clear of the actual world's ring: offsets in points, not data units.
    drop = np.sqrt(size * (2.2 if actual is not None else 1.0)) / 2 + 1
    places = (
        _label_places(ax, positions, names, font, drop, stretch) if names and not inside else {}
    )
    for w in range(n):
        if show or w == actual:
            on_node = inside or (w == actual and not show and len(names[w]) <= 4)
            offset, ha, va = places.get(w, ((0.0, -drop), "center", "top"))
            ax.annotate(
                names[w], (positions[w, 0], positions[w, 1]),
                xytext=(0, 0) if on_node else offset, textcoords="offset points",
                ha="center" if on_node else ha, va="center" if on_node else va, fontsize=font,
                alpha=0.25 if faded_mask[w] else 1.0, zorder=4, gid="label",
                bbox=None if on_node else
                {"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.9},
            )  # fmt: skip
    if shapes:
        ax.text(0.0, -0.02, f"a shape is one of {shaped}'s blocks: {shaped} cannot tell its "
                "worlds apart",
                transform=ax.transAxes, fontsize=7, color="#555555", va="top")  # fmt: skip
    elif edges == "tree":
        ax.text(0.0, -0.02, "lines: a tree of near neighbours per block; S5 implies the rest",
                transform=ax.transAxes, fontsize=7, color="#555555", va="top")  # fmt: skip
    ax.set_xlim(-0.08, 1.08)
    ax.set_ylim(-0.1, 1.06)
    ax.set_aspect("auto" if stretch else "equal")
    ax.set_axis_off()
    if legend and handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8,
                  frameon=False, title="agents" if lined else None, title_fontsize=8)  # fmt: skip


def _label_places(
    ax: Axes,
    positions: np.ndarray,
    names: Sequence[str],
    font: float,
    drop: float,
    stretch: bool = False,
) -> dict[int, tuple[tuple[float, float], str, str]]:
    """Where each world's label goes (offset in points, alignment): below the world, or
    where it collides with no label placed before it (above, right, left), greedily;
    below when every place collides.  Sizes are estimated from the figure's size."""
    from matplotlib.figure import Figure

    figure = ax.get_figure()
    width, height = (
        (float(v) for v in figure.get_size_inches()) if isinstance(figure, Figure) else (7.0, 6.0)
    )
    # Points per data unit (1.16 units are drawn each way); equal scales unless stretched.
    up = 0.85 * height * 72 / 1.16
    across = 0.8 * width * 72 / 1.16 if stretch else up
    char, line = 0.6 * font, 1.25 * font
    centre = positions * np.array([across, up])
    options = [
        ((0.0, -drop), "center", "top"),
        ((0.0, drop), "center", "bottom"),
        ((drop, 0.0), "left", "center"),
        ((-drop, 0.0), "right", "center"),
    ]
    placed: list[tuple[float, float, float, float]] = []
    worlds = [(centre[w, 0], centre[w, 1], 0.5 * drop) for w in range(len(centre))]
    result: dict[int, tuple[tuple[float, float], str, str]] = {}

    def box_of(w: int, wide: float, option: tuple[tuple[float, float], str, str]) -> Any:
        (dx, dy), ha, va = option
        x0 = centre[w, 0] + dx - (wide / 2 if ha == "center" else wide if ha == "right" else 0)
        y0 = centre[w, 1] + dy - (line if va == "top" else line / 2 if va == "center" else 0)
        return (x0, y0, x0 + wide, y0 + line)

    for w, name in enumerate(names):
        wide = char * len(name)
        for option in options:
            box = box_of(w, wide, option)
            hits_label = any(
                box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in placed
            )
            hits_world = any(
                box[0] - r < x < box[2] + r and box[1] - r < y < box[3] + r
                for v, (x, y, r) in enumerate(worlds)
                if v != w
            )
            if not hits_label and not hits_world:
                break
        else:  # every place collides: below, as before
            option = options[0]
            box = box_of(w, wide, option)
        placed.append(box)
        result[w] = option
    return result


def _draw_blocks(
    ax: Axes,
    model: KripkeModel,
    positions: np.ndarray,
    agent: str,
    colour: str,
    faded: np.ndarray,
    scale: float,
) -> None:
    """Each of ``agent``'s blocks as a closed shape round its worlds: the convex hull,
    drawn with a wide round-joined edge so that one world is a disc and two a capsule."""
    from matplotlib.colors import to_rgb
    from matplotlib.patches import Polygon

    labels = np.asarray(model.labels(agent))
    width = 14.0 * scale + 4.0  # points: wider than a world's marker
    light = tuple(0.82 + 0.18 * c for c in to_rgb(colour))  # the agent's colour, paled
    for block in np.unique(labels):
        members = np.flatnonzero(labels == block)
        kept = members[~faded[members]]
        # An announcement's survivors get a shape of their own; the whole old block fades.
        parts = [(members, 0.3, "-faded")] if len(kept) < len(members) else []
        if len(kept):
            parts.append((kept, 1.0, ""))
        for worlds, alpha, suffix in parts:
            outline = _hull(positions[worlds])
            # A slightly wider stroke in the agent's colour under a pale one: a pale shape
            # with a thin rim, one tone inside (no darker band where stroke and fill meet).
            for edge, line, z in ((colour, width + 2.4, 0.4), (light, width, 0.5)):
                ax.add_patch(
                    Polygon(
                        outline, closed=True, facecolor=light, edgecolor=edge, linewidth=line,
                        joinstyle="round", capstyle="round", alpha=alpha, zorder=z,
                        gid=f"block-{agent}{suffix}",
                    )
                )  # fmt: skip


def _hull(points: np.ndarray) -> np.ndarray:
    """The convex hull of the points, in order (one or two points: themselves)."""
    unique = np.unique(points.round(9), axis=0)
    if len(unique) <= 2:
        return unique if len(unique) == 2 else np.vstack([unique, unique])
    # Andrew's monotone chain: no degenerate cases (collinear points give the segment).
    ordered = sorted(map(tuple, unique.tolist()))

    def half(seq: list[tuple[float, float]]) -> list[tuple[float, float]]:
        chain: list[tuple[float, float]] = []
        for p in seq:
            while (
                len(chain) >= 2
                and (
                    (chain[-1][0] - chain[-2][0]) * (p[1] - chain[-2][1])
                    - (chain[-1][1] - chain[-2][1]) * (p[0] - chain[-2][0])
                )
                <= 0
            ):
                chain.pop()
            chain.append(p)
        return chain

    lower, upper = half(ordered), half(ordered[::-1])
    return np.array(lower[:-1] + upper[:-1])


def _positions(
    model: KripkeModel,
    positions: Mapping[Any, Sequence[float]] | np.ndarray | None,
    layout: str,
    agent: str | None,
    seed: int,
) -> np.ndarray:
    if positions is None:
        return kripke_layout(model, layout, agent=agent, seed=seed)
    if isinstance(positions, Mapping):
        try:
            points = np.array([positions[w] for w in range(model.n_worlds)], dtype=float)
        except KeyError as err:
            raise ModelError(f"positions give no place for world {err.args[0]!r}") from None
    else:
        points = np.asarray(positions, dtype=float)
    if points.shape != (model.n_worlds, 2):
        raise ModelError(
            f"positions have shape {points.shape}: expected ({model.n_worlds}, 2), one (x, y) "
            "per world"
        )
    return points


def _truth(model: KripkeModel, formula: Formula | str | None) -> np.ndarray | None:
    return None if formula is None else np.asarray(model.truth_set(formula))


def draw_kripke(
    model: KripkeModel,
    *,
    agent: str | None = None,
    ax: Axes | None = None,
    layout: str = "auto",
    positions: Mapping[Any, Sequence[float]] | np.ndarray | None = None,
    labels: str | bool = "auto",
    highlight: Formula | str | None = None,
    edges: str = "auto",
    max_worlds: int | None = None,
    title: str | None = None,
    seed: int = 0,
    possible_for: str | None = None,
) -> Figure:
    """Draw a Kripke model: one node per world, one colour and line style per agent.

    ``agent`` shows that agent's relation only; ``possible_for`` draws only the worlds
    that agent considers possible at the actual world (and who cannot tell them apart);
    ``highlight`` fills the worlds where a formula is true; the actual world is ringed.
    Three-player deals past 40 worlds draw as a grid of two players' blocks (up to
    :data:`GRID_LIMIT` worlds), muddy-children-like models as the lattice by the number
    of true atoms; a model too big to read is refused with the reductions that do shrink
    it below the limit, if any.  Labels of every
    world appear up to 40 worlds (``labels=True``/``False`` forces them).  Returns the
    figure (``ax.figure`` when ``ax`` is given).

    >>> from kwartet_epistemic.examples import russian_cards
    >>> figure = draw_kripke(russian_cards(), agent="Cath")
    >>> shapes = [p for p in figure.axes[0].patches if p.get_gid() == "block-Cath"]
    >>> len(shapes) // 2  # Cath's 7 blocks of 20 worlds, each a closed shape (rim and fill)
    7
    """
    if possible_for is not None:
        model = model.possible_for(possible_for)
    _check_size(model, agent, max_worlds)
    agents = _agents(model, agent)
    points = _positions(model, positions, layout, agent, seed)
    chosen = _structured(model, agents, layout) if positions is None else "given"
    grid = None
    if chosen == "grid":
        grid = grid_axes(model, agents if len(agents) > 1 else model.agents)
    if grid is not None:
        ax = _new_axes(ax, _grid_figure_size(model, grid))
        labels = False if labels == "auto" else labels
    else:
        size = _figure_size(model.n_worlds, _label_length(model, labels))
        if chosen == "layers":  # room for the widest row's labels
            widest = int(np.unique(points[:, 1].round(6), return_counts=True)[1].max())
            size = (max(size[0], 0.62 * widest + 1.3), size[1])
        ax = _new_axes(ax, size)
    if chosen == "layers" and labels == "auto" and model.n_worlds <= _LAYERS_LABEL_LIMIT:
        labels = True  # short names (muddy children's 110100) fit a lattice's rows
    _draw_on(
        ax, model, points, agents, edges=_pick_edges(model, agents, edges), labels=labels,
        highlight=_truth(model, highlight), faded=None, stretch=chosen in ("layers", "grid"),
    )  # fmt: skip
    if grid is not None:
        _label_grid(ax, model, points, grid)
    from matplotlib.figure import Figure

    text = (
        title
        if title is not None
        else _default_title(model, agent, highlight)
        + (f" (the worlds {possible_for} considers possible)" if possible_for else "")
    )
    figure = ax.get_figure()
    assert figure is not None
    inches = figure.get_size_inches()[0] if isinstance(figure, Figure) else 6.0
    if title is None and len(text) > 8 * inches:  # a long title goes on two lines, not off
        text = text.replace("; ", "\n", 1)
    ax.set_title(text, fontsize=10)
    return figure  # type: ignore[return-value]


def _grid_figure_size(model: KripkeModel, grid: tuple[str, str]) -> tuple[float, float]:
    # At most about 11 inches wide, the width a notebook shows without shrinking it (so
    # the labels keep their size on screen): narrow columns take vertical labels.
    rows, cols = model.block_count(grid[0]), model.block_count(grid[1])
    across = max(0.15, min(0.32, 8.0 / max(cols, 1)))
    down = 0.32 if rows <= 20 else 0.27
    return (max(5.0, cols * across + 3.2), max(4.0, rows * down + 1.8))


def _label_grid(ax: Axes, model: KripkeModel, points: np.ndarray, grid: tuple[str, str]) -> None:
    """Name each row and column of a grid layout by its block (the agent's hand)."""
    rows_agent, cols_agent = grid
    font = 7.5  # legible at the size a notebook shows (the figure is at most ~11 inches)
    for axis, agent in ((1, rows_agent), (0, cols_agent)):
        names = _block_names(model, agent)
        labels = np.asarray(model.labels(agent))
        for block, name in names.items():
            member = int(np.flatnonzero(labels == block)[0])
            where = points[member, axis]
            text = name.removeprefix(f"{agent} ")
            if axis == 1:
                ax.text(-0.03, where, text, ha="right", va="center", fontsize=font,
                        transform=ax.transData, gid="row-label")  # fmt: skip
            else:
                ax.text(where, points[:, 1].min() - 0.03, text, ha="center", va="top",
                        rotation=90, fontsize=font, gid="column-label")  # fmt: skip
    ax.text(-0.03, points[:, 1].max() + 0.03, f"{rows_agent}'s hand", ha="right", va="bottom",
            fontsize=font + 1, fontweight="bold")  # fmt: skip
    ax.text(points[:, 0].max() + 0.02, points[:, 1].min() - 0.03, f"{cols_agent}'s hand",
            ha="left", va="top", fontsize=font + 1, fontweight="bold")  # fmt: skip
    others = [a for a in model.agents if a not in grid]
    note = f"a row is one of {rows_agent}'s blocks, a column one of {cols_agent}'s" + (
        f"; {', '.join(others)}'s blocks are the other lines" if others else ""
    )
    ax.text(0.0, -0.06, note, transform=ax.transAxes, fontsize=7, color="#555555", va="top")
    for artist in list(ax.texts):  # the world names: the rows and columns tell them
        if artist.get_gid() == "label":
            artist.remove()
    ax.set_xlim(-0.25, 1.08)
    ax.set_ylim(points[:, 1].min() - 0.16, points[:, 1].max() + 0.06)


def _label_length(model: KripkeModel, labels: str | bool) -> int:
    """The longest world label drawn (0 when labels are off)."""
    if labels is False or (labels == "auto" and model.n_worlds > _LABEL_LIMIT):
        return 0
    return max((len(name) for name in world_labels(model)), default=0)


def _figure_size(n: int, label_length: int = 0) -> tuple[float, float]:
    side = 4.0 if n <= 12 else 5.0 if n <= 40 else 6.5 if n <= 150 else 8.0
    # Long labels need room: fonts keep their size while the figure grows.
    side *= 1.0 + max(0, min(label_length, 24) - 4) / 16
    return (side + 1.3, side)


def _default_title(model: KripkeModel, agent: str | None, highlight: Formula | str | None) -> str:
    who = f"{agent}'s relation" if agent else "agents " + ", ".join(model.agents)
    what = f"{model.n_worlds} world{'s' if model.n_worlds != 1 else ''}, {who}"
    if highlight is None:
        return what
    true = int(np.count_nonzero(model.truth_set(highlight)))
    # A formula true everywhere (or nowhere) marks nothing apart: say so.
    where = (
        "true in every world"
        if true == model.n_worlds
        else "true in no world"
        if true == 0
        else f"true in {true} of {model.n_worlds}"
    )
    return f"{what}; marked: {highlight} ({where})"


def draw_announcement(
    model: KripkeModel,
    formula: Formula | str,
    *,
    agent: str | None = None,
    layout: str = "auto",
    positions: Mapping[Any, Sequence[float]] | np.ndarray | None = None,
    labels: str | bool = "auto",
    edges: str = "auto",
    max_worlds: int | None = None,
    seed: int = 0,
) -> Figure:
    """Before and after the public announcement of ``formula``, side by side on the same
    layout: after it, the removed worlds (and their lines) are faded.

    Raises :class:`~kwartet_epistemic.errors.FalseAnnouncementError` if the formula is
    false at the actual world, like :meth:`KripkeModel.announce`.

    >>> from kwartet_epistemic.examples import muddy_children, father_announcement
    >>> figure = draw_announcement(muddy_children(3, 2), father_announcement(3))
    >>> [len(c.get_offsets()) for c in figure.axes[1].collections if c.get_gid() == "worlds"]
    [7]
    """
    from matplotlib.figure import Figure

    _check_size(model, agent, max_worlds)
    model.announce(formula)  # refuses a false announcement before anything is drawn
    agents = _agents(model, agent)
    points = _positions(model, positions, layout, agent, seed)
    kept = np.asarray(model.truth_set(formula))
    side = _figure_size(model.n_worlds)[1]
    figure = Figure(figsize=(2 * side + 1.4, side), layout="constrained")
    before, after = figure.subplots(1, 2)
    chosen = _pick_edges(model, agents, edges)
    _draw_on(before, model, points, agents, edges=chosen, labels=labels, highlight=None,
             faded=None, legend=False)  # fmt: skip
    _draw_on(after, model, points, agents, edges=chosen, labels=labels, highlight=None,
             faded=~kept)  # fmt: skip
    removed = int((~kept).sum())
    before.set_title(f"before: {model.n_worlds} worlds", fontsize=10)
    after.set_title(
        f"after announcing {formula}: {int(kept.sum())} worlds ({removed} removed, faded)",
        fontsize=10,
    )
    return figure


def draw_contraction(
    model: KripkeModel,
    *,
    layout: str = "auto",
    labels: str | bool = "auto",
    edges: str = "auto",
    max_worlds: int | None = None,
    seed: int = 0,
) -> Figure:
    """A model and its bisimulation contraction side by side; worlds of the model are
    coloured by the contracted world they merge into.

    >>> m = KripkeModel(4, {"A": [0, 0, 1, 1], "B": [0, 1, 2, 3]}, {"p": [1, 0, 1, 0]})
    >>> draw_contraction(m).axes[1].get_title()
    'contracted: 2 worlds'
    """
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    _check_size(model, None, max_worlds)
    contracted = model.contract()
    classes = np.asarray(model.bisimulation_classes())
    palette = colormaps["tab20"]
    colours = [palette(int(c) % 20) for c in classes]
    points = _positions(model, None, layout, None, seed)
    small = _positions(contracted, None, layout, None, seed)
    side = _figure_size(model.n_worlds)[1]
    figure = Figure(figsize=(2 * side + 1.4, side), layout="constrained")
    left, right = figure.subplots(1, 2)
    _draw_on(left, model, points, model.agents, edges=_pick_edges(model, model.agents, edges),
             labels=labels, highlight=None, faded=None, node_colours=colours, legend=False)  # fmt: skip
    _draw_on(right, contracted, small, contracted.agents,
             edges=_pick_edges(contracted, contracted.agents, edges), labels=labels,
             highlight=None, faded=None,
             node_colours=[palette(c % 20) for c in range(contracted.n_worlds)])  # fmt: skip
    plural = "s" if model.n_worlds != 1 else ""
    left.set_title(
        f"model: {model.n_worlds} world{plural} (colour = bisimulation class)", fontsize=10
    )
    plural = "s" if contracted.n_worlds != 1 else ""
    right.set_title(f"contracted: {contracted.n_worlds} world{plural}", fontsize=10)
    return figure


# ----- TikZ -------------------------------------------------------------------------


def _tex(text: str) -> str:
    out = []
    for char in text:
        if char in _TEX_SUITS:
            out.append(_TEX_SUITS[char])
        elif char in "&%$#_{}":
            out.append("\\" + char)
        elif char == "~":
            out.append(r"\textasciitilde{}")
        elif char == "^":
            out.append(r"\textasciicircum{}")
        elif char == "\\":
            out.append(r"\textbackslash{}")
        elif char == "|":
            out.append(r"$\mid$")
        elif char == "∅":
            out.append(r"$\emptyset$")
        else:
            out.append(char)
    return "".join(out)


def kripke_to_tikz(
    model: KripkeModel,
    *,
    agent: str | None = None,
    layout: str = "auto",
    positions: Mapping[Any, Sequence[float]] | np.ndarray | None = None,
    labels: str | bool = "auto",
    edges: str = "auto",
    size_cm: float = 10.0,
    max_worlds: int | None = None,
    seed: int = 0,
) -> str:
    """The drawing as a TikZ picture for papers (needs ``\\usepackage{tikz}``): one
    colour and dash pattern per agent, the actual world drawn with a double circle.

    >>> from kwartet_epistemic.examples import muddy_children
    >>> tikz = kripke_to_tikz(muddy_children(2, 1), layout="layers")
    >>> tikz.count("node[world]") + tikz.count("node[actual]"), tikz.count(") -- (w")
    (4, 4)
    """
    _check_size(model, agent, max_worlds)
    agents = _agents(model, agent)
    points = _positions(model, positions, layout, agent, seed) * size_cm
    chosen = _pick_edges(model, agents, edges)
    n = model.n_worlds
    show = labels if isinstance(labels, bool) else n <= _LABEL_LIMIT
    names = world_labels(model) if show else [""] * n
    dashes = ["solid", "dashed", "dotted", "dash dot", "dash dot dot", "loosely dotted",
              "loosely dashed", "densely dash dot"]  # fmt: skip
    lines = [
        f"% Kripke model: {n} worlds, agents {', '.join(agents)}; reflexive loops omitted"
        + ("; S5 transitive links implied" if chosen == "tree" else ""),
    ]
    for position, a in ((model.agents.index(a), a) for a in agents):
        colour, _ = agent_style(position)
        lines.append(f"\\definecolor{{agent{_safe(a)}}}{{HTML}}{{{colour.lstrip('#')}}}")
    lines.append(
        "\\begin{tikzpicture}[world/.style={circle, draw, minimum size=4mm, inner sep=1pt, "
        "font=\\scriptsize}, actual/.style={world, double, thick}]"
    )
    for w in range(n):
        style = "actual" if w == model.actual else "world"
        x, y = points[w]
        lines.append(f"  \\node[{style}] (w{w}) at ({x:.2f},{y:.2f}) {{}};")
        if names[w]:
            lines.append(f"  \\node[font=\\tiny, below=1pt] at (w{w}.south) {{{_tex(names[w])}}};")
    for position, a in ((model.agents.index(a), a) for a in agents):
        style = dashes[position % len(dashes)]
        for u, v in kripke_edges(model, a, points, chosen):
            lines.append(f"  \\draw[agent{_safe(a)}, {style}] (w{u}) -- (w{v});")
    legend_y = -0.8
    for row, a in enumerate(agents):
        style = dashes[model.agents.index(a) % len(dashes)]
        y = legend_y - 0.45 * row
        lines.append(
            f"  \\draw[agent{_safe(a)}, {style}, thick] (0,{y:.2f}) -- (0.8,{y:.2f}) "
            f"node[right, black, font=\\scriptsize] {{{_tex(a)}}};"
        )
    lines.append("\\end{tikzpicture}")
    return "\n".join(lines)


def _safe(agent: str) -> str:
    """A TikZ colour name part: letters only (digits spelled out)."""
    digits = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    return "".join(ch if ch.isalpha() else digits[int(ch)] if ch.isdigit() else "X" for ch in agent)
