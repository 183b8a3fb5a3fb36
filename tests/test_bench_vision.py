"""The photo benchmark's re-saved photos (bench/bench_vision.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import cv2
import numpy as np
from conftest import ROOT


def _bench_vision():
    sys.path.insert(0, str(ROOT / "bench"))  # its own imports: host, photo_files
    try:
        spec = importlib.util.spec_from_file_location("bench_vision",
                                                      ROOT / "bench" / "bench_vision.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return module


def test_a_photo_is_resaved_in_its_negative_at_its_own_size_or_another(tmp_path: Path):
    """``--negative`` times a deck printed light on dark: the photo re-saved inverted, at
    its own size with ``--size 0``, or scaled to the width asked for."""
    resave = _bench_vision().resave
    image = np.zeros((60, 80, 3), np.uint8)
    image[10:30, 20:50] = (40, 200, 120)
    photo = tmp_path / "photo.png"
    cv2.imwrite(str(photo), image)
    same = cv2.imread(str(resave(photo, tmp_path / "same.jpg", 0, negative=True)))
    assert same.shape == image.shape
    assert np.abs(same.astype(int) - (255 - image.astype(int))).mean() < 4  # JPEG's loss
    half = cv2.imread(str(resave(photo, tmp_path / "half.jpg", 40, negative=True)))
    assert half.shape == (30, 40, 3) and half[0, 0].min() > 240  # black turned white
    plain = cv2.imread(str(resave(photo, tmp_path / "plain.jpg", 40)))
    assert plain[0, 0].max() < 15
