"""A benchmark family others can run: Kwartet positions of growing size as SMCDEL input,
with their answers, and how far each tool gets within a time limit.

Instances ``kwartet-f<F>-p<P>-a<A>``: ``F`` families dealt to ``P`` players (publisher
rules, deal seed 0), then ``A`` random legal asks (seed 0; fewer where the game ends).
Each comes with three queries about player A's knowledge of the first hidden cards
(``K_A has(H, c)`` with ``H`` the true holder, ``M_A has(B, c)``, and ``Kw_A has(H, c)``
for another card), asked as ``TRUE?`` (at the actual deal).

``--write DIR`` writes every instance as SMCDEL's text input (``<name>.smcdel.txt``, from
:func:`kwartet_epistemic.to_smcdel`), its game (``<name>.game.json``, for
``kw.Game.load``) and ``answers.json``: per instance its sizes, the public world count and
the answer to every query, computed by the counting engine.

Timing (``--limit`` seconds per instance and tool, default 60): our three engines
(counting, symbolic on its plain BDD route without the counting shortcuts, explicit:
each in a fresh process, the position built and every query answered) and SMCDEL 1.3.0 (``smcdel`` on the instance's file, if built: see
:func:`kwartet_epistemic.symbolic.smcdel.find_smcdel`), up the size ladder until a tool
exceeds the limit or refuses; the largest instance each solves, in the style of SMCDEL's
published tables.  (The dining cryptographers beside SMCDEL's own benchmark are
``experiments/scaling.py``'s, with ``--dining``.)

Writes ``benchmark_family.txt``, ``benchmark_family.csv``, ``benchmark_family_numbers.tex``
and ``benchmark_family_table.tex`` (the largest deck, in families, each tool solves per
number of players and asks) into ``--out``.

Run from the repository root:
    python experiments/benchmark_family.py --write experiments/benchmarks/kwartet
    python experiments/benchmark_family.py [--limit 60] [--repeat 5]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

import kwartet_epistemic as kw  # noqa: E402
from kwartet_epistemic.epistemics.symbolic import SymbolicKwartet  # noqa: E402
from kwartet_epistemic.symbolic.smcdel import find_smcdel, read_smcdel_output  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NAMES = ["A", "B", "C", "D", "E", "F"]
ENGINES = ("counting", "symbolic", "explicit")
LADDER = {  # players -> families, growing; asks per instance
    3: (2, 3, 4, 5, 6, 8, 10, 13),
    4: (2, 3, 4, 5, 6, 8, 10, 13),
}
ASKS = (0, 10, 30)
FIELDS = ("instance", "families", "players", "asks", "variables", "tool", "seconds", "status")


def deck(families: int) -> kw.Deck:
    return kw.Deck.piquet(families=families) if families <= 8 else kw.Deck.standard(families)


def instance_name(families: int, players: int, asks: int) -> str:
    return f"kwartet-f{families}-p{players}-a{asks}"


def position(families: int, players: int, asks: int) -> kw.Game:
    """The instance's game: the deal and up to ``asks`` random legal asks."""
    game = kw.Game.deal(deck(families), NAMES[:players], seed=0)
    rng = np.random.default_rng(0)
    for _ in range(asks):
        if game.is_over:
            break
        game.play(game.random_legal_ask(rng))
    return game


def queries(game: kw.Game) -> list[str]:
    """Three questions about A's knowledge of the first and last cards A does not hold
    (none where fewer than two cards are hidden from A: the game is as good as over)."""
    holder = {c: p for p in game.players for c in game.hand(p)}
    hidden = [c for c in game.deck.cards if holder.get(c, "A") != "A"]
    if len(hidden) < 2:
        return []
    first, second = hidden[0], hidden[-1]
    b = "B" if holder[first] != "B" else "C"
    return [
        f"K_A has({holder[first]}, {first})",
        f"M_A has({b}, {second})",
        f"Kw_A has({holder[second]}, {second})",
    ]


