"""The history's downloads hold what its filters find, after a page load as after a live filter change."""

from __future__ import annotations

import csv
import html as markup
import io
import json
import re

from tests.helpers import HTMX, player_id, ref
from tests.pages import read

DOWNLOADS = re.compile(r'href="(/history/export\.(?:json|csv)[^"]*)"')


def links(page: str) -> dict[str, list[str]]:
    """The downloads' addresses on a page or fragment, by format."""
    found: dict[str, list[str]] = {"json": [], "csv": []}
    for href in DOWNLOADS.findall(page):
        href = markup.unescape(href)
        found["json" if "export.json" in href else "csv"].append(href)
    return found


def json_ids(client, href: str) -> list[str]:
    """The match-file ids a JSON download holds."""
    return [document["id"] for document in json.loads(client.get(href).get_data(as_text=True))]


def csv_matches(client, href: str) -> set[str]:
    """The matches a CSV download holds, as their addresses name them."""
    rows = list(csv.DictReader(io.StringIO(client.get(href).get_data(as_text=True))))
    return {row["match"] for row in rows}


def test_the_filtered_history_downloads_only_what_it_shows(client, app, samples):  # noqa: F811
    page = client.get("/history?game=topic").get_data(as_text=True)
    assert "2 matches" in page
    found = links(page)
    # The first link of each format is what the filters show, the second everything.
    assert json_ids(client, found["json"][0]) == ["to", "on"]
    assert csv_matches(client, found["csv"][0]) <= {ref(samples["to"]), ref(samples["on"])}
    assert ref(samples["to"]) in csv_matches(client, found["csv"][0])
    assert "The downloads hold the 2 matches the filters find." in page
    assert sorted(json_ids(client, found["json"][1])) == sorted(samples)
    assert csv_matches(client, found["csv"][1]) == csv_matches(client, "/history/export.csv")


def test_a_live_filter_change_carries_the_new_filters_to_the_downloads(client, app, samples):  # noqa: F811
    client.get("/history")
    ann = player_id(app, "Ann")
    fragment = client.get(f"/history?game=burraco&player={ref(ann, 'player')}", headers=HTMX).get_data(as_text=True)
    found = links(fragment)
    assert found["json"] and found["csv"], "the swap leaves the old links in place"
    assert read(fragment).by_id("history-downloads")["hx-swap-oob"] == "true"
    assert json_ids(client, found["json"][0]) == ["bu"]
    assert csv_matches(client, found["csv"][0]) == {ref(samples["bu"])}
    # Back to no filter: the one pair of links holds everything again.
    cleared = links(client.get("/history", headers=HTMX).get_data(as_text=True))
    assert len(cleared["json"]) == 1 and sorted(json_ids(client, cleared["json"][0])) == sorted(samples)


def test_the_dates_of_a_filter_reach_the_download_in_either_language(client, app, samples):  # noqa: F811
    client.set_cookie("lang", "it")
    page = client.get("/history?from=11/05/2024").get_data(as_text=True)
    href = links(page)["json"][0]
    assert "from=2024-05-11" in href
    held = json_ids(client, href)
    assert held and "bu" not in held and "pz" not in held
