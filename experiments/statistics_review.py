"""The statistics behind the paper's comparisons, read again from the stored games.

No game is played: the script reads the rows the experiments saved (``--data``, by
default ``paper/measurements``) and answers four questions a careful reader asks.

1. *Multiple comparisons.*  Every comparison the tip, ladder and leakage tables make
   (each tip's win share against the fair share; each exact-minus-fact-list knowledge
   effect and each policy effect on the ladder; each hiding policy against its twin on
   the same deals) gets a p-value, and the whole family is adjusted by Holm's step-down
   method (family-wise error 5%) and by Benjamini and Hochberg's (false discovery rate
   5%).  The primary comparisons, named before the adjustment, are listed apart.
2. *The Bradley-Terry fit.*  The deviance and Pearson statistics of the ladder's model
   against its pairs (with their degrees of freedom and p-values), the pairs whose
   observed share lies outside the model's prediction, and the ratings refitted without
   those pairs: how far each moves.
3. *The ladder and the strength matches.*  On the ladder ``search`` rates a little below
   ``knowledge``; in the strength matches it beats it.  The script sets the two side by
   side: the rating difference with its bootstrap interval, the ladder's own head-to-head
   pair, and the strength match, and tests whether the two head-to-head shares differ.
4. *Conditioning "after 30 asks".*  The fact-list comparison quotes the located shares
   after 30 asks, which only the games that last that long reach.  The script gives the
   number of such games, the shares among them, and two unconditioned alternatives over
   every game: at each game's end, and at 30 asks or the end, whichever comes first.

Writes ``statistics_review.txt``, ``statistics_review_numbers.tex``
(``\\kwStats...``) and ``statistics_review_table.tex`` into ``--out``.

Run from the repository root:  python experiments/statistics_review.py [--bootstrap N]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402
import ladder  # noqa: E402
import leakage  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FAIR = 0.25  # a four-player seat's fair share of the win
LATE = 30  # the asks after which the fact-list comparison quotes its late shares


@dataclass
class Test:
    """One comparison: its family (the table it comes from), a name, the estimate with
    its 95% interval, and the two-sided p-value of "no difference"."""

    family: str
    name: str
    estimate: float
    low: float
    high: float
    p: float
    primary: bool = False
    holm: float = math.nan
    bh: float = math.nan


def holm(p: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error).

    >>> [round(float(x), 3) for x in holm([0.01, 0.04, 0.03])]
    [0.03, 0.06, 0.06]
    """
    values = np.asarray(p, dtype=float)
    order = np.argsort(values)
    m = len(values)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * values[i]))
        adjusted[i] = running
    return adjusted


def benjamini_hochberg(p: Sequence[float]) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (q-values; false discovery rate).

    >>> [round(float(x), 3) for x in benjamini_hochberg([0.01, 0.04, 0.03])]
    [0.03, 0.04, 0.04]
    """
    values = np.asarray(p, dtype=float)
    m = len(values)
    order = np.argsort(values)[::-1]
    adjusted = np.empty(m)
    running = 1.0
    for k, i in enumerate(order):
        rank = m - k
        running = min(running, values[i] * m / rank)
        adjusted[i] = running
    return adjusted


def _t_test(diffs: np.ndarray) -> tuple[float, float, float, float]:
    """Mean, 95% t interval and two-sided p of "mean 0"."""
    n = len(diffs)
    mean = float(diffs.mean())
    se = float(diffs.std(ddof=1)) / math.sqrt(n)
    if se == 0.0:
        return mean, mean, mean, 0.0 if mean else 1.0
    half = float(stats.t.ppf(0.975, n - 1)) * se
    p = float(2 * stats.t.sf(abs(mean) / se, n - 1))
    return mean, mean - half, mean + half, p


def _from_interval(estimate: float, low: float, high: float, n: int, null: float) -> float:
    """The two-sided p of a t interval's estimate against ``null`` (the interval's
    standard error recovered from its width)."""
    se = (high - low) / (2 * float(stats.t.ppf(0.975, max(1, n - 1))))
    if se <= 0:
        return 0.0 if estimate != null else 1.0
    return float(2 * stats.t.sf(abs(estimate - null) / se, max(1, n - 1)))


def _open_csv(path: Path) -> list[dict[str, str]]:
    """A CSV's rows, gunzipping ``.gz``."""
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return list(csv.DictReader(io.StringIO(raw.decode())))


# ----- 1. the families of comparisons --------------------------------------------------


