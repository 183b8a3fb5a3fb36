"""Command-line options that set a candidate photo-mode reader, shared by the workshop's
measurements (``vision.training.evaluate``, ``vision.training.table_report``): each one
given replaces its field of the shipped ``vision.detector.ModelInfo``."""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

from vision.detector import ModelInfo


def _yes_or_no(text: str) -> bool:
    if text not in ("yes", "no"):
        raise argparse.ArgumentTypeError(f"{text!r}: say yes or no")
    return text == "yes"


# Each option: its type, how many values (None: one), and what it sets.
_PHOTO_FLAGS: tuple[tuple[str, Callable[[str], Any], str | None, str], ...] = (
    ("--photo-index-px", float, None, "the index size it reads at"),
    ("--photo-margins", float, "+", "the crop margins each corner is named from"),
    ("--photo-view-weights", float, "+", "each margin's weight"),
    ("--photo-orientations", int, None, "the turns each crop is read in, 1 2 4 or 8"),
    ("--photo-text-reader", Path, None, "a text reader's ONNX model, read beside the "
                                        "classifier"),
    ("--photo-text-weight", float, None, "the text reader's weight; 0 reads without it"),
    ("--photo-text-top", int, None, "how many of the classifier's likeliest names the text "
                                    "reader weighs again"),
    ("--photo-text-max-sure", float, None, "the text reader reads only a photo with fewer "
                                           "than this share of its corners named sure"),
    ("--photo-min-index", float, None, "how sure the classifier's index head must be that a "
                                       "box shows an index"),
    ("--photo-uses-table-detector", _yes_or_no, None, "yes: read with the table detector too "
                                                      "(no: not)"),
    ("--photo-table-when-short", _yes_or_no, None, "yes: read with the table detector only "
                                                   "where the reading without it is short of "
                                                   "the cards expected or reads one twice "
                                                   "(no: in every photo)"),
    ("--photo-short-scales", float, "*", "a photo still short of its cards after both "
                                         "detectors is read again at these times the side "
                                         "it was read at"),
    ("--photo-short-negative", _yes_or_no, None, "yes: a photo still short after every "
                                                 "pass, not taken for a dark deck's, is read "
                                                 "once more in its negative (no: not)"),
    ("--photo-tight-margin", float, None, "the margin unsure corners are read again at; 0 "
                                          "does not"),
    ("--photo-tight-share", float, None, "that tight reading's share of the whole"),
    ("--photo-crowded-mask", float, None, "crowded corners read again blanked outside "
                                          "their box grown by this; 0 does not"),
    ("--photo-crowded-share", float, None, "that blanked reading's share of the whole"),
    ("--photo-crowded-classifier", Path, None, "a network that reads the crowded corners "
                                               "(a neighbour's index in the crop) beside "
                                               "the photo classifier"),
    ("--photo-crowded-classifier-share", float, None, "that network's share of a crowded "
                                                      "corner's reading; 0 reads without it"),
    ("--photo-crowded-below", float, None, "only the crowded corners the photo classifier "
                                           "names under this are read by that network"),
    ("--photo-face-reader", Path, None, "a network that reads a card's face between two "
                                        "corners, for a photo still short after every pass"),
    ("--photo-face-weight", float, None, "the face reading's weight beside the corners'; "
                                         "0 reads without it"),
    ("--photo-face-sure", float, None, "how much of the joint reading a face's pair needs "
                                       "to count as one card"),
    ("--photo-face-rank", float, None, "how much of the face's reading the pair's rank "
                                       "needs"),
    ("--photo-face-lone", _yes_or_no, None, "yes: a photo still short after the face "
                                            "pairs reads a lone corner's face where its "
                                            "card's outline places it (no: not)"),
    ("--photo-face-agree", _yes_or_no, None, "yes: a face's pair is one card only when each "
                                             "corner's likeliest name shares its rank or "
                                             "colour (no: not asked)"),
    ("--photo-second-classifier", Path, None, "a second classifier's ONNX model, read for "
                                              "unsure corners"),
    ("--photo-second-weight", float, None, "the second classifier's weight; 0 reads without "
                                           "it"),
    ("--photo-second-top", int, None, "how many of the classifier's likeliest names the "
                                      "second weighs again"),
    ("--photo-second-min-index", float, None, "how sure the index head must be of a corner "
                                              "for the second classifier to read it"),
    ("--photo-soften-px", int, None, "the side each crop is softened to before the photo "
                                     "classifier reads it; 0 reads it as cut"),
    ("--photo-second-soften-px", int, None, "the same for the second classifier"),
    ("--photo-first-look", float, None, "the share of its longer side a photo is first "
                                        "looked at, to measure its indices, when under the "
                                        "network's size; 0: the network's size"),
    ("--photo-first-look-stands", float, None, "the first look's reading stands, told the "
                                               "photo's count, when whole and every corner "
                                               "named this surely; 0: always read again"),
    ("--photo-read-near", float, None, "the photo is read at its indices' scale only within "
                                       "this many index sizes of what the first look found; "
                                       "0: the whole photo"),
    ("--photo-early-views", _yes_or_no, None, "yes: read a corner's first crop alone "
                                              "first, its others only when that leaves it "
                                              "unsure (no: all of them)"),
    ("--photo-dark-adapt", float, None, "a photo its first look votes a dark deck's has its "
                                        "corners named by the classifier adapted to them, "
                                        "their statistics at this share; 0: off"),
)
# The flags above as argparse names them: the ``ModelInfo`` fields they set.
PHOTO_OPTIONS = tuple(flag[2:].replace("-", "_") for flag, *_ in _PHOTO_FLAGS)


def add_photo_options(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``note`` leads each help text (e.g. "with --reader: ")."""
    for flag, kind, nargs, sets in _PHOTO_FLAGS:
        parser.add_argument(flag, type=kind, nargs=nargs, default=None,
                            help=f"{note}photo mode: {sets} (default: shipped)")


def photo_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The ``ModelInfo`` fields the photo options given set, for ``dataclasses.replace``."""
    changes = {name: getattr(args, name) for name in PHOTO_OPTIONS}
    for name in ("photo_margins", "photo_view_weights", "photo_short_scales"):
        if changes[name] is not None:
            changes[name] = tuple(changes[name])
    return {name: value for name, value in changes.items() if value is not None}


def measured_model(info: ModelInfo, changes: dict[str, Any]) -> ModelInfo:
    """``info`` with the fields ``changes`` gives (None: keep the shipped value). A
    detector measured with ``weights`` alone reads tables and live frames alone too: the
    shipped table and live detectors join it only when given again as ``table_weights``
    and ``live_weights``."""
    given = {name: value for name, value in changes.items() if value is not None}
    for other in ("table_weights", "live_weights"):
        if "weights" in given and other not in given:
            given[other] = None
    return dataclasses.replace(info, **given)
