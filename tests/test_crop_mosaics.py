"""Crop sets packed as JPEG mosaics for a training machine, and unpacked there."""

from __future__ import annotations

import numpy as np
import pytest

from vision.training.crop_mosaics import from_mosaic, main, to_mosaic


def _crops(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Index-like crops: a dark glyph block on a light card, each in its own place."""
    rng = np.random.default_rng(seed)
    images = np.full((count, 40, 40, 3), 235, np.uint8)
    for image in images:
        top, left = rng.integers(4, 20, 2)
        image[top:top + 16, left:left + 10] = rng.integers(0, 120, 3)
    return images, rng.integers(0, 52, count)


def test_mosaics_hold_crops_in_order() -> None:
    images, _ = _crops(230)
    mosaic = to_mosaic(images)
    assert mosaic.shape == (3 * 40, 100 * 40, 3)
    assert np.array_equal(from_mosaic(mosaic, 230), images)
    with pytest.raises(ValueError, match="cannot hold 301 crops"):
        from_mosaic(mosaic, 301)


def test_packed_crops_come_back_with_their_labels(tmp_path) -> None:
    images, labels = _crops(150)
    source = tmp_path / "rendered.npz"
    np.savez(source, images=images, labels=labels)
    packed, unpacked = tmp_path / "packed", tmp_path / "unpacked"
    assert main(["pack", "--out", str(packed), "--quality", "95", f"{source}:120"]) == 0
    assert main(["unpack", str(packed), str(unpacked)]) == 0
    back = np.load(unpacked / "rendered.npz")
    assert back["images"].shape == (120, 40, 40, 3)
    # Each crop kept is one of the originals, with its own label, through one JPEG pass.
    for image, label in zip(back["images"], back["labels"], strict=True):
        errors = np.abs(images.astype(int) - image).mean(axis=(1, 2, 3))
        assert errors.min() < 3 and labels[errors.argmin()] == label


def test_bad_packing_requests_say_what_is_wrong(tmp_path, capsys) -> None:
    images, labels = _crops(10)
    source = tmp_path / "rendered.npz"
    np.savez(source, images=images, labels=labels)
    assert main(["pack", "--out", str(tmp_path / "p"), f"{source}:many"]) == 2
    assert "must be a whole number above 0" in capsys.readouterr().err
    assert main(["pack", "--out", str(tmp_path / "p"), str(tmp_path / "none.npz")]) == 2
    assert "no such crop file" in capsys.readouterr().err
    assert main(["pack", "--out", str(tmp_path / "p"), str(source)]) == 0
    (tmp_path / "p" / "rendered.npy").unlink()
    assert main(["unpack", str(tmp_path / "p"), str(tmp_path / "u")]) == 2
    assert "has no labels beside it" in capsys.readouterr().err
