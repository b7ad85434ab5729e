"""The server's garbage collections, made by a thread of their own and never by an allocation (CPython 3.11's crash).

On CPython 3.11 an object whose attributes live in its inline values (SQLAlchemy's InstanceState) gets a
dict of its own when a new attribute name no longer fits its class's shared keys. Allocating that dict
may start a collection; the collection may free the mapped object the state watches, and its weakref
callback (`InstanceState._cleanup`) then changes the same state's attributes, under the dict being made.
The two dicts share the values array; one frees it and the other goes on using it: the heap is corrupted
and the worker dies of a segmentation fault a little later, anywhere (a club evening of 40 tables lost
one or two workers a run; `tests/unit/test_collector.py` has the crash in ten lines). CPython 3.12 no
longer does this.

So a worker turns the automatic collections off and a thread of its own collects instead, by the
interpreter's own thresholds. A collection it starts runs between two bytecodes of that thread, when no
other thread is inside a C call such as that one (they release the interpreter's lock only between
bytecodes or while blocked), so a weakref callback never runs in the middle of an attribute's store.
"""

from __future__ import annotations

import gc
import threading
import time

# Often enough that a request's cyclic garbage is freed in about the time the interpreter would have.
INTERVAL_S = 0.05


def collect_when_due() -> int | None:
    """One collection if the interpreter would have made one by now (its own thresholds): the generation
    collected, or None."""
    threshold0, threshold1, threshold2 = gc.get_threshold()
    count0, count1, count2 = gc.get_count()
    if threshold0 == 0 or count0 <= threshold0:
        return None
    # As the interpreter does: the oldest generation whose count passed its threshold.
    generation = 2 if count2 > threshold2 else 1 if count1 > threshold1 else 0
    gc.collect(generation)
    return generation


def collect_in_a_thread_of_its_own(interval_s: float = INTERVAL_S) -> threading.Thread:
    """Turn the allocations' collections off in this process and start the thread that makes them."""
    gc.disable()
    # What the worker holds before its first request (the app, its modules) lives as long as the worker: left
    # out of the collections, a full one looks only at the requests' objects (50 ms to none, for 155,000).
    gc.freeze()

    def run() -> None:
        while True:
            time.sleep(interval_s)
            collect_when_due()

    thread = threading.Thread(target=run, name="garbage-collector", daemon=True)
    thread.start()
    return thread
