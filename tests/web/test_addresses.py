"""A match's or player's address tells nothing of how many the server holds: an opaque text, not the row id."""

from __future__ import annotations

import re

import pytest
from sqids import Sqids

from companion.extensions import db
from companion.models import ID_MAX, Player
from companion.services import matches as service
from companion.services.roster import roster_players
from companion.services.transaction import transaction
from companion.web.row_ids import MIN_LENGTH, RowIds, row_ids_of
from tests.helpers import (
    HTMX,
    csrf_token,
    entry_fields,
    reaching_flask,
    read_words,
    ref,
    save_round,
    start_match,
    unref,
)
from tests.pages import hrefs, read

PLAYERS = ["Ann", "Bob", "Cy", "Di"]
ADDRESS = re.compile(r"[0-9A-Za-z]{8}")


def differing(first: str, second: str) -> int:
    """How many characters two texts of the same length differ in."""
    return sum(a != b for a, b in zip(first, second, strict=True))


def assert_opaque(row_id: int, text: str) -> None:
    """The address text of a row: eight letters and digits, none of them the id's (an id of three digits or
    more: a single digit may stand in any text by chance)."""
    assert ADDRESS.fullmatch(text) and row_id >= 100, (row_id, text)
    assert str(row_id) not in text and "".join(re.findall(r"[0-9]", text)) != str(row_id), (row_id, text)


@pytest.fixture
def busy_server(app) -> None:
    """A server that already holds a hundred matches and players, so the next ones have ids of three digits."""
    with app.app_context():
        for _ in range(100):
            service.create_match("pazaak", ["Xena", "Yuri"], {})
        with transaction():
            roster_players([f"Player {number}" for number in range(100)])
        db.session.remove()


def test_two_matches_started_one_after_the_other_have_unrelated_addresses(client, busy_server):
    first = client.get("/matches/new")
    assert first.status_code == 200
    addresses = []
    for _ in range(2):
        csrf = csrf_token(client, "/matches/new")
        started = client.post("/matches/new", data={"csrf_token": csrf, "game": "topic", "seat": PLAYERS,
                                                    "action": "start"})  # fmt: skip
        assert started.status_code == 302
        addresses.append(started.headers["Location"].rsplit("/", 1)[1])
    ids = [unref(text) for text in addresses]
    assert ids[1] == ids[0] + 1
    for row_id, text in zip(ids, addresses, strict=True):
        assert_opaque(row_id, text)
    assert differing(*addresses) > 1 and addresses[0][:-1] != addresses[1][:-1]
    # Each address leads to its own match.
    for text in addresses:
        assert "Ann, Bob, Cy, Di" in read_words(client.get(f"/matches/{text}").get_data(as_text=True))


def test_two_players_added_one_after_the_other_have_unrelated_addresses(client, app, busy_server):
    start_match(client, "topic", PLAYERS)
    html = client.get("/players").get_data(as_text=True)
    by_name = {name: text for text, name in re.findall(r'href="/players/([0-9A-Za-z]+)" title="([^"]+)"', html)}
    with app.app_context():
        ids = {player.name: player.id for player in Player.query.all()}
    assert ids["Bob"] == ids["Ann"] + 1
    for name in ("Ann", "Bob"):
        assert_opaque(ids[name], by_name[name])
        assert unref(by_name[name]) == ids[name]
    assert differing(by_name["Ann"], by_name["Bob"]) > 1 and by_name["Ann"][:-1] != by_name["Bob"][:-1]


def test_another_secret_key_gives_other_addresses():
    one, other = RowIds("one server's key"), RowIds("another server's key")
    assert [one.encode(n) for n in range(1, 6)] != [other.encode(n) for n in range(1, 6)]
    assert all(one.decode(one.encode(n)) == n for n in (0, 1, 2, 1000, ID_MAX))


