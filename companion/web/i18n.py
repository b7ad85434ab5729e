"""The page's language in templates: their gettext calls, each request's translations, dates."""

from __future__ import annotations

import re
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

from flask import Flask, has_request_context, request
from flask_babel import force_locale, format_date, get_locale, get_translations
from jinja2 import pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup, escape
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header, parse_cookie

from ..games import REGISTRY
from ..games.refusals import N_, Message, Np_, as_sentence
from ..queries.history import DayForm

LANGUAGES = ("en", "it")
DEFAULT_LANGUAGE = "en"


def chosen_language(cookie: str | None, accept_language: str | None) -> str:
    """The page's language: the one chosen with the switch (the `lang` cookie), else the browser's
    preference (its Accept-Language header, as sent)."""
    if cookie in LANGUAGES:
        return cookie
    return _preferred_language(accept_language or "")


# Kept per header: a table's phones send a few distinct ones, and parsing one is a good part of
# what choosing the language of a request costs.
@lru_cache(maxsize=256)
def _preferred_language(accept_language: str) -> str:
    """The best of LANGUAGES for an Accept-Language header."""
    return parse_accept_header(accept_language, LanguageAccept).best_match(LANGUAGES) or DEFAULT_LANGUAGE


def language_of_environ(environ: dict[str, Any], cookie: str = "lang") -> str:
    """The same choice from a bare WSGI environ, for code that runs before Flask (the live-poll middleware);
    `cookie`: the language cookie's name on this server (web/cookies.py)."""
    return chosen_language(parse_cookie(environ).get(cookie), environ.get("HTTP_ACCEPT_LANGUAGE"))


# The request being served and its translations, per thread (a ContextVar, like Flask's own
# request context); a new request object means the visitor may have changed.
_TRANSLATIONS: ContextVar[tuple[Any, Any] | None] = ContextVar("translations", default=None)


def _request_translations() -> Any:
    """The visitor's translations, looked up once per request.

    Flask-Babel finds them anew on every call (about 18 µs), and even reading them back from
    `g` goes through two context proxies; a save's fragment asks for dozens of strings.
    """
    if not has_request_context():
        return get_translations()
    current = request._get_current_object()  # type: ignore[attr-defined]
    cached = _TRANSLATIONS.get()
    if cached is not None and cached[0] is current:
        return cached[1]
    translations = get_translations()
    _TRANSLATIONS.set((current, translations))
    return translations


# A name's word (display.words) followed by the sentence's punctuation: "Bruno</span>."; and one opened by a
# bracket or a quotation mark: "(<span class="word">Bruno".
_WORD_THEN_PUNCTUATION = re.compile(r'(<span class="word">[^<]*)</span>([.,:;!?…)»]+)')
_OPENING_THEN_WORD = re.compile(r'([(«]+)(<span class="word">)')


def glued(html: str) -> str:
    """The punctuation after a name's last word moved into that word's box, and an opening bracket before its first.

    Each word of a name is a box of its own, so that a line never breaks inside it; a line may
    break before and after a box, though, and would leave the full stop alone at the start of the
    next line, or the bracket alone at the end of the line before.
    """
    if '<span class="word">' not in html:
        return html
    # On a plain str: re.sub joins the pieces of a Markup with Markup.join, which would escape them.
    html = _OPENING_THEN_WORD.sub(r"\2\1", str(html))
    return Markup(_WORD_THEN_PUNCTUATION.sub(r"\1\2</span>", html))


def _formatted(eval_context: EvalContext, translated: str, variables: dict[str, Any]) -> str:
    """A translated string as Jinja's new style gives it: marked safe when autoescaping, so that
    only the variables are escaped, and always %-formatted (a name's words keep their punctuation)."""
    if eval_context.autoescape:
        if not variables and "%" not in translated:
            return Markup(translated)  # nothing to format (most of a page's texts): no formatting pass
        # Each variable escaped once, as Markup's own % does it (through a helper object per variable,
        # much slower, for the dozens of texts of every save's answer): the catalog's placeholders
        # are all %(name)s, which take the escaped text (a test holds the catalog to that).
        return glued(Markup(translated % {name: escape(value) for name, value in variables.items()}))
    return translated % variables


