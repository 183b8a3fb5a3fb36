"""Reading a YOLO-format data set as this project writes and uses them: class names from
``data.yaml``, images by split, each image's label file and the cards it names, and the
generator's ``manifest.csv``. Shared by evaluation, the real-photo tools and reports."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision.table import ROW_SIZES  # a set hand's rows and their sizes, as a seat holds them

from .errata import Errata, shipped_errata

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp"}


# A labelled corner is matched by a box that overlaps it at least this much (IoU).
MATCH_IOU = 0.3


def box_iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(N,) overlap (intersection over union) of one x1 y1 x2 y2 ``box`` with each of the
    (N, 4) ``boxes``."""
    x1 = np.maximum(box[0], boxes[:, 0])
    y1 = np.maximum(box[1], boxes[:, 1])
    x2 = np.minimum(box[2], boxes[:, 2])
    y2 = np.minimum(box[3], boxes[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter / ((box[2] - box[0]) * (box[3] - box[1]) + areas - inter)


def class_names(data: Path) -> list[str]:
    """Class names from data.yaml, read without a YAML dependency (both forms we write)."""
    text = (data / "data.yaml").read_text()
    names: dict[int, str] = {}
    in_names = False
    for line in text.splitlines():
        stripped = line.split("#", 1)[0].rstrip()
        if stripped.startswith("names:"):
            rest = stripped[len("names:"):].strip()
            if rest.startswith("["):
                return [n.strip().strip("'\"") for n in rest.strip("[]").split(",")]
            in_names = True
            continue
        if in_names:
            if not line.startswith((" ", "\t")):
                break
            key, _, value = stripped.strip().partition(":")
            names[int(key)] = value.strip().strip("'\"")
    return [names[i] for i in sorted(names)]


def whole_card_labels(data: Path) -> bool:
    """Whether the set's labels box whole cards rather than corner indices, as its
    ``data.yaml`` says in a comment (``real-photos-dev``'s: "# whole-card boxes; ...").
    Such labels hold no corner index, so nothing can be matched to a corner the reader
    kept (``evaluate --fates``, ``--gates``): a sideways card's indices lie nowhere near
    where an upright card's would."""
    comments = [line.lstrip("#").strip().lower()
                for line in (data / "data.yaml").read_text().splitlines()
                if line.lstrip().startswith("#")]
    return any("whole-card boxes" in comment for comment in comments)


def images(data: Path, split: str | None) -> list[Path]:
    roots = [data / "images" / split] if split and (data / "images" / split).is_dir() \
        else [data / "images"]
    return sorted(p for root in roots for p in root.rglob("*") if p.suffix.lower()
                  in IMAGE_SUFFIXES)


def label_path(image: Path) -> Path:
    parts = list(image.parts)
    index = len(parts) - 1 - parts[::-1].index("images")
    parts[index] = "labels"
    return Path(*parts).with_suffix(".txt")


def labelled_boxes(image: Path, width: float, height: float, names: Sequence[str],
                   errata: Errata | None = None
                   ) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Each label of ``image`` as (class name, box x1 y1 x2 y2 in pixels of a ``width`` x
    ``height`` photo), its card corrected by ``errata`` (default: the shipped ones,
    ``vision.training.errata``; ``Errata.none()`` for the labels as shipped)."""
    errata = shipped_errata() if errata is None else errata
    return [(errata.card(image, card, (x1, y1, x2, y2)),
             (x1 * width, y1 * height, x2 * width, y2 * height))
            for card, (x1, y1, x2, y2) in _labels(label_path(image), names)]


def _labels(path: Path, names: Sequence[str]
            ) -> list[tuple[str, tuple[float, float, float, float]]]:
    """A YOLO label file's lines as (class name, box x1 y1 x2 y2 in shares of the photo),
    as labelled."""
    labels = []
    for line in path.read_text().splitlines():
        if line.strip():
            cls, cx, cy, w, h = (float(v) for v in line.split())
            labels.append((names[int(cls)], (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)))
    return labels


def truth(image: Path, names: list[str], errata: Errata | None = None) -> set[str]:
    """The set of cards in ``image``: those its labels name, corrected by ``errata``
    (default: the shipped ones; ``Errata.none()`` for the labels as shipped)."""
    errata = shipped_errata() if errata is None else errata
    path = label_path(image)
    return errata.cards(image, _labels(path, names) if path.exists() else [])


def manifest_rows(data: Path) -> list[dict[str, str]]:
    """The generator's ``manifest.csv`` rows (empty when there is none)."""
    manifest = data / "manifest.csv"
    if not manifest.exists():
        return []
    with manifest.open() as handle:
        return list(csv.DictReader(handle))


def manifest_column(data: Path, column: str) -> dict[str, str]:
    """Image path (relative to DATA) -> ``column`` (layout, deck, ...), from the
    generator's manifest if present."""
    return {row["image"]: row.get(column, "") for row in manifest_rows(data)}


HandRows = dict[str, frozenset[str]]


def parse_hand_rows(cell: str, where: str = "rows") -> HandRows | None:
    """A manifest's ``rows`` cell ("front 6d 7c Qh; middle ...; back ...", as
    ``vision.training.synth.rows_cell`` writes it) -> each row's cards; None for an empty
    cell (a scene not laid out in rows). A cell that is not three rows of 3, 5 and 5
    distinct cards raises ValueError naming ``where``."""
    if not cell.strip():
        return None
    rows: HandRows = {}
    for part in cell.split(";"):
        row, *cards = part.split()
        if row not in ROW_SIZES or row in rows:
            raise ValueError(f"{where}: {row!r} is not a row, or is named twice "
                             f"(rows are {', '.join(ROW_SIZES)})")
        if len(cards) != ROW_SIZES[row] or len(set(cards)) != len(cards):
            raise ValueError(f"{where}: the {row} row holds {len(cards)} cards "
                             f"({' '.join(cards)}), not {ROW_SIZES[row]} distinct ones")
        rows[row] = frozenset(cards)
    if set(rows) != set(ROW_SIZES) or len(frozenset().union(*rows.values())) != 13:
        raise ValueError(f"{where}: a set hand is three rows of 13 distinct cards, "
                         f"got {cell!r}")
    return rows


def manifest_hand_rows(data: Path) -> dict[str, HandRows]:
    """Image path (relative to DATA) -> its set hand's rows, for the rendered scenes laid
    out in rows (``manifest.csv``'s ``rows`` column; none in a manifest written before
    session 58, or in a set that is not rendered)."""
    found = {}
    for row in manifest_rows(data):
        rows = parse_hand_rows(row.get("rows") or "", f"{data / 'manifest.csv'}: "
                               f"{row['image']}")
        if rows is not None:
            found[row["image"]] = rows
    return found


def manifest_unreadable(data: Path) -> dict[str, frozenset[str]] | None:
    """Image path (relative to DATA) -> the labelled cards of the rendered scene that no
    corner shows readably (``manifest.csv``'s ``unreadable`` column,
    ``vision.training.synth.scene.READABLE_RANK``); None for a manifest without the column
    (written before session 61, or a set that is not rendered)."""
    rows = manifest_rows(data)
    if not rows or "unreadable" not in rows[0]:
        return None
    return {row["image"]: frozenset((row["unreadable"] or "").split()) for row in rows}


def select_images(data: Path, split: str | None, layouts: Sequence[str] | None = None
                  ) -> list[Path]:
    """The photos of ``split``, only those of ``layouts`` when given (rendered sets)."""
    found = images(data, split)
    if layouts:
        layout_of = manifest_column(data, "layout")
        found = [p for p in found
                 if layout_of.get(p.relative_to(data).as_posix()) in set(layouts)]
    return found
