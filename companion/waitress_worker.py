"""A gunicorn worker that serves with waitress: gunicorn keeps the processes, waitress reads each request whole.

gunicorn's threaded worker hands a new connection to a thread, which then blocks reading
the request: 16 connections sending a header every 3 s stopped the server. waitress reads
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
from waitress.server import create_server

from .hardening import behind_proxy


def waitress_options(app: Any, threads: int) -> dict[str, Any]:
    """The waitress settings of both ways to serve with it: these workers, and SERVER=waitress."""
    return {
        "threads": threads,
        # Every phone following a match keeps its connection open: a club evening of 100
        # tables is 800 of them. waitress stops accepting at 100 by default, and its select()
        # loop cannot watch more than 1024 sockets, so poll() and a higher limit.
        "connection_limit": int(os.environ.get("CONNECTIONS", "2000")),
        "asyncore_use_poll": True,
        # waitress reads a body whole (to a file past 512 KB) before the app sees it: beyond a
        # few MB it answers 413 itself rather than spool 50 MB that the app refuses anyway.
        "max_request_body_size": 4 * app.config["MAX_CONTENT_LENGTH"],
        "ident": "companion",
        # Behind the server's proxy its X-Forwarded-Proto must reach the app (ProxyFix, companion/deploy.py):
        # waitress would strip it, and the page's own HTTPS POSTs would look cross-site.
        "clear_untrusted_proxy_headers": not behind_proxy(),
    }


class WaitressWorker(Worker):
    """One gunicorn worker process: waitress on the listening sockets gunicorn bound."""

    def run(self) -> None:
        listeners = [listener.sock for listener in self.sockets]
        self.server = create_server(self.wsgi, sockets=listeners, **waitress_options(self.wsgi, self.cfg.threads))
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
