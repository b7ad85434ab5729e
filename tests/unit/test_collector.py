"""The server's collections come from a thread of their own: CPython 3.11's crash in a store cannot happen."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# SQLAlchemy's InstanceState in ten lines: an object with inline values, whose class's shared keys are
# full, and a weakref callback that changes its attributes when the object it watches is freed by a
# collection. Storing a new name makes the state's dict; an allocation's collection started there runs the
# callback under the store (forced here by a threshold of 1, as a busy server's allocations do at random).
SCENARIO = textwrap.dedent(
    """
    import gc, sys, weakref
    sys.path.insert(0, {root!r})
    if {collector}:
        from companion.server.collector import collect_in_a_thread_of_its_own
        collect_in_a_thread_of_its_own(0.001)

    class Mapped:
        def __init__(self):
            self.me = self  # a cycle: only a collection frees it

    class State:
        __slots__ = ("__dict__", "__weakref__", "obj")
        def __init__(self, mapped):
            self.instance_dict = 1
            self.session_id = 2
            self.obj = weakref.ref(mapped, self.cleanup)
        def cleanup(self, ref):
            del self.instance_dict
            self.session_id = self.strong_obj = None

    filler = State(Mapped())
    for i in range(40):
        setattr(filler, f"f{{i}}", i)
    kept = []
    for n in range(20000):
        mapped = Mapped()
        state = State(mapped)
        del mapped
        gc.set_threshold(1)
        state.strong_obj = None
        gc.set_threshold(700)
        kept.append(state)
        if len(kept) > 100:
            kept.clear()
    print("stored", gc.isenabled())
    """
)


def run(collector: bool) -> subprocess.CompletedProcess:
    script = SCENARIO.format(root=str(ROOT), collector=collector)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)


def test_with_the_servers_collector_the_store_under_a_collection_never_corrupts_the_heap():
    done = run(collector=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["stored", "False"]


def test_without_it_this_interpreter_crashes_on_the_same_stores_where_it_is_311():
    """What the collector is for: on CPython 3.11 the allocations' own collections kill the process."""
    done = run(collector=False)
    if sys.version_info[:2] == (3, 11):
        assert done.returncode < 0, "CPython 3.11 survived the store under a collection"
    else:
        assert done.returncode == 0, done.stderr[-2000:]


# A cycle only a collection frees (`watched` until then), and garbage enough for the thresholds to call for one.
CYCLIC_GARBAGE = textwrap.indent(
    textwrap.dedent(
        """
        class Node:
            def __init__(self):
                self.me = self
        node = Node()
        watched = weakref.ref(node)
        del node
        for _ in range(gc.get_threshold()[0] * 3):
            Node()
        """
    ).strip(),
    " " * 8,
).lstrip()


def test_the_collectors_thread_still_frees_cyclic_garbage():
    script = textwrap.dedent(
        f"""
        import gc, sys, time, weakref
        sys.path.insert(0, {str(ROOT)!r})
        from companion.server.collector import collect_in_a_thread_of_its_own
        collect_in_a_thread_of_its_own(0.01)

        {CYCLIC_GARBAGE}
        deadline = time.monotonic() + 5
        while watched() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        print(watched() is None, gc.isenabled())
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "False"]


def test_under_gevents_patches_the_collector_is_a_greenlet_of_the_workers_own_thread():
    # gunicorn's gevent worker patches threading before post_worker_init (serve.worker_ready) starts the
    # collector: its collections then run between the worker's greenlets, never from an OS thread beside its loop.
    script = textwrap.dedent(
        f"""
        from gevent import monkey
        monkey.patch_all()
        import gc, sys, threading, weakref
        import gevent
        sys.path.insert(0, {str(ROOT)!r})
        from companion.server import collector

        ran_on = []
        due = collector.collect_when_due
        def watched_collection():
            ran_on.append(threading.get_native_id())
            return due()
        collector.collect_when_due = watched_collection
        collector.collect_in_a_thread_of_its_own(0.01)

        {CYCLIC_GARBAGE}
        for _ in range(500):
            if watched() is None:
                break
            gevent.sleep(0.01)
        main = threading.get_native_id()
        print(watched() is None, bool(ran_on) and set(ran_on) == {{main}}, gc.isenabled())
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True", "False"]
