"""What does exact reasoning know that a fact list misses? (research question a)

Games: 4 players, 32 cards, publisher rules; two ``knowledge`` (exact) and two
``knowledge:facts`` players, every one of the 6 seatings equally often (game ``i`` uses
seating ``i % 6`` and deal seed ``seed + i``; each player's random choices are seeded by
the game and seat, so a game is replayed from its row).  The mix is chosen so that the
records hold the asks of both kinds of player: a measurement on four exact players alone
would only see the asks exact reasoning makes (``--agents`` measures other sets; four
``knowledge``, four ``knowledge:facts`` and four ``random`` were measured too).

After the deal and after every ask (its answer, the card handed over and any quartet laid
down: ``turn`` = asks so far), for every player P: the cards in the other players' hands
(``hidden``), how many of them P's exact epistemic state locates (:class:`ExactKnowledge`:
the holder has probability 1 over P's possible worlds) and how many P's fact list
locates (:class:`FactKnowledge`, the earlier projects' per-family facts), and how many
the fact list with the hand-size rules locates (:class:`FactKnowledgeWithHands`,
``facts+hands``: full and empty hands, no room to spare, pigeonhole over free places, kept
as facts from event to event).  Checked on every row: exact locates every card
facts+hands locates, and facts+hands every card facts locates, with the same holder, and
all name the true holder.

**What exactness adds.**  Per part (all turns, after 30 asks): the located shares of the
cards in other hands, their differences in percentage points of those cards (exact -
facts, exact - facts+hands, facts+hands - facts), the share of exact's extra cards
(exact - facts) that facts+hands locates, in all and per category below, and the % more
that exact locates than facts+hands; each difference and share with a 95% percentile
interval from resampling whole games.

**Attribution.**  A card located by the exact state and not by the fact list is an
*extra* location; it is attributed once, at the turn it first becomes extra for P (and
keeps that category while it stays extra), to the first of these tests, in this order,
that locates it:

1. ``family``, "the asker holds a card of that family": the public facts about the card's
   own family alone (asks, refusals, no bluffing, moves, exposures; no hand sizes, no
   no-complete-family rule) force it -- exact reasoning inside one family that the fact
   list's unit propagation misses (case splits over the "holds one of" clauses);
2. ``full hand``, "empty or fully known hand": the fact list plus one rule, to a
   fixpoint with the fact list's own propagation: a player whose located cards fill their
   hand (or whose hand is empty) holds no other card, and a player whose possible cards
   number exactly their free places holds all of them;
3. ``pigeonhole``, "pigeonhole between players": 2 plus Hall's counting over sets S of
   two or more of P's opponents (short of all of them): the cards only S's players may
   hold, plus one card for every player Q in S and family with a standing "Q holds one
   of X" clause (X disjoint from those cards), fill S's free places exactly, so S's
   players hold no other card;
4. ``rule``, "the no-complete-family rule": the exact state without the rule's facts
   ("Q does not hold all four of f") does not locate it;
5. ``counting``, "hand-size counting across families": the rest: the hand sizes are
   needed, the rule is not, and rules 2-3 do not suffice (typically one player's count
   with clauses: Q holds a card of each of k families and has k cards, so no other).

1, 4 and 5 are decided by the counting engine on subsets of the record's facts (the
machinery of :func:`~kwartet_epistemic.epistemics.explain.explain`); every test only
adds sound inferences, so a card a test locates is where the exact state puts it (checked).
(With four players and P's own hand known, Hall's count without clauses over two or three
players says nothing rule 2 does not, so rule 3 counts the clauses.)  These tests are
drawn afresh at each turn from that turn's fact list; ``facts+hands`` applies the same
counts (and the one-player count with clauses, which falls under 5 here) after every
event and keeps what they find, so it can locate cards of categories 4 and 5 too.

**Outputs** in ``--out``: ``exact_vs_facts.csv`` (one row per game x turn x player;
``hands`` is the count facts+hands locates, ``recovered_<category>`` how many of the row's
extra cards of that category it locates),
``exact_vs_facts_games.jsonl`` (one line per finished game: its seating and every extra
location at the turn it started, with its category and the size and kinds of its
deletion-minimal explanation; a run started again continues after the games there),
``exact_vs_facts_episodes.csv`` (those locations as a table), ``exact_vs_facts_by_turn.csv``
(per turn: rows, mean hidden / exact / facts / extra / hands per player, extra and
recovered per category),
``exact_vs_facts.png``, ``exact_vs_facts_catalogue.json`` (one worked position per
category, the one with the shortest explanation: game, seed, seating, turn, player,
card, the explanation's sentences, whether they force the location, and the fact list's
view), ``exact_vs_facts_runs.jsonl`` (each run's command, commit, machine, niceness and
load) and ``exact_vs_facts.txt`` (all of that and the headline numbers).

Run: ``nice -n 19 python experiments/exact_vs_facts.py --games 1000 --jobs 2 --out DIR``;
``--quick`` plays 12 games; ``--agents knowledge,knowledge,knowledge,knowledge`` plays
other agents (a folder holds the games of one set of agents); ``--compare DIR ...``
tabulates finished runs side by side (``exact_vs_facts_agents.csv``, ``.txt``).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.agents.agent import make_player
from kwartet_epistemic.agents.knowledge import (
    ExactKnowledge,
    FactKnowledge,
    FactKnowledgeWithHands,
)
from kwartet_epistemic.epistemics.explain import HAND_SIZES, fact_set, facts_force
from kwartet_epistemic.files import atomic_path, drop_torn_last_line, read_csv_rows
from kwartet_epistemic.tournament import arrangements

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

SEATS = ("A", "B", "C", "D")
AGENTS = ("knowledge", "knowledge", "knowledge:facts", "knowledge:facts")
SEATINGS = arrangements(AGENTS)
CATEGORIES = ("family", "full hand", "pigeonhole", "rule", "counting")
TITLES = {
    "family": "one family's facts alone",
    "full hand": "empty or fully known hand",
    "pigeonhole": "pigeonhole between players",
    "rule": "the no-complete-family rule",
    "counting": "hand-size counting across families",
}
EXTRA_COLUMNS = [f"extra_{c.replace(' ', '_')}" for c in CATEGORIES]
RECOVERED_COLUMNS = [f"recovered_{c.replace(' ', '_')}" for c in CATEGORIES]
COLUMNS = [
    "game", "seed", "turn", "player", "hidden", "exact", "facts", "extra",
    *EXTRA_COLUMNS, "hands", *RECOVERED_COLUMNS,
]  # fmt: skip
MAX_ASKS = 2_000


# ----- the counting rules on top of the fact list ------------------------------------


def _free(facts: FactKnowledge, sizes: dict[str, int]) -> dict[str, int]:
    """Each player's hand places not taken by a card the facts locate there."""
    free = dict(sizes)
    for holder in facts.holders():
        if holder in free:
            free[holder] -= 1
    return free


