"""Which group a request works in: decided here, once for every request, before any view runs.

On an open server (the laptop at the table, `COMPANION_GROUPS=open`) every phone is part of its one
group. On a private server a phone works in the group it chose among those it joined (the `group`
cookie, else the first it joined); what a phone reaches, in none of them or by a match's link, is what
the roles its view declares let it (web/access.py). Whatever it may not reach is a 404, the answer of an
address that does not exist. The group decided is entered for the request's whole span
(`models.enter_group`): every ORM read of players and matches sees that group's rows alone.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from flask import Flask, Response, abort, current_app, g, request, session
from itsdangerous import BadSignature, Signer
from sqlalchemy import select

from ..extensions import db
from ..games.forms import whole_number
from ..games.refusals import N_
from ..models import ID_MAX, OPEN_GROUP_ID, Group, Match, Member, Seat, enter_group, leave_group, utcnow, within_group
from ..models.club import ClubEvening
from ..queries.groups import first_membership, membership, moved_at
from ..queries.matches import hash_token
from ..services.groups import MOVED_PHONE_GRACE, move_phone, new_phone_credential, seen
from . import access, cookies
from .access import CARDS_KEY, EVERYONE, FOLLOWING, HALL_KEY, HOLDING, OPEN, PRIVATE, SEAT_KEY, SHARED, Role, declared
from .i18n import translated
from .pencil import holds_a_token_of, holds_a_token_of_any

PHONE_COOKIE = "phone"
GROUP_COOKIE = "group"
# A group id no group has: a phone in no group reads no row.
NO_GROUP = 0
# The viewer links a phone opened, newest last: it may follow those matches while the list keeps them.
FOLLOWING_KEPT = 20

# The seat links a phone opened, by match, newest last (as FOLLOWING_KEPT): it may sit down again without
# scanning the link once more, while the link is current.
SEAT_KEYS_KEPT = 20
# How many earlier seat links of a match (hall links of an evening) are told apart from a made-up key: a phone
# that opens one is told that it was replaced.
LINKS_RECOGNISED = 100
CURRENT, REPLACED = "current", "replaced"
# Why a renewed seat link seats nobody (views/seats.py says it too, to a phone already following the match).
REPLACED_TEXT = N_("This seat link was replaced by a newer one: scan the one the scorekeeper's Share page shows now.")
HALL_REPLACED_TEXT = N_("This hall link was replaced by a newer one: ask the host for the link of tonight.")


@dataclass
class Place:
    """Where this request stands: its group, the phone's membership of it, and a match it only follows."""

    group_id: int
    member: Member | None = None
    following: int | None = None
    # A club evening this phone reaches by a table card (the card itself: True), though not of the group.
    evening: int | bool | None = None


def private() -> bool:
    """Whether this server keeps each group's data to its members."""
    return current_app.config["SETTINGS"].private_groups


def _signer(app: Flask | None = None) -> Signer:
    """Signs the credentials this server makes, with a key derived from its secret key (salted for this use)."""
    return _signer_of(str((app or current_app).config["SECRET_KEY"]))


@lru_cache(maxsize=4)
def _signer_of(secret: str) -> Signer:
    """The signer of one secret key, made once (the live-poll middleware asks it on every poll)."""
    return Signer(secret, salt="phone-credential", digest_method=hashlib.sha256)


def signed_credential(value: str | None, app: Flask | None = None) -> str | None:
    """The credential a cookie's value carries, if this server signed it; None for anything else."""
    if not value:
        return None
    try:
        return _signer(app).unsign(value).decode()
    except BadSignature:
        return None


def _held(credential: str) -> bool:
    """Whether a membership (host rights included) or a seat holds this credential."""
    hashed = hash_token(credential)
    held = select(Member.id).where(Member.phone == hashed).union_all(select(Seat.id).where(Seat.phone == hashed))
    return db.session.execute(held.limit(1)).first() is not None


