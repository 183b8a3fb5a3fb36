"""The real photo set (``../shared/datasets/real-photos-dev``): splits and corner crops.

The set holds 354 shots, most of them present two or three times (the same photo flipped),
so any split must keep a shot's copies together, or a "held-out" photo would be a mirror
image of a training one. A shot's name is the part of the file name before ``.rf.``; it is
assigned to a split by a stable hash, so the split is the same on every machine:

- ``holdout`` (about 30% of shots): only ever measured, never trained or tuned on;
- ``tune`` (about 10%): watched while training, to choose epochs and thresholds;
- ``train`` (the rest): corner crops for fine-tuning the classifier.

The labels are whole-card boxes, not corner indices, so the corner crops are found by the
shipped detector (which finds corner indices well on these photos; it is naming them that
the rendered training alone does not teach) and named by the card whose box holds them.
A corner inside two overlapping cards' boxes is left out: which card is on top is unknown.

    python -m vision.training.realdata crops --split train \
        --out datasets/generated/real-crops-train.npz
    python -m vision.training.realdata corners --out datasets/generated/real-corners --split train \
        --with datasets/generated/v1 --repeat 2

``corners`` writes a YOLO data set of the same photos with corner-index boxes, for
fine-tuning the detector: a box the float detector finds (at a low threshold) becomes a
label when the classifier names it as the labelled card whose box holds it, one box an
index (``one_box_an_index``: the best-scored of boxes that lie mostly in each other). The
photos are linked, not copied; ``--with`` adds a rendered set's training scenes to its
``data.yaml`` (and that set's validation scenes as its validation).

``decks`` does the same for ``../shared/datasets/real-decks-dev`` (three other decks,
labelled with corner-index boxes, split by photo with the same hash):

    python -m vision.training.realdata decks --out datasets/generated/real-decks --split train

What is written goes under ``datasets/generated/`` (git-ignored), never into the repo.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.cards import CARD_NAMES
from vision.detections import Detections
from vision.netinput import MARGIN, crop_square
from vision.photo import load_photo
from vision.reading import NESTED_SHARE, nested_shares

from .labels import box_iou, class_names, label_path, labelled_boxes, manifest_column

REAL_PHOTOS = Path(__file__).resolve().parents[3] / "shared" / "datasets" / \
    "real-photos-dev"
# Three other decks with corner-index boxes (its README): split by photo with the same hash.
REAL_DECKS = REAL_PHOTOS.parent / "real-decks-dev"
SPLITS = ("train", "tune", "holdout")


def shot_of(image_name: str) -> str:
    """``IMG_2022_jpg.rf.<hash>.jpg`` -> ``IMG_2022_jpg``: the copies of one shot."""
    return Path(image_name).name.split(".rf.")[0]


def split_of(image_name: str) -> str:
    """The split a photo belongs to, from a stable hash of its shot."""
    bucket = hashlib.sha256(shot_of(image_name).encode()).digest()[0] % 10
    return "holdout" if bucket < 3 else "tune" if bucket == 3 else "train"


@dataclass(frozen=True)
class LabelledCard:
    card: str
    box: tuple[float, float, float, float]  # whole card, x1 y1 x2 y2 in photo pixels

    def holds(self, x: float, y: float) -> bool:
        return self.box[0] <= x <= self.box[2] and self.box[1] <= y <= self.box[3]


def real_names(root: Path = REAL_PHOTOS) -> list[str]:
    return class_names(root)


def photos(split: str | None, root: Path = REAL_PHOTOS) -> list[Path]:
    """The set's photos in ``split`` (all of them for None), sorted by name."""
    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: choose one of {', '.join(SPLITS)}")
    return sorted(p for p in (root / "images").glob("*.jpg")
                  if split is None or split_of(p.name) == split)


def labelled_cards(image: Path, width: int, height: int,
                   names: Sequence[str]) -> list[LabelledCard]:
    return [LabelledCard(card, box) for card, box in labelled_boxes(image, width, height, names)]


def corners_in_cards(centers: np.ndarray, cards: Sequence[LabelledCard]) -> list[int | None]:
    """For each corner centre, the one labelled card whose box holds it (None: no card, or
    more than one)."""
    owners: list[int | None] = []
    for x, y in centers:
        inside = [i for i, c in enumerate(cards) if c.holds(x, y)]
        owners.append(inside[0] if len(inside) == 1 else None)
    return owners