def _open(facts: FactKnowledge) -> list[int]:
    """The cards the facts do not locate (in publisher rules every one is in a hand)."""
    return [c for c, holder in enumerate(facts.holders()) if holder is None]


def full_hand_rule(facts: FactKnowledge, sizes: dict[str, int]) -> bool:
    """One pass of rule 2 (in place); whether it changed anything."""
    changed = False
    free = _free(facts, sizes)
    unplaced = _open(facts)
    for q in facts.players:
        holders = facts.holders()
        possible = [c for c in unplaced if holders[c] is None and q not in facts.lacking(c)]
        if not possible:
            continue
        if free[q] == 0:
            for c in possible:
                facts.learn_lacks(c, q)
            changed = True
        elif free[q] == len(possible):
            for c in possible:
                facts.learn_holder(c, q)
            changed = True
    if changed:
        facts.propagate()
    return changed


def pigeonhole_rule(facts: FactKnowledge, sizes: dict[str, int]) -> bool:
    """One pass of rule 3 (in place); whether it changed anything."""
    changed = False
    players = facts.players
    others = [p for p in players if p != facts.player]  # the own hand is known
    for k in range(2, len(others)):
        for group in itertools.combinations(others, k):
            members = set(group)
            free = _free(facts, sizes)
            unplaced = _open(facts)
            candidates = {c: set(players) - facts.lacking(c) for c in unplaced}
            inside = {c for c in unplaced if candidates[c] <= members}
            demanded: set[int] = set()
            demands = 0
            for clauses in map(facts.clauses, range(facts.view.deck.n_families)):
                for q in group:
                    options = [o for p, o in clauses if p == q and not (o & inside)]
                    if options:  # one card per player and family, outside ``inside``
                        demands += 1
                        demanded |= set().union(*options)
            room = sum(free[q] for q in group)
            if len(inside) + demands != room:
                continue
            for c in unplaced:
                if c in inside or c in demanded:
                    continue
                new = members & candidates[c]
                if new:
                    for q in sorted(new):
                        facts.learn_lacks(c, q)
                    changed = True
            if changed:
                facts.propagate()
                return True
    return changed


def counting_locates(facts: FactKnowledge, sizes: dict[str, int], rules: int) -> list[str | None]:
    """The holders the fact list locates with the first ``rules`` (1 or 2) of the extra
    rules ``full_hand_rule``, ``pigeonhole_rule`` applied to a fixpoint."""
    twin = facts.copy()
    steps = (full_hand_rule, pigeonhole_rule)[:rules]
    while any(step(twin, sizes) for step in steps):
        pass
    return [h if h in sizes else None for h in twin.holders()]


# ----- one game ----------------------------------------------------------------------


@dataclass
class GameResult:
    index: int
    seed: int
    seating: tuple[str, ...]
    rows: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    asks: int = 0
    cpu: float = 0.0


def _category(state: Any, facts: FactKnowledge, sizes: dict[str, int], player: str, c: int,
              where: str, counted: dict[int, list[str | None]]) -> str:  # fmt: skip
    """The first of the five tests (module docstring) that locates card ``c``."""
    base = fact_set(state, player)
    no_rule = frozenset(k for k in base.keys if k[0] != "rule")
    if base.possible_places(no_rule, c) == {where}:
        return "family"
    for rules, name in ((1, "full hand"), (2, "pigeonhole")):
        if rules not in counted:
            counted[rules] = counting_locates(facts, sizes, rules)
        found = counted[rules][c]
        if found is not None:
            if found != where:
                raise AssertionError(f"rule {name} put card {c} with {found}, not {where}")
            return name
    if base.possible_places(no_rule | {HAND_SIZES}, c) != {where}:
        return "rule"
    return "counting"


