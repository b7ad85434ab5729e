"""Where the pages find a game's templates: the app's templates/games/<slug>/, or the folder the game names."""

from __future__ import annotations

from collections.abc import Callable

from jinja2 import BaseLoader, ChoiceLoader, Environment, FileSystemLoader, TemplateNotFound

from ..games import REGISTRY


class GameTemplateLoader(BaseLoader):
    """Loads `games/<slug>/<name>` from the template folder of the registered game `<slug>`.

    It asks the registry on every lookup, so a game registered after the app was built
    (the tests' fifth game) is found as well as one registered before.
    """

    def get_source(self, environment: Environment, template: str) -> tuple[str, str | None, Callable[[], bool] | None]:
        """The template's source from its game's own folder; TemplateNotFound for any other name."""
        top, _, rest = template.partition("/")
        slug, _, name = rest.partition("/")
        game = REGISTRY.get(slug) if top == "games" and name else None
        folder = game.entry.template_folder if game is not None else None
        if folder is None:
            raise TemplateNotFound(template)
        return FileSystemLoader(folder).get_source(environment, name)


def loader(app_templates: BaseLoader | None) -> BaseLoader:
    """The app's own templates first, then those of the games that keep theirs elsewhere."""
    return ChoiceLoader([*([app_templates] if app_templates else []), GameTemplateLoader()])
