"""Pazzaparola: word scores from the two rows of letter cards, and victory points to 3."""

from __future__ import annotations

from typing import Any, ClassVar

from ..base import Game, RecordSums, Replay, Standings, Tally, best
from ..checks import items, mapping, optional_text, per_name, whole
from ..refusals import N_, RuleError
from ..settings import PLAYER, Setting


def word_score(used: list[int], unused: int) -> int:
    """The points of the upper-row cards, minus one per card in the lower row."""
    return sum(used) - unused


class Pazzaparola(Game):
    """Each round the highest word score takes a victory point; first to the target wins."""

    slug = "pazzaparola"
    name = "Pazzaparola"
    min_players = 2
    max_players = 8
    # Drawn by the game's own _settings.html: two steppers and the eldest player's chips.
    declared: ClassVar[tuple[Setting, ...]] = (
        Setting("cards", 8, N_("cards per player"), lo=1, hi=20, drawn=False, field="cards"),
        Setting("target", 3, N_("victory points to win"), lo=1, hi=20, drawn=False, field="target"),
        Setting("eldest", None, N_("the eldest player"), kind=PLAYER, optional=True, drawn=False, field="eldest"),
    )

    def normalise_round(self, players: list[str], settings: dict[str, Any], round: dict[str, Any]) -> dict[str, Any]:
        """The theme and every player's two rows; the cards must add up to the deal."""
        optional_text(round.get("theme"), N_("the theme"), field="theme")
        if "rows" not in round:
            raise RuleError(N_("missing; every player needs a row"), field="rows")
        rows = per_name(round["rows"], players, "rows")
        return {"rows": {name: self._row(name, row, settings["cards"]) for name, row in rows.items()}}

    @staticmethod
    def _row(name: str, row: Any, cards: int) -> dict[str, Any]:
        """One player's rows checked: card points 0-99 and the right number of cards."""
        row = mapping(row, N_("a row"), field=name)
        try:
            optional_text(row.get("word"), N_("the word"))
            if "used" not in row or "unused" not in row:
                raise RuleError(N_('a row needs both "used" (card points) and "unused" (a count)'))
            used = [
                whole(points, N_("card %(n)s of the upper row", n=position), lo=0, hi=99)
                for position, points in enumerate(items(row["used"], "used"), start=1)
            ]
            unused = whole(row["unused"], N_("unused (cards in the lower row)"), lo=0)
        except RuleError as error:
            raise RuleError(error.message, field=name) from None
        if len(used) + unused != cards:
            raise RuleError(
                N_("%(n)s cards in the rows, but each player has %(cards)s", n=len(used) + unused, cards=cards),
                field=name,
            )
        return {**row, "used": used, "unused": unused}

    def score_round(
        self, tally: Tally, players: list[str], settings: dict[str, Any], round: dict[str, Any]
    ) -> dict[str, Any]:
        """Every player with the round's highest word score takes a victory point."""
        scores = {name: word_score(row["used"], row["unused"]) for name, row in round["rows"].items()}
        winners = best(scores)
        for name in winners:
            tally.totals[name] += 1
        return {"scores": scores, "winners": winners}

    def is_over(self, tally: Tally, settings: dict[str, Any]) -> bool:
        """Over once someone has the target's victory points."""
        return max(tally.totals.values()) >= settings["target"]

    def winners(self, tally: Tally, settings: dict[str, Any]) -> list[str]:
        """Everyone at or above the target: reaching it together is a tie for victory."""
        return [name for name, points in tally.totals.items() if points >= settings["target"]]

    def round_scores(
        self, standings: Standings, rounds: list[dict[str, Any]], side: str
    ) -> list[tuple[int, str | None]]:
        """Each round's word score with the word itself, so a player's best word can be named."""
        return [
            (entry["scores"][side], rounds[index]["rows"][side].get("word"))
            for index, entry in enumerate(standings.rounds)
        ]

    def starter(self, replay: Replay) -> str | None:
        """Who announces first: last round's sole winner, else the eldest (None: ask the table)."""
        if replay.over:
            return None
        last = replay.tally.rounds[-1]["winners"] if replay.tally.rounds else []
        # Round 1 and a tied round both fall back to the eldest, as the rulebook does after a tie.
        return last[0] if len(last) == 1 else replay.settings["eldest"]

    def record_figures(self, record: RecordSums) -> dict[str, Any]:
        """The best word with its score, and the average word score."""
        if not record.score_count:
            return {}
        average = round(record.score_sum / record.score_count, 1)
        return {"best_word": record.best_label or "—", "best_word_score": record.best_score, "average_word": average}
