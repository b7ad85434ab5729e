"""A private server's database at scale: 10,000 small groups of 10 matches and a club of 10,000, built once.

The club is `flask seed` in the open group (group 1, on a private server a group like any other). The small
groups are one seeded group of 10 matches, copied 10,000 times by SQL (players, matches, seats, rounds,
records, rivalries, ratings, each copy's ids mapped to its own rows): generating 100,000 matches would take
some six minutes, copying them under one. The database is kept under the temporary folder, keyed by the
migrations, the seed and this file, so a second run reuses it.
"""

from __future__ import annotations

import hashlib
import secrets
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from .server import ROOT, seed

SMALL_GROUPS = 10_000
SMALL_MATCHES = 10
CLUB_MATCHES = 10_000
# The phones of the bench: a member of one small group (one in the middle of the ids), of the club, and of the
# one group of a private server of 100 matches (the baseline).
SMALL_PHONE, CLUB_PHONE, BASELINE_PHONE = "bench-small-group-phone", "bench-club-phone", "bench-baseline-phone"
SMALL_GROUP = 1 + SMALL_GROUPS // 2
CLUB_GROUP = 1
DB = "companion.sqlite"

# Each copied table: its columns written from another expression than the template's own column.
# `g` is the copy's group, `pm`/`pm2` map the template's players to the copy's, `mm` its matches.
# A copied player's or match's group, and its address: the group's number, then the template row's own random
# address cut to fit (addresses are unique).
IN_GROUP = {"group_id": "g.id", "public_id": "printf('%05d', g.id) || substr(x.public_id, 1, 6)"}
COPIED = {
    "player": ("FROM t.player x CROSS JOIN grp g ORDER BY g.id, x.id", IN_GROUP),
    "match": ("FROM t.match x CROSS JOIN grp g ORDER BY g.id, x.id", IN_GROUP),
    "seat": (
        "FROM t.seat x JOIN mmap mm ON mm.old = x.match_id JOIN pmap pm ON pm.grp = mm.grp AND pm.old = x.player_id",
        {"match_id": "mm.new", "player_id": "pm.new"},
    ),
    "round": ("FROM t.round x JOIN mmap mm ON mm.old = x.match_id", {"match_id": "mm.new"}),
    "player_record": (
        "FROM t.player_record x JOIN pmap pm ON pm.old = x.player_id"
        " LEFT JOIN mmap mm ON mm.grp = pm.grp AND mm.old = x.best_match_id",
        {"player_id": "pm.new", "best_match_id": "mm.new"},
    ),
    "rivalry": (
        "FROM t.rivalry x JOIN pmap pm ON pm.old = x.player_id"
        " JOIN pmap pm2 ON pm2.grp = pm.grp AND pm2.old = x.other_id",
        {"player_id": "pm.new", "other_id": "pm2.new"},
    ),
    "rating": ("FROM t.rating x JOIN pmap pm ON pm.old = x.player_id", {"player_id": "pm.new"}),
    "rating_step": (
        "FROM t.rating_step x JOIN pmap pm ON pm.old = x.player_id"
        " JOIN mmap mm ON mm.grp = pm.grp AND mm.old = x.match_id",
        {"player_id": "pm.new", "match_id": "mm.new"},
    ),
    "rating_book": (
        "FROM t.rating_book x CROSS JOIN grp g LEFT JOIN mmap mm ON mm.grp = g.id AND mm.old = x.last_match_id",
        {"group_id": "g.id", "last_match_id": "mm.new"},
    ),
}


def version() -> str:
    """What the built database depends on: the migrations, the seed and this file."""
    digest = hashlib.sha256(Path(__file__).read_bytes() + (ROOT / "companion" / "services" / "seed.py").read_bytes())
    for path in sorted((ROOT / "migrations" / "versions").glob("*.py")):
        digest.update(path.name.encode())
    return digest.hexdigest()[:12]


def cached(root: Path = ROOT) -> Path:
    """The big database's instance folder, built now if no run built it before."""
    folder = Path(tempfile.gettempdir()) / f"companion-bench-groups-{version()}"
    if not (folder / "built").exists():
        shutil.rmtree(folder, ignore_errors=True)
        build(folder, root)
        (folder / "built").write_text("")
    return folder


