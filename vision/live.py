"""A live camera's frames read one after another, each read again only where it changed.

Live mode reads a frame in one detector pass and names every corner it finds: about 110 ms
a 640x480 frame on the 2-core machine (models/README.md, "Session 48"), most of it the
networks. A camera over a hand on the table sees the same cards frame after frame, and a
laptop may serve several phones' streams at once. So a stream compares each frame with the
frames its reading came from, cell by cell of a small grey thumbnail, and reads again only
the cells that changed, grown by a corner index's size: the detector reads windows of the
frame there (``CardDetector.detect_live_parts``), and the corners read elsewhere are kept
with their names. A frame in which nothing changed keeps the reading it has.

A cell read while it was changing (a card sliding, a hand passing over it) may have been
read blurred or half covered, and the frames after it differ from it too little to be read
again: so the cells that changed are read once more in the next frame, when they have
held still.

Live mode names corners with its small network in one pass; photo mode reads far better
(rendered held-out hands at 640x480: 78 % of them exactly right against 67 %, for about
270 ms a frame; models/README.md, "Session 48"). So, with ``refine``, the first frame that
holds still after a change is read once in photo mode, whole, and that reading is kept
until the frame changes again: a hand held to the camera is read as a photo of it would
be, the frames in between at live mode's speed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .detections import Detections
from .detector import joined, near_parts
from .pipeline import HAND_SIZE, Detector, PhotoReading, read_image, reading_of

THUMB_CELLS = 80  # the thumbnail's cells along the frame's longer side
# A cell whose mean grey moves by more than this (of 255) changed: a camera's noise, at a
# cell of 8 pixels or more, moves it by about one level.
CHANGE_LEVEL = 12.0
# Changes that reach over this share of the frame are read as a whole frame: windows over
# most of it cost more than one pass over all of it.
WHOLE_SHARE = 0.6
# An index's size (in frame pixels) guessed from the frame when no corner is known yet.
INDEX_SHARE = 1 / 16


@dataclass
class StreamCounts:
    """How a stream's frames were read: whole, in parts, or not at all (kept)."""

    whole: int = 0
    parts: int = 0
    kept: int = 0
    refined: int = 0  # read whole in photo mode, once still (``LiveStream.refine``)


class LiveStream:
    """Reads a camera's frames in live mode, reading each only where it changed.

    ``detector``: a :class:`vision.detector.CardDetector` (one without
    ``detect_live_parts`` reads every changed frame whole). ``expect``: the cards a frame
    should hold (a hand: 13; None: not told). ``refine``: the first frame that holds
    still after a change is read in photo mode (see the module's notes). One stream per
    camera: its state is the last frame's reading."""

    def __init__(self, detector: Detector, expect: int | None = HAND_SIZE,
                 name: str = "live", change_level: float = CHANGE_LEVEL,
                 refine: bool = True) -> None:
        self.detector = detector
        self.expect = expect
        self.name = name
        self.change_level = change_level
        self.refine = refine
        self.counts = StreamCounts()
        self.reset()

    def reset(self) -> None:
        """Forget the last frame: the next one is read whole."""
        self._reference: np.ndarray | None = None  # each cell's grey when last read
        self._unsettled: np.ndarray | None = None  # cells read while they changed
        self._detections: Detections | None = None
        self._reading: PhotoReading | None = None
        self.refined = False  # whether the reading is photo mode's of a still frame

    def read(self, image: np.ndarray) -> PhotoReading:
        """The reading of ``image`` (RGB uint8, H x W x 3), the stream's next frame."""
        thumb = _thumbnail(image)
        reference, detections = self._reference, self._detections
        # A frame of another size (the same shape gives the same grid) is a new stream.
        if reference is None or detections is None or self._reading is None \
                or self._reading.size != (image.shape[1], image.shape[0]):
            return self._read_whole(image, thumb, np.zeros(thumb.shape, bool))
        changed = self._changed(thumb, reference)
        assert self._unsettled is not None
        if self.refine and not self.refined and not changed.any():
            # Photo mode reads the whole frame: the unsettled cells too.
            return self._refined(image)
        cells = changed | self._unsettled
        if not cells.any():
            self.counts.kept += 1
            return self._reading
        parts_of = getattr(self.detector, "detect_live_parts", None)
        index_px = _index_px(detections, image.shape)
        take = _grown_parts(cells, image.shape, index_px)
        height, width = image.shape[:2]
        if parts_of is None or _area(take) > WHOLE_SHARE * width * height:
            return self._read_whole(image, thumb, changed)
        windows = near_parts(take.astype(np.float64), image.shape, index_px)
        found = parts_of(image, windows)
        inside_new = _inside(found.centers, take) if len(found) else np.zeros(0, bool)
        inside_old = _inside(detections.centers, take) if len(detections) else \
            np.zeros(0, bool)
        detections = joined(detections[~inside_old], found[inside_new])
        read_cells = _cells_within(take, thumb.shape, image.shape)
        reference = reference.copy()
        reference[read_cells] = thumb[read_cells]
        self.counts.parts += 1
        return self._keep(image, detections, reference, changed & read_cells)

    def _read_whole(self, image: np.ndarray, thumb: np.ndarray, changed: np.ndarray
                    ) -> PhotoReading:
        detections = self.detector.detect(image, "live", None)
        self.counts.whole += 1
        return self._keep(image, detections, thumb, changed)

    def _refined(self, image: np.ndarray) -> PhotoReading:
        reading = read_image(image, self.detector, self.name, self.expect, mode="photo")
        self.counts.refined += 1
        self.refined = True
        assert self._reference is not None
        self._reading, self._unsettled = reading, np.zeros(self._reference.shape, bool)
        self._detections = reading.detections if reading.detections is not None \
            else Detections.empty()
        return reading

    def _keep(self, image: np.ndarray, detections: Detections, reference: np.ndarray,
              unsettled: np.ndarray) -> PhotoReading:
        settings = getattr(self.detector, "reading_settings", {})
        self._reading = reading_of(image, detections, self.name, self.expect, settings,
                                   search_rows=False)
        self._detections, self._reference, self._unsettled = detections, reference, unsettled
        self.refined = False
        return self._reading

    def _changed(self, thumb: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """The cells whose grey moved by more than ``change_level``, once the whole frame's
        brightness is matched (a camera's exposure drifts; a hand over a fifth of the frame
        does not move the median ratio)."""
        gain = float(np.clip(np.median(thumb / np.maximum(reference, 1.0)), 0.5, 2.0))
        return np.abs(thumb - gain * reference) > self.change_level


def _thumbnail(image: np.ndarray) -> np.ndarray:
    """The frame's grey, averaged over cells (``THUMB_CELLS`` along its longer side)."""
    height, width = image.shape[:2]
    scale = THUMB_CELLS / max(height, width)
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    grey = cv2.cvtColor(image, cv2.COLOR_RGB2GRAY)
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA).astype(np.float32)


