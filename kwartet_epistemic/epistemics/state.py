"""The epistemic state of a game: who knows what, exactly, after every public event.

:func:`knowledge` builds an :class:`EpistemicState` from a :class:`~kwartet_epistemic.Game`
(the god's-eye state, which follows the game as it is played) or from one player's
:class:`~kwartet_epistemic.PlayerView` (what that player can know; agents use this).

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(), players=["A", "B", "C", "D"], seed=3)
>>> k = kw.knowledge(game)
>>> k.count_worlds()
93577100618119680
>>> k.count_worlds("A")
9096824880
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kwartet_epistemic._safejson import short
from kwartet_epistemic.cards import Card
from kwartet_epistemic.epistemics.counting import WorldCounter, exact_probabilities
from kwartet_epistemic.epistemics.engines import ENGINES, Engine
from kwartet_epistemic.epistemics.evaluate import CountingEngine
from kwartet_epistemic.epistemics.explicit import ExplicitEngine
from kwartet_epistemic.epistemics.history import PrivateInfo, PublicHistory, private_info
from kwartet_epistemic.epistemics.symbolic import export_game
from kwartet_epistemic.errors import KwartetError, UnknownToViewerError
from kwartet_epistemic.events import Drew, Event, QuartetExposed
from kwartet_epistemic.game import Game, PlayerView

if TYPE_CHECKING:
    from kwartet_epistemic.epistemics.explain import Explanation

__all__ = ["EpistemicState", "World", "knowledge", "UnknownToViewerError"]


@dataclass(frozen=True)
class World:
    """One possible world: where every card not yet exposed lies now.

    ``hands`` maps each player to the cards in their hand; ``piles`` maps "stock",
    "aside" and "middle" (face down) to their cards, where the rules have them.
    """

    hands: Mapping[str, tuple[Card, ...]]
    piles: Mapping[str, tuple[Card, ...]]

    def holder(self, card: Card) -> str | None:
        """The player holding ``card`` in this world, or None (a pile, or exposed)."""
        for player, cards in self.hands.items():
            if card in cards:
                return player
        return None


def knowledge(source: Game | PlayerView, engine: str = "auto") -> EpistemicState:
    """The epistemic state of a game (following it as it is played) or of one player's
    view (built only from what that player sees; it never touches the true deal).

    Engines (``engine=``), all exact and giving the same answers:

    - ``"auto"`` (default): the counting engine, and for formulas it cannot count
      the symbolic or explicit engine;
    - ``"counting"``: family-by-family counting programmes, any table size;
    - ``"explicit"``: the enumerated :class:`~kwartet_epistemic.kripke.KripkeModel`
      (teaching sizes, up to 2,100,000 worlds);
    - ``"symbolic"``: a BDD knowledge structure (SMCDEL-style).

    Queries on the returned :class:`EpistemicState`: ``count_worlds(player)``,
    ``location_counts(player)``, ``location_probabilities(player)``,
    ``knows_location(player, card)``, ``explain(player, card)`` (why a player knows
    where a card is), ``holds(formula)`` (K, M, Kw, E, C, D, announcements),
    ``sample_worlds(player, n)`` and ``kripke_model()``.  The rules, and exactly what is
    public, are in the package's RULES.md (``kwartet rules`` prints it).

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
    >>> kw.knowledge(game.view("A")).count_worlds("A") == kw.knowledge(game).count_worlds("A")
    True
    """
    return EpistemicState(source, engine=engine)


class EpistemicState:
    """Exact knowledge of every player after the public record of a game.

    Worlds are the histories of the hidden cards consistent with everything public
    (the package's RULES.md, "What is public, exactly"); a player considers possible the worlds that
    agree with their own hand (and their own draws).  Counts are exact Python integers.
    Every question goes to the engine named by ``engine`` (see
    :mod:`~kwartet_epistemic.epistemics.engines`); the others stay available through
    :meth:`engine_named`.
    """

    def __init__(self, source: Game | PlayerView, engine: str = "auto") -> None:
        if not isinstance(engine, str) or engine not in ENGINES:
            raise KwartetError(f"engine {short(engine)}: expected one of {', '.join(ENGINES)}")
        if not isinstance(source, Game | PlayerView):
            raise KwartetError(
                f"knowledge() of {source!r}: expected a Game or a PlayerView (game.view(player))"
            )
        self.engine = engine
        self._source = source
        self.deck = source.deck
        self.players = tuple(source.players)
        self.rules = source.rules
        self.viewer: str | None = source.player if isinstance(source, PlayerView) else None
        shared = (
            _shared_history(source, create=True)
            if isinstance(source, PlayerView) and not self.rules.draw_pile
            else None
        )
        # Whether the history is the one the game's views share (then no own one is made).
        self._shares = shared is not None
        self._history = shared or PublicHistory(self.deck, self.players, self.rules)
        self._epoch = 0  # bumped when the history object is replaced
        self._private: dict[str, PrivateInfo] = {}
        self._counters: dict[tuple[str, ...], tuple[tuple[int, int], WorldCounter]] = {}
        self._samplers: dict[tuple[str, ...], tuple[tuple[int, int], WorldCounter]] = {}
        self._engines: dict[str, Engine] = {}
        self._catch_up()

    # ----- following the game -------------------------------------------------------

    @property
    def source(self) -> Game | PlayerView:
        """The game (god's-eye state) or the player's view this state follows."""
        return self._source

    @property
    def record(self) -> Sequence[Event]:
        """The events this state has taken in (the view's record on a player's view)."""
        self._catch_up()
        return self._source.record

    @property
    def history(self) -> PublicHistory:
        """The public constraints (caught up with the game)."""
        self._catch_up()
        return self._history

    @property
    def version(self) -> tuple[int, int]:
        """Changes whenever the public constraints do: what every cache of an answer is
        kept under.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
        >>> state = kw.knowledge(game)
        >>> before = state.version
        >>> first = game.legal_asks()[0]
        >>> _ = game.ask(first.target, first.card)
        >>> state.version != before
        True
        """
        self._catch_up()
        return (self._epoch, self._history.version)

    def follow(self, view: PlayerView) -> None:
        """Take in a later view of the game this state follows (the same viewer).

        The view replaces the one the state was built from; only its new events are
        taken in, so that an agent keeps one state through a whole game.  A view of
        another game (its record does not continue this one's) is refused: build a new
        state for it.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
        >>> mine = kw.knowledge(game.view("A"))
        >>> first = game.legal_asks()[0]
        >>> _ = game.ask(first.target, first.card)
        >>> mine.follow(game.view("A"))
        >>> mine.count_worlds("A") == kw.knowledge(game.view("A")).count_worlds("A")
        True
        """
        if not isinstance(view, PlayerView) or self.viewer is None or view.player != self.viewer:
            raise KwartetError(
                f"follow({short(view)}): expected a later view of {self.viewer or 'a player'} "
                "(this state follows "
                + ("the whole game" if self.viewer is None else f"{self.viewer}'s view")
                + ")"
            )
        if not self.continues(view):
            raise KwartetError(
                f"follow(): {view.player}'s view is not a later view of the game this state "
                "follows (build a new state for another game)"
            )
        self._source = view
        self._catch_up()

    def continues(self, view: PlayerView) -> bool:
        """Whether ``view`` is a view of the same viewer whose record continues the
        record this state has taken in (the same game, later or equal).

        The same game hands out the same event objects, so identity decides, not
        equality: two games can have equal public records and different hands."""
        if not isinstance(view, PlayerView) or view.player != self.viewer:
            return False
        mine = self._source.record
        seen = len(mine)
        record = view.record
        return seen == 0 or (
            len(record) >= seen and record[0] is mine[0] and record[seen - 1] is mine[seen - 1]
        )

    def _catch_up(self) -> None:
        source = self._source
        if self.viewer is None:  # a game: its record only grows
            assert isinstance(source, Game)
            new_events = source.record_since(self._history.events_seen)
            if new_events:
                self._take(new_events)
            return
        assert isinstance(source, PlayerView)
        if not self.rules.draw_pile:
            entry = source.derived.get(_PUBLIC_HISTORY)
            if (
                self._shares
                and entry is not None
                and entry.record is source.record
                and entry.history is self._history
            ):
                return  # taken in already (by this state or another player's)
            shared = _shared_history(source, create=not self._history.events_seen)
            if shared is not None:
                if shared is not self._history:
                    self._replace_history(shared, shares=True)
                return
            if self._shares:  # the shared constraints went ahead of this view: its own
                self._replace_history(
                    PublicHistory(self.deck, self.players, self.rules), shares=False
                )
        new = source.record[self._history.events_seen :]
        if new:
            self._take(new)

    def _take(self, new: Sequence[Event]) -> None:
        self._history.extend(event.public() for event in new)
        # A player's dealt hand never changes; only a draw adds to what they know.
        if any(type(event) is Drew for event in new):
            self._private.clear()

    def _replace_history(self, history: PublicHistory, shares: bool) -> None:
        self._history = history
        self._shares = shares
        self._epoch += 1

    def check_player(self, player: object) -> str:
        """``player`` if it is a player of this game, else
        :class:`~kwartet_epistemic.errors.KwartetError` naming it and the players."""
        if not isinstance(player, str) or player not in self.players:
            raise KwartetError(
                f"player {short(player)} is not in this game; players are {', '.join(self.players)}"
            )
        return player

    def private_info(self, player: str) -> PrivateInfo:
        """What ``player`` saw that others did not (their dealt hand and their draws).

        On a player's view only the viewer's own is known: another player's raises
        :class:`~kwartet_epistemic.errors.UnknownToViewerError`.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
        >>> sorted(kw.knowledge(game.view("A")).private_info("A").dealt)
        [3, 4, 5]
        """
        self.check_player(player)
        self._catch_up()
        if player not in self._private:
            if isinstance(self._source, Game):
                view = self._source.view(player)
                hand, record = view.hand, view.record
            elif player == self.viewer:
                hand, record = self._source.hand, self._source.record
            else:
                raise UnknownToViewerError(
                    f"this state was built from {self.viewer}'s view: {player}'s possible worlds "
                    f"depend on {player}'s hand, which {self.viewer} does not see"
                )
            self._private[player] = private_info(self.deck, player, hand, record)
        return self._private[player]

    def world_counter(self, players: Sequence[str] = ()) -> WorldCounter:
        """The counting programme of the worlds left by the pooled information of
        ``players`` (none: every world consistent with the record), with its marginals;
        kept until the record changes.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
        >>> state = kw.knowledge(game)
        >>> state.world_counter(["A"]).count == state.count_worlds("A")
        True
        """
        for player in players:
            self.check_player(player)
        self._catch_up()
        key = tuple(sorted(set(players)))
        version = self.version
        cached = self._counters.get(key)
        if cached is None or cached[0] != version:
            infos = [self.private_info(p) for p in key]
            counter = WorldCounter(self._history, infos, marginals=True, stable_layout=True)
            self._counters[key] = (version, counter)
            return counter
        return cached[1]

    def engine_named(self, name: str) -> Engine:
        """This state's engine ``name`` (one of
        :data:`~kwartet_epistemic.epistemics.engines.ENGINES`), made once and kept: the
        state's own engine is ``engine_named(state.engine)``.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
        >>> kw.knowledge(game).engine_named("symbolic").count_worlds(None)
        560
        """
        engine = self._engines.get(name)
        if engine is None:
            if not isinstance(name, str) or name not in ENGINES:
                raise KwartetError(f"engine {short(name)}: expected one of {', '.join(ENGINES)}")
            engine = ENGINES[name](self)
            self._engines[name] = engine
        return engine

    def actual_origins(self) -> dict[int, int]:
        """The actual world as origin slots (card index -> the slot it came from): known
        on the god's-eye state only (a view raises
        :class:`~kwartet_epistemic.errors.UnknownToViewerError`)."""
        game = self._source
        if not isinstance(game, Game):
            raise UnknownToViewerError(
                f"this state was built from {self.viewer}'s view: the actual deal is unknown"
            )
        history = self.history
        deal = game.initial_deal
        origin: dict[int, int] = {}
        for p in self.players:
            for code in deal["hands"][p]:
                origin[self.deck.card(code).index] = self.players.index(p)
        for pile, slot in (("aside", history.aside_slot), ("middle", history.middle_slot)):
            for code in deal[pile]:
                origin[self.deck.card(code).index] = slot
        for code in deal["stock"]:
            origin[self.deck.card(code).index] = history.stock_slot
        draws = [e for e in game.events if isinstance(e, Drew)]
        for number, event in enumerate(draws[: len(history.draw_slots)]):
            assert event.card is not None
            origin[event.card.index] = history.draw_slots[number]
        return origin

    def actual_hand(self, player: str) -> tuple[Card, ...]:
        """``player``'s hand in the actual world: every hand on the god's-eye state, the
        viewer's own on a view (another's raises
        :class:`~kwartet_epistemic.errors.UnknownToViewerError`)."""
        self.check_player(player)
        if isinstance(self._source, Game):
            return self._source.hand(player)
        if player == self.viewer:
            return self._source.hand
        raise UnknownToViewerError(
            f"this state was built from {self.viewer}'s view: {player}'s hand is unknown"
        )

    # ----- counts and probabilities -------------------------------------------------

    def count_worlds(self, player: str | None = None) -> int:
        """The exact number of worlds consistent with the public record, or the number
        that ``player`` considers possible at the actual world.

        >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
        >>> k = kw.knowledge(game)
        >>> k.count_worlds() >= k.count_worlds("A") >= 1
        True
        """
        if player is not None:
            self.check_player(player)
        return self.engine_named(self.engine).count_worlds(player)

    def location_counts(self, player: str | None = None) -> np.ndarray:
        """``[n_cards, n_players]`` exact counts (Python ints) of ``player``'s worlds in
        which each player holds each card now (all worlds if ``player`` is None)."""
        if player is not None:
            self.check_player(player)
        table, _ = self.engine_named(self.engine).location_table(player)
        return table.astype(object)

    def location_probabilities(
        self, player: str | None = None, families: Iterable[int] | None = None
    ) -> np.ndarray:
        """``[n_cards, n_players]``: ``player``'s exact probability (uniform over their
        possible worlds) that each player holds each card now; rows in deck order,
        exposed cards all 0 (and piles take the rest of a row).

        With ``families`` (family numbers) only their rows are sure to be filled (the
        others may be NaN): the counting engines then count just those families'
        marginals, as agents ask at every decision.

        >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
        >>> p = kw.knowledge(game).location_probabilities("A")
        >>> p.shape, bool(np.allclose(p.sum(axis=1), 1.0))
        ((32, 4), True)
        >>> q = kw.knowledge(game).location_probabilities("A", families=[1])
        >>> bool(np.array_equal(q[4:8], p[4:8]))
        True
        """
        if player is not None:
            self.check_player(player)
        if families is not None and self.engine in ("auto", "counting"):
            counting = self.engine_named(self.engine)
            assert isinstance(counting, CountingEngine)
            return counting.family_probabilities(player, families)[0]
        counts, total = self.engine_named(self.engine).location_table(player)
        if total == 0:
            raise KwartetError("no world is consistent with the record")
        return exact_probabilities(counts, total)

    def knows_location(self, player: str, card: Card | str) -> str | None:
        """The player who holds ``card`` if ``player`` knows it, else None.

        A card known to lie in a pile gives the pile's name ("stock", "aside",
        "middle"); an exposed card gives "exposed".

        >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
        >>> k = kw.knowledge(game)
        >>> first = game.hand("A")[0]
        >>> k.knows_location("A", first)
        'A'
        """
        c = self.deck.card(card).index
        self.check_player(player)  # refused before any cache is touched
        self._catch_up()
        where = self._history.location[c]
        if where is not None:  # seen: a player, "exposed", or (revealed at the end) a pile
            return "exposed" if where == "exposed" else where
        engine = self._engines.get(self.engine) or self.engine_named(self.engine)
        return engine.known_place(player, c)

    def explain(self, player: str, card: Card | str) -> Explanation:
        """Why ``player`` knows where ``card`` is: an
        :class:`~kwartet_epistemic.epistemics.explain.Explanation` holding a
        deletion-minimal set of public facts that forces the location (each a sentence
        with its move number), or, when the player does not know, the places still
        possible with their exact probabilities (see :mod:`.explain`).

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.from_hands(kw.Deck.piquet(families=3), {"A": ["7S", "8S", "9S", "9H"],
        ...     "B": ["7H", "8H", "9D", "7C"], "C": ["7D", "8D", "8C", "9C"]}, first="A")
        >>> _ = game.ask("B", "7D")
        >>> print(kw.knowledge(game).explain("A", "7D"))
        A knows C holds 7♦, because:
          move 1: B has no 7♦: B said no to A.
        """
        from kwartet_epistemic.epistemics.explain import explain

        return explain(self, player, card)

    def sample_worlds(
        self, player: str | None, n: int, rng: np.random.Generator | int | None = None
    ) -> list[World]:
        """``n`` worlds drawn exactly uniformly from ``player``'s possible worlds (from all
        worlds if ``player`` is None).

        >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
        >>> worlds = kw.knowledge(game).sample_worlds("A", 3, np.random.default_rng(0))
        >>> all(w.hands["A"] == game.hand("A") for w in worlds)
        True
        """
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise KwartetError(f"sample_worlds(n={short(n)}): expected a whole number >= 0")
        if isinstance(rng, bool) or not (
            rng is None or isinstance(rng, np.random.Generator | int | np.integer)
        ):
            raise KwartetError(
                f"sample_worlds(rng={short(rng)}): expected None, an integer seed or a "
                "numpy.random.Generator"
            )
        if isinstance(rng, int | np.integer) and rng < 0:
            raise KwartetError(f"sample_worlds(rng={short(rng)}): a seed is an integer >= 0")
        generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        self._catch_up()
        key = () if player is None else (player,)
        infos = [self.private_info(p) for p in key]
        cached = self._samplers.get(key)
        if cached is None or cached[0] != self.version:
            # The default layout: the enumeration order, and so the worlds a seed draws,
            # are those the engine has always drawn.
            cached = (self.version, WorldCounter(self._history, infos))
            self._samplers[key] = cached
        counter = cached[1]
        if counter.count == 0:
            raise KwartetError("no world is consistent with the record")
        history = self.history
        worlds = []
        for _ in range(n):
            origins = counter.sample(generator)
            hands: dict[str, list[Card]] = {p: [] for p in self.players}
            piles: dict[str, list[Card]] = {}
            for c, slot in sorted(origins.items()):
                where = history.location[c]
                card = self.deck.cards[c]
                if where is None:
                    owner = history.slot_owner[slot]
                    if owner is None:
                        piles.setdefault(history.slot_names[slot], []).append(card)
                    else:
                        hands[owner].append(card)
                elif where in hands:
                    hands[where].append(card)
            worlds.append(
                World(
                    {p: tuple(sorted(h, key=lambda x: x.index)) for p, h in hands.items()},
                    {k: tuple(v) for k, v in piles.items()},
                )
            )
        return worlds

    def timeline(self) -> dict[str, dict[str, int | None]]:
        """For each player and card: the index (in the record) of the event after which the
        player first knew where the card was, or None if they never did.

        >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
        >>> t = kw.knowledge(game).timeline()
        >>> t["A"][game.hand("A")[0].code]
        0
        """
        record = list(self.record)
        players = self.players if self.viewer is None else (self.viewer,)
        result: dict[str, dict[str, int | None]] = {
            p: {c.code: None for c in self.deck.cards} for p in players
        }
        history = PublicHistory(self.deck, self.players, self.rules)
        infos = {p: self.private_info(p) for p in players}
        last_version = -1
        for index, event in enumerate(record):
            following = record[index + 1] if index + 1 < len(record) else None
            history.extend([event.public()], settled=not isinstance(following, QuartetExposed))
            if history.version == last_version:
                continue
            last_version = history.version
            for p in players:
                info = _truncate(infos[p], history)
                counter = WorldCounter(history, [info], marginals=True, stable_layout=True)
                if counter.count == 0:
                    continue
                origin = counter.origin_table()
                for c, card in enumerate(self.deck.cards):
                    if result[p][card.code] is not None:
                        continue
                    if history.location[c] is not None:
                        result[p][card.code] = index
                        continue
                    places = {
                        history.slot_owner[s] or history.slot_names[s]
                        for s in range(len(origin[c]))
                        if origin[c, s]
                    }
                    if len(places) == 1:
                        result[p][card.code] = index
        return result

    # ----- explicit models ----------------------------------------------------------

    def kripke_model(self, limit: int | None = None) -> Any:
        """The explicit :class:`~kwartet_epistemic.KripkeModel` of this state: worlds are
        the possible histories of the hidden cards, each player's partition groups the
        worlds that agree on their own hand (and draws), atoms are ``has(P, card)``.

        On the god's-eye state the actual deal is the designated world; on a player's
        view there is none.  Refuses with ModelTooLargeError above ``limit`` worlds
        (default :data:`~kwartet_epistemic.epistemics.explicit.EXPLICIT_LIMIT`).

        >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
        >>> model = kw.knowledge(game).kripke_model()
        >>> model.n_worlds == kw.knowledge(game).count_worlds()
        True
        """
        from kwartet_epistemic.epistemics.explicit import EXPLICIT_LIMIT

        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 0
        ):
            raise KwartetError(
                f"kripke_model(limit={short(limit)}): expected None (the default, "
                f"{EXPLICIT_LIMIT:,} worlds) or a number of worlds >= 0"
            )
        explicit = self.engine_named("explicit")
        assert isinstance(explicit, ExplicitEngine)
        return explicit.kripke_model(None if limit is None else int(limit))

    # ----- formulas -----------------------------------------------------------------

    def holds(self, formula: Any) -> bool:
        """Truth of a formula (text or a Formula) at the actual world.

        On a state built from a player's view the actual world is unknown: the answer is
        given when the player knows it (true in all their worlds, or false in all),
        otherwise :class:`UnknownToViewerError` is raised.
        """
        from kwartet_epistemic.epistemics.evaluate import evaluate

        return evaluate(self, formula)

    def to_smcdel(self, query: Any = None, *, jobs: Any = None) -> str:
        """SMCDEL's text input for this position (the symbolic engine's structure) and
        the queries; see :func:`kwartet_epistemic.to_smcdel`.

        >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
        >>> kw.knowledge(game).to_smcdel("K_A has(B, 7S)").count("VALID?")
        1
        """
        return export_game(self, query, jobs=jobs).text

    def _repr_html_(self) -> str:
        """The state in Jupyter: worlds and located cards per player (and, on a view, the
        viewer's location probabilities)."""
        from kwartet_epistemic.viz.html import epistemic_state_html  # loaded on first display

        return epistemic_state_html(self)

    def __repr__(self) -> str:
        who = f"{self.viewer}'s view" if self.viewer else "the whole table"
        return (
            f"<EpistemicState of {who}: {len(self.record)} events, "
            f"{self.count_worlds()} public worlds>"
        )


def _truncate(info: PrivateInfo, history: PublicHistory) -> PrivateInfo:
    """A player's private info as it stood when ``history`` was taken (draws so far)."""
    draws = tuple((n, c) for n, c in info.draws if n < len(history.draw_slots))
    return PrivateInfo(info.player, info.dealt, draws)


_PUBLIC_HISTORY = "kwartet_epistemic.epistemics: public history"
"""The key of the public constraints in a game's :class:`~kwartet_epistemic.game.DerivedCache`."""


class _SharedHistory:
    __slots__ = ("record", "history")

    def __init__(self, record: tuple[Event, ...], history: PublicHistory) -> None:
        self.record = record
        self.history = history


def _shared_history(view: PlayerView, create: bool) -> PublicHistory | None:
    """The public constraints of ``view``'s record, one object for the states of every
    view of the same game (each would otherwise take in every event again), kept in the
    game's derived cache; None where it cannot be shared: the game's constraints went
    ahead of this (older) view or another way, or none are kept and ``create`` is off.

    Only without a draw pile: there a player's record holds their own draws.  Equal
    records give equal constraints (they depend on nothing else), so equality decides.
    """
    record = view.record
    if not record:
        return None
    entry = view.derived.get(_PUBLIC_HISTORY)
    if entry is None:
        if not create:
            return None
        entry = _SharedHistory((), PublicHistory(view.deck, view.players, view.rules))
        view.derived[_PUBLIC_HISTORY] = entry
    kept = entry.record
    seen = len(kept)
    if seen > len(record):
        return None
    # The same game hands out the same event objects: identity is the quick test.
    quick = not seen or (record[0] is kept[0] and record[seen - 1] is kept[seen - 1])
    if not quick and record[:seen] != kept:
        return None
    if seen < len(record):
        try:
            entry.history.extend(event.public() for event in record[seen:])
        except KwartetError:
            del view.derived[_PUBLIC_HISTORY]  # half taken in: of no use to anyone
            raise
        entry.record = record
    return entry.history
