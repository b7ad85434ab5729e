"""The match page's presenter: the match as this phone sees it, each part worked out when first drawn."""

from __future__ import annotations

import json
import zlib
from functools import cached_property
from typing import Any

from flask import abort, current_app, url_for
from flask_babel import gettext, ngettext
from werkzeug.datastructures import MultiDict

from ..games import get_game
from ..games.forms import BOARD_FIELD, KEPT_FIELD
from ..games.refusals import Message
from ..models import PLAYING, Match
from ..models.club import COUNTED, ClubTable
from ..queries import club
from ..queries import matches as queries
from ..queries.ratings import match_chances
from ..web.card_image import CardRow, CardText
from ..web.cards import game_colour
from ..web.display import show_sides_in_this_language, shown_name
from ..web.groups import follow_token, is_host, phone_credential, private
from ..web.i18n import day, translated
from ..web.pencil import is_owner, is_scorekeeper, pencil_token

# `my_seat` not handed in: this phone's seat, read when a template asks for it.
THIS_PHONE = object()


class MatchPage:
    """The match page and its partials, drawn for this phone; a template gets it as `page`, and each name it
    uses that its context lacks is this object's attribute (web/templating.PageContext). Every part is worked
    out once, when first asked, so a fragment whose templates never name a part (the entry drawn alone: no
    replay step, no chances) never works it out. Jinja looks up every name a template mentions when it starts
    drawing it, the untaken branches' included: a part is saved per template or include, not per branch.

    `form` is what the page sent back; `replay` the rounds' replay a write has just made (a save, undo or redo),
    with its `standings`; `shown` the round a match no longer played is replayed to (its last when None);
    `my_seat` the seat whose own part the page shows (this phone's unless handed in: None where a page is the
    same for every phone); `replacing` the sides whose sent rows the scorekeeper's entry takes again. Any other
    name (`errors`, `editing`, the share page's links…) is a part as given, as is one that overrides a part.
    """

    def __init__(self, match: Match, form=None, *, replay=None, standings=None, shown: int | None = None,
                 my_seat: Any = THIS_PHONE, replacing=(), **given: Any) -> None:  # fmt: skip
        """The page of `match`, with what the request (or the write that answers it) already knows."""
        self.match, self.game = match, get_game(match.game)
        show_sides_in_this_language(match)
        self._sent_back, self._shown, self._replacing = form, shown, replacing
        self._editing = "editing" in given
        # A cached property is looked up in the instance first: what is handed in stands for what it works out.
        if replay is not None:
            self._replay = replay
        if standings is not None:
            self.standings = standings
        if my_seat is not THIS_PHONE:
            self.my_seat = my_seat
        self.__dict__.update({"errors": {}, **given})

    @cached_property
    def _replay(self):
        """One replay of the rounds, for the standings, the entry and the game's view."""
        match = self.match
        return self.game.replay(match.player_names, match.settings, [r.data for r in match.rounds])

    @cached_property
    def standings(self):
        """The sides' standings."""
        return self.game.standings_of(self._replay)

    @cached_property
    def game_view(self) -> dict[str, Any]:
        """What the game's partials draw beyond the standings."""
        return self.game.entry.match_view(self._replay)

    @cached_property
    def step(self):
        """A finished match's replay after round `shown` (None while it is played)."""
        return queries.replay_step(self.match, self._shown, self.standings, self.game_view)

    @cached_property
    def played_again(self) -> str | None:
        """The address of the match the table went on to from this one (Play again), for every phone following it:
        on a private server with what lets a phone outside the group follow it, as this one's viewer link did."""
        found = queries.played_again(self.match) if self.match.status != PLAYING else None
        if found is None:
            return None
        return url_for("matches.show", match_id=found.id, **({"follow": follow_token(found.uid)} if private() else {}))

    @cached_property
    def club_table(self) -> ClubTable | None:
        """The club evening's table whose match this is, if any (its page then draws the evening's panel)."""
        return club.table_of_match(self.match.id)

    @cached_property
    def result_counted(self) -> bool:
        """Whether this is a club table's match whose result counts: it takes no more writes, the arbiter decides."""
        return self.club_table is not None and self.club_table.state in COUNTED

    @cached_property
    def scorekeeper(self) -> bool:
        """Whether this phone holds the pencil."""
        return is_scorekeeper(self.match)

    @cached_property
    def manages_seats(self) -> bool:
        """Whether this phone manages the match's seats (follows who sits where, renews the seat link): the
        scorekeeper's or a host's."""
        return self.scorekeeper or is_host()

    @cached_property
    def may_free(self) -> bool:
        """Whether this phone frees a seat and lets a freed phone back in: one that manages the seats; at a club
        evening's table a host's alone (the pencil's phone, freeing the other side's, would confirm its own result)."""
        return is_host() or (self.club_table is None and self.scorekeeper)

    @cached_property
    def _token(self) -> str | None:
        """The pencil token of this match this phone keeps without holding the pencil (it held it once)."""
        return None if self.scorekeeper else pencil_token(self.match)

    @cached_property
    def pencil_elsewhere(self) -> bool:
        """Whether this phone held the pencil once: it is told where the pencil went."""
        return self._token is not None

    @cached_property
    def may_reclaim(self) -> bool:
        """Whether this phone started the match, and may take its pencil back."""
        return self._token is not None and queries.is_owner(self.match, self._token)

    @cached_property
    def my_seat(self):
        """The seat this phone took, whose own part the page shows."""
        return queries.seat_of(self.match, phone_credential())

    @cached_property
    def my_row(self):
        """The row (player or pair) of this phone's seat."""
        return None if self.my_seat is None else queries.row_of(self.match, self.my_seat)

    @cached_property
    def sent_rows(self) -> dict:
        """The rows the seated phones sent of the round being played, read where the page draws them: the
        scorekeeper's entry gathers them, a seated phone's shows its own as it sent it."""
        return queries.sent_rows(self.match) if self.scorekeeper or self.my_seat is not None else {}

    @cached_property
    def partner_sent(self):
        """The row another phone of this seat's side sent (a Burraco partner's), or None: this phone is told of it."""
        seat, row = self.my_seat, self.my_row
        sent = self.sent_rows.get(row) if seat is not None and row is not None else None
        return sent if sent is not None and sent.sender and sent.sender != seat.name else None

    @cached_property
    def _fields(self) -> tuple[MultiDict, Any]:
        """The entry tool's fields and the form the page shows: with the rows sent in, where the scorekeeper's
        entry holds nothing of them (or `replacing` names them) or a seated phone's sends nothing back; the
        correction of a round already saved (`editing`) is no place for them."""
        sent, form, row = self.sent_rows, self._sent_back, self.my_row
        fields = entry_form(self.match, form, self.my_seat)
        if self.scorekeeper and sent and not self._editing:
            fields = form = self.game.entry.with_sent_rows(fields, sent, self._replacing)
        elif row is not None and form is None and row in sent:
            fields = form = self.game.entry.with_sent_rows(fields, {row: sent[row]})
        return fields, form

    @cached_property
    def form(self):
        """The entry's fields as the page shows them."""
        return self._fields[1] or {}

    @cached_property
    def entry(self) -> dict[str, Any]:
        """The state of the game's round-entry tool."""
        return self.game.entry.step(self._fields[0], self._replay)

    @cached_property
    def entry_shows(self) -> str:
        """The word for what this phone's entry shows, which its live poll sends back."""
        match, number = self.match, len(self.match.rounds) + 1
        return entry_shows(
            match.status,
            self.scorekeeper,
            self.pencil_elsewhere,
            self.may_reclaim,
            # Drawn again once the round is saved, or once its partner's phone sent the pair's row (its revision).
            seat_round=None if self.my_seat is None else _seat_round(number, self.partner_sent),
            # Where the last row sent saves the round, the scorekeeper's entry moves on with it.
            pencil_round=number if match.save_when_rows_in else None,
            board=_board_taps(match, self.game, self.my_seat, self.scorekeeper),
        )

    @cached_property
    def host(self) -> bool:
        """Whether this phone has host rights."""
        return is_host()

    @cached_property
    def may_play_again(self) -> bool:
        """Whether the page offers Play again."""
        return self.match.status != PLAYING and may_play_again(self.match)

    @cached_property
    def rows_waiting(self) -> list:
        """The rows the scorekeeper's entry still waits for from the seats."""
        if not (self.scorekeeper and self.game.entry.rows_from_seats):
            return []
        return queries.rows_waiting(self.match, self.sent_rows)

    @cached_property
    def sent_fields(self) -> dict:
        """What the scorekeeper's entry widget fills each row in with, as a poll brings it (its data-sent-rows)."""
        if not self.scorekeeper:
            return {}
        fields = self.game.entry.row_fields
        return {
            position: {"fields": fields(row.data, position), "rev": row.revision, "by": row.label or gettext("a phone")}
            for position, row in self.sent_rows.items()
        }

    def result_card(self) -> CardText | None:
        """Every word of the match's result card, in the page's language, from the page's replay: the sides best
        first (those that share a place in their seat order), the winners, the game's highlight. None for a match
        being played, or ended by the host before its game's rules ended it: it has no result to tell."""
        match, game, replay, standings = self.match, self.game, self._replay, self.standings
        if not match.is_over:
            return None
        places = game.final_ranks(standings.totals)
        members: dict[str, list[str]] = {side: [] for side in standings.totals}
        for player in replay.players:
            side = game.side_of(replay.settings, player)
            if side != player:
                members[side].append(player)
        best_first = sorted(standings.totals.items(), key=lambda item: places[item[0]])
        # A side still named as the form offered it ("Us") in the page's language ("Noi"), as the page shows it:
        # in its line, among the winners and in the highlight ("Hand 4 closed by Noi").
        winners, highlight = [shown_name(side) for side in standings.winners], game.entry.highlight(replay)
        if highlight is not None:
            named = {key: shown_name(v) if isinstance(v, str) else v for key, v in highlight.params.items()}
            highlight = Message(highlight.text, named, highlight.plural)
        finished = match.finished_at or (match.rounds[-1].created_at if match.rounds else match.started_at)
        return CardText(
            game=game.name,
            date=day(finished),
            side_heading=gettext("Team") if any(members.values()) else gettext("Player"),
            total_heading=translated(game.entry.total_word),
            rows=tuple(CardRow(str(places[side]), shown_name(side), " & ".join(members[side]), str(total),
                               side in standings.winners) for side, total in best_first),  # fmt: skip
            winners=ngettext("Winner: %(names)s", "Winners: %(names)s", len(winners), names=", ".join(winners)),
            highlight=translated(highlight) if highlight is not None else None,
            footer=gettext("Table companion"),
            colour=game_colour(current_app.static_folder or "", match.game),
        )

    @cached_property
    def chances(self):
        """The chances to win before the first round (None after it), from the ratings as the writes keep them."""
        match = self.match
        return None if match.rounds or match.status != PLAYING else match_chances(match)


