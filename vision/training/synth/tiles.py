"""Training tiles for photo mode: the detector sees each index at the size photo mode
will show it, whatever the size of the photo.

Photo mode (``vision.pipeline``) rescales a photo so that its corner indices land near a
target height in the network's input, then reads it in one pass or in tiles. So a scene
drawn at phone resolution is rescaled here so that its median index is a random height
from ``INDEX_HEIGHTS`` (log-uniform: as many small as large), and 640-pixel tiles are cut
from it, most of them centred on a labelled index and one anywhere. A box cut by a tile's
edge is kept, clipped, when at least ``MIN_KEPT`` of it lies inside; otherwise dropped.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.training.synth.scene import Scene

INDEX_HEIGHTS = (8.0, 64.0)  # px in the network's input: photo mode's working range
MIN_KEPT = 0.6
Label = tuple[int, float, float, float, float]


def rescale_for_index(scene: Scene, height: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The scene's image rescaled so its median index box is ``height`` pixels tall, and
    its boxes (class, x1, y1, x2, y2 in the new pixels); also the scale used."""
    size = scene.image.shape[0]
    labels = np.array(scene.labels, np.float64).reshape(-1, 5)
    median = float(np.median(labels[:, 4])) * size if len(labels) else height
    scale = height / max(median, 1.0)
    new = max(32, round(size * scale))
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    image = cv2.resize(scene.image, (new, new), interpolation=interpolation)
    boxes = np.zeros((len(labels), 5))
    if len(labels):
        cx, cy, w, h = (labels[:, k] * new for k in range(1, 5))
        boxes = np.stack([labels[:, 0], cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)
    return image, boxes, new / size


def tile_labels(boxes: np.ndarray, x0: int, y0: int, tile: int) -> list[Label]:
    """YOLO lines for the boxes seen in the tile at (x0, y0)."""
    out: list[Label] = []
    for cls, x1, y1, x2, y2 in boxes:
        cx1, cy1 = max(x1 - x0, 0), max(y1 - y0, 0)
        cx2, cy2 = min(x2 - x0, tile), min(y2 - y0, tile)
        if cx2 <= cx1 or cy2 <= cy1:
            continue
        if (cx2 - cx1) * (cy2 - cy1) < MIN_KEPT * (x2 - x1) * (y2 - y1):
            continue
        out.append((int(cls), (cx1 + cx2) / 2 / tile, (cy1 + cy2) / 2 / tile,
                    (cx2 - cx1) / tile, (cy2 - cy1) / tile))
    return out


def cut_tiles(rng: np.random.Generator, scene: Scene, count: int, tile: int = 640
              ) -> list[tuple[np.ndarray, list[Label], float]]:
    """``count`` tiles of ``scene`` (image, labels, median index height in the tile)."""
    low, high = np.log(INDEX_HEIGHTS[0]), np.log(INDEX_HEIGHTS[1])
    tiles = []
    for k in range(count):
        height = float(np.exp(rng.uniform(low, high)))
        image, boxes, _ = rescale_for_index(scene, height)
        side = image.shape[0]
        if side <= tile:  # the whole (small) scene, padded as the reader pads it
            canvas = np.full((tile, tile, 3), 114, np.uint8)
            off = (tile - side) // 2
            canvas[off:off + side, off:off + side] = image
            tiles.append((canvas, tile_labels(boxes, -off, -off, tile), height))
            continue
        if k < count - 1 and len(boxes):  # centred near a random index
            _, x1, y1, x2, y2 = boxes[int(rng.integers(len(boxes)))]
            cx = (x1 + x2) / 2 + rng.uniform(-0.4, 0.4) * tile
            cy = (y1 + y2) / 2 + rng.uniform(-0.4, 0.4) * tile
        else:
            cx, cy = rng.uniform(0, side, 2)
        x0 = int(np.clip(cx - tile / 2, 0, side - tile))
        y0 = int(np.clip(cy - tile / 2, 0, side - tile))
        tiles.append((np.ascontiguousarray(image[y0:y0 + tile, x0:x0 + tile]),
                      tile_labels(boxes, x0, y0, tile), height))
    return tiles
