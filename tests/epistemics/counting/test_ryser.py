"""Counts by Ryser's formula (``_counting_kernel.ryser``: inclusion-exclusion over the
slots' places, one product of the families' factored forms per evaluation point)
against the dense tables: the same count on random positions of every rule variant,
3-6 players and 12-32 cards, seen by nobody, one player or two pooling, in 64- and
128-bit arithmetic; the public worlds of draw-pile games, which it is for; known
answers of the formula itself; its giving up over budget (the dense tables answer);
where the dense tables would not fit in memory, the count and the location counts
without them; malformed calls refused."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kwartet_testing import (
    load_script,
    on_random_positions,
    public_history,
    random_position,
    viewer_infos,
)

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import WorldCounter, numbers
from kwartet_epistemic.epistemics.history import PublicHistory

pytestmark = pytest.mark.skipif(not counting.kernel_available(), reason="needs the kernel")


def _dense(history, viewers, monkeypatch, **kwargs) -> WorldCounter:
    """The counter on the dense tables alone."""
    options = counting.current_options().replace(ryser=False, sparse=False, staged=False)
    return WorldCounter(history, viewers, options=options, **kwargs)


class _Spy:
    """Records what ``ryser`` returned (None: it gave up) and calls it: counts in
    ``results``, calls with location sums in ``marginal_results``, each call's modulus
    (0: 2^64 or 2^128) in ``moduli``, the work of the calls that only ask for it (a
    negative budget) in ``estimates``."""

    def __init__(self, monkeypatch) -> None:
        self.results: list[int | None] = []
        self.moduli: list[int] = []
        self.estimates: list[int | None] = []
        kernel = counting.ryser._kernel
        original = kernel.ryser

        self.marginal_results: list[int | None] = []

        def spy(*args):
            result = original(*args)
            if args[3] < 0:  # only the work
                self.estimates.append(result)
                return result
            self.moduli.append(args[7] if len(args) > 7 else 0)
            marginal = len(args) > 4 and args[4] is not None  # owners given
            (self.marginal_results if marginal else self.results).append(result)
            return result

        proxy = type("Kernel", (), {})()
        for name in dir(kernel):
            if not name.startswith("_"):
                setattr(proxy, name, getattr(kernel, name))
        proxy.ryser = spy
        monkeypatch.setattr(counting.ryser, "_kernel", proxy)


def _arithmetic(monkeypatch, arithmetic: str) -> None:
    """Every count by Ryser's formula in this arithmetic: "64" or "128" (modulo 2^64 or
    2^128), "primes" (residues modulo primes below 2^62 joined by the Chinese remainder
    theorem, as beyond 2^128), "small primes" (many residues modulo primes from 101) or
    "mixed" (2^128 and one prime joined)."""
    if arithmetic == "128":
        # every count takes 128-bit arithmetic
        monkeypatch.setattr(counting.programme, "_NARROW", 2)
        monkeypatch.setattr(counting.ryser, "_NARROW", 2)
    elif arithmetic == "primes":
        monkeypatch.setattr(
            counting.ryser, "moduli", lambda bound, twos: numbers.primes_beyond(bound)
        )
    elif arithmetic == "small primes":  # several residues joined, even for small counts
        monkeypatch.setattr(
            counting.ryser, "moduli", lambda bound, twos: _small_primes_beyond(bound)
        )
    elif arithmetic == "mixed":
        first = numbers.primes_beyond(1)

        def mixed(bound: int, twos: int) -> list[int]:
            return [1 << 128, *first] if twos < 128 else numbers.primes_beyond(bound)

        monkeypatch.setattr(counting.ryser, "moduli", mixed)


ARITHMETIC = ["64", "128", "primes", "small primes", "mixed"]


def _small_primes_beyond(bound: int) -> list[int]:
    """Odd primes from 101 up, as many as make a product above the bound (at least two)."""
    from sympy import nextprime

    primes, product, prime = [], 1, 100
    while product <= bound or len(primes) < 2:
        prime = int(nextprime(prime))
        primes.append(prime)
        product *= prime
    return primes


def _fish_game(players: int, each: int, draws: int, seed: int) -> kw.Game:
    rules = kw.RuleSet.preset("fish").replace(cards_each=each)
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"][:players], seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    while not game.is_over and sum(isinstance(e, kw.events.Drew) for e in game.record) < draws:
        game.play(game.random_legal_ask(rng))
    return game


@pytest.mark.parametrize("arithmetic", ARITHMETIC)
@on_random_positions(80, families=8, players=6, asks=30)
def test_ryser_equals_the_dense_tables(
    arithmetic: str,
    seed: int,
    variant: int,
    families: int,
    players: int,
    asks: int,
    which: int,
    monkeypatch,
    counting_options,
) -> None:
    position = random_position(seed, variant, families, players, asks, which)
    if position is None:
        return
    history, viewers = position
    dense = _dense(history, viewers, monkeypatch)
    _arithmetic(monkeypatch, arithmetic)
    counting_options(ryser=True)
    spy = _Spy(monkeypatch)
    counter = WorldCounter(history, viewers)
    assert counter.count == dense.count
    if spy.results:  # it ran wherever every family has a factored form
        assert counter.programme_count == dense.programme_count
    elif not dense.zero and dense.tables:
        assert any(t.factored is None for t in dense.tables)


@pytest.mark.parametrize("arithmetic", ARITHMETIC)
@on_random_positions(60, families=8, players=6, asks=30)
def test_ryser_location_counts_equal_the_dense_tables(
    arithmetic: str,
    seed: int,
    variant: int,
    families: int,
    players: int,
    asks: int,
    which: int,
    monkeypatch,
    counting_options,
) -> None:
    """Each card's location counts by Ryser's formula (its linear form narrowed to one
    player's slots), with the dead-card and stuck corrections and the cards seen, are
    the dense tables' on random positions of every rule variant, from every view."""
    position = random_position(seed, variant, families, players, asks, which)
    if position is None:
        return
    history, viewers = position
    dense = _dense(history, viewers, monkeypatch)
    expected = dense.location_table()
    _arithmetic(monkeypatch, arithmetic)
    counting_options(ryser=True)
    spy = _Spy(monkeypatch)
    counter = WorldCounter(history, viewers)
    got = counter.location_table()
    assert got.tolist() == expected.tolist()
    assert counter.location_rows([0, 5]).tolist() == expected[[0, 5]].tolist()
    if spy.marginal_results and spy.marginal_results[0] is not None:
        assert not counter._origins_done  # no origin table was made
    got[0, 0] += 1  # the table handed out is the caller's own
    assert counter.location_table().tolist() == expected.tolist()


@pytest.mark.parametrize(("draws", "seed"), [(10, 1), (12, 2), (13, 3)])
def test_public_draw_pile_counts_take_ryser_by_default(draws: int, seed: int, monkeypatch) -> None:
    """Fish with 4 players and 3 cards each, random asks: after many draws the public
    count comes from Ryser's formula by default (no tables), as the dense tables have it,
    and so do the location counts, asked for later."""
    game = _fish_game(4, 3, draws, seed)
    history = public_history(game)
    dense = _dense(history, [], monkeypatch, marginals=draws <= 10)
    assert sum(1 for c in dense.cap if c == 1) >= draws - 2
    spy = _Spy(monkeypatch)
    counter = WorldCounter(history)
    assert spy.results and spy.results[0] is not None
    assert counter.count == dense.count
    assert counter._tableless
    if draws <= 10:
        assert (counter.location_table() == dense.location_table()).all()
        assert spy.marginal_results and spy.marginal_results[0] is not None


def test_beyond_2_128_the_count_is_joined_from_residues(monkeypatch) -> None:
    """52 cards, 3 players with 7 each, random asks: after ten draws the public count
    times the factors of 2 in the capacities' factorials passes 2^128, and Ryser's sums
    modulo primes (and 2^128) joined by the Chinese remainder theorem give the count
    and location counts of the dense tables' residues."""
    rules = kw.RuleSet.preset("fish").replace(cards_each=7)
    game = kw.Game.deal(kw.Deck.standard(), ["A", "B", "C"], seed=1, rules=rules)
    rng = np.random.default_rng(1)
    while sum(isinstance(e, kw.events.Drew) for e in game.record) < 10:
        game.play(game.random_legal_ask(rng))
    history = public_history(game)
    dense = _dense(history, [], monkeypatch, marginals=True)
    expected = dense.location_table()
    spy = _Spy(monkeypatch)
    counter = WorldCounter(history)
    assert counter._tableless and counter.count == dense.count
    assert counter.bound << 30 >= 1 << 128  # beyond what one run modulo 2^128 gives
    assert any(spy.moduli) and all(r is not None for r in spy.results)  # primes' residues
    assert (counter.location_table() == expected).all()
    assert spy.marginal_results and all(r is not None for r in spy.marginal_results)


def test_back_to_back_draws_keep_the_complete_family_rule(monkeypatch, counting_options) -> None:
    """The lone holder of the draw-pile tests: 72 public worlds by hand, by Ryser's formula too."""
    rules = kw.RuleSet.preset("fish").replace(cards_each=2)
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "8S"], "B": ["7H", "8H"]},
        first="A",
        rules=rules,
        stock=["8C", "7C", "8D", "7D"],
    )
    game.ask("B", "7H")
    game.ask("B", "8H")
    counting_options(ryser=True)
    spy = _Spy(monkeypatch)
    assert WorldCounter(public_history(game)).count == 72
    assert any(r is not None for r in spy.results)


