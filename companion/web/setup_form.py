"""The new-match form: the seat list built by taps, read from and written to form fields."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from werkzeug.datastructures import MultiDict

from ..games import REGISTRY, default_game
from ..games.checks import checked_name, name_key
from ..games.forms import index_in
from ..games.refusals import N_, Message, Np_, RuleError

# The new-match form's choice to have each round saved once every seated phone sent its row.
SAVE_WHEN_ROWS_IN = "save_when_rows_in"


UNKNOWN_GAME = N_("There is no such game here: pick one of these.")


@dataclass
class Draft:
    """A match being set up: the game, the seats in order, and the game's settings fields."""

    game: str = field(default_factory=lambda: default_game().slug)
    seats: list[str] = field(default_factory=list)
    new_name: str = ""
    form: MultiDict = field(default_factory=MultiDict)
    # Untranslated (see Message) or, from the rules as the view showed them, a text already translated.
    errors: dict[str, Message | str] = field(default_factory=dict)

    @classmethod
    def from_form(cls, form: MultiDict) -> Draft:
        """Read the draft the page sent back."""
        game = form.get("game", "")
        errors: dict[str, Message | str] = {}
        if game not in REGISTRY:
            if game:  # a link or a page that names a game this server does not have: said, not swapped silently
                errors["game"] = UNKNOWN_GAME
            game = default_game().slug
        seats = [s.strip() for s in form.getlist("seat") if s.strip()]
        return cls(game=game, seats=seats, new_name=form.get("new_name", "").strip(), form=form, errors=errors)

    def apply(self, action: str) -> None:
        """Carry out one tap on the form: add, move or remove a seat."""
        verb, _, arg = action.partition(":")
        if verb == "game":
            if arg in REGISTRY:
                self.game = arg
            else:
                self.errors["game"] = UNKNOWN_GAME
        elif verb == "add":
            self.add(arg)
        elif verb == "new":
            if self.add(self.new_name, field_name="new_name"):
                self.new_name = ""
        elif verb in ("up", "remove") and (index := index_in(arg, len(self.seats))) is not None:
            if verb == "remove":
                del self.seats[index]
            elif index > 0:
                self.seats[index - 1], self.seats[index] = self.seats[index], self.seats[index - 1]

    def add(self, name: str, field_name: str = "seat") -> bool:
        """Seat one more player, refusing blanks, over-long names and repeats."""
        if not name.strip():
            self.errors[field_name] = N_("Type a name first.")
            return False
        try:
            name = checked_name(name)
        except RuleError as error:
            self.errors[field_name] = error.message
            return False
        if name_key(name) in {name_key(s) for s in self.seats}:
            self.errors[field_name] = N_("%(name)s already has a seat.", name=name)
        elif len(self.seats) >= REGISTRY[self.game].max_players:
            game = REGISTRY[self.game]
            self.errors[field_name] = Np_(
                "%(game)s seats at most %(num)s player: every seat is taken.",
                "%(game)s seats at most %(num)s players: every seat is taken.",
                num=game.max_players,
                game=game.name,
            )
        else:
            self.seats.append(name)
            return True
        return False

    @property
    def save_when_rows_in(self) -> bool:
        """Whether the table chose to have each round saved once every seated phone sent its row."""
        return REGISTRY[self.game].entry.round_from_rows_alone and self.form.get(SAVE_WHEN_ROWS_IN) == "1"

    def settings(self, translate: Callable[[str], str]) -> dict[str, Any]:
        """The raw settings the game's own form fields carry, for the rules to check. A side still named as the
        form offered it in this phone's language (`translate`: "Us" is "Noi") is kept by the untranslated name,
        which every phone shows in its own language."""
        entry = REGISTRY[self.game].entry
        raw = entry.settings_from_form(self.form, self.seats)
        offered = {translate(name.text): name.text for name in entry.default_side_names}
        return entry.settings_with_sides_renamed(raw, offered) if offered else raw

    def setup_view(self) -> dict[str, Any]:
        """What the game's own part of the form draws, after the tap the form carries."""
        return REGISTRY[self.game].entry.setup_view(self.form, self.seats)

    def sides(self) -> list[list[str]]:
        """The seated players grouped into the sides they will play as (a Burraco pair is one)."""
        return REGISTRY[self.game].entry.sides_from_form(self.form, self.seats)
