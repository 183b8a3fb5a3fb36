"""Sheets for a person to judge a labelled set's disagreements with the reader by eye.

    python -m vision.training.label_audit DATA --out DIR [--shots holdout] [--split val]
        [--limit N] [--raw-labels]
    python -m vision.training.label_audit DATA --ink|--rank --out DIR [--shots train] ...

Each photo the reader reads otherwise than its labels (as ``evaluate`` scores it, told the
labelled count, with the errata of ``datasets/errata.toml`` unless ``--raw-labels``) gets
one PNG sheet in DIR: the photo with every card the reader kept boxed and named, and
beside it, enlarged, each labelled corner of a card it missed ("label 10♦") and each
corner of a card it read that the labels do not name ("read 10♥ 0.99"). ``DIR/index.csv``
lists the sheets. This is how session 55 found its errata: a sheet is where to look, and
only what the photo itself shows at full size becomes an erratum; most disagreements are
the reader's mistakes.

A label the reader was trained on it reads as labelled, right or wrong, so the sheets above
never show it. ``--ink`` asks something that learned nothing from the labels: the colour of
each labelled box's ink. Within a photo whose red (hearts, diamonds; a gold deck's gold)
and black (or silver) ink lie apart, a box labelled red whose ink is coloured like the
photo's black labels, or the other way round, gets a tile on its photo's sheet ("label Q♥,
ink 51: black?"). Session 56 found a three of clubs' corner labelled Qh this way.
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from vision.draw import annotate, card_label, label_font
from vision.photo import PhotoError, load_photo
from vision.pipeline import PhotoReading, read_image

from .errata import Errata, shipped_errata
from .evaluate import photos_to_read
from .labels import class_names, labelled_boxes, truth

TILE = 180  # pixels a side of each enlarged corner
CONTEXT = 2.5  # the corner's box sizes shown around it
OUTLINE = (0, 160, 255)


def corner_tile(image: np.ndarray, box: Sequence[float], caption: str) -> Image.Image:
    """The corner ``box`` (x1 y1 x2 y2) with some card around it, enlarged to ``TILE``
    pixels, its caption under it."""
    height, width = image.shape[:2]
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    half = max(box[2] - box[0], box[3] - box[1], 4.0) * CONTEXT / 2
    x0, y0 = int(max(0, cx - half)), int(max(0, cy - half))
    x1, y1 = int(min(width, cx + half)), int(min(height, cy + half))
    tile = Image.new("RGB", (TILE, TILE + 26), (255, 255, 255))
    if x1 > x0 and y1 > y0:
        crop = Image.fromarray(image[y0:y1, x0:x1])
        scale = TILE / max(crop.size)
        crop = crop.resize((max(1, round(crop.size[0] * scale)),
                            max(1, round(crop.size[1] * scale))), Image.Resampling.LANCZOS)
        left, top = (TILE - crop.size[0]) // 2, (TILE - crop.size[1]) // 2
        tile.paste(crop, (left, top))
        # The disputed box itself, outlined: in a fan the tile shows its neighbours too.
        ImageDraw.Draw(tile).rectangle(
            [left + (box[0] - x0) * scale, top + (box[1] - y0) * scale,
             left + (box[2] - x0) * scale, top + (box[3] - y0) * scale],
            outline=OUTLINE, width=2)
    size = 18  # smaller until the caption fits under the tile
    while size > 9 and label_font(size).getlength(caption) > TILE - 6:
        size -= 1
    ImageDraw.Draw(tile).text((4, TILE + 3), caption, fill=(0, 0, 0), font=label_font(size))
    return tile


def audit_sheet(image: np.ndarray, reading: PhotoReading,
                labels: Sequence[tuple[str, tuple[float, float, float, float]]],
                missed: set[str], wrong: set[str]) -> Image.Image:
    """The annotated photo, and a column of tiles: each labelled corner of a missed card,
    then each corner of a card read but not labelled."""
    tiles = [corner_tile(image, box, f"label {card_label(card)}")
             for card, box in labels if card in missed]
    kept = [] if reading.detections is None else list(reading.detections)
    tiles += [corner_tile(image, box, f"read {card_label(name)} {conf:.2f}")
              for name, conf, box in kept if name in wrong]
    photo = annotate(image, reading.cards)
    photo.thumbnail((960, 960))
    return _sheet(photo, tiles)


def _sheet(photo: Image.Image, tiles: Sequence[Image.Image]) -> Image.Image:
    """The photo, and the tiles in columns beside it."""
    columns = max(1, -(-len(tiles) * (TILE + 26) // max(photo.size[1], TILE + 26)))
    per_column = -(-len(tiles) // columns) if tiles else 0
    sheet = Image.new("RGB", (photo.size[0] + columns * (TILE + 6),
                              max(photo.size[1], per_column * (TILE + 30))), (255, 255, 255))
    sheet.paste(photo, (0, 0))
    for k, tile in enumerate(tiles):
        column, row = divmod(k, per_column)
        sheet.paste(tile, (photo.size[0] + 6 + column * (TILE + 6), row * (TILE + 30)))
    return sheet


def audit(data: Path, out: Path, split: str | None = "val", shots: str | None = None,
          limit: int | None = None, errata: Errata | None = None,
          detector: object | None = None) -> list[dict[str, str]]:
    """Writes a sheet for each photo read otherwise than labelled; returns the index rows
    (also written to ``out/index.csv``). ``detector``: the reader (default: the shipped
    one)."""
    from vision.detector import CardDetector

    errata = shipped_errata() if errata is None else errata
    names = class_names(data)
    detector = CardDetector() if detector is None else detector
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for path, image in _photos(data, split, shots, limit):  # decoded once: read, drawn on
        expected = truth(path, names, errata)
        reading = read_image(image, detector, str(path),  # type: ignore[arg-type]
                             expect=len(expected) or None)
        found = set(reading.card_names)
        if found == expected:
            continue
        height, width = image.shape[:2]
        labels = labelled_boxes(path, width, height, names, errata)
        missed, wrong = expected - found, found - expected
        sheet = out / f"{path.stem}.png"
        audit_sheet(image, reading, labels, missed, wrong).save(sheet)
        rows.append({"image": path.name, "missed": " ".join(sorted(missed)),
                     "wrong": " ".join(sorted(wrong)), "sheet": sheet.name})
        print(f"{path.name}: missed {sorted(missed)} read {sorted(wrong)} -> {sheet}")
    return _indexed(out, rows, ["image", "missed", "wrong", "sheet"])


def _photos(data: Path, split: str | None, shots: str | None, limit: int | None
            ) -> Iterator[tuple[Path, np.ndarray]]:
    """Each photo to look at (``evaluate.photos_to_read``), decoded; one that cannot be
    decoded is skipped with a line on stderr."""
    for path in photos_to_read(data, split, shots=shots)[:limit]:
        try:
            yield path, load_photo(path)
        except PhotoError as error:
            print(f"{path.name}: skipped ({error})", file=sys.stderr)


def _indexed(out: Path, rows: list[dict[str, str]], fields: list[str]
             ) -> list[dict[str, str]]:
    """``rows`` written to ``out/index.csv``."""
    with (out / "index.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fields)
        writer.writeheader()
        writer.writerows(rows)
    return rows


# Ink: a box's glyph pixels are the quarter furthest in brightness from the box's median
# (the card face); their median HSV saturation is the box's ink. Measured on real-decks-dev
# (session 56): red labels 62-118 at the median by kind, black 11-39, overlapping across
# photos (lighting, a grey photo); within one photo they lie apart.
INK_SHARE = 0.25
INK_APART = 40.0  # a photo whose red and black labels' medians lie closer is not judged
INK_MARGIN = 0.25  # flagged: within this share of the gap from the other colour's median


def ink(image: np.ndarray, box: Sequence[float]) -> float | None:
    """The median saturation (0-255) of the ink in ``box`` (x1 y1 x2 y2), None when the
    box holds no pixels."""
    import cv2

    height, width = image.shape[:2]
    crop = image[int(max(0, box[1])):int(min(height, box[3])),
                 int(max(0, box[0])):int(min(width, box[2]))]
    if crop.size == 0:
        return None
    grey = cv2.cvtColor(crop, cv2.COLOR_RGB2GRAY).reshape(-1).astype(np.float32)
    saturation = cv2.cvtColor(crop, cv2.COLOR_RGB2HSV)[..., 1].reshape(-1)
    away = np.abs(grey - np.median(grey))
    return float(np.median(saturation[away >= np.quantile(away, 1 - INK_SHARE)]))


def red(card: str) -> bool:
    return card[1] in "hd"


def ink_flags(labels: Sequence[tuple[str, float]]) -> list[int]:
    """The labels (card, ink) of one photo whose ink is coloured like the other colour's:
    their indices; none when the photo's two colours do not lie apart."""
    reds = [value for card, value in labels if red(card)]
    blacks = [value for card, value in labels if not red(card)]
    if not reds or not blacks:
        return []
    red_ink, black_ink = float(np.median(reds)), float(np.median(blacks))
    gap = red_ink - black_ink
    if gap < INK_APART:
        return []
    return [k for k, (card, value) in enumerate(labels)
            if (red(card) and value < black_ink + INK_MARGIN * gap)
            or (not red(card) and value > red_ink - INK_MARGIN * gap)]


