"""Types of the search agent's compiled play-out (``agents/_playout_kernel.c``)."""

from collections.abc import Sequence

# The search agent's weighted play-out (agents/search.py: Playout.play, _likeliest) on
# masks of up to 64 bits and up to 16 players.
def playout(
    hands: Sequence[int],
    stock: Sequence[int],
    rank: Sequence[int],
    dead_cards: int,
    seen: Sequence[int],
    lacks: Sequence[int],
    mine: Sequence[int],
    claims: Sequence[int],
    scores: Sequence[int],
    blocked: int,
    n_families: int,
    me: int,
    target: int,
    card: int,
    bluffing: bool,
    clockwise: bool,
    bonus: bool,
) -> list[int] | None: ...
def likeliest(
    wanted: int,
    targets: Sequence[int],
    hands: Sequence[int],
    seen: Sequence[int],
    mine: Sequence[int] | None,
    lacks: Sequence[int],
    claims: Sequence[int],
    rank: Sequence[int],
    n: int,
) -> tuple[int, int]: ...
