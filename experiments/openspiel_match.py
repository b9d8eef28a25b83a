"""``search`` against OpenSpiel's ISMCTS at equal time per decision.

Four players, 32 cards, publisher rules; two seats ``search[ms=M]``, two seats
``openspiel:ismcts[ms=M]`` (OpenSpiel's Python ISMCTS bot, timed; its determinizations
are drawn exactly uniformly from its information set by the library's counting engine,
as are search's worlds).  Every seating of the four specs is played equally often (6
seatings; use a multiple of 6 games), each game dealt from a seed of one match seed.

Printed and saved: each agent's win share (mean over its two seats, shared wins split;
0.25 is even) with a 95% normal interval over games, mean quartets, and the time each
spent per decision (CPU and wall; both have the same wall-clock budget M, but ``search``
plays a sure ask, and OpenSpiel's bots a lone legal ask, without searching).  One CSV row
per game (``--out``), written as games finish; a run started again with the same file
continues (rows of other settings are refused).

Run: ``nice -n 10 python experiments/openspiel_match.py --ms 100 --games 120 --jobs 2``
(``--a``/``--b`` change the two specs; ``--ms`` is added to both as ``ms=M``, to ``--a``
only with ``--b-as-is``, for a baseline such as ``random``).  Beside the CSV,
``<csv stem>_numbers.tex`` holds the paper's macros ``\\kwOpenspiel<Label>...`` (``--label``,
letters: ``A``/``B`` + ``Share``, ``CI``, ``Quartets``, ``CpuMs``, ``WallMs``; ``Diff``,
``DiffCI``, ``Games``); rerun on a finished CSV it only summarises.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import time
from pathlib import Path

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.agents.agent import make_player
from kwartet_epistemic.files import read_csv_rows
from kwartet_epistemic.parallel import process_pool
from kwartet_epistemic.tournament import arrangements

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

SEATS = "ABCD"
COLUMNS = [
    "game", "seed", "ms", "agent_A", "agent_B", "agent_C", "agent_D",
    "score_A", "score_B", "score_C", "score_D", "winners", "asks",
    "decisions_a", "cpu_a", "wall_a", "decisions_b", "cpu_b", "wall_b",
]  # fmt: skip


def with_ms(spec: str, ms: float) -> str:
    """``spec`` with the option ``ms=M`` added (inside its brackets if it has some)."""
    if spec.endswith("]"):
        return f"{spec[:-1]},ms={ms:g}]"
    return f"{spec}[ms={ms:g}]"


def play(task: tuple[int, int, tuple[str, ...], float, str, str]) -> dict[str, object]:
    """One game: the seating's specs in seats A-D; per spec, its decisions and time."""
    index, seed, seating, ms, a, b = task
    game = kw.Game.deal(kw.Deck.piquet(), list(SEATS), seed=seed)
    players = {
        p: make_player(spec, p, np.random.default_rng([seed, seat]))
        for seat, (p, spec) in enumerate(zip(SEATS, seating, strict=True))
    }
    spent = {a: [0, 0.0, 0.0], b: [0, 0.0, 0.0]}
    asks = 0
    while not game.is_over and asks < 5_000:
        player = game.to_move
        assert player is not None
        cpu, wall = time.process_time(), time.perf_counter()
        ask = players[player].choose(game.view(player))
        used = spent[seating[SEATS.index(player)]]
        used[0] += 1
        used[1] += time.process_time() - cpu
        used[2] += time.perf_counter() - wall
        game.play(ask)
        asks += 1
    scores = game.scores
    winners = game.winners if game.is_over else ()
    return {
        "game": index, "seed": seed, "ms": ms,
        **{f"agent_{p}": s for p, s in zip(SEATS, seating, strict=True)},
        **{f"score_{p}": scores[p] for p in SEATS},
        "winners": " ".join(winners), "asks": asks,
        "decisions_a": spent[a][0], "cpu_a": round(spent[a][1], 4), "wall_a": round(spent[a][2], 4),
        "decisions_b": spent[b][0], "cpu_b": round(spent[b][1], 4), "wall_b": round(spent[b][2], 4),
    }  # fmt: skip


def share(row: dict[str, str], spec: str) -> float:
    """The spec's mean share of the win over its seats in one game."""
    winners = row["winners"].split()
    seats = [p for p in SEATS if row[f"agent_{p}"] == spec]
    return sum(1 / len(winners) for p in seats if p in winners) / len(seats)


