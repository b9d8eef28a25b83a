"""The strength ladder (research question b): every kind of player on one rating scale.

**Roster.**  ``random``; hand-only knowledge (``knowledge:hand``: the knowledge policy on
the own hand and the table as it lies, no memory of the record); the earlier projects'
strategies on fact lists (``owner:facts``, ``defensive:facts``, ``aggressive:facts``,
``greedy:facts``, ``silent:facts``, ``mixed:facts``); ``knowledge:facts`` and
``knowledge`` (exact); for the knowledge effect also ``owner``, ``defensive`` and
``greedy`` with exact knowledge; ``higher_order``; ``search`` (default settings);
OpenSpiel's ISMCTS at a fixed number of simulations per decision
(``openspiel:ismcts[simulations=N]``, default 25: a simulation budget, not a time budget,
so that the games replay on any machine); and the RL baseline ``ppo``: sb3-contrib's
MaskablePPO trained inside this run (seeded, ``--ppo-timesteps`` steps, default 20,480)
in :class:`~kwartet_epistemic.interop.environments.KwartetGymEnv`'s full game (4 players, 32 cards,
every seat in turn) against three ``defensive:facts``, observing its exact location
probabilities, as ``experiments/rl_baseline.py`` trains it; at the table it samples its
ask from its policy with the referee's random numbers for its seat.  The model stays in
memory (nothing is saved or loaded), so its games run in this process.

**Matches.**  Publisher rules, 4 players, 32 cards.  Every game seats two agents, two
seats each (``a, a, b, b``), in one of the six distinct seatings, each used equally often
(a pair's games are a multiple of 6): game ``k`` of a pair plays seating ``k mod 6``
(:func:`kwartet_epistemic.tournament.arrangements`) with a deal seed drawn from the run
seed, the pair's names and ``k``, so any game replays from its row.  The cheap agents play
a full round robin (``--games`` per pair, default 240); ``search``, ISMCTS and ``ppo`` play
only some opponents (:data:`SEARCH_OPPONENTS`, :data:`ISMCTS_OPPONENTS`,
:data:`PPO_OPPONENTS`: ``ppo`` meets every round-robin agent) with their own numbers of
games (``--search-games`` 96, ``--ismcts-games`` 36, ``--ppo-games`` 60), because a game
with two ``search`` seats costs ~0.2 CPU s and one with two ISMCTS seats (25 simulations
a decision) ~0.5 s, where a round-robin game costs ~0.007 s.  The full run (23,568 games)
took about 11 CPU minutes: 494 s in the games, 78 s training ``ppo``, the rest fitting,
starting processes and games played beyond these sizes by a first, stopped run.

**Model.**  Bradley-Terry on games: agent ``a``'s result in a game is its share of the
win (the two seats' shares summed; a win shared with the other agent's seat is split), and
``P(a beats b) = 1 / (1 + exp(r_b - r_a))``.  The ratings ``r`` maximise the likelihood
``sum s log p + (1 - s) log(1 - p)`` over games (fractional ``s`` allowed), by Newton's
method with ``random`` fixed at 0, plus a tenth of a virtual drawn game per pair played
(a twentieth of a win each way), which keeps the estimate finite when a resampled agent
never wins against any opponent; in the full run it moves the ratings by about 1 Elo
point (``ppo``'s by 2) against the plain maximum-likelihood fit.  Ratings are
printed on the Elo scale (``400 / ln 10`` times ``r``: 200 points mean a 76% chance of the
better agent winning a game).  95% intervals: percentile bootstrap over games (every
pair's games resampled with replacement, ``--bootstrap`` fits, default 1000); the Fisher
information's standard errors are given beside them as a check.  The model's fit: the
predicted share of every pair against its observed share with its 95% interval
(:func:`kwartet_epistemic.tournament.share_interval`).

**Knowledge against policy.**  For ``knowledge``, ``defensive``, ``greedy`` and ``owner``
each played with fact lists and with exact knowledge (``knowledge`` also hand-only), the
rating difference exact minus facts is the knowledge effect with the policy held fixed;
policy effects hold the knowledge fixed (e.g. ``knowledge:facts`` minus ``greedy:facts``).
Their intervals come from the same bootstrap fits.  (Every interval of a rating is
against ``random``, the anchor: two agents near the top share most of that uncertainty,
so their difference is known better than the two intervals suggest; the tables give
differences with their own intervals.)

**Outputs** (``--out``): ``ladder.csv`` (one row per game, appended whole as games finish:
a stopped run resumes and loses nothing written), ``ladder_ratings.csv``,
``ladder_pairs.csv``, ``ladder.png`` / ``ladder.pdf`` (ratings with intervals, sorted),
``ladder_numbers.tex`` (``\\kwLadder...``), ``ladder_table.tex`` (the ratings) and
``ladder_knowledge_table.tex`` (knowledge against policy).  A folder that holds only
``ladder.csv.gz`` (as ``paper/measurements`` does) is unpacked first and resumed from.

Run: ``nice -n 10 python experiments/ladder.py --jobs 2 --out paper/measurements``
(``--quick``: a few games with fewer agents, the CI check of the machinery).
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import os
import sys
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.files import LineAppender, complete_lines, drop_torn_last_line
from kwartet_epistemic.tournament import SEAT_NAMES, arrangements, play_game, share_interval

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

SCRIPT = "experiments/ladder.py"
ELO = 400.0 / math.log(10.0)
ANCHOR = "random"
PPO = "ppo"

CHEAP = (
    "random", "knowledge:hand",
    "owner:facts", "defensive:facts", "aggressive:facts", "greedy:facts", "silent:facts",
    "mixed:facts",
    "knowledge:facts", "knowledge", "owner", "defensive", "greedy", "higher_order",
)  # fmt: skip
"""The round robin: every pair of these plays ``--games`` games."""

SEARCH = "search"
SEARCH_OPPONENTS = (
    "random", "knowledge:hand", "defensive:facts", "greedy:facts", "knowledge:facts",
    "knowledge", "higher_order",
)  # fmt: skip
ISMCTS_OPPONENTS = (
    "random", "knowledge:hand", "owner:facts", "defensive:facts", "knowledge:facts",
    "knowledge",
)  # fmt: skip
PPO_OPPONENTS = CHEAP

KNOWLEDGE_POLICIES = ("knowledge", "defensive", "greedy", "owner")
"""Policies played with more than one kind of knowledge (the knowledge table's rows)."""

POLICY_CONTRASTS = (
    ("knowledge:facts", "greedy:facts"),
    ("knowledge:facts", "defensive:facts"),
    ("knowledge", "greedy"),
    ("knowledge", "defensive"),
    ("higher_order", "knowledge"),
    ("search", "knowledge"),
)
"""Policy effects at fixed knowledge: (better policy, other policy), same knowledge."""


def ismcts_spec(simulations: int) -> str:
    return f"openspiel:ismcts[simulations={simulations}]"


@dataclass(frozen=True)
class Pair:
    """Two agents and the number of games they play (a multiple of 6)."""

    a: str
    b: str
    games: int


def schedule(
    cheap: Sequence[str],
    games: int,
    extras: Sequence[tuple[str, Sequence[str], int]] = (),
) -> list[Pair]:
    """The pairs: every two of ``cheap`` with ``games`` games, then each extra agent
    against its opponents (those in ``cheap``) with its own number of games; numbers of
    games are rounded up to multiples of 6 (the seatings of ``a, a, b, b``).

    >>> [(p.a, p.b, p.games) for p in schedule(["random", "greedy", "owner"], 5)]
    [('random', 'greedy', 6), ('random', 'owner', 6), ('greedy', 'owner', 6)]
    >>> len(schedule(["random", "greedy"], 6, [("search", ["random", "x"], 12)]))
    2
    """
    rounded = lambda n: -(-n // 6) * 6  # noqa: E731
    pairs = [
        Pair(a, b, rounded(games)) for i, a in enumerate(cheap) for b in cheap[i + 1 :] if games
    ]
    for agent, opponents, n in extras:
        pairs += [Pair(agent, b, rounded(n)) for b in opponents if b in cheap and n > 0]
    return pairs


def game_seed(seed: int, a: str, b: str, k: int) -> int:
    """The deal seed of game ``k`` of the pair ``(a, b)``: from the run seed and the
    pair's names (not its place in the schedule, so the roster can grow).

    >>> game_seed(1, "random", "greedy", 0) == game_seed(1, "random", "greedy", 0)
    True
    >>> game_seed(1, "random", "greedy", 0) != game_seed(1, "random", "greedy", 1)
    True
    """
    key = (zlib.crc32(a.encode()), zlib.crc32(b.encode()), k)
    sequence = np.random.SeedSequence(entropy=seed, spawn_key=key)
    return int(sequence.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))


def tasks_of(pair: Pair, seed: int) -> list[tuple[str, str, int, int, tuple[str, ...]]]:
    """(a, b, k, deal seed, seating) for every game of ``pair``."""
    seatings = arrangements([pair.a, pair.a, pair.b, pair.b])
    return [
        (pair.a, pair.b, k, game_seed(seed, pair.a, pair.b, k), seatings[k % len(seatings)])
        for k in range(pair.games)
    ]


# ----- playing and storing games -------------------------------------------------------

COLUMNS = (
    ["a", "b", "game", "seed"]
    + [f"agent_{s}" for s in SEAT_NAMES[:4]]
    + [f"score_{s}" for s in SEAT_NAMES[:4]]
    + ["winners", "asks", "finished", "share_a", "cpu_s", "run_seed"]
)


@dataclass(frozen=True)
class Row:
    """One finished game of a pair: ``share_a`` is agent ``a``'s share of the win (its two
    seats' shares summed), ``1 - share_a`` is ``b``'s."""

    a: str
    b: str
    game: int
    seed: int
    agents: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[str, ...]
    asks: int
    finished: bool
    share_a: float
    cpu_s: float


def play(task: tuple[str, str, int, int, tuple[str, ...]]) -> Row:
    """Play one scheduled game (publisher rules, 32 cards)."""
    a, b, k, seed, seating = task
    start = time.process_time()
    result = play_game(seating, seed, game_index=k)
    share = sum(result.share(s) for s, agent in enumerate(seating) if agent == a)
    return Row(
        a, b, k, seed, result.agents, result.scores, result.winners, result.asks,
        result.finished, share, time.process_time() - start,
    )  # fmt: skip


def play_chunk(tasks: list[tuple[str, str, int, int, tuple[str, ...]]]) -> list[Row]:
    """A worker's games."""
    return [play(task) for task in tasks]


def _line(row: Row, run_seed: int) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer).writerow(
        [row.a, row.b, row.game, row.seed, *row.agents, *row.scores, " ".join(row.winners),
         row.asks, int(row.finished), repr(row.share_a), f"{row.cpu_s:.4f}", run_seed]
    )  # fmt: skip
    return buffer.getvalue().encode("utf-8")