def _rows(*rows: tuple[int, int, int, int, int]) -> np.ndarray:
    return np.array(rows, dtype=np.int64).reshape(-1, 5)


def test_known_answers_of_the_formula() -> None:
    """Ryser's sum is the number of worlds times the product of the capacities'
    factorials."""
    ryser = counting.ryser._kernel.ryser
    everywhere = 0b11
    # Two free cards, two draws: 2 worlds (either order).
    assert ryser((1, 1), [(0b0011, _rows((1, everywhere, everywhere, 0, 0)))], False, 1 << 40) == 2
    # Two free cards, one slot of two places: 1 world, times 2!.
    assert ryser((2,), [(0b0011, _rows((1, 1, 1, 0, 0)))], False, 1 << 40) == 2
    # Four cards of one family into a hand of 3 and a draw, the draw never the first
    # card: 3 worlds (the draw brought card 1, 2 or 3), times 3! * 1!.
    hand, draw = 0b01, 0b10
    rows = _rows((1, hand, hand | draw, hand | draw, hand | draw))
    assert ryser((3, 1), [(0b1111, rows)], False, 1 << 40) == 3 * 6
    # A "not all" clause by inclusion-exclusion: two cards, a hand of 2 and a pile of
    # 2, not both in the hand: C(4, 2) - 1 = 5 worlds of four cards (two families of
    # two free cards each), times 2! * 2!.
    both = 0b11
    not_both = _rows((1, both, both, 0, 0), (-1, 0b01, 0b01, 0, 0))
    free = (0b0011, _rows((1, both, both, 0, 0)))
    assert ryser((2, 2), [(0b0011, not_both), free], False, 1 << 40) == 5 * 4
    # 128-bit arithmetic gives the same residues where 64 bits suffice.
    assert ryser((2, 2), [(0b0011, not_both), free], True, 1 << 40) == 5 * 4


