"""Unit tests of the Topic_ rules: the deck, the removed pile, losers and penalties, the end."""

from __future__ import annotations

import pytest

from companion.games import get_game
from companion.games.refusals import RuleError

GAME = get_game("topic")
P = ["Ann", "Bob", "Cy"]


def lost(*losers, penalties=None) -> dict:
    """A round with these losers (and penalties)."""
    data: dict = {"losers": list(losers)}
    if penalties is not None:
        data["penalties"] = penalties
    return data


@pytest.mark.parametrize(
    "settings, deck",
    [
        ({}, 36),
        ({"length": "short"}, 24),
        ({"length": "medium"}, 36),
        ({"length": "long"}, 67),
        ({"deck": 10}, 10),
        ({"length": "short", "deck": 50}, 50),
        ({"deck": None}, 36),
    ],
)
def test_deck_sizes(settings, deck):
    assert GAME.settings(settings, P)["deck"] == deck
    assert GAME.standings(P, settings, []).extra == {"deck": deck}


def test_first_loser_takes_the_revealed_card():
    standings = GAME.standings(P, {}, [lost("Bob")])
    assert standings.rounds == [{"cards": {"Ann": 0, "Bob": 1, "Cy": 0}}]
    assert standings.totals == {"Ann": 0, "Bob": 1, "Cy": 0}
    assert standings.to_json()["deck"] == 35


def test_further_losers_and_penalties_take_from_the_deck():
    standings = GAME.standings(P, {}, [lost("Bob", "Cy", penalties=["Ann", "Ann"])])
    assert standings.rounds[0]["cards"] == {"Ann": 2, "Bob": 1, "Cy": 1}
    assert standings.extra["deck"] == 32


def test_then_from_the_removed_pile_then_nothing():
    # deck 4 → removed pile 68; first round: reveal + 2 more = 3 from the deck, 1 left: game over.
    assert GAME.replay(P, {"deck": 4}, [lost("Ann", "Bob", "Cy")]).tally.state == {"deck": 1, "removed": 68}
    # deck 3: reveal + two from the deck, then the removed pile (69 cards) pays the penalty.
    standings = GAME.standings(P, {"deck": 3}, [lost("Ann", "Bob", "Cy", penalties=["Cy"])])
    assert standings.rounds[0]["cards"] == {"Ann": 1, "Bob": 1, "Cy": 2}
    assert GAME.replay(P, {"deck": 3}, [lost("Ann", "Bob", "Cy", penalties=["Cy"])]).tally.state == {
        "deck": 0,
        "removed": 68,
    }


def test_nothing_is_taken_when_both_piles_are_empty():
    # The whole box in play: 72 in the deck, nothing removed. Ten players all lose every round.
    players = [f"P{i}" for i in range(10)]
    rounds = [lost(*players, penalties=players * 3)] * 2
    standings = GAME.standings(players, {"deck": 72}, rounds[:1])
    assert sum(standings.totals.values()) == 40 and standings.extra["deck"] == 32
    standings = GAME.standings(players, {"deck": 72}, rounds)
    assert sum(standings.totals.values()) == 72 and standings.extra["deck"] == 0
    # P0..P9 take a card each (32 → 22), then the 22 left go to the first 22 penalties in order.
    assert standings.rounds[1]["cards"] == {p: (4 if i < 2 else 3) for i, p in enumerate(players)}
    assert standings.over


def test_game_ends_when_deck_has_one_card_or_none():
    rounds = [lost("Ann")] * 3
    assert not GAME.standings(P, {"deck": 5}, rounds).over
    standings = GAME.standings(P, {"deck": 4}, rounds)
    assert standings.over and standings.extra["deck"] == 1
    assert standings.winners == ["Bob", "Cy"]
    with pytest.raises(RuleError, match=r"^round 4: the game was already over after round 3$"):
        GAME.standings(P, {"deck": 4}, rounds + [lost("Bob")])


def test_fewest_cards_wins():
    rounds = [lost("Ann"), lost("Bob", "Ann")]
    standings = GAME.standings(P, {"deck": 4}, rounds)
    assert standings.over and standings.totals == {"Ann": 2, "Bob": 1, "Cy": 0}
    assert standings.winners == ["Cy"]


def test_every_player_may_lose():
    assert GAME.standings(P, {}, [lost("Ann", "Bob", "Cy")]).totals == {"Ann": 1, "Bob": 1, "Cy": 1}


def test_penalty_of_a_loser_counts_twice():
    assert GAME.standings(P, {}, [lost("Ann", penalties=["Ann"])]).totals["Ann"] == 2


def test_check_round_normalises_penalties():
    settings = GAME.settings({}, P)
    assert GAME.check_round(P, settings, {"losers": ["bob"], "at": "t"}, 1) == {
        "losers": ["Bob"],
        "penalties": [],
        "at": "t",
    }


def test_next_to_start_is_the_first_loser():
    assert GAME.starter(GAME.replay(P, {}, [])) is None
    assert GAME.starter(GAME.replay(P, {}, [lost("Cy", "Ann")])) == "Cy"
    assert GAME.starter(GAME.replay(P, {"deck": 2}, [lost("Cy")])) is None


def test_deck_left():
    assert GAME.standings(P, {"length": "short"}, [lost("Cy", "Ann")]).extra["deck"] == 22


def test_standings_of_the_same_rounds_twice_are_equal_and_independent():
    rounds = [lost("Ann"), lost("Bob", "Cy")]
    first = GAME.standings(P, {"deck": 10}, rounds)
    first.rounds.append({"cards": {"Ann": 99}})
    first.totals["Ann"] = 99
    again = GAME.standings(P, {"deck": 10}, [lost("Ann"), lost("Bob", "Cy")])
    assert again.totals == {"Ann": 1, "Bob": 1, "Cy": 1}
    assert len(again.rounds) == 2
    # The same rounds with one changed are replayed afresh, not read back.
    changed = GAME.standings(P, {"deck": 10}, [lost("Ann"), lost("Cy")])
    assert changed.totals == {"Ann": 1, "Bob": 0, "Cy": 1}


def test_a_round_the_rules_refuse_is_refused_every_time():
    for _ in range(2):
        with pytest.raises(RuleError):
            GAME.standings(P, {"deck": 10}, [lost("Zed")])
