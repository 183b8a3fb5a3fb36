"""Start-up: time from a cold ``cpoker detect PHOTO`` to its answer, in a fresh process.

    python bench/bench_startup.py [--repeat 5] [--root DIR] [--photo PATH]

Each run is a new Python process (imports, model loading, one photo read, exit), so the
figure is what a user waits for the first answer. ``--root`` runs another checkout's
``cli.py`` (e.g. an older commit in a worktree) with this interpreter, to compare layouts.
The first run warms the disk cache and is not counted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = """
import json, sys
import cli
cli.main(['detect', {photo!r}, '--json'])
heavy = sorted({{m.split('.')[0] for m in sys.modules if m.split('.')[0] in
                ('torch', 'torchvision', 'ultralytics')}})
print(json.dumps({{'heavy': heavy}}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--photo", type=Path,
                        default=ROOT / "tests" / "data" / "scenes" / "scene-00-rows.jpg")
    args = parser.parse_args(argv)
    code = SCRIPT.format(photo=str(args.photo.resolve()))
    seconds, heavy = [], []
    for run in range(args.repeat + 1):
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", code], cwd=args.root, capture_output=True,
                              text=True, check=True)
        if run:
            seconds.append(time.perf_counter() - start)
        heavy = json.loads(done.stdout.strip().splitlines()[-1])["heavy"]
    print(json.dumps({"root": str(args.root), "runs": args.repeat,
                      "median_s": round(statistics.median(seconds), 3),
                      "min_s": round(min(seconds), 3), "max_s": round(max(seconds), 3),
                      "heavy_modules_loaded": heavy}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
