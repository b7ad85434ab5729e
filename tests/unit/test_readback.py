"""Each game's read-back line, as its entry adapter words it: what was entered, then what the standings add."""

from __future__ import annotations

from typing import Any

from companion.games import get_game


def readback(slug: str, players: list[str], raw_settings: dict[str, Any], rounds: list[dict[str, Any]]) -> str:
    """The English read-back of the last of these rounds (Message's own English stands in for the page's)."""
    game = get_game(slug)
    settings = game.settings(raw_settings, players)
    standings = game.standings(players, settings, rounds)
    checked = game.check_round(players, settings, rounds[-1], len(rounds))
    return game.entry.readback(len(rounds), checked, standings, players, settings, str)


def test_topic_says_who_takes_cards_in_seat_order_with_the_penalties_and_the_deck_left():
    line = readback("topic", ["Ann", "Bob", "Cy"], {}, [{"losers": ["Cy", "Ann"], "penalties": ["Cy", "Bob", "Cy"]}])
    assert line == "Round 1: Ann +1 · Bob +1 (1 penalty) · Cy +3 (2 penalties) · 31 cards left in the deck"


def test_topic_owns_up_to_a_card_the_box_no_longer_held():
    # A whole box in the deck leaves no removed pile: the last round's third loser finds no card at all.
    rounds = [{"losers": ["Ann"]}] * 70 + [{"losers": ["Ann", "Bob", "Cy"]}]
    line = readback("topic", ["Ann", "Bob", "Cy"], {"deck": 72}, rounds)
    assert line == (
        "Round 71: Ann +1 · Bob +1 · Cy +1 · no card left for Cy · 0 cards left in the deck · Game over"
    )


def test_pazzaparola_stars_every_player_at_the_top_score():
    rows = {"Ann": {"used": [5, 4], "unused": 1}, "Bob": {"used": [9], "unused": 2}, "Cy": {"used": [], "unused": 3}}
    line = readback("pazzaparola", ["Ann", "Bob", "Cy"], {"cards": 3}, [{"rows": rows}])
    assert line == "Round 1: Ann 8 ★, Bob 7, Cy -3"


def test_burraco_says_each_pair_s_hand_score_and_who_closed():
    teams = {"Noi": ["Ann", "Cy"], "Voi": ["Bob", "Di"]}
    sides = {"Noi": {"table": 245, "hand": 0, "clean": 0, "dirty": 1}, "Voi": {"table": 30, "hand": 50}}
    line = readback("burraco", ["Ann", "Bob", "Cy", "Di"], {"teams": teams}, [{"sides": sides, "closed_by": "Noi"}])
    assert line == "Hand 1: Noi 445 (closed), Voi -20"


def test_pazaak_says_the_set_then_the_sets_won():
    quick = readback("pazaak", ["Ann", "Bob"], {}, [{"winner": "Bob"}, {"winner": None}])
    assert quick == "Set 2: tied. Sets Ann 0 – Bob 1."
    even = {"totals": {"Ann": 19, "Bob": 19}, "filled": [], "tiebreaker": "Ann"}
    line = readback("pazaak", ["Ann", "Bob"], {"sets": 1}, [even])
    assert line == "Set 1: Ann wins (Ann 19, Bob 19 · tiebreaker). Ann wins the match Ann 1 – Bob 0."
