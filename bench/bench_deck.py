"""Benchmark: learning a deck from its four photos, and reading a 13-card photo with it, on
this CPU.

    python bench/bench_deck.py [--deck tests/data/decks/kde-standard] [--repeat 3] [--json]

Learns the deck from the folder's spades, hearts, diamonds and clubs photos (as `cpoker deck
learn` does, into a scratch `CPOKER_HOME`), timed once whole; then reads the folder's
13-card photos (``hand-*.jpg``, decoded beforehand) told 13, each ``--repeat`` times, with
the learned deck as shipped (photo mode's classifier adapted to the deck, session 87) and
with the same deck's adaptation left out (photo mode's int8 classifier), alternating, and
prints each reading's median. Issue 14's budget: learning in at most 120 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from host import host_line  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deck", type=Path, default=ROOT / "tests" / "data" / "decks" /
                        "kde-standard")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    suits = [args.deck / f"{suit}.jpg" for suit in ("spades", "hearts", "diamonds", "clubs")]
    hands = sorted(args.deck.glob("hand-*.jpg"))
    if not all(path.is_file() for path in suits) or not hands:
        print(f"{args.deck} needs spades/hearts/diamonds/clubs.jpg and hand-*.jpg",
              file=sys.stderr)
        return 2
    os.environ["CPOKER_HOME"] = tempfile.mkdtemp(prefix="bench-deck-")
    from vision.decks import learn_deck
    from vision.detector import CardDetector
    from vision.photo import load_photo
    from vision.pipeline import read_image

    started = time.perf_counter()
    deck = learn_deck("bench", [str(path) for path in suits])
    learn_seconds = time.perf_counter() - started
    photos = [load_photo(path) for path in hands]
    adapted = CardDetector(deck=deck)
    statistics_kept, deck.statistics = deck.statistics, {}
    plain = CardDetector(deck=deck)  # the same deck, photo mode's own classifier
    deck.statistics = statistics_kept
    readers = {"adapted": adapted, "not adapted": plain}
    for reader in readers.values():
        read_image(photos[0], reader, "warm-up", expect=13)
    times: dict[str, list[float]] = {name: [] for name in readers}
    for _ in range(args.repeat):
        for name, reader in readers.items():
            for k, image in enumerate(photos):
                begun = time.perf_counter()
                read_image(image, reader, f"hand-{k}", expect=13)
                times[name].append(time.perf_counter() - begun)
    medians = {name: round(1000 * statistics.median(values), 1)
               for name, values in times.items()}
    if args.json:
        print(json.dumps({"host": host_line(), "learn_s": round(learn_seconds, 1),
                          "read_ms_median": medians, "photos": len(photos),
                          "repeat": args.repeat}))
    else:
        print(host_line())
        print(f"learned {args.deck.name} in {learn_seconds:.1f} s")
        for name, value in medians.items():
            print(f"a 13-card photo read with the deck, {name}: {value:.1f} ms at the median "
                  f"({len(times[name])} reads)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