def tip_tests(data: Path) -> list[Test]:
    """Each tip's win share against the fair share (the tip table's verdicts)."""
    tests = []
    for row in _open_csv(data / "folk_tips.csv"):
        share, low, high = float(row["win_share"]), float(row["low"]), float(row["high"])
        p = _from_interval(share, low, high, int(row["games"]), FAIR)
        primary = row["match"] == "alone-facts-publisher-remember"
        tests.append(Test("tips", row["match"], share - FAIR, low - FAIR, high - FAIR, p, primary))
    return tests


def ladder_games(data: Path) -> dict[tuple[str, str], np.ndarray]:
    """Each ladder pair's per-game shares of its first agent (the rows the fit used)."""
    grouped: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for row in _open_csv(data / "ladder.csv.gz"):
        grouped.setdefault((row["a"], row["b"]), []).append(
            (int(row["game"]), float(row["share_a"]))
        )
    used = {(r["a"], r["b"]): int(r["games"]) for r in _open_csv(data / "ladder_pairs.csv")}
    shares = {}
    for pair, games in used.items():
        values = [s for _, s in sorted(grouped[pair])][:games]
        shares[pair] = np.array(values)
    return shares


@dataclass
class LadderFit:
    agents: list[str]
    elo: np.ndarray
    boots: np.ndarray


def fit_ladder(shares: dict[tuple[str, str], np.ndarray], fits: int, seed: int) -> LadderFit:
    agents = sorted({a for pair in shares for a in pair})
    wins = {pair: (float(v.sum()), float(len(v))) for pair, v in shares.items()}
    fit = ladder.fit_bradley_terry(agents, wins)
    boots = ladder.bootstrap(agents, shares, fits, seed)
    return LadderFit(agents, fit.ratings * ladder.ELO, boots * ladder.ELO)


def _boot_test(family: str, name: str, estimate: float, draws: np.ndarray) -> Test:
    """A bootstrap difference: percentile interval, and the two-sided p of a normal
    statistic with the bootstrap's standard deviation (a percentile p-value cannot go
    below one over the number of fits, too coarse for 46 comparisons)."""
    low, high = np.percentile(draws, [2.5, 97.5])
    spread = float(np.std(draws, ddof=1))
    p = float(2 * stats.norm.sf(abs(estimate) / spread)) if spread > 0 else 1.0
    return Test(family, name, estimate, float(low), float(high), p)


def ladder_tests(fit: LadderFit) -> list[Test]:
    """Exact minus fact list for every policy with both, and every policy pair on the
    same knowledge (Elo differences)."""
    index = {a: i for i, a in enumerate(fit.agents)}
    tests = []
    for agent in fit.agents:
        if agent.endswith(":facts") and agent[: -len(":facts")] in index:
            exact, facts = index[agent[: -len(":facts")]], index[agent]
            test = _boot_test(
                "ladder", f"{agent[:-6]}: exact - facts",
                float(fit.elo[exact] - fit.elo[facts]), fit.boots[:, exact] - fit.boots[:, facts],
            )  # fmt: skip
            test.primary = agent == "knowledge:facts"
            tests.append(test)
    exact_policies = [a for a in fit.agents if ":" not in a and a not in ("random", "ppo")]
    for a, b in zip(exact_policies, exact_policies[1:], strict=False):
        i, j = index[a], index[b]
        tests.append(_boot_test("ladder", f"{a} - {b}", float(fit.elo[i] - fit.elo[j]),
                                fit.boots[:, i] - fit.boots[:, j]))  # fmt: skip
    return tests


def leakage_tests(data: Path) -> list[Test]:
    """Each hiding policy against its twin on the same deals and seats (paired)."""
    shares: dict[tuple[str, str], dict[tuple[str, str], float]] = {}
    for row in _open_csv(data / "leakage_matches.csv"):
        shares.setdefault((row["rules"], row["policy"]), {})[(row["game"], row["seat"])] = float(
            row["share"]
        )
    tests = []
    for rules, hider, twin in leakage.TWINS:
        mine, theirs = shares.get((rules, hider), {}), shares.get((rules, twin), {})
        common = sorted(set(mine) & set(theirs))
        if len(common) < 2:
            continue
        diffs = np.array([mine[k] - theirs[k] for k in common])
        mean, low, high, p = _t_test(diffs)
        primary = (rules, hider, twin) == ("publisher", "silent", "greedy")
        tests.append(Test("leakage", f"{rules}: {hider} - {twin}", mean, low, high, p, primary))
    return tests


def adjust(tests: list[Test]) -> None:
    """Holm and Benjamini-Hochberg over the whole family, in place."""
    p = [t.p for t in tests]
    for t, h, q in zip(tests, holm(p), benjamini_hochberg(p), strict=True):
        t.holm, t.bh = float(h), float(q)


