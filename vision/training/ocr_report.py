"""A pretrained text reader against the corner classifier, for the rank of unseen decks.

    pip install -e .[ocr-study]
    python -m vision.training.ocr_report [--scenes 20] [--json]

The rank glyph is text, and a text recogniser trained on far more typefaces than we render
might read decks the classifier never saw (issue 14). This reads every labelled corner of
``real-decks-dev``'s held-out photos (three decks, by kind; the text reader never saw
them, and classifiers before run 15 neither) and of
the first ``--scenes`` scenes of a rendered evaluation set of held-out designs (by deck)
twice: with RapidOCR's recogniser (PP-OCRv4, its weights inside the wheel; nothing is
downloaded) and with the shipped classifier. The recogniser gets the index box with 15 %
around it, at least 64 pixels tall, in each of four turns (a corner can lie any way up);
the turn whose text holds a rank (A 2-9 10 J Q K) with the highest score answers. The
classifier gets its usual crop. Reported by group: corners, the recogniser's rank right,
how many it was sure of (score > 0.8) and how many of those were right, the classifier's
rank and card right, the corners only the recogniser named right, and the recogniser's
time a corner.

Only the workshop runs this; the reader never imports it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from engine.cards import CARD_NAMES
from vision.classifier import MODELS, CornerClassifier
from vision.netinput import crop_square
from vision.photo import load_photo

from .labels import class_names, labelled_boxes, manifest_column
from .realdata import REAL_DECKS, photos

RENDERED = Path(__file__).resolve().parents[2] / "datasets" / "generated" / "eval-1280"
RANKS = "AKQJT98765432"
# "10" is often read as "1O" or "IO"; a rank is the first such token in the text.
RANK_TEXT = re.compile(r"10|1O|IO|[A2-9JQK]")
SURE = 0.8


def rank_in(text: str) -> str | None:
    found = RANK_TEXT.search(text.upper().replace(" ", ""))
    if found is None:
        return None
    token = found.group(0)
    return "T" if token in ("10", "1O", "IO") else token


def labelled_corners(scenes: int
                     ) -> Iterator[tuple[str, np.ndarray, str, tuple[float, ...]]]:
    """(group, photo's pixels, card, index box in pixels) for every labelled corner read
    here; each photo is decoded once for all its corners."""
    kind_of = manifest_column(REAL_DECKS, "kind")
    sets = [(REAL_DECKS, photos("holdout", REAL_DECKS), lambda p: kind_of.get(p.name, "?"))]
    if (RENDERED / "manifest.csv").exists():
        deck_of = manifest_column(RENDERED, "deck")
        rendered = sorted((RENDERED / "images" / "val").glob("*.jpg"))[:scenes]
        sets.append((RENDERED, rendered,
                     lambda p: deck_of.get(p.relative_to(RENDERED).as_posix(), "?")))
    else:
        print(f"ocr_report: {RENDERED} not made; rendered decks left out", file=sys.stderr)
    for root, chosen, group_of in sets:
        names = class_names(root)
        for path in chosen:
            image = load_photo(path)
            height, width = image.shape[:2]
            for card, box in labelled_boxes(path, width, height, names):
                yield group_of(path), image, card, box


def text_crop(image: np.ndarray, box: Sequence[float]) -> np.ndarray:
    """The index box with 15 % around it, enlarged to at least 64 pixels tall."""
    import cv2

    x1, y1, x2, y2 = box
    pad_x, pad_y = 0.15 * (x2 - x1), 0.15 * (y2 - y1)
    height, width = image.shape[:2]
    crop = image[int(max(0, y1 - pad_y)):int(min(height, y2 + pad_y)),
                 int(max(0, x1 - pad_x)):int(min(width, x2 + pad_x))]
    if 0 < crop.shape[0] < 64:
        scale = 64 / crop.shape[0]
        crop = cv2.resize(crop, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    return np.ascontiguousarray(crop[:, :, ::-1])  # the recogniser takes BGR


def ocr_rank(engine: object, crop: np.ndarray) -> tuple[str | None, float]:
    """The recogniser's rank for a corner crop, best of four turns, and its score."""
    best: tuple[str | None, float] = (None, 0.0)
    for turns in range(4):
        result, _ = engine(np.ascontiguousarray(np.rot90(crop, turns)),  # type: ignore[operator]
                           use_det=False, use_cls=False, use_rec=True)
        if not result:
            continue
        rank, score = rank_in(result[0][0]), float(result[0][1])
        if rank is not None and score > best[1]:
            best = (rank, score)
        if best[1] > 0.9:
            break
    return best


def report(scenes: int) -> dict[str, dict[str, float]]:
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError:
        raise SystemExit("ocr_report needs the text recogniser: pip install -e .[ocr-study]"
                         ) from None
    engine = RapidOCR(intra_op_num_threads=2)
    classifier = CornerClassifier(MODELS / "corner-classifier-int8.onnx")
    rank_index = np.array([RANKS.index(card[0]) for card in CARD_NAMES])
    rows: dict[str, list[tuple[bool, bool, bool, bool]]] = defaultdict(list)
    ocr_seconds = 0.0
    for group, image, card, box in labelled_corners(scenes):
        tick = time.perf_counter()
        rank, score = ocr_rank(engine, text_crop(image, box))
        ocr_seconds += time.perf_counter() - tick
        probs = classifier.probabilities(crop_square(image, box)[None])[0]
        cnn_rank = RANKS[int(np.bincount(rank_index, weights=probs, minlength=13).argmax())]
        rows[group].append((rank == card[0], score > SURE,
                            cnn_rank == card[0], CARD_NAMES[int(probs.argmax())] == card))
    corners = sum(len(v) for v in rows.values())
    result = {}
    for group, marks in sorted(rows.items()):
        ocr_right, sure, cnn_rank_right, cnn_card_right = (np.array(m) for m in zip(*marks,
                                                                                    strict=True))
        result[group] = {
            "corners": len(marks), "ocr_rank": float(ocr_right.mean()),
            "ocr_sure": int(sure.sum()),
            "ocr_sure_right": float(ocr_right[sure].mean()) if sure.any() else float("nan"),
            "classifier_rank": float(cnn_rank_right.mean()),
            "classifier_card": float(cnn_card_right.mean()),
            "only_ocr_right": int((ocr_right & ~cnn_rank_right).sum())}
    result["all"] = {"corners": corners,
                     "ocr_ms_per_corner": round(1000 * ocr_seconds / max(corners, 1), 1)}
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.training.ocr_report",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenes", type=int, default=20,
                        help="rendered evaluation scenes to read (0: real photos only)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not (REAL_DECKS / "data.yaml").exists():
        print(f"ocr_report: {REAL_DECKS} is missing", file=sys.stderr)
        return 2
    result = report(args.scenes)
    if args.json:
        print(json.dumps(result))
        return 0
    print("| deck | corners | text reader: rank right | sure (> 0.8): count, right "
          "| classifier: rank right | card right | only the text reader right |")
    print("|---|---|---|---|---|---|---|")
    for group, row in result.items():
        if group == "all":
            continue
        print(f"| {group} | {row['corners']} | {row['ocr_rank']:.3f} | {row['ocr_sure']}, "
              f"{row['ocr_sure_right']:.3f} | {row['classifier_rank']:.3f} "
              f"| {row['classifier_card']:.3f} | {row['only_ocr_right']} |")
    print(f"text reader: {result['all']['ocr_ms_per_corner']} ms a corner "
          f"({result['all']['corners']} corners)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
