"""Corner-index crops drawn in many typefaces, for the corner classifier.

A deck the classifier never saw prints its ranks in a typeface it never saw: the held-out
decks' jacks are read as sevens, their fives as threes. Sixteen rendered decks are only
sixteen typefaces, so this draws the index itself (rank over suit, as a card's corner
shows it) in the fonts installed on the machine, in the colours, rotations, blur and
clutter of a photographed corner, and cuts it as the pipeline cuts a detector's box.

    python -m vision.training.synth.fontindex --out datasets/generated/font-crops.npz --count 60000

The fonts are whatever ``fc-list`` finds (see ``datasets/DECKS.md`` for the Debian font
packages used); script, symbol and hairline faces are left out. Only crops are written,
never the fonts, under ``datasets/generated/`` (git-ignored).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from engine.cards import CARD_NAMES
from vision.netinput import MARGIN, crop_square

from .decks import SUIT_GLYPHS

RANK_TEXT = {"T": "10"}  # notation -> what a card prints; other ranks print as written
# Faces no card index uses, or that cannot draw the index at all.
SKIPPED_FACES = ("Math", "Symbol", "Keyboard", "Initials", "Hairline", "Thin", "Z003",
                 "Chorus", "D050000L", "Standard Symbols", "Font Awesome")
RED = ((200, 20, 30), (220, 40, 40), (170, 10, 20), (230, 60, 50))
BLACK = ((10, 10, 10), (30, 30, 35), (45, 40, 40))
FOUR_COLOUR = {"d": ((20, 60, 200), (30, 90, 210)), "c": ((20, 130, 40), (30, 110, 50))}
SIZE = 240  # drawing canvas; the crop is cut from it and shrunk to the classifier's size


@dataclass(frozen=True)
class Faces:
    ranks: tuple[str, ...]  # font files that draw A-K and 10
    suits: tuple[str, ...]  # font files that draw the four suit symbols


def installed_fonts() -> list[str]:
    try:
        listing = subprocess.run(["fc-list", "--format", "%{file}|%{fullname}\n"],
                                 capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    files = []
    for line in listing.splitlines():
        path, _, name = line.partition("|")
        if path.endswith((".ttf", ".otf")) and not any(s in name or s in path
                                                       for s in SKIPPED_FACES):
            files.append(path)
    return sorted(set(files))


def _draws(font: ImageFont.FreeTypeFont, text: str) -> bool:
    """True when ``font`` has real glyphs for ``text`` (not its missing-glyph box)."""
    missing = font.getmask("\ue000")  # a private-use character: no font draws it
    missing_box, missing_ink = missing.getbbox(), bytes(missing)
    for char in text:
        mask = font.getmask(char)
        if mask.getbbox() is None:
            return False
        if mask.getbbox() == missing_box and bytes(mask) == missing_ink:
            return False
    return True


def find_faces(files: Sequence[str] | None = None) -> Faces:
    files = installed_fonts() if files is None else list(files)
    ranks, suits = [], []
    for path in files:
        try:
            font = ImageFont.truetype(path, 48)
        except OSError:
            continue
        if _draws(font, "A23456789JQK10"):
            ranks.append(path)
        if _draws(font, "".join(SUIT_GLYPHS.values())):
            suits.append(path)
    if not ranks or not suits:
        raise SystemExit("no usable fonts: install some (see datasets/DECKS.md) and check "
                         "`fc-list`")
    return Faces(tuple(ranks), tuple(suits))


def text_ink(text: str, font: ImageFont.FreeTypeFont) -> np.ndarray:
    """The text's ink as a float mask, trimmed to its bounding box."""
    left, top, right, bottom = font.getbbox(text)
    image = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(image).text((2 - left, 2 - top), text, fill=255, font=font)
    mask = np.asarray(image, np.float32) / 255
    ys, xs = np.nonzero(mask > 0.05)
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def _paste(canvas: np.ndarray, mask: np.ndarray, x: int, y: int,
           colour: Sequence[int]) -> None:
    h, w = mask.shape
    region = canvas[y:y + h, x:x + w]
    alpha = mask[:region.shape[0], :region.shape[1], None]
    region[:] = region * (1 - alpha) + np.asarray(colour, np.float32) * alpha


