"""An independent brute force over every deal, for checking the engines.

It deals every possible deal with the game's public sizes (hands, every stock order, the
set-aside and middle cards), replays the recorded actions with the referee, and keeps the
deals whose public record is the one observed.  A world is a deal up to what no one can
ever tell apart: the hands dealt, the set-aside and middle cards, and the cards drawn so
far, in order.  Nothing of the epistemic engines is used; formulas are evaluated by their
textbook semantics over these worlds (:func:`evaluate`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import kwartet_epistemic as kw
from kwartet_epistemic.events import Drew
from kwartet_epistemic.logic import (
    And,
    Announce,
    AnnounceDual,
    Atom,
    Bottom,
    C,
    D,
    E,
    Formula,
    Iff,
    Implies,
    K,
    Kw,
    M,
    Not,
    Or,
    Top,
)


def all_deals(game: kw.Game):
    """Every deal with the same public sizes: (hands, stock bottom-to-top, aside, middle)."""
    deal = game.initial_deal
    sizes = [len(deal["hands"][p]) for p in game.players]
    n_stock, n_aside, n_middle = len(deal["stock"]), len(deal["aside"]), len(deal["middle"])
    cards = [c.code for c in game.deck.cards]

    def split(pool: list[str], sizes: list[int]):
        if not sizes:
            yield []
            return
        for chosen in itertools.combinations(pool, sizes[0]):
            rest = [c for c in pool if c not in chosen]
            for tail in split(rest, sizes[1:]):
                yield [list(chosen), *tail]

    for parts in split(cards, [*sizes, n_aside, n_middle, n_stock]):
        hands = dict(zip(game.players, parts[: len(sizes)], strict=True))
        aside, middle, stock = parts[len(sizes) :]
        for stock_order in itertools.permutations(stock) if n_stock else [()]:
            for middle_order in itertools.permutations(middle) if n_middle else [()]:
                yield hands, list(stock_order), aside, list(middle_order)


@dataclass(frozen=True)
class BruteWorld:
    """One world: each card's place now (a player, "exposed", "stock", "aside" or
    "middle") and each player's private key (dealt hand, own draws)."""

    current: dict[str, set[str]]
    private: dict[str, tuple[object, ...]]
    place: dict[str, str]


def _private_keys(game: kw.Game, hands: dict[str, list[str]]) -> dict[str, tuple[object, ...]]:
    draws = [e for e in game.events if isinstance(e, Drew)]
    return {
        p: (
            tuple(sorted(hands[p])),
            tuple((i, e.card.code) for i, e in enumerate(draws) if e.player == p),
        )
        for p in game.players
    }


def world_key(replay: kw.Game, hands, aside, middle) -> tuple[object, ...]:
    """What tells a world apart: the hands dealt, the set-aside and middle cards, and the
    cards drawn so far, in order."""
    draws = tuple(e.card.code for e in replay.events if isinstance(e, Drew))
    return (
        tuple(tuple(sorted(hands[p])) for p in replay.players),
        tuple(sorted(aside)),
        tuple(sorted(middle)),
        draws,
    )


def brute_worlds(game: kw.Game) -> dict[tuple[object, ...], BruteWorld]:
    """World key -> world, for every deal consistent with the game's public record."""
    return brute_worlds_by_prefix(game)[-1]


def brute_worlds_by_prefix(game: kw.Game) -> list[dict[tuple[object, ...], BruteWorld]]:
    """For n = 0 .. the number of actions: the worlds after the first n actions (each deal
    is replayed once, and dropped as soon as its public record leaves the game's)."""
    target = game.record
    actions = game.actions
    actual = game_after(game, 0)
    lengths = [len(actual.record)]
    for action in actions:
        _act(actual, action)
        lengths.append(len(actual.record))
    by_prefix: list[dict[tuple[object, ...], BruteWorld]] = [{} for _ in range(len(actions) + 1)]
    for hands, stock, aside, middle in all_deals(game):
        try:
            replay = _dealt_like(game, hands, stock, aside, middle)
        except kw.KwartetError:
            continue
        for n in range(len(actions) + 1):
            if replay.record != target[: lengths[n]]:
                break
            key = world_key(replay, hands, aside, middle)
            by_prefix[n][key] = _world(replay, hands, aside, middle)
            if n == len(actions):
                break
            try:
                _act(replay, actions[n])
            except kw.KwartetError:
                break
    return by_prefix


def _dealt_like(game: kw.Game, hands, stock, aside, middle) -> kw.Game:
    """A new game of ``game``'s deck, seats, dealer and rules with the given deal."""
    return kw.Game(
        game.deck,
        game.players,
        hands,
        dealer=game.dealer,
        rules=game.rules,
        stock=stock,
        aside=aside,
        middle=middle,
    )


def _act(game: kw.Game, action: tuple[object, ...]) -> None:
    if action[0] == "ask":
        game.ask(action[2], action[3], asker=action[1])
    else:
        game.turn_over(action[2])


