"""A finished match's result card: what it tells per game (from matches stored through the services and
worked out by hand), its PNG in the page's language and theme, cached per version with an ETag, and the
"Share the result" link on a finished match's page alone."""

from __future__ import annotations

import io
import re
from typing import Any

import pytest
from PIL import Image, ImageStat

from companion.extensions import db
from companion.games import get_game
from companion.pages.match import MatchPage
from companion.queries.matches import find_match
from companion.services import matches as service
from companion.web import cards
from tests.helpers import check_headers, finished_match, ref, start_match
from tests.pages import read

SAME_ON_EVERY_DATABASE = "the result card: a picture drawn from the standings"

ITALIAN = {"Accept-Language": "it-IT,it;q=0.9"}


def stored(app, slug: str, players: list[str], settings: dict[str, Any], rounds: list[dict[str, Any]]) -> int:
    """A match stored round by round through the services, as the scorekeeper's saves store it; its id."""
    with app.app_context():
        match, _ = service.create_match(slug, players, settings)
        for data in rounds:
            service.save_round(match, data)
        match_id = match.id
        db.session.remove()
    return match_id


def row(word: str, used: list[int], cards: int = 8) -> dict[str, Any]:
    """A Pazzaparola row: the word, its upper-row cards, the rest of the deal in the lower row."""
    return {"word": word, "used": used, "unused": cards - len(used)}


# Word scores by hand (upper-row points − lower-row cards), 8 cards each:
# round 1: Anna QUARZO 16−2 = 14, Bruno CASA 4−4 = 0, Carla MELA 8−4 = 4 → Anna
# round 2: Anna AB 2−6 = −4, Bruno ZEBRA 13−3 = 10, Carla OK 6−6 = 0 → Bruno
# round 3: Anna SOLE 12−4 = 8, Bruno RE 4−6 = −2, Carla LUNA 8−4 = 4 → Anna
# round 4: Anna MARE 12−4 = 8, Bruno NO 2−6 = −4, Carla SI 2−6 = −4 → Anna, her third: 3, 1, 0.
PAZZAPAROLA = [
    {"rows": {"Anna": row("QUARZO", [5, 3, 4, 2, 1, 1]), "Bruno": row("CASA", [1, 1, 1, 1]),
              "Carla": row("MELA", [2, 2, 2, 2])}},
    {"rows": {"Anna": row("AB", [1, 1]), "Bruno": row("ZEBRA", [9, 1, 1, 1, 1]), "Carla": row("OK", [3, 3])}},
    {"rows": {"Anna": row("SOLE", [3, 3, 3, 3]), "Bruno": row("RE", [2, 2]), "Carla": row("LUNA", [2, 2, 2, 2])}},
    {"rows": {"Anna": row("MARE", [3, 3, 3, 3]), "Bruno": row("NO", [1, 1]), "Carla": row("SI", [1, 1])}},
]  # fmt: skip

# Hand scores by hand (table − hand + 200 a clean burraco, 100 a dirty one, 100 for closing):
# hand 1: Anna closes 300 − 0 + 200 + 100 = 600, Bruno 100 − 50 = 50
# hand 2: Bruno closes 400 − 0 + 200 + 100 = 700 (750), Anna 200 − 20 = 180 (780)
# hand 3: Anna closes 150 − 0 + 100 + 100 = 350 (1130, past 1005: over), Bruno 50 − 30 = 20 (770)
def hand(anna: dict[str, int], bruno: dict[str, int], closed_by: str | None) -> dict[str, Any]:
    """A hand of Anna and Bruno alone: each one's table, hand and burraco counts, and who closed."""
    return {"sides": {"Anna": anna, "Bruno": bruno}, "closed_by": closed_by}


BURRACO = [
    hand({"table": 300, "hand": 0, "clean": 1}, {"table": 100, "hand": 50}, "Anna"),
    hand({"table": 200, "hand": 20}, {"table": 400, "hand": 0, "clean": 1}, "Bruno"),
    hand({"table": 150, "hand": 0, "dirty": 1}, {"table": 50, "hand": 30}, "Anna"),
]  # fmt: skip


def card_of(app, match_id: int):
    """The words of the result card of a stored match, in English."""
    with app.test_request_context():
        found = MatchPage(find_match(match_id)).result_card()
        db.session.remove()
    return found