def read_rows(path: Path, run_seed: int) -> dict[tuple[str, str, int], Row]:
    """The games stored in ``path`` (a torn last line left out); refuses a file of
    another run seed or another layout."""
    if not path.exists() or path.stat().st_size == 0:
        return {}
    text = complete_lines(path.read_bytes()).decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    if not rows:
        return {}
    if rows[0] != COLUMNS:
        raise KwartetError(f"{path}: not a ladder games file (its header differs)")
    done: dict[tuple[str, str, int], Row] = {}
    for line, fields in enumerate(rows[1:], start=2):
        record = dict(zip(COLUMNS, fields, strict=True))
        if int(record["run_seed"]) != run_seed:
            raise KwartetError(
                f"{path}, line {line}: a game of run seed {record['run_seed']}, not "
                f"{run_seed}; choose another --out folder or the same --seed to resume"
            )
        row = Row(
            record["a"], record["b"], int(record["game"]), int(record["seed"]),
            tuple(record[f"agent_{s}"] for s in SEAT_NAMES[:4]),
            tuple(int(record[f"score_{s}"]) for s in SEAT_NAMES[:4]),
            tuple(record["winners"].split()), int(record["asks"]), record["finished"] == "1",
            float(record["share_a"]), float(record["cpu_s"]),
        )  # fmt: skip
        done[(row.a, row.b, row.game)] = row
    return done


