"""Does a learner find the epistemic reasoning that the exact agents get for free?

sb3-contrib's ``MaskablePPO`` learns Kwartet in one seat of
:class:`kwartet_epistemic.interop.environments.KwartetGymEnv` (every seat in turn, one episode each)
against computer opponents, once with the raw public record as its observation and once
with its exact knowledge instead (its location probabilities; the hand, table, hand
sizes and scores are in both).  Settings: ``small`` is 3 players with 16 cards
(``Deck.piquet(families=4)``), ``full`` the 32-card game of 4 players; opponents
``defensive:facts`` and ``knowledge``.

Reported: learning curves (the learner's share of the win in a fixed set of seat-rotated
evaluation games after each stretch of training, the same deals every time) as a figure,
and the final share of the win with a 95% interval over seat-rotated, seeded evaluation
games (game ``k``: the learner in seat ``k mod n``, the deal and the opponents' random
numbers from the seed ``eval_seed + k``; the learner samples its legal ask from its
policy, torch seeded by the game; the final rows also give ``ppo-argmax``, the same
policy always taking its most probable ask, which is not the policy PPO trained).
For scale the same games are played with agent specs in the learner's seat: ``random``,
the opponents' own spec (an equal player, about 1/n) and ``knowledge``.  A deal in which
the learner never moves counts as played (with the share it got).

Run (``--quick`` is the CI-sized check of the machinery)::

    python experiments/rl_baseline.py --quick --out /tmp/rl

The measurement in ``paper/measurements/rl_baseline.*`` ran as six processes (two at a
time), joined with ``--merge``::

    python experiments/rl_baseline.py --settings small --timesteps 30000 --out A
    python experiments/rl_baseline.py --settings small --timesteps 30000 --seeds 1 \
        --no-references --out B
    python experiments/rl_baseline.py --settings small --opponents defensive:facts \
        --observations raw --no-references --timesteps 120000 --points 8 --out C
    (the same with --observations knowledge --out D)
    python experiments/rl_baseline.py --settings full --timesteps 30000 --out E
    python experiments/rl_baseline.py --settings full --opponents defensive:facts \
        --reward quartets --no-references --timesteps 30000 --out F
    python experiments/rl_baseline.py --merge A/rl_baseline.csv ... F/rl_baseline.csv

Each run writes ``rl_baseline.csv`` (every curve point, final and reference row),
``rl_baseline.png`` (the curves) and ``rl_baseline.txt`` (the table, with the time and
load) into ``--out`` (default ``paper/measurements``).  In a joined figure a curve is one
(observation, training reward, seed); of two runs of one configuration and seed the figure
draws the longer, the table keeps both.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.agents.agent import make_player
from kwartet_epistemic.interop.environments import KwartetGymEnv

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

SETTINGS: dict[str, dict[str, Any]] = {
    "small": {"players": 3, "deck": kw.Deck.piquet(families=4)},
    "full": {"players": 4, "deck": kw.Deck.piquet()},
}
OPPONENTS = ("defensive:facts", "knowledge")
OBSERVATIONS = ("raw", "knowledge")
REFERENCES = ("random", "knowledge")
EVAL_SEED = 1_000_000  # evaluation deals are far from any training seed


@dataclass(frozen=True)
class Result:
    """One evaluation: the learner's (or a spec's) share of the win over ``games``."""

    setting: str
    opponent: str
    observation: str
    player: str  # "ppo" (sampled), "ppo-argmax" (most probable action) or an agent spec
    seed: int  # the training seed (-1 for a spec)
    timesteps: int
    games: int
    win_share: float
    low: float
    high: float
    kind: str  # "curve", "final" or "reference"


def make_env(setting: str, opponent: str, observation: str, reward: str = "win") -> KwartetGymEnv:
    """The training (and evaluation) environment of one configuration (evaluation always
    counts the share of the win)."""
    return KwartetGymEnv(
        **SETTINGS[setting], opponents=opponent, observation=observation, reward=reward
    )


def learner_name(reward: str, deterministic: bool = False) -> str:
    """``ppo``, ``ppo-argmax``, and ``ppo[quartets]`` when trained on quartets."""
    name = "ppo-argmax" if deterministic else "ppo"
    return name if reward == "win" else f"{name}[{reward}]"


def interval(shares: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% normal interval (kept in [0, 1])."""
    mean = float(shares.mean())
    if len(shares) < 2:
        return mean, mean, mean
    half = 1.96 * float(shares.std(ddof=1)) / math.sqrt(len(shares))
    return mean, max(0.0, mean - half), min(1.0, mean + half)