@pass_eval_context
def _template_gettext(eval_context: EvalContext, string: str, **variables: Any) -> str:
    """`_()` in a template."""
    return _formatted(eval_context, _request_translations().ugettext(string), variables)


@pass_eval_context
def _template_ngettext(eval_context: EvalContext, singular: str, plural: str, num: int, **variables: Any) -> str:
    """`ngettext()` in a template, with `num` among the variables."""
    variables.setdefault("num", num)
    return _formatted(eval_context, _request_translations().ungettext(singular, plural, num), variables)


def day(moment: date) -> str:
    """A day as the visitor's language writes it short: "3 Jun 2026", "3 giu 2026"."""
    return format_date(moment, "d MMM y")


def init_app(app: Flask) -> None:
    """Templates translate with the request's translations, looked up once."""
    app.jinja_env.install_gettext_callables(
        lambda text: _request_translations().ugettext(text),
        lambda singular, plural, n: _request_translations().ungettext(singular, plural, n),
        newstyle=True,
    )
    # The same "new style" calls without their three layers of context lookups: a save's
    # fragment makes a few dozen of them.
    app.jinja_env.globals.update(_=_template_gettext, gettext=_template_gettext, ngettext=_template_ngettext)


# The words the page scripts show (static/js/app.js, offline.js), in the page's language:
# a plain text, or the singular and plural of a count (`%(num)s` stands for the count,
# `%(what)s` for a round's summary, `%(waiting)s` for the count of rounds waiting).
SCRIPT_TEXTS: dict[str, Message] = {
    "kept": Np_("Offline — %(num)s round kept on this phone", "Offline — %(num)s rounds kept on this phone"),
    "sending": Np_("%(num)s round waiting — sending…", "%(num)s rounds waiting — sending…"),
    "sent": Np_("%(num)s round sent", "%(num)s rounds sent"),
    "needs_look": Np_("%(num)s round needs a look", "%(num)s rounds need a look"),
    "as_of": N_("As of round %(num)s · %(waiting)s"),
    "waiting": Np_("%(num)s round waiting", "%(num)s rounds waiting"),
    "offline_waiting": Np_(
        "%(num)s round saved here waits on this phone, not sent yet.",
        "%(num)s rounds saved here wait on this phone, not sent yet.",
    ),
    "not_sent": N_("kept on this phone — not sent yet"),
    "look": N_("Needs a look:"),
    "refused": N_("The server did not store this round."),
    "enter_again": N_("Enter again"),
    "discard": N_("Discard"),
    "undo": N_("Undo"),
    "reenter": N_("Round %(num)s was not stored: enter it again (%(what)s)."),
    "server_failed": N_("Not saved: the server had a problem. What you entered is still here — tap Save again."),
    "needs_server": N_(
        "This needs the server, which cannot be reached right now. Rounds you save are kept on this phone."
    ),
    "leave_waiting": Np_(
        "%(num)s round kept on this phone is not sent yet. Leave this page anyway?",
        "%(num)s rounds kept on this phone are not sent yet. Leave this page anyway?",
    ),
    "not_kept": N_(
        "Not saved: the server cannot be reached and this phone cannot keep the round. What you entered is still here."
    ),
}


# The words of the script every page runs (app.js), drawn into every page; the others are the offline
# sender's, which travel in its bundle, in the page's language (companion/web/assets.py).
SHARED_SCRIPT_TEXTS = ("server_failed", "needs_server")


def script_texts(keys: Iterable[str] = SHARED_SCRIPT_TEXTS, language: str | None = None) -> dict[str, Any]:
    """Those SCRIPT_TEXTS in this request's language, or `language`; a count's two forms as {"one", "other"}."""
    if language is None:
        return _script_texts(keys, _request_translations())
    with force_locale(language):
        return _script_texts(keys, get_translations())


# The words the offline page's list of kept rounds alone says (static/js/kept.js): they travel with it.
KEPT_PAGE_TEXTS = ("offline_waiting",)


def kept_texts(language: str, _games: Iterable[str] = ()) -> dict[str, Any]:
    """The words of the offline page's list of kept rounds, in a language."""
    return script_texts(KEPT_PAGE_TEXTS, language)


