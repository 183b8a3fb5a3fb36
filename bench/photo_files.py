"""The photos a benchmark times: every JPEG and PNG under a folder, in name order."""

from __future__ import annotations

from pathlib import Path

PHOTO_SUFFIXES = {".jpg", ".jpeg", ".png"}


def photo_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in PHOTO_SUFFIXES)