def _successor(old: str) -> str:
    """The credential a previous version's (unsigned) one moves to: an HMAC of it under a key derived from the
    secret key, so each of the phone's requests that still carry the old one is given the same new one, which
    the server never has to store."""
    secret = str(current_app.config["SECRET_KEY"]).encode()
    key = hmac.new(secret, b"moved-phone-credential", hashlib.sha256).digest()
    return base64.urlsafe_b64encode(hmac.new(key, old.encode(), hashlib.sha256).digest()).rstrip(b"=").decode()


def _moved(old: str) -> str | None:
    """The new credential of a phone that shows a previous version's (unsigned) one: on the first request that
    shows it where a membership or a seat holds it, everything it holds is moved to a new one; within
    `MOVED_PHONE_GRACE` of that, the same again (the phone's other requests, sent at once); else None."""
    if _held(old):
        move_phone(old, _successor(old))
        return _successor(old)
    when = moved_at(old)
    if when is not None and utcnow() - when <= MOVED_PHONE_GRACE:
        return _successor(old)
    return None


def _read_phone_credential() -> str | None:
    """The phone's credential, as its cookie carries it, if the server issued it.

    A value this server signed is its own. An unsigned one (what the previous version set, a credential still
    held after a change of the secret key) that a membership or a seat holds is moved, on its first request, to
    a new credential signed in its cookie with this answer (`_moved`): the old value is then good only for a
    few seconds more, so that it cannot be carried to another phone and planted there. Anything else is a
    value the server never issued (planted, made up): ignored, so that nothing is ever bound to it
    (`give_phone_credential` makes a new one instead).
    """
    new_name = cookies.name(PHONE_COOKIE)
    value = request.cookies.get(new_name)
    if value is None:
        value = cookies.previous(PHONE_COOKIE)
        g.phone_moved = value is not None
    credential = signed_credential(value)
    if credential is not None:
        if g.get("phone_moved"):
            g.phone_to_set = credential
        return credential
    if not value or not value.isascii() or len(value) > 200:
        return None
    unsigned = value.rsplit(".", 1)[0] if "." in value else value
    moved = _moved(unsigned)
    if moved is not None:
        g.phone_to_set = moved
        return moved
    g.phone_refused = True
    return None


def phone_credential() -> str | None:
    """The phone's own credential, if it has one the server issued (see `_read_phone_credential`)."""
    if "phone" not in g:
        g.phone = _read_phone_credential()
    return g.phone or g.get("new_phone")


def seated_as() -> list[str]:
    """The hashes of the credentials this browser took seats with (its session keeps them, `remember_seated`): a
    phone freed from a seat that drops its phone cookie for a new credential, keeping the session that holds the
    seat link's key, is still the phone kept out."""
    return [hashed for hashed in session.get("sat_as", []) if isinstance(hashed, str)]


def remember_seated(credential: str) -> None:
    """This browser took a seat with this credential (the last three are kept)."""
    hashed = hash_token(credential)
    session["sat_as"] = [*(earlier for earlier in seated_as() if earlier != hashed), hashed][-3:]


def give_phone_credential() -> str:
    """The phone's credential, made now (and set in its cookie with the answer) when it has none the server
    issued: a cookie planted beforehand is replaced before anything is bound to it, and a phone that has one
    keeps it, in whatever group it joins."""
    credential = phone_credential()
    if not credential:
        credential = g.new_phone = new_phone_credential()
    return credential


def place() -> Place:
    """Where this request stands; before (or without) the decision, as for an error page: the open
    server's group, or on a private server no group."""
    return g.get("place") or Place(NO_GROUP if private() else OPEN_GROUP_ID)


def phone_label() -> str:
    """What a phone is, for its group's list of phones: its browser and system, as its User-Agent says."""
    agent = request.user_agent.string
    browser = next((name for name in ("Edg", "Firefox", "SamsungBrowser", "Chrome", "Safari") if name in agent), "")
    system = next((name for name in ("Android", "iPhone", "iPad", "Windows", "Mac OS", "Linux") if name in agent), "")
    names = {"Edg": "Edge", "SamsungBrowser": "Samsung Internet", "Mac OS": "macOS"}
    words = [names.get(browser, browser), names.get(system, system)]
    return " · ".join(word for word in words if word)[:80]


