"""The quick paths of the templates draw what the slow ones drew: names as words, texts, macros and globals."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po
from flask import render_template_string

from companion.web.display import words
from tests.helpers import read_words, start_match
from tests.pages import read

SAME_ON_EVERY_DATABASE = "the templates' quick paths against their slow ones"


def test_a_name_is_drawn_as_its_words_each_escaped():
    drawn = words("  Anna <b>Maria</b> & Co ")
    assert str(drawn) == (
        '<span class="word">Anna</span> <span class="word">&lt;b&gt;Maria&lt;/b&gt;</span> '
        '<span class="word">&amp;</span> <span class="word">Co</span>'
    )
    assert drawn.__html__() == str(drawn)


def test_a_text_without_variables_keeps_one_percent_sign(client):
    """Templates format every message, so the catalog writes a literal percent sign as %%."""
    start_match(client, "pazaak", ["Ann", "Bob"])
    page = client.get("/players", headers={"Accept-Language": "it"}).get_data(as_text=True)
    assert "% vittorie" in page and "%% vittorie" not in page
    with client.application.test_request_context(headers={"Accept-Language": "en"}):
        assert render_template_string('{{ _("Cards held") }}|{{ _("50%% off") }}') == "Cards held|50% off"
        assert render_template_string('{{ _("<b>") }}') == "<b>"  # a catalog text is markup, as before


def test_a_texts_variables_are_escaped_once(client):
    with client.application.test_request_context(headers={"Accept-Language": "en"}):
        drawn = render_template_string(
            "{{ _('Penalty card for %(name)s', name=who) }}|{{ _('Penalty card for %(name)s', name=who | words) }}|"
            "{{ ngettext('%(num)s card', '%(num)s cards', 2) }}|{{ _('%(a)s and %(b)s%%', a=1.5, b=none) }}",
            who="<Ann> & Bob",
        )
    assert drawn == (
        'Penalty card for &lt;Ann&gt; &amp; Bob|Penalty card for <span class="word">&lt;Ann&gt;</span> '
        '<span class="word">&amp;</span> <span class="word">Bob</span>|2 cards|1.5 and None%'
    )


def test_an_imported_macro_sees_the_apps_globals_and_a_templates_own_stay_its_own(app):
    env = app.jinja_env
    with app.test_request_context():
        drawn = render_template_string(
            '{% import "games/topic/_macros.html" as topic %}{{ topic.taken({"Ann": 2}, {}) }}'
        )
    assert "Ann +2" in read_words(drawn)
    own = env.from_string("{{ mine }} {{ _('Cards held') }}", globals={"mine": "own"})
    assert "mine" in own.globals.keys() and "_" in own.globals.keys() and "mine" not in env.globals
    with app.test_request_context():
        assert own.render() == "own Cards held"


def test_each_request_gets_the_language_of_its_own_header_and_cookie(client):
    """The choice is kept per Accept-Language header: phones asking in turns each get their own."""
    asks = [
        ("it-IT,it;q=0.9", None, "it"),
        ("en-GB,en;q=0.9", None, "en"),
        ("it-IT,it;q=0.9", None, "it"),
        ("it-IT,it;q=0.9", "en", "en"),
        ("de, fr;q=0.5", None, "en"),
        ("", "it", "it"),
        ("en;q=0, it", None, "it"),
    ]
    for header, cookie, language in asks:
        client.delete_cookie("lang")
        if cookie:
            client.set_cookie("lang", cookie)
        page = client.get("/", headers={"Accept-Language": header}).get_data(as_text=True)
        assert read(page).one("html")["lang"] == language, (header, cookie)


def test_every_placeholder_of_the_catalog_takes_text():
    """Templates escape a text's variables before formatting it, which holds for %(name)s (and %%) alone."""
    po = Path(__file__).resolve().parents[2] / "translations" / "it" / "LC_MESSAGES" / "messages.po"
    with po.open("rb") as file:
        catalog = read_po(file)
    for message in catalog:
        for text in [*(message.id if isinstance(message.id, tuple) else [message.id]),
                     *(message.string if isinstance(message.string, tuple) else [message.string])]:  # fmt: skip
            other = re.sub(r"%\([A-Za-z_]+\)s|%%", "", text or "")
            assert "%" not in other, text
