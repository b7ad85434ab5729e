"""The page's language in templates: their gettext calls, each request's translations, dates."""

from __future__ import annotations

from contextvars import ContextVar
from datetime import date
from typing import Any

from flask import Flask, has_request_context, request
from flask_babel import format_date, get_translations
from jinja2 import pass_eval_context
from jinja2.nodes import EvalContext
from markupsafe import Markup

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


def _formatted(eval_context: EvalContext, translated: str, variables: dict[str, Any]) -> str:
    """A translated string as Jinja's new style gives it: marked safe when autoescaping, so that
    only the variables are escaped, and always %-formatted."""
    if eval_context.autoescape:
        translated = Markup(translated)
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
