"""A row's address: its id as a short opaque text, so no address tells how many matches or players a server holds."""

from __future__ import annotations

import hashlib
import hmac
import random
import re
from functools import lru_cache
from typing import Any

from sqids import Sqids
from sqids.constants import DEFAULT_ALPHABET
from werkzeug.routing import BaseConverter, ValidationError

from ..models import ID_MAX

# Every id up to ID_MAX is eight characters at this length; a text much longer is no row of
# ours, refused before it is decoded (the live-poll middleware reads it on the hot path).
MIN_LENGTH = 8
TEXT = "[0-9A-Za-z]{1,16}"
_TEXT = re.compile(TEXT)


class RowIds:
    """The two-way map between a row id and its address text, one per secret key.

    The alphabet is shuffled by the key: two servers give the same id another text, and
    neither the order of the ids nor their count can be read off the texts.
    """

    def __init__(self, secret_key: str | bytes):
        key = secret_key.encode() if isinstance(secret_key, str) else secret_key
        seed = hmac.new(key, b"row ids", hashlib.sha256).digest()
        alphabet = list(DEFAULT_ALPHABET)
        random.Random(seed).shuffle(alphabet)
        self.alphabet = "".join(alphabet)
        self._sqids = Sqids(alphabet=self.alphabet, min_length=MIN_LENGTH)
        # Sqids is slow Python (an alphabet shuffled again per character): a page links the same few matches and
        # players many times over, and every phone following a match polls its address each second.
        self.encode = lru_cache(maxsize=4096)(self._encode)
        self.decode = lru_cache(maxsize=4096)(self._decode)

    def _encode(self, row_id: int) -> str:
        """The address text of a row id."""
        return self._sqids.encode([row_id])

    def _decode(self, text: str) -> int | None:
        """The row id of an address text; None for any text `encode` does not give for an id up to ID_MAX.

        Sqids reads some other texts as the same number (and some as several): only the
        one text this server gives for the id is its address.
        """
        if not _TEXT.fullmatch(text):
            return None
        numbers = self._sqids.decode(text)
        if len(numbers) != 1 or numbers[0] > ID_MAX or self.encode(numbers[0]) != text:
            return None
        return numbers[0]


class RowIdConverter(BaseConverter):
    """An `<id:…>` URL part: a row's address text in the URL, its id in the view (anything else a 404)."""

    regex = TEXT
    row_ids: RowIds

    @classmethod
    def for_key(cls, secret_key: str | bytes) -> type[RowIdConverter]:
        """The converter of the app whose secret key this is."""
        return type(cls.__name__, (cls,), {"row_ids": RowIds(secret_key)})

    def to_python(self, value: str) -> Any:
        row_id = self.row_ids.decode(value)
        if row_id is None:
            raise ValidationError()
        return row_id

    def to_url(self, value: Any) -> str:
        return self.row_ids.encode(int(value))


def row_ids_of(app: Any) -> RowIds:
    """The app's map of row ids (that of its `id` converter)."""
    return app.url_map.converters["id"].row_ids
