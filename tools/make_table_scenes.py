"""Render the whole-table photos the tests read (tests/data/tables/).

    .venv/bin/python tools/make_table_scenes.py [--seed 15] [--quality 85]

One table of 2, one of 3 and one of 4 seats, each a 4032x3024 phone photo (the generator's
square scene widened with more of the same table, see vision.training.table_report) of a
held-out (validation) deck, every card showing at least one corner index and none near the
photo's edges. Each photo has a JSON beside it: the seats as ``cpoker table`` numbers them
(nearest the bottom edge first, then clockwise) with their front, middle and back rows,
the deck, the background and every corner index's true box (``indices``, photo pixels).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.training.table_report import PHONE, held_out_decks, render_table  # noqa: E402

OUT = ROOT / "tests" / "data" / "tables"
MAX_BYTES = 1_500_000
CLEAR = 0.03  # no corner index nearer the frame than this share of its width


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--quality", type=int, default=85, help="JPEG quality")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    decks = held_out_decks()
    if not decks:
        return 2
    OUT.mkdir(parents=True, exist_ok=True)
    for made, seats in enumerate((2, 3, 4)):
        deck = decks[made % len(decks)]
        while True:
            scene = render_table(rng, deck, PHONE)
            # Clear of the frame, so that the photo reads without a cut-off warning.
            if scene is not None and len(scene.seats) == seats and all(
                    min(x1, y1, PHONE[0] - x2, PHONE[1] - y2) > CLEAR * PHONE[0]
                    for x1, y1, x2, y2 in scene.boxes.values()):
                break
        quality = args.quality
        while True:
            ok, jpeg = cv2.imencode(".jpg", cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR),
                                    [cv2.IMWRITE_JPEG_QUALITY, quality])
            if not ok:
                raise RuntimeError("JPEG encoding failed")
            if len(jpeg) <= MAX_BYTES or quality <= 60:
                break
            quality -= 5  # a busy table cloth: keep the repository small
        stem = OUT / f"table-{made:02d}-{seats}seats"
        stem.with_suffix(".jpg").write_bytes(jpeg.tobytes())
        truth = {**scene.truth(), "jpeg_quality": quality}
        stem.with_suffix(".json").write_text(json.dumps(truth, indent=1) + "\n")
        print(stem.with_suffix(".jpg").relative_to(ROOT), deck.name, f"{len(jpeg):,} bytes",
              f"quality {quality}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
