"""This library's symbolic engine and SMCDEL 1.3.0 side by side, on the same machine.

Four cases, each the work of one of the SMCDEL benchmark programs built by
``/work/shared/tools/smcdel/build.sh`` (their sources are next to it; that of
``DiningBench``, ``experiments/smcdel/DiningBench.hs``, is built by
``experiments/scaling.py`` next to them):

- muddy children, n = 10, 20, 40, all muddy (``MuddyBench seq-cac N``): build the
  structure (all 2**n states), announce the father, announce "nobody knows whether they
  are muddy" n - 1 times, each announcement first checked true at the actual state,
  then check at the actual state that every child knows it is muddy.  Our side makes a
  fresh BDD manager inside the timed region; SMCDEL's CacBDD manager is global and made
  in a warm-up before its timer starts.  Each size is also run as the first query of a
  fresh process, without our warm-up (the BDD library's loading inside the timer).
- dining cryptographers, n = 10, 40 (``DiningBench N``): SMCDEL's own structure
  (``genDcKnsInit``: the NSA or one of n paid, a coin per pair) and the formula of its
  ``bench/diningcrypto.hs``, checked valid: after the announcement whether the XOR of
  the announced bits holds, if 1 did not pay, 1 knows nobody paid or knows another did
  without knowing who.  Both sides build the structure inside the timed region.
- Russian cards (``RussianBench safe``): among the 1,290 lists of 5, 6 or 7 hands that
  pairwise share at most one card, those that are safe and informative at the deal
  012|345|6 (102), each checked with SMCDEL's six formulas of ``checkSet``, stopping at
  the first false one.  Building the 140 deals is timed on its own ("setup").
- Kwartet-like deal (``KwartetBench cac nocount``): 16 cards, players A, B, C with
  6 / 5 / 5 cards, one atom per (card, player); the counter-built state law, the
  announcement "B does not hold 11" and 7 K queries, four more announcements and 7 more
  queries (the total of those steps).

Every figure is the median over interleaved repeats, each run in a fresh process (ours:
``python`` running this file with ``--worker``), and is the time inside the process
after start-up and imports, as SMCDEL's programs measure theirs; the process wall time,
start-up included, is printed too.  The SMCDEL columns need its binaries in
``$SMCDEL_BENCH_DIR`` (default ``$ROOT/bench``, ``ROOT=/tmp/smcdel``); without them only
our side runs, with a note.

Run:  python experiments/bench_smcdel.py [--repeat 7] [--sizes 10 20 40] [--dining 10 40]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
SECONDS = re.compile(r"seconds=([0-9.]+)")

# ---------------------------------------------------------------- our side (worker)


def muddy_sequence(n: int) -> bool:
    """SMCDEL's ``seq-cac``: father, n - 1 checked rounds of silence, all muddy know.

    >>> muddy_sequence(4)
    True
    """
    from kwartet_epistemic.symbolic.puzzles import (
        muddy_children_father,
        muddy_children_muddy_know,
        muddy_children_nobody_knows,
        muddy_children_state,
        muddy_children_structure,
    )

    actual = muddy_children_state(range(1, n + 1))
    structure = muddy_children_structure(n, backend="cudd")
    structure = structure.announce(muddy_children_father(n), actual=actual)
    silence = muddy_children_nobody_knows(n)
    for _ in range(n - 1):  # announce() with actual= checks the silence first
        structure = structure.announce(silence, actual=actual)
    return structure.holds(muddy_children_muddy_know(range(1, n + 1)), actual)


def hand_lists(sizes: Iterable[int] = (5, 6, 7)) -> list[list[tuple[int, ...]]]:
    """SMCDEL's ``allHandLists``: increasing lists of hands pairwise sharing < 2 cards.

    >>> len(hand_lists())
    1290
    """
    hands: list[tuple[int, ...]] = list(combinations(range(7), 3))
    # later[i]: the hands after hand i (in order) that share at most one card with it
    later = [
        {j for j in range(i + 1, len(hands)) if len(set(hands[i]) & set(hands[j])) < 2}
        for i in range(len(hands))
    ]
    found: list[list[tuple[int, ...]]] = []

    def extend(chosen: list[int], allowed: list[int], size: int) -> None:
        if len(chosen) == size:
            found.append([hands[i] for i in chosen])
            return
        for i in allowed:
            following = later[i]
            extend([*chosen, i], [j for j in allowed if j in following], size)

    for size in sizes:
        extend([], list(range(len(hands))), size)
    return found


def russian_cards_safe() -> tuple[int, float, float]:
    """(number safe, setup seconds, check seconds) as SMCDEL's ``RussianBench safe``."""
    from kwartet_epistemic.logic import Announce, C, Formula, K, Kw, conjunction
    from kwartet_epistemic.symbolic.puzzles import (
        russian_cards_alice_says,
        russian_cards_atom,
        russian_cards_bob_knows_alice,
        russian_cards_cath_ignorant,
        russian_cards_deal,
        russian_cards_structure,
    )

    start = time.perf_counter()
    structure = russian_cards_structure(backend="cudd")
    assert structure.count_states() == 140
    setup = time.perf_counter() - start

    start = time.perf_counter()
    deal = russian_cards_deal((0, 1, 2), (3, 4, 5), (6,))
    everyone, alice_bob = ("Alice", "Bob", "Cath"), ("Alice", "Bob")
    bob_knows = russian_cards_bob_knows_alice()
    alice_knows = conjunction(Kw("Alice", russian_cards_atom("Bob", c)) for c in range(7))
    cath_ignorant = russian_cards_cath_ignorant()
    bob_says = K("Bob", russian_cards_atom("Cath", 6))
    # The goals do not depend on the announcement: built once (GHC floats them out of
    # SMCDEL's checkSet too).  The six checks are made one at a time and stop at the
    # first false one, as SMCDEL's lazy list under `all`.
    after_alice = [
        bob_knows,
        C(alice_bob, bob_knows),
        C(everyone, cath_ignorant),
    ]
    after_bob = [C(alice_bob, alice_knows & bob_knows), C(everyone, cath_ignorant)]

    def checks(alice_says: Formula) -> Iterator[Formula]:
        yield alice_says
        for goal in after_alice:
            yield Announce(alice_says, goal)
        for goal in after_bob:
            yield Announce(alice_says, Announce(bob_says, goal))

    safe = 0
    for hands in hand_lists():
        alice_says = russian_cards_alice_says(hands)
        safe += all(structure.holds(check, deal) for check in checks(alice_says))
    return safe, setup, time.perf_counter() - start


