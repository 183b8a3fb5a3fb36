"""Write the HEIC photos the tests read (tests/data/heic/), as an iPhone saves its photos.

    pip install --target /tmp/heif-encoder pillow-heif   # an encoder: not a dependency
    PYTHONPATH=/tmp/heif-encoder .venv/bin/python tools/make_heic_photos.py
    PYTHONPATH=/tmp/heif-encoder .venv/bin/python tools/make_heic_photos.py \
        --set datasets/generated/eval-4032 OUT [--limit 20]

The project reads HEIC through pi-heif, which decodes only; pillow-heif (the same
libheif, with an HEVC encoder) writes these once:
- ``scene-01-spread.heic``: the committed scene ``tests/data/scenes/scene-01-spread.jpg``
  encoded as HEIC (quality 80), so that a test reads the same 13 cards from both.
- ``turned.heic``: 200x100 pixels, left half red and right half blue, stored with EXIF
  orientation 6 (shown turned a quarter clockwise), as a phone held upright stores a
  photo. libheif writes the turn into the file (``irot``) and applies it when decoding.

``--set SRC OUT``: a rendered set's first ``--limit`` validation photos (``SRC/images/val``)
as HEIC under ``OUT/images/val``, their labels copied beside, to time the reader on phone
photos as an iPhone writes them (``bench/bench_vision.py --photos OUT/images/val --size 0
--expect labelled``; README, "Reading cards from a photo").
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "heic"
SCENE = ROOT / "tests" / "data" / "scenes" / "scene-01-spread.jpg"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", nargs=2, type=Path, metavar=("SRC", "OUT"))
    parser.add_argument("--limit", type=int, default=20)
    args = parser.parse_args()
    try:
        import pillow_heif
    except ImportError:
        print("needs pillow-heif (an encoder, not a project dependency): see this file's "
              "docstring", file=sys.stderr)
        return 2
    if args.set:
        source, out = args.set
        (out / "images" / "val").mkdir(parents=True, exist_ok=True)
        (out / "labels" / "val").mkdir(parents=True, exist_ok=True)
        for photo in sorted((source / "images" / "val").glob("*.jpg"))[:args.limit]:
            with Image.open(photo) as image:
                pillow_heif.from_pillow(image.convert("RGB")).save(
                    out / "images" / "val" / f"{photo.stem}.heic", quality=80)
            shutil.copy(source / "labels" / "val" / f"{photo.stem}.txt", out / "labels" / "val")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    with Image.open(SCENE) as scene:
        pillow_heif.from_pillow(scene.convert("RGB")).save(OUT / "scene-01-spread.heic",
                                                           quality=80)
    turned = Image.new("RGB", (200, 100), (255, 0, 0))
    turned.paste((0, 0, 255), (100, 0, 200, 100))
    exif = Image.Exif()
    exif[0x0112] = 6
    pillow_heif.from_pillow(turned).save(OUT / "turned.heic", quality=90, exif=exif.tobytes())
    for path in sorted(OUT.glob("*.heic")):
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
