"""Pazaak: sets decided by outcome or by table totals (bust, nine cards, tiebreaker), to 3 set wins."""

from __future__ import annotations

from typing import Any, ClassVar

from ..base import Game, RecordSums, Replay, Tally
from ..checks import items, mapping, name_list, per_name, resolve, show, whole
from ..refusals import N_, Message, RuleError
from ..settings import Setting

LIMIT = 20
HAND_SIZE = 4
# The side cards a player can hold, as labelled in settings["hands"] and on the calculator.
HAND_CARDS = (
    *(f"+{n}" for n in range(1, 7)),
    *(f"\u2212{n}" for n in range(1, 7)),
    *(f"\u00b1{n}" for n in range(1, 7)),
    "\u00b11/2",
    "Flip 2&4",
    "Flip 3&6",
    "D",
    "T\u00b11",
)


def _label_key(text: str) -> str:
    """A label typed with ASCII signs ("-3", "+/-4") matched to the printed one ("−3", "±4")."""
    text = "".join(text.split()).replace("+/-", "\u00b1").replace("+-", "\u00b1").replace("-", "\u2212")
    return text.casefold()


_LABELS = {_label_key(label): label for label in HAND_CARDS}


def hand_card(value: Any) -> str:
    """The canonical label of a side card a player can hold."""
    if isinstance(value, str) and _label_key(value) in _LABELS:
        return _LABELS[_label_key(value)]
    raise RuleError(
        N_("%(value)s is not a side card (one of %(cards)s)", value=show(value), cards=", ".join(HAND_CARDS))
    )


def decide_set(
    players: list[str], totals: dict[str, int], filled: list[str], tiebreaker: str | None
) -> tuple[str | None, str]:
    """The set's winner (None: tied) and how: "bust", "filled", "outscore", "tiebreaker" or "tie"."""
    bust = [name for name in players if totals[name] > LIMIT]
    if len(bust) == 2:
        raise RuleError(N_("both players are over %(limit)s; only one can bust", limit=LIMIT), field="totals")
    if bust:
        return next(name for name in players if name not in bust), "bust"
    if len(filled) == 2:
        raise RuleError(N_("both players are listed; only one can fill the table first"), field="filled")
    if filled:
        return filled[0], "filled"
    first, second = players
    if totals[first] != totals[second]:
        return (first if totals[first] > totals[second] else second), "outscore"
    if tiebreaker is not None:
        return tiebreaker, "tiebreaker"
    return None, "tie"


