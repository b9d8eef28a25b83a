"""The law as CNF (kwartet_epistemic.interop.cnf): its models are the counting engine's
worlds, counted by a small DPLL here, enumerated, and (where installed) by Ganak, an SDD
compiler and ApproxMC."""

from __future__ import annotations

import pytest
from kwartet_testing import (
    on_random_positions,
    played_position,
    public_history,
    random_position,
    require_extra,
    viewer_infos,
)

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.interop.cnf import (
    CnfLaw,
    CnfLawError,
    compile_sdd,
    count_with_approxmc,
    count_with_ganak,
    count_with_sdd,
    law_cnf,
    sdd_model_count,
)


def dpll_count(clauses: list[tuple[int, ...]], n_vars: int) -> int:
    """Models over all ``n_vars`` variables, by DPLL with unit propagation: a branch where
    every clause is satisfied counts 2^(variables left open).  No projection: equal to
    the projected count only if every auxiliary variable is defined."""

    def count(clauses: list[tuple[int, ...]], open_vars: int) -> int:
        while True:
            unit = next((c[0] for c in clauses if len(c) == 1), None)
            if unit is None:
                break
            clauses = simplify(clauses, unit)
            if clauses is None:
                return 0
            open_vars -= 1
        if not clauses:
            return 2**open_vars
        # Branch on the most frequent variable.
        seen: dict[int, int] = {}
        for clause in clauses:
            for lit in clause:
                seen[abs(lit)] = seen.get(abs(lit), 0) + 1
        v = max(seen, key=seen.__getitem__)
        total = 0
        for lit in (v, -v):
            rest = simplify(clauses, lit)
            if rest is not None:
                total += count(rest, open_vars - 1)
        return total

    def simplify(clauses: list[tuple[int, ...]], lit: int) -> list[tuple[int, ...]] | None:
        out = []
        for clause in clauses:
            if lit in clause:
                continue
            if -lit in clause:
                clause = tuple(x for x in clause if x != -lit)
                if not clause:
                    return None
            out.append(clause)
        return out

    return count(list(clauses), n_vars)


def origin_table(law: CnfLaw, models: list[frozenset[int]]):
    import numpy as np

    table = np.zeros((len(law.cards), len(law.slot_names)), dtype=object)
    for model in models:
        for card, slot in law.world(model).items():
            table[card, slot] += 1
    return table


_SMALL = 300  # worlds the DPLL above counts and models() lists in a moment


def check_against_counter(history, viewers) -> None:
    """The law's count and marginals are the counter's: by the DPLL above and by listing
    the models where the worlds are few, else through an SDD where pysdd is installed
    (Ganak takes seconds on the capacities of these small positions)."""
    law = law_cnf(history, viewers)
    counter = WorldCounter(history, viewers)
    table = counter.location_table()
    try:
        models = law.models(limit=20_000) if counter.count <= _SMALL else None
    except CnfLawError:
        models = None
    if models is None:
        try:
            import pysdd  # noqa: F401
        except ImportError:
            return  # the small positions are checked without it
        manager, root = compile_sdd(law)
        assert sdd_model_count(manager, root) == counter.count
        for c in range(len(law.cards)):
            for q, player in enumerate(law.players):
                holds = law.holds(c, player)
                if isinstance(holds, bool):
                    assert table[c, q] == (counter.count if holds else 0)
                    continue
                clause = manager.false()
                for lit in holds:
                    clause = clause | manager.literal(lit)
                assert sdd_model_count(manager, root & clause) == table[c, q]
        return
    # Unprojected: every primary model extends to exactly one model.
    assert dpll_count(list(law.clauses), law.n_vars) == counter.count
    assert len(models) == len(set(models)) == counter.count
    origins = origin_table(law, models)
    assert (origins == counter.origin_counts()).all()
    assert (law.location_table(origins, len(models)) == table).all()


@on_random_positions(examples=30, families=3, players=4, asks=14)
def test_the_law_has_the_counting_engines_worlds_and_marginals(
    seed, variant, families, players, asks, which
):
    position = random_position(seed, variant, families, players, asks, which)
    if position is not None:
        check_against_counter(*position)