def draw_index(rng: np.random.Generator, faces: Faces, card: str) -> tuple[np.ndarray, tuple]:
    """A card-coloured canvas with ``card``'s corner index; returns it (float RGB) and the
    index's box (x1, y1, x2, y2)."""
    rank, suit = card[0], card[1]
    paper = np.array([255, 255, 255], np.float32) - rng.uniform(0, 30) * \
        np.array([0.3, 0.5, 1.0]) * rng.uniform(0, 1)
    canvas = np.ones((SIZE, SIZE, 3), np.float32) * paper
    colours = FOUR_COLOUR[suit] if suit in FOUR_COLOUR and rng.random() < 0.15 else \
        RED if suit in "hd" else BLACK
    colour = colours[int(rng.integers(len(colours)))]
    rank_font = ImageFont.truetype(faces.ranks[int(rng.integers(len(faces.ranks)))],
                                   int(rng.integers(44, 64)))
    suit_font = ImageFont.truetype(faces.suits[int(rng.integers(len(faces.suits)))],
                                   int(rng.integers(36, 60)))
    rank_ink = text_ink(RANK_TEXT.get(rank, rank), rank_font)
    # Narrow faces and squeezed tens, as many decks print them.
    squeeze = rng.uniform(0.55, 0.85) if rank == "T" and rng.random() < 0.6 else \
        rng.uniform(0.8, 1.15)
    rank_ink = cv2.resize(rank_ink, (max(4, int(rank_ink.shape[1] * squeeze)),
                                     rank_ink.shape[0]), interpolation=cv2.INTER_AREA)
    suit_ink = text_ink(SUIT_GLYPHS[suit], suit_font)
    scale = rng.uniform(0.45, 0.85) * rank_ink.shape[0] / suit_ink.shape[0]
    suit_ink = cv2.resize(suit_ink, (max(4, int(suit_ink.shape[1] * scale)),
                                     max(4, int(suit_ink.shape[0] * scale))),
                          interpolation=cv2.INTER_AREA)
    gap = int(rng.uniform(0.05, 0.3) * rank_ink.shape[0])
    x0, y0 = int(rng.integers(70, 90)), int(rng.integers(50, 70))
    if rng.random() < 0.15:  # suit beside the rank, as on some poker-index decks
        _paste(canvas, rank_ink, x0, y0, colour)
        sx, sy = x0 + rank_ink.shape[1] + gap, y0 + (rank_ink.shape[0] - suit_ink.shape[0]) // 2
        box = (x0, y0, sx + suit_ink.shape[1], y0 + rank_ink.shape[0])
    else:
        width = max(rank_ink.shape[1], suit_ink.shape[1])
        rx = x0 + (width - rank_ink.shape[1]) // 2
        sx, sy = x0 + (width - suit_ink.shape[1]) // 2, y0 + rank_ink.shape[0] + gap
        _paste(canvas, rank_ink, rx, y0, colour)
        box = (x0, y0, x0 + width, sy + suit_ink.shape[0])
    _paste(canvas, suit_ink, sx, sy, colour)
    _clutter(rng, canvas, box, suit_ink, colour)
    return canvas, box


def _clutter(rng: np.random.Generator, canvas: np.ndarray, box: tuple, suit_ink: np.ndarray,
             colour: Sequence[int]) -> None:
    """What lies around a real corner: the card's edge and the table, a pip, a frame."""
    x1, y1, x2, y2 = box
    if rng.random() < 0.6:  # the card's edges, left of and above the index
        table = rng.uniform(20, 200, 3).astype(np.float32)
        left = int(x1 - rng.uniform(4, 30))
        top = int(y1 - rng.uniform(4, 30))
        canvas[:, :max(0, left)] = table
        canvas[:max(0, top), :] = table
    if rng.random() < 0.4:  # a pip beside or below the index
        big = cv2.resize(suit_ink, None, fx=rng.uniform(1.2, 2.2), fy=rng.uniform(1.2, 2.2))
        px = int(x2 + rng.uniform(5, 30))
        py = int(rng.uniform(y1, y2 + 20))
        if px + 4 < SIZE and py + 4 < SIZE:
            _paste(canvas, big[:SIZE - py, :SIZE - px], px, py, colour)
    if rng.random() < 0.2:  # a face card's frame line
        x = int(x2 + rng.uniform(3, 15))
        cv2.line(canvas, (x, int(y1 + rng.uniform(0, 30))), (x, SIZE), tuple(
            float(c) for c in rng.uniform(0, 200, 3)), int(rng.integers(1, 3)))


