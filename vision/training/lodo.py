"""Leave one deck out: how the corner classifier reads a real deck it never trained on.

    bash tools/lodo.sh [DIR]                      # trains the classifiers, reads the decks
    python -m vision.training.lodo table DIR      # the model card's two tables

``tools/lodo.sh`` runs session 8's protocol on today's labels (``datasets/errata.toml``):
a **base** classifier from rendered and font crops alone, then, from the base, one trained
with the training crops of three of the four real decks ("without" the fourth) and one
with all four. Each is photo mode's only classifier (the second network, the crowded
corners' network and the face reader are off: each saw every deck) on today's detectors,
reading the held-out
photos of ``real-photos-dev`` and of ``real-decks-dev`` by kind, told each photo's card
count; the shipped reader reads them too. Each reading is ``DIR/eval/MODEL-SET.json``,
as ``vision.training.evaluate --json`` prints it. This module only turns those files into
tables: no network is run here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# The four real decks, each as (the readings' set, its group in that set's ``--by kind``
# groups, or None for the whole set).
DECKS: dict[str, tuple[str, str | None]] = {
    "real-photos": ("real-photos-dev", None),
    "phone-white": ("real-decks-dev", "phone-white"),
    "phone-black": ("real-decks-dev", "phone-black"),
    "webcam-handheld": ("real-decks-dev", "webcam-handheld"),
}
BASE, ALL, SHIPPED = "base", "all", "shipped"


def without(deck: str) -> str:
    """The model trained on every real deck but ``deck``."""
    return f"without-{deck}"


MODELS = (BASE, *(without(deck) for deck in DECKS), ALL, SHIPPED)


@dataclass(frozen=True)
class Reading:
    """One model's reading of one deck's held-out photos."""

    photos: int
    precision: float
    recall: float
    exactly_right: float  # the share of photos read exactly right

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0

    def cell(self) -> str:
        return (f"{self.precision:.3f} / {self.recall:.3f} / **{self.f1:.3f}** / "
                f"{100 * self.exactly_right:.0f} %")


def _reading(scores: Mapping[str, object], where: str) -> Reading:
    try:
        return Reading(int(scores["photos"]), float(scores["card_precision"]),  # type: ignore[arg-type]
                       float(scores["card_recall"]),  # type: ignore[arg-type]
                       float(scores["photos_exactly_right"]))  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{where}: not a reading of evaluate --json ({error})") from None


def load_readings(eval_dir: Path) -> dict[str, dict[str, Reading]]:
    """``eval_dir/MODEL-SET.json`` -> model -> deck -> its reading, for the models and decks
    whose files are there (a run not finished is left out, not guessed)."""
    readings: dict[str, dict[str, Reading]] = {}
    parsed: dict[Path, dict] = {}  # real-decks-dev's file serves three decks: read it once
    for model in MODELS:
        for deck, (data, group) in DECKS.items():
            path = eval_dir / f"{model}-{data}.json"
            if not path.is_file() or not path.stat().st_size:
                continue
            if path not in parsed:
                try:
                    parsed[path] = json.loads(path.read_text())
                except json.JSONDecodeError as error:
                    raise ValueError(f"{path}: not JSON ({error})") from None
            result = parsed[path]
            if group is not None:
                groups = result.get("groups", {})
                if group not in groups:
                    raise ValueError(f"{path}: no group {group!r}: read it with --by kind")
                result = groups[group]
            readings.setdefault(model, {})[deck] = _reading(result, str(path))
    return readings


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def held_out_table(readings: Mapping[str, Mapping[str, Reading]]) -> str:
    """Each deck held out: read by the base, by the model trained without it, by the model
    trained on all four and by the shipped reader (precision / recall / F1 / exactly
    right); "-" where that reading is missing."""
    def cell(model: str, deck: str) -> str:
        reading = readings.get(model, {}).get(deck)
        return reading.cell() if reading else "-"

    lines = [_row(["held-out deck (photos)", "no real deck (base)", "trained without it",
                   "trained on all four", "shipped"]),
             _row(["---"] * 5)]
    for deck in DECKS:
        photos = next((by_deck[deck].photos for by_deck in readings.values()
                       if deck in by_deck), None)
        lines.append(_row([f"{deck} ({photos if photos is not None else '?'})",
                           cell(BASE, deck), cell(without(deck), deck), cell(ALL, deck),
                           cell(SHIPPED, deck)]))
    return "\n".join(lines)


def every_model_table(readings: Mapping[str, Mapping[str, Reading]]) -> str:
    """Every model on every deck: the rows the held-out table takes its diagonal from."""
    lines = [_row(["model", *DECKS]), _row(["---"] * (len(DECKS) + 1))]
    for model in MODELS:
        if model in readings:
            lines.append(_row([model, *(readings[model][deck].cell()
                                        if deck in readings[model] else "-"
                                        for deck in DECKS)]))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.training.lodo",
                                     description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    table = commands.add_parser("table", help="print the tables of DIR/eval's readings")
    table.add_argument("dir", type=Path, help="tools/lodo.sh's folder (its eval/ inside)")
    args = parser.parse_args(argv)
    eval_dir = args.dir / "eval"
    if not eval_dir.is_dir():
        print(f"lodo: {eval_dir} is not a folder: run bash tools/lodo.sh {args.dir} first",
              file=sys.stderr)
        return 2
    try:
        readings = load_readings(eval_dir)
    except ValueError as error:
        print(f"lodo: {error}", file=sys.stderr)
        return 2
    if not readings:
        print(f"lodo: {eval_dir} holds no readings (MODEL-SET.json)", file=sys.stderr)
        return 2
    print(held_out_table(readings))
    print()
    print(every_model_table(readings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