Chooser = Callable[[KwartetGymEnv, np.ndarray, int], int]


def evaluate(env: KwartetGymEnv, choose: Chooser, games: int, seed: int = EVAL_SEED) -> np.ndarray:
    """The learner's share of the win in each of ``games`` seat-rotated games: game ``k``
    seats the learner in seat ``k mod n`` and takes its deal and the opponents' random
    numbers from ``seed + k``.  ``choose(env, observation, k)`` gives the action."""
    n = len(env.seats)
    shares = np.zeros(games)
    for k in range(games):
        observation, info = env.reset(seed=seed + k, options={"seat": k % n})
        if info["skipped"]:  # the first deal of this seed: the learner never moved
            shares[k] = info["skipped"][0]
            continue
        total, done = 0.0, False
        while not done:
            observation, reward, terminated, truncated, _ = env.step(choose(env, observation, k))
            total += float(reward)
            done = terminated or truncated
        shares[k] = total
    return shares


def model_chooser(model: Any, deterministic: bool = False) -> Chooser:
    """The trained policy: a legal action sampled from it (torch's generator seeded by the
    game, so an evaluation reproduces), or with ``deterministic`` its most probable one."""
    import torch

    started: list[int] = []

    def choose(env: KwartetGymEnv, observation: np.ndarray, k: int) -> int:
        if not started or started[0] != k:
            started[:] = [k]
            torch.manual_seed(EVAL_SEED + k)
        action, _state = model.predict(
            observation, action_masks=env.action_masks(), deterministic=deterministic
        )
        return int(action)

    return choose


def spec_chooser(spec: str) -> Chooser:
    """An agent spec in the learner's seat (a fresh agent each game, seeded by the game)."""
    agents: dict[int, Any] = {}

    def choose(env: KwartetGymEnv, _: np.ndarray, k: int) -> int:
        if k not in agents:
            agents.clear()
            agents[k] = make_player(spec, env.seat, np.random.default_rng([k, 7]))
        assert env.game is not None and env.seat is not None
        return env.encode(agents[k].choose(env.game.view(env.seat)))

    return choose