def render_crop(rng: np.random.Generator, faces: Faces, card: str) -> np.ndarray:
    """One 40 x 40 crop of ``card``'s index, as the pipeline would cut it from a photo."""
    canvas, (x1, y1, x2, y2) = draw_index(rng, faces, card)
    # Rotation: most corners upright or upside down (a card's far corner), some at any
    # angle (fans, piles); a little perspective.
    choice = rng.random()
    angle = rng.normal(0, 12) if choice < 0.5 else 180 + rng.normal(0, 12) if choice < 0.75 \
        else rng.uniform(0, 360)
    centre = ((x1 + x2) / 2, (y1 + y2) / 2)
    matrix = cv2.getRotationMatrix2D(centre, angle, 1.0)
    corners = np.array([[x1, y1, 1], [x2, y1, 1], [x1, y2, 1], [x2, y2, 1]], np.float32)
    warped = cv2.warpAffine(canvas, matrix, (SIZE, SIZE), borderMode=cv2.BORDER_REPLICATE)
    moved = corners @ matrix.T
    bx1, by1 = moved.min(axis=0)
    bx2, by2 = moved.max(axis=0)
    # Light: a gradient and a gain.
    gradient = np.linspace(rng.uniform(0.6, 1.0), rng.uniform(0.8, 1.1), SIZE, dtype=np.float32)
    warped *= (gradient[:, None] if rng.random() < 0.5 else gradient[None, :])[..., None]
    warped = np.clip(warped * rng.uniform(0.7, 1.1), 0, 255).astype(np.uint8)
    # The detector's box is never exact: jitter it as make_crops does for rendered scenes.
    bw, bh = (bx2 - bx1) * rng.uniform(0.85, 1.2), (by2 - by1) * rng.uniform(0.85, 1.2)
    cx = (bx1 + bx2) / 2 + rng.normal(0, 0.08) * bw
    cy = (by1 + by2) / 2 + rng.normal(0, 0.08) * bh
    crop = crop_square(warped, (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2),
                       margin=MARGIN * rng.uniform(0.9, 1.15))
    if rng.random() < 0.5:
        crop = cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.3, 1.0))
    quality = int(rng.integers(40, 96))
    return cv2.imdecode(cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, quality])[1],
                        cv2.IMREAD_UNCHANGED)


def make_font_crops(count: int, seed: int, faces: Faces | None = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    from tqdm import tqdm

    faces = faces or find_faces()
    rng = np.random.default_rng(seed)
    labels = rng.integers(len(CARD_NAMES), size=count)
    images = np.stack([render_crop(rng, faces, CARD_NAMES[int(label)])
                       for label in tqdm(labels, desc="font crops", unit="crop")])
    return images, labels.astype(np.int64)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.training.synth.fontindex",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=60_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--preview", type=Path, default=None,
                        help="also write a PNG grid of the first 96 crops")
    args = parser.parse_args(argv)
    faces = find_faces()
    print(f"{len(faces.ranks)} rank faces, {len(faces.suits)} suit faces", file=sys.stderr)
    images, labels = make_font_crops(args.count, args.seed, faces)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, images=images, labels=labels)
    if args.preview is not None:
        tiles = [cv2.resize(image, (80, 80), interpolation=cv2.INTER_NEAREST)
                 for image in images[:96]]
        tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % 12)
        grid = np.vstack([np.hstack(tiles[i:i + 12]) for i in range(0, len(tiles), 12)])
        cv2.imwrite(str(args.preview), grid[:, :, ::-1])
    print(f"{len(labels)} crops -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
