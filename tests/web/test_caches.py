"""The caches kept beside the rounds are rebuilt on start for matches stored before them."""

from __future__ import annotations

from sqlalchemy import select, update

from companion.extensions import db
from companion.models import Match, Seat
from companion.services import matches as service


def seat_caches() -> dict:
    """Every seat's cached verdict, by match and seat."""
    seats = db.session.scalars(select(Seat))
    return {(s.match_id, s.position): (s.total, s.won, s.score_sum, s.best_label) for s in seats}


def test_stale_caches_are_rebuilt_from_the_rounds(runner, app):
    assert runner.invoke(args=["seed", "--matches", "30", "--seed", "2"]).exit_code == 0
    with app.app_context():
        before = seat_caches()
        summaries = {m.id: m.summary for m in db.session.scalars(select(Match))}
        # As a database from before the caches would hold them.
        db.session.execute(update(Match).values(cache_version=0, summary={}))
        db.session.execute(update(Seat).values(total=None, won=False, score_sum=None, best_label=None))
        db.session.commit()
        db.session.expunge_all()

        assert service.refresh_stale_caches(batch=7) == 30
        assert service.refresh_stale_caches() == 0
        db.session.expunge_all()
        assert seat_caches() == before
        assert {m.id: m.summary for m in db.session.scalars(select(Match))} == summaries
