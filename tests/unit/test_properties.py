"""Hypothesis invariants of the rules: card conservation, sums of hand scores, points per round winner."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import get_game
from companion.games.burraco import hand_score
from companion.games.pazaak.table_rules import (
    LIMIT,
    TABLE_SIZE,
    TableError,
    apply,
    new_table,
    outcome,
    result,
)
from companion.games.refusals import RuleError
from tests.helpers import generated

NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo"]
TOPIC, BURRACO, PAZZAPAROLA, PAZAAK = (get_game(s) for s in ("topic", "burraco", "pazzaparola", "pazaak"))


@st.composite
def topic_match(draw):
    """Players, a deck size and up to 40 rounds of losers and penalties."""
    players = NAMES[: draw(st.integers(2, 10))]
    deck = draw(st.integers(2, 72))
    one_round = st.fixed_dictionaries(
        {
            "losers": st.lists(st.sampled_from(players), min_size=1, unique=True),
            "penalties": st.lists(st.sampled_from(players), max_size=6),
        }
    )
    return players, deck, draw(st.lists(one_round, max_size=40))


@given(topic_match())
def test_topic_cards_are_conserved(match):
    players, deck, rounds = match
    for played in range(len(rounds) + 1):
        try:
            standings = TOPIC.standings(players, {"deck": deck}, rounds[:played])
        except RuleError as error:
            assert "already over" in error.reason
            break
        piles = TOPIC.replay(players, {"deck": deck}, rounds[:played]).tally.state
        held = sum(standings.totals.values())
        assert held + piles["deck"] + piles["removed"] == 72
        assert piles["deck"] == standings.extra["deck"] >= 0 and piles["removed"] >= 0
        assert standings.over == (piles["deck"] <= 1)
        if standings.over:
            fewest = min(standings.totals.values())
            assert standings.winners == [p for p in players if standings.totals[p] == fewest]


side_entry = st.fixed_dictionaries(
    {
        "table": st.integers(0, 400),
        "hand": st.integers(0, 120),
        "clean": st.integers(0, 3),
        "dirty": st.integers(0, 3),
    }
)


@given(
    st.integers(2, 5),
    st.lists(st.tuples(st.lists(side_entry, min_size=5, max_size=5), st.integers(-1, 4)), max_size=8),
    st.fixed_dictionaries(
        {"clean": st.integers(0, 300), "dirty": st.integers(0, 200), "closing": st.integers(0, 200)}
    ),
)
def test_burraco_totals_are_sums_of_hand_scores(count, hands, bonuses):
    players = NAMES[:count]
    config = {**bonuses, "hands": None, "target": 10**6}
    rounds = []
    for entries, closer in hands:
        sides = dict(zip(players, entries[:count], strict=True))
        closed_by = players[closer] if 0 <= closer < count else None
        if closed_by and (
            sides[closed_by]["hand"] or not sides[closed_by]["clean"] + sides[closed_by]["dirty"]
        ):
            closed_by = None  # this side could not have closed
        rounds.append({"sides": sides, "closed_by": closed_by})
    standings = BURRACO.standings(players, config, rounds)
    full = BURRACO.settings(config, players)
    for player in players:
        expected = sum(hand_score(r["sides"][player], r["closed_by"] == player, full) for r in rounds)
        assert standings.totals[player] == expected == sum(r["scores"][player] for r in standings.rounds)


@given(st.integers(2, 8), st.integers(1, 5), st.data())
def test_pazzaparola_points_equal_round_winners(count, target, data):
    players = NAMES[:count]
    rounds = []
    while True:
        rows = {}
        for player in players:
            used = data.draw(st.lists(st.integers(0, 12), max_size=8))
            rows[player] = {"used": used, "unused": 8 - len(used)}
        rounds.append({"rows": rows})
        standings = PAZZAPAROLA.standings(players, {"target": target}, rounds)
        assert sum(standings.totals.values()) == sum(len(r["winners"]) for r in standings.rounds)
        for player in players:
            assert standings.totals[player] == sum(player in r["winners"] for r in standings.rounds)
        for entry in standings.rounds:
            assert entry["winners"] and all(
                entry["scores"][w] == max(entry["scores"].values()) for w in entry["winners"]
            )
        if standings.over:
            assert standings.winners == [p for p in players if standings.totals[p] >= target]
            assert (
                max(PAZZAPAROLA.standings(players, {"target": target}, rounds[:-1]).totals.values()) < target
            )
            break


def legal_actions(state):
    """Every kind of move open to the player whose turn it is (values drawn later)."""
    if not state.drawn:
        return ["draw"]
    moves = ["end_turn", "stand"]
    if not state.side_played and len(state.seats[state.turn].cards) < TABLE_SIZE:
        moves += ["plus", "minus", "plusminus", "plusminus12", "flip", "double", "tiebreaker"]
    return moves


def make_action(kind, data):
    """A concrete action of that kind."""
    sign = data.draw(st.sampled_from("+-"))
    return {
        "draw": {"type": "draw", "value": data.draw(st.integers(1, 10))},
        "plus": {"type": "plus", "value": data.draw(st.integers(1, 6))},
        "minus": {"type": "minus", "value": data.draw(st.integers(1, 6))},
        "plusminus": {"type": "plusminus", "value": data.draw(st.integers(1, 6)), "sign": sign},
        "plusminus12": {"type": "plusminus12", "value": data.draw(st.integers(1, 2)), "sign": sign},
        "flip": {"type": "flip", "pair": data.draw(st.sampled_from(["2&4", "3&6"]))},
        "double": {"type": "double"},
        "tiebreaker": {"type": "tiebreaker", "sign": sign},
        "end_turn": {"type": "end_turn"},
        "stand": {"type": "stand"},
    }[kind]


@settings(max_examples=generated(300))
@given(st.data(), st.integers(0, 1))
def test_calculator_result_gives_the_engine_the_same_winner(data, starter):
    players = ["Ann", "Bob"]
    state = new_table(players, starter)
    for _ in range(200):
        if state.over:
            break
        mover = state.turn
        before, other = state.seats[mover], state.seats[1 - mover]
        kind = data.draw(st.sampled_from(legal_actions(state)))
        state = apply(state, make_action(kind, data))
        seat = state.seats[mover]
        assert seat.total == sum(c.value for c in seat.cards) and len(seat.cards) <= TABLE_SIZE
        assert state.seats[1 - mover].cards == other.cards  # a move never touches the other table
        if not state.over:
            # Exactly 20 always stands; a stood player never has the turn.
            assert all(s.stood for s in state.seats if s.total == LIMIT)
            assert not state.seats[state.turn].stood
        if kind in ("end_turn", "stand") and before.total > LIMIT:
            assert state.over
    assert state.over, "a set always ends within 200 moves"
    form = result(state)
    # The reference verdict, from the tables alone.
    totals = form["totals"]
    bust = [p for p in players if totals[p] > LIMIT]
    nine = [s.name for s in state.seats if len(s.cards) == TABLE_SIZE and s.total <= LIMIT]
    holders = [s.name for s in state.seats if any(c.hand == "T\u00b11" for c in s.cards)]
    if bust:
        expected = next(p for p in players if p not in bust)
    elif nine:
        expected = nine[0]
    elif totals["Ann"] != totals["Bob"]:
        expected = max(players, key=totals.get)
        assert all(s.stood for s in state.seats)
    else:
        expected = holders[0] if len(holders) == 1 else None
    assert len(bust) <= 1 and len(nine) <= 1
    assert outcome(state)["winner"] == expected
    assert PAZAAK.standings(players, {}, [form]).rounds[0]["winner"] == expected
    try:
        apply(state, {"type": "draw", "value": 1})
    except TableError as error:
        assert str(error) == "the set is over"
    else:
        raise AssertionError("a finished set accepted a card")


@settings(max_examples=generated(150), deadline=None)
@given(st.sampled_from(["pazzaparola", "burraco", "topic", "pazaak"]), st.randoms(use_true_random=False))
def test_a_tally_advanced_round_by_round_equals_a_full_replay_after_every_round(slug, rng):
    game = get_game(slug)
    players = game.check_players(NAMES[: game.seed.weighted(rng, game.seed.seats)])
    settings = game.settings(game.seed.settings(rng, players), players)
    if slug == "burraco" and rng.random() < 0.5:
        # The hand limit is the rule that counts rounds: make it bite before the target does.
        settings = {**settings, "hands": rng.randint(1, 6), "target": 10**6}
    sides = game.sides(players, settings)
    tally = game.begin(sides, settings)
    rounds = []
    while not game.is_over(tally, settings) and len(rounds) < 60:
        rounds.append(game.seed.round(rng, players, sides, settings))
        game.play(tally, players, settings, rounds[-1])
        replay = game.replay(players, settings, rounds)
        assert (tally.totals, tally.rounds, tally.state) == (
            replay.tally.totals,
            replay.tally.rounds,
            replay.tally.state,
        )
        assert game.is_over(tally, settings) == replay.over
        assert len(tally.rounds) == len(rounds)
    history = [(dict(t.totals), list(t.rounds), dict(t.state)) for t in game.tallies(players, settings, rounds)]
    assert history[-1] == (tally.totals, tally.rounds, tally.state)
    for played, (totals, entries, _) in enumerate(history):
        assert entries == game.standings(players, settings, rounds[:played]).rounds
        assert totals == game.standings(players, settings, rounds[:played]).totals
