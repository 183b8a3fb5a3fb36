"""Two readings of the same sets side by side: what a lever moved, figure by figure and
photo by photo.

    python -m vision.training.compare BEFORE AFTER [NAME ...] [--json]

``BEFORE`` and ``AFTER`` are folders of readings: ``NAME.json`` files whose last line is a
JSON object, as ``python -m vision.training.targets run DIR`` and ``tools/tune_sets.sh DIR``
keep them (``evaluate --json``, the benchmarks' ``--json``, ``deck_report``). For each
reading both folders hold (or each ``NAME`` given), it prints the figures that changed,
with groups' figures dotted (``groups.webcam-handheld.card_recall``), and, where both
readings list their wrong photos (``evaluate --json``'s ``wrong_photos``), the photos
read right in one and wrong in the other, and those wrong in both but differently. A lever
that adds a right card in one photo and a wrong one in another reads the same figures
twice over; the photos tell them apart.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# Keys that are no figure of the reading: where it was read from, and how.
NOT_FIGURES = {"wrong_photos", "data", "weights", "table_weights", "classifier",
               "photo_classifier", "shots", "mode", "expect", "labels", "by", "host"}


class CompareError(ValueError):
    """A folder or reading that cannot be compared; the message says which and why."""


@dataclass(frozen=True)
class PhotoChange:
    image: str
    before: Mapping[str, Sequence[str]] | None  # None: read right
    after: Mapping[str, Sequence[str]] | None

    def describe(self) -> str:
        return f"{self.image}: {_read_as(self.before)} -> {_read_as(self.after)}"


def _read_as(wrong: Mapping[str, Sequence[str]] | None) -> str:
    if wrong is None:
        return "right"
    parts = []
    if wrong.get("missed"):
        parts.append("missed " + " ".join(wrong["missed"]))
    if wrong.get("wrong"):
        parts.append("wrong " + " ".join(wrong["wrong"]))
    return ", ".join(parts) or "wrong"


def load_reading(path: Path) -> dict[str, object]:
    """The JSON object on the last non-empty line of ``path``."""
    try:
        lines = [line for line in path.read_text().splitlines() if line.strip()]
    except OSError as error:
        raise CompareError(f"{path}: {error.strerror or error}") from None
    if not lines:
        raise CompareError(f"{path}: empty; read it again")
    try:
        reading = json.loads(lines[-1])
    except json.JSONDecodeError:
        raise CompareError(f"{path}: its last line is not a JSON object (a reading that "
                           "failed? see the file)") from None
    if not isinstance(reading, dict):
        raise CompareError(f"{path}: its last line is not a JSON object")
    return reading


def figures(reading: Mapping[str, object], prefix: str = "") -> dict[str, float]:
    """The reading's numbers by key, groups' dotted; what it was read from left out."""
    found: dict[str, float] = {}
    for key, value in reading.items():
        if key in NOT_FIGURES:
            continue
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            found[prefix + key] = float(value)
        elif isinstance(value, Mapping):
            found.update(figures(value, f"{prefix}{key}."))
    return found


def changed_figures(before: Mapping[str, object], after: Mapping[str, object]
                    ) -> list[tuple[str, float | None, float | None]]:
    """Each figure whose value differs, or that one reading lacks, sorted by key. The
    photos' median time is left out: it differs on every reading."""
    old, new = figures(before), figures(after)
    return [(key, old.get(key), new.get(key)) for key in sorted(old.keys() | new.keys())
            if not key.endswith("median_ms_per_photo") and old.get(key) != new.get(key)]


def _wrong_by_image(reading: Mapping[str, object]) -> dict[str, Mapping[str, Sequence[str]]]:
    wrong = reading.get("wrong_photos")
    if not isinstance(wrong, list):
        return {}
    return {str(photo["image"]): photo for photo in wrong if isinstance(photo, Mapping)}


def changed_photos(before: Mapping[str, object], after: Mapping[str, object]
                   ) -> list[PhotoChange] | None:
    """The photos read differently, by name: right in one and wrong in the other, or wrong
    in both with other cards; None when a reading does not list its wrong photos."""
    if "wrong_photos" not in before or "wrong_photos" not in after:
        return None
    old, new = _wrong_by_image(before), _wrong_by_image(after)
    changes = []
    for image in sorted(old.keys() | new.keys()):
        was, now = old.get(image), new.get(image)
        if was is None or now is None or \
                sorted(was.get("missed", [])) != sorted(now.get("missed", [])) or \
                sorted(was.get("wrong", [])) != sorted(now.get("wrong", [])):
            changes.append(PhotoChange(image, was, now))
    return changes


def compare(before: Path, after: Path, names: Sequence[str] = ()) -> list[dict[str, object]]:
    """Each reading's changes: its name, the figures changed, and the photos (None where
    a reading lists none)."""
    for folder in (before, after):
        if not folder.is_dir():
            raise CompareError(f"{folder}: no such folder of readings")
    if names:
        missing = [f"{folder / name}.json" for name in names for folder in (before, after)
                   if not (folder / f"{name}.json").is_file()]
        if missing:
            raise CompareError(f"no reading {', '.join(missing)}")
    else:
        names = sorted({path.stem for path in before.glob("*.json")}
                       & {path.stem for path in after.glob("*.json")})
        if not names:
            raise CompareError(f"{before} and {after} hold no reading of the same name "
                               "(NAME.json)")
    result = []
    for name in names:
        old = load_reading(before / f"{name}.json")
        new = load_reading(after / f"{name}.json")
        photos = changed_photos(old, new)
        result.append({"reading": name,
                       "figures": [{"figure": key, "before": was, "after": now}
                                   for key, was, now in changed_figures(old, new)],
                       "photos": None if photos is None else [
                           {"image": change.image, "before": change.before,
                            "after": change.after} for change in photos]})
    return result


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def describe(changes: Sequence[Mapping[str, object]]) -> list[str]:
    lines = []
    for change in changes:
        moved = change["figures"]
        photos = change["photos"]
        assert isinstance(moved, list)
        if not moved and not photos:
            # With no wrong photos listed, equal figures may still hide photos that swapped.
            lines.append(f"{change['reading']}: the same" if photos is not None else
                         f"{change['reading']}: the same figures (a reading lists no wrong "
                         "photos)")
            continue
        lines.append(f"{change['reading']}:")
        lines += [f"  {figure['figure']}: {_number(figure['before'])} -> "
                  f"{_number(figure['after'])}" for figure in moved]
        if photos is None:
            continue
        assert isinstance(photos, list)
        lines += ["  " + PhotoChange(photo["image"], photo["before"], photo["after"]).describe()
                  for photo in photos]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.compare",
        description="What changed between two folders of readings (NAME.json each).")
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("names", nargs="*", help="only these readings (default: every one "
                                                 "both folders hold)")
    parser.add_argument("--json", action="store_true", help="print the changes as JSON")
    args = parser.parse_args(argv)
    try:
        changes = compare(args.before, args.after, args.names)
    except CompareError as error:
        print(f"compare: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(changes))
    else:
        print("\n".join(describe(changes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
