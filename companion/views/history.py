"""History: every match, filtered and paginated; export of what the filters find; import of match files."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Callable, Iterator
from datetime import datetime

from flask import Blueprint, Response, abort, flash, redirect, request, stream_with_context, url_for
from flask_babel import gettext
from werkzeug.exceptions import ServiceUnavailable

from ..games import REGISTRY
from ..games.refusals import N_, RuleError
from ..models import Match
from ..queries.exchange import match_document
from ..queries.history import DAY_TEXT_MAX, HistoryFilter, history, matching
from ..queries.matches import EXPORT_COLUMNS, all_matches, export_rows
from ..queries.players import roster_entries
from ..services import bounds, imports
from ..web import access, hx, render, wants_fragment
from ..web.groups import streamed
from ..web.hardening import MAX_UPLOAD_MB
from ..web.i18n import DateField, date_field, located_text, translated
from ..web.limits import BUSY_RETRY_AFTER, BUSY_TEXT, EXPORTS, IMPORTS, export_gate, limited
from ..web.row_ids import row_of

bp = Blueprint("history", __name__, url_prefix="/history")
bp.add_app_template_global(DAY_TEXT_MAX, "DAY_TEXT_MAX")
bp.add_app_template_global(MAX_UPLOAD_MB, "MAX_UPLOAD_MB")


def _history_page(
    filters: HistoryFilter, field: DateField | None = None, status: int = 200, import_error: str | None = None
):
    """The history page (or its results alone for an htmx filter change), built in one place."""
    return render(
        "history.html",
        fragment="update",
        status=status,
        filters=filters,
        date_field=field or date_field(),
        results=history(filters),
        games=REGISTRY,
        roster=roster_entries(),
        import_error=import_error,
    )


@bp.get("")
@access.member
def index():
    """Every match, newest first, narrowed by the filters in the query string.

    A date the page's language writes ("25/12/2026") is read, and the address the browser keeps
    for a filter change is the one the history's links use, with ISO dates that read the same in
    every language; a date that is not one is named beside its field, and that address is not kept.
    """
    filters, field = _asked_filters()
    response = _history_page(filters, field, status=400 if filters.errors else 200)
    if wants_fragment():
        hx.push_url(response, None if filters.errors else url_for("history.index", **filters.args()))
    return response


def _asked_filters() -> tuple[HistoryFilter, DateField]:
    """The history's filters the query string asks for (a page's, an export link's, the import form's address), and
    the date field's form they were read in."""
    field = date_field()
    return HistoryFilter.from_args(request.args, field.form, _player_of), field


def _player_of(text: str) -> int | None:
    """The player whose address a filter's `player` names."""
    return row_of("player", text)


def _download(chunks: Iterator[str], mimetype: str, filename: str) -> Response:
    """A streamed attachment, written while an export slot is held (web/limits.py, `Gate`).

    The other cores and threads stay free for the phones' polls and saves; an export asked while
    every slot is taken is told to come back in a few seconds (503) rather than queue.
    """
    leave = export_gate().enter()
    if leave is None:
        raise ServiceUnavailable(translated(BUSY_TEXT), retry_after=BUSY_RETRY_AFTER)
    response = Response(stream_with_context(_holding(streamed(chunks), leave)), mimetype=mimetype)
    response.headers["Content-Disposition"] = f"attachment; filename={filename}"
    response.call_on_close(leave)  # the slot of an answer closed before its first chunk
    return response


# After each chunk (a match) an export leaves the interpreter's lock to its process's other threads for
# this long: a poll or a save waiting for it gets it at once, rather than at the interpreter's next switch.
PAUSE_BETWEEN_CHUNKS = 0.001


def _holding(chunks: Iterator[str], leave: Callable[[], None]) -> Iterator[str]:
    """The chunks, each followed by a pause; the slot given back once the last is written or the phone has gone."""
    try:
        for chunk in chunks:
            yield chunk
            time.sleep(PAUSE_BETWEEN_CHUNKS)
    finally:
        leave()


def _stamp() -> str:
    """Today's date for an export's file name."""
    return datetime.now().strftime("%Y-%m-%d")


def _exported() -> Iterator[Match]:
    """The matches an export holds: those the history's filters (in the link's query string) find, on every page.
    A date that is not one is named beside its field on the history page (400), never a file of more than asked."""
    filters, field = _asked_filters()
    if filters.errors:
        abort(_history_page(filters, field, status=400))
    return all_matches(matching(filters) if filters.active else None)


@bp.get("/export.json")
@access.member
@limited(EXPORTS)
def export_json():
    """The history as one JSON list of match files: the matches the filters find, or all of them."""
    exported = _exported()

    def chunks() -> Iterator[str]:
        yield "["
        for index, match in enumerate(exported):
            yield ("," if index else "") + "\n" + json.dumps(match_document(match), ensure_ascii=False)
        yield "\n]\n"

    return _download(chunks(), "application/json", f"companion-history-{_stamp()}.json")


# A cell starting with one of these is a formula to a spreadsheet (OWASP, "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(cell: object) -> object:
    """A text cell that a spreadsheet shows as text, never runs: a leading quote before a formula."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS):
        return "'" + cell
    return cell


@bp.get("/export.csv")
@access.member
@limited(EXPORTS)
def export_csv():
    """One line per round per side: the round's score (the change of the side's total) and the total.

    The matches are those the filters find, or all of them (as in the JSON export).
    """
    exported = _exported()

    def chunks() -> Iterator[str]:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(EXPORT_COLUMNS)
        for match in exported:
            for row in export_rows(match):
                # The match as its address names it: the id would tell how many matches the server holds.
                writer.writerow([row[0], *(spreadsheet_text(cell) for cell in row[1:])])
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
        yield buffer.getvalue()

    return _download(chunks(), "text/csv", f"companion-history-{_stamp()}.csv")


def _read_upload() -> list:
    """The uploaded match files as a list of documents; RuleError when it is not one."""
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        raise RuleError(N_("choose a match file (.json) to import"), field="file")
    try:
        document = bounds.read_json(upload.read())
    except UnicodeDecodeError:
        raise RuleError(N_("the file is not valid JSON: it is not UTF-8 text"), field="file") from None
    except json.JSONDecodeError as error:
        # Where, in the page's words: the reader's own sentence is English.
        where = N_(
            "the file is not valid JSON: line %(line)s, column %(column)s", line=error.lineno, column=error.colno
        )
        raise RuleError(where, field="file") from None
    documents = document if isinstance(document, list) else [document]
    if not documents:
        raise RuleError(N_("the file holds no match"), field="file")
    return documents


@bp.post("/import")
@access.host
@limited(IMPORTS)
def import_file():
    """Store the matches of an uploaded JSON file (host rights): all of them, or none with the reason, on the
    history as it was filtered when the file was sent (its form's address carries the filters)."""
    try:
        results = imports.import_matches(_read_upload())
    except RuleError as error:
        filters, field = _asked_filters()
        return _history_page(filters, field, status=422, import_error=located_text(error, beside="file"))
    created = sum(1 for entry in results if entry.created)
    stored = len(results) - created
    flash(gettext("Imported %(created)s match(es); %(stored)s already stored.", created=created, stored=stored))
    return redirect(url_for("history.index"))
