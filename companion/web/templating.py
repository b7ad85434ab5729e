"""The app's Jinja environment: Flask's own, with template globals that Jinja's imports can compare quickly."""

from __future__ import annotations

from collections import ChainMap
from collections.abc import MutableMapping
from typing import Any

from flask import Flask
from flask.templating import Environment as FlaskEnvironment
from jinja2.runtime import Context, missing


class TemplateGlobals(ChainMap):
    """A template's globals over the environment's (as Jinja makes them), whose keys are a plain set.

    At every `{% import %}` Jinja takes the importing context's global names minus the imported
    template's (Template._get_default_module). Against a ChainMap's keys view that is one Python
    lookup through both maps per name, for each of the globals of every template; the partials of
    a save's answer import their game's macros several times. As sets it is one C operation.
    """

    def keys(self) -> set[str]:  # type: ignore[override]
        """Every name, as a set (computed now: the environment's globals may have grown)."""
        return set(self)


class PageContext(Context):
    """A template's context that takes a name it was not given from the page's presenter (`page`,
    companion/pages), so a part of the page is worked out only for a template that names it (Jinja looks up a
    template's names as it starts drawing it, so per template or include, not per branch)."""

    def resolve_or_missing(self, key: str) -> Any:
        """The name as given, else the presenter's part of that name (a private one never). A part is looked
        up before it is worked out, so an error in working it out is raised, not drawn as an undefined name."""
        value = super().resolve_or_missing(key)
        if value is missing and not key.startswith("_"):
            page = super().resolve_or_missing("page")
            if page is not missing and (key in vars(page) or hasattr(type(page), key)):
                return getattr(page, key)
        return value


class Environment(FlaskEnvironment):
    """Flask's template environment, making TemplateGlobals for each template and PageContext for each render."""

    context_class = PageContext

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        """The template-specific globals `d` over the environment's, as Jinja's own but with set keys."""
        return TemplateGlobals({} if d is None else d, self.globals)


class App(Flask):
    """The Flask app with the environment above."""

    jinja_environment = Environment