# A disputed label: its card, its box (x1 y1 x2 y2, pixels) and what the check found.
Flag = tuple[str, tuple[float, float, float, float], str]
Check = Callable[[np.ndarray, list[tuple[str, tuple[float, float, float, float]]]], list[Flag]]


def ink_check(image: np.ndarray, labels: list[tuple[str, tuple[float, float, float, float]]]
              ) -> list[Flag]:
    """The labels of ``image`` whose ink is coloured like the other colour's."""
    judged = [(card, box, value) for card, box in labels
              if (value := ink(image, box)) is not None]
    return [(card, box, f"ink {value:.0f}: {'black' if red(card) else 'red'}?")
            for card, box, value in (judged[k] for k in
                                     ink_flags([(c, v) for c, _, v in judged]))]


RANK_SURE = 0.8  # the recogniser's score from which its rank disputes a label
# A 6 and a 9 are one glyph turned: the recogniser cannot know a corner's turn.
TURNED_ALIKE = {"6", "9"}


def rank_check(engine: object) -> Check:
    """The labels whose rank a text recogniser (RapidOCR's, ``vision.training.
    ocr_report``) reads surely as another; the boxes must be corner indices."""
    from .ocr_report import ocr_rank, text_crop

    def check(image: np.ndarray, labels: list[tuple[str, tuple[float, float, float, float]]]
              ) -> list[Flag]:
        flags = []
        for card, box in labels:
            rank, score = ocr_rank(engine, text_crop(image, box))
            if rank is not None and rank != card[0] and score > RANK_SURE \
                    and {rank, card[0]} != TURNED_ALIKE:
                flags.append((card, box, f"text {'10' if rank == 'T' else rank} {score:.2f}"))
        return flags

    return check


