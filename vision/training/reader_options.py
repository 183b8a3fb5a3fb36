"""Command-line options that set a candidate photo-mode reader, shared by the workshop's
measurements (``vision.training.evaluate``, ``vision.training.table_report``): each one
given replaces its field of the shipped ``vision.detector.ModelInfo``."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

from vision.detector import ModelInfo

# The flags ``add_photo_options`` adds, as argparse names them.
PHOTO_OPTIONS = ("photo_index_px", "photo_margins", "photo_view_weights",
                 "photo_orientations")


def add_photo_options(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``note`` leads each help text (e.g. "with --reader: ")."""
    parser.add_argument("--photo-index-px", type=float, default=None,
                        help=f"{note}photo mode: the index size it reads at (default: shipped)")
    parser.add_argument("--photo-margins", type=float, nargs="+", default=None,
                        help=f"{note}photo mode: the crop margins each corner is named from "
                             "(default: shipped)")
    parser.add_argument("--photo-view-weights", type=float, nargs="+", default=None,
                        help=f"{note}photo mode: each margin's weight (default: shipped)")
    parser.add_argument("--photo-orientations", type=int, default=None,
                        help=f"{note}photo mode: the turns each crop is read in, 1 2 4 or 8 "
                             "(default: shipped)")


def photo_changes(args: argparse.Namespace) -> dict[str, Any]:
    """The ``ModelInfo`` fields the photo options given set, for ``dataclasses.replace``."""
    changes = {name: getattr(args, name) for name in PHOTO_OPTIONS}
    for name in ("photo_margins", "photo_view_weights"):
        if changes[name] is not None:
            changes[name] = tuple(changes[name])
    return {name: value for name, value in changes.items() if value is not None}


def measured_model(info: ModelInfo, changes: dict[str, Any]) -> ModelInfo:
    """``info`` with the fields ``changes`` gives (None: keep the shipped value). A
    detector measured with ``weights`` alone reads tables alone too: the shipped table
    detector joins it only when given again as ``table_weights``."""
    given = {name: value for name, value in changes.items() if value is not None}
    if "weights" in given and "table_weights" not in given:
        given["table_weights"] = None
    return dataclasses.replace(info, **given)