def current_member() -> Member | None:
    """This phone's membership of the request's group, read once and only when asked on an open server."""
    here = place()
    if here.member is None and not private() and "open_member" not in g:
        g.open_member = membership(OPEN_GROUP_ID, phone_credential())
        here.member = g.open_member
    return here.member


def is_host() -> bool:
    """Whether this phone is a host of the request's group (its own rights, kept with its credential)."""
    member = current_member()
    return member is not None and member.host


def current_group() -> Group | None:
    """The request's group as a row (its name for the header), or None for a phone in no group."""
    here = place()
    if here.group_id == NO_GROUP:
        return None
    if "group_row" not in g:
        g.group_row = db.session.get(Group, here.group_id)
    return g.group_row


def is_member() -> bool:
    """Whether this phone reads and scores in the request's group (every phone does on an open server)."""
    return not private() or place().member is not None


def reads_evening(evening_id: int) -> bool:
    """Whether this phone may open the evening's standings: a member, or a phone that scanned one of its cards (a
    viewer link opens its match's table, not the evening)."""
    return is_member() or _keeps("e", evening_id, "evenings")


def _keyed(text: str, length: int = 32) -> str:
    """A digest of `text` under the secret key: what no one without the key can make or read back."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()[:length]


def follow_token(uid: str) -> str:
    """What a match's viewer link carries: made from its uid under the secret key, so it cannot be guessed."""
    return _keyed(f"follow:{uid}")


def seat_token(uid: str, generation: int) -> str:
    """What a match's seat link carries: made from its uid and the link's generation (`Match.seat_link`) under
    the secret key, another text than the viewer link's, so holding one tells nothing of the other."""
    return _keyed(f"seat:{uid}:{generation}")


def hall_token(public_id: str, generation: int) -> str:
    """What an evening's hall link carries: made from its address and the link's generation
    (`ClubEvening.hall_link`) under the secret key, so renewing the link ends the old one at once."""
    return _keyed(f"hall:{public_id}:{generation}")


def _same(given: str, expected: str) -> bool:
    """Whether a token sent is the one expected, compared in constant time."""
    return given.isascii() and hmac.compare_digest(given.encode(), expected.encode())


def _link_state(key: str | None, generation: int, token: Callable[[int], str]) -> str | None:
    """Whether a renewable link's key is its current one (CURRENT), one it had before (REPLACED), or none."""
    if not key:
        return None
    if _same(key, token(generation)):
        return CURRENT
    earliest = max(0, generation - LINKS_RECOGNISED)
    if any(_same(key, token(older)) for older in range(earliest, generation)):
        return REPLACED
    return None


def seat_key_state(uid: str, generation: int, key: str | None) -> str | None:
    """Whether a seat link's key is the match's current one (CURRENT), one it had before (REPLACED), or none."""
    return _link_state(key, generation, lambda older: seat_token(uid, older))


def hall_key_state(evening: ClubEvening) -> str | None:
    """Whether the request's hall link key is the evening's current one (CURRENT), a renewed one (REPLACED), or
    none; a renewed one is refused saying so."""
    key = request.args.get(HALL_KEY)
    state = _link_state(key, evening.hall_link, lambda older: hall_token(evening.public_id, older))
    if state == REPLACED:
        abort(404, translated(HALL_REPLACED_TEXT))
    return state


def _kept_as(kind: str, row_id: int) -> str:
    """How the session names a row it keeps (a match followed, an evening whose card was scanned): a keyed digest
    of it, as a signed cookie is readable and a row's number would tell how many rows a server holds."""
    return _keyed(f"kept-{kind}-{row_id}", 20)


def _keeps(kind: str, row_id: int, key: str) -> bool:
    """Whether the session's list `key` keeps this row (or its number: a session from before the digests)."""
    kept = session.get(key, [])
    return _kept_as(kind, row_id) in kept or row_id in kept


