"""Links the other phones at the table open: absolute on this machine's address, the match's for a phone outside
the group, and their QR codes."""

from __future__ import annotations

import segno
from flask import request, url_for
from markupsafe import Markup

from .groups import HALL_KEY, SEAT_KEY, follow_token, hall_token, private, seat_token
from .network import lan_address


def public_url(endpoint: str, **values) -> str:
    """An absolute URL that other phones at the table can open (not 'localhost')."""
    url = url_for(endpoint, _external=True, **values)
    host = request.host.split(":")[0]
    if host in ("localhost", "127.0.0.1", "::1"):
        url = url.replace(f"//{host}", f"//{lan_address()}", 1)
    return url


def qr_svg(text: str) -> Markup:
    """A QR code of `text` as inline SVG, black on white in every theme, as phone cameras read it best.

    With a viewBox and no fixed size, the drawing fills the box the page sizes it to, centred.
    """
    svg = segno.make(text, error="m").svg_inline(scale=5, border=2, dark="#000", light="#fff", omitsize=True)
    return Markup(svg)


def match_link(endpoint: str, match) -> str:
    """A link to one of the match's pages that a phone outside the group may open: on a private server it
    carries what lets that phone follow this one match (never making it a member of the group)."""
    follow = {"follow": follow_token(match.uid)} if private() else {}
    return public_url(endpoint, match_id=match.id, **follow)


def seat_link(match) -> str:
    """The address the seat QR code carries: the seat picker. On a private server it carries the seat link's
    own key (never the viewer link's), which lets a phone outside the group follow this one match and take a
    seat at it, until the link is renewed; on an open server every phone may sit down, and it carries nothing."""
    key = {SEAT_KEY: seat_token(match.uid, match.seat_link)} if private() else {}
    return public_url("seats.seat", match_id=match.id, **key)


def hall_link(evening) -> str:
    """The address of the evening's hall screen that the host shares (the TV's, a laptop's by the door): it carries
    the hall link's key on every server, since on an open one too only a host opens the screen without it."""
    return public_url(
        "hall.show", evening_id=evening.id, **{HALL_KEY: hall_token(evening.public_id, evening.hall_link)}
    )
