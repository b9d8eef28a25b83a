"""Every engine against the 24 reference positions of ``shared/data``.

The test suite checks the counting engine on all 24 positions (public and per-player
world counts, also when built from each player's view); this script checks the explicit
engine (on the positions within its size limit) and the symbolic engine as well, and
prints one line per position.

Run from the repository root:  python paper/reference_positions_all_engines.py
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.explicit import EXPLICIT_LIMIT

REFERENCE = Path(__file__).resolve().parents[1] / "tests" / "data" / "reference_positions.json"


def replay(position: dict) -> kw.Game:
    deck = kw.Deck.from_spec(position["deck"])
    game = kw.Game.from_hands(deck, position["hands"], first=position["first"])
    for asker, target, card, _answer in position["asks"]:
        game.ask(target, card, asker=asker)
    return game


def main() -> None:
    positions = json.loads(REFERENCE.read_text())["positions"]
    agreed = {"counting": 0, "explicit": 0, "symbolic": 0}
    for index, position in enumerate(positions):
        game = replay(position)
        expected = [position["worlds"]["public"]] + [position["worlds"][p] for p in game.players]
        line = []
        for engine in agreed:
            if engine == "explicit" and expected[0] > EXPLICIT_LIMIT:
                line.append("explicit -")
                continue
            start = time.perf_counter()
            state = kw.knowledge(game, engine=engine)
            got = [state.count_worlds()] + [state.count_worlds(p) for p in game.players]
            seconds = time.perf_counter() - start
            assert got == expected, (index, engine, got, expected)
            agreed[engine] += 1
            line.append(f"{engine} ok {seconds:.2f} s")
        print(
            f"{index:2d} {position['deck']:<19} {len(game.players)} players "
            f"{len(position['asks']):2d} asks public {expected[0]:>20,}: " + ", ".join(line)
        )
    print(
        "positions reproduced:", ", ".join(f"{e} {n}/{len(positions)}" for e, n in agreed.items())
    )


if __name__ == "__main__":
    main()
