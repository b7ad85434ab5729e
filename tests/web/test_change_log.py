"""The change log reads like a score sheet's corrections: each side's values, the local time, newest first."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from companion.extensions import db
from companion.models import RoundChange
from tests.helpers import HTMX, csrf_token, entry_fields, ref, save_round, start_match
from tests.pages import read


def lines_of(page: str) -> list[str]:
    """The change log's lines as a person reads them: the list items' text, spaces made one."""
    log = re.search(r'<ol class="change-log"[^>]*>(.*?)</ol>', page, re.S)
    assert log, "no change log on the page"
    items = re.findall(r"<li>(.*?)</li>", log.group(1), re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", item).split()).replace(" ,", ",") for item in items]


def change_times(app) -> list[str]:
    """The clock time (UTC, the app's default zone) of each logged change, newest first."""
    with app.app_context():
        moments = db.session.scalars(select(RoundChange.at).order_by(RoundChange.id.desc())).all()
        db.session.remove()
    return [moment.strftime("%H:%M") for moment in moments]


@pytest.fixture
def corrected_undone_redone(client, app):
    """A Topic_ match of Ann, Bob and Cy: round 2 corrected from Cy losing to Ann, then undone and redone."""
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    for number, losers in enumerate((["Bob"], ["Cy"]), start=1):
        assert save_round(client, match_id, entry_fields(app, match_id, {"losers": losers}), number).status_code == 200
    form = entry_fields(app, match_id, {"losers": ["Ann"]})
    form.add("revision", "0")
    form.add("csrf_token", csrf_token(client, f"/matches/{ref(match_id)}/rounds/2"))
    assert client.post(f"/matches/{ref(match_id)}/rounds/2", data=form).status_code in (200, 302)
    token = {"X-CSRFToken": csrf_token(client, f"/matches/{ref(match_id)}")}
    assert client.post(f"/matches/{ref(match_id)}/undo", headers={**HTMX, **token}).status_code == 200
    assert client.post(f"/matches/{ref(match_id)}/redo", headers={**HTMX, **token}).status_code == 200
    return match_id


def test_change_log_in_english_reads_like_a_score_sheet(client, app, corrected_undone_redone):
    page = client.get(f"/matches/{ref(corrected_undone_redone)}/changes").get_data(as_text=True)
    redone, undone, corrected = change_times(app)
    assert lines_of(page) == [
        f"Round 2 · {redone} · redone · Ann 1, Bob 0, Cy 0 put back",
        f"Round 2 · {undone} · undone · Ann 1, Bob 0, Cy 0 taken back",
        f"Round 2 · {corrected} · corrected · Ann 0 → 1, Cy 1 → 0",
    ]
    # Numbered from 1 at the top (the newest), not counted down from the number of changes.
    assert read(page).one("ol", cls="change-log").role == "list"
    assert "<pre>" not in page and "{&#34;" not in page


def test_change_log_in_italian(client, app, corrected_undone_redone):
    page = client.get(
        f"/matches/{ref(corrected_undone_redone)}/changes", headers={"Accept-Language": "it-IT,it;q=0.9"}
    ).get_data(as_text=True)
    redone, undone, corrected = change_times(app)
    assert lines_of(page) == [
        f"Turno 2 · {redone} · ripristinato · Ann 1, Bob 0, Cy 0 ripristinati",
        f"Turno 2 · {undone} · annullato · Ann 1, Bob 0, Cy 0 annullati",
        f"Turno 2 · {corrected} · corretto · Ann 0 → 1, Cy 1 → 0",
    ]