def run_games(
    tasks: list[tuple[str, str, int, int, tuple[str, ...]]],
    jobs: int,
    write: Callable[[Row], None],
) -> None:
    """Play ``tasks`` (in ``jobs`` worker processes when ``jobs > 1``), handing each row
    to ``write`` as its game finishes."""
    if not tasks:
        return
    if jobs == 1:
        for task in tasks:
            write(play(task))
        return
    from concurrent.futures import as_completed

    from kwartet_epistemic.parallel import process_executor

    # Small chunks of one pair each, the expensive pairs first, so that the two
    # workers finish together.
    chunks = [tasks[i : i + 6] for i in range(0, len(tasks), 6)]
    pool = process_executor(jobs)
    try:
        for future in as_completed([pool.submit(play_chunk, chunk) for chunk in chunks]):
            for row in future.result():
                write(row)
    finally:  # stopped early (an error, Ctrl-C): drop the games not started
        pool.shutdown(wait=False, cancel_futures=True)


# ----- the RL baseline as a player ----------------------------------------------------


def train_ppo(timesteps: int, seed: int) -> Any:
    """MaskablePPO trained as ``experiments/rl_baseline.py`` trains it, in the full game
    against three ``defensive:facts``, observing its exact knowledge (in memory only)."""
    import torch
    from sb3_contrib import MaskablePPO

    from kwartet_epistemic.interop.environments import KwartetGymEnv

    torch.set_num_threads(1)
    env = KwartetGymEnv(
        players=4, deck=kw.Deck.piquet(), opponents="defensive:facts", observation="knowledge"
    )
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=512, batch_size=64, n_epochs=10, learning_rate=3e-4,
        gamma=1.0, ent_coef=0.01, policy_kwargs={"net_arch": [128, 128]}, seed=seed,
        device="cpu",
    )  # fmt: skip
    model.learn(timesteps)
    return model


class _ViewOnly:
    """What the environment's feature code asks of a game: the seat's view."""

    def __init__(self, view: kw.PlayerView) -> None:
        self._view = view

    def view(self, seat: str) -> kw.PlayerView:
        return self._view


class PPOPlayer:
    """A trained MaskablePPO policy at the referee's table: it sees only its view, builds
    the observation the policy was trained on (the environment's own feature code) and
    samples a legal ask from the policy's masked distribution with its own generator."""

    def __init__(self, model: Any, player: str, rng: np.random.Generator) -> None:
        from kwartet_epistemic.agents.knowledge import make_knowledge
        from kwartet_epistemic.interop.encoding import RecordPlanes
        from kwartet_epistemic.interop.environments import KwartetGymEnv

        self.model, self.player, self.rng = model, player, rng
        env = model.get_env().envs[0].unwrapped
        assert isinstance(env, KwartetGymEnv)
        self.table = env.layout  # the observation layout the policy was trained on
        self.kind = env.observation_kind
        self.record = RecordPlanes(env.deck, env.seats)
        self.knowledge = make_knowledge("exact", player) if self.kind != "raw" else None

    def observe(self, view: kw.PlayerView) -> np.ndarray:
        """The observation vector the policy was trained on, from the view alone."""
        return self.table.features(
            _ViewOnly(view),  # type: ignore[arg-type]  # it reads only game.view(seat)
            self.player, self.kind, self.record, self.knowledge,
        )  # fmt: skip

    def choose(self, view: kw.PlayerView) -> kw.Ask:
        import torch

        asks = view.legal_asks()
        features = self.observe(view)
        mask = np.zeros(self.table.n_actions, dtype=bool)
        codes = [self.table.encode(ask) for ask in asks]
        mask[codes] = True
        with torch.no_grad():
            tensor = torch.as_tensor(features[None, :])
            distribution = self.model.policy.get_distribution(tensor, action_masks=mask[None, :])
            probs = distribution.distribution.probs[0].numpy().astype(float)
        chances = probs[codes]
        chances /= chances.sum()
        return asks[int(self.rng.choice(len(asks), p=chances))]


