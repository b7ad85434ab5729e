"""Burraco PAROLE: hand scores from words laid down, burraco bonuses and the closing, to 1005."""

from __future__ import annotations

from typing import Any, ClassVar

from ..base import Game, RecordSums, Replay, Tally
from ..checks import NAME_MAX, items, mapping, name_key, per_name, resolve, show, whole
from ..refusals import N_, RuleError
from ..settings import Setting


def hand_score(entry: dict[str, int], closed: bool, settings: dict[str, Any]) -> int:
    """One side's score for a hand: table minus hand, plus burraco and closing bonuses."""
    return (
        entry["table"]
        - entry["hand"]
        + entry["clean"] * settings["clean"]
        + entry["dirty"] * settings["dirty"]
        + (settings["closing"] if closed else 0)
    )


class Burraco(Game):
    """2 to 5 players alone, or 4 in two pairs seated opposite; first to the target wins."""

    slug = "burraco"
    name = "Burraco PAROLE"
    min_players = 2
    max_players = 5
    # Drawn by the game's own _settings.html: keypad fields with steppers, the hand limit beside its "No limit"
    # box, posted under the names the form has always used.
    declared: ClassVar[tuple[Setting, ...]] = (
        # No target (null): the match is played to its number of hands, as a club evening's turn is.
        Setting("target", 1005, N_("the target"), lo=1, optional=True, drawn=False, field="burraco_target"),
        Setting("hands", 4, N_("the number of hands"), lo=1, optional=True, drawn=False, field="burraco_hands"),
        Setting("clean", 200, N_("the clean burraco bonus"), lo=0, drawn=False, field="burraco_clean"),
        Setting("dirty", 100, N_("the dirty burraco bonus"), lo=0, drawn=False, field="burraco_dirty"),
        Setting("closing", 100, N_("the closing bonus"), lo=0, drawn=False, field="burraco_closing"),
    )
    # The pairs (null: each alone) are team names with their members, no kind of Setting: see normalise_settings.
    hand_written: ClassVar[dict[str, Any]] = {"teams": None}

    def normalise_settings(self, settings: dict[str, Any], players: list[str]) -> dict[str, Any]:
        """The declared settings checked (the hand limit null for none), then the optional pairs."""
        checked = super().normalise_settings(settings, players)
        if checked["target"] is None and checked["hands"] is None:
            raise RuleError(N_("a match without a target needs a number of hands, or it never ends"), field="target")
        teams = settings["teams"]
        return {**checked, "teams": None if teams is None else _teams(teams, players)}

    def settings_with_players_renamed(self, settings: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
        """The declared settings' players renamed, and the pairs' partners (the teams keep their names)."""
        settings = super().settings_with_players_renamed(settings, renamed)
        teams = settings.get("teams")
        if not teams:
            return settings
        return {**settings, "teams": {team: [renamed.get(name, name) for name in members]
                                      for team, members in teams.items()}}  # fmt: skip

    def sides(self, players: list[str], settings: dict[str, Any]) -> list[str]:
        """The players, or the two team names in seat order (the team of seat 1 first)."""
        teams = settings.get("teams")
        return list(teams) if teams else list(players)

    def normalise_round(self, players: list[str], settings: dict[str, Any], round: dict[str, Any]) -> dict[str, Any]:
        """Every side's table, hand and burraco counts, and who closed.

        The closing side needs a burraco; playing alone it also holds nothing. In pairs the
        closer's partner may still hold cards, which count against the pair like anyone's.
        """
        sides = self.sides(players, settings)
        if "sides" not in round:
            raise RuleError(N_("missing; every side needs an entry"), field="sides")
        entries = {
            side: _entry(side, entry) for side, entry in per_name(round["sides"], sides, "sides", N_("side")).items()
        }
        closer = round.get("closed_by")
        if closer is not None:
            closer = resolve(closer, sides, "closed_by")
            if entries[closer]["clean"] + entries[closer]["dirty"] < 1:
                raise RuleError(N_("closed the hand without having made a burraco"), field=closer)
            # A pair's entry is one line for both partners, so its "hand" is the partner's
            # cards when the closer has none left: only a player alone can be held to 0.
            if entries[closer]["hand"] != 0 and not settings.get("teams"):
                raise RuleError(
                    N_("closed the hand but holds %(n)s points in hand (must be 0)", n=entries[closer]["hand"]),
                    field=closer,
                )
        return {"sides": entries, "closed_by": closer}

    def score_round(
        self, tally: Tally, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """Add each side's hand score to its total."""
        scores = {
            side: hand_score(entry, side == round["closed_by"], settings) for side, entry in round["sides"].items()
        }
        for side, score in scores.items():
            tally.totals[side] += score
        return {"scores": scores}

    def is_over(self, tally: Tally, settings: dict[str, Any]) -> bool:
        """Over when a side reaches the target, or after the last hand of the limit."""
        limit, target = settings["hands"], settings["target"]
        reached = target is not None and max(tally.totals.values()) >= target
        return reached or (limit is not None and len(tally.rounds) >= limit)

    def side_of(self, settings: dict[str, Any], player: str) -> str:
        """A player's team when the match is played in pairs, else the player."""
        for team, members in (settings.get("teams") or {}).items():
            if player in members:
                return team
        return player

    def dealer(self, replay: Replay) -> str | None:
        """Who deals the hand after a replayed match (None once it is over)."""
        if replay.over:
            return None
        return replay.players[len(replay.rounds) % len(replay.players)]

    def record_figures(self, record: RecordSums) -> dict[str, Any]:
        """The average hand score."""
        return {"average_hand": round(record.score_sum / record.score_count)} if record.score_count else {}


def _entry(side: str, entry: Any) -> dict[str, Any]:
    """One side's line of a hand, every count a whole number of at least 0."""
    entry = mapping(entry, N_("an entry"), field=side)
    try:
        if "table" not in entry or "hand" not in entry:
            raise RuleError(N_('an entry needs "table" and "hand" points'))
        return {
            **entry,
            "table": whole(entry["table"], N_("table (points laid down)"), lo=0),
            "hand": whole(entry["hand"], N_("hand (points left in hand)"), lo=0),
            # A burraco count left out means none were made.
            "clean": whole(entry.get("clean", 0), N_("clean (clean burraco made)"), lo=0),
            "dirty": whole(entry.get("dirty", 0), N_("dirty (dirty burraco made)"), lo=0),
        }
    except RuleError as error:
        raise RuleError(error.message, field=side) from None


def _teams(value: Any, players: list[str]) -> dict[str, list[str]]:
    """Two teams of two covering the four players, partners opposite; in seat order."""
    teams = mapping(value, N_("the teams"), field="teams")
    if len(players) != 4:
        raise RuleError(N_("pairs need exactly 4 players, got %(n)s", n=len(players)), field="teams")
    if len(teams) != 2:
        raise RuleError(N_("there must be exactly two teams, got %(n)s", n=len(teams)), field="teams")
    team_of: dict[str, str] = {}
    names: list[str] = []
    for raw_name, members in teams.items():
        name = " ".join(str(raw_name).split())
        if not 1 <= len(name) <= NAME_MAX:
            raise RuleError(
                N_("a team name has 1 to %(max)s characters, got %(value)s", max=NAME_MAX, value=show(raw_name)),
                field="teams",
            )
        if names and name_key(names[0]) == name_key(name):
            raise RuleError(N_("the two teams need different names"), field="teams")
        names.append(name)
        members = items(members, N_("team %(name)s", name=name), field="teams")
        if len(members) != 2:
            raise RuleError(
                N_("team %(name)s must have 2 players, got %(n)s", name=name, n=len(members)), field="teams"
            )
        for member in members:
            player = resolve(member, players, "teams")
            if player in team_of:
                raise RuleError(N_("%(name)s is in two teams", name=player), field="teams")
            team_of[player] = name
    if team_of[players[0]] != team_of[players[2]]:
        raise RuleError(
            N_(
                "partners sit opposite, so the seat order must alternate the teams (%(seats)s does not)",
                seats=", ".join(f"{p} ({team_of[p]})" for p in players),
            ),
            field="teams",
        )
    first, second = team_of[players[0]], team_of[players[1]]
    return {first: [players[0], players[2]], second: [players[1], players[3]]}
