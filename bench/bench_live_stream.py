"""Benchmark: a live camera's stream read by ``vision.live.LiveStream`` on this CPU.

    python bench/bench_live_stream.py [--photos DIR] [--size 640 --height 480]
        [--still 12] [--hand 8] [--noise 3] [--seed 0]

Each photo (the committed rendered scenes by default, cropped and shrunk to the frame's
shape as ``bench_vision.py`` re-saves them) is a scene the camera holds: the first frame
shows it (a new hand: read whole), then ``--still`` frames of it with fresh sensor noise
(``--noise`` grey levels), then a hand (a skin-coloured ellipse) reaches in from the
frame's bottom edge over ``--hand`` frames, covering some corners, and draws back out over
as many, then ``--still`` frames again. The frames are decoded already (a camera hands
over pixels), so each frame's time is the reading alone.

Prints the stream's frames by how they were read (whole, in parts, kept, or refined:
read in photo mode once still; ``--no-refine`` leaves that out), the median, mean and 90th
percentile milliseconds per frame, and each kind of frame's median; and how many frames
the stream read as a fresh reading of that very frame reads them (the same cards; live
mode's, or photo mode's where the stream holds a refined reading), which is what reading
only the changed parts must not lose. Live mode's budget (issue 13) is 60 ms a 640x480
frame; ``bench_vision.py --mode live`` times a frame read whole.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from host import host_line  # noqa: E402
from photo_files import centre_crop, photo_files  # noqa: E402

from vision.detector import CardDetector  # noqa: E402
from vision.live import LiveStream  # noqa: E402
from vision.pipeline import read_image  # noqa: E402

SKIN = (214, 164, 134)  # RGB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--photos", type=Path, default=ROOT / "tests" / "data" / "scenes")
    parser.add_argument("--size", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--still", type=int, default=12)
    parser.add_argument("--hand", type=int, default=8)
    parser.add_argument("--noise", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--no-refine", action="store_true",
                        help="never read a still frame in photo mode")
    args = parser.parse_args()
    photos = photo_files(args.photos)[: args.limit]
    if not photos:
        print(f"no photos in {args.photos}", file=sys.stderr)
        return 2
    random = np.random.default_rng(args.seed)
    frames: list[np.ndarray] = []
    for photo in photos:
        frames += scene_frames(framed(photo, args.size, args.height), args.still, args.hand,
                               args.noise, random)
    detector = CardDetector()
    detector.warm_up()
    stream = LiveStream(detector, refine=not args.no_refine)
    stream.read(frames[-1])  # warm-up: the first scene then starts a new hand
    kinds: dict[str, list[float]] = {kind: [] for kind in KINDS}
    times, read_cards, refined = [], [], []
    for frame in frames:
        before = [getattr(stream.counts, kind) for kind in KINDS]
        start = time.perf_counter()
        reading = stream.read(frame)
        times.append(1000 * (time.perf_counter() - start))
        read_cards.append(sorted(reading.card_names))
        refined.append(stream.refined)
        kind = next(kind for kind, count in zip(KINDS, before, strict=True)
                    if getattr(stream.counts, kind) > count)
        kinds[kind].append(times[-1])
    same = sum(cards == sorted(read_image(frame, detector, "frame",
                                          mode="photo" if photo else "live").card_names)
               for frame, cards, photo in zip(frames, read_cards, refined, strict=True))
    ordered = sorted(times)
    print(host_line())
    print("| frames | whole | in parts | kept | refined | median ms | mean ms | p90 ms "
          "| whole ms | parts ms | kept ms | refined ms | as a fresh read |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    counts = " | ".join(str(len(kinds[kind])) for kind in KINDS)
    kind_medians = " | ".join(f"{statistics.median(kinds[kind]):.1f}" if kinds[kind] else "-"
                              for kind in KINDS)
    print(f"| {len(times)} | {counts} | {statistics.median(times):.1f} "
          f"| {statistics.fmean(times):.1f} | {ordered[int(0.9 * (len(ordered) - 1))]:.1f} "
          f"| {kind_medians} | {same} of {len(frames)} |")
    return 0


KINDS = ("whole", "parts", "kept", "refined")  # ``vision.live.StreamCounts``' fields


def framed(photo: Path, width: int, height: int) -> np.ndarray:
    """The photo as an RGB camera frame: its centre cropped to the frame's shape, shrunk."""
    image = centre_crop(cv2.cvtColor(cv2.imread(str(photo)), cv2.COLOR_BGR2RGB), width, height)
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)


def scene_frames(scene: np.ndarray, still: int, hand: int, noise: float,
                 random: np.random.Generator) -> list[np.ndarray]:
    """The scene held still, a hand reaching in and back out, the scene still again."""
    height, width = scene.shape[:2]
    centre_x = int(random.uniform(0.3, 0.7) * width)
    reach = random.uniform(0.35, 0.6) * height  # how far up the frame the hand comes
    steps = [(i + 1) / hand for i in range(hand)]
    tips = [height - reach * s for s in steps] + [height - reach * s for s in steps[::-1]]
    frames = [scene] + [noisy(scene, noise, random) for _ in range(still)]
    for tip in tips:
        frame = scene.copy()
        axes = (int(0.12 * width), int(0.35 * height))
        cv2.ellipse(frame, (centre_x, int(tip) + axes[1]), axes, 0, 0, 360, SKIN, -1)
        frames.append(noisy(frame, noise, random))
    return frames + [noisy(scene, noise, random) for _ in range(still)]


def noisy(frame: np.ndarray, noise: float, random: np.random.Generator) -> np.ndarray:
    if noise <= 0:
        return frame.copy()
    grain = random.normal(0.0, noise, frame.shape)
    return np.clip(frame + grain, 0, 255).astype(np.uint8)


if __name__ == "__main__":
    sys.exit(main())
