"""Settings declared once (games.settings.Setting): the rules, the form reading and the stepper round trip follow."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from werkzeug.datastructures import MultiDict

from companion.games import get_game
from companion.games.refusals import N_, RuleError
from companion.games.settings import CHOICE, Setting
from companion.games.topic.entry import TopicEntry
from companion.games.topic.rules import Topic

P = ["Ann", "Bob"]


class LongerTopic(Topic):
    """Topic_ with one more setting, declared the way a new one would be: nothing else names it."""

    declared: ClassVar[tuple[Setting, ...]] = (
        *Topic.declared,
        Setting("timer", 30, N_("seconds to answer"), lo=5, hi=120),
        Setting("pace", "calm", N_("pace"), kind=CHOICE, choices=("calm", "fast")),
    )


GAME = LongerTopic(entry=TopicEntry)


def form(**fields: Any) -> MultiDict:
    """A posted new-match form."""
    return MultiDict(fields)


def test_a_stepper_tap_keeps_every_other_setting_as_the_form_carried_it():
    fields = {"length": "exact", "deck": "30", "topic-timer": "45", "topic-pace": "fast", "action": "topic-deck:1"}
    shown = GAME.entry.setup_view(form(**fields), P)
    assert (shown["deck"], shown["shown"]["timer"], shown["shown"]["pace"]) == (31, 45, "fast")


def test_the_generic_stepper_moves_its_setting_within_its_bounds():
    assert GAME.entry.setup_view(form(**{"topic-timer": "45"}, action="setting:timer:1"), P)["shown"]["timer"] == 46
    assert GAME.entry.setup_view(form(**{"topic-timer": "120"}, action="setting:timer:1"), P)["shown"]["timer"] == 120
    assert GAME.entry.setup_view(form(action="setting:timer:-1"), P)["shown"]["timer"] == 29
    assert GAME.entry.setup_view(form(**{"topic-timer": "x"}, action="add:Ann"), P)["shown"]["timer"] == "x"


def test_the_form_reads_a_declared_setting_and_the_rules_check_it():
    raw = GAME.entry.settings_from_form(form(length="short", **{"topic-timer": " 45 ", "topic-pace": "fast"}), P)
    assert GAME.settings(raw, P) == {"length": "short", "deck": 24, "timer": 45, "pace": "fast"}
    assert GAME.settings({}, P) == {"length": "medium", "deck": 36, "timer": 30, "pace": "calm"}
    assert set(GAME.entry.setting_fields) == {"length", "deck", "timer", "pace"}


@pytest.mark.parametrize("raw, field", [({"timer": 2}, "timer"), ({"pace": "slow"}, "pace"), ({"mood": 1}, "mood")])
def test_a_declared_setting_out_of_its_bounds_or_unknown_is_refused_naming_it(raw, field):
    with pytest.raises(RuleError) as caught:
        GAME.settings(raw, P)
    assert caught.value.field == field


def test_an_unreadable_number_on_the_form_names_its_setting():
    with pytest.raises(RuleError) as caught:
        GAME.entry.settings_from_form(form(**{"topic-timer": "soon"}), P)
    assert caught.value.field == "timer"


@pytest.mark.parametrize(
    "stored",
    [{}, {"length": "long"}, {"deck": 9}, {"length": "short", "deck": None}, {"length": "medium", "deck": 72}],
)
def test_topic_settings_stored_before_read_as_they_did(stored):
    expected_deck = stored.get("deck") or {"short": 24, "medium": 36, "long": 67}[stored.get("length", "medium")]
    assert get_game("topic").settings(stored, P) == {"length": stored.get("length", "medium"), "deck": expected_deck}