def _cell_size(thumb_shape: tuple[int, ...], shape: tuple[int, ...]) -> tuple[float, float]:
    """(width, height) of one cell in frame pixels."""
    return shape[1] / thumb_shape[1], shape[0] / thumb_shape[0]


def _grown_parts(cells: np.ndarray, shape: tuple[int, ...], pad: float) -> np.ndarray:
    """(K, 4) int x1 y1 x2 y2 in frame pixels: rectangles holding every point within
    ``pad`` pixels of the cells set in ``cells`` (``near_parts``' rectangles, found on the
    cell grid: a frame's change may set thousands of cells)."""
    cell_w, cell_h = _cell_size(cells.shape, shape)
    reach = (2 * math.ceil(pad / cell_w) + 1, 2 * math.ceil(pad / cell_h) + 1)
    grown = cv2.dilate(cells.astype(np.uint8), np.ones(reach[::-1], np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=4)
    x, y, w, h = stats[1:count, :4].T.astype(np.float64)
    rects = np.stack([x * cell_w, y * cell_h, (x + w) * cell_w, (y + h) * cell_h], axis=1)
    return near_parts(rects, shape, 0.0)


def _cells_within(rects: np.ndarray, thumb_shape: tuple[int, ...],
                  shape: tuple[int, ...]) -> np.ndarray:
    """The cells lying wholly inside one of ``rects`` (x1 y1 x2 y2, frame pixels)."""
    cell_w, cell_h = _cell_size(thumb_shape, shape)
    inside = np.zeros(thumb_shape[:2], bool)
    for x1, y1, x2, y2 in np.asarray(rects, np.float64):
        inside[int(np.ceil(y1 / cell_h - 1e-6)):int(np.floor(y2 / cell_h + 1e-6)),
               int(np.ceil(x1 / cell_w - 1e-6)):int(np.floor(x2 / cell_w + 1e-6))] = True
    return inside


def _inside(points: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """(N,) bool: the points (x, y) inside one of ``rects``."""
    x, y = points[:, :1], points[:, 1:]
    rects = np.asarray(rects, np.float64)
    return ((x >= rects[:, 0]) & (x < rects[:, 2]) & (y >= rects[:, 1])
            & (y < rects[:, 3])).any(axis=1)


def _area(rects: np.ndarray) -> float:
    """The pixels the rectangles cover (overlaps counted once, on a coarse grid)."""
    if len(rects) == 0:
        return 0.0
    rects = np.asarray(rects, np.int64)
    width, height = int(rects[:, 2].max()), int(rects[:, 3].max())
    covered = np.zeros((height // 4 + 1, width // 4 + 1), bool)
    for x1, y1, x2, y2 in rects // 4:
        covered[y1:y2, x1:x2] = True
    return float(covered.sum() * 16)


def _index_px(detections: Detections, shape: tuple[int, ...]) -> float:
    """A corner index's size in the frame: its corners' median longer side, or a share of
    the frame when it holds none."""
    if len(detections):
        return float(np.median(detections.longer_sides))
    return max(shape[:2]) * INDEX_SHARE
