"""Crops of whole card faces, for a reader of the face (its pips, its court figure) beside
the corner classifier: a webcam's blurred index is a few smeared pixels where the pips
beside it still show (models/README.md, "Session 70").

A face crop is the square around the span of one card's two corner indices
(``vision.netinput.face_square``): what the reader can cut wherever it boxes both corners
of a card, and what the labels of a set boxed by corner index give for every card seen in
two corners.

    python -m vision.training.face_crops rendered --out F.npz --scenes 3000 [--role val]
    python -m vision.training.face_crops real --out F.npz --split train [--kinds ...]
    python -m vision.training.face_crops cards --out F.npz --split train

``--side`` cuts the squares at that many pixels (default the corner classifier's
``CROP``): a face holds ten pips where an index holds two glyphs.

``cards`` cuts the faces of a set labelled by whole card (``real-photos-dev``): the square
around each card's box that lies clear of the others and of the photo's edge, which is
about what the square around its two corners' span gives.

The files are the corner classifier's crop files (``images``, ``labels``), so
``train_classifier train`` trains a face reader on them unchanged.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from engine.cards import CARD_NAMES
from vision.netinput import CROP, crop_square, face_square
from vision.photo import load_photo
from vision.reading import overlap_areas

from .labels import class_names, labelled_boxes
from .realdata import REAL_DECKS, REAL_PHOTOS, photos, photos_of_kinds

# The layouts whose cards show both corners clear of the others (the scenes a face is
# learned from): cards laid apart, a few or a spread hand.
FACE_LAYOUTS = ("few", "spread")


def card_pairs(labels: Sequence[tuple[str, Sequence[float]]]
               ) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """(card, corner a, corner b) for each card labelled in exactly two corners (x1 y1 x2
    y2): a deck holds each card once, so two corners of one name are one card's."""
    corners: dict[str, list[np.ndarray]] = defaultdict(list)
    for card, box in labels:
        corners[card].append(np.asarray(box, np.float64))
    for card, boxes in sorted(corners.items()):
        if len(boxes) == 2:
            yield card, boxes[0], boxes[1]


def jittered_faces(image: np.ndarray, a: np.ndarray, b: np.ndarray, count: int,
                   rng: np.random.Generator, side: int = CROP) -> Iterator[np.ndarray]:
    """``count`` face crops of one card, ``side`` pixels square: the first from its corners
    as labelled, the others with each corner's box moved and sized as a detector's boxes
    vary."""
    for cut in range(count):
        if cut == 0:
            yield face_square(image, a, b, size=side)
            continue
        yield face_square(image, _jittered(a, rng), _jittered(b, rng),
                          pad=float(rng.uniform(0.4, 0.9)), size=side)


def _jittered(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    x1, y1, x2, y2 = box
    w, h = (x2 - x1) * rng.uniform(0.85, 1.2), (y2 - y1) * rng.uniform(0.85, 1.2)
    cx, cy = (x1 + x2) / 2 + rng.normal(0, 0.08) * w, (y1 + y2) / 2 + rng.normal(0, 0.08) * h
    return np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])


def rendered_faces(scenes: int, seed: int, role: str, size: int = 960, per_card: int = 2,
                   side: int = CROP) -> tuple[np.ndarray, np.ndarray]:
    """Face crops (``side`` pixels) of every card seen in both corners in ``scenes``
    rendered scenes of ``role`` decks, laid out as ``FACE_LAYOUTS``, each cut ``per_card``
    times."""
    from .train_classifier import corner_boxes, layout_weights, rendered_scenes

    rng = np.random.default_rng(seed)
    images: list[np.ndarray] = []
    labels: list[int] = []
    for scene, photo in rendered_scenes(rng, scenes, role, size,
                                        layout_weights(FACE_LAYOUTS), what="faces"):
        boxes = corner_boxes(scene, size, size)
        named = [(CARD_NAMES[int(label[0])], box) for label, box in
                 zip(scene.labels, boxes, strict=True)]
        for card, a, b in card_pairs(named):
            for crop in jittered_faces(photo, a, b, per_card, rng, side):
                images.append(crop)
                labels.append(CARD_NAMES.index(card))
    return np.stack(images), np.array(labels, np.int64)


def real_faces(split: str, root: Path = REAL_DECKS, per_card: int = 3, seed: int = 0,
               kinds: Sequence[str] | None = None, side: int = CROP
               ) -> tuple[np.ndarray, np.ndarray]:
    """Face crops (``side`` pixels) of every card labelled in both corners in ``split``'s
    photos of a set boxed by corner index (``real-decks-dev``; ``kinds``: only these
    decks)."""
    rng = np.random.default_rng(seed)
    names = class_names(root)
    images: list[np.ndarray] = []
    labels: list[int] = []
    for path in photos_of_kinds(split, root, kinds):
        image = load_photo(path)
        height, width = image.shape[:2]
        for card, a, b in card_pairs(labelled_boxes(path, width, height, names)):
            for crop in jittered_faces(image, a, b, per_card, rng, side):
                images.append(crop)
                labels.append(CARD_NAMES.index(card))
    if not images:
        raise ValueError(f"no card labelled in two corners in {root}'s {split} photos")
    return np.stack(images), np.array(labels, np.int64)