def train(
    setting: str,
    opponent: str,
    observation: str,
    timesteps: int,
    seed: int,
    points: int,
    curve_games: int,
    n_steps: int = 512,
    batch_size: int = 64,
    epochs: int = 10,
    reward: str = "win",
) -> tuple[Any, list[Result]]:
    """Train MaskablePPO; evaluate on ``curve_games`` games after each of ``points``
    stretches (and before any training)."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = make_env(setting, opponent, observation, reward)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=batch_size,
        n_epochs=epochs,
        learning_rate=3e-4,
        gamma=1.0,  # the only reward is the share of the win at the end
        ent_coef=0.01,
        policy_kwargs={"net_arch": [128, 128]},
        seed=seed,
        device="cpu",
    )
    evaluator = make_env(setting, opponent, observation)
    curve = []

    def point(steps: int) -> None:
        shares = evaluate(evaluator, model_chooser(model), curve_games)
        mean, low, high = interval(shares)
        curve.append(
            Result(setting, opponent, observation, learner_name(reward), seed, steps, curve_games, mean, low,
                   high, "curve")
        )  # fmt: skip

    point(0)
    done = 0
    for k in range(1, points + 1):
        target = timesteps * k // points
        model.learn(target - done, reset_num_timesteps=False)
        done = model.num_timesteps
        point(done)
    return model, curve


def run(args: argparse.Namespace) -> list[Result]:
    results: list[Result] = []
    for setting in args.settings:
        for opponent in args.opponents:
            for observation in args.observations:
                for seed in args.seeds:
                    start = time.process_time()
                    model, curve = train(
                        setting, opponent, observation, args.timesteps, seed, args.points,
                        args.curve_games, args.n_steps, args.batch_size, args.epochs,
                        args.reward,
                    )  # fmt: skip
                    results += curve
                    for deterministic in (False, True):
                        player = learner_name(args.reward, deterministic)
                        shares = evaluate(
                            make_env(setting, opponent, observation),
                            model_chooser(model, deterministic), args.eval_games,
                        )  # fmt: skip
                        mean, low, high = interval(shares)
                        results.append(
                            Result(setting, opponent, observation, player, seed,
                                   model.num_timesteps, args.eval_games, mean, low, high, "final")
                        )  # fmt: skip
                        print(
                            f"{setting:5} vs {opponent:15} {observation:9} {player:10} seed "
                            f"{seed}: {mean:.3f} [{low:.3f}, {high:.3f}] after "
                            f"{model.num_timesteps} steps ({time.process_time() - start:.0f} s CPU)",
                            flush=True,
                        )
            for spec in dict.fromkeys([*REFERENCES, opponent]) if args.references else ():
                shares = evaluate(make_env(setting, opponent, "raw"), spec_chooser(spec),
                                  args.eval_games)  # fmt: skip
                mean, low, high = interval(shares)
                results.append(
                    Result(setting, opponent, "-", spec, -1, 0, args.eval_games, mean, low,
                           high, "reference")
                )  # fmt: skip
                print(f"{setting:5} vs {opponent:15} {spec:19}: {mean:.3f} [{low:.3f}, {high:.3f}]")
    return results


def write_csv(results: Sequence[Result], path: Path) -> None:
    fields = list(Result.__dataclass_fields__)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(fields)
        for row in results:
            writer.writerow([getattr(row, f) for f in fields])


def read_csv(path: Path) -> list[Result]:
    """The rows of a CSV that :func:`write_csv` wrote."""
    kinds = {name: field.type for name, field in Result.__dataclass_fields__.items()}
    convert = {"int": int, "float": float, "str": str}
    with path.open(newline="") as handle:
        return [
            Result(**{k: convert[str(kinds[k])](v) for k, v in row.items()})
            for row in csv.DictReader(handle)
        ]


def table(results: Sequence[Result]) -> str:
    rows = [r for r in results if r.kind != "curve"]
    names = [r.player if r.kind == "reference" else f"{r.player} (seed {r.seed})" for r in rows]
    width = max([len("player"), *(len(n) for n in names)])
    lines = [
        f"{'setting':7} {'opponents':15} {'player':{width}} {'observation':11} "
        f"{'steps':>7} {'games':>5}  win share  95% interval"
    ]
    for row, name in zip(rows, names, strict=True):
        lines.append(
            f"{row.setting:7} {row.opponent:15} {name:{width}} {row.observation:11} "
            f"{row.timesteps:7} {row.games:5}  {row.win_share:9.3f}  [{row.low:.3f}, {row.high:.3f}]"
        )
    return "\n".join(lines)


def _longest_curves(rows: Sequence[Result]) -> dict[tuple[str, str, int], list[Result]]:
    """The curve rows of one panel as curves, one per (observation, player, seed); each
    run's curve starts at 0 steps, and of several runs of one key the longest is kept."""
    runs: list[list[Result]] = []
    for row in rows:
        if row.kind != "curve":
            continue
        key = (row.observation, row.player, row.seed)
        open_run = next(
            (
                run
                for run in reversed(runs)
                if (run[0].observation, run[0].player, run[0].seed) == key
            ),
            None,
        )
        if row.timesteps == 0 or open_run is None:
            runs.append([row])
        else:
            open_run.append(row)
    longest: dict[tuple[str, str, int], list[Result]] = {}
    for run in runs:
        key = (run[0].observation, run[0].player, run[0].seed)
        if key not in longest or run[-1].timesteps > longest[key][-1].timesteps:
            longest[key] = run
    return longest