# ----- 2. the Bradley-Terry model's fit ------------------------------------------------


def goodness_of_fit(shares: dict[tuple[str, str], np.ndarray], fit: LadderFit) -> dict[str, float]:
    """Deviance and Pearson statistics of the fitted model over the pairs."""
    index = {a: i for i, a in enumerate(fit.agents)}
    deviance = pearson = 0.0
    for (a, b), values in shares.items():
        n = len(values)
        predicted = 1.0 / (1.0 + 10 ** ((fit.elo[index[b]] - fit.elo[index[a]]) / 400.0))
        observed = float(values.mean())
        for o, e in ((observed, predicted), (1 - observed, 1 - predicted)):
            if o > 0:
                deviance += 2 * n * o * math.log(o / e)
        pearson += n * (observed - predicted) ** 2 / (predicted * (1 - predicted))
    dof = len(shares) - (len(fit.agents) - 1)
    return {
        "deviance": deviance, "pearson": pearson, "dof": float(dof),
        "p_deviance": float(stats.chi2.sf(deviance, dof)),
        "p_pearson": float(stats.chi2.sf(pearson, dof)),
    }  # fmt: skip


def misfits(data: Path) -> list[tuple[str, str]]:
    """The pairs whose model prediction lies outside their observed 95% interval."""
    out = []
    for row in _open_csv(data / "ladder_pairs.csv"):
        if not float(row["low"]) <= float(row["predicted"]) <= float(row["high"]):
            out.append((row["a"], row["b"]))
    return out


# ----- 3. the ladder against the strength matches --------------------------------------


def strength_share(data: Path, experiment: int, agent: str) -> tuple[float, float, float, int]:
    """The two-against-two team share of ``agent`` in a strength match (per game: the
    share of the win its two seats took), with a 95% t interval."""
    per_game = []
    for row in _open_csv(data / "strength" / f"experiment_{experiment}.csv"):
        seats = [row[f"agent_{s}"] for s in "ABCD"]
        winners = row["winners"].split()
        mine = sum(1 for s in winners if seats["ABCD".index(s)] == agent)
        per_game.append(mine / len(winners) if winners else 0.5)
    values = np.array(per_game)
    mean, low, high, _ = _t_test(values - 0.5)
    return mean + 0.5, low + 0.5, high + 0.5, len(values)


# ----- 4. the late shares of the fact-list comparison ----------------------------------


def late_shares(data: Path) -> dict[str, float]:
    """Located shares (exact, facts) pooled over the turns after ``LATE`` asks, as the
    comparison quotes them (only the games that last longer contribute); at every game's
    last turn with hidden cards; and at ``LATE`` asks or that last turn, whichever comes
    first (every game counts once in the last two)."""
    by_game: dict[str, dict[int, list[tuple[float, float, int]]]] = {}
    for row in _open_csv(data / "exact_vs_facts.csv.gz"):
        by_game.setdefault(row["game"], {}).setdefault(int(row["turn"]), []).append(
            (float(row["exact"]), float(row["facts"]), int(row["hidden"]))
        )

    def share(rows: list[tuple[float, float, int]]) -> tuple[float, float]:
        hidden = sum(h for _, _, h in rows) or 1
        return sum(e for e, _, _ in rows) / hidden, sum(f for _, f, _ in rows) / hidden

    reach, pooled, at_end, capped = 0, [], [], []
    for turns in by_game.values():
        last = max(t for t, rows in turns.items() if sum(h for _, _, h in rows))
        at_end.append(share(turns[last]))
        capped.append(share(turns[min(last, LATE)]))
        if max(turns) > LATE:  # rows after the last hidden card count too (as quoted)
            reach += 1
            pooled += [r for t, rows in turns.items() if t > LATE for r in rows]

    def mean(pairs: list[tuple[float, float]], k: int) -> float:
        return float(np.mean([p[k] for p in pairs])) if pairs else math.nan

    late = share(pooled)
    return {
        "games": float(len(by_game)), "reach": float(reach),
        "late_exact": late[0], "late_facts": late[1],
        "end_exact": mean(at_end, 0), "end_facts": mean(at_end, 1),
        "capped_exact": mean(capped, 0), "capped_facts": mean(capped, 1),
    }  # fmt: skip


# ----- the report -----------------------------------------------------------------------