def _exactly(manager: Any, k: int, variables: Sequence[str]) -> Any:
    """The BDD of "exactly k of the variables are true", built as a counter."""
    counts = [manager.true] + [manager.false] * k  # counts[j]: exactly j of the rest
    for name in reversed(variables):
        var = manager.var(name)
        counts = [
            manager.ite(var, counts[j - 1] if j else manager.false, counts[j]) for j in range(k + 1)
        ]
    return counts[k]


def kwartet_deal() -> tuple[bool, float]:
    """(all answers right, seconds) as SMCDEL's ``KwartetBench cac nocount``."""
    from kwartet_epistemic.logic import Atom, K, Not, conjunction
    from kwartet_epistemic.symbolic import KnowledgeStructure
    from kwartet_epistemic.symbolic.backend import new_manager

    players, cards = ("A", "B", "C"), range(16)

    def name(player: str, card: int) -> str:
        return f"{player}{card}"

    def has(player: str, card: int) -> Atom:
        return Atom(name(player, card))

    start = time.perf_counter()
    manager = new_manager("cudd")
    vocabulary = [name(p, c) for c in cards for p in players]  # SMCDEL's order 3c + p
    manager.declare(*vocabulary)
    law = manager.true
    for c in cards:
        law &= _exactly(manager, 1, [name(p, c) for p in players])
    for p, size in zip(players, (6, 5, 5), strict=True):
        law &= _exactly(manager, size, [name(p, c) for c in cards])
    observed = {p: [name(p, c) for c in cards] for p in players}
    structure = KnowledgeStructure(vocabulary, law, observed, manager=manager)
    actual = {name("A", c) for c in range(6)} | {name("B", c) for c in range(6, 11)}
    actual |= {name("C", c) for c in range(11, 16)}
    ok = structure.law != manager.false

    structure = structure.announce(Not(has("B", 11)), actual=actual)
    q1 = [(K("A", has("C", 11)), True), (K("A", Not(has("B", 11))), True)]
    q1 += [(K("A", has("B", c)), False) for c in (6, 7, 10, 12)]
    q1 += [(K("B", K("A", has("C", 11))), False)]
    ok &= all(structure.holds(f, actual) == want for f, want in q1)
    for c in range(12, 16):
        structure = structure.announce(Not(has("B", c)), actual=actual)
    q2 = [(K("A", has("B", c)), True) for c in (6, 7, 10)]
    q2 += [(K("A", conjunction(has("B", c) for c in range(6, 11))), True)]
    q2 += [(K("A", has("C", 15)), True), (K("C", has("B", 6)), False)]
    q2 += [(K("B", has("A", 0)), False)]
    ok &= all(structure.holds(f, actual) == want for f, want in q2)
    seconds = time.perf_counter() - start
    ok &= structure.count_states() == 213444  # not timed, as SMCDEL's nocount
    return bool(ok), seconds


