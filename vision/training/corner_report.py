"""Where the reader loses corners: a tally per labelled corner index of a rendered set.

    python -m vision.training.corner_report DATA [--split val] [--layouts spread rows] [--limit 100]

``vision.evaluate`` says how many cards come out right; this says which stage loses the
others. For every labelled corner box (rendered sets label corners; the real photos label
whole cards, so they are not for this report) it finds the detector's best-overlapping box
(IoU >= 0.3, detector run down to ``--floor``) and has the classifier name that box's crop,
then counts the corner under one outcome:

- ``not boxed``: no detector box overlaps it, even at the floor;
- ``faint``: boxed below the detector threshold (``conf`` in ``models/cards.json``);
- ``named wrong``: boxed at the threshold, the classifier names another card;
- ``named right, unsure``: named right but below ``min_lone_conf`` (such a corner makes a
  card only with the card's other corner);
- ``named right``: named right and sure enough to stand alone.

Counts are also given per deck, from the generator's ``manifest.csv``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision.photo import PhotoError, load_photo

from .labels import MATCH_IOU, box_iou, class_names, manifest_column, select_images
from .realdata import labelled_cards

OUTCOMES = ("not boxed", "faint", "named wrong", "named right, unsure", "named right")


def corner_outcome(label_box: np.ndarray, card: str, boxes: np.ndarray,
                   box_confidence: np.ndarray, names: Sequence[str],
                   name_confidence: np.ndarray, conf: float, lone_conf: float) -> str:
    """The outcome of one labelled corner (``label_box`` in photo pixels) among the
    detector's ``boxes``, each named ``names[i]`` with ``name_confidence[i]``."""
    if not len(boxes):
        return "not boxed"
    overlap = box_iou(label_box, boxes)
    best = int(overlap.argmax())
    if overlap[best] < MATCH_IOU:
        return "not boxed"
    if box_confidence[best] < conf:
        return "faint"
    if names[best] != card:
        return "named wrong"
    return "named right" if name_confidence[best] >= lone_conf else "named right, unsure"


def report(data: Path, split: str | None, layouts: Sequence[str] | None, limit: int | None,
           floor: float) -> dict[str, object]:
    from engine.cards import CARD_NAMES
    from vision.classifier import CornerClassifier
    from vision.detector import OnnxYolo, default_model
    from vision.netinput import crop_square

    info = default_model()
    if info.classifier is None or info.weights.suffix != ".onnx":
        raise SystemExit("corner_report needs the shipped ONNX detector and classifier")
    detector = OnnxYolo(info.weights)
    classifier = CornerClassifier(info.classifier)
    label_names = class_names(data)
    images = select_images(data, split, layouts)
    decks = manifest_column(data, "deck")
    total: Counter[str] = Counter()
    by_deck: dict[str, Counter[str]] = {}
    for path in images[:limit]:
        try:
            image = load_photo(path)
        except PhotoError:
            continue
        height, width = image.shape[:2]
        found = detector.predict(image, floor, info.iou)
        if len(found):
            crops = np.stack([crop_square(image, box) for box in found.xyxy])
            classes, name_confidence = classifier.classify(crops)
            names = [CARD_NAMES[int(c)] for c in classes]
        else:
            names, name_confidence = [], np.zeros(0)
        deck = decks.get(path.relative_to(data).as_posix(), "")
        # A rendered set labels corner boxes; the real set's parser reads them all the same.
        for corner in labelled_cards(path, width, height, label_names):
            outcome = corner_outcome(np.array(corner.box), corner.card, found.xyxy,
                                     found.confidence, names, name_confidence, info.conf,
                                     info.min_lone_conf)
            total[outcome] += 1
            by_deck.setdefault(deck, Counter())[outcome] += 1
    return {"data": str(data), "corners": sum(total.values()),
            **{outcome: total[outcome] for outcome in OUTCOMES},
            "by_deck": {deck: {o: c[o] for o in OUTCOMES} for deck, c in sorted(by_deck.items())}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.corner_report", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path)
    parser.add_argument("--split", default="val")
    parser.add_argument("--layouts", nargs="+")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--floor", type=float, default=0.02,
                        help="lowest detector score looked at (default %(default)s)")
    args = parser.parse_args(argv)
    if not (args.data / "data.yaml").exists():
        print(f"corner_report: {args.data} has no data.yaml", file=sys.stderr)
        return 2
    print(json.dumps(report(args.data, args.split, args.layouts, args.limit, args.floor)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
