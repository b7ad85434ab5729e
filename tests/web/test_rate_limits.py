"""Limits per phone and per address: wrong codes never refuse the right one, a guessed code dies; exports, imports."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest

from companion import create_app
from companion.config import Settings
from companion.extensions import db, limiter
from companion.models import Match, Round
from companion.queries import matches as match_queries
from companion.queries.matches import running_totals
from companion.services import host
from companion.services import pencil as pencil_service
from companion.services.seed import seed
from companion.web.limits import GUESSES_PER_CODE
from tests.helpers import ADDRESS_KEY, HTMX, counted, csrf_token, grant_host_rights, ref, start_match

NETWORK = {"REMOTE_ADDR": "203.0.113.7"}  # a club's NAT: every phone of the club shows this one address


def offer(app, match_id: int) -> str:
    """A pencil code offered for the match, as the scorekeeper's Show the pencil code makes one."""
    with app.app_context():
        code = pencil_service.offer_pencil(db.session.get(Match, match_id))
        db.session.remove()
    return code


def phone(app, path: str, environ: dict | None = None):
    """A new phone (its own session) on an address, with the CSRF token the page at `path` gave it."""
    client = app.test_client()
    client.environ_base.update(environ or NETWORK)
    return client, csrf_token(client, path)


def take(client, token: str, match_id: int, code: str, **headers):
    return client.post(f"/matches/{ref(match_id)}/pencil", data={"csrf_token": token, "code": code}, headers=headers)


def download(client, path: str, **kwargs):
    """An export read whole and closed, as a browser's download ends."""
    response = client.get(path, **kwargs)
    response.get_data()
    response.close()
    return response


def field_error(response) -> str:
    found = re.search(r'class="field-error"[^>]*>([^<]*)<', response.get_data(as_text=True))
    return found.group(1) if found else ""