def _keep(kind: str, row_id: int, key: str) -> None:
    """The session's list `key` keeps this row, its newest FOLLOWING_KEPT kept."""
    if not _keeps(kind, row_id, key):
        session[key] = [*session.get(key, []), _kept_as(kind, row_id)][-FOLLOWING_KEPT:]


def seat_key(match: Match) -> str | None:
    """The seat link's key this phone shows for the match: the request's (the link, or the picker's form), else
    the one the session kept when the phone opened the link; a current key sent is kept for the next time."""
    sent = request.values.get(SEAT_KEY)
    kept, name = session.get("seat_keys", {}), _kept_as("m", match.id)
    if not sent:
        return kept.get(name, kept.get(str(match.id)))
    if seat_key_state(match.uid, match.seat_link, sent) == CURRENT and kept.get(name) != sent:
        kept = {other: key for other, key in kept.items() if other not in (name, str(match.id))}
        session["seat_keys"] = dict([*kept.items(), (name, sent)][-SEAT_KEYS_KEPT:])
    return sent


def _followed_match(match_id: int | None, key_name: str | None) -> int | None:
    """The group of a match this phone follows by a viewer link or its seat link (opened now, or before: the
    session keeps it), else None. Read only when the phone shows such a link: a member's own pages cost
    nothing more. A seat link renewed since it was printed opens nothing, and says so."""
    token = request.args.get("follow")
    key = request.values.get(key_name) if key_name else None
    followed = match_id is not None and _keeps("m", match_id, "following")
    if match_id is None or (not followed and not token and not key):
        return None
    found = db.session.execute(
        select(Match.group_id, Match.uid, Match.seat_link).where(Match.id == match_id)
    ).one_or_none()
    if found is None:
        return None
    if not followed:
        if token and _same(token, follow_token(found.uid)):
            pass
        else:
            state = seat_key_state(found.uid, found.seat_link, key)
            if state == REPLACED:
                abort(403, translated(REPLACED_TEXT))
            if state != CURRENT:
                return None
        _keep("m", match_id, "following")
    return found.group_id


def follow_evening(evening_id: int) -> None:
    """This phone may read the evening's standings from now on (it came by one of its table cards)."""
    _keep("e", evening_id, "evenings")


def follow_match(match_id: int) -> None:
    """This phone may follow the match from now on (its next turn's table, to which the evening seated it)."""
    _keep("m", match_id, "following")


def _followed_evening(evening_id: int | None, cards_key: str | None) -> tuple[int | bool | None, int | None]:
    """The evening (True: the card's own page) and group a phone reaches by a table card: the card's key, or an
    evening whose card it scanned before (the session keeps it); (None, None) for anything else."""
    if cards_key is not None:
        group = db.session.execute(select(Group.id).where(Group.cards_key == cards_key)).scalar()
        return (True, group) if group is not None else (None, None)
    if evening_id is None or not _keeps("e", evening_id, "evenings"):
        return None, None
    with within_group(None):
        group = db.session.execute(select(ClubEvening.group_id).where(ClubEvening.id == evening_id)).scalar()
    return (evening_id, group) if group is not None else (None, None)


def _held_match(match_id: int | None) -> int | None:
    """The group of the match whose pencil this phone keeps a token of, else None (its view checks the token)."""
    if match_id is None or not holds_a_token_of_any():
        return None
    found = db.session.execute(select(Match.group_id, Match.uid).where(Match.id == match_id)).one_or_none()
    return found.group_id if found is not None and holds_a_token_of(found.uid) else None


def _hall_evening(evening_id: int | None) -> tuple[int | None, int | None]:
    """The evening and group a phone reaches by the evening's hall link (its key in the address, never kept:
    a renewed link opens nothing from its next request on); (None, None) for anything else."""
    if evening_id is None or not request.args.get(HALL_KEY):
        return None, None
    with within_group(None):
        evening = db.session.get(ClubEvening, evening_id)
    if evening is None or hall_key_state(evening) != CURRENT:
        return None, None
    return evening_id, evening.group_id