def check_audit(data: Path, out: Path, check: Check, split: str | None = "val",
                shots: str | None = None, limit: int | None = None,
                errata: Errata | None = None) -> list[dict[str, str]]:
    """Writes a sheet for each photo with a label ``check`` disputes (each such label
    enlarged, with what the check found); returns the index rows (also written to
    ``out/index.csv``: photo, label, where, found, sheet)."""
    errata = shipped_errata() if errata is None else errata
    names = class_names(data)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for path, image in _photos(data, split, shots, limit):
        height, width = image.shape[:2]
        flagged = check(image, labelled_boxes(path, width, height, names, errata))
        if not flagged:
            continue
        photo = Image.fromarray(image)
        photo.thumbnail((960, 960))
        tiles = [corner_tile(image, box, f"label {card_label(card)}, {found}")
                 for card, box, found in flagged]
        sheet = out / f"{path.stem}.png"
        _sheet(photo, tiles).save(sheet)
        for card, box, found in flagged:
            rows.append({"image": path.name, "label": card,
                         "at": f"{(box[0] + box[2]) / 2 / width:.3f} "
                               f"{(box[1] + box[3]) / 2 / height:.3f}",
                         "found": found, "sheet": sheet.name})
            print(f"{path.name}: label {card} at {rows[-1]['at']}, {found} -> {sheet}")
    return _indexed(out, rows, ["image", "label", "at", "found", "sheet"])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.training.label_audit",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--split", default="val", help="images/SPLIT if present (default val)")
    parser.add_argument("--shots", choices=["train", "tune", "holdout"], default=None,
                        help="real photo sets: only this split of their shots")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--raw-labels", action="store_true",
                        help="the labels as shipped, without datasets/errata.toml")
    checks = parser.add_mutually_exclusive_group()
    checks.add_argument("--ink", action="store_true",
                        help="the labels whose ink's colour disputes their suit, not the "
                             "reader's disagreements")
    checks.add_argument("--rank", action="store_true",
                        help="the labels whose rank RapidOCR's recogniser reads surely as "
                             "another (corner-index labels; pip install -e .[ocr-study])")
    args = parser.parse_args(argv)
    if not (args.data / "data.yaml").exists():
        parser.error(f"{args.data} holds no data.yaml: give a labelled set's folder")
    errata = Errata.none() if args.raw_labels else None
    if args.ink or args.rank:
        if args.ink:
            check = ink_check
        else:
            try:
                from rapidocr_onnxruntime import RapidOCR
            except ImportError:
                parser.error("--rank needs the text recogniser: pip install -e .[ocr-study]")
            check = rank_check(RapidOCR(intra_op_num_threads=2))
        rows = check_audit(args.data, args.out, check, args.split, args.shots, args.limit,
                           errata)
        print(f"{len(rows)} labels to look at: {args.out / 'index.csv'}")
        return 0
    rows = audit(args.data, args.out, args.split, args.shots, args.limit, errata)
    print(f"{len(rows)} photos to look at: {args.out / 'index.csv'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
