"""How a photo becomes each network's input: the one place that says so.

Inference (``vision.detector``, ``vision.classifier``) and the workshop's int8 calibration
(``vision.training.quantize``) and crop cutting all call these, so a network never sees
at run time anything shaped differently from what it was calibrated and trained on.

- The detector takes a letterboxed RGB canvas, (1, 3, H, W) floats in [0, 1].
- The classifier takes square crops around a corner index, (N, 3, CROP, CROP) in [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

CROP = 40  # classifier crops are CROP x CROP RGB
MARGIN = 1.3  # a crop's side is this many times the index box's longer side
PAD_VALUE = 114  # ultralytics pads a letterboxed canvas with this grey in training


def letterbox(image: np.ndarray, size: tuple[int, int]
              ) -> tuple[np.ndarray, float, tuple[int, int]]:
    """``image`` shrunk or grown to fit ``size`` (height, width), centred on grey as
    ultralytics pads in training. Returns the canvas, the scale and the (left, top) offset
    of the image on it."""
    height, width = image.shape[:2]
    target_h, target_w = size
    scale = min(target_h / height, target_w / width)
    new_w, new_h = round(width * scale), round(height * scale)
    pad_x, pad_y = (target_w - new_w) / 2, (target_h - new_h) / 2
    resized = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR) \
        if (new_w, new_h) != (width, height) else image
    left, top = round(pad_x - 0.1), round(pad_y - 0.1)
    canvas = cv2.copyMakeBorder(resized, top, target_h - new_h - top, left,
                                target_w - new_w - left, cv2.BORDER_CONSTANT,
                                value=(PAD_VALUE, PAD_VALUE, PAD_VALUE))
    return canvas, scale, (left, top)


def detector_input(canvas: np.ndarray) -> np.ndarray:
    """A letterboxed RGB uint8 canvas as the detector takes it: (1, 3, H, W) in [0, 1]."""
    return _scaled_to_one(canvas.transpose(2, 0, 1)[None])


def _scaled_to_one(pixels: np.ndarray) -> np.ndarray:
    """uint8 ``pixels`` (any view) / 255 as a contiguous float32 array of their shape:
    divided straight into the network's layout, the same values as converting first and
    dividing after, without the float copy between (16 -> 7 ms a 1280-pixel canvas)."""
    scaled = np.empty(pixels.shape, np.float32)
    np.divide(pixels, np.float32(255), out=scaled, dtype=np.float32)
    return scaled


def crop_square(image: np.ndarray, box: Sequence[float], margin: float = MARGIN,
                size: int = CROP, angle: float = 0.0, mask: float = 0.0) -> np.ndarray:
    """The square around ``box`` (x1, y1, x2, y2 in ``image`` pixels), resized; the parts
    outside the photo are filled with the nearest edge pixels. ``angle``: the square
    turned by that many degrees about the box's centre (a learned deck's calibration
    crops, ``vision.decks.jittered_crops``: a corner as it looks when its card lies a
    little askew). ``mask``: the crop blanked outside the box grown by that factor
    (``blanked``; 0: not); an unturned crop only."""
    if mask > 0 and angle:
        raise ValueError("crop_square: a turned crop cannot be blanked around its box")
    x1, y1, x2, y2 = (float(v) for v in box)
    side = _square_side(box, margin)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    # An affine map from the square onto the crop, sub-pixel exact. warpAffine has no area
    # interpolation (it takes INTER_AREA as bilinear): shrunk in one step, a large index
    # (a close-up's 100-200 pixels to 40) is sampled, not averaged, and its strokes alias.
    # So a crop shrunk more than twice is mapped onto an integer multiple of ``size`` first
    # and averaged down by that factor.
    factor = max(1, int(side / size))
    canvas = size * factor
    scale = canvas / side
    turn = math.radians(angle)
    linear = scale * np.array([[math.cos(turn), math.sin(turn)],
                               [-math.sin(turn), math.cos(turn)]])
    shift = np.array([canvas / 2, canvas / 2]) - linear @ np.array([cx, cy])
    matrix = np.float32(np.hstack([linear, shift[:, None]]))
    crop = cv2.warpAffine(image, matrix, (canvas, canvas), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
    if factor > 1:
        crop = cv2.resize(crop, (size, size), interpolation=cv2.INTER_AREA)
    return blanked(crop, box, margin, mask) if mask > 0 else crop


# A face crop's square: the span of a card's two corner indices plus this many index sides.
FACE_PAD = 0.6


def face_square(image: np.ndarray, a: Sequence[float], b: Sequence[float],
                pad: float = FACE_PAD, size: int = CROP) -> np.ndarray:
    """The square around a card's face, cut from the boxes of its two corner indices ``a``
    and ``b`` (x1 y1 x2 y2): their span's longer side plus ``pad`` index sides, resized to
    ``size``. Turned or upright, a card lies between its two indices, so the square holds
    its face with a rim of what lies around it."""
    x1, y1 = min(a[0], b[0]), min(a[1], b[1])
    x2, y2 = max(a[2], b[2]), max(a[3], b[3])
    index = max(a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1])
    span = max(x2 - x1, y2 - y1, 2.0)
    return crop_square(image, (x1, y1, x2, y2), margin=(span + pad * index) / span,
                       size=size)


def _square_side(box: Sequence[float], margin: float) -> float:
    """The side, in photo pixels, of ``crop_square``'s square around ``box``."""
    x1, y1, x2, y2 = (float(v) for v in box)
    return max(x2 - x1, y2 - y1, 2.0) * margin