def _xor(formulas: Sequence[Any]) -> Any:
    """SMCDEL's ``Xor``: true when an odd number of the formulas are (a chain of <->)."""
    from kwartet_epistemic.logic import Bottom, Iff, Not

    result = formulas[0] if formulas else Bottom()
    for formula in formulas[1:]:
        result = Not(Iff(result, formula))
    return result


def dining_structure(n: int) -> tuple[Any, dict[int, list[str]]]:
    """SMCDEL's ``genDcKnsInit n``: atoms p0 (the NSA paid), p1..pn (cryptographer i
    paid) and one shared coin per pair; the law "exactly one of p0..pn"; cryptographer i
    observes p_i and the n - 1 coins it shares.  Also each agent's observed atoms.

    >>> structure, seen = dining_structure(3)
    >>> structure.count_states(), seen[1]
    (32, ['p1', 'c1_2', 'c1_3'])
    """
    from kwartet_epistemic.logic import Atom, Not, conjunction, disjunction
    from kwartet_epistemic.symbolic import KnowledgeStructure

    paid = [f"p{i}" for i in range(n + 1)]
    coins = {(k, m): f"c{k}_{m}" for k in range(1, n + 1) for m in range(k + 1, n + 1)}
    someone = disjunction(Atom(p) for p in paid)
    not_two = conjunction(
        Not(Atom(paid[x]) & Atom(paid[y])) for x in range(n + 1) for y in range(x + 1, n + 1)
    )
    seen = {
        i: [paid[i]] + [name for pair, name in coins.items() if i in pair] for i in range(1, n + 1)
    }
    structure = KnowledgeStructure(
        [*paid, *coins.values()],
        someone & not_two,
        {str(i): atoms for i, atoms in seen.items()},
        backend="cudd",
    )
    return structure, seen


def dining_cryptographers(n: int) -> bool:
    """SMCDEL's ``benchDcValid n`` (its bench/diningcrypto.hs): valid that after the
    announcement whether the XOR of everyone's announced bit holds, if cryptographer 1
    did not pay, 1 knows that nobody paid or knows that another did without knowing who.

    >>> dining_cryptographers(4)
    True
    """
    from kwartet_epistemic.logic import Announce, Atom, Implies, K, Not, conjunction, disjunction

    structure, seen = dining_structure(n)
    bits = _xor([_xor([Atom(a) for a in seen[i]]) for i in range(1, n + 1)])
    goal = Implies(
        Not(Atom("p1")),
        K("1", conjunction(Not(Atom(f"p{k}")) for k in range(1, n + 1)))
        | (
            K("1", disjunction(Atom(f"p{k}") for k in range(2, n + 1)))
            & conjunction(Not(K("1", Atom(f"p{k}"))) for k in range(2, n + 1))
        ),
    )
    # SMCDEL's PubAnnounceW: announce whichever of the formula and its negation is true.
    whether = Implies(bits, Announce(bits, goal)) & Implies(Not(bits), Announce(Not(bits), goal))
    return structure.is_valid(whether)


