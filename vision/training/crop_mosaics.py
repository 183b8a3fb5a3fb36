"""Crop sets packed small, to train on another machine, and unpacked there.

A lent GPU machine takes the working tree and at most 64 MiB beside it, and the corner
crops the classifier trains on (``.npz``, 40x40 colour, 4,800 bytes each) come to about a
gigabyte. Packed as JPEG mosaics, 100 crops a row, with full-resolution colour (4:4:4: a
red index must not bleed into its black neighbour) at quality 88, a crop takes 400-800
bytes, and a sample of each set fits: session 24 carried 70,000 crops in 45 MiB. The crops
were cut from JPEG photos already; the classifier's own variations (``train_classifier``)
are far larger than what one more JPEG pass changes.

    python -m vision.training.crop_mosaics pack --out .gpu/crops --seed 24 \\
        datasets/generated/crops-train3.npz:15000 datasets/generated/crops-val3.npz:3500 ...
    python -m vision.training.crop_mosaics unpack .gpu/crops /tmp/crops  # on the machine
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

PER_ROW = 100  # crops side by side in a mosaic row
QUALITY = 88
BLANK = 255  # fills the last row


def to_mosaic(images: np.ndarray) -> np.ndarray:
    """(N, S, S, 3) crops -> one image, ``PER_ROW`` crops a row, the last row filled."""
    count, side = len(images), images.shape[1]
    rows = max(1, -(-count // PER_ROW))
    blank = np.full((rows * PER_ROW - count, side, side, 3), BLANK, np.uint8)
    return np.concatenate([images, blank]).reshape(rows, PER_ROW, side, side, 3).transpose(
        0, 2, 1, 3, 4).reshape(rows * side, PER_ROW * side, 3)


def from_mosaic(mosaic: np.ndarray, count: int) -> np.ndarray:
    """The inverse of ``to_mosaic``: the first ``count`` crops."""
    side = mosaic.shape[1] // PER_ROW
    rows = mosaic.shape[0] // side
    if rows * PER_ROW < count or mosaic.shape[1] != side * PER_ROW:
        raise ValueError(f"a {mosaic.shape[1]}x{mosaic.shape[0]} mosaic cannot hold "
                         f"{count} crops of {side} pixels")
    crops = mosaic.reshape(rows, side, PER_ROW, side, 3).transpose(0, 2, 1, 3, 4).reshape(
        -1, side, side, 3)
    return np.ascontiguousarray(crops[:count])


def parse_share(text: str) -> tuple[Path, int | None]:
    """``FILE`` or ``FILE:COUNT`` -> (the crop file, how many of its crops to keep)."""
    name, colon, count = text.rpartition(":")
    if not colon:
        return Path(text), None
    if not count.isdigit() or int(count) == 0:
        raise ValueError(f"{text}: the count after the colon must be a whole number above "
                         "0 (FILE:COUNT), or leave it out to keep every crop")
    return Path(name), int(count)


def pack(files: Sequence[tuple[Path, int | None]], out: Path, quality: int = QUALITY,
         seed: int = 0) -> dict[str, int]:
    """Each (crop file, count) -> ``out/NAME.jpg`` (its mosaic) and ``out/NAME.npy``
    (labels), keeping ``count`` crops drawn at random from a larger file (all with no
    count). Returns the bytes written per file."""
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for path, count in files:
        data = np.load(path)
        images, labels = data["images"], data["labels"]
        if count is not None and count < len(labels):
            keep = np.sort(rng.choice(len(labels), count, replace=False))
            images, labels = images[keep], labels[keep]
        ok, jpeg = cv2.imencode(".jpg", to_mosaic(images), [
            cv2.IMWRITE_JPEG_QUALITY, quality,
            cv2.IMWRITE_JPEG_SAMPLING_FACTOR, cv2.IMWRITE_JPEG_SAMPLING_FACTOR_444])
        if not ok:
            raise ValueError(f"{path}: its crops could not be written as a JPEG")
        (out / f"{path.stem}.jpg").write_bytes(jpeg.tobytes())
        np.save(out / f"{path.stem}.npy", labels.astype(np.int16))
        written[path.stem] = len(jpeg)
    return written


def unpack(source: Path, out: Path) -> list[str]:
    """Every ``NAME.jpg`` + ``NAME.npy`` of ``source`` -> ``out/NAME.npz`` as the trainer
    reads it. Returns the names."""
    out.mkdir(parents=True, exist_ok=True)
    names = []
    for jpeg in sorted(source.glob("*.jpg")):
        labels_file = jpeg.with_suffix(".npy")
        if not labels_file.exists():
            raise ValueError(f"{jpeg} has no labels beside it ({labels_file.name})")
        labels = np.load(labels_file).astype(np.int64)
        mosaic = cv2.imread(str(jpeg), cv2.IMREAD_COLOR)
        if mosaic is None:
            raise ValueError(f"{jpeg} is not a readable image")
        np.savez(out / f"{jpeg.stem}.npz", images=from_mosaic(mosaic, len(labels)),
                 labels=labels)
        names.append(jpeg.stem)
    return names


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    packing = sub.add_parser("pack", help="crop files -> JPEG mosaics and labels")
    packing.add_argument("files", nargs="+", metavar="FILE[:COUNT]",
                         help="crop files; COUNT crops drawn at random are kept (all "
                         "without it)")
    packing.add_argument("--out", type=Path, required=True)
    packing.add_argument("--quality", type=int, default=QUALITY)
    packing.add_argument("--seed", type=int, default=0)
    unpacking = sub.add_parser("unpack", help="JPEG mosaics and labels -> crop files")
    unpacking.add_argument("source", type=Path)
    unpacking.add_argument("out", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "pack":
            files = [parse_share(text) for text in args.files]
            missing = [str(path) for path, _ in files if not path.exists()]
            if missing:
                raise ValueError(f"no such crop file: {', '.join(missing)}")
            for name, size in pack(files, args.out, args.quality, args.seed).items():
                print(f"{name}: {size / 2**20:.2f} MiB")
        else:
            for name in unpack(args.source, args.out):
                print(f"{args.out / name}.npz")
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
