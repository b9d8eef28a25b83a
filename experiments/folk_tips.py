"""Which folk tips of the rule texts really win? (research question c)

The rule texts (seeds 002/004, "Tips en strategieën") give seven tips that a player can
follow: remember every ask, ask for the rarest card first, don't betray your hand, spread
your asks, bluff when you can afford to fail, watch who receives, keep a sure ask for the
end game.  :class:`kwartet_epistemic.agents.Tips` has each as a switch on one greedy base
player (``tips[none]``: a known holder if any, else the most likely ask, the fullest
family on a tie); ``tips`` switches all seven on.

Each match puts one tipped player against three copies of its base: 4 players, 32 cards,
every one of the 4 seatings equally often (a multiple of 4 games), all matches on the same
deal seeds (one tournament seed), so that two variants are compared on the same deals.  The
fair share is 1/4.  Two series:

- ``alone``: each tip alone on ``tips[none]`` (no memory: the policy forgets every ask
  unless ``remember`` is on; the tips that read the record, ``rarest``, ``hide`` and
  ``spread``, read it themselves), and all seven (``tips``) on the same base;
- ``remember``: each other tip on ``tips[remember]`` (a player who remembers), and all
  seven.  ``watch`` is not played here: remembering every ask includes its answer, so
  ``tips[remember,watch]`` plays the very games of ``tips[remember]``.

Knowledge: ``facts`` (a fact list, the way a folk player keeps track) and ``exact``
(every possible world).  Without ``remember`` the knowledge is not used at all, so in the
``alone`` series only ``remember`` and all seven are played on exact knowledge (the
others would replay the facts games move for move).  Rules: the publisher profile; the
``bluff`` tip and all seven also under ``publisher+bluffing`` (one may ask for a card one
holds).  The texts' bluff, which the tip plays, is a decoy ask of an unlikely holder,
legal under every rule set; the bluffing rule changes what an ask tells the others.

Per match: the tipped player's win share (shared wins split) with its 95% interval
(:func:`kwartet_epistemic.tournament.share_interval`), the difference from the fair share
with that interval shifted, a verdict (``wins``: interval above 1/4; ``loses``: below;
``no difference shown``), mean quartets and asks.  Paired with the all-base games on the
same deals (``games/base-*.csv``, one tournament per base, the same seed): the share of
games the tip changed (0: it never fired, the match replays the base's games) and the
paired gain, the tipped seat's share minus that seat's share in the all-base game (a
tighter interval: the deal's luck cancels).

**Outputs** in ``--out``: ``games/<match>.csv`` (the tournament CSVs, one row per game as it
finishes; a run started again resumes each match where it stopped), ``folk_tips.csv``
(one row per match, rewritten whole after each match), ``folk_tips_games.csv.gz`` (every
game of every match, compact), ``folk_tips.png`` and ``.pdf``, ``folk_tips_numbers.tex``,
``folk_tips_table.tex``; the summary on standard output.

Run: ``nice -n 10 python experiments/folk_tips.py --games 2400 --jobs 2 --out DIR``;
``--quick`` plays a few matches of 8 games.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import kwartet_epistemic as kw
from kwartet_epistemic.files import atomic_path, atomic_write_bytes
from kwartet_epistemic.tournament import TournamentResult, arrangements

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

SCRIPT = "experiments/folk_tips.py"
PLAYERS = 4
FAIR = 1.0 / PLAYERS
TIP_NAMES = ("remember", "rarest", "hide", "spread", "bluff", "watch", "endgame")
VARIANTS = (*TIP_NAMES, "all")
SERIES = {"alone": "tips[none]", "remember": "tips[remember]"}
RULES = {"publisher": kw.RuleSet(), "bluffing": kw.RuleSet(bluffing=True)}
TITLES = {
    "remember": "remember every ask",
    "rarest": "ask for the rarest card first",
    "hide": "don't betray your hand",
    "spread": "spread your asks",
    "bluff": "bluff when you can afford to fail",
    "watch": "watch who receives",
    "endgame": "save a sure ask for the end game",
    "all": "all seven",
}
assert TIP_NAMES == kw.agents.TIPS, "the library's tips changed: update this experiment"


@dataclass(frozen=True)
class Match:
    """One tipped player against three copies of its base, under one rule set."""

    series: str
    knowledge: str
    rules: str
    variant: str

    @property
    def key(self) -> str:
        return f"{self.series}-{self.knowledge}-{self.rules}-{self.variant}"

    @property
    def base(self) -> str:
        return f"{SERIES[self.series]}:{self.knowledge}"

    @property
    def tipped(self) -> str:
        if self.variant == "all":
            return f"tips:{self.knowledge}"
        if self.series == "alone":
            return f"tips[{self.variant}]:{self.knowledge}"
        return f"tips[remember,{self.variant}]:{self.knowledge}"

    @property
    def agents(self) -> tuple[str, ...]:
        return (self.tipped,) + (self.base,) * (PLAYERS - 1)


def all_matches() -> list[Match]:
    """The design: the matches the full run plays, in order."""
    out: list[Match] = []
    out += [Match("alone", "facts", "publisher", v) for v in VARIANTS]
    out += [Match("alone", "exact", "publisher", v) for v in ("remember", "all")]
    for knowledge in ("facts", "exact"):
        out += [
            Match("remember", knowledge, "publisher", v)
            for v in VARIANTS
            if v not in ("remember", "watch")
        ]
    for series, knowledge in (("alone", "facts"), ("remember", "facts"), ("remember", "exact")):
        out += [Match(series, knowledge, "bluffing", v) for v in ("bluff", "all")]
    return out


QUICK = [
    Match("alone", "facts", "publisher", "remember"),
    Match("alone", "facts", "publisher", "watch"),
    Match("remember", "exact", "publisher", "all"),
    Match("alone", "facts", "bluffing", "bluff"),
]

COLUMNS = [
    "match", "series", "knowledge", "rules", "variant", "tipped", "base", "games",
    "win_share", "low", "high", "method", "diff", "diff_low", "diff_high", "verdict",
    "base_share", "mean_quartets", "quartets_low", "quartets_high", "mean_asks",
    "unfinished", "changed", "gain", "gain_low", "gain_high", "seconds",
]  # fmt: skip


def verdict(low: float, high: float) -> str:
    """``wins`` if the interval lies above the fair share, ``loses`` if below."""
    if low > FAIR:
        return "wins"
    if high < FAIR:
        return "loses"
    return "no difference shown"


def paired(match: Match, result: TournamentResult, reference: TournamentResult) -> dict[str, Any]:
    """The tipped seat against the same seat of the all-base game on the same deal.

    Game ``k`` of every tournament with the same seed has the same deal, and each seat's
    random numbers come from the deal seed and the seat, so where the tip changes no
    choice the match's game is the all-base game move for move.  ``changed`` is the
    share of games whose scores differ from it; ``gain`` the mean over games of the
    tipped seat's share of the win minus that seat's share in the all-base game, with a
    95% Student t interval (paired: the deal's luck cancels)."""
    from scipy import stats

    base = {g.game: g for g in reference.games}
    diffs, changed = [], 0
    for g in result.games:
        b = base[g.game]
        assert b.seed == g.seed, "the all-base games must be played on the same deals"
        seat = g.agents.index(match.tipped)
        diffs.append(g.share(seat) - b.share(seat))
        changed += g.scores != b.scores or g.asks != b.asks
    n = len(diffs)
    mean = sum(diffs) / n
    spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1)) if n > 1 else math.nan
    half = float(stats.t.ppf(0.975, n - 1)) * spread / math.sqrt(n) if n > 1 else math.nan
    if spread == 0.0:
        half = 0.0
    return {"changed": changed / n, "gain": mean, "gain_low": mean - half,
            "gain_high": mean + half}  # fmt: skip