def warm_up() -> None:
    """Load the libraries and touch a BDD manager, as SMCDEL's programs do before timing."""
    from kwartet_epistemic.symbolic.backend import new_manager

    manager = new_manager("cudd")
    manager.declare("x")
    assert manager.var("x") != manager.true


def worker(case: str) -> dict[str, Any]:
    """Run one case once in this (fresh) process; its figures as a dict.  A case named
    ``first:CASE`` skips the warm-up: its time is the first query of a process, the BDD
    library's loading and the first manager included."""
    import kwartet_epistemic.logic  # noqa: F401  (imports are not timed, as in SMCDEL)
    import kwartet_epistemic.symbolic  # noqa: F401

    first = case.startswith("first:")
    case = case.removeprefix("first:")
    if not first:
        warm_up()
    cpu = time.process_time()
    figures = _run_case(case)
    figures["cpu"] = time.process_time() - cpu  # the whole case (Russian: setup included)
    return figures


def _run_case(case: str) -> dict[str, Any]:
    if case.startswith("muddy-"):
        n = int(case.split("-", 1)[1])
        start = time.perf_counter()
        result = muddy_sequence(n)
        return {"ok": result is True, "seconds": time.perf_counter() - start}
    if case.startswith("dining-"):
        n = int(case.split("-", 1)[1])
        start = time.perf_counter()
        result = dining_cryptographers(n)
        return {"ok": result is True, "seconds": time.perf_counter() - start}
    if case == "russian":
        safe, setup, seconds = russian_cards_safe()
        return {"ok": safe == 102, "seconds": seconds, "setup": setup, "safe": safe}
    if case == "kwartet":
        ok, seconds = kwartet_deal()
        return {"ok": ok, "seconds": seconds}
    raise SystemExit(f"unknown case {case!r}")


# ---------------------------------------------------------------- the driver


def smcdel_dir() -> Path:
    given = os.environ.get("SMCDEL_BENCH_DIR")
    if given:
        return Path(given)
    return Path(os.environ.get("ROOT", "/tmp/smcdel")) / "bench"


def smcdel_command(bench: Path, case: str) -> list[str] | None:
    if case.startswith("muddy-"):
        program, args = "MuddyBench", ["seq-cac", case.split("-", 1)[1]]
    elif case.startswith("dining-"):
        program, args = "DiningBench", [case.split("-", 1)[1]]
    elif case == "russian":
        program, args = "RussianBench", ["safe"]
    else:
        program, args = "KwartetBench", ["cac", "nocount"]
    path = bench / program
    return [str(path), *args] if os.access(path, os.X_OK) else None


def run_ours(case: str) -> tuple[dict[str, Any], float]:
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, str(HERE), "--worker", case], capture_output=True, text=True, check=False
    )
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"our worker failed on {case}:\n{done.stdout}\n{done.stderr}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if not figures["ok"]:
        raise SystemExit(f"our worker gave a wrong answer on {case}: {figures}")
    return figures, wall


def run_smcdel(command: list[str], case: str) -> tuple[dict[str, float], float]:
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"SMCDEL failed: {' '.join(command)}\n{done.stdout}\n{done.stderr}")
    figures: dict[str, float] = {}
    for line in done.stdout.splitlines():
        found = SECONDS.search(line)
        if found is None:
            continue
        if line.startswith("russian setup"):
            figures["setup"] = float(found.group(1))
        elif line.startswith(("muddy", "dining", "russian safe", "kwartet cac total")):
            figures["seconds"] = float(found.group(1))
    if "seconds" not in figures:
        raise SystemExit(f"no timing in SMCDEL's output for {case}:\n{done.stdout}")
    return figures, wall


