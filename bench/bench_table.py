"""Benchmark: one photo of the whole table -> seats, rows and settlement, as `cpoker table`
reads it, on this CPU.

    python bench/bench_table.py [--photos tests/data/tables] [--repeat 3] [--rules 2-4] [--json]

Start-up (imports, loading the networks, one warm-up read) is not counted: each photo is
timed from its file to its report (decode, EXIF, shrink, detect, name the corners, merge
them into cards, group seats and rows, check legality, settle when every seat is right)
through ``cli.read_table_photo``, the function the command runs for each photo. Prints the
median and the slowest per photo, with how many seats each photo's reading settled.
Photos: the committed rendered tables (4032x3024) by default. Target: a median <= 1.5 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from host import host_line  # noqa: E402
from photo_files import photo_files  # noqa: E402

from cli import read_table_photo  # noqa: E402
from engine.rules import load_rules  # noqa: E402
from vision.detector import CardDetector  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=Path, default=ROOT / "tests" / "data" / "tables")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rules", default="2-4")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    photos = photo_files(args.photos)
    if not photos:
        print(f"no photos in {args.photos}", file=sys.stderr)
        return 2
    rules = load_rules(args.rules)
    detector = CardDetector()
    detector.warm_up()
    read_table_photo(str(photos[0]), detector, rules, [])  # warm-up: not counted
    seconds: list[float] = []
    settled = 0
    for _ in range(args.repeat):
        for photo in photos:
            start = time.perf_counter()
            report, _, _ = read_table_photo(str(photo), detector, rules, [])
            seconds.append(time.perf_counter() - start)
            settled += report["settlement"] is not None
    host = host_line()
    result = {"photos": len(photos), "runs": len(seconds),
              "median_s": round(statistics.median(seconds), 3),
              "max_s": round(max(seconds), 3),
              "settled": f"{settled // args.repeat}/{len(photos)}",
              "weights": detector.info.weights.name, "imgsz": detector.info.imgsz,
              "host": host.removeprefix("host: ")}
    if args.json:
        print(json.dumps(result))
    else:
        print(host)
        print("| photos | runs | median s | slowest s | photos settled | weights | imgsz |")
        print("|---|---|---|---|---|---|---|")
        print(f"| {result['photos']} | {result['runs']} | {result['median_s']:.3f} "
              f"| {result['max_s']:.3f} | {result['settled']} | {result['weights']} "
              f"| {result['imgsz']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