def test_pazzaparola_tells_the_best_word_of_the_match_and_whose_it_was(app):
    match_id = stored(app, "pazzaparola", ["Anna", "Bruno", "Carla"], {"cards": 8, "target": 3}, PAZZAPAROLA)
    card = card_of(app, match_id)
    assert str(card.highlight) == "Best word: “QUARZO”, 14 points, by Anna"
    assert [(row.name, row.total, row.place, row.won) for row in card.rows] == [
        ("Anna", "3", "1", True), ("Bruno", "1", "2", False), ("Carla", "0", "3", False)
    ]  # fmt: skip
    assert card.winners == "Winner: Anna" and card.game == "Pazzaparola" and card.total_heading == "Victory points"


def test_pazzaparola_names_everyone_who_reached_the_best_word_score(app):
    # Anna QUARZO 16 − 2 = 14 and Bruno ZAINO 19 − 5 = 14 in the one round, both to the target of 1.
    rounds = [{"rows": {"Anna": row("QUARZO", [5, 3, 4, 2, 1, 1]), "Bruno": row("ZAINO", [9, 9, 1])}}]
    card = card_of(app, stored(app, "pazzaparola", ["Anna", "Bruno"], {"cards": 8, "target": 1}, rounds))
    assert str(card.highlight) == "Best word score: 14 points, by Anna, Bruno"
    assert card.winners == "Winners: Anna, Bruno"
    assert [row.place for row in card.rows] == ["1", "1"]


def test_burraco_tells_the_hand_that_closed_the_match_and_who_closed_it(app):
    match_id = stored(app, "burraco", ["Anna", "Bruno"], {"target": 1005, "hands": 4}, BURRACO)
    card = card_of(app, match_id)
    assert str(card.highlight) == "Hand 3 closed by Anna: 350 points"
    assert [(row.name, row.total, row.won) for row in card.rows] == [("Anna", "1130", True), ("Bruno", "770", False)]


def test_burraco_in_pairs_shows_each_pairs_players_and_a_last_hand_nobody_closed(app):
    players = ["Anna", "Bruno", "Carla", "Dario"]
    settings = {"hands": 1, "teams": {"Noi": ["Anna", "Carla"], "Loro": ["Bruno", "Dario"]}}
    # Nobody closed the only hand: Noi 300 − 10 + 200 = 490, Loro 100 − 40 = 60.
    only = {"sides": {"Noi": {"table": 300, "hand": 10, "clean": 1}, "Loro": {"table": 100, "hand": 40}}}
    card = card_of(app, stored(app, "burraco", players, settings, [only]))
    assert str(card.highlight) == "Hand 1 ended with no one closing"
    assert [(row.name, row.members, row.total) for row in card.rows] == [
        ("Noi", "Anna & Carla", "490"), ("Loro", "Bruno & Dario", "60")
    ]  # fmt: skip
    assert card.side_heading == "Team"


def test_topic_tells_how_few_cards_won_and_ranks_the_fewest_first(app):
    match_id, players, settings, rounds = finished_match(app, "topic")
    standings = get_game("topic").standings(players, settings, rounds)
    card = card_of(app, match_id)
    fewest = min(standings.totals.values())
    assert str(card.highlight) == f"Fewest cards: {fewest} of the {settings['deck']} in the deck"
    assert [int(row.total) for row in card.rows] == sorted(standings.totals.values())
    assert {row.name for row in card.rows if row.won} == set(standings.winners)


def test_pazaak_tells_the_sets_played_and_tied(app):
    match_id, players, settings, rounds = finished_match(app, "pazaak")
    standings = get_game("pazaak").standings(players, settings, rounds)
    tied = sum(entry["winner"] is None for entry in standings.rounds)
    assert str(card_of(app, match_id).highlight) == f"{len(rounds)} sets played, {tied} tied."


def test_a_match_being_played_or_ended_by_the_host_has_no_card(app):
    playing = stored(app, "burraco", ["Anna", "Bruno"], {"target": 1005, "hands": 4}, BURRACO[:2])
    assert card_of(app, playing) is None
    with app.app_context():
        service.end_match(find_match(playing))
        db.session.remove()
    assert card_of(app, playing) is None


def test_the_cards_words_are_in_the_pages_language(app):
    match_id = stored(app, "pazzaparola", ["Anna", "Bruno", "Carla"], {"cards": 8, "target": 3}, PAZZAPAROLA)
    lines = {}
    for language, headers in (("en", {}), ("it", ITALIAN)):
        with app.test_request_context(headers=headers):
            lines[language] = MatchPage(find_match(match_id)).result_card().lines()
            db.session.remove()
    assert "Player Victory points" in lines["en"] and "Winner: Anna" in lines["en"]
    assert "Best word: “QUARZO”, 14 points, by Anna" in lines["en"]
    assert "Giocatore Punti vittoria" in lines["it"] and "Vince Anna" in lines["it"]
    assert "Parola migliore: “QUARZO”, 14 punti, di Anna" in lines["it"]
    assert "1 Anna 3" in lines["en"] and "1 Anna 3" in lines["it"]


