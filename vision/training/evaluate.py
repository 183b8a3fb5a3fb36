"""Measure the whole photo -> cards path on a labelled data set.

    python -m vision.training.evaluate DATA [--limit N] [--split val] [--json]

DATA is a YOLO-format folder with a ``data.yaml`` (class names in the project's card
notation): our rendered scenes (corner boxes) or the real photos in
``../shared/datasets/real-photos-dev`` (whole-card boxes). Either way the truth for a
photo is the set of cards its labels name, and the pipeline's answer is the set of cards
it reads, so the figures are per card and per photo, not per box:

- card precision: cards read that are in the photo / cards read;
- card recall: cards in the photo that were read / cards in the photo;
- photos exactly right: the set read equals the set in the photo;
- rows right (rendered scenes laid out as a set hand, their rows in the manifest): the
  reading's front, middle and back rows hold exactly the cards laid in them. Only the
  scenes whose 13 cards all show a corner count (``rows_scenes``); a scene with a card
  hidden cannot be set right by anyone. ``rows_cards_right``: how many of those read their
  13 cards exactly right, so the rows lost by grouping alone are the difference.
- readable scenes right (rendered sets drawn since session 61): the share read exactly
  right of the scenes whose every labelled card shows its rank and its suit in one corner
  (``readable_scenes``). A label stands for an index half of whose ink shows, which may be
  the suit alone: the card is there, and no one can name it from the photo
  (``vision.training.synth.scene.READABLE_RANK``, the manifest's ``unreadable``). Of
  the rows scenes among them, ``readable_rows_right``: the share read with every row right.

The truth is the labels as corrected by ``datasets/errata.toml`` (labels of the shared
sets found wrong by eye, ``vision.training.errata``); ``--raw-labels`` measures against
the labels as shipped, and the printout says which (``labels``).

``--fates`` also says where each missed card was lost, for sets labelled by corner index
(the rendered scenes, ``real-decks-dev``; whole-card labels would match no corner): its
corner boxes are matched to the corners the reader kept (box overlap ``MATCH_IOU``), and
the card counted under one of ``FATES``. Each card read that is not in the photo is
counted under one of ``WRONG_FATES``: read on a labelled corner of another card (a
misreading), or where no labelled corner lies (pips, court art, or a card the labels leave
out: ``real-decks-dev`` does not label every card cut by a photo's edge).

``--gates`` says more precisely where each missed card was lost, for the same sets: each
photo with a card missed is read again with every gate open (no bar on a name, on the
index head or on a faint box; every extra pass read), its missed card's best box on its
labelled corners named, and the card counted under one of ``GATE_FATES``: no box even so,
named wrong, its name second, or named right and then held back, by the lone-corner bar,
by a gate, by folding into a box it overlaps (``vision.reading.fold_nested``), or merged
away after that. ``--fates`` cannot tell a right name folded away from a wrong one: both
leave another name on the card's corner.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vision.detections import Detections
from vision.detector import MODES, ModelInfo
from vision.photo import PhotoError, load_photo
from vision.pipeline import read_photo
from vision.reading import Rows, fold_nested

from .errata import Errata, shipped_errata
from .labels import (
    MATCH_IOU,
    HandRows,
    box_iou,
    class_names,
    labelled_boxes,
    manifest_column,
    manifest_hand_rows,
    manifest_rows,
    manifest_unreadable,
    select_images,
    truth,
    whole_card_labels,
)
from .reader_options import add_photo_options, measured_model, photo_changes
from .realdata import split_of


@dataclass
class Scores:
    photos: int = 0
    exact: int = 0
    true_positive: int = 0
    read: int = 0
    present: int = 0
    seconds: list[float] = field(default_factory=list)
    misses: list[dict[str, object]] = field(default_factory=list)
    groups: dict[str, Scores] = field(default_factory=dict)  # filled by evaluate(by=...)
    fates: Counter[str] = field(default_factory=Counter)  # filled by evaluate(fates=True)
    wrong_fates: Counter[str] = field(default_factory=Counter)  # the same
    gate_fates: Counter[str] = field(default_factory=Counter)  # filled by evaluate(gates=...)
    # Of the missed cards tallied in fates and gate_fates, those no corner showed readably
    # (the manifest's ``unreadable``): what is left is the reader's loss on readable cards.
    unreadable_fates: Counter[str] = field(default_factory=Counter)
    unreadable_gate_fates: Counter[str] = field(default_factory=Counter)
    told_unreadable: bool = False  # whether the manifest says which cards are unreadable
    corrected: int = 0  # photos whose labels an erratum corrects (evaluate)
    rows_scenes: int = 0  # scenes laid out in rows, every card showing a corner
    rows_right: int = 0  # of those, read with each row holding its cards
    rows_cards_right: int = 0  # of those, read with the 13 cards exactly right
    readable_scenes: int = 0  # rendered scenes whose every card shows rank and suit
    readable_right: int = 0  # of those, read exactly right
    readable_rows_scenes: int = 0  # of the rows scenes, those whose every card is readable
    readable_rows_right: int = 0  # of those, read with each row holding its cards

    def add(self, name: str, found: set[str], expected: set[str], seconds: float) -> None:
        self.seconds.append(seconds)
        self.photos += 1
        self.exact += found == expected
        self.true_positive += len(found & expected)
        self.read += len(found)
        self.present += len(expected)
        if found != expected:
            self.misses.append({"image": name, "missed": sorted(expected - found),
                                "wrong": sorted(found - expected)})

    def add_rows(self, rows_right: bool, cards_right: bool) -> None:
        self.rows_scenes += 1
        self.rows_right += rows_right
        self.rows_cards_right += cards_right

    def add_readable(self, right: bool, rows_right: bool | None = None) -> None:
        """A scene whose every card can be read, read ``right``; ``rows_right``: for a rows
        scene (``add_rows``), whether its rows were read right."""
        self.readable_scenes += 1
        self.readable_right += right
        if rows_right is not None:
            self.readable_rows_scenes += 1
            self.readable_rows_right += rows_right

    @property
    def precision(self) -> float:
        return self.true_positive / self.read if self.read else 0.0

    @property
    def recall(self) -> float:
        return self.true_positive / self.present if self.present else 0.0

    @property
    def exact_rate(self) -> float:
        return self.exact / self.photos if self.photos else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "photos": self.photos,
            "card_precision": round(self.precision, 4),
            "card_recall": round(self.recall, 4),
            "photos_exactly_right": round(self.exact_rate, 4),
            "median_ms_per_photo": round(1000 * statistics.median(self.seconds), 1)
            if self.seconds else None,
            **({"rows_scenes": self.rows_scenes,
                "rows_right": round(self.rows_right / self.rows_scenes, 4),
                "rows_cards_right": round(self.rows_cards_right / self.rows_scenes, 4)}
               if self.rows_scenes else {}),
            **({"readable_scenes": self.readable_scenes,
                "readable_right": round(self.readable_right / self.readable_scenes, 4)}
               if self.readable_scenes else {}),
            **({"readable_rows_scenes": self.readable_rows_scenes,
                "readable_rows_right": round(self.readable_rows_right
                                             / self.readable_rows_scenes, 4)}
               if self.readable_rows_scenes else {}),
        }


GROUPINGS = ("deck", "layout", "background", "camera", "kind")  # kind: real-decks-dev

# Where a missed card was lost (``missed_card_fate``), first match wins.
FATES = (
    "one corner, named right, too unsure",  # left in doubt (a "maybe" offer)
    "named as another card",  # a kept corner on it reads another name
    "named right, merged away",  # a kept corner reads it, yet no card was made of it
    "no corner kept",  # the detector found none, or the classifier could not name it
)


def missed_card_fate(card: str, boxes: Sequence[Sequence[float]],
                     kept: Sequence[tuple[str, Sequence[float]]], doubtful: set[str]) -> str:
    """Which of ``FATES`` befell ``card``, not read: ``boxes`` are its labelled corners,
    ``kept`` the reader's named corners (name, box), ``doubtful`` the cards it left in
    doubt."""
    if card in doubtful:
        return FATES[0]
    if not kept or not boxes:
        return FATES[3]
    kept_boxes = np.array([box for _, box in kept], np.float64)
    on_card = np.zeros(len(kept), bool)
    for label in boxes:
        on_card |= box_iou(np.asarray(label, np.float64), kept_boxes) >= MATCH_IOU
    names = {name for (name, _), hit in zip(kept, on_card, strict=True) if hit}
    if names and card not in names:
        return FATES[1]
    if card in names:
        return FATES[2]
    return FATES[3]


# Where a missed card was lost, told by its reading with every gate open (``gate_fate``).
GATE_FATES = (
    "no box, every gate open",  # the detector found nothing on its corners, in any pass
    "named wrong, every gate open",  # its best box's likeliest name is another card's
    "its name second, every gate open",  # ... and its own name the next likeliest
    "named right, one corner under the lone bar",  # left in doubt (a "maybe" offer)
    "named right, held back by a gate",  # the name, index head or faint-box bar
    "named right, folded into a box it overlaps",  # vision.reading.fold_nested
    "named right, kept, then merged away",  # e.g. renamed as a duplicate
)


def gate_fate(card: str, boxes: Sequence[Sequence[float]], opened: Detections,
              kept: Detections | None, doubtful: set[str]) -> str:
    """Which of ``GATE_FATES`` befell ``card``, not read: ``boxes`` are its labelled
    corners, ``opened`` the photo's named corners with every gate open (class
    probabilities carried), ``kept`` the named corners the shipped reading kept, and
    ``doubtful`` the cards it left in doubt."""
    label_boxes = [np.asarray(box, np.float64) for box in boxes]
    best_iou, best = 0.0, -1
    for box in label_boxes if len(opened) else ():
        overlaps = box_iou(box, opened.xyxy.astype(np.float64))
        if float(overlaps.max()) > best_iou:
            best_iou, best = float(overlaps.max()), int(overlaps.argmax())
    if best < 0 or best_iou < MATCH_IOU:
        return GATE_FATES[0]
    card_id = opened.names.index(card)
    if opened.class_probabilities is None:
        likeliest = [int(opened.class_id[best])]
    else:
        likeliest = np.argsort(-opened.class_probabilities[best])[:2].tolist()
    if likeliest[0] != card_id:
        return GATE_FATES[2] if len(likeliest) > 1 and likeliest[1] == card_id \
            else GATE_FATES[1]
    if card in doubtful:
        return GATE_FATES[3]

    def named_there(corners: Detections | None) -> bool:
        if corners is None or len(corners) == 0:
            return False
        mine = corners.xyxy[corners.class_id == card_id].astype(np.float64)
        return len(mine) > 0 and any(
            float(box_iou(box, mine).max()) >= MATCH_IOU for box in label_boxes)

    if not named_there(kept):
        return GATE_FATES[4]
    assert kept is not None
    if not named_there(fold_nested(kept)):
        return GATE_FATES[5]
    return GATE_FATES[6]


def opened_gates(info: ModelInfo) -> ModelInfo:
    """``info`` with every naming gate open: no bar on
    a corner's name (``min_class_conf``), on a faint box's (``faint_class_conf``) or on the
    index head (``photo_min_index``)."""
    return dataclasses.replace(info, min_class_conf=0.0, faint_class_conf=0.0,
                               photo_min_index=0.0)


def _never_complete(detections: Detections) -> bool:
    return False  # every extra pass is read: the reading with every gate open


# Where a card read that is not in the photo was read (``wrong_card_fate``).
WRONG_FATES = (
    "on another card's corner",  # a labelled corner, misread
    "on no labelled corner",  # pips, court art, or a card the labels leave out
)


def wrong_card_fate(card: str, kept: Sequence[tuple[str, Sequence[float]]],
                    labels: Sequence[Sequence[float]]) -> str:
    """Which of ``WRONG_FATES`` ``card`` (read, not in the photo) falls under: ``kept`` are
    the reader's named corners (name, box), ``labels`` every labelled corner's box."""
    if labels:
        label_boxes = np.array(labels, np.float64)
        for name, box in kept:
            if name == card and \
                    box_iou(np.asarray(box, np.float64), label_boxes).max() >= MATCH_IOU:
                return WRONG_FATES[0]
    return WRONG_FATES[1]


def camera_group(row: dict[str, str]) -> str:
    """What the generator's camera did to a scene, worst first: ``motion`` blur, ``low
    resolution`` (the scene shrunk and enlarged again), ``blur`` (out of focus) or
    ``sharp``; ``unknown`` for manifests written before these were recorded."""
    try:
        motion, resolution, blur = (float(row[key]) for key in ("motion", "resolution", "blur"))
    except (KeyError, TypeError, ValueError):
        return "unknown"
    if motion > 0:
        return "motion"
    if resolution < 1:
        return "low resolution"
    return "blur" if blur > 0 else "sharp"


def group_of(data: Path, by: str) -> dict[str, str]:
    """Image path (relative to DATA) -> its group under ``by`` (one of ``GROUPINGS``)."""
    if by == "camera":
        return {row["image"]: camera_group(row) for row in manifest_rows(data)}
    return manifest_column(data, by)


def photos_to_read(data: Path, split: str | None, layouts: Sequence[str] | None = None,
                   shots: str | None = None) -> list[Path]:
    """The photos of ``split`` (of ``layouts``, rendered sets), only those of the split
    ``shots`` of their shots when given (the real sets, ``vision.training.realdata``)."""
    images = select_images(data, split, layouts)
    return [p for p in images if split_of(p.name) == shots] if shots else images


def evaluate(data: Path, detector: object, split: str | None = "val", limit: int | None = None,
             layouts: Sequence[str] | None = None, shots: str | None = None,
             by: str | None = None, mode: str = "photo", fates: bool = False,
             expect: int | str | None = None, errata: Errata | None = None,
             gates: object | None = None) -> Scores:
    """``shots``: for the real photo set, only the photos of that split of its shots
    (``vision.training.realdata``: train, tune or holdout). ``by``: also score each group of photos
    under it (``GROUPINGS``, see ``group_of``), in the result's ``groups``. ``fates``: tally
    where each missed card was lost (``missed_card_fate``), in the result's ``fates``, and
    where each card read but not there was read (``wrong_card_fate``), in its
    ``wrong_fates``. ``expect``: how many cards the reader is told each photo holds, as
    ``cpoker detect --expect`` tells it (a hand: 13), or ``"labelled"``: as many as its
    labels name (a user who says how many cards they photographed); None: not told.
    ``errata``: the label corrections the truth is read with (default: the shipped ones,
    ``vision.training.errata``; ``Errata.none()``: the labels as shipped). The result's
    ``corrected`` counts the photos read whose labels an erratum corrects. ``gates``: the
    same reader with every gate open (``opened_gates``): each missed card is then also
    tallied under ``GATE_FATES`` (``gate_fate``), in the result's ``gate_fates``."""
    errata = shipped_errata() if errata is None else errata
    names = class_names(data)
    scores = Scores()
    group = group_of(data, by) if by else {}
    hand_rows = manifest_hand_rows(data)
    unreadable = manifest_unreadable(data)
    scores.told_unreadable = unreadable is not None
    for image_path in photos_to_read(data, split, layouts, shots)[:limit]:
        expected = truth(image_path, names, errata)
        scores.corrected += errata.for_image(image_path) is not None
        start = time.perf_counter()
        try:
            reading = read_photo(image_path, detector, str(image_path),  # type: ignore[arg-type]
                                 expect=len(expected) if expect == "labelled" else expect,
                                 mode=mode)  # type: ignore[arg-type]
        except PhotoError:
            continue
        seconds = time.perf_counter() - start
        found = set(reading.card_names)
        scores.add(image_path.name, found, expected, seconds)
        rows = hand_rows.get(image_path.relative_to(data).as_posix())
        rows_read = None if rows is None or frozenset().union(*rows.values()) != expected \
            else rows_right(rows, reading.rows)
        if rows_read is not None:
            scores.add_rows(rows_read, found == expected)
        # The scene's cards no one could read: None where the manifest does not say.
        cannot_read = None if unreadable is None else \
            unreadable.get(image_path.relative_to(data).as_posix())
        readable = cannot_read is not None and not cannot_read
        if readable:
            scores.add_readable(found == expected, rows_read)
        missed = expected - found
        if fates or (gates is not None and missed):
            width, height = reading.size
            labels = labelled_boxes(image_path, width, height, names, errata)
            doubtful = {card.card for card in reading.doubtful}
        if fates:
            kept = [] if reading.detections is None else \
                [(name, box) for name, _, box in reading.detections]
            for card in missed:
                fate = missed_card_fate(card, [box for name, box in labels if name == card],
                                        kept, doubtful)
                scores.fates[fate] += 1
                scores.unreadable_fates[fate] += card in (cannot_read or ())
            corner_boxes = [box for _, box in labels]
            for card in found - expected:
                scores.wrong_fates[wrong_card_fate(card, kept, corner_boxes)] += 1
        if gates is not None and missed:
            # The reading keeps no pixels: the photo is decoded again, for these photos only.
            opened = gates.detect(load_photo(image_path), mode,  # type: ignore[attr-defined]
                                  _never_complete)
            for card in missed:
                fate = gate_fate(card, [box for name, box in labels if name == card], opened,
                                 reading.detections, doubtful)
                scores.gate_fates[fate] += 1
                scores.unreadable_gate_fates[fate] += card in (cannot_read or ())
        if by:
            # Rendered manifests name images by path, real-decks-dev's by file name.
            key = group.get(image_path.relative_to(data).as_posix()) \
                or group.get(image_path.name) or "(none)"
            part = scores.groups.setdefault(key, Scores())
            part.add(image_path.name, found, expected, seconds)
            if rows_read is not None:
                part.add_rows(rows_read, found == expected)
            if readable:
                part.add_readable(found == expected, rows_read)
    return scores