def register_ppo(model: Any) -> None:
    """Make the spec ``ppo`` play ``model`` (in this process only)."""
    from kwartet_epistemic.agents import register_player

    register_player(PPO, lambda player, rng: PPOPlayer(model, player, rng), replace=True)


# ----- Bradley-Terry ------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    """Ratings (natural units, ``anchor`` at 0) and the Fisher standard errors."""

    agents: tuple[str, ...]
    ratings: np.ndarray
    stderr: np.ndarray
    iterations: int


def fit_bradley_terry(
    agents: Sequence[str],
    wins: dict[tuple[str, str], tuple[float, float]],
    anchor: str = ANCHOR,
    prior: float = 0.1,
) -> Fit:
    """Maximum-likelihood Bradley-Terry ratings from ``wins[(a, b)] = (a's total share,
    games)`` by Newton's method, ``anchor`` fixed at 0; ``prior`` virtual drawn games are
    added to every pair.

    >>> fit = fit_bradley_terry(["x", "y"], {("x", "y"): (30.0, 40.0)}, anchor="x", prior=0)
    >>> round(float(fit.ratings[1]), 6) == round(math.log(10 / 30), 6)
    True
    >>> fit_bradley_terry(["x", "y", "z"], {("x", "y"): (1.0, 2.0)}, anchor="x")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.KwartetError: Bradley-Terry: z played no game linked to x
    """
    index = {a: i for i, a in enumerate(agents)}
    n = len(agents)
    first = np.array([index[a] for a, _ in wins])
    second = np.array([index[b] for _, b in wins])
    won = np.array([w for w, _ in wins.values()], dtype=float) + prior / 2
    games = np.array([g for _, g in wins.values()], dtype=float) + prior
    linked = {index[anchor]}
    grew = True
    while grew:
        grew = False
        for i, j in zip(first, second, strict=True):
            if (i in linked) != (j in linked):
                linked |= {int(i), int(j)}
                grew = True
    for agent in agents:
        if index[agent] not in linked:
            raise KwartetError(f"Bradley-Terry: {agent} played no game linked to {anchor}")
    free = np.array([i for i in range(n) if i != index[anchor]])
    r = np.zeros(n)

    def loglik(x: np.ndarray) -> float:
        d = x[first] - x[second]
        return float(np.sum(-won * np.logaddexp(0, -d) - (games - won) * np.logaddexp(0, d)))

    def chance(x: np.ndarray) -> np.ndarray:
        """Per pair, the chance that its first agent wins a game at ratings ``x``."""
        return 1.0 / (1.0 + np.exp(-(x[first] - x[second])))

    def information(p: np.ndarray) -> np.ndarray:
        """The Fisher information (minus the log-likelihood's Hessian) at chances ``p``."""
        weight = games * p * (1 - p)
        hess = np.zeros((n, n))
        np.add.at(hess, (first, first), weight)
        np.add.at(hess, (second, second), weight)
        np.add.at(hess, (first, second), -weight)
        np.add.at(hess, (second, first), -weight)
        return hess

    iterations = 0
    while iterations < 200:
        iterations += 1
        p = chance(r)
        residual = won - games * p
        grad = np.zeros(n)
        np.add.at(grad, first, residual)
        np.add.at(grad, second, -residual)
        hess = information(p)
        step = np.zeros(n)
        step[free] = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        now, scale = loglik(r), 1.0
        while loglik(r + scale * step) < now - 1e-12 and scale > 1e-6:
            scale /= 2
        r = r + scale * step
        if float(np.max(np.abs(scale * step))) < 1e-10:
            break
    hess = information(chance(r))
    stderr = np.zeros(n)
    stderr[free] = np.sqrt(np.diag(np.linalg.inv(hess[np.ix_(free, free)])))
    return Fit(tuple(agents), r, stderr, iterations)


def pair_shares(rows: Iterable[Row]) -> dict[tuple[str, str], np.ndarray]:
    """Each pair's per-game shares of its first agent, in game order."""
    grouped: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for row in rows:
        grouped.setdefault((row.a, row.b), []).append((row.game, row.share_a))
    return {k: np.array([s for _, s in sorted(v)]) for k, v in grouped.items()}


def bootstrap(
    agents: Sequence[str],
    shares: dict[tuple[str, str], np.ndarray],
    fits: int,
    seed: int,
    anchor: str = ANCHOR,
) -> np.ndarray:
    """``fits`` x agents ratings, each fitted to every pair's games resampled with
    replacement."""
    rng = np.random.default_rng(seed)
    out = np.zeros((fits, len(agents)))
    for k in range(fits):
        wins = {}
        for pair, values in shares.items():
            pick = rng.integers(0, len(values), len(values))
            wins[pair] = (float(values[pick].sum()), float(len(values)))
        out[k] = fit_bradley_terry(agents, wins, anchor).ratings
    return out


# ----- the run ------------------------------------------------------------------------