def test_an_italian_card_names_the_teams_the_form_named_as_the_italian_page_does(app):
    # Teams left as the new-match form offered them ("Us", "Them") are "Noi" and "Loro" on an Italian page: the
    # card says so too, in each side's line, among the winners and in the highlight.
    players = ["Anna", "Bruno", "Carla", "Dario"]
    settings = {"hands": 1, "teams": {"Us": ["Anna", "Carla"], "Them": ["Bruno", "Dario"]}}
    # Us close: 300 + 200 (a clean burraco) + 100 (closing) = 600; Them 100 − 40 = 60.
    only = {"sides": {"Us": {"table": 300, "hand": 0, "clean": 1}, "Them": {"table": 100, "hand": 40}},
            "closed_by": "Us"}  # fmt: skip
    match_id = stored(app, "burraco", players, settings, [only])
    with app.test_request_context(headers=ITALIAN):
        lines = MatchPage(find_match(match_id)).result_card().lines()
        db.session.remove()
    assert "1 Noi Anna & Carla 600" in lines and "2 Voi Bruno & Dario 60" in lines, lines
    assert "Vince Noi" in lines and not any("Us" in line.split() or "Them" in line.split() for line in lines), lines
    assert any(line.startswith("Mano 1 chiusa da Noi") for line in lines), lines
    english = card_of(app, match_id)
    assert [row.name for row in english.rows] == ["Us", "Them"] and english.winners == "Winner: Us"


# --- the PNG over HTTP ----------------------------------------------------------------------


def png(response) -> Image.Image:
    """The answer's PNG, opened."""
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    assert response.mimetype == "image/png"
    return Image.open(io.BytesIO(response.get_data()))


def brightness(image: Image.Image) -> float:
    """The card's mean brightness, 0 (black) to 255 (white)."""
    return ImageStat.Stat(image.convert("L")).mean[0]


def test_a_finished_match_has_its_card_as_a_png_in_the_theme_asked(app, client):
    match_id = stored(app, "pazzaparola", ["Anna", "Bruno", "Carla"], {"cards": 8, "target": 3}, PAZZAPAROLA)
    light = png(client.get(f"/matches/{ref(match_id)}/card.png?theme=light"))
    dark = png(client.get(f"/matches/{ref(match_id)}/card.png?theme=dark"))
    black = png(client.get(f"/matches/{ref(match_id)}/card.png?theme=black"))
    for image in (light, dark, black):
        assert image.size[0] == 1080 and 1080 <= image.size[1] <= 2400
        # Not blank: the band, the text, the winner's line.
        assert len(image.convert("RGB").getcolors(1 << 20)) > 50
    assert brightness(dark) < brightness(light) / 2
    assert brightness(black) < brightness(dark)
    # Without a theme: light.
    assert client.get(f"/matches/{ref(match_id)}/card.png").get_data() == client.get(
        f"/matches/{ref(match_id)}/card.png?theme=light"
    ).get_data()


def test_the_card_is_named_for_the_phone_and_keeps_the_headers_of_a_document(app, client):
    match_id = stored(app, "burraco", ["Anna", "Bruno"], {"target": 1005, "hands": 4}, BURRACO)
    response = client.get(f"/matches/{ref(match_id)}/card.png?theme=dark")
    assert f'filename="burraco-{ref(match_id)}.png"' in response.headers["Content-Disposition"]
    # Opened alone in a tab (the download link without a share sheet), an image is a document.
    check_headers(response, "result card")


def test_the_card_in_italian_is_another_picture_with_its_own_tag(app, client):
    match_id = stored(app, "burraco", ["Anna", "Bruno"], {"target": 1005, "hands": 4}, BURRACO)
    english = client.get(f"/matches/{ref(match_id)}/card.png?theme=light")
    italian = client.get(f"/matches/{ref(match_id)}/card.png?theme=light", headers=ITALIAN)
    png(italian)
    assert english.get_data() != italian.get_data()
    assert english.headers["ETag"] != italian.headers["ETag"]
    assert {"Cookie", "Accept-Language"} <= set(italian.vary)


