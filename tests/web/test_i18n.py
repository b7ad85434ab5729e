"""Italian and English: the language of the browser or of the switch, and a complete Italian catalog."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po
from flask.testing import FlaskClient

from tests.helpers import csrf_token, ref, start_match
from tests.pages import read

SAME_ON_EVERY_DATABASE = "the language chosen and the catalog"

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "translations" / "it" / "LC_MESSAGES" / "messages.po"
MO = PO.with_suffix(".mo")

SEATS = {
    "pazzaparola": ["Ann", "Bob", "Cy"],
    "burraco": ["Ann", "Bob", "Cy", "Di"],
    "topic": ["Ann", "Bob", "Cy"],
    "pazaak": ["Ann", "Bob"],
}

# A few strings of each page, in each language (as they appear in the HTML, so without apostrophes).
PAGES = {
    "home": ("/", {"en": ["New match", "In progress", "The games"], "it": ["Nuova partita", "In corso", "I giochi"]}),
    "new match": (
        "/matches/new",
        {
            "en": ["Players, in seat order (clockwise)", "New player", "Start Pazzaparola"],
            "it": ["Giocatori, in ordine di posto (senso orario)", "Nuovo giocatore", "Inizia Pazzaparola"],
        },
    ),
    "history": (
        "/history",
        {
            "en": ["Search by player name", "All games", "Export"],
            "it": ["Cerca per nome del giocatore", "Tutti i giochi", "Esporta"],
        },
    ),
    "players": ("/players", {"en": ["Win rate", "Played"], "it": ["% vittorie", "Giocate"]}),
}

# The match page of each game, as its scorekeeper sees it with no round played yet.
MATCH_PAGES = {
    "pazzaparola": {"en": ["Save round 1", "Victory points"], "it": ["Salva il turno 1", "Punti vittoria", "Prossimo"]},
    "burraco": {
        "en": ["Enter hand 1", "Laid on the table", "Clean (pulito)"],
        "it": ["Inserisci la mano 1", "Calate in tavola", "Burraco pulito", "Chiusura: chi ha chiuso?"],
    },
    "topic": {
        "en": ["Who lost round 1?", "Cards left in the deck"],
        "it": ["Chi ha perso il turno 1?", "Carte rimaste nel mazzo"],
    },
    "pazaak": {
        "en": ["Set 1 · quick result", "Sets won"],
        "it": ["Set 1 · risultato rapido", "Set vinti", "Fine turno"],
    },
}
MATCH_TOOLS = {
    "en": ["Undo", "Table view", "Share · viewer QR"],
    "it": ["Annulla", "Vista tavolo", "Condividi · QR spettatori"],
}
# Strings that must never show on an Italian page (English left untranslated).
ENGLISH_ONLY = ["New match", "Table view", "History</a>", "Players</a>", "Save round", "Round 1"]


def page_language(html: str) -> str:
    """The language the page declares itself in, which a screen reader speaks it in."""
    return read(html).one("html")["lang"]


def start(client: FlaskClient, game: str) -> str:
    """Start a match of `game` as its scorekeeper; the path of its page."""
    return f"/matches/{ref(start_match(client, game, SEATS[game]))}"


def choose_italian(client: FlaskClient, how: str) -> dict[str, str]:
    """Make `client` Italian by its browser's language or by the switch; the headers to send."""
    if how == "browser":
        return {"Accept-Language": "it-IT,it;q=0.9,en;q=0.5"}
    response = client.post(
        "/preferences", data={"csrf_token": csrf_token(client, "/preferences"), "theme": "", "lang": "it"}
    )
    assert response.status_code == 302
    # The switch wins over a browser that asks for English.
    return {"Accept-Language": "en-GB,en;q=0.9"}


def get(client: FlaskClient, path: str, headers: dict[str, str]) -> str:
    response = client.get(path, headers=headers)
    assert response.status_code == 200, path
    return response.get_data(as_text=True)


@pytest.mark.parametrize("how", ["browser", "switch"])
def test_pages_render_in_italian(client, how):
    headers = choose_italian(client, how)
    for game, expected in MATCH_PAGES.items():
        html = get(client, start(client, game), headers)
        assert page_language(html) == "it", game
        for text in expected["it"] + MATCH_TOOLS["it"]:
            assert text in html, f"{game}: {text!r} missing"
        for text in ENGLISH_ONLY:
            assert text not in html, f"{game}: English {text!r} left"
    # With matches played, the home page lists them, the history and the players hold them.
    for name, (path, expected) in PAGES.items():
        html = get(client, path, headers)
        assert page_language(html) == "it", name
        for text in expected["it"]:
            assert text in html, f"{name}: {text!r} missing"
        for text in ENGLISH_ONLY:
            assert text not in html, f"{name}: English {text!r} left"
    assert "Turno 1" in get(client, "/", headers)


