"""Training decks reprinted in other typefaces: a deck's art with its corner indices
erased and drawn again in an installed font.

The classifier misreads the held-out decks' fans because it never saw their typefaces
where a fan shows them: a narrow strip of index with the next card's index stacked
against it (models/README.md, session 30). ``fontindex`` draws typefaces one index at a
time; rendered decks draw fans, but in only seventeen typefaces. A reprinted deck has
both: each one keeps its base deck's paper, pips, court art and layout, and prints all
52 indices in one rank face and one suit face drawn from ``fc-list``, as a real design
does. Written to the deck cache with role ``train``, a reprinted deck goes through
``synth`` and ``train_classifier crops --decks`` like any other.

    python -m vision.training.synth.retype --count 24 --seed 1

Only training decks are reprinted, so the held-out designs stay unseen. Nothing is
written outside ``datasets/cache/`` (git-ignored); the fonts are never copied.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageFont

from engine.cards import CARD_NAMES

from .decks import CACHE, SUIT_GLYPHS, Box, Deck, available_decks, ink_mask, load_deck, save_deck
from .fontindex import BLACK, FOUR_COLOUR, RANK_TEXT, RED, Faces, find_faces, text_ink

PREFIX = "retype-"  # a reprinted deck's cache name: retype-BASE-SEED-N


def _paper(card: np.ndarray, ink: np.ndarray, box: Box, ring: int) -> np.ndarray:
    """The card's own colour around ``box``: the median of the opaque pixels of a ring
    ``ring`` pixels wide outside it that are not ``ink`` (the card's ``ink_mask``)."""
    x0, y0, x1, y1 = box
    h, w = card.shape[:2]
    ox0, oy0, ox1, oy1 = max(0, x0 - ring), max(0, y0 - ring), min(w, x1 + ring), \
        min(h, y1 + ring)
    patch = card[oy0:oy1, ox0:ox1]
    keep = (patch[:, :, 3] > 250) & ~ink[oy0:oy1, ox0:ox1]
    keep[y0 - oy0:y1 - oy0, x0 - ox0:x1 - ox0] = False
    pixels = patch[keep][:, :3]
    if len(pixels) < 10:
        return np.array([250, 250, 250], np.float32)
    return np.median(pixels, axis=0).astype(np.float32)


def _index_ink(rank_font: ImageFont.FreeTypeFont,
               suit_font: ImageFont.FreeTypeFont, card: str, height: int,
               squeeze_ten: float, suit_share: float, gap_share: float) -> np.ndarray:
    """The index (rank over suit) as a float ink mask ``height`` pixels tall."""
    rank_ink = text_ink(RANK_TEXT.get(card[0], card[0]), rank_font)
    if card[0] == "T":
        rank_ink = cv2.resize(rank_ink, (max(4, int(rank_ink.shape[1] * squeeze_ten)),
                                         rank_ink.shape[0]), interpolation=cv2.INTER_AREA)
    suit_ink = text_ink(SUIT_GLYPHS[card[1]], suit_font)
    scale = suit_share * rank_ink.shape[0] / suit_ink.shape[0]
    suit_ink = cv2.resize(suit_ink, (max(4, int(suit_ink.shape[1] * scale)),
                                     max(4, int(suit_ink.shape[0] * scale))),
                          interpolation=cv2.INTER_AREA)
    gap = int(gap_share * rank_ink.shape[0])
    width = max(rank_ink.shape[1], suit_ink.shape[1])
    mask = np.zeros((rank_ink.shape[0] + gap + suit_ink.shape[0], width), np.float32)
    rx = (width - rank_ink.shape[1]) // 2
    mask[:rank_ink.shape[0], rx:rx + rank_ink.shape[1]] = rank_ink
    sx = (width - suit_ink.shape[1]) // 2
    mask[rank_ink.shape[0] + gap:, sx:sx + suit_ink.shape[1]] = suit_ink
    scale = height / mask.shape[0]
    return cv2.resize(mask, (max(4, round(mask.shape[1] * scale)), height),
                      interpolation=cv2.INTER_AREA)


def _stamp(image: np.ndarray, ink: np.ndarray, centre: tuple[float, float],
           colour: np.ndarray) -> Box:
    """Paint ``ink`` in ``colour`` onto the opaque part of ``image`` (float RGBA), centred;
    return the box of the ink painted."""
    h, w = ink.shape
    x = round(centre[0] - w / 2)
    y = round(centre[1] - h / 2)
    cx0, cy0 = max(0, -x), max(0, -y)
    x, y = max(0, x), max(0, y)
    region = image[y:y + h - cy0, x:x + w - cx0]
    alpha = ink[cy0:cy0 + region.shape[0], cx0:cx0 + region.shape[1], None] * \
        (region[:, :, 3:] > 250)
    region[:, :, :3] = region[:, :, :3] * (1 - alpha) + colour * alpha
    ys, xs = np.nonzero(alpha[:, :, 0] > 0.05)
    if len(xs) == 0:
        raise ValueError("the new index fell off the card")
    return (x + int(xs.min()), y + int(ys.min()), x + int(xs.max()) + 1, y + int(ys.max()) + 1)


def reprint(deck: Deck, rng: np.random.Generator, faces: Faces
            ) -> tuple[dict[str, Image.Image], dict[str, tuple[Box, Box]], str]:
    """``deck``'s 52 cards with every corner index erased and printed again in one rank
    face and one suit face drawn from ``faces``; returns the cards, the new indices' boxes
    (top-left, bottom-right) and the faces' names."""
    rank_path = faces.ranks[int(rng.integers(len(faces.ranks)))]
    suit_path = faces.suits[int(rng.integers(len(faces.suits)))]
    rank_font = ImageFont.truetype(rank_path, 96)
    suit_font = ImageFont.truetype(suit_path, 96)
    # One design's habits, kept for all its cards.
    squeeze_ten = rng.uniform(0.55, 0.85) if rng.random() < 0.6 else 1.0
    suit_share = rng.uniform(0.5, 0.85)
    gap_share = rng.uniform(0.05, 0.25)
    size = rng.uniform(0.85, 1.15)  # the new index's height over the old one's
    four_colour = rng.random() < 0.2
    red = np.array(RED[int(rng.integers(len(RED)))], np.float32)
    black = np.array(BLACK[int(rng.integers(len(BLACK)))], np.float32)
    cards = {}
    boxes: dict[str, tuple[Box, Box]] = {}
    for card in CARD_NAMES:
        image = deck.images[card].astype(np.float32)
        suit = card[1]
        colour = np.array(FOUR_COLOUR[suit][0], np.float32) if four_colour and \
            suit in FOUR_COLOUR else red if suit in "hd" else black
        ink_of_card = ink_mask(deck.images[card])
        (_, top, _, bottom), _ = deck.corners[card]
        printed = _index_ink(rank_font, suit_font, card, max(8, round((bottom - top) * size)),
                             squeeze_ten, suit_share, gap_share)
        drawn: list[Box] = []
        for turn, box in enumerate(deck.corners[card]):
            x0, y0, x1, y1 = box
            # Anti-aliased ink reaches a pixel or two past the box.
            pad = 2
            ex0, ey0 = max(0, x0 - pad), max(0, y0 - pad)
            ex1, ey1 = min(image.shape[1], x1 + pad), min(image.shape[0], y1 + pad)
            paper = _paper(deck.images[card], ink_of_card, (ex0, ey0, ex1, ey1), ring=5)
            opaque = image[ey0:ey1, ex0:ex1, 3:] > 250
            image[ey0:ey1, ex0:ex1, :3] = np.where(opaque, paper, image[ey0:ey1, ex0:ex1, :3])
            ink = printed
            # A design squeezes a wide index (a ten) rather than print it over its pips.
            widest = max(6, round((x1 - x0) * 1.3))
            if ink.shape[1] > widest:
                ink = cv2.resize(ink, (widest, ink.shape[0]), interpolation=cv2.INTER_AREA)
            if turn == 1:  # the far corner prints the index upside down
                ink = ink[::-1, ::-1]
            # Anchored at the old index's outer corner, as a design lays its index out.
            if turn == 0:
                centre = (x0 + ink.shape[1] / 2 if ink.shape[1] > x1 - x0 else (x0 + x1) / 2,
                          y0 + ink.shape[0] / 2)
            else:
                centre = (x1 - ink.shape[1] / 2 if ink.shape[1] > x1 - x0 else (x0 + x1) / 2,
                          y1 - ink.shape[0] / 2)
            drawn.append(_stamp(image, ink, centre, colour))
        boxes[card] = (drawn[0], drawn[1])
        cards[card] = Image.fromarray(np.clip(image, 0, 255).astype(np.uint8), "RGBA")
    return cards, boxes, f"{Path(rank_path).stem} / {Path(suit_path).stem}"


def reprint_decks(count: int, seed: int, cache_dir: Path = CACHE,
                  bases: Sequence[str] | None = None, faces: Faces | None = None) -> list[str]:
    """Write ``count`` reprinted decks of the training decks (or ``bases``) to the cache;
    return the names written. ``faces``: the typefaces to draw from (default: those
    ``fc-list`` finds). A deck whose new index falls off a card is skipped with a
    message, as ``decks.fetch`` skips one."""
    rng = np.random.default_rng(seed)
    faces = faces or find_faces()
    names = [name for name in (bases or available_decks("train", cache_dir))
             if not name.startswith(PREFIX)]
    if not names:
        raise SystemExit("no training decks in the cache: run `python -m "
                         "vision.training.synth.decks fetch` first")
    written = []
    for number in range(count):
        base = names[number % len(names)]
        name = f"{PREFIX}{base}-{seed}-{number}"
        try:
            cards, boxes, faces_used = reprint(load_deck(base, cache_dir), rng, faces)
            save_deck(name, cards, {"source": f"{base}, indices reprinted in {faces_used}",
                                    "licence": "the base deck's (datasets/DECKS.md)",
                                    "role": "train"}, cache_dir, known_corners=boxes)
        except ValueError as error:
            print(f"skipped {error}", file=sys.stderr)
            continue
        written.append(name)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=24, help="reprinted decks to write")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bases", nargs="+", default=None,
                        help="training decks to reprint (default: all of them)")
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error(f"--count must be 1 or more, not {args.count}")
    written = reprint_decks(args.count, args.seed, bases=args.bases)
    print(f"wrote {len(written)} reprinted decks: {' '.join(written)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