def rows_right(truth_rows: HandRows, read: Rows | None) -> bool:
    """Whether ``read`` (the reader's rows, None when it found none) holds each of
    ``truth_rows``' rows' cards in that row."""
    if read is None:
        return False
    return {row: frozenset(cards) for row, cards in read.to_dict().items()} == truth_rows


def _expected_count(text: str) -> int | str | None:
    if text == "labelled":
        return text
    try:
        count = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of cards or labelled") \
            from None
    if count < 0:
        raise argparse.ArgumentTypeError(f"{count}: a number of cards is 0 (not told) or more")
    return count or None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.training.evaluate",
                                     description=__doc__)
    parser.add_argument("data", type=Path)
    parser.add_argument("--split", default="val", help="images/SPLIT if present (default val)")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--shots", choices=["train", "tune", "holdout"], default=None,
                        help="real photo set: only this split of its shots "
                        "(vision.training.realdata)")
    parser.add_argument("--layouts", nargs="+", help="only these layouts (rendered sets: "
                        "spread rows fan overlap few)")
    parser.add_argument("--weights", type=Path, default=None)
    parser.add_argument("--raw-labels", action="store_true",
                        help="measure against the set's labels as shipped, without the "
                        "corrections of datasets/errata.toml")
    parser.add_argument("--table-weights", type=Path, default=None,
                        help="--mode table: this second detector reads the photos too "
                        "(default: the shipped table detector, none with --weights)")
    parser.add_argument("--live-weights", type=Path, default=None,
                        help="--mode live: this detector reads the frames (default: the "
                        "shipped live detector, --weights with --weights)")
    parser.add_argument("--table-conf", type=float, default=None,
                        help="the second detector's threshold (default: shipped)")
    parser.add_argument("--classifier", type=Path, default=None,
                        help="second-stage ONNX, for both modes unless --photo-classifier "
                        "(default: the shipped ones, if any)")
    parser.add_argument("--photo-classifier", type=Path, default=None,
                        help="photo mode's second stage (default: the shipped one, or "
                        "--classifier)")
    parser.add_argument("--conf", type=float, default=None, help="detector threshold")
    parser.add_argument("--iou", type=float, default=None,
                        help="the detector's suppression threshold (box overlap)")
    parser.add_argument("--min-class-conf", type=float, default=None,
                        help="classifier threshold for a corner")
    parser.add_argument("--min-lone-conf", type=float, default=None,
                        help="threshold for a card seen in one corner only")
    parser.add_argument("--faint-conf", type=float, default=None,
                        help="detector threshold for a faint corner (kept when the classifier "
                             "is sure of it)")
    parser.add_argument("--faint-class-conf", type=float, default=None,
                        help="how sure the classifier must be of a faint corner")
    parser.add_argument("--by", choices=GROUPINGS, default=None,
                        help="also score each group of photos: by deck, layout, background "
                             "or what the camera did (rendered sets' manifest)")
    parser.add_argument("--mode", choices=MODES, default="photo",
                        help="the reader's mode (vision.detector.Mode); decoding is timed")
    parser.add_argument("--max-pass-side", type=int, default=None,
                        help="photo mode: the largest side it reads at (default: shipped)")
    parser.add_argument("--live-orientations", type=int, default=None,
                        help="live mode: the turns each crop is read in, 1 2 4 or 8 "
                             "(default: shipped)")
    parser.add_argument("--early-sure", type=float, default=None,
                        help="both modes (live mode unless it has its own, below): a crop "
                             "named this surely in its first two turns "
                             "is not read in the others; 0 reads every turn (default: "
                             "shipped)")
    parser.add_argument("--early-one-turn", type=float, default=None,
                        help="both modes (live mode unless it has its own, below), with "
                             "--early-sure: a crop named this surely as it is is not read "
                             "mirrored; 0 reads every crop mirrored too (default: shipped)")
    parser.add_argument("--live-early-one-turn", type=float, default=None,
                        help="live mode alone: --early-one-turn for its frames (default: "
                             "shipped)")
    parser.add_argument("--live-early-sure", type=float, default=None,
                        help="live mode alone: --early-sure for its frames (default: "
                             "shipped)")
    parser.add_argument("--soften-px", type=int, default=None,
                        help="live mode: the side each crop is softened to before the "
                             "classifier reads it; 0 reads it as cut (default: shipped)")
    parser.add_argument("--expect", type=_expected_count, default=None,
                        help="how many cards the reader is told each photo holds: a number "
                             "(a hand: 13, as cpoker detect tells it; 0: not told), or "
                             "labelled: as many as the photo's labels name (default: not "
                             "told)")
    add_photo_options(parser)
    parser.add_argument("--fates", action="store_true",
                        help="also say where each missed card was lost, and where each card "
                             "read but not there was read (sets labelled by corner index: "
                             "rendered scenes, real-decks-dev)")
    parser.add_argument("--gates", action="store_true",
                        help="also read each photo with a card missed with every gate open, "
                             "and say which gate (or none) lost each missed card (sets "
                             "labelled by corner index)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", type=int, default=10,
                        help="list this many wrong photos (--json lists every one, as "
                        "wrong_photos)")
    args = parser.parse_args(argv)
    if not (args.data / "data.yaml").exists():
        print(f"evaluate: {args.data} has no data.yaml", file=sys.stderr)
        return 2
    if (args.fates or args.gates) and whole_card_labels(args.data):
        print(f"evaluate: {args.data} is labelled with whole-card boxes (its data.yaml "
              "says so): --fates and --gates match each missed card's corner-index boxes, "
              "which these labels do not give. Measure it without them, or give a set "
              "labelled by corner index (rendered scenes, real-decks-dev)", file=sys.stderr)
        return 2
    from vision.detector import ModelError, default_model

    from .torch_detector import card_detector

    try:
        info = default_model()
    except ModelError:
        if args.weights is None:
            raise
        info = ModelInfo(args.weights)
    changes = {"weights": args.weights, "table_weights": args.table_weights,
               "live_weights": args.live_weights, "table_conf": args.table_conf,
               "conf": args.conf,
               "iou": args.iou,
               "min_class_conf": args.min_class_conf, "min_lone_conf": args.min_lone_conf,
               "faint_conf": args.faint_conf, "faint_class_conf": args.faint_class_conf,
               "max_pass_side": args.max_pass_side, "soften_px": args.soften_px,
               "live_orientations": args.live_orientations, "early_sure": args.early_sure,
               "early_one_turn": args.early_one_turn,
               "live_early_one_turn": args.live_early_one_turn,
               "live_early_sure": args.live_early_sure,
               **photo_changes(args)}
    info = measured_model(info, changes).with_classifiers(args.classifier,
                                                          args.photo_classifier)
    detector = card_detector(info)
    detector.warm_up()
    gates = card_detector(opened_gates(info)) if args.gates else None
    scores = evaluate(args.data, detector, args.split, args.limit, args.layouts, args.shots,
                      args.by, args.mode, args.fates, args.expect,
                      Errata.none() if args.raw_labels else None, gates)
    # The table detector joins photo mode too where the shipped settings say so, and
    # --weights alone leaves it out: readings compare only at the same pair of detectors.
    result = {"data": str(args.data),
              "weights": str(info.live_weights or info.weights if args.mode == "live"
                             else info.weights),
              "table_weights": str(info.table_weights)
              if info.reads_table_detector(args.mode) else None,
              "classifier": str(info.classifier),
              "photo_classifier": str(info.photo_classifier or info.classifier),
              "shots": args.shots, "mode": args.mode, "expect": args.expect,
              "labels": "as shipped" if args.raw_labels
              else f"with errata ({scores.corrected} photos corrected)",
              **scores.to_dict()}
    # Every wrong photo by name, so two readings compare photo by photo
    # (``vision.training.compare``); the text lists ``--misses`` of them.
    result["wrong_photos"] = scores.misses
    if args.by:
        result["by"] = args.by
        result["groups"] = {key: part.to_dict() for key, part in sorted(scores.groups.items())}
    # A rendered set drawn since session 61 says which missed cards no one could read.
    told_unreadable = scores.told_unreadable
    if args.fates:
        result["fates"] = {fate: scores.fates[fate] for fate in FATES}
        result["wrong_fates"] = {fate: scores.wrong_fates[fate] for fate in WRONG_FATES}
        if told_unreadable:
            result["unreadable_fates"] = {fate: scores.unreadable_fates[fate] for fate in FATES}
    if args.gates:
        result["gate_fates"] = {fate: scores.gate_fates[fate] for fate in GATE_FATES}
        if told_unreadable:
            result["unreadable_gate_fates"] = {fate: scores.unreadable_gate_fates[fate]
                                               for fate in GATE_FATES}
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            if key not in ("groups", "fates", "wrong_fates", "gate_fates", "unreadable_fates",
                           "unreadable_gate_fates", "wrong_photos"):
                print(f"{key:>22}: {value}")

        def of_them(fate: str, counts: Counter[str]) -> str:
            return f" ({counts[fate]} of them unreadable)" if told_unreadable else ""

        for fate, count in result.get("fates", {}).items():  # type: ignore[union-attr]
            print(f"  missed, {fate}: {count}{of_them(fate, scores.unreadable_fates)}")
        for fate, count in result.get("wrong_fates", {}).items():  # type: ignore[union-attr]
            print(f"  read but not there, {fate}: {count}")
        for fate, count in result.get("gate_fates", {}).items():  # type: ignore[union-attr]
            print(f"  missed, {fate}: {count}{of_them(fate, scores.unreadable_gate_fates)}")
        for key, part in sorted(scores.groups.items()):
            rows = f", rows right {part.rows_right / part.rows_scenes:.4f} of " \
                f"{part.rows_scenes}" if part.rows_scenes else ""
            readable = f", readable scenes right {part.readable_right / part.readable_scenes:.4f}" \
                f" of {part.readable_scenes}" if part.readable_scenes else ""
            if part.readable_rows_scenes:
                share = part.readable_rows_right / part.readable_rows_scenes
                readable += f", their rows right {share:.4f} of {part.readable_rows_scenes}"
            print(f"  {key}: {part.photos} photos, precision {part.precision:.4f}, recall "
                  f"{part.recall:.4f}, exactly right {part.exact_rate:.4f}{rows}{readable}")
        for miss in scores.misses[: args.misses]:
            print(f"  {miss['image']}: missed {miss['missed']} wrong {miss['wrong']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
