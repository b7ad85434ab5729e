"""Web tests of a round's played-at time: a round kept offline keeps when it was played, if it can be believed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from companion.extensions import db
from companion.queries.matches import find_match
from tests.helpers import entry_fields, save_round, start_match


def millis(moment: datetime) -> str:
    """A naive UTC time as the phone sends it: milliseconds since 1970."""
    return str(int(moment.replace(tzinfo=UTC).timestamp() * 1000))


def now() -> datetime:
    """The server's clock, as the columns keep it."""
    return datetime.now(UTC).replace(tzinfo=None)


def saved_at(client, app, played_at: str | None, sent_at: str | None = None) -> datetime:
    """Save a Topic_ round sent with this played-at field (and sent-at, by the same phone's clock); when the server
    says it was played."""
    with app.app_context():
        match_id = start_match(client, "topic", ["Ann", "Bob"])
        find_match(match_id).started_at = now() - timedelta(hours=1)
        db.session.commit()
        db.session.remove()
    fields = entry_fields(app, match_id, {"losers": ["Bob"]})
    if played_at is not None:
        fields["played_at"] = played_at
    if sent_at is not None:
        fields["sent_at"] = sent_at
    assert save_round(client, match_id, fields, 1).status_code == 200
    with app.app_context():
        at = find_match(match_id).rounds[0].created_at
        db.session.remove()
    return at


def test_a_round_kept_offline_keeps_the_time_it_was_played(client, app):
    played = (now() - timedelta(minutes=20)).replace(microsecond=0)
    assert saved_at(client, app, millis(played)) == played


def test_a_round_kept_on_a_phone_whose_clock_is_hours_wrong_is_dated_by_how_long_it_waited(client, app):
    phone = now() - timedelta(hours=5)
    before = now()
    at = saved_at(client, app, millis(phone), millis(phone + timedelta(minutes=20)))
    assert before - timedelta(minutes=20, seconds=1) <= at <= now() - timedelta(minutes=20)


@pytest.mark.parametrize(
    "played_at",
    [
        pytest.param(lambda: millis(now() - timedelta(hours=2)), id="before the match began"),
        pytest.param(lambda: millis(now() + timedelta(minutes=10)), id="ahead of the server"),
        pytest.param(lambda: "99999999999999999", id="past any calendar"),
        pytest.param(lambda: "yesterday", id="not a time"),
    ],
)
def test_a_played_time_the_server_cannot_believe_is_the_servers_own(client, app, played_at):
    before = now()
    at = saved_at(client, app, played_at())
    assert before <= at <= now()


def test_a_round_is_never_dated_before_the_round_before_it(client, app):
    """A phone's word cannot place a round before the one it follows: the server's time then."""
    with app.app_context():
        match_id = start_match(client, "topic", ["Ann", "Bob"])
        find_match(match_id).started_at = now() - timedelta(hours=1)
        db.session.commit()
        db.session.remove()
    assert save_round(client, match_id, entry_fields(app, match_id, {"losers": ["Bob"]}), 1).status_code == 200
    fields = entry_fields(app, match_id, {"losers": ["Ann"]})
    fields["played_at"] = millis(now() - timedelta(minutes=10))
    before = now()
    assert save_round(client, match_id, fields, 2).status_code == 200
    with app.app_context():
        first, second = (played.created_at for played in find_match(match_id).rounds)
        db.session.remove()
    assert first < before <= second
