"""The server's CPU count keeps what a worker that died had used."""

from __future__ import annotations

import subprocess
import sys
import time

from bench.club import cpu_seconds

# A server whose one worker burns CPU, dies and is reaped, as gunicorn reaps a worker killed by a signal.
SERVER = """
import os, sys, time
child = os.fork()
if child == 0:
    end = time.process_time() + 0.4
    while time.process_time() < end:
        pass
    os._exit(0)
os.waitpid(child, 0)
print("reaped", flush=True)
time.sleep(30)
"""


def test_a_dead_workers_cpu_time_still_counts_for_its_server():
    server = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline().strip() == "reaped"
        time.sleep(0.05)
        assert cpu_seconds(server.pid) >= 0.35
    finally:
        server.kill()
        server.wait()