def short_name(test: Test) -> str:
    """A comparison's name for the table: a tip by its tip and its setting, a twin of
    the leakage table without the shared ``tips[remember`` prefix."""
    if test.family == "tips":
        series, knowledge, rules, tip = test.name.split("-")
        setting = f"{series}, {knowledge}" + (", bluffing" if rules == "bluffing" else "")
        return f"{tip} ({setting})"
    if test.family == "leakage":
        rules, twins = test.name.split(": ")
        twins = (
            twins.replace("tips[remember,", "+")
            .replace("]", "")
            .replace("tips[remember", "remember")
        )
        return twins + (" (bluffing)" if rules == "bluffing" else "")
    return test.name


def _p_text(p: float) -> str:
    return "$<0.001$" if p < 0.001 else f"{p:.2g}"


def table_rows(tests: Sequence[Test]) -> list[list[str]]:
    """The table's rows, each family under a heading row of its own."""
    rows: list[list[str]] = []
    headings = {"tips": "tips: win share minus 1/4", "ladder": "ladder: Elo difference",
                "leakage": "leakage: paired win-share difference"}  # fmt: skip
    family = None
    for t in tests:
        if t.family != family:
            family = t.family
            rows.append([f"\\emph{{{headings[family]}}}"])
        digits = 0 if t.family == "ladder" else 3
        rows.append([
            _latex.escape(short_name(t)) + (" $\\ast$" if t.primary else ""),
            f"${t.estimate:.{digits}f}$ [${t.low:.{digits}f}$, ${t.high:.{digits}f}$]",
            _p_text(t.p), _p_text(t.holm), _p_text(t.bh),
        ])  # fmt: skip
    return rows


