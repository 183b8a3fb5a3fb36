"""One value passed between the vision stages: what the detector saw.

Like supervision's ``Detections``: parallel arrays (boxes, confidences, class ids) with
class names beside them, so each stage filters and reads without raw-array plumbing.
Boxes are ``x1, y1, x2, y2`` in the pixels of the photo as the user sees it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Detections:
    xyxy: np.ndarray  # (N, 4) float32
    confidence: np.ndarray  # (N,) float32
    class_id: np.ndarray  # (N,) int64
    names: tuple[str, ...] = field(default=())
    # (N, len(names)): each box's distribution over the names, when a classifier gave one
    # (``vision.reading`` decodes a photo's names jointly from it: a deck holds each card
    # once).
    class_probabilities: np.ndarray | None = None
    # Photo mode's reading, past its first look: its own boxes named with the naming gates
    # open (no bar on a name, a faint box's name or the index head), those the gates held
    # back among them. A set hand one card short looks among them for its missing card
    # (``vision.pipeline.reading_of``). Moved with the boxes by ``scaled`` and ``turned``;
    # a subset (``__getitem__``) leaves it out, as it selects among the main boxes only.
    held_back: Detections | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.xyxy)
        if self.xyxy.shape != (n, 4) or self.confidence.shape != (n,) or \
                self.class_id.shape != (n,):
            raise ValueError("Detections arrays must be (N, 4), (N,) and (N,)")
        if self.class_probabilities is not None and \
                self.class_probabilities.shape != (n, len(self.names)):
            raise ValueError("Detections.class_probabilities must be (N, number of names)")

    @classmethod
    def empty(cls, names: Sequence[str] = ()) -> Detections:
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32),
                   np.zeros(0, np.int64), tuple(names))

    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index: np.ndarray | slice) -> Detections:
        probabilities = None if self.class_probabilities is None \
            else self.class_probabilities[index]
        return Detections(self.xyxy[index], self.confidence[index], self.class_id[index],
                          self.names, probabilities)

    def __iter__(self) -> Iterator[tuple[str, float, tuple[float, float, float, float]]]:
        for box, conf, cls in zip(self.xyxy, self.confidence, self.class_id, strict=True):
            yield self.names[int(cls)], float(conf), tuple(float(v) for v in box)

    @property
    def labels(self) -> list[str]:
        return [self.names[int(c)] for c in self.class_id]

    @property
    def centers(self) -> np.ndarray:
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2,
                         (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2], axis=1)

    def scaled(self, factor: float) -> Detections:
        held_back = None if self.held_back is None else self.held_back.scaled(factor)
        return Detections(self.xyxy * factor, self.confidence, self.class_id, self.names,
                          self.class_probabilities, held_back)

    def turned(self, shape: tuple[int, ...], turns: int) -> Detections:
        """These boxes of a photo of ``shape`` in the pixels of ``np.rot90(photo, turns)``."""
        height, width = shape[:2]
        xyxy = self.xyxy
        for _ in range(turns % 4):
            xyxy = quarter_turned(xyxy, width)
            width, height = height, width
        held_back = None if self.held_back is None else self.held_back.turned(shape, turns)
        return Detections(xyxy.astype(self.xyxy.dtype), self.confidence, self.class_id,
                          self.names, self.class_probabilities, held_back)

    @property
    def longer_sides(self) -> np.ndarray:
        """Each box's longer side: an index's size whichever way its card is turned."""
        return np.maximum(self.xyxy[:, 2] - self.xyxy[:, 0], self.xyxy[:, 3] - self.xyxy[:, 1])


def quarter_turned(xyxy: np.ndarray, width: float) -> np.ndarray:
    """Rectangles (x1 y1 x2 y2) of a photo ``width`` pixels wide, in ``np.rot90`` of it: a
    quarter turn anticlockwise takes pixel (x, y) to (y, width - x)."""
    x1, y1, x2, y2 = np.asarray(xyxy).T
    return np.stack([y1, width - x2, y2, width - x1], axis=1)
