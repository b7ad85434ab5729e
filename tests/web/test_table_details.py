"""The small faults of a third evening at the table, each as the page's markup shows it to its phone."""

from __future__ import annotations

from tests.helpers import grant_host_rights, ref, save_round, start_match
from tests.pages import read


def import_forms(page: str) -> list:
    """The history's forms that send a match file to be imported."""
    return [form for form in read(page).find_all("form") if (form.get("action") or "").endswith("/history/import")]


def test_import_is_offered_to_the_hosts_alone_on_a_private_server(two_groups):
    _app, phones, _friday, _club = two_groups
    # Ann started the group (a host); Bob joined it by the invite (a member without host rights).
    host_page = phones["ann"].get("/history").get_data(as_text=True)
    assert import_forms(host_page), "the host's history offers no import"
    member_page = phones["bob"].get("/history").get_data(as_text=True)
    assert not import_forms(member_page), "a member without host rights is offered an import it would be refused"
    assert not read(member_page).by_role("button", "Import")
    # The export stays every member's.
    assert read(member_page).by_role("button", "Download JSON")


def test_import_is_offered_to_the_hosts_alone_on_an_open_server(app, client):
    # On the laptop every phone reads the history, and a phone without host rights is offered no import either.
    assert not import_forms(client.get("/history").get_data(as_text=True))
    assert import_forms(grant_host_rights(client).get("/history").get_data(as_text=True))


def test_a_match_being_played_shows_no_duration_of_0_min(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob", "Cy"])
    assert save_round(client, match_id, {"loser": "Bob"}).status_code == 200
    page = read(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True))
    assert "Duration: 0 min" not in page.visible_text
    assert "Duration" not in page.visible_text, "a match played for under a minute tells no duration yet"