def test_known_answers_of_the_location_sums() -> None:
    """With owners, each free card's sum per owner: the worlds with the card there,
    times the factorials (low words, then high words in 128-bit arithmetic)."""
    ryser = counting.ryser._kernel.ryser
    # Two free cards, two draws, one each for players 0 and 1: each card is with each
    # player in 1 of the 2 worlds.
    out = np.zeros(4 * 2, dtype=np.uint64)
    rows = _rows((1, 0b11, 0b11, 0, 0))
    assert ryser((1, 1), [(0b0011, rows)], False, 1 << 40, (0, 1), out) == 2
    assert out.reshape(4, 2).tolist() == [[1, 1], [1, 1], [0, 0], [0, 0]]
    # Four cards into a hand of 3 (player 0) and a draw (player 1) that was never the
    # first card: 3 worlds; card 0 is always in the hand, the others each once drawn.
    hand, draw = 0b01, 0b10
    rows = _rows((1, hand, hand | draw, hand | draw, hand | draw))
    wide = np.zeros(4 * 2 * 2, dtype=np.uint64)
    assert ryser((3, 1), [(0b1111, rows)], True, 1 << 40, (0, 1), wide) == 3 * 6
    low, high = wide[:8].reshape(4, 2), wide[8:]
    assert (low // 6).tolist() == [[3, 0], [2, 1], [2, 1], [2, 1]]
    assert not high.any()
    # A slot with no owner (-1: a pile) gets no sums.
    out = np.zeros(4, dtype=np.uint64)
    assert ryser((1, 1), [(0b0011, _rows((1, 0b11, 0b11, 0, 0)))], False, 100, (0, -1), out) == 2
    assert out.tolist() == [1, 1, 0, 0]


def test_random_allowed_sets_against_brute_force() -> None:
    """Cards with random allowed slots (one family of up to four free cards each, no
    clauses) into slots of random capacities: Ryser's sum over the factorials is the
    number of assignments that fill every slot exactly."""
    rng = np.random.default_rng(7)
    for _ in range(60):
        n_slots = int(rng.integers(1, 4))
        caps = [int(c) for c in rng.integers(1, 3, size=n_slots)]
        n_cards = sum(caps)
        masks = [int(rng.integers(1, 1 << n_slots)) for _ in range(n_cards)]
        families = []
        for start in range(0, n_cards, 4):
            chunk = masks[start : start + 4]
            free = (1 << len(chunk)) - 1
            families.append((free, _rows((1, *(chunk + [0] * (4 - len(chunk)))))))
        expected = 0
        for origins in np.ndindex(*([n_slots] * n_cards)):
            if all(masks[c] >> s & 1 for c, s in enumerate(origins)):
                used = np.bincount(np.array(origins, dtype=np.int64), minlength=n_slots)
                expected += used.tolist() == caps
        scale = math.prod(math.factorial(c) for c in caps)
        got = counting.ryser._kernel.ryser(tuple(caps), families, True, 1 << 40)
        assert got == expected * scale % (1 << 128)
        for prime in (3, 101, numbers._PRIMES[0]):  # Montgomery arithmetic modulo primes
            residue = counting.ryser._kernel.ryser(
                tuple(caps), families, True, 1 << 40, None, None, -1, prime
            )
            assert residue == expected * scale % prime


def test_over_budget_it_gives_up_and_the_dense_tables_answer(monkeypatch) -> None:
    game = _fish_game(4, 3, 12, 1)
    history = public_history(game)
    dense = _dense(history, [], monkeypatch)
    monkeypatch.setattr(counting.plan, "_RYSER_SHARE", 0)  # a budget of 0
    spy = _Spy(monkeypatch)
    counter = WorldCounter(history)
    assert spy.results and all(r is None for r in spy.results)
    assert counter.count == dense.count
    assert not counter._tableless


@pytest.mark.parametrize("sums", [True, False])
def test_where_the_dense_tables_do_not_fit_the_formula_counts_without_them(
    sums: bool, monkeypatch, counting_options
) -> None:
    """Under a memory limit below the dense tables' need, the count and the location
    counts still come: by the formula's location sums, or without them (``sums``
    False) each a count with one card restricted to a player's slots."""
    game = _fish_game(4, 3, 10, 2)
    history = public_history(game)
    viewers = viewer_infos(game, 1)
    dense = _dense(history, viewers, monkeypatch, marginals=True)
    expected = dense.location_table()
    counting_options(sparse=False)
    monkeypatch.setattr(counting.plan, "_RYSER_SHARE", 0)  # only the unfit budget lets it run
    monkeypatch.setattr(counting.plan, "_RYSER_MARGINAL_SHARE", 0)
    if not sums:
        monkeypatch.setattr(WorldCounter, "_ryser_locations", lambda self: None)
    spy = _Spy(monkeypatch)
    # Below what the dense tables need for a count, above what the formula's take.
    limit = dense.programme.memory_need(0, dense.programme.width, False, in_kernel=True) // 2
    with counting.memory_limit(limit):
        counter = WorldCounter(history, viewers)
        assert counter.count == dense.count
        assert counter._tableless
        assert (counter.location_table() == expected).all()
    assert bool(spy.marginal_results) == sums
    with counting.memory_limit(100), pytest.raises(kw.ModelTooLargeError):
        WorldCounter(history, viewers)  # nor the formula's own tables
    with counting.memory_limit(limit):
        counting_options(ryser=False)
        with pytest.raises(kw.ModelTooLargeError):
            WorldCounter(history, viewers)


def test_the_kernel_refuses_malformed_calls() -> None:
    ryser = counting.ryser._kernel.ryser
    rows = _rows((1, 1, 1, 0, 0))
    for modulus in (2, 1, 1 << 62, (1 << 62) + 1):
        with pytest.raises(ValueError, match="modulus"):
            ryser((1, 1), [(3, rows)], False, 100, None, None, -1, modulus)
    with pytest.raises(ValueError, match="slots"):
        ryser((), [(3, rows)], False, 100)
    with pytest.raises(ValueError, match="slots"):
        ryser((1,), [], False, 100)
    with pytest.raises(ValueError, match="capacities"):
        ryser((0, 1), [(3, rows)], False, 100)
    with pytest.raises(ValueError, match="family"):
        ryser((1, 1), [(3,)], False, 100)
    with pytest.raises(ValueError, match="rows"):
        ryser((1, 1), [(3, np.zeros(3, dtype=np.int32))], False, 100)
    assert ryser((1, 1), [(3, rows)], False, 0) is None  # over budget
    out = np.zeros(8, dtype=np.uint64)
    with pytest.raises(ValueError, match="owners"):
        ryser((1, 1), [(3, rows)], False, 100, (0,), out)
    with pytest.raises(ValueError, match="owners"):
        ryser((1, 1), [(3, rows)], False, 100, (0, -2), out)
    with pytest.raises(ValueError, match="out"):
        ryser((1, 1), [(3, rows)], False, 100, (0, 1), np.zeros(3, dtype=np.uint64))


def test_the_kept_primes_are_the_largest_below_2_62() -> None:
    """The residues' primes kept in the module are the largest primes below 2^62 in
    order, and more are found (by the module's own primality test) where a bound needs
    them."""
    from sympy import prevprime

    kept = list(numbers._PRIMES)
    expected, prime = [], 1 << 62
    for _ in kept:
        prime = int(prevprime(prime))
        expected.append(prime)
    assert kept == expected
    assert numbers.primes_beyond(1) == kept[:1]
    many = numbers.primes_beyond(1 << (62 * len(kept) + 1))
    assert many[: len(kept)] == kept and len(many) == len(kept) + 1
    assert many[-1] == int(prevprime(kept[-1]))
    assert math.prod(many) > 1 << (62 * len(kept) + 1)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(st.integers(0, 10**6), st.integers(1 << 40, 1 << 64), st.integers(1 << 61, 1 << 62))
)
def test_the_primality_test_agrees_with_sympy(n: int) -> None:
    """``_is_prime`` (Miller-Rabin, exact below 2^64) against sympy's ``isprime``."""
    from sympy import isprime

    assert numbers.is_prime(n) == isprime(n)