def play_game(
    index: int,
    seed: int,
    stop: tuple[int, str, str] | None = None,
    seating: Sequence[str] | None = None,
) -> Any:
    """Play game ``index``; measure every turn.  With ``stop = (turn, player, card)``
    return the epistemic state at that turn instead (for the catalogue)."""
    if seating is None:
        seating = SEATINGS[index % len(SEATINGS)]
    seating = tuple(seating)
    game = kw.Game.deal(kw.Deck.piquet(), list(SEATS), seed=seed)
    agents = {
        p: make_player(spec, p, np.random.default_rng([seed, seat]))
        for seat, (p, spec) in enumerate(zip(SEATS, seating, strict=True))
    }
    exact = {p: ExactKnowledge(p) for p in SEATS}
    facts = {p: FactKnowledge(p) for p in SEATS}
    hands = {p: FactKnowledgeWithHands(p) for p in SEATS}
    state = kw.knowledge(game)
    result = GameResult(index, seed, seating)
    category: dict[tuple[str, int], str] = {}  # the open extra locations
    deck = game.deck
    turn = 0
    while True:
        if stop is not None and stop[0] == turn:
            return state
        for p in SEATS:
            view = game.view(p)
            exact[p].update(view)
            facts[p].update(view)
            hands[p].update(view)
            matrix = exact[p].probabilities()
            sizes = dict(view.hand_sizes)
            counted: dict[int, list[str | None]] = {}
            row = {"game": index, "seed": seed, "turn": turn, "player": p}
            counts = dict.fromkeys(CATEGORIES, 0)
            recovered = dict.fromkeys(CATEGORIES, 0)
            hidden = n_exact = n_facts = n_hands = 0
            for q in SEATS:
                if q == p:
                    continue
                for card in game.hand(q):
                    hidden += 1
                    c = card.index
                    holders = np.flatnonzero(matrix[c])
                    by_exact = SEATS[holders[0]] if len(holders) == 1 else None
                    by_facts = facts[p].known_holder(card)
                    by_hands = hands[p].known_holder(card)
                    if any(by not in (None, q) for by in (by_exact, by_facts, by_hands)):
                        raise AssertionError(f"game {index} turn {turn}: {p} misplaces {card}")
                    if by_facts is not None and by_hands is None:
                        raise AssertionError(f"game {index} turn {turn}: facts beat facts+hands")
                    if by_hands is not None and by_exact is None:
                        raise AssertionError(f"game {index} turn {turn}: facts+hands beat exact")
                    n_exact += by_exact is not None
                    n_facts += by_facts is not None
                    n_hands += by_hands is not None
                    if by_exact is not None and by_facts is None:
                        key = (p, c)
                        if key not in category:
                            name = _category(state, facts[p], sizes, p, c, q, counted)
                            category[key] = name
                            why = state.explain(p, card)
                            result.episodes.append({
                                "turn": turn, "player": p, "card": card.code, "holder": q,
                                "category": name, "facts": len(why.facts),
                                "kinds": sorted({fact.kind for fact in why.facts}),
                                "forces": facts_force(state, p, card, why.facts),
                            })  # fmt: skip
                        counts[category[key]] += 1
                        recovered[category[key]] += by_hands is not None
            for key in [k for k in category if k[0] == p]:
                c = key[1]
                holders = np.flatnonzero(matrix[c])
                if len(holders) != 1 or facts[p].known_holder(deck.cards[c]) is not None:
                    del category[key]  # no longer an extra location: a new episode later
            row.update(hidden=hidden, exact=n_exact, facts=n_facts, extra=n_exact - n_facts)
            row.update({f"extra_{k.replace(' ', '_')}": v for k, v in counts.items()})
            row["hands"] = n_hands
            row.update({f"recovered_{k.replace(' ', '_')}": v for k, v in recovered.items()})
            result.rows.append(row)
        if game.is_over or turn >= MAX_ASKS:
            break
        player = game.to_move
        assert player is not None
        game.play(agents[player].choose(game.view(player)))
        turn += 1
    if stop is not None:
        raise ValueError(f"game {index} ended before turn {stop[0]}")
    result.asks = turn
    return result


def _play(task: tuple[int, int, tuple[str, ...]]) -> GameResult:
    cpu = time.process_time()
    index, seed, seating = task
    result = play_game(index, seed, seating=seating)
    assert isinstance(result, GameResult)
    result.cpu = time.process_time() - cpu
    return result


# ----- running, resuming, summing up -------------------------------------------------


def _done(folder: Path) -> dict[int, dict[str, Any]]:
    path = folder / "exact_vs_facts_games.jsonl"
    games: dict[int, dict[str, Any]] = {}
    if path.exists():
        drop_torn_last_line(path)  # a line cut short by a stop: that game is played again
        for line in path.read_text().splitlines():
            if line.strip():
                entry = json.loads(line)
                games[int(entry["game"])] = entry
    return games


def _rows(folder: Path, games: set[int]) -> list[dict[str, Any]]:
    path = folder / "exact_vs_facts.csv"
    return [
        {k: (v if k == "player" else int(v)) for k, v in row.items()}
        for row in read_csv_rows(path)
        if int(row["game"]) in games
    ]