# A whole card's box counts as its face when at most this share of it lies under the other
# cards' boxes (summed), and it lies inside the photo: a box is the card's upright bounds,
# so a turned card's square shows some of the table and its neighbours anyway.
MAX_COVERED = 0.15


def clear_cards(boxes: np.ndarray, width: int, height: int) -> np.ndarray:
    """(N,) bool: the whole-card boxes (x1 y1 x2 y2) whose face shows, clear of the
    other cards (``MAX_COVERED``) and of the photo's edge."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    shared = overlap_areas(boxes, boxes)
    np.fill_diagonal(shared, 0.0)  # a box lies wholly on itself
    area = np.maximum((boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]), 1.0)
    inside = (boxes[:, 0] >= 1) & (boxes[:, 1] >= 1) & (boxes[:, 2] <= width - 1) & \
        (boxes[:, 3] <= height - 1)
    return inside & (shared.sum(axis=1) / area <= MAX_COVERED)


def card_faces(split: str, root: Path = REAL_PHOTOS, per_card: int = 3, seed: int = 0,
               side: int = CROP) -> tuple[np.ndarray, np.ndarray]:
    """Face crops (``side`` pixels) of every clear card (``clear_cards``) in ``split``'s
    photos of a set labelled by whole card, each cut ``per_card`` times: the first the
    square around its box, the others moved and sized a little, as the corners' span
    varies with a detector's boxes."""
    rng = np.random.default_rng(seed)
    names = class_names(root)
    images: list[np.ndarray] = []
    labels: list[int] = []
    for path in photos(split, root):
        image = load_photo(path)
        height, width = image.shape[:2]
        labelled = labelled_boxes(path, width, height, names)
        boxes = np.array([box for _, box in labelled], np.float64).reshape(-1, 4)
        for (card, _), box, clear in zip(labelled, boxes, clear_cards(boxes, width, height),
                                         strict=True):
            if not clear:
                continue
            for cut in range(per_card):
                square, margin = box, 1.0
                if cut > 0:
                    wide, tall = box[2] - box[0], box[3] - box[1]
                    x = (box[0] + box[2]) / 2 + rng.normal(0, 0.03) * wide
                    y = (box[1] + box[3]) / 2 + rng.normal(0, 0.03) * tall
                    square = np.array([x - wide / 2, y - tall / 2, x + wide / 2, y + tall / 2])
                    margin = float(rng.uniform(0.9, 1.12))
                images.append(crop_square(image, square, margin=margin, size=side))
                labels.append(CARD_NAMES.index(card))
    if not images:
        raise ValueError(f"no card lies clear in {root}'s {split} photos")
    return np.stack(images), np.array(labels, np.int64)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.training.face_crops",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rendered = sub.add_parser("rendered", help="face crops of rendered scenes")
    rendered.add_argument("--out", type=Path, required=True)
    rendered.add_argument("--scenes", type=int, default=3000)
    rendered.add_argument("--seed", type=int, default=0)
    rendered.add_argument("--role", choices=["train", "val"], default="train")
    rendered.add_argument("--size", type=int, default=960)
    real = sub.add_parser("real", help="face crops of real-decks-dev's photos")
    real.add_argument("--out", type=Path, required=True)
    real.add_argument("--split", choices=["train", "tune", "holdout"], default="train")
    real.add_argument("--kinds", nargs="+", default=None)
    real.add_argument("--per-card", type=int, default=3)
    real.add_argument("--root", type=Path, default=REAL_DECKS)
    cards = sub.add_parser("cards", help="face crops of a set labelled by whole card "
                           "(real-photos-dev)")
    cards.add_argument("--out", type=Path, required=True)
    cards.add_argument("--split", choices=["train", "tune", "holdout"], default="train")
    cards.add_argument("--per-card", type=int, default=3)
    cards.add_argument("--root", type=Path, default=REAL_PHOTOS)
    for command in (rendered, real, cards):
        command.add_argument("--side", type=int, default=CROP,
                             help=f"the squares' side in pixels (default {CROP})")
    args = parser.parse_args(argv)
    if not 16 <= args.side <= 256:
        print(f"--side {args.side}: choose 16 to 256 pixels", file=sys.stderr)
        return 2
    try:
        if args.command == "rendered":
            images, labels = rendered_faces(args.scenes, args.seed, args.role, args.size,
                                            side=args.side)
        else:
            if not args.root.is_dir():
                print(f"no data set at {args.root}: give --root", file=sys.stderr)
                return 2
            if args.command == "cards":
                images, labels = card_faces(args.split, args.root, args.per_card,
                                            side=args.side)
            else:
                images, labels = real_faces(args.split, args.root, args.per_card,
                                            kinds=args.kinds, side=args.side)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, images=images, labels=labels)
    print(f"{len(labels)} face crops -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