def main(argv: Sequence[str] | None = None) -> dict[str, str]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "paper" / "measurements")
    parser.add_argument("--out", type=Path, default=ROOT / "paper" / "measurements")
    parser.add_argument("--bootstrap", type=int, default=1000, help="ladder bootstrap fits")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    data, out = args.data, args.out
    lines = [
        line.lstrip("% ") for line in _latex.provenance("experiments/statistics_review.py")[1:]
    ]
    lines.append("")
    shares = ladder_games(data)
    fit = fit_ladder(shares, args.bootstrap, args.seed)
    tests = tip_tests(data) + ladder_tests(fit) + leakage_tests(data)
    adjust(tests)
    raw = sum(1 for t in tests if t.p < 0.05)
    by_holm = sum(1 for t in tests if t.holm < 0.05)
    by_bh = sum(1 for t in tests if t.bh < 0.05)
    lines.append(
        f"1. Multiple comparisons: {len(tests)} comparisons (tips {sum(t.family == 'tips' for t in tests)}, "
        f"ladder {sum(t.family == 'ladder' for t in tests)}, leakage {sum(t.family == 'leakage' for t in tests)}); "
        f"below 0.05: {raw} unadjusted, {by_holm} after Holm, {by_bh} after Benjamini-Hochberg"
    )  # fmt: skip
    lines.append(f"  {'family':8} {'comparison':44} {'estimate':>9} {'95% interval':>20} "
                 f"{'p':>8} {'Holm':>8} {'BH':>8}")  # fmt: skip
    for t in tests:
        mark = " *primary" if t.primary else ""
        lines.append(
            f"  {t.family:8} {t.name[:44]:44} {t.estimate:9.3f} [{t.low:8.3f}, {t.high:8.3f}] "
            f"{t.p:8.2g} {t.holm:8.2g} {t.bh:8.2g}{mark}"
        )
    lost = [t for t in tests if t.p < 0.05 <= t.holm]
    lines.append(
        "  significant unadjusted but not after Holm: "
        + (", ".join(t.name for t in lost) or "none")
    )
    gof = goodness_of_fit(shares, fit)
    bad = misfits(data)
    kept = {pair: v for pair, v in shares.items() if pair not in set(bad)}
    refit = fit_ladder(kept, max(50, args.bootstrap // 10), args.seed)
    moved = {a: float(refit.elo[refit.agents.index(a)] - fit.elo[fit.agents.index(a)])
             for a in fit.agents if a in refit.agents}  # fmt: skip
    biggest = max(moved, key=lambda a: abs(moved[a]))
    knowledge_effect = moved.get("knowledge", 0.0) - moved.get("knowledge:facts", 0.0)
    lines += [
        "",
        f"2. Bradley-Terry fit: {len(shares)} pairs, {len(fit.agents)} agents, {int(gof['dof'])} "
        f"degrees of freedom; deviance {gof['deviance']:.1f} (p {gof['p_deviance']:.2g}), "
        f"Pearson {gof['pearson']:.1f} (p {gof['p_pearson']:.2g})",
        f"  {len(bad)} pairs outside their 95% interval: " + ", ".join(f"{a}-{b}" for a, b in bad),
        f"  refitted without them: the largest move {moved[biggest]:+.0f} Elo ({biggest}); "
        f"the knowledge effect (knowledge - knowledge:facts) moves {knowledge_effect:+.0f} Elo",
    ]
    index = {a: i for i, a in enumerate(fit.agents)}
    gap = _boot_test("ladder", "search - knowledge", float(fit.elo[index["search"]] - fit.elo[index["knowledge"]]),
                     fit.boots[:, index["search"]] - fit.boots[:, index["knowledge"]])  # fmt: skip
    pair = shares[("search", "knowledge")]
    head, head_low, head_high, _ = _t_test(pair - 0.5)
    team, team_low, team_high, team_games = strength_share(data, 4, "search")
    both = (team - (head + 0.5)) / math.hypot((team_high - team_low) / 3.92,
                                               (head_high - head_low) / 3.92)  # fmt: skip
    p_same = float(2 * stats.norm.sf(abs(both)))
    lines += [
        "",
        f"3. Ladder and strength: search - knowledge on the ladder {gap.estimate:+.0f} Elo "
        f"[{gap.low:+.0f}, {gap.high:+.0f}] (p {gap.p:.2g}); the ladder's own pair: search's "
        f"team share {head + 0.5:.3f} [{head_low + 0.5:.3f}, {head_high + 0.5:.3f}] over "
        f"{len(pair)} games; the strength match: {team:.3f} [{team_low:.3f}, {team_high:.3f}] "
        f"over {team_games} games; the two shares differ by {team - head - 0.5:+.3f} (p {p_same:.2g})",
    ]
    late = late_shares(data)
    lines += [
        "",
        f"4. After {LATE} asks: {int(late['reach'])} of {int(late['games'])} games last longer; "
        f"pooled over their later turns exact {late['late_exact']:.3f}, facts {late['late_facts']:.3f} "
        f"({100 * (late['late_exact'] - late['late_facts']):+.1f} points); at every game's last turn with hidden cards "
        f"exact {late['end_exact']:.3f}, facts {late['end_facts']:.3f} "
        f"({100 * (late['end_exact'] - late['end_facts']):+.1f} points); at {LATE} asks or the "
        f"end: exact {late['capped_exact']:.3f}, facts {late['capped_facts']:.3f} "
        f"({100 * (late['capped_exact'] - late['capped_facts']):+.1f} points)",
    ]
    macros = {
        "kwStatsTests": str(len(tests)), "kwStatsRaw": str(raw), "kwStatsHolm": str(by_holm),
        "kwStatsBh": str(by_bh), "kwStatsDeviance": _latex.fmt(gof["deviance"], 1),
        "kwStatsDevianceP": _latex.fmt(gof["p_deviance"], 3), "kwStatsDof": str(int(gof["dof"])),
        "kwStatsMisfits": str(len(bad)), "kwStatsRefitMove": _latex.fmt(abs(moved[biggest]), 0),
        "kwStatsRefitKnowledge": _latex.fmt(knowledge_effect, 0),
        "kwStatsSearchGap": _latex.fmt(gap.estimate, 0), "kwStatsSearchGapLow": _latex.fmt(gap.low, 0),
        "kwStatsSearchGapHigh": _latex.fmt(gap.high, 0),
        "kwStatsSearchPair": _latex.fmt(head + 0.5, 3), "kwStatsSearchPairGames": str(len(pair)),
        "kwStatsSearchTeam": _latex.fmt(team, 3), "kwStatsSearchTeamGames": _latex.fmt(team_games, 0),
        "kwStatsSearchSameP": _latex.fmt(p_same, 2),
        "kwStatsLateReach": _latex.fmt(late["reach"], 0), "kwStatsLateGames": _latex.fmt(late["games"], 0),
        "kwStatsLatePoints": _latex.fmt(100 * (late["late_exact"] - late["late_facts"]), 1),
        "kwStatsEndPoints": _latex.fmt(100 * (late["end_exact"] - late["end_facts"]), 1),
        "kwStatsCappedPoints": _latex.fmt(100 * (late["capped_exact"] - late["capped_facts"]), 1),
    }  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    _latex.write_numbers(
        out / "statistics_review_numbers.tex", "experiments/statistics_review.py", macros
    )
    _latex.write_table(
        out / "statistics_review_table.tex", "experiments/statistics_review.py",
        ["comparison", "estimate [95\\%]", "$p$", "Holm", "BH"], table_rows(tests),
    )  # fmt: skip
    text = "\n".join(lines) + "\n"
    (out / "statistics_review.txt").write_text(text)
    print(text, end="")
    return macros


if __name__ == "__main__":
    main()