def interval(values: list[float]) -> tuple[float, float, float]:
    """Mean and 95% normal interval of the mean."""
    mean = float(np.mean(values))
    if len(values) < 2:
        return mean, mean, mean
    half = 1.96 * float(np.std(values, ddof=1)) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def summary(
    rows: list[dict[str, str]], a: str, b: str, numbers: dict[str, str] | None = None
) -> str:
    """The printed table; ``numbers`` (if given) receives the TeX macros' values, keyed
    ``A``/``B`` + ``Share``, ``CI``, ``Quartets``, ``CpuMs``, ``WallMs``, and ``Diff``,
    ``DiffCI``, ``Games``."""
    lines = [f"{'agent':<34} win share  95% interval     quartets  ms/decision (CPU, wall)"]
    for spec, key in ((a, "a"), (b, "b")):
        wins = interval([share(r, spec) for r in rows])
        quartets = [
            np.mean([int(r[f"score_{p}"]) for p in SEATS if r[f"agent_{p}"] == spec]) for r in rows
        ]
        decisions = sum(int(r[f"decisions_{key}"]) for r in rows)
        cpu = 1000 * sum(float(r[f"cpu_{key}"]) for r in rows) / max(decisions, 1)
        wall = 1000 * sum(float(r[f"wall_{key}"]) for r in rows) / max(decisions, 1)
        lines.append(
            f"{spec:<34} {wins[0]:9.3f}  [{wins[1]:.3f}, {wins[2]:.3f}]  {np.mean(quartets):8.2f}"
            f"  {cpu:6.1f}, {wall:6.1f} over {decisions} decisions"
        )
        if numbers is not None:
            side = key.upper()
            numbers[f"{side}Share"] = f"{wins[0]:.3f}"
            numbers[f"{side}CI"] = f"[{wins[1]:.3f}, {wins[2]:.3f}]"
            numbers[f"{side}Quartets"] = f"{np.mean(quartets):.2f}"
            numbers[f"{side}CpuMs"] = f"{cpu:.1f}"
            numbers[f"{side}WallMs"] = f"{wall:.1f}"
    difference = interval([share(r, a) - share(r, b) for r in rows])
    lines.append(
        f"{a} minus {b}: {difference[0]:+.3f} [{difference[1]:+.3f}, {difference[2]:+.3f}] "
        f"over {len(rows)} games (shares of the two sum to 0.5 in every game)"
    )
    if numbers is not None:
        numbers["Diff"] = f"{difference[0]:+.3f}"
        numbers["DiffCI"] = f"[{difference[1]:+.3f}, {difference[2]:+.3f}]"
        numbers["Games"] = str(len(rows))
    return "\n".join(lines)


def write_numbers(rows: list[dict[str, str]], a: str, b: str, out: Path, label: str) -> Path:
    """``<out stem>_numbers.tex``: the summary's numbers as ``\\kwOpenspiel<label>...``."""
    numbers: dict[str, str] = {}
    summary(rows, a, b, numbers)
    prefix = "kwOpenspiel" + label[:1].upper() + label[1:]
    return _latex.write_numbers(
        out.with_name(out.stem + "_numbers.tex"),
        "experiments/openspiel_match.py",
        {prefix + k: v for k, v in numbers.items()},
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=120)
    parser.add_argument("--ms", type=float, default=100.0)
    parser.add_argument("--a", default="search")
    parser.add_argument("--b", default="openspiel:ismcts")
    parser.add_argument(
        "--b-as-is", action="store_true", help="no ms=M for --b (a baseline such as random)"
    )
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("openspiel_match.csv"))
    parser.add_argument(
        "--label", default="", help="letters naming this match in the TeX macros (e.g. Hundred)"
    )
    args = parser.parse_args()
    if args.label and not args.label.isalpha():
        sys.exit(f"--label {args.label!r}: expected letters only (TeX macro names)")
    a, b = with_ms(args.a, args.ms), args.b if args.b_as_is else with_ms(args.b, args.ms)
    agents = [a, b, a, b]
    seatings = arrangements(agents)
    if args.games % len(seatings):
        sys.exit(f"--games {args.games}: use a multiple of {len(seatings)} (every seating alike)")
    seeds = [
        int(s.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
        for s in np.random.SeedSequence(args.seed).spawn(args.games)
    ]
    tasks = [(k, seeds[k], seatings[k % len(seatings)], args.ms, a, b) for k in range(args.games)]
    done: dict[int, dict[str, str]] = {}
    for row in read_csv_rows(args.out):  # a torn last row (a stopped run) is played again
        k = int(row["game"])
        if k >= args.games or int(row["seed"]) != seeds[k] or float(row["ms"]) != args.ms:
            sys.exit(f"{args.out}: holds another match (game {k}); choose another --out")
        done[k] = row
    todo = [t for t in tasks if t[0] not in done]
    if not todo:  # a finished match: summarise only
        rows = [done[k] for k in sorted(done)]
        write_numbers(rows, a, b, args.out, args.label)
        print(summary(rows, a, b))
        return
    print(f"command: {' '.join(sys.argv)}")
    print(f"{a} x2 vs {b} x2, {args.games} games ({len(done)} done), seed {args.seed}", flush=True)
    start = time.perf_counter()
    new_file = not args.out.exists() or args.out.stat().st_size == 0
    with args.out.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        if new_file:
            writer.writeheader()
        with process_pool(args.jobs) as pool:
            for row in pool.imap_unordered(play, todo):
                writer.writerow(row)
                handle.flush()
                done[int(row["game"])] = {k: str(v) for k, v in row.items()}  # type: ignore[misc]
                if len(done) % 12 == 0:
                    print(f"  {len(done)} games, {time.perf_counter() - start:.0f} s", flush=True)
    rows = [done[k] for k in sorted(done)]
    write_numbers(rows, a, b, args.out, args.label)
    print(summary(rows, a, b))
    print(f"{time.perf_counter() - start:.0f} s wall for {len(todo)} games; CSV: {args.out}")


if __name__ == "__main__":
    main()
