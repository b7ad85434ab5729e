"""One family of errors: rules and services refuse with untranslated messages; the web layer alone translates
them and answers each kind with its status, on one error page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from werkzeug.datastructures import MultiDict

from companion.games.refusals import ChangedMeanwhile, Message, NotAllowed, Refusal, RuleError
from companion.services.roster import RosterError, rename_player
from companion.web.setup_form import Draft
from tests.helpers import HTMX, csrf_token, ref, start_match

SAME_ON_EVERY_DATABASE = "how refusals are translated and mapped to statuses"

ROOT = Path(__file__).resolve().parents[2]


def test_the_kinds_are_one_family_and_carry_a_message():
    for kind in (NotAllowed, ChangedMeanwhile, RuleError, RosterError):
        assert issubclass(kind, Refusal)
    assert not issubclass(ChangedMeanwhile, NotAllowed) and not issubclass(NotAllowed, ChangedMeanwhile)
    assert isinstance(NotAllowed("not yours").message, Message)


def test_a_roster_refusal_is_not_translated_by_the_service(app, client):
    start_match(client, "topic", ["Ann", "Bob"])
    from companion.extensions import db
    from companion.models import Player

    with app.test_request_context(headers={"Cookie": "lang=it"}):
        ann = db.session.scalar(db.select(Player).where(Player.name == "Ann"))
        with pytest.raises(RosterError) as refused:
            rename_player(ann, "bob")
    assert refused.value.field == "name"
    assert isinstance(refused.value.message, Message)
    assert refused.value.message.text == "%(name)s is already in the roster (names are compared ignoring case)."


def test_the_new_match_form_keeps_its_refusals_untranslated(app):
    with app.test_request_context(headers={"Cookie": "lang=it"}):
        draft = Draft.from_form(MultiDict({"game": "topic"}))
        draft.add("   ")
    assert draft.errors["seat"] == Message("Type a name first.")


def test_the_new_match_form_shows_its_refusal_in_the_pages_language(client):
    client.set_cookie("lang", "it")
    token = csrf_token(client, "/matches/new")
    page = client.post("/matches/new", data={"csrf_token": token, "game": "topic", "action": "new", "new_name": " "})
    assert page.status_code == 422
    assert "Scrivi prima un nome." in page.get_data(as_text=True)


def test_not_allowed_is_a_403_page_in_the_pages_language(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    stranger = app.test_client()
    stranger.set_cookie("lang", "it")
    token = csrf_token(stranger, f"/matches/{ref(match_id)}")
    response = stranger.post(f"/matches/{ref(match_id)}/pencil/back", data={"csrf_token": token})
    assert response.status_code == 403
    page = response.get_data(as_text=True)
    assert "403 — Non consentito" in page
    assert "Solo il telefono che ha iniziato la partita può riprendere la matita" in page


def test_changed_meanwhile_is_a_409_in_the_banner(client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    response = client.post(f"/matches/{ref(match_id)}/undo", data={"csrf_token": token}, headers=HTMX)
    assert response.status_code == 409
    assert response.headers["HX-Retarget"] == "#banner"
    assert "There is no round to undo" in response.get_data(as_text=True)


def test_a_page_that_is_not_there_says_so_in_the_pages_language(client):
    client.set_cookie("lang", "it")
    response = client.get(f"/matches/{ref(999)}")
    assert response.status_code == 404
    page = response.get_data(as_text=True)
    assert "404 — Non trovato" in page and "A questo indirizzo non c'è nulla" in page.replace("&#39;", "'")
    assert "requested URL" not in page


def test_there_is_one_N_marker():
    definitions = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "companion").rglob("*.py"))
        if re.search(r"^def N_\(", path.read_text(), re.MULTILINE)
    ]
    assert definitions == ["companion/games/refusals.py"]


def test_only_the_web_layer_translates():
    """The rules, the services, the queries and the new-match form never call gettext."""
    layers = ["games", "services", "queries"]
    files = [p for layer in layers for p in (ROOT / "companion" / layer).rglob("*.py")]
    files.append(ROOT / "companion" / "web" / "setup_form.py")
    translating = [str(p.relative_to(ROOT)) for p in files if "flask_babel" in p.read_text()]
    assert translating == []