def offline_texts(language: str, games: Iterable[str] = ()) -> dict[str, Any]:
    """The offline sender's words in a language: every one of SCRIPT_TEXTS but those every page has and the offline
    page's own, and, as `<slug>.<key>`, each of these games' words for a kept round: those its offline describer
    says it in (`Entry.round_texts`) and the sender's that name a round as the game counts (`Entry.kept_texts`)."""
    texts = script_texts([key for key in SCRIPT_TEXTS if key not in (*SHARED_SCRIPT_TEXTS, *KEPT_PAGE_TEXTS)], language)
    with force_locale(language):
        translations = get_translations()
        for slug in games:
            entry = REGISTRY[slug].entry
            for key, text in {**entry.round_texts, **entry.kept_texts}.items():
                texts[f"{slug}.{key}"] = _translated_text(text, translations)
    return texts


def _script_texts(keys: Iterable[str], translations: Any) -> dict[str, Any]:
    """SCRIPT_TEXTS of these keys translated with `translations`."""
    return {key: _translated_text(SCRIPT_TEXTS[key], translations) for key in keys}


def _translated_text(text: Message, translations: Any) -> Any:
    """A script's text translated with `translations`: a count's two forms as {"one", "other"}."""
    if text.plural is not None:
        forms = (text.text, text.plural)
        return {"one": translations.ungettext(*forms, 1), "other": translations.ungettext(*forms, 2)}
    return translations.ugettext(text.text)


def translated(message: Any, *, standing_alone: bool = False) -> str:
    """A rule's Message in the page's language (its parameters too); anything else as it is.

    `standing_alone`: the message is shown by itself beside its field, so its own words start with a
    capital and end with a full stop (a name filled in first is kept as it was typed).
    """
    if not isinstance(message, Message):
        return str(message)
    translations = _request_translations()
    if message.plural is not None:
        text = translations.ungettext(message.text, message.plural, message.params.get("num", 1))
    else:
        text = translations.ugettext(message.text)
    if standing_alone:
        text = as_sentence(text)
    if not message.params:
        return text
    return text % {key: translated(value) for key, value in message.params.items()}


def sentence(message: Any) -> str:
    """A message standing alone beside its field, in the page's language (see translated)."""
    return translated(message, standing_alone=True)


def error_text(error: Any, names: Iterable[str] = ()) -> str:
    """What a refusal (RuleError, NotAllowed, ChangedMeanwhile) says, for the page: in its language, capitalised.

    The page shows it next to the field it names; when that field is one of `names` (a player
    or a pair), the message names them too ("Paul: 9 cards in the rows…").
    """
    text = translated(getattr(error, "message", None) or str(error))
    if getattr(error, "field", None) in set(names):
        text = f"{error.field}: {text}"
    return text[:1].upper() + text[1:]


def located_text(error: Any, beside: str) -> str:
    """A RuleError's whole line in the page's language, round and field first, for a message shown next
    to the form field `beside` rather than next to a field of its own (an import's); starting with a capital."""
    text = translated(error.located(beside))
    return text[:1].upper() + text[1:]


# What a date field's placeholder writes for the day, the month and the year: "gg/mm/aaaa".
DAY_LETTERS = {"d": N_("dd"), "m": N_("mm"), "y": N_("yyyy")}


@dataclass(frozen=True)
class DateField:
    """A date field as the page's language writes it, and the calendar beside it."""

    form: DayForm
    # The calendar's language as a BCP 47 tag ("it") and its first day of the week (0 is Sunday).
    calendar_locale: str
    first_day_of_week: int


def date_field() -> DateField:
    """The date field of the page's language: the order and separator of its short date ("dd/MM/yy" in Italian)."""
    locale = get_locale()
    pattern = locale.date_formats["short"].pattern
    order = "".join(sorted("dmy", key=pattern.lower().index))
    separator = re.search(r"[^A-Za-z']+", pattern).group().strip() or "-"  # type: ignore[union-attr]
    translations = _request_translations()
    placeholder = separator.join(translations.ugettext(DAY_LETTERS[letter].text) for letter in order)
    return DateField(
        form=DayForm(order=order, separator=separator, placeholder=placeholder),
        calendar_locale=str(locale).replace("_", "-"),
        first_day_of_week=(locale.first_week_day + 1) % 7,
    )