def summarise(
    match: Match, result: TournamentResult, seconds: float, reference: TournamentResult
) -> dict[str, Any]:
    """The match's row of ``folk_tips.csv``."""
    rows = {row.agent: row for row in result.summary()}
    me, base = rows[match.tipped], rows[match.base]
    low, high = me.win_interval
    return {
        "match": match.key, "series": match.series, "knowledge": match.knowledge,
        "rules": RULES[match.rules].name, "variant": match.variant, "tipped": match.tipped,
        "base": match.base, "games": len(result.games),
        "win_share": me.win_share, "low": low, "high": high, "method": me.win_method,
        "diff": me.win_share - FAIR, "diff_low": low - FAIR, "diff_high": high - FAIR,
        "verdict": verdict(low, high), "base_share": base.win_share,
        "mean_quartets": me.mean_quartets, "quartets_low": me.quartets_interval[0],
        "quartets_high": me.quartets_interval[1],
        "mean_asks": sum(g.asks for g in result.games) / max(1, len(result.games)),
        "unfinished": sum(1 for g in result.games if not g.finished),
        **paired(match, result, reference),
        "seconds": round(seconds, 1),
    }  # fmt: skip


def play(match: Match, games: int, seed: int, jobs: int, folder: Path,
         progress: bool = False) -> TournamentResult:  # fmt: skip
    """Play (or resume) one match; its games go to ``folder/games/<match>.csv``."""
    seatings = len(arrangements(match.agents))
    games = -(-games // seatings) * seatings  # every seating equally often
    (folder / "games").mkdir(parents=True, exist_ok=True)
    return kw.tournament(
        list(match.agents), games=games, rules=RULES[match.rules], seed=seed, jobs=jobs,
        out=folder / "games" / f"{match.key}.csv", progress=progress,
    )  # fmt: skip


def play_reference(match: Match, games: int, seed: int, jobs: int, folder: Path,
                   progress: bool = False) -> TournamentResult:  # fmt: skip
    """The all-base games on the match's deals (``games/base-<series>-<knowledge>-<rules>.csv``,
    shared by the matches with that base)."""
    seatings = len(arrangements(match.agents))
    games = -(-games // seatings) * seatings
    (folder / "games").mkdir(parents=True, exist_ok=True)
    name = f"base-{match.series}-{match.knowledge}-{match.rules}.csv"
    return kw.tournament(
        [match.base] * PLAYERS, games=games, rules=RULES[match.rules], seed=seed, jobs=jobs,
        out=folder / "games" / name, progress=progress,
    )  # fmt: skip


def write_rows(path: Path, rows: Sequence[dict[str, Any]]) -> None:
    """Write the summary CSV whole (a temporary file, then a rename)."""
    with atomic_path(path) as temporary, temporary.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(v) for k, v in row.items()})


