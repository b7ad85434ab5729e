"""48 connections that send half a request and then a header every 3 s do not hold up the other phones."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from bench import slow

SAME_ON_EVERY_DATABASE = "the server's connections, not its SQL"

# A phone held up behind the slow connections waits for one of their drips, every DRIP_EVERY seconds;
# one served beside them does not. The line lies between the two, well clear of a loaded machine's
# slower answers: how fast a phone is served is the bench's figure, not this test's.
ALLOWED_DELAY = slow.DRIP_EVERY * 0.8


@pytest.mark.alone
@pytest.mark.slow
def test_slow_clients_do_not_delay_the_other_phones(start_server):
    server = start_server(workers=2)
    result = slow.run(urlsplit(server.url).port, connections=48, drips=3)
    assert result.drips >= 2
    assert len(result.seconds) >= 20, f"too few requests to tell: {result}"
    assert set(result.statuses) == {200}, f"other phones were refused or left unanswered: {set(result.statuses)}"
    assert result.worst < ALLOWED_DELAY, (
        f"another phone waited {result.worst:.2f} s behind {result.connections} slow connections"
    )
    # And the server still answers once the slow connections are gone.
    seconds, status = slow.timed_get(urlsplit(server.url).port, "/ping")
    assert status == 200 and seconds < ALLOWED_DELAY
