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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kwartet_epistemic._safejson import short
from kwartet_epistemic.cards import Card
from kwartet_epistemic.epistemics.counting import WorldCounter, exact_probabilities
from kwartet_epistemic.epistemics.history import PrivateInfo, PublicHistory, private_info
from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.events import Drew, Event, QuartetExposed
from kwartet_epistemic.game import Game, PlayerView

if TYPE_CHECKING:
    from kwartet_epistemic.epistemics.explain import Explanation

__all__ = ["EpistemicState", "World", "knowledge", "UnknownToViewerError"]


class UnknownToViewerError(KwartetError):
    """A question that the player whose view built the state cannot answer."""


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


_ENGINES = ("auto", "counting", "explicit", "symbolic")


class EpistemicState:
    """Exact knowledge of every player after the public record of a game.

    Worlds are the histories of the hidden cards consistent with everything public
    (the package's RULES.md, "What is public, exactly"); a player considers possible the worlds that
    agree with their own hand (and their own draws).  Counts are exact Python integers.
    """

    def __init__(self, source: Game | PlayerView, engine: str = "auto") -> None:
        if not isinstance(engine, str) or engine not in _ENGINES:
            raise KwartetError(f"engine {short(engine)}: expected one of {', '.join(_ENGINES)}")
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
        self._history = PublicHistory(self.deck, self.players, self.rules)
        self._private: dict[str, PrivateInfo] = {}
        self._counters: dict[tuple[str, ...], tuple[int, WorldCounter]] = {}
        self._samplers: dict[tuple[str, ...], tuple[int, WorldCounter]] = {}
        self._places: dict[str, tuple[int, list[str | None]]] = {}
        self._slot_places: tuple[np.ndarray, list[str]] | None = None
        self._model: tuple[Any, Any, np.ndarray] | None = None
        self._symbolic_state: tuple[int, Any] | None = None
        self._catch_up()

    # ----- following the game -------------------------------------------------------

    @property
    def history(self) -> PublicHistory:
        """The public constraints (caught up with the game)."""
        self._catch_up()
        return self._history

    def _record(self) -> Sequence[Event]:
        return self._source.record

    def _catch_up(self) -> None:
        seen = self._history.events_seen
        source = self._source
        new = source.record_since(seen) if isinstance(source, Game) else source.record[seen:]
        if new:
            self._history.extend(event.public() for event in new)
            # A player's dealt hand never changes; only a draw adds to what they know.
            if any(type(event) is Drew for event in new):
                self._private.clear()

    def _check_player(self, player: object) -> None:
        if not isinstance(player, str) or player not in self.players:
            raise KwartetError(
                f"player {short(player)} is not in this game; players are {', '.join(self.players)}"
            )

    def _info(self, player: str) -> PrivateInfo:
        self._check_player(player)
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

    def _counter(self, players: Sequence[str] = ()) -> WorldCounter:
        for player in players:
            self._check_player(player)
        self._catch_up()
        key = tuple(sorted(set(players)))
        version = self._history.version
        cached = self._counters.get(key)
        if cached is None or cached[0] != version:
            infos = [self._info(p) for p in key]
            counter = WorldCounter(self._history, infos, marginals=True, stable_layout=True)
            self._counters[key] = (version, counter)
            return counter
        return cached[1]

    # ----- counts and probabilities -------------------------------------------------

    def count_worlds(self, player: str | None = None) -> int:
        """The exact number of worlds consistent with the public record, or the number
        that ``player`` considers possible at the actual world.

        >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
        >>> k = kw.knowledge(game)
        >>> k.count_worlds() >= k.count_worlds("A") >= 1
        True
        """
        if self.engine == "explicit":
            return int(self._explicit_worlds(player).sum())
        if self.engine == "symbolic":
            return self._symbolic().count_worlds(player)
        return self._counter(() if player is None else (player,)).count

    def _explicit_worlds(self, player: str | None) -> np.ndarray:
        """Mask of the explicit model's worlds that ``player`` considers possible."""
        model = self.kripke_model()
        if player is None:
            return np.ones(model.n_worlds, dtype=bool)
        if player == self.viewer:
            return self._viewer_worlds()
        self._info(player)  # refuses another player's worlds on a view
        if model.actual is None:
            raise KwartetError("the explicit model has no actual world")
        mask = np.zeros(model.n_worlds, dtype=bool)
        mask[model.indistinguishable(player, model.actual)] = True
        return mask

    def _symbolic(self) -> Any:
        from kwartet_epistemic.epistemics.symbolic import SymbolicKwartet

        self._catch_up()
        if self._symbolic_state is None or self._symbolic_state[0] != self._history.version:
            self._symbolic_state = (self._history.version, SymbolicKwartet(self))
        return self._symbolic_state[1]

    def location_counts(self, player: str | None = None) -> np.ndarray:
        """``[n_cards, n_players]`` exact counts (Python ints) of ``player``'s worlds in
        which each player holds each card now (all worlds if ``player`` is None)."""
        if self.engine == "explicit":
            model = self.kripke_model()
            worlds = self._explicit_worlds(player)
            result = np.zeros((len(self.deck), len(self.players)), dtype=object)
            for c, card in enumerate(self.deck.cards):
                for q, holder in enumerate(self.players):
                    mask = model.truth_set(f"has({holder}, {card.code})")
                    result[c, q] = int((mask & worlds).sum())
            return result
        if self.engine == "symbolic":
            return self._symbolic().location_counts(player)
        table, _ = self._location_table(player)
        return table.astype(object)

    def _location_table(self, player: str | None) -> tuple[np.ndarray, int]:
        """The counting engine's location counts (int64 where every count fits, else
        Python ints) and the number of worlds they count."""
        counter = self._counter(() if player is None else (player,))
        return counter.location_table(), counter.count

    def location_probabilities(self, player: str | None = None) -> np.ndarray:
        """``[n_cards, n_players]``: ``player``'s exact probability (uniform over their
        possible worlds) that each player holds each card now; rows in deck order,
        exposed cards all 0 (and piles take the rest of a row).

        >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
        >>> p = kw.knowledge(game).location_probabilities("A")
        >>> p.shape, bool(np.allclose(p.sum(axis=1), 1.0))
        ((32, 4), True)
        """
        if self.engine in ("auto", "counting"):
            counts, total = self._location_table(player)
        else:
            counts, total = self.location_counts(player), self.count_worlds(player)
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
        self._check_player(player)  # refused before any cache is touched
        self._catch_up()
        history = self._history
        where = history.location[c]
        if where is not None:  # seen: a player, "exposed", or (revealed at the end) a pile
            return "exposed" if where == "exposed" else where
        if self.engine in ("auto", "counting"):
            cached = self._places.get(player)  # only ever holds players of the game
            if cached is None or cached[0] != history.version:
                cached = (history.version, self._known_places(player))
                self._places[player] = cached
            return cached[1][c]
        if self.engine == "explicit":
            self.kripke_model()
            assert self._model is not None
            slots = set(self._model[2][self._explicit_worlds(player), c].tolist())
        else:
            slots = self._symbolic().possible_origins(player, c)
        places = {history.slot_owner[s] or history.slot_names[s] for s in slots}
        return places.pop() if len(places) == 1 else None

    def _known_places(self, player: str) -> list[str | None]:
        """For every card, where ``player`` knows it lies (from the counting engine's
        table, worked out once per table), else None."""
        counter = self._counter((player,))
        history = self._history
        n_slots = len(history.slot_owner)
        if self._slot_places is None or len(self._slot_places[0]) != n_slots:
            names = [
                owner or name
                for owner, name in zip(history.slot_owner, history.slot_names, strict=True)
            ]
            place_index = {name: i for i, name in enumerate(dict.fromkeys(names))}
            place_of_slot = np.array([place_index[name] for name in names], dtype=np.int64)
            self._slot_places = (place_of_slot, list(place_index))
        place_of_slot, place_names = self._slot_places
        possible = counter.origin_table() != 0
        if len(place_names) == n_slots:  # no draws: every slot is a place of its own
            only = np.where(possible.sum(axis=1) == 1, possible.argmax(axis=1), -1).tolist()
            return [place_names[slot] if slot >= 0 else None for slot in only]
        # A card is located when all its possible origin slots name one place.
        lowest = np.where(possible, place_of_slot, len(place_names)).min(axis=1)
        highest = np.where(possible, place_of_slot, -1).max(axis=1)
        return [
            place_names[low] if low == high else None
            for low, high in zip(lowest.tolist(), highest.tolist(), strict=True)
        ]

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
        infos = [self._info(p) for p in key]
        cached = self._samplers.get(key)
        if cached is None or cached[0] != self._history.version:
            # The default layout: the enumeration order, and so the worlds a seed draws,
            # are those the engine has always drawn.
            cached = (self._history.version, WorldCounter(self._history, infos))
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
        record = list(self._record())
        players = self.players if self.viewer is None else (self.viewer,)
        result: dict[str, dict[str, int | None]] = {
            p: {c.code: None for c in self.deck.cards} for p in players
        }
        history = PublicHistory(self.deck, self.players, self.rules)
        infos = {p: self._info(p) for p in players}
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
        from kwartet_epistemic.epistemics.explicit import EXPLICIT_LIMIT, build_model

        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int | np.integer) or limit < 0
        ):
            raise KwartetError(
                f"kripke_model(limit={short(limit)}): expected None (the default, "
                f"{EXPLICIT_LIMIT:,} worlds) or a number of worlds >= 0"
            )
        limit = None if limit is None else int(limit)
        self._catch_up()
        key = (self._history.version, limit)
        if self._model is None or self._model[0] != key:
            actual = self._actual_origins() if isinstance(self._source, Game) else None
            model, origins = build_model(
                self._history, [], actual, EXPLICIT_LIMIT if limit is None else limit
            )
            self._model = (key, model, origins)
        return self._model[1]

    def _actual_origins(self) -> dict[int, int]:
        game = self._source
        assert isinstance(game, Game)
        history = self._history
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

    def _viewer_worlds(self) -> np.ndarray:
        """Mask of the explicit model's worlds that the viewer considers possible."""
        assert self.viewer is not None
        self.kripke_model()
        assert self._model is not None
        origins = self._model[2]
        info = self._info(self.viewer)
        history = self._history
        own = {self.players.index(self.viewer)}
        expected = {c: self.players.index(self.viewer) for c in info.dealt}
        for number, card in info.draws:
            own.add(history.draw_slots[number])
            expected[card] = history.draw_slots[number]
        mine = np.isin(origins, sorted(own))
        target = np.zeros(origins.shape[1], dtype=bool)
        target[list(expected)] = True
        ok = (mine == target).all(axis=1)
        for card, slot in expected.items():
            ok &= origins[:, card] == slot
        return ok

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
        the queries; see :func:`kwartet_epistemic.symbolic.smcdel.export_game`.

        >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
        >>> kw.knowledge(game).to_smcdel("K_A has(B, 7S)").count("VALID?")
        1
        """
        from kwartet_epistemic.symbolic.smcdel import export_game

        return export_game(self, query, jobs=jobs).text

    def _repr_html_(self) -> str:
        """The state in Jupyter: worlds and located cards per player (and, on a view, the
        viewer's location probabilities)."""
        from kwartet_epistemic.viz.html import epistemic_state_html  # loaded on first display

        return epistemic_state_html(self)

    def __repr__(self) -> str:
        who = f"{self.viewer}'s view" if self.viewer else "the whole table"
        return (
            f"<EpistemicState of {who}: {len(self._record())} events, "
            f"{self.count_worlds()} public worlds>"
        )


def _truncate(info: PrivateInfo, history: PublicHistory) -> PrivateInfo:
    """A player's private info as it stood when ``history`` was taken (draws so far)."""
    draws = tuple((n, c) for n, c in info.draws if n < len(history.draw_slots))
    return PrivateInfo(info.player, info.dealt, draws)
