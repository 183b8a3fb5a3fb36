"""Photos for learning a deck, rendered or composed: the four suit photos ``cpoker deck
learn`` reads (13 cards of one suit in rank order, laid out like text) and 13-card hands of
the same deck to measure the learned reader on.

- Rendered (``suit_photo``, ``hand_photo``): a held-out deck of the scene generator.
- Composed (``composed_suit_photo``, ``composed_hand_photo``): patches cut around labelled
  corner indices of real photos (``real-decks-dev``), pasted on a plain table in order,
  for a deck we only have photos of.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from engine.cards import CARD_NAMES
from vision.decks import RANK_ORDER
from vision.training.synth.backgrounds import BACKGROUNDS
from vision.training.synth.decks import Deck
from vision.training.synth.scene import Pose, Scene, render_scene

Rng = np.random.Generator
ROW_PLANS = ((5, 5, 3), (4, 4, 4, 1), (7, 6), (5, 4, 4), (4, 5, 4), (6, 7), (3, 5, 5))


def text_layout(rng: Rng, aspect: float, count: int = 13) -> list[Pose]:
    """``count`` cards in rows read like text, apart from each other, as a person lays
    them: uneven rows, each card a little turned, the whole a little askew."""
    plans = [p for p in ROW_PLANS if sum(p) == count] or [(count,)]
    plan = plans[int(rng.integers(len(plans)))]
    dx = rng.uniform(1.08, 1.35)
    dy = aspect * rng.uniform(1.1, 1.35)
    poses: list[Pose] = []
    for r, n in enumerate(plan):
        row_shift = rng.normal(0, 0.02 * aspect)
        start = rng.normal(0, 0.1)
        for c in range(n):
            poses.append((start + c * dx + rng.normal(0, 0.03),
                          r * dy + row_shift + rng.normal(0, 0.025 * aspect),
                          rng.uniform(-5, 5)))
    turn = np.deg2rad(rng.uniform(-7, 7))
    cos, sin = np.cos(turn), np.sin(turn)
    return [(x * cos - y * sin, x * sin + y * cos, a + np.rad2deg(turn)) for x, y, a in poses]


def _shows_every_card(scene: Scene, cards: Sequence[str], corners: int = 1) -> bool:
    """Whether each card shows at least ``corners`` corner indices."""
    shown = Counter(CARD_NAMES[label[0]] for label in scene.labels)
    return all(shown[card] >= corners for card in cards)


def suit_photo(rng: Rng, deck: Deck, suit: str, size: int = 1024) -> Scene:
    """The 13 cards of ``suit`` in rank order A..K, laid out like text, every card showing
    at least one corner index."""
    cards = [f"{rank}{suit}" for rank in RANK_ORDER]
    while True:
        poses = text_layout(rng, deck.aspect)
        scene = render_scene(rng, deck, size=size, layout="suit",
                             backgrounds=tuple(BACKGROUNDS),
                             placed_cards=list(zip(cards, poses, strict=True)))
        # A person photographing the deck keeps every card whole in the frame.
        if _shows_every_card(scene, cards, corners=2):
            return scene


def hand_photo(rng: Rng, deck: Deck, size: int = 1024,
               layouts: Sequence[str] = ("spread", "rows")) -> Scene:
    """A 13-card hand of ``deck`` as the reader meets it (the generator's spread or rows),
    every card showing at least one corner index."""
    while True:
        layout = layouts[int(rng.integers(len(layouts)))]
        scene = render_scene(rng, deck, size=size, layout=layout,
                             backgrounds=tuple(BACKGROUNDS))
        if len(scene.cards) == 13 and _shows_every_card(scene, scene.cards):
            return scene


def jpeg(image: np.ndarray, quality: int) -> bytes:
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(image, cv2.COLOR_RGB2BGR),
                            [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return data.tobytes()


# --- composed from labelled real corners -------------------------------------------------

@dataclass(frozen=True)
class CornerPatch:
    """A labelled corner index of a real photo: the card and the patch around it."""

    card: str
    image: np.ndarray  # RGB patch, the index box in its middle
    box: tuple[float, float, float, float]  # the index box in patch pixels
    photo: str


def corner_patches(image: np.ndarray, labels: Sequence[tuple[str, float, float, float, float]],
                   photo: str, context: float = 1.6) -> list[CornerPatch]:
    """Patches ``context`` box sizes wide around each labelled index (YOLO-normalised
    ``card, cx, cy, w, h``): some card face around the glyphs, as in a photo."""
    height, width = image.shape[:2]
    patches = []
    for card, cx, cy, w, h in labels:
        side = max(w * width, h * height) * context
        x0 = int(max(0, cx * width - side / 2))
        y0 = int(max(0, cy * height - side / 2))
        x1 = int(min(width, cx * width + side / 2))
        y1 = int(min(height, cy * height + side / 2))
        if x1 - x0 < 8 or y1 - y0 < 8:
            continue
        box = (cx * width - w * width / 2 - x0, cy * height - h * height / 2 - y0,
               cx * width + w * width / 2 - x0, cy * height + h * height / 2 - y0)
        patches.append(CornerPatch(card, image[y0:y1, x0:x1].copy(), box, photo))
    return patches


def compose(rng: Rng, patches: Sequence[CornerPatch], columns: int, size: int = 1024,
            cell: int = 150) -> tuple[np.ndarray, list[tuple[str, tuple[float, ...]]]]:
    """The patches pasted in order on a plain table, ``columns`` a row, each scaled to fit
    a cell, placed a little off its cell's centre. Returns the photo and each patch's card
    with its index box in photo pixels."""
    table = np.array(rng.uniform(40, 120, 3), np.float32)
    canvas = np.empty((size, size, 3), np.float32)
    canvas[:] = table
    canvas += rng.normal(0, 4, canvas.shape)
    rows = (len(patches) + columns - 1) // columns
    cell = int(min(cell, size / (columns * 1.25), size / (rows * 1.4)))
    top = (size - rows * cell * 1.35) / 2
    left = (size - columns * cell * 1.2) / 2
    placed = []
    for k, patch in enumerate(patches):
        r, c = divmod(k, columns)
        scale = cell * 0.8 / max(patch.image.shape[:2])
        art = cv2.resize(patch.image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA
                         if scale < 1 else cv2.INTER_LINEAR)
        h, w = art.shape[:2]
        x0 = int(left + c * cell * 1.2 + (cell - w) / 2 + rng.normal(0, cell * 0.03))
        y0 = int(top + r * cell * 1.35 + (cell - h) / 2 + rng.normal(0, cell * 0.03))
        canvas[y0:y0 + h, x0:x0 + w] = art
        bx1, by1, bx2, by2 = (v * scale for v in patch.box)
        placed.append((patch.card, (x0 + bx1, y0 + by1, x0 + bx2, y0 + by2)))
    return np.clip(canvas, 0, 255).astype(np.uint8), placed
