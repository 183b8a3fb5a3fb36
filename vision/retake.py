"""What to change in the retake, when a photo of a hand reads short of its cards.

"Add the missing card or retake the photo" leaves the player to guess what went wrong. The
photo itself sometimes says, from the corners the reader kept. A hint is given only on
that evidence:

- **The indices are small.** The reader never enlarges a photo, and indices under
  ``SMALL_INDEX_PX`` reach the detector smaller than it reads well.
- **The corners crowd each other.** In a tight fan each index shows only a strip, half
  under the next card. The evidence: the kept corners lie, at the median, closer than
  ``CROWDED`` index sizes to their nearest neighbour.

A third hint, "the cards reach the photo's edge", was measured and left out: a corner cut
by the photo's edge is never boxed, but a hand reaching the edge was seldom why a photo
read short (models/README.md, "Session 49").
"""

from __future__ import annotations

import numpy as np

from .detections import Detections
from .detector import measured_index_px
from .reading import pairwise_distances

# The corners a hint measures: those named at least this surely.
MEASURED_NAME = 0.5
# Photo pixels, the index box's longer side. The six committed scenes (tests/data/scenes)
# shrunk to 240 px square (indices of 11-18 px, 12 at the median) read 77 of their 78
# cards; to 200 px (9-15) 72, to 170 px (8-13) 59, to 140 px (7-11) 34.
SMALL_INDEX_PX = 12.0
# In index sizes. Medians on tune-1280b's 300 scenes, by layout: fans 0.87 (0.50 among
# the fans read wrong), rows 2.12, overlaps 2.46, spreads 2.94.
CROWDED = 0.8


def retake_hints(detections: Detections) -> list[str]:
    """What a photo's named corners ``detections`` show went wrong: each hint a sentence
    that says what to change."""
    kept = detections[detections.confidence >= MEASURED_NAME]
    index_px = measured_index_px(kept)  # None from fewer than two corners: too little
    if index_px is None:
        return []
    hints: list[str] = []
    if index_px < SMALL_INDEX_PX:
        hints.append("the card corners are small in this photo: move closer, so the cards "
                     "fill most of it")
    if crowding(kept, index_px) < CROWDED:
        hints.append("the card corners lie on top of each other: fan the cards wider, so "
                     "each corner shows whole")
    return hints


def crowding(detections: Detections, index_px: float) -> float:
    """The median distance from each corner to its nearest other corner, in index sizes."""
    distance = pairwise_distances(detections.centers)
    np.fill_diagonal(distance, np.inf)
    return float(np.median(distance.min(axis=1))) / max(index_px, 1.0)