def corner_crops(split: str, detector: object, root: Path = REAL_PHOTOS,
                 per_box: int = 3, seed: int = 0) -> Iterator[tuple[np.ndarray, int, str]]:
    """(crop, class id, photo name) for every detected corner that lies in exactly one
    labelled card; each corner is cut ``per_box`` times with the box jittered (the first
    cut exact), as the detector's boxes vary."""

    rng = np.random.default_rng(seed)
    names = class_names(root)
    for path in photos(split, root):
        image = load_photo(path)
        cards = labelled_cards(path, image.shape[1], image.shape[0], names)
        found = detector.detect(image)  # type: ignore[attr-defined]
        for box, owner in zip(found.xyxy, corners_in_cards(found.centers, cards), strict=True):
            if owner is None:
                continue
            class_id = CARD_NAMES.index(cards[owner].card)
            for crop in jittered_crops(image, box, per_box, rng):
                yield crop, class_id, path.name


def jittered_crops(image: np.ndarray, box: Sequence[float], count: int,
                   rng: np.random.Generator) -> Iterator[np.ndarray]:
    """``count`` crops of one corner: the first exact, the others with the box jittered as
    the detector's boxes vary."""
    x1, y1, x2, y2 = (float(v) for v in box)
    for cut in range(count):
        if cut == 0:
            yield crop_square(image, (x1, y1, x2, y2))
            continue
        w, h = (x2 - x1) * rng.uniform(0.9, 1.15), (y2 - y1) * rng.uniform(0.9, 1.15)
        cx = (x1 + x2) / 2 + rng.normal(0, 0.06) * w
        cy = (y1 + y2) / 2 + rng.normal(0, 0.06) * h
        yield crop_square(image, (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2),
                          margin=MARGIN * rng.uniform(0.92, 1.1))


def photos_of_kinds(split: str | None, root: Path = REAL_DECKS,
                    kinds: Sequence[str] | None = None) -> list[Path]:
    """``photos`` of ``split``, only those of these decks (the manifest's ``kind``) when
    given. Raises ValueError naming a kind the set has no photo of, and the kinds it has."""
    chosen = photos(split, root)
    if not kinds:
        return chosen
    kind_of = manifest_column(root, "kind")
    unknown = sorted(set(kinds) - set(kind_of.values()))
    if unknown:
        raise ValueError(f"no photos of kind {', '.join(unknown)} in {root}; its kinds "
                         f"are {', '.join(sorted(set(kind_of.values())))}")
    return [p for p in chosen if kind_of.get(p.name) in kinds]


def labelled_corner_crops(split: str, root: Path = REAL_DECKS, per_box: int = 3,
                          seed: int = 0, kinds: Sequence[str] | None = None,
                          inverted_kinds: Sequence[str] = ()
                          ) -> Iterator[tuple[np.ndarray, int, str]]:
    """(crop, class id in CARD_NAMES, photo name) for every labelled corner of a set whose
    labels are corner-index boxes (``real-decks-dev``): no detector needed. ``kinds``: only
    the photos of these decks (the manifest's ``kind``), to hold a deck out of training.
    ``inverted_kinds``: the crops of these decks in their negative (``255 - crop``), as the
    reader reads a deck printed light on dark (``vision.netinput.light_on_dark``): the
    black deck's gold indices as cut are a picture the photo classifier is never shown."""
    rng = np.random.default_rng(seed)
    names = class_names(root)
    kind_of = manifest_column(root, "kind") if inverted_kinds else {}
    unknown = sorted(set(inverted_kinds) - set(kind_of.values()))
    if unknown:
        raise ValueError(f"no photos of kind {', '.join(unknown)} to invert in {root}; its "
                         f"kinds are {', '.join(sorted(set(kind_of.values())))}")
    for path in photos_of_kinds(split, root, kinds):
        image = load_photo(path)
        height, width = image.shape[:2]
        negative = kind_of.get(path.name) in inverted_kinds
        for card, box in labelled_boxes(path, width, height, names):
            for crop in jittered_crops(image, box, per_box, rng):
                yield (255 - crop if negative else crop), CARD_NAMES.index(card), path.name


