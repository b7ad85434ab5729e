"""Made-up Pazzaparola matches for `flask seed`: Italian words laid out as letter cards."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from ..base import Seeding

LETTER_POINTS = {
    "A": 1, "B": 5, "C": 2, "D": 5, "E": 1, "F": 5, "G": 8, "H": 8, "I": 1, "L": 3, "M": 3,
    "N": 3, "O": 1, "P": 5, "Q": 10, "R": 2, "S": 2, "T": 2, "U": 3, "V": 5, "Z": 8,
}  # fmt: skip
WORDS = (
    "CASA GATTO MARE SOLE LUNA PIZZA TAVOLO CARTA PAROLA GIOCO AMICO FIORE LIBRO SCUOLA TRENO "
    "STRADA QUADRO BOSCO NEVE VENTO FUOCO ACQUA TERRA CIELO NOTTE GIORNO SERA ESTATE INVERNO PANE "
    "VINO ZANZARA ZUCCA QUIZ LIMONE CAVALLO TOPO ORSO LUPO VOLPE RANA PESCE FARFALLA MONTE PONTE"
).split()
THEMES = ["Animali", "Cibo", "Viaggi", "Casa", "Natura", "Sport", "Mestieri", "Città"]


class PazzaparolaSeeding(Seeding):
    """Two to eight players, mostly four; a round of words takes a few minutes."""

    seats: ClassVar[dict[int, int]] = {2: 2, 3: 4, 4: 5, 5: 3, 6: 2, 7: 1, 8: 1}
    minutes: ClassVar[tuple[float, float]] = (3, 8)

    def round(
        self, rng: random.Random, players: list[str], sides: list[str], settings: dict[str, Any]
    ) -> dict[str, Any]:
        """Every player's word laid out as letter cards; now and then someone finds none."""
        rows = {}
        for name in players:
            if rng.random() < 0.08:
                rows[name] = {"word": None, "used": [], "unused": settings["cards"]}
                continue
            word = rng.choice([w for w in WORDS if len(w) <= settings["cards"]])
            used = [LETTER_POINTS[letter] for letter in word]
            rows[name] = {"word": word, "used": used, "unused": settings["cards"] - len(used)}
        return {"theme": rng.choice(THEMES), "rows": rows}
