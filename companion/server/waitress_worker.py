"""A gunicorn worker that serves with waitress: gunicorn keeps the processes, waitress reads each request whole.

gunicorn's threaded worker hands a new connection to a thread, which then blocks reading
the request: as many slow connections as threads stop the server. waitress reads
requests in one asyncore loop and gives a thread only a request that has fully arrived,
so slow phones cost a socket, not a thread. gunicorn's arbiter still forks the workers
(after the app is built), restarts a dead one and stops them on a signal.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

from gunicorn.workers.base import Worker
from waitress.channel import HTTPChannel
from waitress.server import create_server
from waitress.task import WSGITask


class KeepAliveTask(WSGITask):
    """waitress's task, except that an answer without a body keeps the connection open.

    waitress closes an HTTP/1.1 connection after any response without a Content-Length, and
    drops that header from a 304 or 204 (which may not carry one): every unchanged live poll,
    the request a club evening is mostly made of, cost each phone a new connection. A response
    that has no body needs no length to end, so only the client's own "Connection: close"
    (or another reason waitress finds) ends the connection after it.
    """

    _bodiless_keep_alive = False

    def build_response_header(self) -> bytes:
        self._bodiless_keep_alive = (
            self.version == "1.1"
            and not self.has_body
            and not self.close_on_finish
            and self.request.headers.get("CONNECTION", "").lower() != "close"
        )
        try:
            return super().build_response_header()
        finally:
            self._bodiless_keep_alive = False

    def set_close_on_finish(self) -> None:
        if not self._bodiless_keep_alive:
            super().set_close_on_finish()


# waitress makes its channels' tasks from this class attribute; it offers no option for it.
HTTPChannel.task_class = KeepAliveTask


def waitress_options(app: Any) -> dict[str, Any]:
    """The waitress settings of these workers."""
    settings = app.config["SETTINGS"]
    return {
        "threads": settings.threads,
        # Every phone following a match keeps its connection open: a club evening of 100
        # tables is 800 of them. waitress stops accepting at 100 by default, and its select()
        # loop cannot watch more than 1024 sockets, so poll() and a higher limit.
        "connection_limit": settings.connections,
        "asyncore_use_poll": True,
        # waitress reads a body whole (to a file past 512 KB) before the app sees it: beyond a
        # few MB it answers 413 itself rather than spool 50 MB that the app refuses anyway.
        "max_request_body_size": 4 * app.config["MAX_CONTENT_LENGTH"],
        "ident": "companion",
        # Behind the server's proxy its X-Forwarded-Proto must reach the app (TrustedProxies, companion/web/deploy.py):
        # waitress would strip it, and the page's own HTTPS POSTs would look cross-site.
        "clear_untrusted_proxy_headers": not settings.behind_proxy,
    }


class WaitressWorker(Worker):
    """One gunicorn worker process: waitress on the listening sockets gunicorn bound."""

    def run(self) -> None:
        listeners = [listener.sock for listener in self.sockets]
        self.server = create_server(self.wsgi, sockets=listeners, **waitress_options(self.wsgi))
        threading.Thread(target=self._heartbeat, name="gunicorn-heartbeat", daemon=True).start()
        self.server.run()

    def _heartbeat(self) -> None:
        """Tell the arbiter this worker lives (from a thread: a long request must not look like a hang)."""
        while self.alive:
            self.notify()
            if os.getppid() != self.ppid:  # the arbiter is gone: stop rather than serve on alone
                self.log.info("Parent changed, shutting down: %s", self)
                os.kill(os.getpid(), signal.SIGTERM)
                return
            time.sleep(1.0)

    def handle_exit(self, sig, frame) -> None:
        """SIGTERM: stop the loop once the requests under way are answered (a save in flight is committed)."""
        self.alive = False
        if getattr(self, "server", None) is not None:  # a signal before run() has nothing under way
            self.server.task_dispatcher.shutdown(cancel_pending=True, timeout=self.cfg.graceful_timeout)
        raise SystemExit(0)

    def handle_quit(self, sig, frame) -> None:
        """SIGINT / SIGQUIT: the same, at once."""
        self.alive = False
        raise SystemExit(0)
