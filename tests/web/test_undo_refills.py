"""Web tests of Undo as an eraser: the round taken back is in the entry again, ready to correct and save."""

from __future__ import annotations

import pytest
from werkzeug.datastructures import MultiDict

from tests.helpers import HTMX, csrf_token, entry_fields, read_words, ref, save_round, start_match, stored_match
from tests.pages import read

SAME_ON_EVERY_DATABASE = "the entry an Undo fills in again: markup (Undo itself is tested on both)"

ROUNDS = {
    "pazzaparola": {
        "theme": "Animali",
        "rows": {"Ann": {"word": "ZANZARA", "used": [7, 2, 7, 2, 3], "unused": 3},
                 "Bob": {"word": "RE", "used": [2, 2], "unused": 6}},
    },
    "burraco": {"sides": {"Ann": {"table": 300, "hand": 0, "clean": 1}, "Bob": {"table": 100, "hand": 50}},
                "closed_by": "Ann"},
    "topic": {"losers": ["Ann", "Bob"], "penalties": ["Ann"]},
}  # fmt: skip


def sent_by(html: str) -> list[tuple[str, str]]:
    """What Save sends from the entry drawn in `html`."""
    return read(html).one("form", cls="round-entry").fields()


@pytest.mark.parametrize("game", sorted(ROUNDS))
def test_undo_puts_the_rounds_values_back_into_the_entry(client, app, game):
    match_id = start_match(client, game, ["Ann", "Bob"])
    assert save_round(client, match_id, entry_fields(app, match_id, ROUNDS[game]), 1).status_code == 200
    stored = stored_match(app, match_id).rounds
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    undone = client.post(f"/matches/{ref(match_id)}/undo", data={"shown": "1"}, headers={**HTMX, "X-CSRFToken": token})
    assert undone.status_code == 200
    assert stored_match(app, match_id).rounds == []
    # Save, untouched, stores the round as it was.
    fields = [(name, value) for name, value in sent_by(undone.get_data(as_text=True)) if name != "csrf_token"]
    assert dict(fields)["number"] == "1"
    fields.append(("csrf_token", token))
    again = client.post(f"/matches/{ref(match_id)}/rounds", data=MultiDict(fields), headers=HTMX)
    assert again.status_code == 200, again.get_data(as_text=True)
    assert stored_match(app, match_id).rounds == stored


def test_undo_of_a_pazaak_quick_result_marks_the_result_taken_back(client, app):
    """A quick result is one tap: the entry marks which one was taken back, to tap it or the other."""
    match_id = start_match(client, "pazaak", ["Ann", "Bob"])
    save_round(client, match_id, entry_fields(app, match_id, {"winner": "Bob"}), 1)
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    undone = client.post(f"/matches/{ref(match_id)}/undo", data={"shown": "1"}, headers={**HTMX, "X-CSRFToken": token})
    html = read_words(undone.get_data(as_text=True))
    # The one marked current is the Bob won button, the result taken back.
    current = [element for element in read(html).iter() if element.get("aria-current") == "true"]
    assert [(element.role, element.name(), element["value"]) for element in current] == [("button", "Bob won", "1")]


def test_undo_of_a_topic_round_of_one_loser_keeps_the_one_tap_entry_and_its_penalty(client, app):
    """One tap saved it, one tap on the right loser saves it again: the penalty card stays entered."""
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    save_round(client, match_id, entry_fields(app, match_id, {"losers": ["Bob"], "penalties": ["Ann"]}), 1)
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    undone = client.post(f"/matches/{ref(match_id)}/undo", data={"shown": "1"}, headers={**HTMX, "X-CSRFToken": token})
    fields = [(name, value) for name, value in sent_by(undone.get_data(as_text=True)) if name != "csrf_token"]
    assert ("several", "on") not in fields
    fields += [("loser", "Cy"), ("csrf_token", token)]
    again = client.post(f"/matches/{ref(match_id)}/rounds", data=MultiDict(fields), headers=HTMX)
    assert again.status_code == 200, again.get_data(as_text=True)
    assert stored_match(app, match_id).rounds == [{"losers": ["Cy"], "penalties": ["Ann"]}]


@pytest.mark.parametrize(
    ("game", "data", "line"),
    [
        ("burraco", ROUNDS["burraco"], "Hand 1 taken back."),
        ("pazaak", {"winner": "Ann"}, "Set 1 taken back."),
        ("topic", ROUNDS["topic"], "Round 1 taken back."),
    ],
)
def test_undo_names_the_round_as_the_game_calls_it(client, app, game, data, line):
    match_id = start_match(client, game, ["Ann", "Bob"])
    assert save_round(client, match_id, entry_fields(app, match_id, data), 1).status_code == 200
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    undone = client.post(f"/matches/{ref(match_id)}/undo", data={"shown": "1"}, headers={**HTMX, "X-CSRFToken": token})
    assert line in undone.get_data(as_text=True)


@pytest.mark.parametrize(
    ("game", "data", "words"),
    [
        (
            "burraco",
            ROUNDS["burraco"],
            {"en": ("Hand", "Correct hand", "last hand"), "it": ("Mano", "Correggi la mano", "ultima mano")},
        ),
        (
            "pazaak",
            {"winner": "Ann"},
            {"en": ("Set", "Correct set", "last set"), "it": ("Set", "Correggi il set", "ultimo set")},
        ),
        (
            "topic",
            ROUNDS["topic"],
            {"en": ("Round", "Correct round", "last round"), "it": ("Turno", "Correggi il turno", "ultimo turno")},
        ),
    ],
)
def test_the_home_page_the_correction_and_the_change_log_name_the_round_as_the_game_calls_it(
    client, app, game, data, words
):
    match_id = start_match(client, game, ["Ann", "Bob"])
    assert save_round(client, match_id, entry_fields(app, match_id, data), 1).status_code == 200
    token = csrf_token(client, f"/matches/{ref(match_id)}")
    undone = client.post(f"/matches/{ref(match_id)}/undo", data={"shown": "1"}, headers={**HTMX, "X-CSRFToken": token})
    assert undone.status_code == 200
    assert save_round(client, match_id, entry_fields(app, match_id, data), 1).status_code == 200
    for language, (number, correct, last) in words.items():
        said = {"Accept-Language": language}
        home = read(client.get("/", headers=said).get_data(as_text=True)).one("span", cls="meta").text
        assert home.startswith(f"{number} 2 · {last} "), home
        heading = read(client.get(f"/matches/{ref(match_id)}/rounds/1", headers=said).get_data(as_text=True))
        assert heading.one("h1").text == f"{correct} 1"
        log = read(client.get(f"/matches/{ref(match_id)}/changes", headers=said).get_data(as_text=True))
        assert [line.text.split(" · ")[0] for line in log.one("ol", cls="change-log").find_all("li")] == [f"{number} 1"]
