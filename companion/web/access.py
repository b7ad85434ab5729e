"""Who may call a view, said on the view: one decorator per role, read by the one decision in web/groups.py.

Each view carries the roles that may call it (`@member`, `@host`, `@viewer_link`, stacked for "any of them"), as
flaskr's `@login_required` does. A role says how far a phone outside a private server's groups reaches with it
(`reach`), on which kind of server the view exists (`servers`), and what the phone must hold once its group is
entered (`holds`, else its view checks it: the pencil's and a seat's refusals are drawn with the match's page).
A new role is one more `Role` below; a new kind of link adds its reach to web/groups.py's `_private_place`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask

from ..games.refusals import N_, Message
from ..models import Member

# How far a role reaches on a private server: what holds nothing of any group, answered without asking who the
# phone is; what a phone in no group reaches; one match a link opens, in whatever group; one match whose pencil
# the phone keeps, in whatever group (a club table's card hands it to a phone outside the group); its own group's.
SHARED, EVERYONE, FOLLOWING, HOLDING, MEMBER = "shared", "everyone", "following", "holding", "member"
OPEN, PRIVATE = "open", "private"
BOTH = frozenset({OPEN, PRIVATE})
ACCESS = "access"
# The seat link's key, in its address and in the seat picker's form.
SEAT_KEY = "seat_key"
# A table card's key, in its address: the group's cards name the tables of its evening being played.
CARDS_KEY = "cards_key"
# The hall link's key, in its address: the evening's hall screen on a TV by the door, for any phone holding it.
HALL_KEY = "hall_key"

HOST_REFUSAL = {
    PRIVATE: N_("This needs host rights. Ask a host of the group to make this phone a host too."),
    OPEN: N_(
        "This needs host rights. Ask the host (whoever started the app on the laptop) to let "
        "this phone scan the host link shown where the app runs; it gives this phone the rights."
    ),
}


def _is_host(member: Member | None) -> bool:
    """Whether the request's membership carries host rights."""
    return member is not None and member.host


@dataclass(frozen=True)
class Role:
    """One kind of caller, and the decorator that lets it call a view."""

    name: str
    reach: str | None
    servers: frozenset[str] = BOTH
    # The request value whose link opens the match (besides the viewer link's `follow`, always read).
    key: str | None = None
    holds: Callable[[Member | None], bool] | None = None
    refusal: dict[str, Message] | None = None

    def __call__(self, view: Callable) -> Callable:
        """Add this role to the view's declaration."""
        setattr(view, ACCESS, (*getattr(view, ACCESS, ()), self))
        return view


open_to_all = Role("open to all", EVERYONE)
no_group_needed = Role("no group needed", SHARED)
viewer_link = Role("viewer link", FOLLOWING)
seat_link = Role("seat link", FOLLOWING, key=SEAT_KEY)
# A seat's own writes: a phone seated by the seat link plays its part; its view refuses any other.
seated = Role("seated", FOLLOWING)
# A club evening's table card: its table's page, and for a phone that scanned one, that evening's standings.
table_card = Role("table card", FOLLOWING, key=CARDS_KEY)
# A club evening's hall link: that evening's hall screen and its polled part, read-only (its view checks the key,
# which a host needs not hold).
hall_link = Role("hall link", FOLLOWING, key=HALL_KEY)
member = Role("member", MEMBER)
# The match's pencil: its view checks it, and refuses with the match's page.
pencil = Role("pencil", HOLDING)
host = Role("host", MEMBER, holds=_is_host, refusal=HOST_REFUSAL)
# The open server's host link: a private server has no such thing (its administrator has the command line).
open_server_only = Role("open server only", EVERYONE, servers=frozenset({OPEN}))
# An open server has one group, which nobody starts, joins, switches to or invites to: with another role.
private_server_only = Role("private server only", None, servers=frozenset({PRIVATE}))


def declared(view: Callable | None) -> tuple[Role, ...]:
    """The roles a view function declares (none: nobody may call it)."""
    return getattr(view, ACCESS, ())


def undeclared(view_functions: dict[str, Callable]) -> list[str]:
    """The endpoints whose view declares no role that reaches it."""
    return sorted(name for name, view in view_functions.items() if not any(r.reach for r in declared(view)))


def check_declared(app: Flask) -> None:
    """Refuse to start with a view that declares no role: forgotten, it would be nobody's, and found late."""
    if missing := undeclared(app.view_functions):
        raise RuntimeError(f"These views declare no access (companion/web/access.py): {', '.join(missing)}")