def _world(replay: kw.Game, hands, aside, middle) -> BruteWorld:
    current = {p: {c.code for c in replay.hand(p)} for p in replay.players}
    place = {}
    exposed_families = set(replay.exposed)
    for card in replay.deck.cards:
        holder = next((p for p in replay.players if card.code in current[p]), None)
        if holder is not None:
            place[card.code] = holder
        elif card.family in exposed_families:
            place[card.code] = "exposed"
        elif card.code in aside:
            place[card.code] = "aside"
        elif card.code in middle:
            place[card.code] = "middle"
        else:
            place[card.code] = "stock"
    return BruteWorld(current, _private_keys(replay, hands), place)


def game_after(game: kw.Game, n: int) -> kw.Game:
    """The game replayed from its deal for its first ``n`` actions."""
    deal = game.initial_deal
    replay = _dealt_like(game, deal["hands"], deal["stock"], deal["aside"], deal["middle"])
    for action in game.actions[:n]:
        _act(replay, action)
    return replay


def actual_key(game: kw.Game, player: str) -> tuple[object, ...]:
    """``player``'s private key in the actual game."""
    return _private_keys(game, game.initial_deal["hands"])[player]


def player_worlds(game: kw.Game, worlds: dict, player: str) -> list[BruteWorld]:
    """The worlds ``player`` cannot tell from the actual one."""
    mine = actual_key(game, player)
    return [w for w in worlds.values() if w.private[player] == mine]


def actual_world(game: kw.Game, worlds: dict) -> BruteWorld:
    """The world of the actual deal."""
    deal = game.initial_deal
    return worlds[world_key(game, deal["hands"], deal["aside"], deal["middle"])]


def evaluate(formula: Formula, worlds: list[BruteWorld], players: tuple[str, ...]) -> set[int]:
    """The indices of ``worlds`` where ``formula`` is true, in the model made of ``worlds``
    (the relation of a player: the same private key)."""
    cells: dict[str, dict[object, list[int]]] = {}
    for p in players:
        groups: dict[object, list[int]] = {}
        for i, w in enumerate(worlds):
            groups.setdefault(w.private[p], []).append(i)
        cells[p] = groups

    everything = set(range(len(worlds)))

    def per_cell(groups: list[list[int]], test) -> set[int]:
        """The worlds of the cells (lists of world indices) where ``test`` holds."""
        return {i for cell in groups if test(cell) for i in cell}

    def components(group: tuple[str, ...]) -> list[list[int]]:
        """The classes of the reflexive-transitive closure of the group's relations."""
        parent = list(range(len(worlds)))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for p in group:
            for cell in cells[p].values():
                for j in cell[1:]:
                    parent[find(j)] = find(cell[0])
        classes: dict[int, list[int]] = {}
        for i in range(len(worlds)):
            classes.setdefault(find(i), []).append(i)
        return list(classes.values())

    def intersections(group: tuple[str, ...]) -> list[list[int]]:
        """The cells of the intersection of the group's relations."""
        classes: dict[tuple[object, ...], list[int]] = {}
        for i, w in enumerate(worlds):
            classes.setdefault(tuple(w.private[p] for p in group), []).append(i)
        return list(classes.values())

    def ext(f: Formula) -> set[int]:
        if isinstance(f, Top):
            return set(everything)
        if isinstance(f, Bottom):
            return set()
        if isinstance(f, Atom):
            assert f.predicate == "has", f
            who, card = f.arguments
            return {i for i, w in enumerate(worlds) if card in w.current[who]}
        if isinstance(f, Not):
            return everything - ext(f.operand)
        if isinstance(f, And):
            return ext(f.left) & ext(f.right)
        if isinstance(f, Or):
            return ext(f.left) | ext(f.right)
        if isinstance(f, Implies):
            return (everything - ext(f.left)) | ext(f.right)
        if isinstance(f, Iff):
            left, right = ext(f.left), ext(f.right)
            return {i for i in everything if (i in left) == (i in right)}
        if isinstance(f, K | M | Kw):
            inner = ext(f.operand)
            groups = list(cells[f.agent].values())
            if isinstance(f, K):
                return per_cell(groups, lambda cell: all(j in inner for j in cell))
            if isinstance(f, M):
                return per_cell(groups, lambda cell: any(j in inner for j in cell))
            return per_cell(groups, lambda cell: len({j in inner for j in cell}) == 1)
        if isinstance(f, E):
            inner = ext(f.operand)
            result = set(everything)
            for p in f.group:
                result &= per_cell(
                    list(cells[p].values()), lambda cell: all(j in inner for j in cell)
                )
            return result
        if isinstance(f, D):
            inner = ext(f.operand)
            return per_cell(intersections(f.group), lambda cell: all(j in inner for j in cell))
        if isinstance(f, C):
            inner = ext(f.operand)
            return per_cell(components(f.group), lambda cell: all(j in inner for j in cell))
        if isinstance(f, Announce | AnnounceDual):
            said = ext(f.announced)
            sub = [worlds[i] for i in sorted(said)]
            after = evaluate(f.operand, sub, players)
            kept = {i for n, i in enumerate(sorted(said)) if n in after}
            if isinstance(f, Announce):
                return (everything - said) | kept
            return kept
        raise AssertionError(f"no brute-force semantics for {type(f).__name__}")

    return ext(formula)
