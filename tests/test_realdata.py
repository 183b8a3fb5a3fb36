"""The real photo set's splits keep a shot's flipped copies together."""

from __future__ import annotations

import pytest
from conftest import SHARED

from vision.realdata import SPLITS, LabelledCard, corners_in_cards, photos, shot_of, split_of

REAL = SHARED / "datasets" / "real-photos-dev"


def test_shot_is_the_name_before_the_roboflow_suffix() -> None:
    assert shot_of("IMG_1_jpg.rf.abc123.jpg") == "IMG_1_jpg"
    assert shot_of("plain.jpg") == "plain.jpg"


def test_copies_of_a_shot_share_a_split() -> None:
    names = [f"IMG_{i}_jpg.rf.{suffix}.jpg" for i in range(200) for suffix in ("a", "b")]
    for first, second in zip(names[::2], names[1::2], strict=True):
        assert split_of(first) == split_of(second)
    counts = {split: sum(split_of(n) == split for n in names[::2]) for split in SPLITS}
    assert 40 <= counts["holdout"] <= 80 and counts["tune"] >= 5 and counts["train"] >= 100


def test_a_corner_in_two_overlapping_cards_has_no_owner() -> None:
    import numpy as np

    cards = [LabelledCard("As", (0, 0, 100, 150)), LabelledCard("Kd", (80, 0, 180, 150))]
    owners = corners_in_cards(np.array([[10.0, 10.0], [90.0, 10.0], [170.0, 140.0],
                                        [300.0, 10.0]]), cards)
    assert owners == [0, None, 1, None]


def test_unknown_split_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown split 'val'"):
        photos("val")


@pytest.mark.skipif(not (REAL / "data.yaml").exists(), reason="real photo set not present")
def test_the_real_set_splits_by_shot() -> None:
    chosen = {split: photos(split, REAL) for split in SPLITS}
    assert sum(len(v) for v in chosen.values()) == len(photos(None, REAL))
    shots = {split: {shot_of(p.name) for p in v} for split, v in chosen.items()}
    assert not shots["train"] & shots["holdout"] and not shots["tune"] & shots["holdout"]