def build(folder: Path, root: Path = ROOT) -> None:
    """The club seeded, one small group seeded, copied into the 10,000 small groups; the two phones' memberships."""
    seed(folder, CLUB_MATCHES, root)
    template = folder / "template"
    seed(template, SMALL_MATCHES, root)
    db = sqlite3.connect(folder / DB, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("ATTACH ? AS t", (str(template / DB),))
    db.execute("BEGIN")
    db.execute("CREATE TEMP TABLE grp (id INTEGER PRIMARY KEY)")
    db.execute(
        "WITH RECURSIVE n(i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < ?) INSERT INTO grp SELECT i FROM n",
        (SMALL_GROUPS + 1,),
    )
    # A club has a table or two on at once, as the 100-match baseline has one, not the seed's 1 in 100 of
    # 10,000: the host ended the others (their status, as `services/matches.end_match` writes it).
    db.execute(
        "UPDATE match SET status = 'unfinished', finished_at = started_at, scorekeeper_hash = ''"
        " WHERE group_id = ? AND status = 'playing' AND id NOT IN"
        " (SELECT id FROM match WHERE group_id = ? AND status = 'playing' ORDER BY started_at DESC LIMIT 1)",
        (CLUB_GROUP, CLUB_GROUP),
    )
    db.execute("INSERT INTO play_group (id, name, created_at) SELECT id, 'Group ' || id, datetime('now') FROM grp")
    for table, (source, mapped) in COPIED.items():
        columns = [row[1] for row in db.execute(f'PRAGMA main.table_info("{table}")') if row[1] != "id"]
        names = ", ".join(f'"{c}"' for c in columns)
        values = ", ".join(mapped.get(c, f'x."{c}"') for c in columns)
        db.execute(f'INSERT INTO main."{table}" ({names}) SELECT {values} {source}')
        if table == "player":
            db.execute("CREATE TEMP TABLE pmap (grp INTEGER, old INTEGER, new INTEGER, PRIMARY KEY (old, grp))")
            db.execute("INSERT INTO pmap SELECT p.group_id, x.id, p.id FROM main.player p JOIN t.player x"
                       " ON x.key = p.key WHERE p.group_id > ?", (CLUB_GROUP,))  # fmt: skip
        if table == "match":
            db.execute("CREATE TEMP TABLE mmap (grp INTEGER, old INTEGER, new INTEGER, PRIMARY KEY (old, grp))")
            db.execute("INSERT INTO mmap SELECT m.group_id, x.id, m.id FROM main.match m JOIN t.match x"
                       " ON x.uid = m.uid WHERE m.group_id > ?", (CLUB_GROUP,))  # fmt: skip
    for group_id, phone in ((SMALL_GROUP, SMALL_PHONE), (CLUB_GROUP, CLUB_PHONE)):
        join(db, group_id, phone)
    db.execute("COMMIT")
    db.execute("DETACH t")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    shutil.rmtree(template)


def join(db: sqlite3.Connection, group_id: int, phone: str) -> None:
    """The phone (its `phone` cookie) made a host member of the group, as joining by an invite link makes it."""
    db.execute(
        "INSERT INTO member (group_id, phone, host, joined_at, last_seen, label, public_id)"
        " VALUES (?, ?, 1, datetime('now'), datetime('now'), 'bench', ?)",
        (group_id, hashlib.sha256(phone.encode()).hexdigest(), secrets.token_hex(6)[:11]),
    )


def baseline(folder: Path, root: Path = ROOT) -> Path:
    """One group of 100 matches, the baseline phone its member (served open, or private)."""
    seed(folder, 100, root)
    with sqlite3.connect(folder / DB) as db:
        join(db, CLUB_GROUP, BASELINE_PHONE)
    return folder


def copy(into: Path) -> Path:
    """A copy of the big database's instance folder to serve (the saves write to it)."""
    shutil.copytree(cached(), into, ignore=shutil.ignore_patterns("built", "*.lock"))
    return into


if __name__ == "__main__":
    print(cached(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT))
