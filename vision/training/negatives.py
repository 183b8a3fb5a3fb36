"""Crops of boxes that are no corner index: pips, court art, card backs, a tablecloth.

The classifier names every box it is given as one of 52 cards: a club pip the detector
boxed in a close photo comes out as K♠ at 0.5, and every detector trained for more recall
so far boxed more of them (models/README.md, sessions 14-16). So the photo classifier also
learns to say whether a crop shows a corner index at all (``train_classifier --index-head``),
and these are the crops it learns "no" from: the boxes the shipped reader finds at a low
threshold in training photos that lie on no card's index.

A box is taken as no index when
1. it overlaps no labelled corner box (the rendered scenes and ``real-decks-dev`` label
   corners; ``real-photos-dev`` labels whole cards, so there this test is skipped);
2. none of the classifier's three likeliest names for it is a card in the photo (a misread
   index of a card in the photo usually keeps its own name among them); in rendered
   scenes, none shares its rank with a card of the photo (their half-hidden corners are
   not labelled, and a strip of one often shows the rank alone);
3. in ``real-decks-dev``, it lies away from the photo's edge (its labels leave out cards
   the edge cuts).
Only training photos and training decks are read (the real sets' tune photos with
``--split tune``, to measure on).

    python -m vision.training.negatives --out datasets/generated/negatives.npz \\
        --scenes 300 --real-photos --real-decks

Each box is cut as the classifier's crop files are (``vision.netinput.crop_square``,
jittered as ``realdata.jittered_crops``). What is written goes under
``datasets/generated/`` (git-ignored).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from engine.cards import CARD_NAMES
from vision.detections import Detections
from vision.detector import CardDetector, default_model
from vision.photo import load_photo
from vision.reading import nested_shares

from .labels import class_names, labelled_boxes
from .realdata import REAL_DECKS, REAL_PHOTOS, jittered_crops, photos
from .train_classifier import NOT_INDEX, corner_boxes, jpeg_copy

# The reader's thresholds while mining: every box the detectors score from LOW_SCORE is
# named, so the boxes a reader tuned for recall would see are among them.
LOW_SCORE = 0.1
# A box overlapping a labelled corner by more than this (intersection over the smaller
# box) may be a part of that index: not taken.
MAX_OVERLAP = 0.1
# real-decks-dev leaves out cards cut by the photo's edge: boxes this near it (a share of
# the photo's side) are not taken.
EDGE_SHARE = 0.12
# A box whose likeliest names hold a card of the photo may be that card's index, misread.
NAMES_CHECKED = 3


def mining_detector(weights: Path | None = None) -> CardDetector:
    """The shipped reader at a low threshold; ``weights``: another detector export in the
    shipped one's place (the table detector stays), so that the boxes a detector in trial
    adds on pips and court art can be taught as no index before it ships."""
    info = dataclasses.replace(default_model(), conf=LOW_SCORE, faint_conf=LOW_SCORE,
                               min_class_conf=0.0, faint_class_conf=0.0,
                               table_conf=LOW_SCORE)
    if weights is not None:
        info = dataclasses.replace(info, weights=weights)
    return CardDetector(info)


def no_index_boxes(found: Detections, present: set[str], corners: np.ndarray | None,
                   shape: tuple[int, ...], edge_share: float = 0.0,
                   by_rank: bool = False) -> np.ndarray:
    """The boxes of ``found`` (named, with probabilities) that show no index of the photo's
    ``present`` cards, by the rules in the module's docstring. ``by_rank``: a likely name
    that shares its rank with a card of the photo also keeps a box out (rendered scenes
    leave the corners a covering card half hides unlabelled, and such a strip often shows
    the rank alone)."""
    if len(found) == 0:
        return np.zeros((0, 4))
    assert found.class_probabilities is not None
    likeliest = np.argsort(-found.class_probabilities, axis=1)[:, :NAMES_CHECKED]
    if by_rank:
        ranks = {card[0] for card in present}
        present_ids = {i for i, card in enumerate(CARD_NAMES) if card[0] in ranks}
    else:
        present_ids = {CARD_NAMES.index(card) for card in present}
    keep = np.array([not (set(row.tolist()) & present_ids) for row in likeliest])
    if corners is not None and len(corners):
        keep &= nested_shares(found.xyxy, corners).max(axis=1) <= MAX_OVERLAP
    if edge_share > 0:
        height, width = shape[:2]
        cx, cy = found.centers[:, 0], found.centers[:, 1]
        keep &= (cx > edge_share * width) & (cx < (1 - edge_share) * width) & \
            (cy > edge_share * height) & (cy < (1 - edge_share) * height)
    return found.xyxy[keep]


def _cut(image: np.ndarray, boxes: np.ndarray, per_box: int,
         rng: np.random.Generator) -> Iterator[np.ndarray]:
    for box in boxes:
        yield from jittered_crops(image, box, per_box, rng)


def rendered_negatives(detector: CardDetector, scenes: int, seed: int, per_box: int
                       ) -> Iterator[np.ndarray]:
    """No-index crops from ``scenes`` rendered scenes of the training decks at 1280x960."""
    from tqdm import tqdm

    from vision.training.synth.backgrounds import TRAIN_BACKGROUNDS
    from vision.training.synth.decks import available_decks, load_deck
    from vision.training.synth.scene import render_scene

    rng = np.random.default_rng(seed)
    decks = [load_deck(name) for name in available_decks("train")]
    for _ in tqdm(range(scenes), desc="rendered", unit="scene"):
        deck = decks[int(rng.integers(len(decks)))]
        scene = render_scene(rng, deck, size=1280, height=960, backgrounds=TRAIN_BACKGROUNDS)
        image = jpeg_copy(scene)
        height, width = image.shape[:2]
        corners = corner_boxes(scene, width, height)
        found = detector.detect(image, "table")
        yield from _cut(image, no_index_boxes(found, set(scene.cards), corners, image.shape,
                                              by_rank=True), per_box, rng)


def real_negatives(detector: CardDetector, root: Path, corner_labels: bool, per_box: int,
                   seed: int, split: str = "train") -> Iterator[np.ndarray]:
    """No-index crops from the ``split`` photos of a real set: ``corner_labels`` when its
    labels box corner indices (``real-decks-dev``), else whole cards."""
    from tqdm import tqdm

    rng = np.random.default_rng(seed)
    names = class_names(root)
    for path in tqdm(photos(split, root), desc=root.name, unit="photo"):
        image = load_photo(path)
        height, width = image.shape[:2]
        labelled = labelled_boxes(path, width, height, names)
        present = {card for card, _ in labelled}
        corners = np.array([box for _, box in labelled]).reshape(-1, 4) if corner_labels \
            else None
        found = detector.detect(image, "table")
        yield from _cut(image, no_index_boxes(found, present, corners, image.shape,
                                              EDGE_SHARE if corner_labels else 0.0),
                        per_box, rng)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.negatives", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scenes", type=int, default=0,
                        help="rendered scenes of the training decks to mine (default 0)")
    parser.add_argument("--real-photos", action="store_true",
                        help="mine real-photos-dev's training shots")
    parser.add_argument("--real-decks", action="store_true",
                        help="mine real-decks-dev's training photos")
    parser.add_argument("--split", choices=["train", "tune"], default="train",
                        help="the real sets' photos to mine: tune to measure on, never "
                        "to train (default train)")
    parser.add_argument("--per-box", type=int, default=2, help="crops cut from each box")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--weights", type=Path, default=None,
                        help="mine with this detector export instead of the shipped one")
    args = parser.parse_args(argv)
    if args.weights is not None and not args.weights.is_file():
        print(f"error: no detector export at {args.weights}", file=sys.stderr)
        return 2
    if not (args.scenes or args.real_photos or args.real_decks):
        print("error: nothing to mine: give --scenes, --real-photos or --real-decks",
              file=sys.stderr)
        return 2
    for wanted, root in ((args.real_photos, REAL_PHOTOS), (args.real_decks, REAL_DECKS)):
        if wanted and not (root / "images").is_dir():
            print(f"error: {root} is not here; it holds the real photos to mine",
                  file=sys.stderr)
            return 2
    detector = mining_detector(args.weights)
    crops: dict[str, list[np.ndarray]] = {}
    if args.scenes:
        crops["rendered"] = list(rendered_negatives(detector, args.scenes, args.seed,
                                                    args.per_box))
    if args.real_photos:
        crops["real-photos"] = list(real_negatives(detector, REAL_PHOTOS, False, args.per_box,
                                                   args.seed, args.split))
    if args.real_decks:
        crops["real-decks"] = list(real_negatives(detector, REAL_DECKS, True, args.per_box,
                                                  args.seed, args.split))
    images = [crop for part in crops.values() for crop in part]
    if not images:
        print("error: no box found passed as showing no index (the rules are in --help): "
              "mine more scenes or photos", file=sys.stderr)
        return 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, images=np.stack(images),
                        labels=np.full(len(images), NOT_INDEX, np.int64),
                        source=np.array([name for name, part in crops.items() for _ in part]))
    counts = ", ".join(f"{name} {len(part)}" for name, part in crops.items())
    print(f"{len(images)} crops of no index ({counts}) -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