def figure(results: Sequence[Result], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    with _latex.paper_style():
        settings = list(dict.fromkeys(r.setting for r in results))
        opponents = list(dict.fromkeys(r.opponent for r in results))
        fig, axes = plt.subplots(len(settings), len(opponents), squeeze=False, sharey=True,
                                 figsize=(_latex.TEXT_WIDTH_IN, 2.3 * len(settings) + 1.2))  # fmt: skip
        panels = {
            (s, o): axes[i][j] for i, s in enumerate(settings) for j, o in enumerate(opponents)
        }
        colours = {"raw": "tab:blue", "knowledge": "tab:orange", "both": "tab:green"}
        styles = {"random": ":", "knowledge": "--"}
        for (setting, opponent), ax in panels.items():
            here = [r for r in results if (r.setting, r.opponent) == (setting, opponent)]
            if not here:
                ax.set_visible(False)
                continue
            labelled: set[tuple[str, str]] = set()
            for (observation, player, _seed), curve in _longest_curves(here).items():
                x = [r.timesteps for r in curve]
                trained = player.partition("[")[2].rstrip("]") or "win"
                label = f"PPO, {observation}" + ("" if trained == "win" else f", {trained} reward")
                ax.plot(x, [r.win_share for r in curve], color=colours[observation], marker="o",
                        markersize=3, linestyle="-" if trained == "win" else "--",
                        label=None if (observation, player) in labelled else label)  # fmt: skip
                labelled.add((observation, player))
                ax.fill_between(x, [r.low for r in curve], [r.high for r in curve],
                                color=colours[observation], alpha=0.12, linewidth=0)  # fmt: skip
            for r in here:
                if r.kind == "reference":
                    style = styles.get(r.player, "-.")
                    label = f"{r.player} in its seat"
                    ax.axhline(r.win_share, color="0.35", linestyle=style, linewidth=1, label=label)
            players = SETTINGS[setting]["players"]
            ax.set_title(f"{setting}: {players} players, {len(SETTINGS[setting]['deck'])} cards\n"
                         f"against {opponent}")  # fmt: skip
            ax.set_xlabel("training steps")
            # thousands, so that six-digit step counts do not run into each other
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1000:g}k" if v else "0"))
            ax.set_ylim(0, max(0.45, max(r.high for r in here) + 0.05))
            ax.grid(alpha=0.3)
        for row in axes:
            row[0].set_ylabel("learner's win share")
        legend: dict[str, Any] = {}
        for ax in axes.flat:
            for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
                legend.setdefault(label, handle)
        # One legend below the panels: three columns fit under two panels, one under one.
        # (the saved figure grows to hold it).
        fig.legend(legend.values(), legend.keys(), loc="outside lower center",
                   ncol=2 if len(opponents) > 1 else 1)  # fmt: skip
        fig.savefig(path, dpi=130)
        fig.savefig(path.with_suffix(".pdf"))
    plt.close(fig)


_WORDS = {"small": "Small", "full": "Full", "defensive:facts": "Defensive",
          "knowledge": "Knowledge", "raw": "Raw", "random": "Random"}  # fmt: skip


def latex_outputs(results: Sequence[Result], out: Path) -> None:
    """``rl_baseline_numbers.tex`` and ``rl_baseline_table.tex`` for the paper.

    One macro per final or reference row: ``\\kwRl`` + setting + opponents + (for the
    learner) ``Ppo`` or ``PpoArgmax``, ``Quartets`` when trained on quartets, the
    observation, ``Long`` for the longer of two training lengths and ``SeedOne`` for seed
    1; (for a spec) the spec (``Equal`` when it is the opponents' own spec).  Each has
    ``...Share`` and ``...CI``.  The table holds the sampled learner and the specs."""
    rows = [r for r in results if r.kind != "curve"]
    lengths = sorted({r.timesteps for r in rows if r.kind == "final"})
    macros: dict[str, str] = {}
    for r in rows:
        parts = ["kwRl", _WORDS[r.setting], _WORDS[r.opponent]]
        if r.kind == "final":
            parts.append("PpoArgmax" if r.player.startswith("ppo-argmax") else "Ppo")
            if r.player.endswith("[quartets]"):
                parts.append("Quartets")
            parts.append(_WORDS[r.observation])
            if len(lengths) > 1 and r.timesteps == lengths[-1]:
                parts.append("Long")
            if r.seed:
                parts.append(["", "SeedOne", "SeedTwo", "SeedThree"][r.seed])
        else:
            parts.append("Equal" if r.player == r.opponent else _WORDS[r.player])
        name = "".join(parts)
        if name + "Share" in macros:
            raise ValueError(f"rl_baseline: two rows for the macro {name}Share")
        macros[name + "Share"] = f"{r.win_share:.3f}"
        macros[name + "CI"] = f"[{r.low:.3f}, {r.high:.3f}]"
        if r.kind == "final":
            macros[name + "Steps"] = _latex.fmt(r.timesteps, 0)
    shown = [r for r in rows if r.kind == "reference" or not r.player.startswith("ppo-argmax")]
    shown.sort(key=lambda r: (r.setting != "small", r.opponent, r.kind, r.player, r.observation,
                              r.timesteps, r.seed))  # fmt: skip
    _latex.write_numbers(out / "rl_baseline_numbers.tex", "experiments/rl_baseline.py", macros)
    _latex.write_table(
        out / "rl_baseline_table.tex",
        "experiments/rl_baseline.py",
        ["setting", "opponents", "player", "observation", "steps", "win share", "95\\%"],
        [
            [
                r.setting,
                _latex.escape(r.opponent),
                _latex.escape(r.player if r.kind == "reference" else f"{r.player} (seed {r.seed})"),
                r.observation if r.kind == "final" else "--",
                _latex.fmt(r.timesteps, 0) if r.kind == "final" else "--",
                _latex.fmt(r.win_share, 3),
                f"[{r.low:.3f}, {r.high:.3f}]",
            ]
            for r in shown
        ],
        align="lllllrr",
    )