def test_wrong_codes_from_one_address_never_refuse_the_right_code(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    stale = [offer(app, match_id) for _ in range(35)]  # codes scanned off old screens
    code = offer(app, match_id)
    statuses = []
    for number in range(7):  # seven phones of the club, five stale codes each
        neighbour, token = phone(app, f"/matches/{ref(match_id)}")
        statuses += [take(neighbour, token, match_id, old).status_code for old in stale[number * 5 : number * 5 + 5]]
    assert statuses[:30] == [409] * 30 and set(statuses[30:]) == {429}  # the network's limit: 30 a minute
    scorer, token = phone(app, f"/matches/{ref(match_id)}")
    assert take(scorer, token, match_id, code).status_code == 302
    assert "Ann" in scorer.get(f"/matches/{ref(match_id)}").get_data(as_text=True)


def test_a_phone_over_its_limit_is_told_beside_the_field_in_its_language(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    stale = offer(app, match_id)
    code = offer(app, match_id)
    guesser, token = phone(app, f"/matches/{ref(match_id)}")
    assert [take(guesser, token, match_id, stale).status_code for _ in range(10)] == [409] * 10
    over = take(guesser, token, match_id, stale)
    assert over.status_code == 429 and int(over.headers["Retry-After"]) > 0
    assert field_error(over) == "Too many wrong codes from this phone: wait a minute, then scan the code again."
    italian = take(guesser, token, match_id, stale, **{"Accept-Language": "it"})
    assert italian.status_code == 429 and field_error(italian).startswith("Troppi codici sbagliati da questo telefono")
    # Another phone at the same address is not this phone: its wrong code is answered as such.
    other, other_token = phone(app, f"/matches/{ref(match_id)}")
    assert take(other, other_token, match_id, stale).status_code == 409
    assert take(guesser, token, match_id, code).status_code == 302


def guess_from_everywhere(app, match_id: int, count: int) -> list[int]:
    """`count` made-up codes, each from a phone of its own on an address of its own."""
    statuses = []
    for number in range(count):
        guesser, token = phone(app, f"/matches/{ref(match_id)}", {"REMOTE_ADDR": f"198.51.100.{number + 1}"})
        statuses.append(take(guesser, token, match_id, f"guess-{number}").status_code)
    return statuses


def test_a_pencil_code_dies_after_its_guesses_and_the_giver_is_offered_a_new_one(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    code = offer(app, match_id)
    assert guess_from_everywhere(app, match_id, GUESSES_PER_CODE - 1) == [409] * (GUESSES_PER_CODE - 1)
    scorer, token = phone(app, f"/matches/{ref(match_id)}")
    assert take(scorer, token, match_id, code).status_code == 302  # a guess short of the cap: the code still works

    code = offer(app, match_id)
    shown = scorer.get(f"/matches/{ref(match_id)}/live?view=pencil", headers=HTMX)
    assert shown.status_code == 204  # the giver's panel, polling while its code is on show
    assert guess_from_everywhere(app, match_id, GUESSES_PER_CODE) == [409] * GUESSES_PER_CODE
    late, late_token = phone(app, f"/matches/{ref(match_id)}")
    refused = take(late, late_token, match_id, code)
    assert refused.status_code == 409 and "no longer valid" in field_error(refused)
    with app.app_context():
        assert db.session.get(Match, match_id).handover_hash is None
    panel = scorer.get(
        f"/matches/{ref(match_id)}/live?view=pencil", headers={**HTMX, "If-None-Match": shown.headers["ETag"]}
    )
    html = panel.get_data(as_text=True)
    assert panel.status_code == 200 and "so it no longer works" in html and "Show the pencil code" in html
    fresh = offer(app, match_id)
    assert take(late, late_token, match_id, fresh).status_code == 302


def test_stale_codes_are_no_guesses_and_kill_no_code(app, client):
    match_id = start_match(client, "topic", ["Ann", "Bob"])
    stale = offer(app, match_id)
    code = offer(app, match_id)
    for number in range(GUESSES_PER_CODE + 2):
        scanner, token = phone(app, f"/matches/{ref(match_id)}", {"REMOTE_ADDR": f"198.51.100.{number + 1}"})
        assert take(scanner, token, match_id, stale).status_code == 409
    assert take(scanner, token, match_id, code).status_code == 302


def test_wrong_host_links_are_limited_and_the_right_one_still_works(app):
    token = host.new_link_token(app)
    guesser, csrf = phone(app, "/host")
    statuses = [guesser.post("/host", data={"csrf_token": csrf, "token": f"x{n}"}).status_code for n in range(11)]
    assert statuses == [403] * 10 + [429]
    over = guesser.post("/host", data={"csrf_token": csrf, "token": "y"})
    assert "Too many wrong codes from this phone" in field_error(over)
    assert guesser.post("/host", data={"csrf_token": csrf, "token": token}).status_code == 302
    neighbour, csrf = phone(app, "/host")
    assert neighbour.post("/host", data={"csrf_token": csrf, "token": token}).status_code == 302


def test_exports_are_limited_per_phone_then_per_address(app, client):
    exporter, _ = phone(app, "/history")
    assert [download(exporter, "/history/export.csv").status_code for _ in range(10)] == [200] * 10
    over = download(exporter, "/history/export.json")  # the two formats count together
    assert over.status_code == 429 and int(over.headers["Retry-After"]) > 0
    assert "Too many exports from this phone: wait a minute, then download again." in over.get_data(as_text=True)
    statuses = []
    for _ in range(2):
        other, _ = phone(app, "/history")
        statuses += [download(other, "/history/export.json").status_code for _ in range(10)]
    assert statuses == [200] * 20  # other phones of the network: 30 a minute in all
    last, _ = phone(app, "/history")
    refused = download(last, "/history/export.csv")
    assert refused.status_code == 429
    assert "Too many exports from this network" in refused.get_data(as_text=True)
    elsewhere, _ = phone(app, "/history", {"REMOTE_ADDR": "192.0.2.1"})
    assert download(elsewhere, "/history/export.csv").status_code == 200


def test_an_export_asked_while_another_streams_is_told_to_come_back(app, client):
    start_match(client, "topic", ["Ann", "Bob"])
    first = client.get("/history/export.json")  # streaming: not read yet
    assert first.is_streamed
    busy = app.test_client().get("/history/export.csv")
    assert busy.status_code == 503 and busy.headers["Retry-After"] == "5"
    assert "Other exports are being written right now" in busy.get_data(as_text=True)
    # Another process serving the same instance folder (a laptop's second worker) waits its turn too.
    config = {
        "TESTING": True,
        "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"],
        "SECRET_KEY": ADDRESS_KEY,
    }
    other_process = create_app(config, instance_path=app.instance_path)
    assert download(other_process.test_client(), "/history/export.csv").status_code == 503
    assert "Ann" in first.get_data(as_text=True)
    first.close()
    assert download(app.test_client(), "/history/export.json").status_code == 200
    assert download(other_process.test_client(), "/history/export.csv").status_code == 200
    with other_process.app_context():
        db.engine.dispose()
    # A busy answer costs the phone nothing of its limit.
    again = app.test_client()
    held = again.get("/history/export.csv")
    assert [download(again, "/history/export.csv").status_code for _ in range(3)] == [503] * 3
    held.close()
    assert [download(again, "/history/export.csv").status_code for _ in range(9)] == [200] * 9


def test_imports_are_limited_per_phone(app, client):
    grant_host_rights(client)
    document = json.dumps({"format": "companion-match/1", "game": "topic", "players": ["Ann", "Bob"],
                           "settings": {}, "rounds": []}).encode()  # fmt: skip

    def upload():
        token = csrf_token(client, "/history")
        return client.post("/history/import", data={"csrf_token": token, "file": (io.BytesIO(document), "m.json")},
                           content_type="multipart/form-data")  # fmt: skip

    assert [upload().status_code for _ in range(5)] == [302] * 5
    over = upload()
    assert over.status_code == 429
    assert "Too many imports from this phone: wait a minute, then import again." in over.get_data(as_text=True)


@pytest.fixture
def large_history(app, monkeypatch):
    """A history of many export batches: 300 matches read 50 at a time (3,000 at the export's 500 took a minute
    on PostgreSQL to show the same)."""
    monkeypatch.setattr(match_queries, "EXPORT_BATCH", 50)
    with app.app_context():
        seed(300, seed_value=5)
        db.session.remove()
    return 300


def test_a_large_export_streams_read_in_batches_complete_and_correct(app, client, large_history):
    with counted(app) as statements:
        response = client.get("/history/export.csv")
        assert response.status_code == 200 and response.is_streamed
        chunks = iter(response.response)
        first = next(chunks)
        read_before_first_chunk = len(statements)
        body = first + b"".join(chunks)
    assert read_before_first_chunk < 10 < len(statements)  # a batch at a time, not the history at once
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    with app.app_context():
        played = {ref(match_id) for match_id in db.session.scalars(db.select(Round.match_id).distinct())}
        assert {row["match"] for row in rows} == played and len(played) > large_history - 5
        for match in db.session.scalars(db.select(Match).order_by(Match.id).limit(5)):
            mine = [row for row in rows if row["match"] == ref(match.id)]
            totals = running_totals(match)
            assert len(mine) == (len(totals) - 1) * len(totals[0])
            assert {int(row["running total"]) for row in mine if row["round"] == str(len(totals) - 1)} == set(
                totals[-1].values()
            )
    documents = json.loads(client.get("/history/export.json").get_data(as_text=True))
    assert len(documents) == large_history and len({document["id"] for document in documents}) == large_history


@pytest.fixture
def redis_url(tmp_path) -> Iterator[str]:
    """A throw-away Redis server on a free loopback port, as the deployment's store of the limits."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed (make test installs Debian's package as root)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    options = ["--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(tmp_path)]
    process = subprocess.Popen([server, *options], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(10)


def test_with_a_shared_store_two_processes_count_as_one(tmp_path, database_url, redis_url):
    def server_process():
        """An app as another process builds it: its own connection to the store."""
        config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY}
        settings = Settings(limits_storage_url=redis_url)
        return create_app(config, instance_path=str(tmp_path / "instance"), settings=settings)

    first = server_process()
    owner = first.test_client()
    match_id = start_match(owner, "topic", ["Ann", "Bob"])
    stale, code = offer(first, match_id), offer(first, match_id)
    guesser, token = phone(first, f"/matches/{ref(match_id)}")
    assert [take(guesser, token, match_id, stale).status_code for _ in range(6)] == [409] * 6
    for number in range(GUESSES_PER_CODE - 1):
        take(guesser, token, match_id, f"guess-{number}")

    second = server_process()
    same_phone = second.test_client()
    same_phone.environ_base.update(NETWORK)
    same_phone.set_cookie("session", guesser.get_cookie("session").value)
    assert take(same_phone, token, match_id, stale).status_code == 429  # the eleventh wrong code of this phone
    last_guess = phone(second, f"/matches/{ref(match_id)}", {"REMOTE_ADDR": "192.0.2.9"})
    assert take(*last_guess, match_id, "guess-last").status_code == 409
    with second.app_context():
        assert db.session.get(Match, match_id).handover_hash is None  # the fifth guess, wherever it was sent
    assert take(*last_guess, match_id, code).status_code == 409
    for app in (first, second):
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def test_behind_the_proxy_the_address_is_the_one_it_names(tmp_path, database_url):
    config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY}
    settings = Settings(behind_proxy=True, secret_key="s" * 64)
    app = create_app(config, instance_path=str(tmp_path / "instance"), settings=settings)

    def export_from(forwarded_for: str) -> int:
        """An export by a client that keeps no cookie, through the proxy (every request comes from 127.0.0.1)."""
        headers = {"X-Forwarded-Proto": "https", "X-Forwarded-For": forwarded_for}
        return download(app.test_client(), "/history/export.csv", headers=headers).status_code

    assert [export_from("198.51.100.1") for _ in range(10)] == [200] * 10
    assert export_from("198.51.100.1") == 429
    assert export_from("198.51.100.2") == 200  # another address behind the same proxy
    assert export_from("198.51.100.1, 198.51.100.3") == 200  # what the client wrote itself is not believed
    with app.app_context():
        db.engine.dispose()


def test_a_client_reaching_the_apps_port_directly_is_counted_by_its_own_address(tmp_path, database_url):
    # Caddy on compose's network forwards; a client on the LAN that reaches port 8000 itself does not.
    config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY}
    settings = Settings(behind_proxy=True, secret_key="s" * 64, trusted_proxies=("172.30.57.0/24",))
    app = create_app(config, instance_path=str(tmp_path / "instance"), settings=settings)

    def export(remote: str, forwarded_for: str) -> int:
        headers = {"X-Forwarded-Proto": "https", "X-Forwarded-For": forwarded_for}
        response = download(app.test_client(), "/history/export.csv", headers=headers,
                            environ_base={"REMOTE_ADDR": remote})  # fmt: skip
        return response.status_code

    # Each of its requests names another made-up address: all of them are counted as its own.
    assert [export("192.168.1.40", f"198.51.100.{n}") for n in range(10)] == [200] * 10
    assert export("192.168.1.40", "198.51.100.99") == 429
    # Through the proxy the address it names is the client's: another client is not refused.
    assert export("172.30.57.2", "192.168.1.41") == 200
    assert [export("172.30.57.2", "198.51.100.7") for _ in range(10)] == [200] * 10
    assert export("172.30.57.2", "198.51.100.7") == 429
    with app.app_context():
        db.engine.dispose()


def test_trusted_proxies_are_addresses_or_networks_and_default_to_composes_network():
    assert Settings.from_environ({}).trusted_proxies == Settings().trusted_proxies
    assert "172.30.57.0/24" in Settings().trusted_proxies
    found = Settings.from_environ({"TRUSTED_PROXIES": " 10.0.0.5, 2001:db8::/32 "})
    assert found.trusted_proxies == ("10.0.0.5", "2001:db8::/32")
    with pytest.raises(ValueError, match="TRUSTED_PROXIES"):
        Settings.from_environ({"TRUSTED_PROXIES": "10.0.0.5, the proxy"})


def test_while_the_shared_store_is_down_requests_are_answered_and_counted_in_memory(
    tmp_path, database_url, monkeypatch
):
    # The extension is one per process: the store it finds down here is not the next test's.
    monkeypatch.setattr(limiter, "_storage_dead", False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]  # nothing listens there once the probe is closed
    config = {"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url, "SECRET_KEY": ADDRESS_KEY}
    settings = Settings(limits_storage_url=f"redis://127.0.0.1:{closed}/0")
    app = create_app(config, instance_path=str(tmp_path / "instance"), settings=settings)
    owner = app.test_client()
    match_id = start_match(owner, "topic", ["Ann", "Bob"])
    code = offer(app, match_id)
    scanner, token = phone(app, f"/matches/{ref(match_id)}")
    assert take(scanner, token, match_id, "not-the-code").status_code == 409
    assert take(scanner, token, match_id, code).status_code == 302
    exporter, _ = phone(app, "/history")
    assert [download(exporter, "/history/export.csv").status_code for _ in range(11)] == [200] * 10 + [429]
    with app.app_context():
        db.engine.dispose()
