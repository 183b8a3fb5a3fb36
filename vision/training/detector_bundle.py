"""What the corner detector trains on, packed small for another machine, and unpacked there.

A lent GPU machine takes the working tree and at most 64 MiB beside it, and has neither
the deck cache (``datasets/cache``, 120 MiB of PNG cards) nor ``../shared``. So the
detector's data travels as its sources, not as rendered scenes: the training decks' card
faces as WebP (their alpha, the rounded corners, kept exactly; about 0.5 MiB a deck at
quality 80 against 2.3 MiB of PNG) with their ``meta.json``, and the real YOLO sets
(``realdata corners``, ``realdata decks``) with each photo encoded again as WebP (a
noisy 640-pixel photo takes 26 KB at quality 75 where JPEG needs 42 at 70). The
machine's 16 cores then draw as many scenes as the run needs (``python -m
vision.training.synth``, with ``CPOKER_DECK_CACHE`` pointing at the unpacked decks).

    python -m vision.training.detector_bundle pack --out .gpu/detector \\
        --reprints 1 --sets datasets/generated/real-corners datasets/generated/real-decks
    python -m vision.training.detector_bundle unpack .gpu/detector /tmp/work  # there

``unpack`` writes ``WORK/cache/decks/NAME/`` (PNG again, as ``synth.decks`` reads them)
and ``WORK/sets/NAME/{images,labels}/SPLIT/``.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tarfile
from collections.abc import Sequence
from pathlib import Path

from PIL import Image

from vision.training.crop_mosaics import parse_share
from vision.training.synth.decks import CACHE, available_decks, deck_dir

DECKS_TAR = "decks.tar"
SETS_TAR = "sets.tar"
DECK_QUALITY = 80
PHOTO_QUALITY = 75
REPRINT = "retype-"  # decks reprinted in another typeface (synth.retype): retype-BASE-1-N


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _encoded(image: Image.Image, quality: int) -> bytes:
    buffer = io.BytesIO()
    # Lossy colour, lossless alpha (Pillow's default alpha_quality is 100): a card's
    # outline is where the detector learns the card ends.
    image.save(buffer, "WEBP", quality=quality, method=4)
    return buffer.getvalue()


def training_decks(reprints: int | None, cache_dir: Path = CACHE) -> list[str]:
    """The cache's training decks, with at most ``reprints`` reprints of each deck."""
    names = available_decks("train", cache_dir)
    if reprints is None:
        return names
    kept: dict[str, int] = {}
    chosen = []
    for name in names:
        if name.startswith(REPRINT):
            base = name[len(REPRINT):].rsplit("-", 2)[0]
            kept[base] = kept.get(base, 0) + 1
            if kept[base] > reprints:
                continue
        chosen.append(name)
    return chosen


def pack_decks(names: Sequence[str], out: Path, quality: int = DECK_QUALITY,
               cache_dir: Path = CACHE) -> int:
    """Every card of each named deck as WebP, with its ``meta.json``; returns the bytes."""
    missing = [n for n in names if not (deck_dir(n, cache_dir) / "meta.json").exists()]
    if missing:
        raise ValueError(f"not in the deck cache {cache_dir}: {', '.join(missing)}; fetch "
                         "them first (python -m vision.training.synth.decks fetch)")
    with tarfile.open(out, "w") as tar:
        for name in names:
            folder = deck_dir(name, cache_dir)
            _add(tar, f"{name}/meta.json", (folder / "meta.json").read_bytes())
            for card in sorted(folder.glob("*.png")):
                _add(tar, f"{name}/{card.stem}.webp",
                     _encoded(Image.open(card), quality))
    return out.stat().st_size


def _splits(folder: Path) -> list[Path]:
    images = folder / "images"
    return sorted(p for p in images.iterdir() if p.is_dir()) if images.is_dir() else []


def pack_sets(folders: Sequence[tuple[Path, int | None]], out: Path,
              quality: int = PHOTO_QUALITY) -> int:
    """Each YOLO set's labelled images (links followed), every split of it, as WebP with
    their labels: all of them, or as many as asked a split, evenly spaced through the
    sorted names."""
    for folder, _ in folders:
        if not _splits(folder):
            raise ValueError(f"{folder} holds no images/SPLIT folder: give the folder of a "
                             "YOLO set (python -m vision.training.realdata corners|decks)")
    with tarfile.open(out, "w") as tar:
        for folder, count in folders:
            for images in _splits(folder):
                labels = folder / "labels" / images.name
                labelled = [(image, labels / f"{image.stem}.txt")
                            for image in sorted(images.iterdir())]
                labelled = [pair for pair in labelled if pair[1].exists()]
                if count is not None and count < len(labelled):
                    labelled = [labelled[i * len(labelled) // count] for i in range(count)]
                for image, label in labelled:
                    stem = f"{folder.name}/{{}}/{images.name}/{image.stem}"
                    _add(tar, stem.format("images") + ".webp",
                         _encoded(Image.open(image.resolve()).convert("RGB"), quality))
                    _add(tar, stem.format("labels") + ".txt", label.read_bytes())
    return out.stat().st_size


def unpack(source: Path, work: Path) -> dict[str, int]:
    """The decks into ``work/cache/decks`` as PNG, the sets into ``work/sets``; returns how
    many decks and images were written."""
    counts = {"decks": 0, "images": 0}
    decks = source / DECKS_TAR
    if decks.exists():
        root = work / "cache" / "decks"
        with tarfile.open(decks) as tar:
            for member in tar.getmembers():
                path = root / member.name
                path.parent.mkdir(parents=True, exist_ok=True)
                data = tar.extractfile(member).read()  # type: ignore[union-attr]
                if member.name.endswith(".webp"):
                    Image.open(io.BytesIO(data)).save(path.with_suffix(".png"))
                else:
                    path.write_bytes(data)
                    counts["decks"] += member.name.endswith("meta.json")
    sets = source / SETS_TAR
    if sets.exists():
        with tarfile.open(sets) as tar:
            tar.extractall(work / "sets", filter="data")
            counts["images"] = sum(m.name.endswith(".webp") for m in tar.getmembers())
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.detector_bundle", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    pack = sub.add_parser("pack", help="pack decks and real sets into a folder")
    pack.add_argument("--out", type=Path, required=True)
    pack.add_argument("--decks", nargs="*",
                      help="deck names (default: every deck of role train in the cache)")
    pack.add_argument("--reprints", type=int,
                      help="with the default decks, at most this many reprints of each")
    pack.add_argument("--sets", nargs="*", default=[], metavar="FOLDER[:COUNT]",
                      help="YOLO set folders whose labelled images go along, every split "
                           "(COUNT: only that many of each split)")
    pack.add_argument("--deck-quality", type=int, default=DECK_QUALITY)
    pack.add_argument("--photo-quality", type=int, default=PHOTO_QUALITY)
    out = sub.add_parser("unpack", help="unpack a packed folder")
    out.add_argument("source", type=Path)
    out.add_argument("work", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "pack":
            args.out.mkdir(parents=True, exist_ok=True)
            names = args.decks if args.decks is not None else training_decks(args.reprints)
            size = pack_decks(names, args.out / DECKS_TAR, args.deck_quality)
            print(f"{len(names)} decks: {size / 2**20:.1f} MiB")
            if args.sets:
                sets = [parse_share(text) for text in args.sets]
                size = pack_sets(sets, args.out / SETS_TAR, args.photo_quality)
                print(f"{len(args.sets)} sets: {size / 2**20:.1f} MiB")
        else:
            print(json.dumps(unpack(args.source, args.work)))
    except (ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
