"""World counts at the deal and the size of the counting programme.

For the 32-card and 52-card decks and 3 to 6 players (all cards dealt, publisher rules,
deal seed 0): the number of deals (a multinomial over the dealt hand sizes), the cards
still hidden once the families dealt complete are laid down (with seed 0, A lays down
the jacks at once when 32 cards go to 3 players), the public worlds at the deal (the
ways of dealing those cards without a complete family in one hand), player A's worlds,
and the counting programme's
size: its dimensions (slots with room, less the implied one) and its number of states
(the product of capacity + 1 over the dimensions), publicly and for A's view; and the
median CPU time of one public count over 5 repeats.  The counts are exact integers from
:class:`~kwartet_epistemic.epistemics.counting.WorldCounter`; the count at the 12-card
deal of the worked example is checked against 34,032 (brute force in the test suite).

Writes ``world_counts.txt``, ``world_counts_numbers.tex`` (``\\kwWorlds...``) and
``world_counts_table.tex`` into ``--out`` (default ``paper/measurements``).

Run from the repository root:  python paper/world_counts.py [--out DIR]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.epistemics.history import PublicHistory, private_info

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))
import _latex  # noqa: E402

NAMES = ["A", "B", "C", "D", "E", "F"]
WORDS = {3: "Three", 4: "Four", 5: "Five", 6: "Six"}
DECKS = {32: "ThirtyTwo", 52: "FiftyTwo"}


def deck_of(cards: int) -> kw.Deck:
    families = cards // 4
    return kw.Deck.piquet(families=families) if families <= 8 else kw.Deck.standard(families)


def measure(cards: int, players: int, repeats: int = 5) -> dict[str, int | float]:
    """One row: deals, public and A's worlds, the programme's dimensions and states."""
    game = kw.Game.deal(deck_of(cards), NAMES[:players], seed=0)
    history = PublicHistory(game.deck, game.players, game.rules)
    history.extend(game.record)
    times = []
    for _ in range(repeats):
        history.memo.clear()
        start = time.process_time()
        public = WorldCounter(history)
        times.append(time.process_time() - start)
    view = game.view("A")
    info = private_info(game.deck, "A", view.hand, view.record)
    mine = WorldCounter(history, [info])
    # The deal's hand sizes, as the record announces them: a family dealt complete is
    # laid down at once, after which the hands are smaller (the worlds range over the
    # cards still hidden).
    dealt = next(e for e in game.record if isinstance(e, kw.events.Dealt)).hand_sizes
    deals = math.factorial(cards)
    for n in dealt:
        deals //= math.factorial(n)
    return {
        "cards": cards,
        "players": players,
        "deals": deals,
        "hidden": sum(len(game.hand(p)) for p in game.players),
        "public": public.count,
        "mine": mine.count,
        "dims": len(public.dims),
        "states": math.prod(c + 1 for c in public.cap),
        "mine_dims": len(mine.dims),
        "mine_states": math.prod(c + 1 for c in mine.cap),
        "ms": 1000 * statistics.median(times),
    }


def main(argv: list[str] | None = None) -> list[dict[str, int | float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="paper/measurements")
    args = parser.parse_args(argv)
    out = Path(args.out)
    example = kw.Game.from_hands(
        kw.Deck.piquet(families=3),
        {
            "A": ["8H", "8D", "8C", "9C"],
            "B": ["7S", "7H", "9S", "9D"],
            "C": ["7D", "7C", "8S", "9H"],
        },
        first="A",
    )
    history = PublicHistory(example.deck, example.players, example.rules)
    history.extend(example.record)
    small = WorldCounter(history).count
    assert small == 34_032, small
    rows = [measure(cards, p) for cards in (32, 52) for p in (3, 4, 5, 6)]
    lines = ["world counts at the deal (all cards dealt, publisher rules, seed 0)",
             "cards players deals hidden public_worlds A_worlds dims states A_dims A_states ms"]  # fmt: skip
    macros = {"kwWorldsExample": _latex.fmt(small, 0)}
    for r in rows:
        lines.append(" ".join(str(round(v, 3)) for v in r.values()))
        key = f"kwWorlds{DECKS[int(r['cards'])]}{WORDS[int(r['players'])]}"
        macros[key] = (
            _latex.fmt(int(r["public"]), 0)
            if r["public"] < 10**15
            else _latex.fmt(float(r["public"]), 2)
        )
        macros[key + "Bits"] = _latex.fmt(math.log2(r["public"]), 1)
        macros[key + "Deals"] = _latex.fmt(int(r["deals"]), 0)
        macros[key + "Mine"] = _latex.fmt(int(r["mine"]), 0)
        macros[key + "States"] = _latex.fmt(int(r["states"]), 0)
        macros[key + "MineStates"] = _latex.fmt(int(r["mine_states"]), 0)
        macros[key + "Ms"] = _latex.fmt(float(r["ms"]), 2)
    four = next(r for r in rows if r["cards"] == 32 and r["players"] == 4)
    macros["kwWorldsThirtyTwoFourExact"] = f"{int(four['public']):,}".replace(",", "{,}")

    def big(n: int) -> str:
        """A count in the table: whole below ten million, else two significant digits.

        >>> big(292864), big(45508998487680)
        ('$292{,}864$', '$4.6\\cdot10^{13}$')
        """
        if n < 10**7:
            return f"${_latex.fmt(n, 0)}$"
        mantissa, exponent = f"{n:.1e}".split("e")
        return f"${mantissa}\\cdot10^{{{int(exponent)}}}$"

    table = [
        [
            str(r["cards"]),
            str(r["players"]),
            big(int(r["deals"])),
            str(r["hidden"]),
            big(int(r["public"])),
            big(int(r["mine"])),
            f"{r['dims']} / {r['mine_dims']}",
            f"{_latex.fmt(int(r['states']), 0)} / {_latex.fmt(int(r['mine_states']), 0)}",
            f"${_latex.fmt(float(r['ms']), 2)}$",
        ]
        for r in rows
    ]
    out.mkdir(parents=True, exist_ok=True)
    _latex.write_numbers(out / "world_counts_numbers.tex", "paper/world_counts.py", macros)
    _latex.write_table(
        out / "world_counts_table.tex",
        "paper/world_counts.py",
        [
            "cards",
            "$p$",
            "deals",
            "hidden",
            "public",
            "A's",
            "dims",
            "states",
            "ms",
        ],  # fmt: skip
        table,
    )
    (out / "world_counts.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return rows


if __name__ == "__main__":
    main()
