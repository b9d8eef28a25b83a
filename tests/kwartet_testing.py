"""Shared helpers of the test suite: small random games and random formulas."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.history import PrivateInfo, PublicHistory, private_info
from kwartet_epistemic.logic import And, Announce, C, D, E, Formula, K, Kw, M, Not, Or

# (preset, families, players, rule changes): small enough for the explicit engine.
SMALL_SETUPS = [
    ("publisher", 2, ["A", "B", "C"], {}),
    ("publisher", 3, ["A", "B", "C"], {}),
    ("lamas", 2, ["A", "B", "C", "D"], {}),
    ("publisher", 2, ["A", "B", "C"], {"bluffing": True}),
    ("dutch", 3, ["A", "B", "C"], {}),
    ("fish", 2, ["A", "B"], {"cards_each": 3}),
    ("fish", 3, ["A", "B", "C"], {"cards_each": 3}),
    ("publisher", 3, ["A", "B", "C"], {"memory_cards": 1}),
]


ROOT = Path(__file__).resolve().parent.parent
"""The repository root."""


def load_script(path: str, name: str | None = None) -> ModuleType:
    """The script at ``path`` (relative to the repository root, e.g.
    ``"experiments/ladder.py"``) imported as module ``name`` (default: its file name), as
    its own folder's neighbours see it: that folder is put on ``sys.path`` (the experiments
    import ``_latex`` from there), and the module is registered before it runs (dataclasses
    look their module up while they are defined)."""
    file = ROOT / path
    folder = str(file.parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name or file.stem, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def require_extra(module: str, extra: str) -> ModuleType:
    """Import ``module`` of the optional extra ``extra``, or skip the test without it.

    CI (``.ci/run``) installs every extra and sets ``KWARTET_REQUIRE_EXTRAS=1``: there a
    missing module fails the test instead of skipping it.
    """
    if os.environ.get("KWARTET_REQUIRE_EXTRAS"):
        return importlib.import_module(module)
    return pytest.importorskip(
        module, reason=f"needs the {extra!r} extra: pip install -e '.[{extra}]'"
    )


NAMES = ["A", "B", "C", "D", "E", "F"]
"""Seat names for up to six players."""

RULE_VARIANTS = [
    kw.RuleSet(),
    kw.RuleSet.preset("lamas"),
    kw.RuleSet.preset("dutch"),
    kw.RuleSet.preset("fish"),
    kw.RuleSet(bluffing=True),
    kw.RuleSet(memory_cards=3),
]
"""Rule sets that exercise every path of the counting engine (clockwise, set-aside cards,
a stock, bluffing, Memory Kwartet)."""


def played_position(
    seed: int, families: int, players: int, rules: kw.RuleSet, asks: int
) -> kw.Game:
    """A game of ``families`` families and ``players`` seats dealt with ``seed`` and played
    at random for up to ``asks`` asks."""
    game = kw.Game.deal(kw.Deck.piquet(families=families), NAMES[:players], seed=seed, rules=rules)
    return _play_at_random(game, seed, asks)


def _play_at_random(game: kw.Game, seed: int, asks: int) -> kw.Game:
    """``game`` after up to ``asks`` random legal asks drawn from a generator of ``seed``."""
    rng = np.random.default_rng(seed)
    for _ in range(asks):
        if game.is_over:
            break
        game.play(game.random_legal_ask(rng))
    return game


def public_history(game: kw.Game) -> PublicHistory:
    """A fresh :class:`PublicHistory` of the game's public record so far."""
    history = PublicHistory(game.deck, game.players, game.rules)
    history.extend(game.record)
    return history


def viewer_infos(game: kw.Game, which: int) -> list[PrivateInfo]:
    """No viewer (``which`` 0: the public), the first player, or the first two pooling
    (distributed knowledge): their private information."""
    chosen = [] if which == 0 else game.players[:which]
    return [private_info(game.deck, p, game.view(p).hand, game.view(p).record) for p in chosen]


def position_arguments(families: int, players: int, asks: int) -> dict[str, st.SearchStrategy[int]]:
    """The arguments of :func:`random_position`, up to these many families, players and
    asks."""
    return {
        "seed": st.integers(0, 10_000),
        "variant": st.integers(0, len(RULE_VARIANTS) - 1),
        "families": st.integers(3, families),
        "players": st.integers(3, players),
        "asks": st.integers(0, asks),
        "which": st.integers(0, 2),
    }


