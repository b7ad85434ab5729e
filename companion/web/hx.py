"""htmx's response headers, one function each (django-htmx's helpers, for Flask): no other module writes them."""

from __future__ import annotations

from flask import Flask, Response, redirect, request

# The request headers an answer varies on, for its Vary header: whether htmx asks, and which element it swaps.
REQUEST = "HX-Request"
TARGET = "HX-Target"
# htmx ends the polling of the element whose request is answered with this status.
STOP_POLLING = 286


def location(url: str) -> Response:
    """Send htmx to another page as a boosted link goes there: the body swapped, no full load."""
    return Response("", headers={"HX-Location": url})


def go(url: str) -> Response:
    """Send the browser to another page: as a boosted link goes there for htmx, by a redirect otherwise."""
    return location(url) if request.htmx else redirect(url)


def client_redirect(url: str) -> Response:
    """Send the browser to another page with a full load."""
    return Response("", headers={"HX-Redirect": url})


def stop_polling(response: Response) -> Response:
    """The answer as the last to a poll: htmx draws it, then the element asks no more."""
    response.status_code = STOP_POLLING
    return response


def trigger_client_event(response: Response, name: str) -> Response:
    """The page hears the event `name` once the answer is in (hx-trigger="name from:body")."""
    response.headers["HX-Trigger"] = name
    return response


def push_url(response: Response, url: str | None) -> Response:
    """The address the browser keeps for this swap; None keeps the one it has."""
    response.headers["HX-Push-Url"] = "false" if url is None else url
    return response


def reswap(response: Response, style: str) -> Response:
    """Swap the answer this way (an hx-swap value) rather than as the element asked."""
    response.headers["HX-Reswap"] = style
    return response


def retarget(response: Response, selector: str) -> Response:
    """Swap the answer into the element `selector` finds rather than the request's target."""
    response.headers["HX-Retarget"] = selector
    return response


def _refused_form_keeps_its_address(response: Response) -> Response:
    """A boosted page's form refused (4xx: its page drawn again, the reason beside the field) leaves the address as it
    was: the form's own answers a POST alone, so a reload sent the form again and a visit later was refused."""
    refused = 400 <= response.status_code < 500 and request.method == "POST" and request.headers.get("HX-Boosted")
    if refused and "HX-Push-Url" not in response.headers:
        push_url(response, None)
    return response


def init_app(app: Flask) -> None:
    """Every answer's HX headers that no view writes."""
    app.after_request(_refused_form_keeps_its_address)
