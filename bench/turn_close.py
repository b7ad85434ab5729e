"""What one phone costs the server at a hall's turn close, request by request, in process: its panel drawn with the
next table, its move there (the pencil given at N/S) and the new match page.

`python bench/turn_close.py --tables 100` makes the hall's evening of bench/hall.py through the services, seats its
400 phones by their table cards and plays turn 1 to its last confirmation with Flask's test client (not timed), then
times each phone's three requests one after another, on this one thread: no network, no load beside them, so the
figures are the server's own work, the sum of which a turn's close queues on the workers (`--profile DIR`: a cProfile
of each kind, for `python -m pstats`). `python -m bench.hall` measures the close as the phones wait for it.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from werkzeug.datastructures import MultiDict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hall import CSRF, MATCH, NEXT_SHOWN, confirm_fields, hand_fields, made_evening  # noqa: E402

HX = {"HX-Request": "true", "Accept-Language": "en"}
KINDS = ("panel", "next", "page")


def seated_evening(tables: int) -> tuple[object, list[dict]]:
    """The app, and its evening at the close of turn 1: each phone (its client, CSRF token, match, player)."""
    os.environ["COMPANION_INSTANCE"] = tempfile.mkdtemp(prefix="companion-close-")
    from companion import create_app

    app = create_app()
    with app.app_context():
        made = made_evening(tables)
    seats, key = made["seats"], made["cards_key"]
    phones = []
    for number, position, name in seats:
        client = app.test_client()
        card = f"/evenings/card/{key}/{number}"
        found = CSRF.search(client.get(card, headers=HX).get_data(as_text=True))
        token = found.group(1) or found.group(2)
        sat = client.post(card, data={"csrf_token": token, "seat": str(position), "action": "sit"},
                          headers={**HX, "X-CSRFToken": token})  # fmt: skip
        pencil = any("pencil=" in cookie for cookie in sat.headers.getlist("Set-Cookie"))
        phones.append({"client": client, "token": token, "match": MATCH.search(str(sat.headers)).group(1),
                       "pencil": pencil, "name": name})  # fmt: skip
    for phone in phones:
        write = {**HX, "X-CSRFToken": phone["token"]}
        if phone["pencil"]:
            for number in (1, 2):
                fields = MultiDict([("csrf_token", phone["token"]), *hand_fields(number)])
                assert phone["client"].post(f"/matches/{phone['match']}/rounds", data=fields,
                                            headers={**write, "HX-Target": "entry"}).status_code == 200  # fmt: skip
    confirming = {}
    for phone in phones:
        panel = phone["client"].get(f"/evenings/table/{phone['match']}", headers=HX).get_data(as_text=True)
        if phone["name"].endswith("A") and 'value="confirm"' in panel:
            confirming.setdefault(phone["match"], (phone, panel))
    for phone, panel in confirming.values():
        answer = phone["client"].post(f"/evenings/table/{phone['match']}/confirm",
                                      data=MultiDict([("csrf_token", phone["token"]), *confirm_fields(panel)]),
                                      headers={**HX, "X-CSRFToken": phone["token"]})  # fmt: skip
        assert answer.status_code == 200
    return app, phones


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--profile", default="", help="a folder for a cProfile of each kind of request")
    args = parser.parse_args()
    _app, phones = seated_evening(args.tables)
    times: dict[str, list[float]] = {kind: [] for kind in KINDS}
    profiles = {kind: cProfile.Profile() for kind in KINDS}

    def timed(kind: str, ask, path: str, **given):
        """One request of a phone (`ask`: its client's get or post), timed (and profiled) alone."""
        if args.profile:
            profiles[kind].enable()
        began = time.perf_counter()
        answer = ask(path, **given)
        times[kind].append((time.perf_counter() - began) * 1000)
        if args.profile:
            profiles[kind].disable()
        return answer

    for phone in phones:
        client, match, write = phone["client"], phone["match"], {**HX, "X-CSRFToken": phone["token"]}
        panel = timed("panel", client.get, f"/evenings/table/{match}", headers=HX)
        assert NEXT_SHOWN.search(panel.get_data(as_text=True)), "the panel does not show the next table"
        moved = timed("next", client.post, f"/evenings/table/{match}/next", data={"csrf_token": phone["token"]},
                      headers=write)  # fmt: skip
        # The move's answer is the new match page itself (an older tree's is its address, the page asked after).
        if "HX-Location" in moved.headers:
            new = MATCH.search(moved.headers["HX-Location"]).group(1)
            assert timed("page", client.get, f"/matches/{new}", headers={"Accept-Language": "en"}).status_code == 200
        else:
            assert moved.status_code == 200 and MATCH.search(moved.headers["HX-Push-Url"])
            times["page"].append(0.0)
    for kind, values in times.items():
        values.sort()
        print(f"{kind:5}  median {statistics.median(values):5.2f} ms  p95 {values[int(0.95 * len(values))]:5.2f} ms"
              f"  all {len(values)} phones {sum(values):6.0f} ms")  # fmt: skip
        if args.profile:
            Path(args.profile).mkdir(parents=True, exist_ok=True)
            profiles[kind].dump_stats(Path(args.profile) / f"{kind}.prof")
    total = sum(statistics.median(values) for values in times.values())
    print(f"a phone: {total:.1f} ms; {len(phones)} phones: {total * len(phones) / 1000:.1f} s of one core")
    return 0


if __name__ == "__main__":
    sys.exit(main())
