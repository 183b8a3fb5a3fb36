"""Crops of the corners the shipped detector boxes in rendered scenes, each named by the
labelled corner its box overlaps most.

The rendered crop files (``train_classifier crops``) cut every labelled corner with its
box jittered a little. The reader's boxes differ more than that: in fans and tight rows
the detector often boxes the rank without its suit, or a strip of the index beside a
neighbour's, and the classifier names such crops unsurely (models/README.md, "Session
21"). These crops are cut from the boxes the reader is actually given: photo mode's
detectors (``CardDetector(locate_only=True)``, photo mode's scale), on scenes of the
training decks drawn at 1280x960 as a phone photo is read.

A box is named by the labelled corner it overlaps most, when that overlap (IoU) is at
least ``MIN_IOU``; a box on no labelled corner (a pip, a corner the next card half hides)
is not taken. Each box is cut ``--per-box`` times as the real photos' crops are
(``realdata.jittered_crops``: the first exact).

    python -m vision.training.boxed_crops --out datasets/generated/crops-boxed.npz \\
        --scenes 600 --seed 31 --layouts fan overlap rows spread

What is written goes under ``datasets/generated/`` (git-ignored).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from vision.detector import CardDetector, default_model

from .labels import box_iou
from .realdata import jittered_crops, save_crops
from .train_classifier import corner_boxes, jpeg_copy, layout_weights

# A box that shares less than this with every labelled corner is not named from them.
MIN_IOU = 0.3


def named_boxes(boxes: np.ndarray, corners: np.ndarray, classes: Sequence[int]
                ) -> Iterator[tuple[np.ndarray, int]]:
    """(box, class id) for each of ``boxes`` (N, 4) that overlaps a labelled corner
    (``corners`` (M, 4), named ``classes``) by ``MIN_IOU`` or more: the corner it overlaps
    most names it."""
    if len(corners) == 0:
        return
    for box in boxes:
        overlaps = box_iou(np.asarray(box, np.float64), corners)
        best = int(np.argmax(overlaps))
        if overlaps[best] >= MIN_IOU:
            yield box, int(classes[best])


def boxed_crops(detector: CardDetector, scenes: int, seed: int, per_box: int,
                layouts: Sequence[str] | None = None, role: str = "train"
                ) -> Iterator[tuple[np.ndarray, int, str]]:
    """(crop, class id, scene name) for the named boxes of ``scenes`` rendered scenes of the
    ``role`` decks at 1280x960."""
    from tqdm import tqdm

    from vision.training.synth.backgrounds import BACKGROUNDS, TRAIN_BACKGROUNDS
    from vision.training.synth.decks import available_decks, load_deck
    from vision.training.synth.scene import render_scene

    weights = layout_weights(layouts)
    backgrounds = TRAIN_BACKGROUNDS if role == "train" else tuple(BACKGROUNDS)
    rng = np.random.default_rng(seed)
    decks = [load_deck(name) for name in available_decks(role)]
    for number in tqdm(range(scenes), desc=f"boxed ({role})", unit="scene"):
        deck = decks[int(rng.integers(len(decks)))]
        scene = render_scene(rng, deck, size=1280, height=960, backgrounds=backgrounds,
                             layout_weights=weights)
        image = jpeg_copy(scene)
        height, width = image.shape[:2]
        corners = corner_boxes(scene, width, height)
        classes = [int(label[0]) for label in scene.labels]
        found = detector.detect(image, "photo")
        for box, class_id in named_boxes(found.xyxy, corners, classes):
            for crop in jittered_crops(image, box, per_box, rng):
                yield crop, class_id, f"scene {number}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.boxed_crops", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scenes", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-box", type=int, default=2)
    parser.add_argument("--role", choices=["train", "val"], default="train",
                        help="the training decks, or the held-out ones to measure on")
    parser.add_argument("--layouts", nargs="+", default=None,
                        help="only these scene layouts, in equal shares (default: the "
                        "generator's mix)")
    args = parser.parse_args(argv)
    if args.scenes < 1 or args.per_box < 1:
        parser.error("--scenes and --per-box must be at least 1")
    detector = CardDetector(default_model(), locate_only=True)
    try:
        crops = list(boxed_crops(detector, args.scenes, args.seed, args.per_box,
                                 args.layouts, args.role))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not crops:
        print("no box lay on a labelled corner: nothing written", file=sys.stderr)
        return 1
    return save_crops(args.out, crops)


if __name__ == "__main__":
    sys.exit(main())
