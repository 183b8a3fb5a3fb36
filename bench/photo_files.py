"""The photos a benchmark times: every photo the reader takes under a folder (JPEG, PNG,
HEIC, ...: ``vision.photo.PHOTO_SUFFIXES``), in name order, and the shape a benchmark gives
them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.photo import PHOTO_SUFFIXES


def photo_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix.lower().lstrip(".") in PHOTO_SUFFIXES)


def centre_crop(image: np.ndarray, width: int, height: int) -> np.ndarray:
    """The centre of ``image`` cropped to the shape of ``width`` x ``height``."""
    h, w = image.shape[:2]
    if w * height > h * width:
        keep = round(h * width / height)
        return image[:, (w - keep) // 2:(w - keep) // 2 + keep]
    keep = round(w * height / width)
    return image[(h - keep) // 2:(h - keep) // 2 + keep]