@pytest.mark.parametrize(
    "preset, changes",
    [
        ("publisher", {}),
        ("lamas", {}),
        ("dutch", {}),
        ("fish", {"cards_each": 2}),
        ("publisher", {"memory_cards": 2}),
        ("publisher", {"bluffing": True}),
    ],
)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_preset_public_and_viewed(preset, changes, seed):
    rules = kw.RuleSet.preset(preset).replace(**changes)
    game = played_position(seed, 3, 3, rules, asks=6 + 3 * seed)
    history = public_history(game)
    for which in (0, 1, 2):
        check_against_counter(history, viewer_infos(game, which))


def test_draw_pile_positions_have_draw_slots_in_the_law():
    rules = kw.RuleSet.preset("fish").replace(cards_each=2)
    for seed in range(12):
        game = played_position(seed, 3, 3, rules, asks=20)
        history = public_history(game)
        if not history.draw_slots:
            continue
        law = law_cnf(history)
        drawn = {slot for _, slot in law.origin.values()} & set(history.draw_slots)
        assert drawn or all(law.fixed.get(c) is not None for c in range(len(law.cards)))
        check_against_counter(history, [])
        check_against_counter(history, viewer_infos(game, 1))
        return
    pytest.fail("no random fish game drew a card")


def test_views_and_names():
    game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=4)
    game.play(game.legal_asks()[0])
    by_name = law_cnf(game, "A")
    by_view = law_cnf(game.view("A"))
    by_info = law_cnf(public_history(game), viewer_infos(game, 1))
    assert by_name.clauses == by_view.clauses == by_info.clauses
    assert by_name.to_dimacs(names=True).count("\nc var ") == len(by_name.primary)
    with pytest.raises(CnfLawError, match="does not show B's hand"):
        law_cnf(game.view("A"), "B")
    with pytest.raises(CnfLawError, match="expected a Game"):
        law_cnf("game")  # type: ignore[arg-type]
    with pytest.raises(CnfLawError, match="does not show"):
        law_cnf(public_history(game), "A")
    assert isinstance(CnfLawError("x"), ValueError)


def test_a_position_without_worlds_is_an_unsatisfiable_law():
    game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    history = public_history(game)
    history.allowed[0] = 0  # a card with no possible origin
    law = law_cnf(history)
    assert dpll_count(list(law.clauses), law.n_vars) == 0


# ----- the general tools, where installed ---------------------------------------------


@pytest.mark.parametrize("variant", range(6))
def test_ganak_counts_the_worlds(variant):
    require_extra("pyganak", "baselines")
    # Late positions: Ganak takes seconds where the capacities leave many worlds.
    position = random_position(7, variant, 3, 3, 14, 1)
    assert position is not None
    history, viewers = position
    law = law_cnf(history, viewers)
    want = WorldCounter(history, viewers).count
    assert count_with_ganak(law) == count_with_ganak(law, projected=False) == want


@on_random_positions(examples=10, families=3, players=4, asks=12)
def test_an_sdd_counts_the_worlds(seed, variant, families, players, asks, which):
    require_extra("pysdd", "baselines")
    position = random_position(seed, variant, families, players, asks, which)
    if position is not None:
        history, viewers = position
        assert count_with_sdd(law_cnf(history, viewers)) == WorldCounter(history, viewers).count


def test_whole_deals_with_ganak_and_marginals():
    require_extra("pyganak", "baselines")
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    rng = __import__("numpy").random.default_rng(3)
    for _ in range(8):
        game.play(game.random_legal_ask(rng))
    history = public_history(game)
    viewers = viewer_infos(game, 1)
    law = law_cnf(history, viewers)
    counter = WorldCounter(history, viewers)
    assert count_with_ganak(law) == counter.count
    table = counter.location_table()
    for c in (20,):  # one card, every player (Ganak takes seconds on each)
        for q, player in enumerate(law.players):
            holds = law.holds(c, player)
            if isinstance(holds, bool):
                assert table[c, q] == (counter.count if holds else 0)
            else:
                assert count_with_ganak(law.assuming(holds)) == table[c, q]


def test_approxmc_estimates_within_its_bounds_here():
    require_extra("pyapproxmc", "baselines")
    game = kw.Game.deal(kw.Deck.piquet(families=4), ["A", "B", "C"], seed=5)
    law = law_cnf(game)
    want = kw.knowledge(game).count_worlds()
    estimate = count_with_approxmc(law, epsilon=0.8, delta=0.2, seed=1)
    # The guarantee is probabilistic; with this seed the estimate is within it.
    assert want / 1.8 <= estimate <= want * 1.8