def test_pages_render_in_english_by_default(client):
    for game, expected in MATCH_PAGES.items():
        html = get(client, start(client, game), {})
        assert page_language(html) == "en", game
        for text in expected["en"] + MATCH_TOOLS["en"]:
            assert text in html, f"{game}: {text!r} missing"
        for text in expected["it"]:
            assert text not in html, f"{game}: Italian {text!r} on an English page"
    for name, (path, expected) in PAGES.items():
        html = get(client, path, {})
        assert page_language(html) == "en", name
        for text in expected["en"]:
            assert text in html, f"{name}: {text!r} missing"
        for text in expected["it"]:
            assert text not in html, f"{name}: Italian {text!r} on an English page"


def test_a_browser_in_another_language_gets_english(client):
    assert page_language(get(client, "/", {"Accept-Language": "de-DE,de;q=0.9,fr;q=0.8"})) == "en"


def test_the_switch_back_to_the_browser_language(client):
    choose_italian(client, "switch")
    assert "Nuova partita" in get(client, "/", {})
    token = csrf_token(client, "/preferences")
    client.post("/preferences", data={"csrf_token": token, "theme": "", "lang": ""})
    assert "New match" in get(client, "/", {})
    assert "Nuova partita" in get(client, "/", {"Accept-Language": "it"})


def test_messages_written_in_views_are_translated(client):
    headers = choose_italian(client, "browser")
    token = csrf_token(client, "/matches/new")
    response = client.post(
        "/matches/new", data={"csrf_token": token, "action": "new", "new_name": "  "}, headers=headers
    )
    assert response.status_code == 422 and "Scrivi prima un nome." in response.get_data(as_text=True)
    # A viewer (another phone) that tries to write gets a clear page in its language.
    path = start(client, "topic")
    viewer = client.application.test_client()
    token = csrf_token(viewer, path)
    response = viewer.post(f"{path}/undo", data={"csrf_token": token}, headers=headers)
    assert response.status_code == 403
    assert "Solo il telefono del segnapunti" in response.get_data(as_text=True)


@pytest.mark.parametrize("lang", ["en", "it"])
def test_burraco_keeps_its_italian_terms(client, lang):
    headers = {"Accept-Language": lang}
    html = get(client, start(client, "burraco"), headers)
    assert page_language(html) == lang
    for term in ("pulito", "sporco", "chiusura"):
        assert term in html, f"{lang}: {term} missing"
    setup = get(client, "/matches/new?game=burraco", headers)
    for term in ("pulito", "sporco", "chiusura"):
        assert term in setup.lower(), f"{lang}: {term} missing on the new-match form"


# --- The catalog ---------------------------------------------------------------------

PLACEHOLDER = re.compile(r"%\([a-z_]+\)s|\{[a-z_]+\}")


def italian_catalog():
    with PO.open("rb") as po:
        return read_po(po, locale="it")


def test_every_message_is_translated_and_keeps_its_placeholders():
    catalog = italian_catalog()
    assert not catalog.fuzzy
    assert len(catalog) > 300
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert "fuzzy" not in message.flags, message.id
        assert all(s.strip() for s in strings), f"untranslated: {message.id!r}"
        wanted = set(PLACEHOLDER.findall(ids[-1]))
        for string in strings:
            assert set(PLACEHOLDER.findall(string)) == wanted, f"placeholders differ: {message.id!r} → {string!r}"


def test_the_compiled_catalog_is_up_to_date():
    catalog = italian_catalog()
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    fresh = read_mo(compiled)
    with MO.open("rb") as mo:
        stored = read_mo(mo)

    def entries(cat):
        def key(value):
            return tuple(value) if isinstance(value, (list, tuple)) else value

        return {(m.context, key(m.id)): key(m.string) for m in cat if m.id}

    assert entries(stored) == entries(fresh), (
        "translations/it/LC_MESSAGES/messages.mo is stale: run `make translations`"
    )


def test_the_catalog_holds_every_message_of_the_code():
    keywords = {**DEFAULT_KEYWORDS, "_l": None}
    method_map = [("companion/**.py", "python"), ("templates/**.html", "jinja2")]
    in_code = set()
    for _file, _line, message, _comments, context in extract_from_dir(str(ROOT), method_map, keywords=keywords):
        in_code.add((context, message[0] if isinstance(message, tuple) else message))
    assert len(in_code) > 300, "the extraction found too few messages: is babel.cfg's mapping still right?"
    in_catalog = {(m.context, m.id[0] if isinstance(m.id, tuple) else m.id) for m in italian_catalog() if m.id}
    missing = sorted(text for _, text in in_code - in_catalog)
    assert not missing, f"not in the Italian catalog (run `make translations` and translate): {missing}"



def test_dates_are_written_in_the_visitors_language(client, app):
    """The history and a player's recent form give the day with the month as the page's language writes it."""
    from tests.helpers import player_id, store_samples

    store_samples(app)  # a Burraco match of Ann and Bob, started on 10 May 2024
    for headers, day in (({}, "10 May 2024"), ({"Accept-Language": "it"}, "10 mag 2024")):
        for path in ("/history", f"/players/{ref(player_id(app, 'Ann'), 'player')}"):
            assert day in get(client, path, headers), (path, day)