def test_an_unchanged_card_is_a_304_and_is_drawn_once_per_version_language_and_theme(app, client, monkeypatch):
    drawn = []
    draw = cards.draw_card
    monkeypatch.setattr(cards, "draw_card", lambda *args: drawn.append(args[1]) or draw(*args))
    match_id = stored(app, "pazzaparola", ["Anna", "Bruno", "Carla"], {"cards": 8, "target": 3}, PAZZAPAROLA)
    url = f"/matches/{ref(match_id)}/card.png?theme=dark"
    first = client.get(url)
    tag = first.headers["ETag"]
    # Asked again each time, and kept by no cache another phone shares (a group's card is its own).
    assert first.headers["Cache-Control"] == "no-cache, private"
    again = client.get(url, headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.get_data() == b"" and again.headers["ETag"] == tag
    # Another phone without the card: the same bytes, not drawn again.
    assert app.test_client().get(url).get_data() == first.get_data()
    assert drawn == ["dark"]
    light = client.get(f"/matches/{ref(match_id)}/card.png?theme=light", headers={"If-None-Match": tag})
    assert light.status_code == 200 and light.headers["ETag"] != tag
    assert drawn == ["dark", "light"]
    # The last round undone and put back: a new version of the match, so a new card and a new tag.
    for change in (service.undo_last_round, service.redo_round):
        with app.app_context():
            change(find_match(match_id))
            db.session.remove()
        if change is service.undo_last_round:
            assert client.get(url).status_code == 404
    redone = client.get(url, headers={"If-None-Match": tag})
    assert redone.status_code == 200 and redone.headers["ETag"] != tag
    assert drawn == ["dark", "light", "dark"]


@pytest.mark.parametrize("theme", ["blue", "Dark", "", "dark ", "light,dark"])
def test_a_theme_the_card_does_not_have_is_a_400_that_says_which_it_has(app, client, monkeypatch, theme):
    monkeypatch.setattr(cards, "draw_card", lambda *args: pytest.fail("drawn for a bad theme"))
    match_id = stored(app, "burraco", ["Anna", "Bruno"], {"target": 1005, "hands": 4}, BURRACO)
    response = client.get(f"/matches/{ref(match_id)}/card.png", query_string={"theme": theme})
    assert response.status_code == 400
    assert "light, dark or black" in response.get_data(as_text=True)
    italian = client.get(f"/matches/{ref(match_id)}/card.png", query_string={"theme": theme}, headers=ITALIAN)
    assert "chiara, scura o nera" in italian.get_data(as_text=True)


def test_a_match_not_finished_or_unknown_has_no_card(app, client):
    playing = stored(app, "burraco", ["Anna", "Bruno"], {"target": 1005, "hands": 4}, BURRACO[:2])
    response = client.get(f"/matches/{ref(playing)}/card.png?theme=light")
    assert response.status_code == 404
    assert "Only a finished match has a result card" in response.get_data(as_text=True)
    with app.app_context():
        service.end_match(find_match(playing))
        db.session.remove()
    assert client.get(f"/matches/{ref(playing)}/card.png?theme=light").status_code == 404
    assert client.get(f"/matches/{ref(999999)}/card.png?theme=light").status_code == 404


# --- the link on the match page ---------------------------------------------------------------

SHARE = "Share the result"


def share_link(html: str) -> str | None:
    """The href of the page's Share the result link, if it has one."""
    found = re.search(r'<a href="([^"]*card\.png[^"]*)"[^>]*\bdownload="([^"]+)"[^>]*>\s*Share the result', html)
    return found.group(1).replace("&amp;", "&") if found else None


def test_a_finished_matchs_page_offers_its_card_in_the_chosen_theme(app, client):
    match_id = stored(app, "pazzaparola", ["Anna", "Bruno", "Carla"], {"cards": 8, "target": 3}, PAZZAPAROLA)
    page = client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    assert share_link(page) == f"/matches/{ref(match_id)}/card.png?theme=light"
    assert f"pazzaparola-{ref(match_id)}.png" in [link.get("download") for link in read(page).find_all("a")]
    for theme in ("dark", "black"):
        client.set_cookie("theme", theme)
        assert share_link(client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)).endswith(f"theme={theme}")
    client.set_cookie("lang", "it")
    assert "Condividi il risultato" in client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)


def test_a_match_being_played_or_ended_by_the_host_offers_no_card(app, client):
    match_id = start_match(client, "topic", ["Anna", "Bruno"])
    assert SHARE not in client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
    with app.app_context():
        service.end_match(find_match(match_id))
        db.session.remove()
    assert SHARE not in client.get(f"/matches/{ref(match_id)}").get_data(as_text=True)