def main(argv: Sequence[str] | None = None) -> list[Result]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--settings", nargs="+", choices=list(SETTINGS), default=list(SETTINGS))
    parser.add_argument("--opponents", nargs="+", default=list(OPPONENTS))
    parser.add_argument("--observations", nargs="+", choices=OBSERVATIONS + ("both",),
                        default=list(OBSERVATIONS))  # fmt: skip
    parser.add_argument("--timesteps", type=int, default=60_000, help="per training run")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0], help="training seeds")
    parser.add_argument("--eval-games", type=int, default=600, help="final evaluation games")
    parser.add_argument("--curve-games", type=int, default=120, help="games per curve point")
    parser.add_argument("--points", type=int, default=6, help="curve points after training")
    parser.add_argument("--n-steps", type=int, default=512, help="PPO rollout length")
    parser.add_argument("--batch-size", type=int, default=64, help="PPO minibatch")
    parser.add_argument("--epochs", type=int, default=10, help="PPO epochs per rollout")
    parser.add_argument("--out", default=str(Path(__file__).parent.parent / "paper/measurements"))
    parser.add_argument(
        "--reward",
        choices=["win", "quartets"],
        default="win",
        help="training reward (evaluation counts the share of the win)",
    )
    parser.add_argument("--no-references", dest="references", action="store_false",
                        help="skip the agent specs in the learner's seat")  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="a few thousand steps, small game")
    parser.add_argument("--merge", nargs="+", metavar="CSV",
                        help="train nothing: join these CSVs into one table and figure")  # fmt: skip
    args = parser.parse_args(argv)
    if args.merge:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        merged = [row for path in args.merge for row in read_csv(Path(path))]
        write_csv(merged, out / "rl_baseline.csv")
        figure(merged, out / "rl_baseline.png")
        latex_outputs(merged, out)
        heads = []
        for path in args.merge:  # each run's own header: date, time, load, settings
            text = Path(path).with_suffix(".txt")
            if text.exists():
                heads.append(f"{path}:\n  " + "\n  ".join(text.read_text().splitlines()[:2]))
        text = "joined with --merge from\n" + "\n".join(heads) + "\n\n" + table(merged) + "\n"
        (out / "rl_baseline.txt").write_text(text)
        print(text)
        return merged
    if args.quick:
        args.settings, args.opponents, args.timesteps = ["small"], ["defensive:facts"], 2048
        args.eval_games, args.curve_games, args.points, args.n_steps = 60, 30, 2, 256
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    results = run(args)
    write_csv(results, out / "rl_baseline.csv")
    figure(results, out / "rl_baseline.png")
    latex_outputs(results, out)
    load = os.getloadavg()[0]
    text = (
        f"{time.strftime('%a %b %d %Y %H:%M UTC', time.gmtime())}, {time.time() - start:.0f} s "
        f"wall, {time.process_time():.0f} s CPU, load average at the end {load:.2f}\n"
        f"timesteps {args.timesteps}, seeds {args.seeds}, eval games {args.eval_games} "
        f"(seeds {EVAL_SEED}..), curve games {args.curve_games} x {args.points + 1} points\n\n"
        + table(results)
        + "\n"
    )
    (out / "rl_baseline.txt").write_text(text)
    print(text)
    return results


if __name__ == "__main__":
    main()
