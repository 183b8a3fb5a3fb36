"""The detector's decks and real sets packed for a training machine, and unpacked there."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from vision.training.detector_bundle import (
    DECKS_TAR,
    SETS_TAR,
    pack_decks,
    pack_sets,
    training_decks,
    unpack,
)


def _card(seed: int) -> Image.Image:
    """A card face with rounded (transparent) corners and some print on it."""
    rng = np.random.default_rng(seed)
    pixels = np.full((80, 56, 4), 255, np.uint8)
    pixels[4:20, 4:12, :3] = rng.integers(0, 120, 3)
    pixels[30:50, 20:36, :3] = rng.integers(0, 200, 3)
    for y, x in ((0, 0), (0, 55), (79, 0), (79, 55), (0, 1), (1, 0)):
        pixels[y, x, 3] = 0
    return Image.fromarray(pixels, "RGBA")


def _deck(cache, name: str, role: str = "train", cards: int = 3) -> None:
    folder = cache / "decks" / name
    folder.mkdir(parents=True)
    for i, card in enumerate(["As", "Kh", "Qd", "Jc"][:cards]):
        _card(i).save(folder / f"{card}.png")
    (folder / "meta.json").write_text(json.dumps({"name": name, "role": role}))


def test_decks_come_back_as_png_with_their_outline_and_meta(tmp_path) -> None:
    cache = tmp_path / "cache"
    _deck(cache, "kennard")
    packed = tmp_path / "packed"
    packed.mkdir()
    size = pack_decks(["kennard"], packed / DECKS_TAR, quality=90, cache_dir=cache)
    assert size == (packed / DECKS_TAR).stat().st_size
    assert unpack(packed, tmp_path / "work") == {"decks": 1, "images": 0}
    back = tmp_path / "work" / "cache" / "decks" / "kennard"
    assert json.loads((back / "meta.json").read_text()) == {"name": "kennard", "role": "train"}
    for i, card in enumerate(["As", "Kh", "Qd"]):
        original = np.asarray(_card(i), np.int16)
        image = np.asarray(Image.open(back / f"{card}.png").convert("RGBA"), np.int16)
        # The outline (alpha) exactly; the print through one lossy pass.
        assert np.array_equal(image[..., 3], original[..., 3])
        assert np.abs(image[..., :3] - original[..., :3]).mean() < 4


def test_a_deck_missing_from_the_cache_is_named(tmp_path) -> None:
    _deck(tmp_path / "cache", "kennard")
    with pytest.raises(ValueError, match=r"not in the deck cache .*: aguilar"):
        pack_decks(["kennard", "aguilar"], tmp_path / DECKS_TAR, cache_dir=tmp_path / "cache")
    assert not (tmp_path / DECKS_TAR).exists()


def test_reprints_are_kept_up_to_the_number_asked(tmp_path) -> None:
    cache = tmp_path / "cache"
    for name in ("kennard", "retype-kennard-1-14", "retype-kennard-1-31", "aguilar",
                 "retype-aguilar-1-0"):
        _deck(cache, name, cards=1)
    _deck(cache, "kde-standard", role="val", cards=1)
    assert training_decks(1, cache) == ["aguilar", "kennard", "retype-aguilar-1-0",
                                        "retype-kennard-1-14"]
    assert training_decks(0, cache) == ["aguilar", "kennard"]
    assert len(training_decks(None, cache)) == 5


def _yolo_set(root, photos: int, source, split: str = "train") -> None:
    """A YOLO set whose images are links to photos elsewhere, as realdata writes them."""
    (root / "images" / split).mkdir(parents=True)
    (root / "labels" / split).mkdir(parents=True)
    for i in range(photos):
        photo = source / f"{split}{i}.jpg"
        Image.fromarray(np.full((64, 64, 3), 40 * i % 255, np.uint8)).save(photo)
        (root / "images" / split / photo.name).symlink_to(photo)
        if i != photos - 1:  # the last photo has no labels and stays behind
            (root / "labels" / split / f"{split}{i}.txt").write_text(f"{i} 0.5 0.5 0.1 0.2\n")


def test_sets_travel_with_their_labels_and_as_many_photos_as_asked(tmp_path) -> None:
    source = tmp_path / "shared"
    source.mkdir()
    _yolo_set(tmp_path / "real-corners", 6, source)
    _yolo_set(tmp_path / "real-corners", 2, source, split="tune")
    packed = tmp_path / "packed"
    packed.mkdir()
    pack_sets([(tmp_path / "real-corners", None)], packed / SETS_TAR)
    assert unpack(packed, tmp_path / "all") == {"decks": 0, "images": 6}
    pack_sets([(tmp_path / "real-corners", 2)], packed / SETS_TAR)
    assert unpack(packed, tmp_path / "two") == {"decks": 0, "images": 3}
    root = tmp_path / "two" / "sets" / "real-corners"
    images = sorted((root / "images" / "train").iterdir())
    assert [p.name for p in images] == ["train0.webp", "train2.webp"]
    assert [p.name for p in (root / "images" / "tune").iterdir()] == ["tune0.webp"]
    assert (root / "labels" / "train" / "train2.txt").read_text() == "2 0.5 0.5 0.1 0.2\n"
    assert Image.open(images[1]).size == (64, 64)


def test_a_folder_that_is_no_yolo_set_is_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="holds no images/SPLIT folder"):
        pack_sets([(tmp_path, None)], tmp_path / SETS_TAR)
    assert not (tmp_path / SETS_TAR).exists()
