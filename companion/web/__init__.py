"""Request plumbing shared by every view, one module per job, attached to the app by init_app."""

from __future__ import annotations

from flask import Flask
from flask_babel import get_locale

from . import (
    assets,
    cards,
    charts,
    cookies,
    display,
    fragments,
    groups,
    headers,
    hx,
    i18n,
    live,
    pencil,
    queries,
    ratings,
    row_ids,
)
from .assets import (
    asset,
    bundle_url,
    bundle_urls,
    icon_address,
    icon_logo,
    linked_bundles,
    match_bundles,
    needs_bundles,
    page_assets,
)
from .fragments import render, wants_fragment

__all__ = ["asset", "bundle_url", "init_app", "render", "wants_fragment"]


def init_app(app: Flask) -> None:
    """Attach the plumbing to the app; Flask-Compress must be bound already (see assets)."""
    # In this order: Flask runs the after-request hooks in the reverse order of their registration, and row_ids
    # comes after the group is decided (groups): an old address is sent on only within it.
    for part in (fragments, hx, headers, assets, i18n, queries, live, groups, cookies, pencil, ratings, row_ids):
        part.init_app(app)
    # Every name the templates use beyond Flask's and Jinja's own, for the whole app: a page
    # renders whichever blueprint drew it.
    app.jinja_env.globals.update(
        asset=asset,
        cookie=cookies.get,
        icon_address=icon_address,
        icon_logo=icon_logo,
        bundle_url=bundle_url,
        bundle_urls=bundle_urls,
        linked_bundles=linked_bundles,
        match_bundles=match_bundles,
        needs_bundles=needs_bundles,
        page_assets=page_assets,
        get_locale=get_locale,
        game_players=display.game_players,
        match_duration=display.match_duration,
        readback=display.readback,
        describe_context=display.describe_context,
        time_since=display.time_since,
        live_etag=live.live_etag,
        match_chart=display.match_chart,
        results_chart=charts.results_chart,
        ratings_chart=charts.ratings_chart,
        series_colour=charts.series_colour,
        script_texts=i18n.script_texts,
        card_filename=cards.card_filename,
        podium_filename=cards.podium_filename,
        card_themes=cards.THEMES,
        private_groups=groups.private,
        current_group=groups.current_group,
        is_member=groups.is_member,
        reads_evening=groups.reads_evening,
        is_host=groups.is_host,
    )
    app.jinja_env.filters["day"] = i18n.day
    app.jinja_env.filters["words"] = display.words
    app.jinja_env.filters["shown"] = display.shown_name
    app.jinja_env.filters["side_word"] = display.side_word
    app.jinja_env.filters["call_words"] = display.call_words
    app.jinja_env.filters["figures"] = display.figures
    app.jinja_env.filters["syllables"] = display.syllables
    app.jinja_env.filters["names"] = display.names
    # A refusal the page works out itself (a game's set calculator) translated as the views do theirs.
    app.jinja_env.filters["error_text"] = i18n.error_text
    app.jinja_env.filters["translated"] = i18n.translated
    app.jinja_env.filters["sentence"] = i18n.sentence
    app.jinja_env.trim_blocks = True
    app.jinja_env.lstrip_blocks = True