def match_or_404(match_id: int) -> Match:
    """The match with this id, whose page a view draws, or a 404 page."""
    match = queries.find_match(match_id)
    if match is None:
        abort(404)
    return match


def may_play_again(match: Match) -> bool:
    """Whether this phone may start the match again, with the same players: its pencil, the host, or the phone
    that started it (a host who ends a match takes its pencil away, not its scorekeeper's place at the table).
    Never at a club evening's table: the evening draws the next match."""
    return (is_scorekeeper(match) or is_host() or is_owner(match)) and club.table_of_match(match.id) is None


def entry_form(match: Match, form=None, my_seat=None) -> MultiDict:
    """The fields a game's entry tool works from: what the page sent, and under `kept` the state
    the server keeps for the next round (JSON, null when none), never what a page sent as it; where
    seated phones are boards, under BOARD_FIELD what this phone (seated at `my_seat`) may see of their hands."""
    fields = MultiDict(form or {})
    fields.poplist(KEPT_FIELD)
    fields.poplist(BOARD_FIELD)
    fields[KEPT_FIELD] = json.dumps(_kept_state(match), ensure_ascii=False)
    if get_game(match.game).entry.seat_boards:
        fields[BOARD_FIELD] = json.dumps(queries.seat_board(match, my_seat), ensure_ascii=False)
    return fields