def roster(args: argparse.Namespace) -> tuple[list[str], list[Pair]]:
    """The agents (in roster order) and the pairs of this run's settings."""
    cheap = list(CHEAP[:4]) if args.quick else list(args.agents)
    extras: list[tuple[str, Sequence[str], int]] = []
    if args.search_games:
        extras.append((SEARCH, SEARCH_OPPONENTS, args.search_games))
    if args.ismcts_games:
        extras.append((ismcts_spec(args.ismcts_simulations), ISMCTS_OPPONENTS, args.ismcts_games))
    if args.ppo_games:
        extras.append((PPO, PPO_OPPONENTS, args.ppo_games))
    pairs = schedule(cheap, args.games, extras)
    agents = list(dict.fromkeys([*cheap, *(p.b for p in pairs), *(p.a for p in pairs)]))
    return agents, pairs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=240, help="games per round-robin pair")
    parser.add_argument("--search-games", type=int, default=96)
    parser.add_argument("--ismcts-games", type=int, default=36)
    parser.add_argument("--ismcts-simulations", type=int, default=25)
    parser.add_argument("--ppo-games", type=int, default=60)
    parser.add_argument("--ppo-timesteps", type=int, default=20480)
    parser.add_argument("--bootstrap", type=int, default=1000)
    parser.add_argument(
        "--agents", default=",".join(CHEAP), help="the round robin's agents, comma-separated"
    )
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", default="ladder_results")
    parser.add_argument(
        "--quick", action="store_true",
        help="4 round-robin agents, 6 games a pair, search and an untrained ppo (the CI check)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.search_games, args.ismcts_games = 6, 6, 0
        args.ppo_games, args.ppo_timesteps, args.bootstrap = 6, 0, 50  # ppo untrained
    for name in ("games", "search_games", "ismcts_games", "ppo_games", "ppo_timesteps"):
        if getattr(args, name) < 0:
            parser.error(f"--{name.replace('_', '-')}: expected a whole number >= 0")
    if args.ismcts_simulations < 2 or args.bootstrap < 10 or args.jobs < 1:
        parser.error("--ismcts-simulations >= 2, --bootstrap >= 10 and --jobs >= 1 expected")
    args.agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    if ANCHOR not in args.agents or len(set(args.agents)) != len(args.agents):
        parser.error(f"--agents: expected distinct specs, {ANCHOR!r} among them (the anchor)")
    from kwartet_epistemic.agents.agent import make_player

    for spec in args.agents:
        make_player(spec, "A", np.random.default_rng(0))  # a bad spec stops the run here
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ladder.csv"
    agents, pairs = roster(args)
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    loads = [os.getloadavg()[0]]
    packed = path.with_name(path.name + ".gz")
    if not path.exists() and packed.exists():  # the stored measurement: unpack, then resume
        import gzip

        from kwartet_epistemic.files import atomic_write_bytes

        atomic_write_bytes(path, gzip.decompress(packed.read_bytes()))
        print(f"(unpacked {packed} into {path})")
    done = read_rows(path, args.seed)
    if path.exists():
        drop_torn_last_line(path)
    new = not path.exists() or path.stat().st_size == 0
    out = LineAppender(path)
    if new:
        buffer = io.StringIO()
        csv.writer(buffer).writerow(COLUMNS)
        out.append(buffer.getvalue().encode("utf-8"))
    todo = [t for p in pairs for t in tasks_of(p, args.seed) if t[:3] not in done]
    before = sum(1 for p in pairs for t in tasks_of(p, args.seed) if t[:3] in done)
    print(
        f"$ python {SCRIPT} {' '.join(argv if argv is not None else sys.argv[1:])}\n"
        f"{len(agents)} agents, {len(pairs)} pairs, {sum(p.games for p in pairs)} games "
        f"({before} done before this run, {len(todo)} to play)",
        flush=True,
    )

    pooled = [0.0]  # CPU seconds of the games played in worker processes

    def write(row: Row) -> None:
        out.append(_line(row, args.seed))
        done[(row.a, row.b, row.game)] = row

    def write_pooled(row: Row) -> None:
        write(row)
        if args.jobs > 1:
            pooled[0] += row.cpu_s

    try:
        in_pool = [t for t in todo if PPO not in t[:2]]
        in_pool.sort(key=lambda t: not any(x in (SEARCH,) or "ismcts" in x for x in t[:2]))
        run_games(in_pool, args.jobs, write_pooled)
        loads.append(os.getloadavg()[0])
        ppo_tasks = [t for t in todo if PPO in t[:2]]
        ppo_cpu = 0.0
        if ppo_tasks:
            t0 = time.process_time()
            model = train_ppo(args.ppo_timesteps, args.seed)
            ppo_cpu = time.process_time() - t0
            register_ppo(model)
            print(f"ppo trained for {model.num_timesteps} steps in {ppo_cpu:.0f} s CPU", flush=True)
            run_games(ppo_tasks, 1, write)
        loads.append(os.getloadavg()[0])
    finally:
        out.close()
    rows = [done[t[:3]] for p in pairs for t in tasks_of(p, args.seed) if t[:3] in done]
    report(agents, pairs, rows, args, folder)
    print(
        f"\nthis run: {time.perf_counter() - start_wall:.0f} s wall, "
        f"{time.process_time() - start_cpu + pooled[0]:.0f} s CPU (this process "
        f"{time.process_time() - start_cpu:.0f} s, ppo training {ppo_cpu:.0f} s of it; the "
        f"games in worker processes {pooled[0]:.0f} s), "
        f"{len(done) - before} games played; load average (1 min) "
        + ", ".join(f"{x:.1f}" for x in loads)
        + f"; {time.strftime('%Y-%m-%d %H:%M %Z')}"
    )


def name_of(spec: str) -> str:
    """A short label for tables and the figure."""
    return spec.replace("openspiel:ismcts[simulations=", "ismcts[sims=")


def report(
    agents: Sequence[str],
    pairs: Sequence[Pair],
    rows: Sequence[Row],
    args: argparse.Namespace,
    folder: Path,
) -> None:
    """Fit, print, and write the ratings, pairs, figure and TeX files."""
    shares = pair_shares(rows)
    played = [a for a in agents if any(a in pair for pair in shares)]
    wins = {pair: (float(v.sum()), float(len(v))) for pair, v in shares.items()}
    fit = fit_bradley_terry(played, wins)
    boots = bootstrap(played, shares, args.bootstrap, args.seed + 1)
    elo = fit.ratings * ELO
    low, high = np.percentile(boots * ELO, [2.5, 97.5], axis=0)
    games_of = {a: sum(len(v) for pair, v in shares.items() if a in pair) for a in played}
    cpu_of = {a: 0.0 for a in played}
    for row in rows:
        cpu_of[row.a] += row.cpu_s / 2
        cpu_of[row.b] += row.cpu_s / 2
    order = sorted(range(len(played)), key=lambda i: -elo[i])
    print("\nBradley-Terry ratings (Elo scale, random = 0), 95% bootstrap intervals:")
    print(f"{'agent':36} {'rating':>7}  {'95% interval':16} {'Fisher se':>9} {'games':>6}")
    with (folder / "ladder_ratings.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["agent", "elo", "low", "high", "fisher_se_elo", "games", "opponents"])
        for i in order:
            a = played[i]
            opponents = sum(1 for pair in shares if a in pair)
            print(
                f"{a:36} {elo[i]:7.0f}  [{low[i]:5.0f}, {high[i]:5.0f}]   "
                f"{fit.stderr[i] * ELO:9.0f} {games_of[a]:6}"
            )
            writer.writerow([a, f"{elo[i]:.1f}", f"{low[i]:.1f}", f"{high[i]:.1f}",
                             f"{fit.stderr[i] * ELO:.1f}", games_of[a], opponents])  # fmt: skip
    index = {a: i for i, a in enumerate(played)}
    # the model's fit, pair by pair
    misses, deviations = 0, []
    with (folder / "ladder_pairs.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["a", "b", "games", "share_a", "low", "high", "predicted", "cpu_s"])
        for (a, b), values in shares.items():
            (lo, hi), _ = share_interval(values)
            predicted = 1.0 / (1.0 + math.exp(fit.ratings[index[b]] - fit.ratings[index[a]]))
            inside = lo <= predicted <= hi
            misses += 0 if inside else 1
            deviations.append(abs(predicted - float(values.mean())))
            cpu = sum(r.cpu_s for r in rows if (r.a, r.b) == (a, b))
            writer.writerow([a, b, len(values), f"{values.mean():.4f}", f"{lo:.4f}",
                             f"{hi:.4f}", f"{predicted:.4f}", f"{cpu:.2f}"])  # fmt: skip
    print(
        f"\nfit: {len(shares)} pairs, {len(rows)} games; the predicted share lies outside the "
        f"pair's observed 95% interval in {misses} pairs; mean |predicted - observed| "
        f"{np.mean(deviations):.3f}, largest {np.max(deviations):.3f}"
    )
    print(
        f"\nCPU seconds in all {len(rows)} games (summed per game, every run that wrote "
        f"{SCRIPT.split('/')[-1].replace('.py', '.csv')}): {sum(r.cpu_s for r in rows):.0f}"
    )
    print("CPU seconds per game (median over the games an agent played, all four seats):")
    for spec in played:
        mine = [r.cpu_s for r in rows if spec in (r.a, r.b)]
        print(f"  {spec:36} {np.median(mine):.3f}")
    # knowledge against policy
    knowledge_rows = knowledge_table(played, elo, boots * ELO)
    policy_rows = policy_table(played, elo, boots * ELO, shares)
    print("\nknowledge effect (same policy; Elo differences, 95% bootstrap intervals):")
    print(f"{'policy':12} {'hand':>6} {'facts':>6} {'exact':>6}  exact - facts")
    for item in knowledge_rows:
        cells = [f"{item[k]:6.0f}" if k in item else "     -" for k in ("hand", "facts", "exact")]
        print(
            f"{item['policy']:12} {' '.join(cells)}  {item['effect']:+5.0f} "
            f"[{item['effect_low']:+.0f}, {item['effect_high']:+.0f}]"
        )
    mean_effect = None
    if knowledge_rows:
        mean_effect = _mean_effect(played, elo, boots * ELO, [r["policy"] for r in knowledge_rows])
        print(
            f"{'mean':12} {'':20}  {mean_effect[0]:+5.0f} [{mean_effect[1]:+.0f}, "
            f"{mean_effect[2]:+.0f}]"
        )
    print("\npolicy effect (same knowledge):")
    for item in policy_rows:
        print(
            f"  {item['better']:18} - {item['other']:18} {item['effect']:+5.0f} "
            f"[{item['low']:+.0f}, {item['high']:+.0f}]   head to head "
            f"{item['share']:.3f} [{item['share_low']:.3f}, {item['share_high']:.3f}]"
            if item["share"] is not None
            else f"  {item['better']:18} - {item['other']:18} {item['effect']:+5.0f} "
            f"[{item['low']:+.0f}, {item['high']:+.0f}]   (no direct games)"
        )
    figure(played, elo, low, high, folder, len(rows), args)
    write_tex(played, elo, low, high, games_of, knowledge_rows, policy_rows, mean_effect,
              folder, len(rows), len(shares), args)  # fmt: skip


def _spec(policy: str, knowledge: str) -> str:
    return policy if knowledge == "exact" else f"{policy}:{knowledge}"


def knowledge_table(
    played: Sequence[str], elo: np.ndarray, boots: np.ndarray
) -> list[dict[str, Any]]:
    """Per policy played with facts and exact: each kind's rating and exact - facts."""
    index = {a: i for i, a in enumerate(played)}
    out = []
    for policy in KNOWLEDGE_POLICIES:
        exact, facts = _spec(policy, "exact"), _spec(policy, "facts")
        if exact not in index or facts not in index:
            continue
        item: dict[str, Any] = {"policy": policy}
        for kind in ("hand", "facts", "exact"):
            if _spec(policy, kind) in index:
                item[kind] = float(elo[index[_spec(policy, kind)]])
        diff = boots[:, index[exact]] - boots[:, index[facts]]
        item["effect"] = item["exact"] - item["facts"]
        item["effect_low"], item["effect_high"] = (
            float(x) for x in np.percentile(diff, [2.5, 97.5])
        )
        hand = _spec(policy, "hand")
        if hand in index:
            d = boots[:, index[facts]] - boots[:, index[hand]]
            item["memory"] = item["facts"] - item["hand"]
            item["memory_low"], item["memory_high"] = (
                float(x) for x in np.percentile(d, [2.5, 97.5])
            )
        out.append(item)
    return out


def _mean_effect(
    played: Sequence[str], elo: np.ndarray, boots: np.ndarray, policies: Sequence[str]
) -> tuple[float, float, float]:
    index = {a: i for i, a in enumerate(played)}
    pick = lambda x: np.mean(  # noqa: E731
        [x[..., index[p]] - x[..., index[p + ":facts"]] for p in policies], axis=0
    )
    diff = pick(boots)
    low, high = np.percentile(diff, [2.5, 97.5])
    return float(pick(elo)), float(low), float(high)


def policy_table(
    played: Sequence[str],
    elo: np.ndarray,
    boots: np.ndarray,
    shares: dict[tuple[str, str], np.ndarray],
) -> list[dict[str, Any]]:
    """Policy effects at fixed knowledge, with the head-to-head share where they met."""
    index = {a: i for i, a in enumerate(played)}
    out = []
    for better, other in POLICY_CONTRASTS:
        if better not in index or other not in index:
            continue
        diff = boots[:, index[better]] - boots[:, index[other]]
        low, high = np.percentile(diff, [2.5, 97.5])
        item: dict[str, Any] = {
            "better": better, "other": other,
            "effect": float(elo[index[better]] - elo[index[other]]),
            "low": float(low), "high": float(high), "share": None,
        }  # fmt: skip
        values = shares.get((better, other))
        if values is None and (other, better) in shares:
            values = 1.0 - shares[(other, better)]
        if values is not None:
            (slo, shi), _ = share_interval(values)
            item.update(share=float(values.mean()), share_low=slo, share_high=shi)
        out.append(item)
    return out


def figure(
    played: Sequence[str],
    elo: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    folder: Path,
    games: int,
    args: argparse.Namespace,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with _latex.paper_style():
        order = sorted(range(len(played)), key=lambda i: elo[i])
        fig, ax = plt.subplots(figsize=(_latex.TEXT_WIDTH_IN, 0.2 * len(played) + 1.1))
        ys = np.arange(len(order))
        colours = []
        for i in order:
            spec = played[i]
            if spec.endswith(":facts"):
                colours.append("tab:orange")
            elif spec.endswith(":hand") or spec == "random":
                colours.append("tab:grey")
            elif spec in (SEARCH, PPO) or "ismcts" in spec:
                colours.append("tab:purple")
            else:
                colours.append("tab:blue")
        ax.errorbar(
            elo[order], ys, xerr=[elo[order] - low[order], high[order] - elo[order]], fmt="none",
            ecolor="0.35", capsize=3, lw=1,
        )  # fmt: skip
        ax.scatter(elo[order], ys, c=colours, zorder=3, s=28)
        ax.set_yticks(ys)
        ax.set_yticklabels([name_of(played[i]) for i in order])
        ax.axvline(0, color="0.8", lw=0.8, zorder=0)
        ax.set_xlabel("Bradley-Terry rating (Elo scale, random = 0), 95% interval")
        ax.set_title(f"Strength ladder: {games:,} seat-rotated games")
        from matplotlib.lines import Line2D

        legend = [
            Line2D([], [], marker="o", ls="", color=c, label=t)
            for c, t in (("tab:grey", "no memory / random"), ("tab:orange", "fact lists"),
                         ("tab:blue", "exact knowledge"), ("tab:purple", "search, ISMCTS, RL"))
        ]  # fmt: skip
        ax.legend(handles=legend, loc="lower right")
        ax.grid(axis="x", color="0.92")
        fig.savefig(folder / "ladder.png", dpi=150)
        fig.savefig(folder / "ladder.pdf")
    plt.close(fig)


_WORDS = {
    "random": "Random", "knowledge:hand": "KnowledgeHand", "owner:facts": "OwnerFacts",
    "defensive:facts": "DefensiveFacts", "aggressive:facts": "AggressiveFacts",
    "greedy:facts": "GreedyFacts", "silent:facts": "SilentFacts", "mixed:facts": "MixedFacts",
    "knowledge:facts": "KnowledgeFacts", "knowledge": "Knowledge", "owner": "Owner",
    "defensive": "Defensive", "greedy": "Greedy", "higher_order": "HigherOrder",
    "search": "Search", "ppo": "Ppo",
}  # fmt: skip


def _word(spec: str) -> str:
    if "ismcts" in spec:
        return "Ismcts"
    return _WORDS.get(spec, "".join(ch for ch in spec.title() if ch.isalpha()))


def elo_text(x: float) -> str:
    """A rating or difference in Elo points as TeX: a whole number, the minus sign typeset.

    >>> elo_text(0.4), elo_text(-65.7), elo_text(1234.2)
    ('0', '\\\\ensuremath{-}66', '1{,}234')
    """
    number = int(round(x))
    text = _latex.fmt(abs(number), 0)
    return f"\\ensuremath{{-}}{text}" if number < 0 else text


def elo_interval(low: float, high: float) -> str:
    """A 95% interval in Elo points: ``[low, high]``."""
    return f"[{elo_text(low)}, {elo_text(high)}]"


def write_tex(
    played: Sequence[str],
    elo: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    games_of: dict[str, int],
    knowledge_rows: Sequence[dict[str, Any]],
    policy_rows: Sequence[dict[str, Any]],
    mean_effect: tuple[float, float, float] | None,
    folder: Path,
    games: int,
    n_pairs: int,
    args: argparse.Namespace,
) -> None:
    m = lambda *parts: _latex.macro_name("kw", "ladder", *parts)  # noqa: E731
    numbers: dict[str, str] = {
        m("games"): _latex.fmt(games, 0),
        m("pairs"): _latex.fmt(n_pairs, 0),
        m("agents"): _latex.fmt(len(played), 0),
        m("round", "robin", "games"): _latex.fmt(args.games, 0),
        m("search", "games"): _latex.fmt(args.search_games, 0),
        m("ismcts", "games"): _latex.fmt(args.ismcts_games, 0),
        m("ismcts", "simulations"): _latex.fmt(args.ismcts_simulations, 0),
        m("ppo", "games"): _latex.fmt(args.ppo_games, 0),
        m("ppo", "timesteps"): _latex.fmt(args.ppo_timesteps, 0),
        m("bootstrap"): _latex.fmt(args.bootstrap, 0),
    }
    order = sorted(range(len(played)), key=lambda i: -elo[i])
    numbers[m("top")] = _latex.escape(played[order[0]])
    for i, spec in enumerate(played):
        word = _word(spec)
        numbers[m(word)] = elo_text(float(elo[i]))
        if spec != ANCHOR:  # the anchor's rating is 0 by definition
            numbers[m(word, "interval")] = elo_interval(float(low[i]), float(high[i]))
    for item in knowledge_rows:
        word = _word(item["policy"])
        numbers[m(word, "knowledge", "effect")] = elo_text(item["effect"])
        numbers[m(word, "knowledge", "effect", "interval")] = elo_interval(
            item["effect_low"], item["effect_high"]
        )
        if "memory" in item:
            numbers[m(word, "memory", "effect")] = elo_text(item["memory"])
            numbers[m(word, "memory", "effect", "interval")] = elo_interval(
                item["memory_low"], item["memory_high"]
            )
    if mean_effect is not None:
        numbers[m("mean", "knowledge", "effect")] = elo_text(mean_effect[0])
        numbers[m("mean", "knowledge", "effect", "interval")] = elo_interval(
            mean_effect[1], mean_effect[2]
        )
    for item in policy_rows:
        word = _word(item["better"]) + "Over" + _word(item["other"])
        numbers[m(word)] = elo_text(item["effect"])
        numbers[m(word, "interval")] = elo_interval(item["low"], item["high"])
        if item["share"] is not None:
            numbers[m(word, "share")] = _latex.fmt(item["share"], 3)
            numbers[m(word, "share", "interval")] = _latex.interval(
                item["share_low"], item["share_high"]
            )
    _latex.write_numbers(folder / "ladder_numbers.tex", SCRIPT, numbers)
    _latex.write_table(
        folder / "ladder_table.tex", SCRIPT,
        ["agent", "rating", "95\\% interval", "games"],
        [[f"\\texttt{{{_latex.escape(played[i])}}}", elo_text(float(elo[i])),
          elo_interval(float(low[i]), float(high[i])) if played[i] != ANCHOR else "(anchor)",
          _latex.fmt(games_of[played[i]], 0)]
         for i in order],
    )  # fmt: skip
    rows = []
    for item in knowledge_rows:
        cells = [elo_text(item[k]) if k in item else "--" for k in ("hand", "facts", "exact")]
        rows.append(
            [f"\\texttt{{{_latex.escape(item['policy'])}}}", *cells,
             f"{elo_text(item['effect'])} {elo_interval(item['effect_low'], item['effect_high'])}"]
        )  # fmt: skip
    if mean_effect is not None:
        rows.append(["mean", "", "", "", f"{elo_text(mean_effect[0])} "
                     f"{elo_interval(mean_effect[1], mean_effect[2])}"])  # fmt: skip
    _latex.write_table(
        folder / "ladder_knowledge_table.tex", SCRIPT,
        ["policy", "hand only", "fact lists", "exact", "exact $-$ facts"], rows,
    )  # fmt: skip


if __name__ == "__main__":
    main()
