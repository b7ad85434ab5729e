"""Web tests of the round keys: a save sent again under its key is stored once, whatever came since."""

from __future__ import annotations

import uuid

import pytest

from tests.helpers import HTMX, csrf_token, entry_fields, ref, save_round, start_match, stored_match


def keyed(app, match_id: int, loser: str, key: str):
    """The Topic_ entry form with `loser` tapped, under the phone's key for this save."""
    fields = entry_fields(app, match_id, {"losers": [loser]})
    fields["round_key"] = key
    return fields


@pytest.fixture
def match_id(client):
    """A Topic_ match of Ann, Bob and Cy, kept by `client`."""
    return start_match(client, "topic", ["Ann", "Bob", "Cy"])


def test_the_same_key_sent_again_stores_nothing_new(client, app, match_id):
    key = str(uuid.uuid4())
    assert save_round(client, match_id, keyed(app, match_id, "Bob", key), number=1).status_code == 200
    again = save_round(client, match_id, keyed(app, match_id, "Bob", key), number=1)
    assert again.status_code == 200
    assert stored_match(app, match_id).rounds == [{"losers": ["Bob"], "penalties": []}]


def test_a_retry_after_later_rounds_is_still_recognised(client, app, match_id):
    """Round 1's answer was lost, rounds 2 and 3 went through: round 1 sent again adds nothing."""
    first = str(uuid.uuid4())
    save_round(client, match_id, keyed(app, match_id, "Bob", first), number=1)
    save_round(client, match_id, keyed(app, match_id, "Cy", str(uuid.uuid4())), number=2)
    save_round(client, match_id, keyed(app, match_id, "Ann", str(uuid.uuid4())), number=3)
    again = save_round(client, match_id, keyed(app, match_id, "Bob", first), number=1)
    assert again.status_code == 200
    assert [r["losers"] for r in stored_match(app, match_id).rounds] == [["Bob"], ["Cy"], ["Ann"]]


def test_a_save_sent_again_after_its_round_was_taken_back_is_refused_not_stored_again(client, app, match_id):
    """Round 1's answer was lost and the round taken back meanwhile (then put back by Redo): sent again, it came back
    as a round of its own."""
    key = str(uuid.uuid4())
    assert save_round(client, match_id, keyed(app, match_id, "Bob", key), number=1).status_code == 200
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    undone = client.post(f"/matches/{ref(match_id)}/undo", data={"shown": "1", "csrf_token": token}, headers=HTMX)
    assert undone.status_code == 200
    again = save_round(client, match_id, keyed(app, match_id, "Bob", key), number=1)
    assert again.status_code == 409 and "taken back" in again.get_data(as_text=True)
    assert stored_match(app, match_id).rounds == []
    assert client.post(f"/matches/{ref(match_id)}/redo", data={"csrf_token": token}, headers=HTMX).status_code == 200
    assert save_round(client, match_id, keyed(app, match_id, "Bob", key), number=2).status_code == 409
    assert [r["losers"] for r in stored_match(app, match_id).rounds] == [["Bob"]]


def test_a_new_key_for_an_old_round_number_is_a_conflict(client, app, match_id):
    """Another phone's round 1 is in: this phone's own round 1, under its own key, is refused, not stored."""
    save_round(client, match_id, keyed(app, match_id, "Bob", str(uuid.uuid4())), number=1)
    refused = save_round(client, match_id, keyed(app, match_id, "Cy", str(uuid.uuid4())), number=1)
    assert refused.status_code == 409
    assert [r["losers"] for r in stored_match(app, match_id).rounds] == [["Bob"]]


# Fixed keys, not uuid4(): every worker of a parallel run must collect the same tests.
UNREADABLE_KEYS = [
    "not-a-key",
    "x" * 36,
    "6FDA2BF5-5C7C-4D66-8A17-52EE562035ED",
    "8d996129-6c97-458f-8597-ea47f839b1fc0",
]


@pytest.mark.parametrize("key", UNREADABLE_KEYS)
def test_an_unreadable_key_is_refused_and_nothing_stored(client, app, match_id, key):
    response = save_round(client, match_id, keyed(app, match_id, "Bob", key), number=1)
    assert response.status_code == 400
    assert "key cannot be read" in response.get_data(as_text=True)
    assert stored_match(app, match_id).rounds == []


def test_keys_belong_to_their_match(client, app, match_id):
    """The same key in two matches is two saves: keys are unique per match, not across them."""
    other = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    key = str(uuid.uuid4())
    save_round(client, match_id, keyed(app, match_id, "Bob", key), number=1)
    assert save_round(client, other, keyed(app, other, "Cy", key), number=1).status_code == 200
    assert stored_match(app, other).rounds == [{"losers": ["Cy"], "penalties": []}]