def _kept_state(match: Match):
    """The state the entry tool keeps for the round being played (None when none)."""
    kept = match.round_in_progress
    return kept.get("state") if kept and kept.get("number") == len(match.rounds) + 1 else None


def entry_shows(
    status: str,
    scorekeeper: bool = False,
    elsewhere: bool = False,
    may_reclaim: bool = False,
    seat_round: int | str | None = None,
    pencil_round: int | None = None,
    board: str | None = None,
) -> str:
    """What a phone's entry shows, in a word its live poll sends back: when the pencil, the phone's seat, the
    round a seated phone enters its row of (or the scorekeeper's, where the seats' rows save rounds too), the
    boards' taps (`board`, where seated phones play their own turns), or the match's status moves, the answer
    to the poll draws the entry again (`live.live`)."""
    if status != PLAYING:
        return status
    if scorekeeper:
        word = "pencil" if pencil_round is None else f"pencil-{pencil_round}"
    elif elsewhere:
        word = "reclaim" if may_reclaim else "elsewhere"
    else:
        word = "viewer" if seat_round is None else f"seat-{seat_round}"
    return word if board is None else f"{word}-{board}"


def _seat_round(number: int, partners) -> int | str:
    """The round a seated phone enters, marked with the revision of the row its partner sent."""
    return number if partners is None else f"{number}-{partners.revision}"


def _board_taps(match: Match, game, my_seat, scorekeeper: bool) -> str | None:
    """Where seated phones play their own turns, a word for the taps made so far in the round being played (and
    the hands noted): a tap on one board draws the other board and the scorekeeper's calculator again."""
    if not game.entry.seat_boards or not (scorekeeper or my_seat is not None):
        return None
    if not any(seat.phone for seat in match.seats):
        return None
    seen = [_kept_state(match), [len(seat.hand or ()) for seat in match.seats]]
    return format(zlib.crc32(json.dumps(seen, sort_keys=True).encode()), "x")
