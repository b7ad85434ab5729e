"""A host's import of a large history leaves the other phones on the same gevent worker answered while it runs."""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from urllib.parse import urlsplit

import pytest

from bench.client import CSRF, Client, create_match
from bench.micro import poll_headers
from tests.helpers import topic_file

# Some 10,000 short matches: 1.9 MB of the 2 MB an upload may hold, several seconds of checks and batches.
MATCHES = 10_000
# Without the import's hand-backs a poll on its worker waited for the whole import; with them, for one batch.
ALLOWED_DELAY = 1.0


def claimed_host_rights(phone: Client, server_log: str) -> None:
    """Tap the host link the server printed at its start, as the host's phone does."""
    link = re.search(r"/host\?token=[^\s]+", server_log)
    assert link, "the server printed no host link"
    landing = phone.get(link.group(0))
    found = CSRF.search(landing.text())
    phone.csrf = found.group(1) or found.group(2)
    claimed = phone.post("/host", [("token", link.group(0).split("=", 1)[1])])
    assert claimed.status == 302, claimed.text()[:300]


def multipart(fields: dict[str, str], filename: str, content: bytes) -> tuple[bytes, str]:
    """A form with one file, encoded as a browser sends it."""
    boundary = uuid.uuid4().hex
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
             for name, value in fields.items()]  # fmt: skip
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                 "Content-Type: application/json\r\n\r\n".encode() + content + b"\r\n")  # fmt: skip
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


@pytest.mark.alone
@pytest.mark.slow
def test_a_large_import_leaves_the_phones_on_its_worker_answered(start_server):
    server = start_server()  # one worker: the phone following a match is on the import's worker
    port = urlsplit(server.url).port
    match_id = create_match(Client(port))
    viewer = Client(port)
    tag = viewer.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, '"none"')).headers["etag"]
    host = Client(port)
    claimed_host_rights(host, server.log_path.read_text(errors="replace"))
    found = CSRF.search(host.get("/history").text())
    documents = [topic_file(["Anna", "Bruno", "Carla"], uid=f"large-{n}") for n in range(MATCHES)]
    body, content_type = multipart({"csrf_token": found.group(1) or found.group(2)}, "history.json",
                                   json.dumps(documents).encode())  # fmt: skip
    answer = {}

    def import_history() -> None:
        answer["reply"] = host.request("POST", "/history/import", body, {"Content-Type": content_type})

    importing = threading.Thread(target=import_history)
    importing.start()
    waits = []
    while importing.is_alive():
        reply = viewer.get(f"/matches/{match_id}/live", headers=poll_headers(match_id, tag))
        assert reply.status == 304
        waits.append(reply.seconds)
        time.sleep(0.05)
    importing.join()
    assert answer["reply"].status == 302, answer["reply"].text()[:500]
    imported = host.get("/history")
    assert "10000 match(es)" in imported.text() or "Imported 10000" in imported.text()
    assert len(waits) >= 10, f"the import was over before it could be watched: {len(waits)} polls"
    print(f"\nworst wait {max(waits):.3f} s over {len(waits)} polls")
    assert max(waits) < ALLOWED_DELAY, f"a phone waited {max(waits):.2f} s behind the import ({len(waits)} polls)"