def wrong_addresses(app, match_id: int) -> dict[str, str]:
    """Texts that are no match's address, each of a kind a stranger might try."""
    row_ids = row_ids_of(app)
    unpadded = Sqids(alphabet=row_ids.alphabet).encode([match_id])
    padded = Sqids(alphabet=row_ids.alphabet, min_length=MIN_LENGTH)
    found = {
        "the id itself": str(match_id),
        "garbage": "zzzzzzzz",
        "too long": ref(match_id) * 3,
        # Sqids reads these as the match's id too, but the server never writes them.
        "not canonical": unpadded,
        "two numbers": padded.encode([match_id, match_id]),
        "past INTEGER": padded.encode([ID_MAX + 1]),
        "far past INTEGER": padded.encode([2**62]),
    }
    assert row_ids._sqids.decode(unpadded) == [match_id] and unpadded != ref(match_id)
    return found


@pytest.mark.parametrize(
    "kind", ["the id itself", "garbage", "too long", "not canonical", "two numbers", "past INTEGER", "far past INTEGER"]
)
def test_a_wrong_address_is_a_404_on_a_page_a_fragment_and_the_live_poll(client, app, kind):
    match_id = start_match(client, "topic", PLAYERS)
    text = wrong_addresses(app, match_id)[kind]
    assert client.get(f"/matches/{ref(match_id)}").status_code == 200
    answers = {
        "page": client.get(f"/matches/{text}"),
        "json": client.get(f"/matches/{text}.json"),
        "fragment": client.get(f"/matches/{text}/chart", headers=HTMX),
        "live poll": client.get(f"/matches/{text}/live", headers=HTMX),
        "unchanged poll": client.get(f"/matches/{text}/live", headers={**HTMX, "If-None-Match": '"v1-abcd-en"'}),
        "player": client.get(f"/players/{text}"),
    }
    assert {name: answer.status_code for name, answer in answers.items()} == dict.fromkeys(answers, 404)
    assert "Back to the start" in answers["page"].get_data(as_text=True)


def test_a_round_number_is_still_a_number(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    save_round(client, match_id, entry_fields(app, match_id, {"losers": ["Ann"]}))
    assert client.get(f"/matches/{ref(match_id)}/rounds/1").status_code == 200
    assert client.get(f"/matches/{ref(match_id)}/rounds/{ref(1)}").status_code == 404


def test_the_unchanged_poll_by_address_is_answered_before_flask(client, app):
    match_id = start_match(client, "topic", PLAYERS)
    path = f"/matches/{ref(match_id)}/live"
    tag = client.get(path, headers=HTMX).headers["ETag"]
    with reaching_flask(app) as reached_flask:
        unchanged = client.get(path, headers={**HTMX, "If-None-Match": tag})
        assert unchanged.status_code == 304 and unchanged.headers["ETag"] == tag
        assert reached_flask == []
        # The same poll by the match's id, or by a text sqids reads as that id, is no match's poll.
        for text in (str(match_id), wrong_addresses(app, match_id)["not canonical"]):
            assert client.get(f"/matches/{text}/live", headers={**HTMX, "If-None-Match": tag}).status_code == 404
        assert len(reached_flask) == 2


def test_the_history_filters_a_player_by_address(client, app):
    start_match(client, "topic", PLAYERS)
    with app.app_context():
        ann = Player.query.filter_by(name="Ann").one().id
    player_page = client.get(f"/players/{ref(ann)}").get_data(as_text=True)
    assert f"/history?player={ref(ann)}" in hrefs(read(player_page))
    history = client.get(f"/history?player={ref(ann)}").get_data(as_text=True)
    player = read(history).one_by_role("combobox", "Player")
    assert [(option["value"], option.text) for option in player.find_all("option") if option.has("selected")] == [
        (ref(ann), "Ann")
    ]
    assert "1 match" in read_words(history)
    # The id itself filters nothing: the history shows every match, with no player chosen.
    unfiltered = client.get(f"/history?player={ann}").get_data(as_text=True)
    assert " selected>Ann<" not in unfiltered
    fragment = client.get(f"/history?player={ref(ann)}&game=topic", headers=HTMX)
    assert fragment.headers["HX-Push-Url"] == f"/history?game=topic&player={ref(ann)}"