def corner_labels(split: str, detector: object, root: Path = REAL_PHOTOS,
                  limit: int | None = None) -> Iterator[tuple[Path, list[str]]]:
    """(photo, YOLO label lines) for each photo of ``split``: the corners ``detector`` (a
    two-stage reader) finds and names as a labelled card whose whole-card box holds them.
    A corner named as no card around it is left unlabelled: a misread corner, or a pip."""

    names = class_names(root)
    for path in photos(split, root)[:limit]:
        image = load_photo(path)
        height, width = image.shape[:2]
        cards = labelled_cards(path, width, height, names)
        found = detector.detect(image)  # type: ignore[attr-defined]
        named = np.array([any(c.card == CARD_NAMES[int(class_id)] and c.holds(cx, cy)
                              for c in cards)
                          for (cx, cy), class_id in zip(found.centers, found.class_id,
                                                        strict=True)], bool)
        found = found[named]
        lines = []
        for i in one_box_an_index(found.xyxy, detector_scores(detector, image, found)):
            (x1, y1, x2, y2), (cx, cy) = found.xyxy[i], found.centers[i]
            lines.append(f"{int(found.class_id[i])} {cx / width:.6f} {cy / height:.6f} "
                         f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
        yield path, lines


# A box of the reader's that the corner detector's own pass boxed too (intersection over
# union): the two are one box, and it carries that pass's score.
SAME_BOX_IOU = 0.9


def detector_scores(reader: object, image: np.ndarray, found: Detections) -> np.ndarray:
    """(N,): the score the reader's corner detector gave each box of ``found`` (the reader's
    named boxes of ``image``), at the size photo mode reads the photo; 0 for a box that
    only another pass found (the table detector, the photo's negative)."""
    scores = np.zeros(len(found), np.float32)
    if len(found) == 0:
        return scores
    locator, info = reader.locator, reader.info  # type: ignore[attr-defined]
    first = locator.predict(image, info.detector_threshold, info.iou)
    side = reader.photo_side(image, first[first.confidence >= info.conf])  # type: ignore[attr-defined]
    seen = locator.predict(image, info.detector_threshold, info.iou,
                           **({} if side is None else {"side": side}))
    if len(seen) == 0:
        return scores
    for i, box in enumerate(found.xyxy):
        overlap = box_iou(box, seen.xyxy)
        if overlap.max() >= SAME_BOX_IOU:
            scores[i] = seen.confidence[overlap.argmax()]
    return scores


def one_box_an_index(xyxy: np.ndarray, scores: np.ndarray) -> list[int]:
    """The boxes to label, in the order given: the best-scored first, and no box that
    mostly lies inside, or mostly holds, one already kept (``NESTED_SHARE``).

    At the low threshold the labels are mined at, the detector boxes one index several
    times, and also the index with the large pip beside it (scored under 0.35 where the
    index alone scores 0.5-0.8): each was named as its card, so each became a label, and
    84 % of our deck's training boxes shared most of their area with another
    (models/README.md, "Session 37"). A detector trained on them learns to box pips and
    court art."""
    kept: list[int] = []
    for i in np.argsort(-np.asarray(scores), kind="stable"):
        if kept and (nested_shares(xyxy[i:i + 1], xyxy[kept]) >= NESTED_SHARE).any():
            continue
        kept.append(int(i))
    return sorted(kept)


def write_corner_set(out: Path, split: str, detector: object, rendered: Path | None,
                     repeat: int, root: Path = REAL_PHOTOS,
                     limit: int | None = None) -> tuple[int, int]:
    """The YOLO set of :func:`corner_labels`; returns (photos, boxes)."""
    from tqdm import tqdm

    images, labels = out / "images" / split, out / "labels" / split
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    count = boxes = 0
    for path, lines in tqdm(corner_labels(split, detector, root, limit),
                            desc=f"corners ({split})", unit="photo",
                            total=len(photos(split, root)[:limit])):
        link = images / path.name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(path.resolve())
        (labels / path.name).with_suffix(".txt").write_text("".join(f"{x}\n" for x in lines))
        count += 1
        boxes += len(lines)
    # Class names as the rendered sets write them (engine notation): with --single-cls the
    # detector ignores them, but the labels keep which card each corner is.
    train = [str(images.resolve())] * repeat
    val = str(images.resolve())
    if rendered is not None:
        train.insert(0, str((rendered / "images" / "train").resolve()))
        val = str((rendered / "images" / "val").resolve())
    yaml = ["# Written by python -m vision.training.realdata corners; names follow CARD_NAMES.",
            "train:", *(f"  - {t}" for t in train), f"val: {val}", f"nc: {len(CARD_NAMES)}",
            "names:", *(f"  {i}: '{n}'" for i, n in enumerate(CARD_NAMES))]
    (out / "data.yaml").write_text("\n".join(yaml) + "\n")
    return count, boxes


def write_decks_set(out: Path, split: str, root: Path = REAL_DECKS) -> tuple[int, int]:
    """``real-decks-dev``'s photos of ``split`` as a YOLO set under ``out``: images and
    labels linked, not copied (its boxes are corner indices already). Its class order is
    its own (``data.yaml``), which a single-class detector ignores; returns (photos, boxes).
    """
    images, labels = out / "images" / split, out / "labels" / split
    images.mkdir(parents=True, exist_ok=True)
    labels.mkdir(parents=True, exist_ok=True)
    count = boxes = 0
    for path in photos(split, root):
        label = label_path(path)
        for link, target in ((images / path.name, path), (labels / label.name, label)):
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(target.resolve())
        count += 1
        boxes += sum(1 for line in label.read_text().splitlines() if line.strip())
    return count, boxes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.realdata", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    crops = sub.add_parser("crops", help="cut named corner crops from the real photos")
    crops.add_argument("--out", type=Path, required=True)
    crops.add_argument("--split", choices=SPLITS, default="train")
    crops.add_argument("--per-box", type=int, default=3)
    crops.add_argument("--data", type=Path, default=REAL_PHOTOS)
    corners = sub.add_parser("corners", help="a YOLO set of corner boxes on the real photos")
    corners.add_argument("--out", type=Path, required=True)
    corners.add_argument("--split", choices=SPLITS, default="train")
    corners.add_argument("--with", dest="rendered", type=Path, default=None,
                         help="a rendered set to train beside (and validate on)")
    corners.add_argument("--repeat", type=int, default=1,
                         help="list the real photos this many times in the training set")
    corners.add_argument("--conf", type=float, default=0.02, help="detector threshold")
    corners.add_argument("--data", type=Path, default=REAL_PHOTOS)
    deck_crops = sub.add_parser("deck-crops", help="named corner crops from real-decks-dev's "
                                "labelled corners")
    deck_crops.add_argument("--out", type=Path, required=True)
    deck_crops.add_argument("--split", choices=SPLITS, default="train")
    deck_crops.add_argument("--per-box", type=int, default=3)
    deck_crops.add_argument("--data", type=Path, default=REAL_DECKS)
    deck_crops.add_argument("--kinds", nargs="+", default=None,
                            help="only these decks (manifest kinds), e.g. to hold one out")
    deck_crops.add_argument("--invert-kinds", nargs="+", default=[], metavar="KIND",
                            help="these decks' crops in their negative, as the reader reads "
                            "a deck printed light on dark (e.g. phone-black)")
    decks = sub.add_parser("decks", help="real-decks-dev's photos of a split as a YOLO set")
    decks.add_argument("--out", type=Path, required=True)
    decks.add_argument("--split", choices=SPLITS, default="train")
    decks.add_argument("--data", type=Path, default=REAL_DECKS)
    sub.add_parser("splits", help="count the photos and shots in each split")
    args = parser.parse_args(argv)
    if args.command == "splits":
        for split in SPLITS:
            chosen = photos(split)
            print(f"{split:>8}: {len(chosen)} photos, "
                  f"{len({shot_of(p.name) for p in chosen})} shots")
        return 0
    if not (args.data / "data.yaml").exists():
        print(f"realdata: {args.data} is not a real photo set (no data.yaml)", file=sys.stderr)
        return 2
    if args.command == "decks":
        count, boxes = write_decks_set(args.out, args.split, args.data)
        print(f"{count} photos, {boxes} corner boxes -> {args.out}")
        return 0
    if args.command == "deck-crops":
        try:
            crops = list(labelled_corner_crops(args.split, args.data, args.per_box,
                                               kinds=args.kinds,
                                               inverted_kinds=args.invert_kinds))
        except ValueError as error:
            print(f"realdata: {error}", file=sys.stderr)
            return 2
        return save_crops(args.out, crops)
    from tqdm import tqdm

    from vision.detector import MODELS, CardDetector, default_model

    shipped = default_model()
    if args.command == "corners":
        # The float models, for the best labels; a low threshold so faint corners count.
        reader = CardDetector(dataclasses.replace(
            shipped, weights=MODELS / "cards.onnx", classifier=MODELS / "corner-classifier.onnx",
            conf=args.conf))
        count, boxes = write_corner_set(args.out, args.split, reader, args.rendered,
                                        args.repeat, args.data)
        print(f"{count} photos, {boxes} corner boxes -> {args.out / 'data.yaml'}")
        return 0
    # The detector alone (no second stage), at the shipped low threshold: the classifier
    # being trained is the one that will name these crops.
    detector = CardDetector(dataclasses.replace(shipped, classifier=None), locate_only=True)
    crops = tqdm(corner_crops(args.split, detector, args.data, args.per_box),
                 desc=f"real crops ({args.split})", unit="crop")
    return save_crops(args.out, crops)


def save_crops(out: Path, crops: Iterable[tuple[np.ndarray, int, str]]) -> int:
    """Write (crop, class id, photo) triples as the classifier's training file."""
    images, labels = [], []
    for crop, class_id, _ in crops:
        images.append(crop)
        labels.append(class_id)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, images=np.stack(images), labels=np.array(labels, np.int64))
    print(f"{len(labels)} crops -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
