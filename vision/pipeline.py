"""Photo -> detections -> cards -> rows: the whole reading of one photo.

Two modes (``vision.detector.Mode``): "photo" (the default) reads each photo at the scale
its corner indices need, from a JPEG decoded no larger than that reading can use; "live"
reads a camera frame in one pass at the network's size; "table" reads a photo of the whole
table as photo mode does, with a second detector, fine-tuned on tables, when one is shipped.
Whole tables are read in ``TABLE_PHOTO_MODE``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from .detections import Detections
from .detector import Mode
from .photo import MAX_SIDE, load_photo
from .reading import CardReading, Rows, group_rows, merge_corners, row_completing_card
from .retake import retake_hints

HAND_SIZE = 13

# The mode a photo of the whole table is read in (``cpoker table``, the app's table
# photo). Table mode was made for it (session 15), but photo mode has since learned to
# judge whether a box is an index, to read unsure corners again and to keep the table
# detector's surely named finds: on 213 rendered seats (``table_report`` seeds 25-28) it
# reads 212 right where table mode reads 209, for about 0.2 s more a table
# (models/README.md, "Session 41"). Table mode stays, to be measured against.
TABLE_PHOTO_MODE: Mode = "photo"


# Live mode reads at 640: a frame decoded larger only gives the classifier sharper crops,
# and past this size that no longer pays for the decoding.
LIVE_SIDE = 1280


class Detector(Protocol):
    def detect(self, image: np.ndarray, mode: Mode = "photo",
               complete: Callable[[Detections], bool] | None = None) -> Detections: ...


@dataclass
class PhotoReading:
    image: str
    cards: list[CardReading]
    rows: Rows | None
    warnings: list[str] = field(default_factory=list)
    detections: Detections | None = None
    size: tuple[int, int] = (0, 0)  # width, height of the (shrunk, upright) photo
    # Cards seen in one unsure corner and left out (``vision.reading.merge_corners``): a
    # whole table's reading fills a seat that lacks a card from them (``vision.table``).
    doubtful: list[CardReading] = field(default_factory=list)

    @property
    def card_names(self) -> list[str]:
        return [r.card for r in self.cards]

    def to_dict(self) -> dict[str, object]:
        return {
            "image": self.image,
            "cards": [r.to_dict() for r in self.cards],
            "rows": self.rows.to_dict() if self.rows else None,
            "warnings": list(self.warnings),
        }


def count_warnings(count: int, expect: int | None) -> list[str]:
    if count == 0:
        return ["no cards found: lay the cards face up, corners visible, and retake the photo"]
    if expect is not None and count != expect:
        verb = "add the missing" if count < expect else "remove the extra"
        return [f"found {count} cards, expected {expect}: {verb} "
                f"{'card' if abs(count - expect) == 1 else 'cards'} or retake the photo"]
    return []


def read_image(image: np.ndarray, detector: Detector, name: str = "photo",
               expect: int | None = HAND_SIZE, mode: Mode = "photo") -> PhotoReading:
    settings = getattr(detector, "reading_settings", {})

    def complete(detections: Detections) -> bool:
        # The photo read whole: as many cards as it holds, none of them twice.
        merged = merge_corners(detections, expect=expect, **settings)
        return len(merged.cards) == expect and not merged.warnings

    detections = detector.detect(image, mode, complete if expect is not None else None)
    return reading_of(image, detections, name, expect, settings, search_rows=mode != "live")


def reading_of(image: np.ndarray, detections: Detections, name: str = "photo",
               expect: int | None = HAND_SIZE,
               settings: dict[str, object] | None = None,
               search_rows: bool = True) -> PhotoReading:
    """The cards, rows and warnings of ``image`` from its named corners ``detections``
    (``settings``: the detector's ``reading_settings``). ``search_rows``: a hand whose
    rows its cards' centres and corners do not show is searched for them
    (``vision.reading.group_rows``' ``search``, up to about 15 ms), and a hand one card
    short takes the unsure corner that completes its rows, if one alone does
    (``vision.reading.row_completing_card``, with a warning to check it); live mode's
    frames spare both."""
    merged = merge_corners(detections, expect=expect, **(settings or {}))
    cards, doubtful, merge_warnings = merged.cards, merged.doubtful, merged.warnings
    rows = group_rows(cards, search=search_rows) if len(cards) == HAND_SIZE else None
    completed = []
    if expect == HAND_SIZE and len(cards) == HAND_SIZE - 1 and search_rows:
        # A set hand one card short: the unsure corner that completes its rows is that card.
        found = row_completing_card(cards, doubtful + held_back_cards(detections, settings))
        if found is not None:
            card, rows = found
            cards = sorted([*cards, card], key=lambda c: -c.confidence)
            doubtful = [d for d in doubtful if d is not card]
            merge_warnings = [w for w in merge_warnings if w != merged.offers.get(card.card)]
            completed = [f"{card.card} was read in one unsure corner ({card.confidence:.2f}) "
                         "and counted because it completes the three rows: check it"]
    # The count first, then what the photo says to change in the retake: the cards read
    # but left in doubt ("maybe ...") come last.
    warnings = count_warnings(len(cards), expect)
    if expect is not None and 0 < len(cards) < expect:
        warnings += retake_hints(detections)
    warnings += completed + merge_warnings
    height, width = image.shape[:2]
    return PhotoReading(name, cards, rows, warnings, detections, (width, height), doubtful)


def held_back_cards(detections: Detections, settings: dict[str, object] | None = None
                    ) -> list[CardReading]:
    """The cards photo mode's naming gates held back (``Detections.held_back``), each as
    one corner, where named at least as surely as a card seen in one corner must be
    (``min_lone_confidence``): a set hand one card short may find its missing card among
    them (``row_completing_card``). Measured (session 85, the tune sets): a Qh and a Jc
    held back by a gate, named 0.88 and 0.81, each completed its hand; held back and named
    0.48 and 0.27 (a 2c where a 3s lay, a Jh where a Js lay), two wrong cards would have."""
    if detections.held_back is None:
        return []
    floor = float((settings or {}).get("min_lone_confidence", 0.0))
    merged = merge_corners(detections.held_back, **(settings or {}))
    return [CardReading(card.card, card.confidence, card.box, 1)
            for card in (*merged.cards, *merged.doubtful) if card.confidence >= floor]


def read_photo(source: str | Path | bytes, detector: Detector, name: str | None = None,
               expect: int | None = HAND_SIZE, mode: Mode = "photo") -> PhotoReading:
    """Raises :class:`vision.photo.PhotoError` for a file that is not a usable photo."""
    image = load_photo(source, LIVE_SIDE if mode == "live" else MAX_SIDE)
    label = name or (str(source) if not isinstance(source, bytes) else "photo")
    return read_image(image, detector, label, expect, mode)