def blanked(crop: np.ndarray, box: Sequence[float], margin: float,
            grow: float) -> np.ndarray:
    """``crop``, ``crop_square``'s unturned crop of ``box`` at ``margin``, with what lies
    outside the box grown by ``grow`` filled with the box's median colour: a fan's
    neighbouring indices, which a square around one index shows beside it, are gone."""
    x1, y1, x2, y2 = (float(v) for v in box)
    size = crop.shape[0]
    scale = size / _square_side(box, margin)
    centre = np.arange(size) + 0.5 - size / 2
    rows = np.abs(centre) <= (y2 - y1) * scale * grow / 2
    columns = np.abs(centre) <= (x2 - x1) * scale * grow / 2
    inside = rows[:, None] & columns[None, :]
    if not inside.any():
        return crop
    out = crop.copy()
    out[~inside] = np.median(crop[inside], axis=0).astype(crop.dtype)
    return out


# A set of crops is taken for a deck printed light on dark when at least this share of them
# look so (``light_on_dark``): a photo's first look (``vision.detector``), or a learned
# deck's calibration corners (``vision.decks``). A light deck's crops are flagged a few in a
# hundred, a black deck's nearly all (its calibration corners in ``deck_report black``: 0.98).
LIGHT_ON_DARK_SHARE = 2 / 3


def mostly_light_on_dark(crops: np.ndarray) -> bool:
    """Whether ``LIGHT_ON_DARK_SHARE`` or more of ``crops`` look printed light on dark
    (``light_on_dark``); no crops: False."""
    return len(crops) > 0 and float(light_on_dark(crops).mean()) >= LIGHT_ON_DARK_SHARE


def light_on_dark(crops: np.ndarray) -> np.ndarray:
    """(N,) bool: the crops whose index looks printed lighter than the card around it (gold
    or silver on a black card), judged on the middle half of each (N, CROP, CROP, 3) crop:
    its median brightness lies nearer its darkest pixels than its brightest. The
    classifier learned dark indices on light cards; such a crop is also read inverted
    (``vision.classifier``). Bold indices filling the middle and blur flag a few light
    cards' crops too (0.3 % of real ones, 4 % of rendered ones), so the flag only asks for
    the second reading and the surer of the two is kept."""
    if len(crops) == 0:
        return np.zeros(0, bool)
    side = crops.shape[1]
    cut = side // 4
    grey = crops[:, cut:side - cut, cut:side - cut].astype(np.float32).mean(axis=3)
    low, middle, high = np.percentile(grey.reshape(len(crops), -1), [5, 50, 95], axis=1)
    return (middle - low) < (high - middle)


def softened(crops: np.ndarray, side: int) -> np.ndarray:
    """(N, CROP, CROP, 3) crops averaged down to ``side`` pixels and grown back (0 or
    ``CROP``: as they are). The classifiers name a crop so softened better than the crop
    cut: on the held-out crops of our own deck's real photos, photo mode's classifier
    0.9725 -> 0.9827 at 32 pixels (models/README.md, "Session 28"). Its fine strokes, a
    fan's next edge and the sensor's grain weigh less; the rank and suit stay."""
    if side <= 0 or side >= crops.shape[1] or len(crops) == 0:
        return crops
    full = crops.shape[1]
    return np.stack([cv2.resize(cv2.resize(crop, (side, side), interpolation=cv2.INTER_AREA),
                                (full, full), interpolation=cv2.INTER_LINEAR)
                     for crop in crops])


def sized_crops(crops: np.ndarray, side: int, soften_px: int = 0) -> np.ndarray:
    """(N, CROP, CROP, 3) crops as a classifier of ``side``-pixel input reads them:
    ``softened`` to ``soften_px`` at ``CROP``; under ``CROP``, each averaged down to
    ``side`` (through ``soften_px`` first when that is smaller still)."""
    if side >= crops.shape[1] or len(crops) == 0:
        return softened(crops, soften_px)

    def sized(crop: np.ndarray) -> np.ndarray:
        if 0 < soften_px < side:
            crop = cv2.resize(crop, (soften_px, soften_px), interpolation=cv2.INTER_AREA)
            return cv2.resize(crop, (side, side), interpolation=cv2.INTER_LINEAR)
        return cv2.resize(crop, (side, side), interpolation=cv2.INTER_AREA)

    return np.stack([sized(crop) for crop in crops])


def classifier_input(crops: np.ndarray) -> np.ndarray:
    """(N, S, S, 3) uint8 RGB crops (S: ``CROP``, or the side ``sized_crops`` gave them)
    as the classifier takes them: (N, 3, S, S) in [0, 1]."""
    return _scaled_to_one(crops.transpose(0, 3, 1, 2))


TEXT_SIDE = 48  # the text recogniser's input height; corner crops are read square


def text_input(crops: np.ndarray) -> np.ndarray:
    """(N, CROP, CROP, 3) uint8 RGB crops as the text recogniser (PP-OCRv4, trained on
    OpenCV's BGR) takes them: (N, 3, TEXT_SIDE, TEXT_SIDE) in [-1, 1]."""
    if len(crops) == 0:
        return np.zeros((0, 3, TEXT_SIDE, TEXT_SIDE), np.float32)
    sized = np.stack([cv2.resize(np.ascontiguousarray(crop[:, :, ::-1]), (TEXT_SIDE, TEXT_SIDE),
                                 interpolation=cv2.INTER_LINEAR) for crop in crops])
    return ((sized.astype(np.float32) / 255.0 - 0.5) / 0.5).transpose(0, 3, 1, 2).copy()
