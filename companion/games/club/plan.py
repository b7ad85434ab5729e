"""A club evening's plan as its host sets it (game, turns × hands, movements, scale, bye), checked; each turn drawn."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..checks import show, whole
from ..refusals import N_, RuleError
from . import clock, movements, scales
from .movements import Entrant, Turn

MITCHELL, DANESE, DANESE_MODIFICATO, ITALIANA, SWISS = "mitchell", "danese", "danese_modificato", "italiana", "swiss"
# The movements whose every turn is known from the entrants at the start (a schedule); the others pair by the
# standings of the turn before.
SCHEDULED = (MITCHELL, ITALIANA)
MOVEMENTS = (MITCHELL, DANESE, DANESE_MODIFICATO, ITALIANA, SWISS)
LATE_COSTS = ("points", "tournament points")
# A turn the clock cut short: its points converted pro rata over the turn's hands, or as they were played.
SHORT_TURNS = ("pro_rata", "as_played")
# The games an evening is played at, and whether in pairs (Burraco PAROLE two against two) or one against one.
GAMES = {"burraco": (True, False), "pazaak": (False,)}
MOST_TURNS = 12
MOST_HANDS = 10


@dataclass(frozen=True)
class Plan:
    """What the host set: the game, alone or in pairs, turns × hands (Pazaak: the sets to win a turn's match),
    the first turn's movement and the later turns', the groups of an all'italiana, the scale, a bye's
    tournament points and what lateness costs; the turn's minutes on the clock, the penalty of a table still
    playing when time is up (0: marked late for the arbiter alone) and how a turn cut short is converted."""

    game: str
    pairs: bool
    turns: int
    hands: int
    first: str
    then: str
    scale: scales.Scale
    bye_points: int = 12
    late_costs: str = "points"
    groups: int = 1
    turn_minutes: int = 35
    clock_penalty: int = 0
    short_turn: str = "pro_rata"

    def movement_of(self, number: int) -> str:
        """The movement that draws turn `number`."""
        return self.first if number == 1 else self.then

    def to_json(self) -> dict[str, Any]:
        """The plan as the evening keeps it (`from_json` reads it back)."""
        return {
            "first": self.first,
            "then": self.then,
            "groups": self.groups,
            "scale": {"plain": True} if self.scale.plain else self.scale.to_form(),
            "placeholder": self.scale.placeholder,
            "bye_points": self.bye_points,
            "late_costs": self.late_costs,
            "turn_minutes": self.turn_minutes,
            "clock_penalty": self.clock_penalty,
            "short_turn": self.short_turn,
        }


def from_json(game: str, pairs: bool, turns: int, hands: int, rules: Mapping[str, Any]) -> Plan:
    """The plan an evening keeps, as `Plan.to_json` wrote it."""
    scale = scales.from_form(rules["scale"])
    if rules.get("placeholder") and not scale.plain:
        scale = scales.banded(scale.bands, placeholder=True)
    return Plan(game, pairs, turns, hands, rules["first"], rules["then"], scale, rules["bye_points"],
                rules["late_costs"], rules.get("groups", 1), rules.get("turn_minutes", clock.default_minutes(hands)),
                rules.get("clock_penalty", 0), rules.get("short_turn", "pro_rata"))  # fmt: skip


def checked(raw: Mapping[str, Any], entrants: int) -> Plan:
    """A host's plan for `entrants` entrants, every part checked; a RuleError names the field that is wrong.

    `raw`: game, pairs, turns, hands, first, then, groups, scale (bands as `scales.from_form` reads them, a
    list; absent: the preset for the hands), bye_points, late_costs, turn_minutes, clock_penalty, short_turn.
    """
    game = raw.get("game")
    if game not in GAMES:
        raise RuleError(N_("an evening is played at %(games)s", games=", ".join(GAMES)), field="game")
    pairs = bool(raw.get("pairs"))
    if pairs not in GAMES[game]:
        raise RuleError(N_("this game is played one against one at an evening"), field="pairs")
    turns = whole(raw.get("turns"), N_("the number of turns"), lo=1, hi=MOST_TURNS, field="turns")
    hands = whole(raw.get("hands"), N_("the hands of a turn") if game == "burraco" else N_("the sets to win"),
                  lo=1, hi=MOST_HANDS, field="hands")  # fmt: skip
    first, then = (_movement(raw.get(key), key) for key in ("first", "then"))
    if first != then and then in SCHEDULED:
        raise RuleError(N_("a Mitchell or an all'italiana is the movement of the whole evening"), field="then")
    groups = whole(raw.get("groups", 1), N_("the groups"), lo=1, field="groups")
    bye_points = whole(raw.get("bye_points", 12), N_("a bye's tournament points"), lo=0, hi=scales.TOTAL,
                       field="bye_points")  # fmt: skip
    late_costs = raw.get("late_costs", "points")
    if late_costs not in LATE_COSTS:
        raise RuleError(N_("lateness costs points or tournament points, got %(value)s", value=show(late_costs)),
                        field="late_costs")  # fmt: skip
    minutes = whole(raw.get("turn_minutes", clock.default_minutes(hands)), N_("the turn's minutes"),
                    lo=clock.TURN_MINUTES[0], hi=clock.TURN_MINUTES[-1], field="turn_minutes")  # fmt: skip
    short_turn = raw.get("short_turn", "pro_rata")
    if short_turn not in SHORT_TURNS:
        raise RuleError(N_("unknown conversion %(value)s", value=show(short_turn)), field="short_turn")
    rows = raw.get("scale")
    if rows is not None:
        scale = scales.from_form(rows)
    else:  # the placeholder scale of this game and number of hands (Pazaak: by the sets' difference)
        scale = scales.preset(hands) if game == "burraco" else scales.preset_for_sets(hands)
    penalty = _clock_penalty(raw.get("clock_penalty", 0), late_costs, scale)
    plan = Plan(game, pairs, turns, hands, first, then, scale, bye_points, late_costs, groups, minutes, penalty,
                short_turn)  # fmt: skip
    # The movement must hold this many entrants and turns: the first turn drawn now (a schedule's every turn),
    # its refusal is the plan's.
    draw(plan, 1, list(range(entrants)), [])
    return plan


def _clock_penalty(value: Any, late_costs: str, scale: scales.Scale) -> int:
    """The penalty each side of a table still playing when time is up takes, in the unit lateness costs: the same
    points off both sides leave their difference, and so a banded scale's tournament points, as they were."""
    in_points = late_costs == "points"
    penalty = whole(value, N_("the penalty"), lo=0, hi=penalty_limit(late_costs, scale), field="clock_penalty")
    if penalty and in_points and not scale.plain:
        unchanged = N_("the same points off both sides change no tournament point: let lateness cost tournament "
                       "points, or mark the table late for the arbiter")  # fmt: skip
        raise RuleError(unchanged, field="clock_penalty")
    return penalty


def penalty_limit(late_costs: str, scale: scales.Scale) -> int:
    """The most a penalty may take: a turn's tournament points at the most where lateness costs those."""
    return scale.top if late_costs == "tournament points" and scale.top is not None else 100_000


def _movement(value: Any, field: str) -> str:
    if value not in MOVEMENTS:
        raise RuleError(N_("unknown movement %(value)s", value=show(value)), field=field)
    return value


def _schedule(plan: Plan, entrants: Sequence[Entrant], clubs: Mapping[Entrant, str] | None = None) -> list[Turn]:
    """Every turn of a scheduled movement (Mitchell, all'italiana) of these entrants."""
    turns = plan.turns if plan.then == plan.first else 1
    if plan.first == ITALIANA:
        return movements.all_italiana(entrants, plan.groups, turns)
    return movements.mitchell(entrants, turns, dict(clubs or {}))


def draw(
    plan: Plan,
    number: int,
    order: Sequence[Entrant],
    past: Sequence[Turn],
    starting: Sequence[Entrant] = (),
    clubs: Mapping[Entrant, str] | None = None,
) -> Turn:
    """Turn `number`'s tables: `order` the entrants playing it, by the standings after the turn before (turn 1:
    by seeding); a scheduled movement (Mitchell, all'italiana) deals from `starting`, the entrants of turn 1
    (default `order`), in the turn's place of the whole schedule."""
    movement = plan.movement_of(number)
    if movement in SCHEDULED:
        schedule = _schedule(plan, list(starting or order), clubs)
        return schedule[number - 1]
    pairing = {DANESE: movements.danese, DANESE_MODIFICATO: movements.danese_modificato, SWISS: movements.swiss}
    return pairing[movement](list(order), number, list(past))