def run(games: int, out: Path, seed: int = 14_000, jobs: int = 1, progress: bool = False,
        agents: Sequence[str] = AGENTS) -> dict[str, Any]:  # fmt: skip
    """Play (or finish) ``games`` games of the four ``agents`` (seat-rotated: game ``i``
    in their ``i % k``-th distinct seating) into ``out`` and write every output; returns
    the headline numbers (what ``run_all.py`` can call)."""
    from kwartet_epistemic.parallel import process_pool

    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    load_start = os.getloadavg()
    done = _done(out)
    csv_path = out / "exact_vs_facts.csv"
    if not done or not csv_path.exists():
        done = {}
        with csv_path.open("w", newline="") as handle:
            csv.DictWriter(handle, COLUMNS).writeheader()
        (out / "exact_vs_facts_games.jsonl").write_text("")
    else:  # drop rows of games not finished in the jsonl (an interrupted write)
        with csv_path.open(newline="") as handle:
            header = next(csv.reader(handle), [])
        if header != COLUMNS:
            raise ValueError(
                f"{csv_path} has the columns of another version of this script (without "
                "the facts+hands counts?): use another --out"
            )
        kept = _rows(out, set(done))
        with atomic_path(csv_path) as temporary, temporary.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS)
            writer.writeheader()
            writer.writerows(kept)
    seatings = arrangements(agents)
    for entry in done.values():
        if sorted(entry["seating"]) != sorted(agents):
            raise ValueError(
                f"{out / 'exact_vs_facts_games.jsonl'} holds games of {' '.join(entry['seating'])}, "
                f"not of {' '.join(agents)}: use another --out"
            )
    tasks = [(i, seed + i, seatings[i % len(seatings)]) for i in range(games) if i not in done]

    def results() -> Iterator[GameResult]:
        if jobs <= 1:
            yield from map(_play, tasks)
            return
        with process_pool(jobs) as pool:
            yield from pool.imap_unordered(_play, tasks)

    game_cpu = 0.0
    for n, result in enumerate(results(), 1):
        with csv_path.open("a", newline="") as handle:
            csv.DictWriter(handle, COLUMNS).writerows(result.rows)
        entry = {"game": result.index, "seed": result.seed, "seating": list(result.seating),
                 "asks": result.asks, "episodes": result.episodes}  # fmt: skip
        with (out / "exact_vs_facts_games.jsonl").open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
        done[result.index] = entry
        game_cpu += result.cpu
        if progress and n % 10 == 0:
            print(f"{n}/{len(tasks)} games ({time.time() - started:.0f} s)", file=sys.stderr)
    meta = {
        "command": " ".join([os.path.basename(sys.executable), *sys.argv]),
        "commit": _commit(),
        "machine": f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "niceness": os.nice(0),
        "load_start": " ".join(f"{x:.2f}" for x in load_start),
        "load_end": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "wall_s": round(time.time() - started),
        "cpu_s_games": round(game_cpu),
        "games_this_run": len(tasks),
    }
    with (out / "exact_vs_facts_runs.jsonl").open("a") as handle:
        handle.write(json.dumps(meta) + "\n")
    return summarise(out, meta)


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True, cwd=Path(__file__).parent).stdout.strip()  # fmt: skip
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, cwd=Path(__file__).parent).stdout  # fmt: skip
        return head + (" (plus uncommitted edits in the work tree)" if dirty.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def by_turn(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per turn: the number of (game, player) rows and the mean per player of each count."""
    keys = ["hidden", "exact", "facts", "extra", "hands", *EXTRA_COLUMNS, *RECOVERED_COLUMNS]
    keys = [k for k in keys if rows and k in rows[0]]  # older runs have no facts+hands counts
    sums: dict[int, list[float]] = {}
    for row in rows:
        acc = sums.setdefault(row["turn"], [0.0] * (len(keys) + 1))
        acc[0] += 1
        for i, k in enumerate(keys, 1):
            acc[i] += row[k]
    table = []
    for turn in sorted(sums):
        acc = sums[turn]
        table.append({"turn": turn, "rows": int(acc[0]),
                      **{k: round(acc[i] / acc[0], 4) for i, k in enumerate(keys, 1)}})  # fmt: skip
    return table


def headline(rows: Sequence[dict[str, Any]], after: int = 30) -> dict[str, Any]:
    """Overall and late (turn > ``after``): % more cards located by exact than by facts
    (sum over rows), the shares located, and each category's share of the extra ones;
    with the facts+hands counts (:func:`hands_numbers`) where the rows have them."""

    def part(selected: Sequence[dict[str, Any]]) -> dict[str, Any]:
        hidden = sum(r["hidden"] for r in selected)
        ex = sum(r["exact"] for r in selected)
        fa = sum(r["facts"] for r in selected)
        extra = ex - fa
        with_hands = hands_numbers(selected) if selected and "hands" in selected[0] else {}
        return {
            "rows": len(selected),
            "exact_share": ex / hidden if hidden else float("nan"),
            "facts_share": fa / hidden if hidden else float("nan"),
            "more_pct": 100 * extra / fa if fa else float("nan"),
            "more_pct_95": _bootstrap_more(selected),
            "categories": {
                c: (
                    sum(r[f"extra_{c.replace(' ', '_')}"] for r in selected) / extra
                    if extra
                    else 0.0
                )
                for c in CATEGORIES
            },
            **with_hands,
        }

    return {"all": part(rows), f"after_{after}": part([r for r in rows if r["turn"] > after])}


POINTS = {
    "exact_minus_facts_pts": ("exact", "facts"),
    "exact_minus_hands_pts": ("exact", "hands"),
    "hands_minus_facts_pts": ("hands", "facts"),
}
"""The differences in located share reported, in percentage points of the cards in
other hands: name -> (minuend, subtrahend)."""


def hands_numbers(rows: Sequence[dict[str, Any]], draws: int = 2000) -> dict[str, Any]:
    """What exactness adds beyond facts+hands, over ``rows`` (sums over rows): the share
    facts+hands locates, the differences of located shares in percentage points
    (:data:`POINTS`), the % of exact's extra cards (exact - facts) that facts+hands
    locates (in all and per category), the % more exact locates than facts+hands; each
    difference and share with a 95% percentile interval, resampling whole games (seeded,
    as :func:`_bootstrap_more`).  None where there is nothing to measure (no extra card;
    an interval from fewer than two games)."""
    per_game: dict[int, np.ndarray] = {}
    for r in rows:
        acc = per_game.setdefault(r["game"], np.zeros(4))
        acc += (r["hidden"], r["exact"], r["facts"], r["hands"])

    def measures(sums: np.ndarray) -> dict[str, np.ndarray]:
        hidden, exact, facts, hands = (sums[..., i] for i in range(4))
        located = {"exact": exact, "facts": facts, "hands": hands}
        out = {
            name: 100 * (located[a] - located[b]) / np.maximum(hidden, 1)
            for name, (a, b) in POINTS.items()
        }
        out["hands_recovered_pct"] = 100 * (hands - facts) / np.maximum(exact - facts, 1)
        out["more_than_hands_pct"] = 100 * (exact - hands) / np.maximum(hands, 1)
        return out

    total = np.array(list(per_game.values())).sum(axis=0)
    numbers: dict[str, Any] = {
        "hands_share": float(total[3] / total[0]) if total[0] else float("nan"),
        **{k: float(v) for k, v in measures(total).items()},
    }
    if total[1] == total[2]:  # no extra card: no share of them to recover
        numbers["hands_recovered_pct"] = None
    names = list(measures(total))
    if len(per_game) < 2:
        numbers.update({f"{k}_95": (None, None) for k in names})
    else:
        # in game order, so that the interval does not depend on the order games finished in
        sums = np.array([per_game[g] for g in sorted(per_game)])
        rng = np.random.default_rng(14)
        picks = rng.integers(0, len(sums), size=(draws, len(sums)))
        resampled = measures(sums[picks].sum(axis=1))
        for k in names:
            low, high = np.percentile(resampled[k], [2.5, 97.5])
            numbers[f"{k}_95"] = (round(float(low), 3), round(float(high), 3))
    numbers["recovered"] = {}
    for c in CATEGORIES:
        name = c.replace(" ", "_")
        extra = sum(r[f"extra_{name}"] for r in rows)
        found = sum(r[f"recovered_{name}"] for r in rows)
        numbers["recovered"][c] = found / extra if extra else None
    return numbers


def _bootstrap_more(rows: Sequence[dict[str, Any]], draws: int = 2000) -> tuple[float, float]:
    """A 95% percentile interval of the % more, resampling whole games (seeded)."""
    per_game: dict[int, list[int]] = {}
    for r in rows:
        acc = per_game.setdefault(r["game"], [0, 0])
        acc[0] += r["exact"]
        acc[1] += r["facts"]
    if len(per_game) < 2:
        return (float("nan"), float("nan"))
    sums = np.array([per_game[g] for g in sorted(per_game)], dtype=float)  # in game order
    rng = np.random.default_rng(14)
    picks = rng.integers(0, len(sums), size=(draws, len(sums)))
    exact, facts = sums[picks, 0].sum(axis=1), sums[picks, 1].sum(axis=1)
    more = 100 * (exact - facts) / np.maximum(facts, 1)
    low, high = np.percentile(more, [2.5, 97.5])
    return (round(float(low), 2), round(float(high), 2))


EPISODE_COLUMNS = ["game", "seed", "turn", "player", "card", "holder", "category", "facts",
                   "kinds", "forces"]  # fmt: skip


def episodes(done: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    """Every extra location at the turn it started, with its category and the size and
    kinds of its deletion-minimal explanation, in game order."""
    return [
        {"game": i, "seed": done[i]["seed"], **e, "kinds": ";".join(e["kinds"])}
        for i in sorted(done)
        for e in done[i]["episodes"]
    ]


def episode_summary(found: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per category: extra locations, games with one, mean explanation size, and the share
    of explanations that use an "ask" fact, a "rule" fact, the hand sizes; all forced."""
    summary = {}
    for c in CATEGORIES:
        mine = [e for e in found if e["category"] == c]
        n = len(mine)
        summary[c] = {
            "episodes": n,
            "games": len({e["game"] for e in mine}),
            "mean_facts": sum(e["facts"] for e in mine) / n if n else float("nan"),
            **{
                f"with_{kind.replace(' ', '_')}": (
                    sum(kind in e["kinds"].split(";") for e in mine) / n if n else float("nan")
                )
                for kind in ("ask", "rule", "hand sizes")
            },
            "all_force": all(e["forces"] for e in mine),
        }
    return summary


def summarise(out: Path, meta: dict[str, Any]) -> dict[str, Any]:
    """Write the by-turn table, the episodes, the figure, the catalogue and the summary."""
    done = _done(out)
    rows = _rows(out, set(done))
    table = by_turn(rows)
    with (out / "exact_vs_facts_by_turn.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(table[0]))
        writer.writeheader()
        writer.writerows(table)
    found = episodes(done)
    with (out / "exact_vs_facts_episodes.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, EPISODE_COLUMNS)
        writer.writeheader()
        writer.writerows(found)
    numbers = headline(rows)
    per_category = episode_summary(found)
    catalogue = build_catalogue(done, found)
    (out / "exact_vs_facts_catalogue.json").write_text(
        json.dumps(catalogue, indent=1, ensure_ascii=False) + "\n"
    )
    figure(table, out / "exact_vs_facts.png", len(done), numbers["all"]["categories"])
    asks = sorted(int(g["asks"]) for g in done.values())
    write_latex(out, len(done), asks, numbers, per_category)
    lines = [
        f"exact_vs_facts: {len(done)} games (4 players, 32 cards, publisher rules; "
        f"seat-rotated {', '.join(sorted(next(iter(done.values()))['seating']))}); asks per game: median {asks[len(asks) // 2]}, "
        f"range {asks[0]}-{asks[-1]}",
        "runs that played these games (exact_vs_facts_runs.jsonl):",
        *(
            "  " + "; ".join(f"{k} {v}" for k, v in json.loads(line).items())
            for line in (out / "exact_vs_facts_runs.jsonl").read_text().splitlines()
            if line.strip() and json.loads(line)["games_this_run"]
        ),
        "",
        "Share of the extra card-turns per category (the category of the test that first "
        "locates the card, see the module docstring):",
    ]
    for part, values in numbers.items():
        lines.append(
            f"{part}: {values['rows']} rows (game x turn x player); located share of the "
            f"cards in other hands: exact {values['exact_share']:.4f}, facts "
            f"{values['facts_share']:.4f}; exact locates {values['more_pct']:.1f}% more "
            f"(95% interval over games {values['more_pct_95'][0]:.1f}-{values['more_pct_95'][1]:.1f})"
        )
        for c in CATEGORIES:
            found = values["recovered"][c]
            lines.append(
                f"    {values['categories'][c]:7.1%}  {TITLES[c]}"
                + ("" if found is None else f" (facts+hands locates {found:.1%} of them)")
            )
        lines += hands_lines(values)
    lines += ["", "Extra locations (episodes) per category and their minimal explanations:"]
    total = sum(v["episodes"] for v in per_category.values())
    for c, v in per_category.items():
        lines.append(
            f"    {c:10} {v['episodes']:6} ({v['episodes'] / total if total else 0:6.1%}) in "
            f"{v['games']} games; mean {v['mean_facts']:.1f} facts; with an ask fact "
            f"{v['with_ask']:.0%}, a rule fact {v['with_rule']:.0%}, the hand sizes "
            f"{v['with_hand_sizes']:.0%}; all force it: {v['all_force']}"
        )
    lines += [
        "",
        "Worked positions (exact_vs_facts_catalogue.json: the shortest explanation of each):",
    ]
    for entry in catalogue:
        if not entry["found"]:
            lines.append(f"  {entry['title']}: none found")
            continue
        lines.append(
            f"  {entry['title']}: game {entry['game']} (seed {entry['seed']}, seats "
            f"{' '.join(entry['seating'])}), after ask {entry['turn']}; {entry['player']} holds "
            f"{' '.join(entry['hand'])}; hand sizes "
            + " ".join(f"{q} {n}" for q, n in entry["hand_sizes"].items())
            + f"; the fact list has {entry['card']} with one of {' '.join(entry['facts_candidates'])}"
        )
        lines += ["    " + line for line in entry["explanation"].splitlines()]
    (out / "exact_vs_facts.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return {"games": len(done), **numbers, "categories": per_category, "meta": meta}


def hands_lines(values: dict[str, Any]) -> list[str]:
    """The facts+hands comparison of one part, for the text summary."""

    def number(name: str, digits: int, unit: str = "") -> str:
        value = values[name]
        low, high = values[f"{name}_95"]
        text = "-" if value is None else f"{value:.{digits}f}{unit}"
        return text + ("" if low is None else f" [{low:.{digits}f}, {high:.{digits}f}]")

    return [
        f"    located share with the hand rules (facts+hands) {values['hands_share']:.4f}; in "
        "percentage points of the cards in other hands [95% interval over games]:",
        f"      exact - facts        {number('exact_minus_facts_pts', 3)}",
        f"      facts+hands - facts  {number('hands_minus_facts_pts', 3)}",
        f"      exact - facts+hands  {number('exact_minus_hands_pts', 3)}",
        f"    facts+hands locates {number('hands_recovered_pct', 1, '%')} of the extra cards "
        f"exact locates beyond facts; exact locates {number('more_than_hands_pct', 2, '%')} "
        "more than facts+hands",
    ]


LATEX_CATEGORIES = {"family": "Family", "full hand": "FullHand", "pigeonhole": "Pigeonhole",
                    "rule": "Rule", "counting": "Counting"}  # fmt: skip


NO_NUMBER = "\\mbox{--}"


def _number_or_dash(value: float | None, digits: int) -> str:
    """``value`` for TeX, or a dash where there is nothing to measure (no extra card in
    a category or part): None.  (The macros are
    set in math mode: the dash goes in a box.)"""
    return NO_NUMBER if value is None else _latex.fmt(value, digits)


def write_latex(out: Path, games: int, asks: Sequence[int], numbers: dict[str, Any],
                per_category: dict[str, dict[str, Any]]) -> Path:  # fmt: skip
    """``exact_vs_facts_numbers.tex``: the paper's macros (``\\kwExact...``): games, asks
    per game, per part (``All``, ``Late`` = after 30 asks) the located shares, the % more
    with its 95% interval and each category's share of the extra card-turns (in %), and
    per category the extra locations (episodes) and games with one.  Beside them the
    facts+hands numbers per part: its located share (``HandsShare``), the differences of
    located shares in percentage points with their 95% intervals (``ExactMinusFactsPts``,
    ``HandsMinusFactsPts``, ``ExactMinusHandsPts``, each with ``CI``), the % of exact's
    extra cards it locates (``HandsRecovered``, ``CI``; per category
    ``Recovered<Category>``) and the % more exact locates than it (``MoreThanHands``,
    ``CI``)."""
    macros: dict[str, str] = {
        "kwExactGames": _latex.fmt(games, 0),
        "kwExactAsksMedian": _latex.fmt(asks[len(asks) // 2], 0),
        "kwExactAsksMin": _latex.fmt(asks[0], 0),
        "kwExactAsksMax": _latex.fmt(asks[-1], 0),
        "kwExactLateAfter": "30",
    }
    for part, name in (("all", "All"), ("after_30", "Late")):
        values = numbers[part]
        macros[f"kwExact{name}Rows"] = _latex.fmt(values["rows"], 0)
        macros[f"kwExact{name}ExactShare"] = _latex.fmt(values["exact_share"], 3)
        macros[f"kwExact{name}FactsShare"] = _latex.fmt(values["facts_share"], 3)
        macros[f"kwExact{name}More"] = _latex.fmt(values["more_pct"], 1)
        low, high = values["more_pct_95"]
        macros[f"kwExact{name}MoreCI"] = _latex.interval(low, high, 1)
        for c, cname in LATEX_CATEGORIES.items():
            macros[f"kwExact{name}Cat{cname}"] = _latex.fmt(100 * values["categories"][c], 1)
        macros[f"kwExact{name}HandsShare"] = _latex.fmt(values["hands_share"], 3)
        for key, mname in (("exact_minus_facts_pts", "ExactMinusFactsPts"),
                           ("hands_minus_facts_pts", "HandsMinusFactsPts"),
                           ("exact_minus_hands_pts", "ExactMinusHandsPts"),
                           ("hands_recovered_pct", "HandsRecovered"),
                           ("more_than_hands_pct", "MoreThanHands")):  # fmt: skip
            # points to 3 decimals: what exactness adds over facts+hands is a few
            # hundredths of a point, which 2 decimals would round away
            digits = {"hands_recovered_pct": 1, "more_than_hands_pct": 2}.get(key, 3)
            macros[f"kwExact{name}{mname}"] = _number_or_dash(values[key], digits)
            low, high = values[f"{key}_95"]
            macros[f"kwExact{name}{mname}CI"] = (
                NO_NUMBER if low is None else _latex.interval(low, high, digits)
            )
        for c, cname in LATEX_CATEGORIES.items():
            share = values["recovered"][c]
            macros[f"kwExact{name}Recovered{cname}"] = _number_or_dash(
                None if share is None else 100 * share, 1
            )
    total = sum(v["episodes"] for v in per_category.values())
    macros["kwExactEpisodes"] = _latex.fmt(total, 0)
    for c, cname in LATEX_CATEGORIES.items():
        v = per_category[c]
        macros[f"kwExactEpisodes{cname}"] = _latex.fmt(v["episodes"], 0)
        macros[f"kwExactEpisodeGames{cname}"] = _latex.fmt(v["games"], 0)
    return _latex.write_numbers(
        out / "exact_vs_facts_numbers.tex", "experiments/exact_vs_facts.py", macros
    )


def build_catalogue(
    done: dict[int, dict[str, Any]], found: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """One worked position per category: of its extra locations the one with the shortest
    explanation (then the earliest game and turn), replayed to that turn and explained."""
    entries = []
    for name in CATEGORIES:
        mine = [e for e in found if e["category"] == name]
        if not mine:
            entries.append({"category": name, "title": TITLES[name], "found": False})
            continue
        spot = min(mine, key=lambda e: (e["facts"], e["game"], e["turn"]))
        game = done[spot["game"]]
        stop = (spot["turn"], spot["player"], spot["card"])
        state = play_game(game["game"], game["seed"], stop, game["seating"])
        why = state.explain(spot["player"], spot["card"])
        entries.append({
            "category": name, "title": TITLES[name], "found": True, "game": game["game"],
            "seed": game["seed"], "seating": game["seating"], "turn": spot["turn"],
            "player": spot["player"], "card": spot["card"], "holder": why.known_holder,
            "hand": [c.code for c in state.source.hand(spot["player"])],
            "hand_sizes": state.source.hand_sizes,
            "explanation": str(why), "kinds": sorted({f.kind for f in why.facts}),
            "true_holder": spot["holder"],
            "facts_candidates": list(_fact_list_of(state, spot["player"]).candidates(spot["card"])),
            "fact_list": _fact_list_view(state, spot["player"]),
            "forces": facts_force(state, spot["player"], spot["card"], why.facts),
        })  # fmt: skip
    return entries


def _fact_list_of(state: Any, player: str) -> FactKnowledge:
    facts = FactKnowledge(player)
    facts.update(state.source.view(player))
    return facts


def _fact_list_view(state: Any, player: str) -> dict[str, Any]:
    """What the player's fact list holds: per player the cards it locates there and its
    standing "holds one of" clauses; the cards it does not locate, with their candidates."""
    facts = _fact_list_of(state, player)
    deck = state.deck
    return {
        "located": {
            q: [deck.cards[c].code for c, h in enumerate(facts.holders()) if h == q]
            for q in state.players
        },
        "clauses": [
            f"{q} holds one of {' '.join(sorted(deck.cards[c].code for c in options))}"
            for family in range(deck.n_families)
            for q, options in facts.clauses(family)
        ],
        "open": {
            deck.cards[c].code: list(facts.candidates(deck.cards[c]))
            for c, h in enumerate(facts.holders())
            if h is None
        },
    }


def figure(
    table: Sequence[dict[str, Any]], path: Path, games: int, shares: dict[str, float]
) -> None:
    """Per turn: the located shares, the % more, and the extra locations by category
    (``shares``: each category's share of all extra card-turns, for the legend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [r for r in table if r["rows"] >= max(1.0, 0.05 * table[0]["rows"])]
    turns = [r["turn"] for r in shown]
    with _latex.paper_style():
        fig, (top, middle, bottom) = plt.subplots(
            3, 1, figsize=(_latex.TEXT_WIDTH_IN, 5.6), sharex=True,
            gridspec_kw={"height_ratios": [3, 2, 3.4]},
        )  # fmt: skip

        def share(r: dict[str, Any], k: str) -> float:
            return r[k] / r["hidden"] if r["hidden"] else np.nan

        top.plot(turns, [share(r, "exact") for r in shown], label="exact epistemic state")
        top.plot(turns, [share(r, "facts") for r in shown], label="fact list")
        if "hands" in shown[0]:
            top.plot(turns, [share(r, "hands") for r in shown], label="fact list + hand sizes",
                     linestyle="--")  # fmt: skip
        top.set_ylabel("share of the cards\nin other hands located")
        top.set_ylim(0, 1)
        top.legend(loc="upper left")
        top.set_title(f"{games} games: exact state against the fact lists")
        middle.plot(
            turns,
            [100 * r["extra"] / r["facts"] if r["facts"] else np.nan for r in shown],
            color="black",
            label="than the fact list",
        )
        if "hands" in shown[0]:
            middle.plot(
                turns,
                [100 * (r["exact"] - r["hands"]) / r["hands"] if r["hands"] else np.nan
                 for r in shown],
                color="black", linestyle="--", label="than the fact list + hand sizes",
            )  # fmt: skip
            middle.legend(loc="upper left")
        middle.set_ylabel("exact locates\n% more")
        middle.set_ylim(bottom=0)
        middle.grid(alpha=0.3)
        base = np.zeros(len(shown))
        for c in CATEGORIES:
            values = np.array([r[f"extra_{c.replace(' ', '_')}"] for r in shown])
            label = f"{TITLES[c]} ({shares.get(c, 0.0):.0%})"
            bottom.fill_between(turns, base, base + values, label=label)
            base = base + values
        # room for the legend above the data
        bottom.set_ylim(0, 2.3 * max(base.max(initial=0.0), 0.01))
        bottom.set_ylabel("extra cards located\nper player")
        bottom.set_xlabel("asks so far (means over the games still going)")
        bottom.legend(loc="upper left", title="first test that locates it")
        fig.savefig(path, dpi=150)
        fig.savefig(path.with_suffix(".pdf"))
    plt.close(fig)


def compare(folders: Sequence[Path], out: Path) -> list[dict[str, Any]]:
    """One row per folder (a set of agents): games, the % more with its 95% interval
    overall and after 30 asks, each category's share of the extra card-turns; written to
    ``out/exact_vs_facts_agents.csv`` and ``.txt`` (the folders' outputs as they are)."""
    table = []
    for folder in folders:
        done = _done(folder)
        if not done:
            raise ValueError(f"{folder}: no finished games (exact_vs_facts_games.jsonl)")
        numbers = headline(_rows(folder, set(done)))
        row: dict[str, Any] = {
            "agents": " ".join(sorted(next(iter(done.values()))["seating"])),
            "games": len(done),
        }
        for part, values in numbers.items():
            row[f"{part}_more_pct"] = round(values["more_pct"], 2)
            row[f"{part}_more_low"], row[f"{part}_more_high"] = values["more_pct_95"]
            row[f"{part}_exact_share"] = round(values["exact_share"], 4)
            row[f"{part}_facts_share"] = round(values["facts_share"], 4)
            for c in CATEGORIES:
                row[f"{part}_{c.replace(' ', '_')}"] = round(values["categories"][c], 4)
            if "hands_share" in values:  # runs made before facts+hands was measured lack it
                row[f"{part}_hands_share"] = round(values["hands_share"], 4)
                for key in ("exact_minus_hands_pts", "hands_recovered_pct"):
                    row[f"{part}_{key}"] = None if values[key] is None else round(values[key], 3)
                    row[f"{part}_{key}_low"], row[f"{part}_{key}_high"] = values[f"{key}_95"]
        table.append(row)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "exact_vs_facts_agents.csv").open("w", newline="") as handle:
        # runs made before facts+hands was measured have fewer columns: left empty
        writer = csv.DictWriter(handle, list(dict.fromkeys(k for row in table for k in row)))
        writer.writeheader()
        writer.writerows(table)
    lines = [
        "exact_vs_facts by set of agents (seat-rotated): % more cards located by the exact "
        "state than by the fact list [95% interval over games]; share of the extra card-turns "
        "per category (" + ", ".join(CATEGORIES) + ")",
        "from " + ", ".join(str(f) for f in folders),
        "",
    ]
    for row in table:
        lines.append(f"{row['agents']}: {row['games']} games")
        for part in ("all", "after_30"):
            shares = " ".join(f"{row[f'{part}_' + c.replace(' ', '_')]:.1%}" for c in CATEGORIES)
            lines.append(
                f"    {part:8} {row[f'{part}_more_pct']:5.1f}% more "
                f"[{row[f'{part}_more_low']:.1f}, {row[f'{part}_more_high']:.1f}]; "
                f"located exact {row[f'{part}_exact_share']:.3f}, facts "
                f"{row[f'{part}_facts_share']:.3f}; categories {shares}"
            )
            if f"{part}_hands_share" in row:
                lines.append(
                    f"             facts+hands {row[f'{part}_hands_share']:.3f}: exact - "
                    f"facts+hands {row[f'{part}_exact_minus_hands_pts']:.2f} points "
                    f"[{row[f'{part}_exact_minus_hands_pts_low']:.2f}, "
                    f"{row[f'{part}_exact_minus_hands_pts_high']:.2f}]; it locates "
                    + (
                        "-" if row[f"{part}_hands_recovered_pct"] is None
                        else f"{row[f'{part}_hands_recovered_pct']:.1f}%"
                    )
                    + " of exact's extra cards"
                )  # fmt: skip
    (out / "exact_vs_facts_agents.txt").write_text("\n".join(lines) + "\n")
    agents_table(table, out)
    print("\n".join(lines))
    return table


def _agents_cell(agents: str) -> str:
    """``knowledge knowledge knowledge:facts knowledge:facts`` as ``2 knowledge, 2
    knowledge:facts`` in typewriter type, for a table cell."""
    counts: dict[str, int] = {}
    for name in agents.split():
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{n} \\texttt{{{_latex.escape(a)}}}" for a, n in counts.items())


def agents_table(table: Sequence[dict[str, Any]], out: Path) -> Path:
    """``exact_vs_facts_agents_table.tex``: the comparison's rows (as :func:`compare` makes
    them, or as read back from ``exact_vs_facts_agents.csv``) as a booktabs table body."""
    return _latex.write_table(
        out / "exact_vs_facts_agents_table.tex",
        "experiments/exact_vs_facts.py --compare",
        ["agents", "games", "\\% more", "95\\%", "after 30 asks", "95\\%"],
        [
            [
                _agents_cell(str(row["agents"])),
                _latex.fmt(int(row["games"]), 0),
                _latex.fmt(float(row["all_more_pct"]), 1),
                _latex.interval(float(row["all_more_low"]), float(row["all_more_high"]), 1),
                _latex.fmt(float(row["after_30_more_pct"]), 1),
                _latex.interval(
                    float(row["after_30_more_low"]), float(row["after_30_more_high"]), 1
                ),
            ]
            for row in table
        ],
    )


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--quick", action="store_true", help="12 games (CI)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=14_000)
    parser.add_argument("--out", default="exact_vs_facts_results")
    parser.add_argument("--progress", action="store_true")
    parser.add_argument(
        "--agents",
        default=",".join(AGENTS),
        help="four agent specs, comma-separated (default: %(default)s)",
    )
    parser.add_argument(
        "--compare",
        nargs="+",
        metavar="DIR",
        help="only tabulate finished runs (one folder per set of agents) into --out",
    )
    parser.add_argument(
        "--agents-table",
        metavar="CSV",
        help="only write exact_vs_facts_agents_table.tex into --out from a saved "
        "exact_vs_facts_agents.csv",
    )
    args = parser.parse_args(argv)
    if args.agents_table:
        with open(args.agents_table, newline="") as handle:
            saved = list(csv.DictReader(handle))
        return {"table": str(agents_table(saved, Path(args.out)))}
    if args.compare:
        return {"agents": compare([Path(f) for f in args.compare], Path(args.out))}
    agents = tuple(a.strip() for a in args.agents.split(","))
    if len(agents) != len(SEATS):
        parser.error(f"--agents {args.agents!r}: expected four specs, comma-separated")
    games = 12 if args.quick else args.games
    return run(
        games, Path(args.out), seed=args.seed, jobs=args.jobs, progress=args.progress, agents=agents
    )


if __name__ == "__main__":
    main()
