"""Benchmark: the whole photo -> cards path on this CPU.

    python bench/bench_vision.py [--photos DIR] [--repeat 3] [--size 640]

Times load (decode, EXIF, shrink) + detect + merge corners + group rows for each photo,
after one warm-up, and prints the median and 90th percentile per photo with the model's
input size. Photos: the committed rendered scenes by default. The target is per
640-pixel photo, so each photo is first re-saved (JPEG, quality 92) with its long side
at ``--size`` pixels; ``--size 0`` times the files as they are.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402

from vision.detector import CardDetector  # noqa: E402
from vision.photo import load_photo  # noqa: E402
from vision.pipeline import read_image  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--photos", type=Path, default=ROOT / "tests" / "data" / "scenes")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--size", type=int, default=640,
                        help="long side the photos are re-saved at (0: as they are)")
    args = parser.parse_args()
    photos = sorted(p for p in args.photos.rglob("*") if p.suffix.lower() in
                    {".jpg", ".jpeg", ".png"})[: args.limit]
    if not photos:
        print(f"no photos in {args.photos}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        if args.size:
            photos = [resave(photo, Path(scratch) / f"{i}.jpg", args.size)
                      for i, photo in enumerate(photos)]
        return time_photos(photos, args.repeat, args.size)


def resave(photo: Path, out: Path, size: int) -> Path:
    image = cv2.imread(str(photo))
    scale = size / max(image.shape[:2])
    image = cv2.resize(image, None, fx=scale, fy=scale,
                       interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    cv2.imwrite(str(out), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return out


def time_photos(photos: list[Path], repeat: int, size: int) -> int:
    detector = CardDetector()
    detector.warm_up()
    times = []
    for _ in range(repeat):
        for photo in photos:
            start = time.perf_counter()
            read_image(load_photo(photo), detector, str(photo))
            times.append(1000 * (time.perf_counter() - start))
    times.sort()
    print("| weights | imgsz | photo px | photos | runs | median ms | p90 ms |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {detector.info.weights.name} | {detector.info.imgsz} | {size or 'as is'} "
          f"| {len(photos)} | {len(times)} "
          f"| {statistics.median(times):.1f} | {times[int(0.9 * (len(times) - 1))]:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