def test_the_primality_test_on_pseudoprimes() -> None:
    """Carmichael numbers and strong pseudoprimes to small bases are composite; the
    Mersenne prime 2^61 - 1 and the largest prime below 2^62 are prime."""
    from sympy import isprime

    tricky = [
        561,
        1105,
        1729,
        2047,
        3215031751,
        2152302898747,
        3474749660383,
        341550071728321,
        3825123056546413051,
        (1 << 61) - 1,
        (1 << 62) - 57,
    ]
    for n in tricky:
        assert numbers.is_prime(n) == isprime(n), n


@pytest.mark.parametrize(("draws", "seed"), [(8, 1), (12, 2), (14, 3)])
def test_the_work_alone_is_the_least_budget_it_runs_on(draws: int, seed: int) -> None:
    """A negative budget gives the kernel's work without doing it: exactly the least
    budget on which the sum is taken (one less, and it gives up)."""
    counter = WorldCounter(public_history(_fish_game(4, 3, draws, seed)))
    inputs = counting.ryser.RyserSums.of(counter.programme)
    assert inputs is not None
    caps, families, moduli = inputs.caps, inputs.families, inputs.moduli
    wide = moduli[0] == 1 << 128
    work = counting.ryser._kernel.ryser(caps, families, wide, -1)
    assert isinstance(work, int) and work > 0
    assert counting.ryser._kernel.ryser(caps, families, wide, work) is not None
    assert counting.ryser._kernel.ryser(caps, families, wide, work - 1) is None
    assert counting.plan.ryser_work(counter.programme, counter.options) == work * len(moduli)


