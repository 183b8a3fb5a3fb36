"""From corner detections to cards, and from cards to the three rows of a set hand.

The detector finds the rank-and-suit index in each visible corner of a card, so one card
is usually seen twice. A deck holds each card once, so detections of the same card are
merged into one reading, unless they lie too far apart to belong to one card (then the
card is reported as seen twice: a second deck, or a misread).

Rows: a set hand lies as three rows, the front row of 3 and two rows of 5. Whatever the
photo's orientation, the rows are found as the direction in which the cards fall into
three well separated bands of 3, 5 and 5; the band of 3 is the front, the band next to it
the middle.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from .detections import Detections

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class CardReading:
    card: str
    confidence: float
    box: Box  # the union of the card's corner boxes
    corners: int  # how many corner indices were seen

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return (x1 + x2) / 2, (y1 + y2) / 2

    def to_dict(self) -> dict[str, object]:
        return {"card": self.card, "confidence": round(self.confidence, 4),
                "box": [round(v, 1) for v in self.box]}


def _union(boxes: np.ndarray) -> Box:
    return (float(boxes[:, 0].min()), float(boxes[:, 1].min()),
            float(boxes[:, 2].max()), float(boxes[:, 3].max()))


def read_cards(detections: Detections, max_card_span: float | None = None,
               min_lone_confidence: float = 0.0, expect: int | None = None,
               ) -> tuple[list[CardReading], list[str]]:
    """Merge the corners of each card; returns the cards and warnings.

    ``max_card_span`` is how far apart (in pixels, centre to centre) two corner indices of
    one card can lie; by default 12 corner heights, a little more than a card's diagonal
    (two corners of one card lie at opposite ends of it). A card seen in one corner only
    is kept when that corner's confidence reaches ``min_lone_confidence``.

    ``expect``: how many cards the photo should hold (a hand: 13). When fewer are read,
    the doubtful cards left out (one corner, below ``min_lone_confidence``) that name a
    card not read yet are offered in a warning, most confident first, as many as are
    missing: the user checks the photo and adds the card in a moment. They are not read
    as cards: filling the count with them (most confident first, from 0.3, 0.5, 0.6 or 0.7
    up) was tried on rendered val (held-out decks, the 133 spread and rows scenes of
    ``v1``) and cost 1.3 to 3.4 points of precision for 1.0 to 3.1 points of recall.

    (Dropping a lone corner that lies inside a card seen in two or more corners, as a
    likely misread of that card, was measured and left out: on the real photos' tune shots
    it traded 1.0 point of recall for 0.5 of precision, and on rendered spreads it lost 2.4
    points of recall, because there the top card of a pile covers other cards' corners.)
    """
    readings: list[CardReading] = []
    doubtful: list[CardReading] = []
    for class_id in np.unique(detections.class_id):
        group = detections[detections.class_id == class_id]
        name = detections.names[int(class_id)]
        heights = group.xyxy[:, 3] - group.xyxy[:, 1]
        span = max_card_span or 12 * float(np.median(heights))
        for members in _cluster(group.centers, span):
            part = group[np.array(members)]
            reading = CardReading(name, float(part.confidence.max()), _union(part.xyxy),
                                  len(members))
            if len(members) == 1 and reading.confidence < min_lone_confidence:
                doubtful.append(reading)
            else:
                readings.append(reading)
    counts = Counter(r.card for r in readings)
    warnings = [f"{name} seen {count} times: remove the duplicate card or correct the reading"
                for name, count in sorted(counts.items()) if count > 1]
    if expect is not None and len(readings) < expect:
        offered: set[str] = set()
        for maybe in sorted(doubtful, key=lambda r: -r.confidence):
            if len(offered) == expect - len(readings):
                break
            if maybe.card not in counts and maybe.card not in offered:
                offered.add(maybe.card)
                x, y = maybe.center
                warnings.append(f"maybe {maybe.card}: one corner near ({x:.0f}, {y:.0f}) "
                                f"reads {maybe.card} at {maybe.confidence:.2f}, too unsure "
                                "to count; check it and add the card if it is there")
    readings.sort(key=lambda r: -r.confidence)
    return readings, warnings


def _cluster(points: np.ndarray, span: float) -> list[list[int]]:
    """Single-link clusters of points closer than ``span``."""
    clusters: list[list[int]] = []
    for i in range(len(points)):
        joined = [c for c in clusters
                  if any(math.dist(points[i], points[j]) <= span for j in c)]
        merged = [i]
        for c in joined:
            merged.extend(c)
            clusters.remove(c)
        clusters.append(sorted(merged))
    return clusters


# --- rows -----------------------------------------------------------------------------

ROW_SIZES = (3, 5, 5)


@dataclass(frozen=True)
class Rows:
    front: list[CardReading]
    middle: list[CardReading]
    back: list[CardReading]

    def to_dict(self) -> dict[str, list[str]]:
        return {"front": [r.card for r in self.front], "middle": [r.card for r in self.middle],
                "back": [r.card for r in self.back]}


def group_rows(cards: list[CardReading], min_separation: float = 1.5) -> Rows | None:
    """Three rows of 3/5/5 cards, or None when the cards do not lie in three rows.

    For each direction (every 2 degrees) the cards' positions across that direction are
    sorted and cut into bands of 3-5-5 or 5-5-3; the best direction is the one where the
    gaps between bands are widest compared with the spread inside the bands. A layout is
    only taken as rows when that ratio passes ``min_separation``.
    """
    if len(cards) != 13:
        return None
    centers = np.array([c.center for c in cards], dtype=np.float64)
    best: tuple[float, list[list[int]]] | None = None
    for degrees in range(0, 180, 2):
        angle = math.radians(degrees)
        normal = np.array([-math.sin(angle), math.cos(angle)])
        across = centers @ normal
        order = np.argsort(across)
        for sizes in ((3, 5, 5), (5, 5, 3)):
            cuts = np.cumsum(sizes)[:-1]
            bands = np.split(order, cuts)
            spread = max(float(np.ptp(across[b])) for b in bands)
            gaps = [float(across[order[c]] - across[order[c - 1]]) for c in cuts]
            score = min(gaps) / max(spread, 1e-6)
            if best is None or score > best[0]:
                best = (score, [list(b) for b in bands])
    assert best is not None
    score, bands = best
    if score < min_separation:
        return None
    if len(bands[0]) == 3:
        front, middle, back = bands
    else:
        back, middle, front = bands

    def row(indices: list[int]) -> list[CardReading]:
        # Within a row, left to right along the row's direction, for a stable display.
        return sorted((cards[i] for i in indices), key=lambda r: r.center)

    return Rows(row(front), row(middle), row(back))