def on_random_positions(examples: int, families: int, players: int, asks: int):
    """A test run on ``examples`` sets of :func:`random_position`'s arguments, up to these
    many families, players and asks (function-scoped fixtures such as ``monkeypatch``
    allowed: each example sets what it changes afresh)."""
    return lambda test: settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )(given(**position_arguments(families, players, asks))(test))


def random_position(seed: int, variant: int, families: int, players: int, asks: int, which: int):
    """(history, viewers) of a random position of ``RULE_VARIANTS[variant]`` (a draw
    pile deals at most what the deck allows), or None for a deal the rules refuse."""
    rules = RULE_VARIANTS[variant]
    if rules.draw_pile:
        rules = rules.replace(cards_each=max(1, min(rules.cards_each, 4 * families // players - 1)))
    try:
        game = played_position(seed, families, players, rules, asks)
    except kw.KwartetError:
        return None
    return public_history(game), viewer_infos(game, min(which, players - 1))


def random_game(setup, seed: int, steps: int) -> kw.Game:
    """A game of ``setup`` dealt with ``seed`` and played at random for ``steps`` asks."""
    preset, families, players, extra = setup
    rules = kw.RuleSet.preset(preset).replace(**extra)
    game = kw.Game.deal(kw.Deck.piquet(families=families), players, seed=seed, rules=rules)
    return _play_at_random(game, seed, steps)


def nested_formulas(players: list[str], atoms: list[Formula]) -> st.SearchStrategy[Formula]:
    """Random formulas over ``atoms`` with every operator, nested."""
    agents = st.sampled_from(players)
    groups = st.lists(agents, min_size=1, max_size=len(players), unique=True)

    def extend(children: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
        return st.one_of(
            children.map(Not),
            st.tuples(children, children).map(lambda t: And(*t)),
            st.tuples(children, children).map(lambda t: Or(*t)),
            st.tuples(agents, children).map(lambda t: K(*t)),
            st.tuples(agents, children).map(lambda t: M(*t)),
            st.tuples(agents, children).map(lambda t: Kw(*t)),
            st.tuples(groups, children).map(lambda t: E(*t)),
            st.tuples(groups, children).map(lambda t: C(*t)),
            st.tuples(groups, children).map(lambda t: D(*t)),
            st.tuples(children, children).map(lambda t: Announce(*t)),
        )

    return st.recursive(st.sampled_from(atoms), extend, max_leaves=6)


def random_formula(
    rng: np.random.Generator, agents: list[str], atoms: list[Formula], depth: int = 3
) -> Formula:
    """A random formula over ``atoms`` with every operator (and constants), at most
    ``depth`` operators deep; reproducible from ``rng``."""
    from kwartet_epistemic.logic import AnnounceDual, Bottom, Iff, Implies, Top

    if depth == 0 or rng.random() < 0.2:
        pick = int(rng.integers(len(atoms) + 1))
        return atoms[pick] if pick < len(atoms) else (Top() if rng.random() < 0.5 else Bottom())

    def sub() -> Formula:
        return random_formula(rng, agents, atoms, depth - 1)

    def group() -> list[str]:
        size = int(rng.integers(1, len(agents) + 1))
        return [str(a) for a in rng.choice(agents, size=size, replace=False)]

    def agent() -> str:
        return str(rng.choice(agents))

    kind = int(rng.integers(13))
    if kind == 0:
        return Not(sub())
    if kind in (1, 2, 3, 4):
        return (And, Or, Implies, Iff)[kind - 1](sub(), sub())
    if kind in (5, 6, 7):
        return (K, M, Kw)[kind - 5](agent(), sub())
    if kind in (8, 9, 10):
        return (E, C, D)[kind - 8](group(), sub())
    return (Announce, AnnounceDual)[kind - 11](sub(), sub())


# ----- processes (Linux: read from /proc) ---------------------------------------------


def children_of(pid: int) -> list[int]:
    """Every process whose parent is ``pid``, read from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # the command name, in parentheses, may hold spaces: the fields follow its last ")"
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid:
            found.append(int(entry.name))
    return found


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, their children, ...), read from /proc."""
    seen: set[int] = set()
    todo = [pid]
    while todo:
        for child in children_of(todo.pop()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie has ended: only its parent's wait is missing)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