def test_the_merged_draws_get_no_more_time_than_the_formula_would_take(monkeypatch) -> None:
    """Where Ryser's formula is not cheap, the merged draws go first with a budget of
    a share of the formula's time (after the stock of a 32-card game has run out, at 20
    draws, they would take seconds, even many minutes, where the formula takes a fifth of
    a second); here, with the formula's threshold lowered to 0, a position at 12 draws:
    the count is still the dense tables'."""
    history = public_history(_fish_game(4, 3, 12, 1))
    budgets: list[int] = []
    original = counting.plan.staged_count

    def spy(tables, dims, cap, max_states, max_work=1 << 62, max_bound=1 << 62):
        budgets.append(max_work)
        return original(tables, dims, cap, max_states, max_work, max_bound)

    monkeypatch.setattr(counting.plan, "staged_count", spy)
    monkeypatch.setattr(counting.plan, "_RYSER_FIRST_WORK", 0)
    counter = WorldCounter(history)
    work = counting.plan.ryser_work(counter.programme, counter.options)
    assert work is not None
    assert budgets == [work // (counting.plan._STAGED_UNIT * len(counter.cap))]
    assert counter._tableless
    assert counter.count == _dense(history, [], monkeypatch).count


def test_where_the_formula_is_cheap_the_merged_draws_are_not_tried(monkeypatch) -> None:
    """Ryser's formula goes first where its work is at most ``_RYSER_FIRST_WORK``."""
    history = public_history(_fish_game(4, 3, 12, 1))
    calls: list[int] = []
    original = counting.plan.staged_count
    monkeypatch.setattr(
        counting.plan, "staged_count", lambda *a, **k: calls.append(1) or original(*a, **k)
    )
    monkeypatch.setattr(counting.plan, "_RYSER_FIRST_WORK", 1 << 62)
    spy = _Spy(monkeypatch)
    counter = WorldCounter(history)
    assert not calls and spy.results and spy.results[0] is not None
    assert counter.count == _dense(history, [], monkeypatch).count


def test_a_refused_count_says_what_the_formula_would_take(monkeypatch, counting_options) -> None:
    """Where the tables do not fit and Ryser's formula is over its budget, the refusal
    names the formula's work, known before any of it is done, and how to lift its
    budget; lifted, the formula gives the dense tables' count."""
    history = public_history(_fish_game(4, 3, 12, 1))
    expected = _dense(history, [], monkeypatch).count
    monkeypatch.setattr(counting.plan, "_RYSER_UNFIT_WORK", 1000)
    # 4 MiB: the dense tables (160 MiB) do not fit, the formula's own tables do.
    with counting.memory_limit(1 << 22), pytest.raises(kw.ModelTooLargeError) as refusal:
        WorldCounter(history)
    message = str(refusal.value)
    assert "Ryser's formula, without tables, would take " in message
    steps = int(message.split("would take ")[1].split(" steps")[0].replace(",", ""))
    counter = WorldCounter(history)  # no limit: the same work, now within its budget
    assert steps == counting.plan.ryser_work(counter.programme, counter.options) > 1000
    assert "counting.options(ryser=True)" in message
    counting_options(ryser=True)
    with counting.memory_limit(1 << 22):
        assert WorldCounter(history).count == expected


def test_a_lone_holders_draws_are_merged_though_the_formula_is_cheaper_than_the_bound() -> None:
    """A lone holder's 20th draw of a 52-card stock: the merged count takes a few hundred
    products, far below what Ryser's formula would take, though the merged draws' loose
    bound before they start is above the formula's share: they are tried against the
    tables' share and answer, the formula's count."""
    game = load_script("experiments/bench_draw_pile.py").lone_holder_game()
    # B and C are out: A draws the whole stock.  The record up to A's 20th draw.
    record = game.record
    draws = [i for i, e in enumerate(record) if isinstance(e, kw.events.Drew)]
    cut = draws[19] + 1
    history = PublicHistory(game.deck, game.players, game.rules)
    history.extend(record[:cut], settled=not isinstance(record[cut], kw.events.QuartetExposed))
    assert len(history.draw_slots) == 20
    answers: list[int | None] = []
    original = counting.plan.staged_count

    def spy(*args, **kwargs):
        answers.append(original(*args, **kwargs))
        return answers[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(counting.plan, "staged_count", spy)
        counter = WorldCounter(history)
        assert (
            counting.plan.ryser_work(counter.programme, counter.options)
            > counting.plan._RYSER_FIRST_WORK
        )
        assert answers and answers[0] is not None
        with counting.options(staged=False, ryser=True):
            assert counter.count == WorldCounter(history).count
