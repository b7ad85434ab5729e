"""Helpers for the browser tests: roster set-up and taps that read like the table."""

from __future__ import annotations

from flask import Flask
from playwright.sync_api import Page, expect

from companion.extensions import db
from companion.matches import roster_players


def add_to_roster(app: Flask, *names: str) -> None:
    """Put players in the roster, as earlier evenings would have."""
    with app.app_context():
        roster_players(list(names))
        db.session.commit()


def start_match(page: Page, base: str, game_name: str, players: list[str]) -> None:
    """From the home page, by taps alone: pick the game, seat the roster players, start."""
    page.goto(base + "/")
    page.get_by_role("button", name="New match").click()
    page.get_by_role("button", name=game_name, exact=True).click()
    expect(page.get_by_role("button", name=game_name, exact=True)).to_have_attribute("aria-pressed", "true")
    for name in players:
        page.get_by_role("button", name=f"+ {name}", exact=True).click()
        expect(page.locator(f'input[name="seat"][value="{name}"]')).to_have_count(1)
    page.get_by_role("button", name=f"Start {game_name}").click()
    expect(page).to_have_url(__import__("re").compile(r"/matches/\d+$"))
