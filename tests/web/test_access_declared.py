"""Every view says who may call it (companion/web/access.py): a view that says nothing is refused, never open."""

from __future__ import annotations

import pytest

from companion.web import access
from tests.helpers import start_group

# What holds nothing of any group: answered without asking who the phone is, and kept by shared caches.
SHARED = {"static", "bundle", "home.ping", "deploy.health", "home.service_worker", "home.manifest", "home.favicon"}


def test_every_endpoint_of_the_url_map_declares_its_access(app):
    endpoints = {rule.endpoint for rule in app.url_map.iter_rules()}
    declared = {name: access.declared(app.view_functions[name]) for name in endpoints}
    undeclared = [name for name, roles in sorted(declared.items()) if not any(role.reach for role in roles)]
    assert undeclared == []
    assert access.undeclared(app.view_functions) == []


def test_only_the_files_and_checks_need_no_group(app):
    shared = {name for name, view in app.view_functions.items() if access.no_group_needed in access.declared(view)}
    assert shared == SHARED
    assert all(access.declared(app.view_functions[name]) == (access.no_group_needed,) for name in SHARED)


def forget_a_declaration(app):
    """A view added with no declaration, as a change might forget one."""
    app.add_url_rule("/forgotten", "forgotten", lambda: "open to whoever asks")


def test_a_view_that_declares_nothing_is_refused_at_start_up(app):
    forget_a_declaration(app)
    with pytest.raises(RuntimeError, match="forgotten"):
        access.check_declared(app)


@pytest.mark.parametrize("server", ["app", "private_app"])
def test_a_view_that_declares_nothing_answers_nobody(server, request):
    app = request.getfixturevalue(server)
    forget_a_declaration(app)
    client = app.test_client()
    if server == "private_app":
        start_group(client, "Gialli kitchen")
    assert client.get("/forgotten").status_code == 404


def test_a_view_with_only_a_restriction_reaches_nobody(app):
    view = access.private_server_only(lambda: "")
    assert access.undeclared({"restricted": view}) == ["restricted"]
