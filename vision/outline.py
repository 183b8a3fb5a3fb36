"""The card that holds a corner index, found from its outline in the photo.

A corner whose partner index is hidden (under a finger, under the next card, out of the
frame) still lies on its card, and the card's face shows its rank in pips or a court
figure. Where that card's face is is a matter of the card's outline: the index is printed
on the card's own colour, so the card is the part of the photo around the index that has
that colour and no edge across it. Its minimum-area rectangle, when it is shaped like a
card and holds the index at one of its corners, places the card's other index: the
index reflected through the card's centre.

Plain OpenCV on a window around the index, read at about 12 pixels an index side: no
network; about 3 ms a corner in a 1280x960 photo and 10 ms in a 4032x3024 one (session
77, measured on one corner each).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

# A card's colour, as far as its outline goes: within this distance of the index's own
# background in OpenCV's 8-bit Lab. Session 77, chosen on the tune sets (14, 20, 28).
CARD_COLOUR_DISTANCE = 20.0
# Canny's lower threshold on the window (the upper is twice it): where the card meets a
# background of its own colour, an edge still parts them (session 77: 40 and 80).
EDGE_THRESHOLD = 40
# The window is read at this many pixels an index side: enough to keep a card's edge, and
# a large photo's window is shrunk to about the size of a small photo's.
PIXELS_PER_INDEX = 12.0
# What a card's rectangle may look like, for the index it holds: its long side over its
# short one (a standard card is 88 by 63 mm, 1.40; a slanted one is foreshortened), its
# long side in index sides, and the index's centre at most this many index sides from one
# of its corners.
CARD_ASPECT = (1.1, 1.9)
CARD_LONG_SIDE = (2.8, 7.5)
INDEX_FROM_CORNER = 1.6
# A card partly under another shows a part of itself that may still be shaped like a card,
# and its face then shows some of its pips (a 7 read where 8 lie). The cards of one deck
# in one photo are of one size: a card is taken as whole when its outline's long side is
# at least this share of the longest card outline the photo's corners show (session 77).
WHOLE_CARD_SHARE = 0.85


@dataclass(frozen=True)
class CardOutline:
    """A card's minimum-area rectangle in photo pixels: its centre (x, y), its two sides
    and its angle (degrees), as ``cv2.minAreaRect`` gives them."""

    centre: tuple[float, float]
    sides: tuple[float, float]
    angle: float

    @property
    def corners(self) -> np.ndarray:
        """(4, 2): the rectangle's corners."""
        return cv2.boxPoints((self.centre, self.sides, self.angle))

    @property
    def aspect(self) -> float:
        """The long side over the short one (infinite for a line)."""
        long, short = max(self.sides), min(self.sides)
        return long / short if short > 0 else float("inf")


def index_size(box: Sequence[float]) -> float:
    """An index box's longer side (x1 y1 x2 y2)."""
    return float(max(box[2] - box[0], box[3] - box[1]))


def card_outline(image: np.ndarray, box: Sequence[float]) -> CardOutline | None:
    """The outline of the card that holds the corner index ``box`` (x1 y1 x2 y2) in
    ``image`` (RGB uint8), or None when the part of the photo around the index that has
    the card's colour is not shaped like a card holding the index at a corner (a card
    half covered, a card of the table's colour, a box on no card)."""
    size = index_size(box)
    if size < 1:
        return None
    height, width = image.shape[:2]
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    reach = CARD_LONG_SIDE[1] * size
    x1, y1 = int(max(0, cx - reach)), int(max(0, cy - reach))
    x2, y2 = int(min(width, cx + reach)), int(min(height, cy + reach))
    if x2 - x1 < 2 or y2 - y1 < 2:
        return None
    scale = min(1.0, PIXELS_PER_INDEX / size)
    window = image[y1:y2, x1:x2]
    if scale < 1:
        window = cv2.resize(window, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(cv2.GaussianBlur(window, (3, 3), 0), cv2.COLOR_RGB2LAB)
    lab = lab.astype(np.float32)
    bx1, by1 = max(int((box[0] - x1) * scale), 0), max(int((box[1] - y1) * scale), 0)
    bx2 = min(int(np.ceil((box[2] - x1) * scale)), window.shape[1])
    by2 = min(int(np.ceil((box[3] - y1) * scale)), window.shape[0])
    inside = lab[by1:by2, bx1:bx2].reshape(-1, 3)
    if len(inside) < 4:
        return None
    # The index is ink on the card, mostly card: the card's colour is the median of the
    # box's lighter half (a dark deck's light ink is the lesser part of its box too).
    lightness = inside[:, 0]
    card_colour = np.median(inside[lightness >= np.median(lightness)], axis=0)
    card = (np.linalg.norm(lab - card_colour, axis=2) < CARD_COLOUR_DISTANCE).astype(np.uint8)
    edges = cv2.Canny(cv2.cvtColor(window, cv2.COLOR_RGB2GRAY), EDGE_THRESHOLD,
                      2 * EDGE_THRESHOLD)
    card[edges > 0] = 0
    _, parts = cv2.connectedComponents(card, connectivity=4)
    # The part the index lies on: the commonest around and in its box.
    around = parts[max(by1 - 2, 0):by2 + 2, max(bx1 - 2, 0):bx2 + 2]
    around = around[around > 0]
    if len(around) == 0:
        return None
    held = (parts == np.bincount(around).argmax()).astype(np.uint8)
    # Closed over the ink: pips and indices are holes in the card's colour.
    side = max(3, round(size * scale * 0.35) | 1)
    held = cv2.morphologyEx(held, cv2.MORPH_CLOSE,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side)))
    contours, _ = cv2.findContours(held, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    (rx, ry), (rw, rh), angle = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    outline = CardOutline((rx / scale + x1, ry / scale + y1), (rw / scale, rh / scale),
                          float(angle))
    return outline if holds_at_corner(outline, box) else None


def holds_at_corner(outline: CardOutline, box: Sequence[float]) -> bool:
    """Whether ``outline`` is shaped like a card (``CARD_ASPECT``, ``CARD_LONG_SIDE``) that
    holds the index ``box`` at one of its corners (``INDEX_FROM_CORNER``)."""
    size = index_size(box)
    long = max(outline.sides) / max(size, 1e-6)
    if not CARD_ASPECT[0] <= outline.aspect <= CARD_ASPECT[1] or \
            not CARD_LONG_SIDE[0] <= long <= CARD_LONG_SIDE[1]:
        return False
    centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2])
    nearest = float(np.linalg.norm(outline.corners - centre, axis=1).min())
    return nearest <= INDEX_FROM_CORNER * size


def opposite_index(box: Sequence[float], outline: CardOutline) -> np.ndarray:
    """Where the card's other index lies: ``box`` (x1 y1 x2 y2) reflected through the
    card's centre (a card's two indices are printed half a turn apart)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    dx = 2 * outline.centre[0] - (x1 + x2)
    dy = 2 * outline.centre[1] - (y1 + y2)
    return np.array([x1 + dx, y1 + dy, x2 + dx, y2 + dy])


def shows_whole(outline: CardOutline, longest: float) -> bool:
    """Whether ``outline`` is as long as a whole card of its photo, whose longest card
    outline is ``longest`` pixels long (``WHOLE_CARD_SHARE``)."""
    return max(outline.sides) >= WHOLE_CARD_SHARE * longest