def _private_place(roles: tuple[Role, ...]) -> Place:
    """A private server's decision: a match the phone follows by a link the view's roles take (of a group it
    is not working in), else its chosen group, else the first it joined, else no group."""
    credential = phone_credential()
    chosen = cookies.get(GROUP_COOKIE)
    member = membership(whole_number(chosen, ID_MAX), credential)
    if member is None:
        member = first_membership(credential)
    links = [role for role in roles if role.reach == FOLLOWING]
    if links:
        args = request.view_args or {}
        match_id = args.get("match_id")
        group = _followed_match(match_id, next((role.key for role in links if role.key), None))
        if group is not None and (member is None or member.group_id != group):
            return Place(group, following=match_id)
        keys = {role.key for role in links}
        evening, group = None, None
        if CARDS_KEY in keys:
            evening, group = _followed_evening(args.get("evening_id"), args.get(CARDS_KEY))
        if HALL_KEY in keys and group is None:
            evening, group = _hall_evening(args.get("evening_id"))
        if group is not None and (member is None or member.group_id != group):
            return Place(group, evening=evening)
    if any(role.reach == HOLDING for role in roles):
        match_id = (request.view_args or {}).get("match_id")
        group = _held_match(match_id)
        if group is not None and (member is None or member.group_id != group):
            return Place(group, following=match_id)
    if member is None:
        return Place(NO_GROUP)
    seen(member)
    return Place(member.group_id, member)


def _decide() -> None:
    """Enter the request's group, or refuse what the roles the view declares (web/access.py) do not let this
    phone reach: a 404, the answer of an address that does not exist; a 403 for a role it does not hold."""
    # An address no route answers is answered as to a member (its group's 404 or 405 page).
    roles = declared(current_app.view_functions.get(request.endpoint)) if request.url_rule else (access.member,)
    reaches = {role.reach for role in roles}
    server = PRIVATE if private() else OPEN
    if not reaches - {None} or any(server not in role.servers for role in roles):
        abort(404)
    if server == OPEN:
        g.place = Place(OPEN_GROUP_ID)
    elif SHARED in reaches:
        g.place = Place(NO_GROUP)
    else:
        g.place = _private_place(roles)
        if g.place.member is None and g.place.following is None and not g.place.evening and EVERYONE not in reaches:
            abort(404)
    g.group_token = enter_group(g.place.group_id)
    proofs = [role for role in roles if role.reach]
    if all(role.holds for role in proofs) and not any(role.holds(current_member()) for role in proofs):
        abort(403, translated(proofs[0].refusal[server]))


def streamed(chunks: Iterator[str]) -> Iterator[str]:
    """An answer's chunks written in the request's group: a streamed answer is written after the request
    has ended (and left its group), so the reads of its chunks enter that group again."""
    group_id = place().group_id
    with within_group(group_id):
        yield from chunks


def _leave(_error: BaseException | None) -> None:
    """Leave the request's group once the answer is sent."""
    token = g.pop("group_token", None)
    if token is not None:
        leave_group(token)


def _set_phone_cookie(response: Response) -> Response:
    """A credential made during the request, or one moved from the previous version's cookie, goes to the
    phone's cookie, signed, for a year (the previous cookie is deleted)."""
    made = g.get("new_phone") or g.get("phone_to_set")
    if made:
        cookies.put(response, PHONE_COOKIE, _signer().sign(made).decode())
    elif g.get("phone_refused") and not g.get("phone_moved"):
        cookies.remove(response, PHONE_COOKIE)
    if g.get("phone_moved"):
        cookies.forget_previous(response, PHONE_COOKIE)
    return response


def choose_group(response: Response, group_id: int) -> Response:
    """The phone works in this group from its next request on."""
    return cookies.put(response, GROUP_COOKIE, str(group_id))


def forget_group(response: Response) -> Response:
    """The phone has no group chosen any more (it left the one it had)."""
    return cookies.remove(response, GROUP_COOKIE)


def init_app(app: Flask) -> None:
    """Decide every request's group before its view; leave it when the request ends."""
    app.before_request(_decide)
    app.teardown_request(_leave)
    app.after_request(_set_phone_cookie)
