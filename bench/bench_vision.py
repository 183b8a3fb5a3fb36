"""Benchmark: the whole photo -> cards path on this CPU, in photo or live mode.

    python bench/bench_vision.py [--photos DIR] [--mode photo|live] [--repeat 3]
        [--size 640 [--height 480]] [--expect 13|0|labelled] [--json]

Times ``read_photo`` for each photo: decoding the file (JPEG draft, EXIF, shrink), the
detector's passes, the classifier, merging corners and grouping rows, after one warm-up,
and prints the median and 90th percentile per photo. Photos: the committed rendered
scenes by default; each photo is first re-saved (JPEG, quality 92) at ``--size`` pixels
wide (and ``--height`` high, cropped from its centre to that shape); ``--size 0`` times
the files as they are. The targets (issue 13): photo mode <= 250 ms for a 1280x960
13-card photo and <= 1.2 s for a 4032x3024 whole-table photo; live mode <= 60 ms for a
640x480 frame.

``--expect``: how many cards the reader is told a photo holds, as ``cpoker detect
--expect`` tells it (default 13, a hand; 0: not told). Photo mode spends more on a photo
whose reading falls short of that count (the table detector, the photo read again), so a
set whose photos hold fewer cards than they are said to is timed at that cost. With
``labelled`` (``--size 0`` only), each photo is said to hold the cards its label file
names (a rendered set's ``labels/SPLIT/NAME.txt``): as a user who says how many they
photographed.

``--negative``: each photo is re-saved in its negative first, a deck printed light on dark
(as the black deck of ``real-decks-dev``), so photo mode's reading of a dark deck is timed:
its first look votes the photo dark, and the corners are named by the classifier adapted to
them (``ModelInfo.photo_dark_adapt``).

``--live-weights``, ``--classifier``, ``--live-orientations``, ``--live-early-one-turn``
and ``--live-early-sure`` time candidate files and settings in place of
``models/cards.json``'s (``vision.detector.ModelInfo``'s ``live_weights``,
``classifier``, ``live_orientations``, ``live_early_one_turn`` and ``live_early_sure``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
from host import host_line  # noqa: E402
from photo_files import centre_crop, photo_files  # noqa: E402

from vision.detector import MODES, CardDetector, ModelError, ModelInfo, default_model  # noqa: E402
from vision.pipeline import read_photo  # noqa: E402
from vision.training.labels import label_path  # noqa: E402
from vision.training.reader_options import measured_model  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--photos", type=Path, default=ROOT / "tests" / "data" / "scenes")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--size", type=int, default=640,
                        help="width the photos are re-saved at (0: as they are)")
    parser.add_argument("--height", type=int, default=0,
                        help="height they are re-saved at (default: their own shape)")
    parser.add_argument("--mode", choices=MODES, default="photo")
    parser.add_argument("--negative", action="store_true",
                        help="time the photos' negatives: a deck printed light on dark")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (vision.training.targets reads it)")
    parser.add_argument("--expect", default="13",
                        help="cards a photo holds (0: any; labelled: as its labels name)")
    parser.add_argument("--live-weights", type=Path, default=None,
                        help="live mode's detector (default: cards.json's)")
    parser.add_argument("--classifier", type=Path, default=None,
                        help="live mode's classifier (default: cards.json's)")
    parser.add_argument("--live-orientations", type=int, default=None,
                        help="the turns live mode reads a crop in (default: cards.json's)")
    parser.add_argument("--live-early-one-turn", type=float, default=None,
                        help="live mode mirrors a crop named under this (default: "
                             "cards.json's)")
    parser.add_argument("--live-early-sure", type=float, default=None,
                        help="live mode reads a crop's other turns when named under this "
                             "in its first two (default: cards.json's)")
    args = parser.parse_args()
    try:
        info = measured_model(default_model(), {
            "live_weights": args.live_weights, "classifier": args.classifier,
            "live_orientations": args.live_orientations,
            "live_early_one_turn": args.live_early_one_turn,
            "live_early_sure": args.live_early_sure})
    except ModelError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    photos = photo_files(args.photos)[: args.limit]
    if not photos:
        print(f"no photos in {args.photos}", file=sys.stderr)
        return 2
    if args.expect == "labelled":
        if args.size:
            print("--expect labelled times the photos as they are: add --size 0",
                  file=sys.stderr)
            return 2
        try:
            counts = [labelled_cards(photo) for photo in photos]
        except OSError as error:
            print(f"--expect labelled: {error}", file=sys.stderr)
            return 2
    elif args.expect.isdigit():
        counts = [int(args.expect) or None] * len(photos)
    else:
        print(f"--expect {args.expect}: give a number of cards, 0 or labelled", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        if args.size or args.negative:
            photos = [resave(photo, Path(scratch) / f"{i}.jpg", args.size, args.height,
                             args.negative) for i, photo in enumerate(photos)]
        return time_photos(photos, args.repeat, args.mode, counts, info, args.json)


def labelled_cards(photo: Path) -> int:
    """How many cards a rendered photo's label file names (``images/SPLIT/NAME.jpg`` ->
    ``labels/SPLIT/NAME.txt``, one line a corner index, its card first)."""
    lines = label_path(photo).read_text().split("\n")
    return len({line.split()[0] for line in lines if line.strip()})


def resave(photo: Path, out: Path, width: int, height: int = 0, negative: bool = False
           ) -> Path:
    """``photo`` re-saved to ``out`` at ``width`` (0: its own) and ``height`` (its centre
    cropped to that shape), in its negative with ``negative``."""
    image = cv2.imread(str(photo))
    if height and width:  # crop the centre to the wanted shape first
        image = centre_crop(image, width, height)
    if width:
        scale = width / image.shape[1]
        image = cv2.resize(image, None, fx=scale, fy=scale,
                           interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    if negative:
        image = 255 - image
    cv2.imwrite(str(out), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return out


def time_photos(photos: list[Path], repeat: int, mode: str,
                expects: list[int | None], info: ModelInfo | None = None,
                as_json: bool = False) -> int:
    detector = CardDetector(info)
    detector.warm_up()
    read_photo(photos[0], detector, expect=expects[0], mode=mode)  # type: ignore[arg-type]
    times, sizes = [], set()
    for _ in range(repeat):
        for photo, expect in zip(photos, expects, strict=True):
            start = time.perf_counter()
            reading = read_photo(photo, detector, expect=expect, mode=mode)  # type: ignore[arg-type]
            times.append(1000 * (time.perf_counter() - start))
            sizes.add(f"{reading.size[0]}x{reading.size[1]}")
    times.sort()
    weights = detector.info.live_weights if mode == "live" else None
    result = {"mode": mode, "weights": (weights or detector.info.weights).name,
              "decoded_px": sorted(sizes), "photos": len(photos), "runs": len(times),
              "median_ms": round(statistics.median(times), 1),
              "p90_ms": round(times[int(0.9 * (len(times) - 1))], 1),
              "host": host_line().removeprefix("host: ")}
    if as_json:
        print(json.dumps(result))
        return 0
    print(host_line())
    print("| mode | weights | decoded px | photos | runs | median ms | p90 ms |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {mode} | {result['weights']} | {', '.join(result['decoded_px'])} "
          f"| {len(photos)} | {len(times)} | {result['median_ms']:.1f} | {result['p90_ms']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