def load_average() -> str:
    try:
        with open("/proc/loadavg", encoding="utf-8") as handle:
            return " ".join(handle.read().split()[:3])
    except OSError:
        return "unknown"


def processor_name() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 40])
    parser.add_argument("--dining", type=int, nargs="*", default=[10, 40], help="cryptographers")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument(
        "--out", type=Path, help="folder for bench_smcdel_numbers.tex and bench_smcdel_table.tex"
    )
    options = parser.parse_args()
    if options.worker:
        print(json.dumps(worker(options.worker)))
        return

    import dd

    sys.path.insert(0, str(HERE.parent))
    import _latex  # the paper's number formats (a worker process does without them)

    cases = [f"muddy-{n}" for n in options.sizes] + [f"dining-{n}" for n in options.dining]
    cases += ["russian", "kwartet"]
    bench = smcdel_dir()
    commands = {case: smcdel_command(bench, case) for case in cases}
    have_smcdel = all(command is not None for command in commands.values())
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}")
    print(f"# machine: {processor_name()}, {os.cpu_count()} cores, {platform.machine()}")
    print(f"# python {platform.python_version()}, dd {dd.__version__} (CUDD)")
    print(f"# load average (1, 5, 15 min) at start: {load_average()}")
    if have_smcdel:
        print(f"# SMCDEL 1.3.0 (CacBDD backend) from {bench}:")
        for case in cases:
            shown = commands[case] or []
            print(f"#   {case:<10} {Path(shown[0]).name} {' '.join(shown[1:])}")
    else:
        print(f"# SMCDEL not built (no binaries in {bench}): its columns are skipped.")
        print("#   Build it with /work/shared/tools/smcdel/build.sh (see its README).")
    print(f"# ours: {Path(sys.executable).name} {HERE.name} --worker CASE (CUDD through dd.cudd)")

    ours: dict[str, list[dict[str, Any]]] = {case: [] for case in cases}
    theirs: dict[str, list[dict[str, float]]] = {case: [] for case in cases}
    wall_ours: dict[str, list[float]] = {case: [] for case in cases}
    wall_theirs: dict[str, list[float]] = {case: [] for case in cases}
    # the first query of a fresh process, without the warm-up (muddy children)
    firsts = [f"first:{case}" for case in cases if case.startswith("muddy-")]
    for name in firsts:
        ours[name], wall_ours[name] = [], []
    for repeat in range(options.repeat):
        for case in cases:
            command = commands[case]
            # Interleave, alternating who goes first, so that load drifts hit both.
            order = ["ours", "smcdel"] if repeat % 2 == 0 else ["smcdel", "ours"]
            for who in order:
                if who == "ours":
                    figures, wall = run_ours(case)
                    ours[case].append(figures)
                    wall_ours[case].append(wall)
                    if f"first:{case}" in ours:
                        figures, wall = run_ours(f"first:{case}")
                        ours[f"first:{case}"].append(figures)
                        wall_ours[f"first:{case}"].append(wall)
                elif have_smcdel and command is not None:
                    smcdel_figures, wall = run_smcdel(command, case)
                    theirs[case].append(smcdel_figures)
                    wall_theirs[case].append(wall)

    labels = {
        "russian": "Russian cards: 102 safe of 1,290",
        "kwartet": "Kwartet 16 cards 6/5/5",
    }
    print(f"\nmedian of {options.repeat} interleaved runs, each in a fresh process: seconds inside")
    print("the process after start-up and imports (the wall columns: the whole process,")
    print("interpreter start-up and imports included).  Our muddy children time includes")
    print("making the BDD manager; SMCDEL's global CacBDD manager is made before its timer.")
    print("'first query of a process': ours without the warm-up (loading the BDD library")
    print("and its first manager inside the timer).")
    print("'paired': the median over repeats of SMCDEL's time over ours in that repeat.\n")
    head = f"{'case':<34} {'ours s':>8} {'SMCDEL CacBDD s':>16} {'SMCDEL / ours':>14}"
    head += f" {'paired':>7}"
    print(head + f"   {'wall ours':>9} {'wall SMCDEL':>11}")
    print("-" * (len(head) + 24))

    numbers: dict[str, str] = {"kwBenchSmcdelRepeats": str(options.repeat)}
    table: list[list[str]] = []
    words = {"muddy": "Muddy", "dining": "Dining", "russian": "Russian", "kwartet": "Kwartet"}
    sizes = {"10": "Ten", "20": "Twenty", "40": "Forty", "4": "Four", "6": "Six"}

    def row(label: str, ours_s: list[float], theirs_s: list[float], case: str) -> None:
        mine, other = median(ours_s), median(theirs_s)
        kind, _, size = case.removeprefix("first:").partition("-")
        key = "kwBenchSmcdel" + words.get(kind, "Case") + sizes.get(size, "")
        if label.startswith("  (setup"):
            key += "Setup"
        if case.startswith("first:"):
            key += "First"
        numbers[key + "Ours"] = _latex.sig(mine)
        if theirs_s:
            numbers[key + "Smcdel"] = _latex.sig(other)
            numbers[key + "Paired"] = (
                f"{median([t / o for o, t in zip(ours_s, theirs_s, strict=True)]):.1f}"
            )
        table.append([
            _latex.escape(label.strip()),
            _latex.sig(mine),
            _latex.sig(other) if theirs_s else "--",
            numbers.get(key + "Paired", "--"),
        ])  # fmt: skip
        ratio = f"{other / mine:.1f}x" if theirs_s else "-"
        # The median of the ratios within each repeat (the two runs next to each other).
        ratios = [t / o for o, t in zip(ours_s, theirs_s, strict=True)] if theirs_s else []
        paired = f"{median(ratios):.1f}x" if ratios else "-"
        other_text = f"{other:.4f}" if theirs_s else "not built"
        wall_other = f"{median(wall_theirs[case.removeprefix('first:')]):.2f}" if theirs_s else "-"
        print(
            f"{label:<34} {mine:>8.4f} {other_text:>16} {ratio:>14} {paired:>7}"
            f"   {median(wall_ours[case]):>9.2f} {wall_other:>11}"
        )

    for case in cases:
        kind, _, size = case.partition("-")
        named = {"muddy": "muddy children n=", "dining": "dining cryptographers n="}
        label = labels.get(case, f"{named.get(kind, kind)}{size}")
        row(label, [f["seconds"] for f in ours[case]], [f["seconds"] for f in theirs[case]], case)
        if f"first:{case}" in ours:
            row(
                "  (first query of a process)",
                [f["seconds"] for f in ours[f"first:{case}"]],
                [f["seconds"] for f in theirs[case]],
                f"first:{case}",
            )
        if case == "russian":
            row(
                "  (setup: the 140 deals)",
                [f["setup"] for f in ours[case]],
                [f["setup"] for f in theirs[case] if "setup" in f],
                case,
            )
    print("\nall runs (seconds inside the process):")
    for case in cases:
        print(f"  {case:<10} ours   " + " ".join(f"{f['seconds']:.4f}" for f in ours[case]))
        if f"first:{case}" in ours:
            runs = " ".join(f"{f['seconds']:.4f}" for f in ours[f"first:{case}"])
            print(f"  {'':<10} first  {runs}")
        if theirs[case]:
            print(f"  {'':<10} SMCDEL " + " ".join(f"{f['seconds']:.4f}" for f in theirs[case]))
    print(f"\n# load average (1, 5, 15 min) at end: {load_average()}")
    if options.out:
        _latex.write_numbers(
            options.out / "bench_smcdel_numbers.tex", "experiments/bench_smcdel.py", numbers
        )
        _latex.write_table(
            options.out / "bench_smcdel_table.tex",
            "experiments/bench_smcdel.py",
            ["case", "ours (s)", "SMCDEL CacBDD (s)", "SMCDEL / ours"],
            table,
        )


if __name__ == "__main__":
    main()