class Pazaak(Game):
    """Two players; a set is won, lost or tied, and the first to `sets` set wins takes the match."""

    slug = "pazaak"
    name = "Pazaak"
    min_players = 2
    max_players = 2
    # Drawn by the game's own _settings.html: a stepper of its own, posted as a hidden `sets`.
    declared: ClassVar[tuple[Setting, ...]] = (
        Setting("sets", 3, N_("the set wins needed"), lo=1, hi=10, drawn=False, field="sets"),
    )
    # Each player's side cards (null: none noted), picked on a palette of the form's own: no kind of Setting.
    hand_written: ClassVar[dict[str, Any]] = {"hands": None}

    def normalise_settings(self, settings: dict[str, Any], players: list[str]) -> dict[str, Any]:
        """The set wins needed as declared, and each player's (optional) four hand cards for the UI."""
        checked = super().normalise_settings(settings, players)
        return {**checked, "hands": _hands(settings["hands"], players)}

    def settings_with_players_renamed(self, settings: dict[str, Any], renamed: dict[str, str]) -> dict[str, Any]:
        """The declared settings' players renamed, and whose hand cards each hand is."""
        settings = super().settings_with_players_renamed(settings, renamed)
        hands = settings.get("hands")
        if not hands:
            return settings
        return {**settings, "hands": {renamed.get(name, name): cards for name, cards in hands.items()}}

    def normalise_round(
        self, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """A set as its outcome, or as table totals that decide it (agreeing with any winner given)."""
        has_winner = "winner" in round
        winner = round.get("winner")
        if winner is not None:
            winner = resolve(winner, players, "winner")
        if round.get("totals") is None:
            if not has_winner:
                raise RuleError(N_('a set needs a "winner" (null for a tie) or the table "totals"'), field="winner")
            return {"winner": winner}
        table = self.table_form(players, round)
        decided, how = decide_set(players, table["totals"], table["filled"], table["tiebreaker"])
        if has_winner and winner != decided:
            raise RuleError(_disagreement(how, show(winner), decided), field="winner")
        return {**({"winner": winner} if has_winner else {}), **table}

    @staticmethod
    def table_form(players: list[str], round: dict[str, Any]) -> dict[str, Any]:
        """The totals, `filled` (default none) and `tiebreaker` (default null) checked."""
        # Any whole number, since minus cards can take a table total below zero.
        given = per_name(round["totals"], players, "totals")
        totals = {name: whole(value, N_("the table total"), field=name) for name, value in given.items()}
        filled = round.get("filled")
        filled = [] if filled is None else name_list(filled, players, "filled", distinct=True)
        tiebreaker = round.get("tiebreaker")
        tiebreaker = None if tiebreaker is None else resolve(tiebreaker, players, "tiebreaker")
        return {"totals": totals, "filled": filled, "tiebreaker": tiebreaker}

    def score_round(
        self, tally: Tally, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """The set's winner, if any, gets one set win."""
        if "totals" in round:
            winner, _ = decide_set(players, round["totals"], round["filled"], round["tiebreaker"])
        else:
            winner = round["winner"]
        if winner is not None:
            tally.totals[winner] += 1
        return {"winner": winner}

    def is_over(self, tally: Tally, settings: dict[str, Any]) -> bool:
        """Over when a player has the set wins needed."""
        return max(tally.totals.values()) >= settings["sets"]

    def winners(self, tally: Tally, settings: dict[str, Any]) -> list[str]:
        """The player who reached the set wins needed."""
        return [name for name, wins in tally.totals.items() if wins >= settings["sets"]]

    def starter(self, replay: Replay) -> str | None:
        """Who starts the set after a replayed match (None once it is over)."""
        return None if replay.over else replay.players[len(replay.rounds) % 2]

    def record_figures(self, record: RecordSums) -> dict[str, Any]:
        """The sets won over all the player's matches."""
        return {"sets_won": record.total}


def _disagreement(how: str, winner: str, decided: str | None) -> Message:
    """The refusal of a winner the totals contradict: one whole sentence per way the totals
    decide the set, so that each language words its own "how"."""
    if how == "bust":
        return N_("says %(winner)s, but by the totals %(name)s wins (bust)", winner=winner, name=decided)
    if how == "filled":
        return N_("says %(winner)s, but by the totals %(name)s wins (filled)", winner=winner, name=decided)
    if how == "outscore":
        return N_("says %(winner)s, but by the totals %(name)s wins (outscore)", winner=winner, name=decided)
    if how == "tiebreaker":
        return N_("says %(winner)s, but by the totals %(name)s wins (tiebreaker)", winner=winner, name=decided)
    return N_("says %(winner)s, but by the totals the set is tied", winner=winner)


def _hands(value: Any, players: list[str]) -> dict[str, list[str]]:
    """Each player's hand cards (up to four), for every player in seat order."""
    hands: dict[str, list[str]] = {name: [] for name in players}
    if value is None:
        return hands
    for key, cards in mapping(value, N_("the hands"), field="hands").items():
        name = resolve(key, players, "hands")
        cards = items(cards, N_("%(name)s's hand", name=name), field="hands")
        if len(cards) > HAND_SIZE:
            raise RuleError(
                N_(
                    "%(name)s holds %(n)s side cards, but a hand has at most %(max)s",
                    name=name,
                    n=len(cards),
                    max=HAND_SIZE,
                ),
                field="hands",
            )
        try:
            hands[name] = [hand_card(card) for card in cards]
        except RuleError as error:
            raise RuleError(N_("%(name)s: %(problem)s", name=name, problem=error.message), field="hands") from None
    return hands
