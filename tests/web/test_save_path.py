"""What one round save does on the server: one replay of the rounds, caches written as it goes, records exact."""

from __future__ import annotations

import pytest
from sqlalchemy import event, select
from sqlalchemy.orm import Session

from companion.extensions import db
from companion.games import get_game
from companion.models import Seat
from tests.helpers import HTMX, assert_exact, csrf_token, entry_fields, ref, save_round, start_match, stored_match


@pytest.fixture
def match_id(client):
    """A Topic_ match of Ann, Bob and Cy, kept by `client`, two rounds in."""
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    for loser in ("Bob", "Cy"):
        fields = entry_fields(client.application, match_id, {"losers": [loser]})
        assert save_round(client, match_id, fields).status_code == 200
    return match_id


def test_a_save_replays_the_rounds_once(client, app, match_id, monkeypatch):
    """The answer (entry, standings, read-back) is drawn from the replay that rescored the match."""
    game = get_game("topic")
    replays = []
    replay = game.replay

    def counting(*args, **kwargs):
        replays.append(args)
        return replay(*args, **kwargs)

    form = entry_fields(app, match_id, {"losers": ["Ann"]})
    form["number"], form["csrf_token"] = "3", csrf_token(client, f"/matches/{ref(match_id)}")
    monkeypatch.setattr(game, "replay", counting)
    response = client.post(f"/matches/{ref(match_id)}/rounds", data=form, headers=HTMX)
    assert response.status_code == 200
    assert "Round 3" in response.get_data(as_text=True)
    assert len(replays) == 1


def test_a_save_writes_its_caches_as_it_goes_and_the_commit_flushes_nothing(client, app, match_id):
    """The seats' totals are stored, and still the records are what the seats add up to."""
    fields = entry_fields(app, match_id, {"losers": ["Ann"]})
    flushed: list[int] = []

    def before_flush(session, context, instances):
        flushed.append(len(session.dirty) + len(session.new) + len(session.deleted))

    event.listen(Session, "before_flush", before_flush)
    try:
        assert save_round(client, match_id, fields, number=3).status_code == 200
    finally:
        event.remove(Session, "before_flush", before_flush)
    assert not any(flushed)
    stored = stored_match(app, match_id)
    standings = get_game("topic").standings(stored.player_names, stored.settings, stored.rounds)
    with app.app_context():
        totals = {seat.name: seat.total for seat in db.session.scalars(select(Seat).where(Seat.match_id == match_id))}
        assert totals == standings.totals == {"Ann": 1, "Bob": 1, "Cy": 1}
        assert_exact()
