"""Browser test of a page's own bundles: a boosted link draws the page it brings once they have come."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, Route, expect

from tests.e2e.helpers import add_to_roster, start_match, wait_until_held
from tests.helpers import ref

pytestmark = pytest.mark.e2e

PLAYERS = ["Ann", "Bob", "Cy"]
# Whether the Topic_ entry was ever on the screen without its game's stylesheet (its head a flex row).
WATCH_UNSTYLED = """() => {
  window.drawnUnstyled = null;
  new MutationObserver(() => {
    const head = document.querySelector('.topic-entry-head');
    if (head && window.drawnUnstyled === null) window.drawnUnstyled = getComputedStyle(head).display !== 'flex';
  }).observe(document.body, { childList: true, subtree: true });
}"""

SAVES_DATA = "Object.defineProperty(navigator, 'connection', { value: { saveData: true } })"


# page.route does not see a request that passes through a service worker.
@pytest.mark.browser_context_args(service_workers="block")
def test_a_boosted_link_draws_the_match_page_once_its_games_styles_and_scripts_have_come(page: Page, live_server, app):
    add_to_roster(app, *PLAYERS)
    match_id = start_match(page, live_server.url, "Topic_", PLAYERS)
    # A phone saving data: its home page fetches nothing ahead (the next test), so the tap brings the bundles.
    page.add_init_script(SAVES_DATA)
    held: list[Route] = []
    page.route(re.compile(r"/bundle/game-topic[+/]"), lambda route: held.append(route))
    # The home page, loaded whole, has the shared bundles alone.
    page.goto(live_server.url + "/")
    expect(page.locator('link[href*="/bundle/game-topic"]')).to_have_count(0)
    page.evaluate(WATCH_UNSTYLED)

    match_url = f"{live_server.url}/matches/{ref(match_id)}"
    with page.expect_response(match_url), page.expect_request(re.compile(r"/bundle/game-topic[+/]")):
        page.get_by_role("link", name=re.compile(r"^Topic_ Ann, Bob, Cy")).click()
    # The match page is in, its game's stylesheet on its way: the home page stays meanwhile.
    page.wait_for_function(f"() => performance.getEntriesByName({match_url!r}).some(entry => entry.responseEnd > 0)")
    page.evaluate("() => new Promise(resolve => setTimeout(resolve))")  # what the page does with the answer
    expect(page.get_by_role("heading", name="In progress")).to_be_visible()
    assert page.url == live_server.url + "/"
    wait_until_held(page, held, "the game's bundle")
    held[0].continue_()
    expect(page.get_by_role("heading", name="Who lost round 1?")).to_be_visible()
    expect(page).to_have_url(match_url)
    assert page.evaluate("window.drawnUnstyled") is False
    # Its entry widgets came too, before it was drawn: the first tap saves.
    page.locator("#entry").get_by_role("button", name=re.compile(r"^Bob \d+ cards?$")).click()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()

    # Back on the home page and to the match again: nothing is fetched a second time.
    page.get_by_role("link", name="Table companion").click()
    expect(page.get_by_role("heading", name="In progress")).to_be_visible()
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url) if "/bundle/" in request.url else None)
    page.get_by_role("link", name=re.compile(r"^Topic_ Ann, Bob, Cy")).click()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()
    assert fetched == []
    assert page.locator('script[src*="/bundle/offline."]').count() == 1


@pytest.mark.browser_context_args(service_workers="block")
def test_the_home_page_fetches_its_links_bundles_ahead_so_a_tap_brings_the_match_page_alone(
    page: Page, live_server, app
):
    add_to_roster(app, *PLAYERS)
    match_id = start_match(page, live_server.url, "Topic_", PLAYERS)
    page.goto(live_server.url + "/")
    # Once the home page is idle, the bundles its match link names are fetched into the cache, not into the page.
    link = page.get_by_role("link", name=re.compile(r"^Topic_ Ann, Bob, Cy"))
    named = [live_server.url + url for url in link.get_attribute("data-bundles").split()]
    assert any("/bundle/game-topic" in url for url in named) and any(url.endswith(".js") for url in named)
    page.wait_for_function("n => document.querySelectorAll('link[rel=prefetch]').length >= n", arg=len(named))
    ahead = page.evaluate("() => [...document.querySelectorAll('link[rel=prefetch]')].map(tag => tag.href)")
    assert sorted(ahead) == sorted(named)
    page.wait_for_function(
        "urls => urls.every(url => performance.getEntriesByName(url).some(entry => entry.responseEnd > 0))", arg=named
    )
    expect(page.locator('link[rel=stylesheet][href*="/bundle/game-topic"]')).to_have_count(0)
    page.evaluate(WATCH_UNSTYLED)

    before = page.evaluate("() => performance.getEntriesByType('resource').length")
    link.click()
    expect(page.get_by_role("heading", name="Who lost round 1?")).to_be_visible()
    expect(page).to_have_url(f"{live_server.url}/matches/{ref(match_id)}")
    assert page.evaluate("window.drawnUnstyled") is False
    # The tap asked the network for none of them: each came from the cache.
    served = page.evaluate(
        """before => performance.getEntriesByType('resource').slice(before)
        .filter(entry => entry.name.includes('/bundle/')).map(entry => [entry.name, entry.transferSize])""",
        before,
    )
    assert sorted(url for url, _ in served) == sorted(named)
    assert all(size == 0 for _, size in served), served
    # Its entry's scripts run: the first tap saves.
    page.locator("#entry").get_by_role("button", name=re.compile(r"^Bob \d+ cards?$")).click()
    expect(page.get_by_role("heading", name="Who lost round 2?")).to_be_visible()


def test_a_script_brought_again_in_another_pages_bundle_runs_once_and_the_scripts_share_no_global(
    page: Page, live_server, app
):
    add_to_roster(app, *PLAYERS)
    # The new-match form's bundle runs Pazzaparola's script (every game's entry), the match page's bundle brings it
    # again with the offline sender; both reached by boosted links and a boosted form, on one document.
    start_match(page, live_server.url, "Pazzaparola", PLAYERS)
    expect(page.locator('script[src*="/bundle/"][src*="entry-pazzaparola"]')).to_have_count(2)
    assert page.evaluate("() => typeof window.Companion === 'undefined' && typeof window.htmx === 'undefined'")
    # Back on the form, its script's one click listener steps the victory points by one a tap, not two.
    page.locator("header").get_by_role("link", name="New").click()
    page.get_by_role("button", name="Pazzaparola", exact=True).click()
    victory = page.get_by_label("Victory points to win", exact=True)
    expect(victory).to_have_value("3")
    page.get_by_role("button", name="More victory points to win").click()
    expect(victory).to_have_value("4")


@pytest.mark.browser_context_args(service_workers="block")
def test_a_page_of_another_version_of_the_app_is_loaded_whole_not_drawn_into_this_one(page: Page, live_server, app):
    page.goto(live_server.url + "/")
    page.evaluate("() => { window.thisDocument = true; }")
    shared = page.locator('script[type="module"][src^="/bundle/"]').first.get_attribute("src")
    updated: list[str] = []

    # The server was updated while the home page stayed open: the history page it answers the boosted link with
    # names the shared script of the new version (its digest is all that differs).
    def newer_version(route: Route) -> None:
        if route.request.headers.get("hx-request") != "true" or updated:
            route.continue_()
            return
        answer = route.fetch()
        updated.append(route.request.url)
        route.fulfill(response=answer, body=answer.text().replace(shared, "/bundle/0123456789ab.js"))

    page.route(re.compile(r"/history$"), newer_version)
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    page.locator("header").get_by_role("link", name="History").click()
    expect(page.get_by_role("heading", name="History", exact=True)).to_be_visible()
    expect(page).to_have_url(live_server.url + "/history")
    assert updated, "the boosted link was not answered by the new version"
    # Loaded whole (this document's scripts gone with it), the new version's shared script never run beside these.
    assert page.evaluate("() => window.thisDocument") is None
    assert not [url for url in fetched if "0123456789ab" in url]
    page.go_back()
    expect(page).to_have_url(live_server.url + "/")
