"""In-process caches bounded by the bytes they hold, not by a count of entries.

A count alone does not bound memory: a fragment or a chart of a long match weighs a
hundred times one of a short match. Each cache here forgets its least recently used entries once its keys and values
weigh more than its budget (cachetools' LRUCache, weighing each entry), and never keeps an entry larger than a
quarter of it.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Hashable
from functools import wraps
from operator import itemgetter
from typing import Any, TypeVar

from cachetools import LRUCache

Result = TypeVar("Result")


def weight(value: Any) -> int:
    """The bytes an object and what it holds take (tuples, lists, dicts, text, numbers)."""
    size = sys.getsizeof(value)
    if isinstance(value, tuple | list):
        size += sum(weight(item) for item in value)
    elif isinstance(value, dict):
        size += sum(weight(key) + weight(item) for key, item in value.items())
    return size


class ByteBoundedCache:
    """A thread-safe least-recently-used map whose keys and values together stay under `max_bytes`."""

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        # Each value is kept with its weight and its key's: cachetools weighs what it holds, not the key.
        self._entries: LRUCache[Hashable, tuple[Any, int]] = LRUCache(max_bytes, getsizeof=itemgetter(1))
        # cachetools' caches are not thread-safe, and the server answers requests in threads.
        self._lock = threading.Lock()

    @property
    def held(self) -> int:
        """The bytes its keys and values weigh."""
        return self._entries.currsize

    def get(self, key: Hashable) -> Any | None:
        """The value kept under `key` (now the most recently used), or None."""
        with self._lock:
            found = self._entries.get(key)
        return None if found is None else found[0]

    def put(self, key: Hashable, value: Any) -> None:
        """Keep a value, forgetting the least recently used ones past the budget."""
        size = weight(key) + weight(value)
        if size > self.max_bytes // 4:
            return
        with self._lock:
            self._entries[key] = (value, size)

    def clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


def cached_by_bytes(max_bytes: int) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Like functools.lru_cache (positional, hashable arguments; `cache_clear`), bounded by bytes."""

    def decorate(function: Callable[..., Result]) -> Callable[..., Result]:
        cache = ByteBoundedCache(max_bytes)

        @wraps(function)
        def cached(*args: Any) -> Result:
            found = cache.get(args)
            if found is None:
                found = function(*args)
                cache.put(args, found)
            return found

        cached.cache = cache  # type: ignore[attr-defined]
        cached.cache_clear = cache.clear  # type: ignore[attr-defined]
        return cached

    return decorate