def _cell(value: object) -> object:
    return f"{value:.6f}" if isinstance(value, float) else value


def write_games(
    path: Path,
    results: Sequence[tuple[Match, TournamentResult]],
    references: dict[str, TournamentResult] | None = None,
) -> None:
    """Every game of every match, then of every all-base tournament (``base-...``, no
    tipped seat), in one compact gzipped CSV (written whole)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["match", "game", "seed", "tipped_seat", "scores", "winners", "asks",
                     "finished", "first"])  # fmt: skip
    tables: list[tuple[str, str | None, TournamentResult]] = [
        (m.key, m.tipped, r) for m, r in results
    ]
    tables += [(key, None, r) for key, r in (references or {}).items()]
    for key, tipped, result in tables:
        for g in result.games:
            writer.writerow([
                key, g.game, g.seed, "ABCD"[g.agents.index(tipped)] if tipped else "",
                " ".join(map(str, g.scores)), " ".join(g.winners), g.asks, int(g.finished),
                g.first or "",
            ])  # fmt: skip
    atomic_write_bytes(path, gzip.compress(buffer.getvalue().encode("utf-8")))


def run(matches: Sequence[Match], games: int, seed: int, jobs: int, out: Path,
        progress: bool = False) -> list[dict[str, Any]]:  # fmt: skip
    """Play every match (resuming), write the CSVs after each, return the rows."""
    out.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    results: list[tuple[Match, TournamentResult]] = []
    references: dict[str, TournamentResult] = {}
    for match in matches:
        start = time.perf_counter()
        result = play(match, games, seed, jobs, out, progress)
        seconds = time.perf_counter() - start
        reference = play_reference(match, games, seed, jobs, out, progress)
        references[f"base-{match.series}-{match.knowledge}-{match.rules}"] = reference
        rows.append(summarise(match, result, seconds, reference))
        results.append((match, result))
        write_rows(out / "folk_tips.csv", rows)
        print(f"  {match.key}: {_line(rows[-1])}", flush=True)
    write_games(out / "folk_tips_games.csv.gz", results, references)
    return rows


def _line(row: dict[str, Any]) -> str:
    return (
        f"{row['tipped']} {float(row['win_share']):.3f} "
        f"[{float(row['low']):.3f}, {float(row['high']):.3f}] "
        f"vs fair {FAIR:.2f}: {float(row['diff']):+.3f} -> {row['verdict']}; "
        f"{100 * row['changed']:.0f}% of games changed, paired gain {row['gain']:+.3f} "
        f"[{row['gain_low']:+.3f}, {row['gain_high']:+.3f}]"
    )


# ----- the paper's files ----------------------------------------------------------------

_SERIES_MACRO = {"alone": "alone", "remember": "rem"}


def macro_stem(row: dict[str, Any]) -> str:
    """``kwTips`` + series + knowledge (+ ``Bluffing``) + variant, e.g. kwTipsAloneFactsSpread."""
    parts = ["kw", "tips", _SERIES_MACRO[str(row["series"])], str(row["knowledge"])]
    if str(row["rules"]) != "publisher":
        parts.append("bluffing")
    parts.append(str(row["variant"]))
    return _latex.macro_name(*parts)


def _signed(x: float) -> str:
    return ("+" if x >= 0 else "-") + _latex.fmt(abs(x), 3)


def numbers(rows: Sequence[dict[str, Any]]) -> dict[str, str]:
    """Macro name -> TeX text for every number the paper may quote."""
    out = {
        "kwTipsFair": _latex.fmt(FAIR, 2),
        "kwTipsMatches": _latex.fmt(len(rows), 0),
        "kwTipsGamesPerMatch": _latex.fmt(min(int(r["games"]) for r in rows), 0),
        "kwTipsGamesTotal": _latex.fmt(sum(int(r["games"]) for r in rows), 0),
        "kwTipsUnfinished": _latex.fmt(sum(int(r["unfinished"]) for r in rows), 0),
        "kwTipsWins": _latex.fmt(sum(1 for r in rows if r["verdict"] == "wins"), 0),
        "kwTipsLoses": _latex.fmt(sum(1 for r in rows if r["verdict"] == "loses"), 0),
        "kwTipsNoEffect": _latex.fmt(sum(1 for r in rows if float(r["changed"]) == 0.0), 0),
    }
    for row in rows:
        stem = macro_stem(row)
        share, low, high = (float(row[k]) for k in ("win_share", "low", "high"))
        out[stem + "Share"] = _latex.fmt(share, 3)
        out[stem + "CI"] = _latex.interval(low, high, 3)
        out[stem + "Diff"] = _signed(share - FAIR)
        out[stem + "DiffCI"] = f"[{_signed(low - FAIR)}, {_signed(high - FAIR)}]"
        out[stem + "Quartets"] = _latex.fmt(float(row["mean_quartets"]), 2)
        out[stem + "Verdict"] = str(row["verdict"])
        out[stem + "Changed"] = _latex.fmt(100 * float(row["changed"]), 1)
        out[stem + "Gain"] = _signed(float(row["gain"]))
        out[stem + "GainCI"] = (
            f"[{_signed(float(row['gain_low']))}, {_signed(float(row['gain_high']))}]"
        )
    return out


TABLE_COLUMNS = [
    ("alone", "facts", "publisher"),
    ("alone", "exact", "publisher"),
    ("remember", "facts", "publisher"),
    ("remember", "exact", "publisher"),
]


def table_rows(rows: Sequence[dict[str, Any]]) -> list[list[str]]:
    """Rows of the booktabs table: one per variant (then the bluffing-rules rows), a cell
    per series and knowledge: share and interval, bold when the interval is above 1/4,
    italic when below, a dagger when the tip changed no game (the base's own games)."""
    by = {(r["series"], r["knowledge"], r["rules"], r["variant"]): r for r in rows}

    def cell(series: str, knowledge: str, rules: str, variant: str) -> str:
        row = by.get((series, knowledge, RULES[rules].name, variant))
        if row is None:
            if series == "alone" and knowledge == "exact" and variant not in ("remember", "all"):
                return "\\textit{as facts}"
            if series == "remember" and variant in ("remember", "watch"):
                return "\\textit{= base}"
            return "--"
        share, low, high = (float(row[k]) for k in ("win_share", "low", "high"))
        text = f"{_latex.fmt(share, 3)} {_latex.interval(low, high, 3)}"
        if float(row["changed"]) == 0.0:  # the tip never fired: the base's own games
            return f"{text}$^\\dagger$"
        if row["verdict"] == "wins":
            return f"\\textbf{{{text}}}"
        if row["verdict"] == "loses":
            return f"\\textit{{{text}}}"
        return text

    out = []
    for variant in VARIANTS:
        out.append([_latex.escape(TITLES[variant])]
                   + [cell(s, k, r, variant) for s, k, r in TABLE_COLUMNS])  # fmt: skip
    for variant in ("bluff", "all"):
        label = _latex.escape(f"{TITLES[variant]}, bluffing rules")
        out.append([label] + [cell(s, k, "bluffing", variant) for s, k, _ in TABLE_COLUMNS])
    return out


def write_latex(out: Path, rows: Sequence[dict[str, Any]]) -> None:
    _latex.write_numbers(out / "folk_tips_numbers.tex", SCRIPT, numbers(rows))
    header = ["tip", "alone, facts", "alone, exact", "on remember, facts", "on remember, exact"]
    _latex.write_table(out / "folk_tips_table.tex", SCRIPT, header, table_rows(rows))


def figure(out: Path, rows: Sequence[dict[str, Any]]) -> Path:
    """Win share of the tipped player per variant, 95% intervals, the fair share dashed;
    one panel per series; facts and exact side by side, bluffing rules hollow."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("alone", "each tip alone on tips[none]"),
              ("remember", "each tip on tips[remember]")]  # fmt: skip
    styles = {
        ("facts", "publisher"): ("C0", "o", True),
        ("exact", "publisher"): ("C1", "s", True),
        ("facts", "publisher+bluffing"): ("C0", "o", False),
        ("exact", "publisher+bluffing"): ("C1", "s", False),
    }
    offsets = {("facts", "publisher"): -0.2, ("exact", "publisher"): -0.07,
               ("facts", "publisher+bluffing"): 0.07, ("exact", "publisher+bluffing"): 0.2}  # fmt: skip
    with _latex.paper_style():
        fig, axes = plt.subplots(2, 1, figsize=(_latex.TEXT_WIDTH_IN, 6.6))
        labelled: set[tuple[str, str]] = set()
        for ax, (series, title) in zip(axes, panels, strict=True):
            variants = [v for v in VARIANTS if any(r["series"] == series and r["variant"] == v
                                                   for r in rows)]  # fmt: skip
            never: dict[int, float] = {}  # variants whose tip never changed a choice
            for row in rows:
                if row["series"] != series:
                    continue
                kind = (str(row["knowledge"]), str(row["rules"]))
                colour, marker, filled = styles[kind]
                x = variants.index(str(row["variant"])) + offsets[kind]
                share, low, high = (float(row[k]) for k in ("win_share", "low", "high"))
                label = None
                if kind not in labelled:
                    label = f"{kind[0]}, {kind[1].replace('publisher+', '')}"
                    labelled.add(kind)
                if float(row["changed"]) == 0.0:
                    never[variants.index(str(row["variant"]))] = max(
                        never.get(variants.index(str(row["variant"])), 0.0), high
                    )
                ax.errorbar(x, share, yerr=[[share - low], [high - share]], color=colour,
                            marker=marker, markerfacecolor=colour if filled else "white",
                            markersize=6, capsize=3, linestyle="none", label=label)  # fmt: skip
            for x, top in never.items():  # once per variant, above its highest interval
                ax.annotate("never fires", (x, top), textcoords="offset points", xytext=(0, 3),
                            ha="center", va="bottom", color="grey", rotation=90)  # fmt: skip
            ax.axhline(FAIR, color="grey", linestyle="--", linewidth=1, label="fair share 1/4")
            ax.margins(y=0.22)  # room for the "never fires" notes
            ax.set_xticks(range(len(variants)))
            ax.set_xticklabels(variants, rotation=30)
            ax.set_xlim(-0.6, len(variants) - 0.4)
            ax.set_title(title)
            ax.grid(axis="y", alpha=0.3)
        axes[0].set_ylabel("win share of the tipped\nplayer (95% interval)")
        axes[1].set_ylabel("win share (own scale)")
        games = min(int(r["games"]) for r in rows)
        fig.suptitle(f"One tipped player against three base players, {games} games a point")
        handles, labels = [], []
        for ax in axes:
            for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.legend(handles, labels, loc="outside lower center", ncol=3)
        path = out / "folk_tips.png"
        fig.savefig(path, dpi=120)
        fig.savefig(path.with_suffix(".pdf"))
    plt.close(fig)
    return path


def report(rows: Sequence[dict[str, Any]]) -> str:
    """The printed summary."""
    lines = [f"Folk tips: one tipped player vs three base players, fair share {FAIR:.2f}."]
    for (series, knowledge, rules), group in _groups(rows):
        lines.append("")
        lines.append(f"== on {SERIES[series]}:{knowledge}, {rules} rules")
        lines.append(f"  {'variant':<9} {'games':>6}  {'share':>6}  {'95% interval':<16} "
                     f"{'- 1/4':>7}  {'quartets':>8}  {'asks':>5}  {'changed':>7}  "
                     f"{'paired gain [95%]':<25} verdict")  # fmt: skip
        for r in group:
            lines.append(
                f"  {r['variant']!s:<9} {r['games']!s:>6}  {float(r['win_share']):6.3f}  "
                f"[{float(r['low']):.3f}, {float(r['high']):.3f}]   "
                f"{float(r['diff']):+7.3f}  {float(r['mean_quartets']):8.2f}  "
                f"{float(r['mean_asks']):5.1f}  {100 * float(r['changed']):6.1f}%  "
                f"{float(r['gain']):+.3f} [{float(r['gain_low']):+.3f}, "
                f"{float(r['gain_high']):+.3f}]   {r['verdict']}"
            )
    unfinished = sum(int(r["unfinished"]) for r in rows)
    lines.append("")
    lines.append("changed: the games whose scores or length differ from the all-base game on the "
                 "same deal (0%: the tip never fired); paired gain: the tipped seat's share minus "
                 "that seat's share in the all-base game, mean over deals.")  # fmt: skip
    lines.append(f"{len(rows)} matches, {sum(int(r['games']) for r in rows)} games, "
                 f"{unfinished} stopped at the ask limit")  # fmt: skip
    return "\n".join(lines)


def _groups(rows: Sequence[dict[str, Any]]) -> list[tuple[tuple[str, str, str], list]]:
    groups: dict[tuple[str, str, str], list] = {}
    for r in rows:
        groups.setdefault((str(r["series"]), str(r["knowledge"]), str(r["rules"])), []).append(r)
    return list(groups.items())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2400, help="games per match (x4)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1414)
    parser.add_argument("--out", default="folk_tips_results", help="output folder")
    parser.add_argument("--quick", action="store_true", help="4 matches of 8 games")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    if args.games < 2 or (args.jobs < 1):
        parser.error("--games must be 2 or more and --jobs 1 or more")
    matches = QUICK if args.quick else all_matches()
    games = 8 if args.quick else args.games
    out = Path(args.out)
    start = time.perf_counter()
    print(f"{len(matches)} matches of {games} games, seed {args.seed}, jobs {args.jobs}, "
          f"load {', '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)  # fmt: skip
    rows = run(matches, games, args.seed, args.jobs, out, args.progress)
    write_latex(out, rows)
    figure(out, rows)
    print()
    print(report(rows))
    elapsed = time.perf_counter() - start
    print(f"\n{elapsed:.0f} s wall this run; load {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    assert all(math.isfinite(float(r["low"])) for r in rows)


if __name__ == "__main__":
    main()