def write_instances(folder: Path, players: Sequence[int]) -> list[dict[str, Any]]:
    """Every instance's SMCDEL file and its answers (counting engine; the symbolic
    engine agrees where checked)."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for p in players:
        for f in LADDER[p]:
            for a in ASKS:
                try:
                    game = position(f, p, a)
                except kw.KwartetError:
                    continue
                name = instance_name(f, p, a)
                asked = queries(game)
                if not asked:
                    continue
                game.save(folder / f"{name}.game.json")
                try:
                    export = kw.smcdel_export(game, asked, jobs=["TRUE?"])
                except kw.ModelTooLargeError as err:  # SMCDEL's language has no counting
                    variables, smcdel_input = None, f"none: {err}"
                else:
                    variables = len(export.variables) + len(export.auxiliary)
                    smcdel_input = f"{name}.smcdel.txt.gz"
                    (folder / smcdel_input).write_bytes(
                        gzip.compress(export.text.encode(), mtime=0)
                    )
                state = kw.knowledge(game, engine="counting")
                entries.append({
                    "instance": name, "families": f, "players": p,
                    "asks": sum(1 for e in game.record if isinstance(e, kw.events.Asked)),
                    "variables": variables, "smcdel_input": smcdel_input,
                    "public_worlds": str(state.count_worlds()),
                    "answers": [[q, bool(state.holds(q))] for q in asked],
                })  # fmt: skip
    (folder / "answers.json").write_text(json.dumps(entries, indent=1) + "\n")
    return entries


def answer_all(engine: str, families: int, players: int, asks: int) -> float:
    """Build the position with ``engine`` and answer every query: CPU seconds."""
    start = time.process_time()
    game = position(families, players, asks)
    state = kw.knowledge(game, engine=engine)
    # The symbolic engine's plain BDD route (its shortcuts would count instead), as
    # SMCDEL evaluates: the law and the knowledge operators on BDDs.
    holds = SymbolicKwartet(state).holds if engine == "symbolic" else state.holds
    for q in queries(game):
        holds(q)
    return time.process_time() - start


def time_ours(
    engine: str, families: int, players: int, asks: int, limit: float
) -> tuple[str, float]:
    """``(status, CPU seconds)`` of one engine on one instance in a fresh process (this
    script's ``--one``), within ``limit`` (plus the process's start-up)."""
    command = [sys.executable, str(Path(__file__).resolve()), "--one", engine,
               str(families), str(players), str(asks)]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit + 10)
    except subprocess.TimeoutExpired:
        return "timeout", limit
    if done.returncode != 0:
        refused = "ModelTooLargeError" in done.stderr or "MemoryError" in done.stderr
        return ("refused" if refused else "failed"), float("nan")
    seconds = float(done.stdout.split()[-1])
    return ("ok", seconds) if seconds <= limit else ("timeout", seconds)


def time_smcdel(path: Path, limit: float, expected: Sequence[bool]) -> tuple[str, float]:
    """``(status, seconds)`` of SMCDEL on an instance file (gzipped: unpacked first,
    untimed; the child's CPU time); ``wrong`` where its answers are not ``expected``."""
    binary = find_smcdel()
    if binary is None:
        return "not built", float("nan")
    if not path.is_file():
        return "no input", float("nan")
    with tempfile.NamedTemporaryFile("wb", suffix=".txt") as plain:
        plain.write(gzip.decompress(path.read_bytes()))
        plain.flush()
        before = os.times()
        try:
            done = subprocess.run(
                [str(binary), plain.name], capture_output=True, timeout=limit, check=False
            )
        except subprocess.TimeoutExpired:
            return "timeout", limit
        after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    if done.returncode != 0:
        return "failed", cpu
    answers = read_smcdel_output(done.stdout.decode(errors="replace"))
    return ("ok" if answers == list(expected) else "wrong"), cpu


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="write the instances and answers here")
    parser.add_argument(
        "--instances", type=Path, default=ROOT / "experiments" / "benchmarks" / "kwartet"
    )
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4])
    parser.add_argument("--limit", type=float, default=60.0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="the two smallest sizes, 1 repeat")
    parser.add_argument("--out", type=Path, default=ROOT / "paper" / "measurements")
    parser.add_argument("--one", nargs=4, metavar=("ENGINE", "F", "P", "A"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        engine, *sizes = args.one
        print(answer_all(engine, *(int(x) for x in sizes)))
        return []
    if args.write:
        entries = write_instances(args.write, args.players)
        print(f"wrote {len(entries)} instances and answers.json to {args.write}")
        return entries
    if args.quick:
        args.repeat, args.limit = 1, min(args.limit, 20.0)
    lines = [line.lstrip("% ") for line in _latex.provenance("experiments/benchmark_family.py")[1:]]
    lines.append(
        f"per instance and tool: median CPU seconds of {args.repeat} runs, limit {args.limit:g} s"
    )
    answers = {e["instance"]: e for e in json.loads((args.instances / "answers.json").read_text())}
    rows: list[dict[str, Any]] = []
    largest: dict[tuple[int, int, str], int] = {}
    for p in args.players:
        for a in ASKS:
            alive = {tool: True for tool in (*ENGINES, "smcdel")}
            for f in LADDER[p][: 2 if args.quick else None]:
                name = instance_name(f, p, a)
                if name not in answers:
                    continue
                for tool in alive:
                    if not alive[tool]:
                        continue
                    times, status = [], "ok"
                    for _ in range(args.repeat):
                        if tool == "smcdel":
                            status, seconds = time_smcdel(
                                args.instances / f"{name}.smcdel.txt.gz",
                                args.limit,
                                [value for _, value in answers[name]["answers"]],
                            )
                        else:
                            status, seconds = time_ours(tool, f, p, a, args.limit)
                        if status != "ok":
                            break
                        times.append(seconds)
                    value = statistics.median(times) if status == "ok" else float("nan")
                    rows.append({"instance": name, "families": f, "players": p, "asks": a,
                                 "variables": answers[name]["variables"], "tool": tool,
                                 "seconds": value, "status": status})  # fmt: skip
                    if status == "ok" and value <= args.limit:
                        largest[(p, a, tool)] = f
                    else:
                        alive[tool] = False
                lines.append(
                    f"  {name:22} vars {answers[name]['variables'] or '-':>5}  "
                    + "  ".join(
                        f"{r['tool']} {r['seconds']:.3f}" if r["status"] == "ok" else f"{r['tool']} {r['status']}"
                        for r in rows if r["instance"] == name
                    )
                )  # fmt: skip
    lines.append("largest deck solved within the limit (families), by players and asks:")
    for p in args.players:
        for a in ASKS:
            cells = [f"{tool} {largest.get((p, a, tool), '-')}" for tool in (*ENGINES, "smcdel")]
            lines.append(f"  {p} players, {a:2} asks: " + "  ".join(cells))
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "benchmark_family.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    macros = {}
    for (p, a, tool), families in largest.items():
        words = {3: "Three", 4: "Four", 0: "Deal", 10: "Ten", 30: "Thirty"}
        macros[_latex.macro_name("kwFamilyLargest", words[p], words[a], tool)] = str(families)
    _latex.write_numbers(
        args.out / "benchmark_family_numbers.tex", "experiments/benchmark_family.py", macros
    )
    tools = (*ENGINES, "smcdel")
    _latex.write_table(
        args.out / "benchmark_family_table.tex", "experiments/benchmark_family.py",
        ["players", "asks", *tools],
        [[str(p), str(a), *(str(largest.get((p, a, t), "-")) for t in tools)]
         for p in args.players for a in ASKS],
    )  # fmt: skip
    text = "\n".join(lines) + "\n"
    (args.out / "benchmark_family.txt").write_text(text)
    print(text, end="")
    return rows


if __name__ == "__main__":
    main()
