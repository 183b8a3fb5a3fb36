"""The real photo set's splits keep a shot's flipped copies together."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SHARED

from vision.training.realdata import (
    SPLITS,
    LabelledCard,
    corners_in_cards,
    photos,
    shot_of,
    split_of,
)

REAL = SHARED / "datasets" / "real-photos-dev"
REAL_DECKS = SHARED / "datasets" / "real-decks-dev"


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


@pytest.mark.skipif(not (REAL / "data.yaml").exists(), reason="real photo set not present")
def test_corner_set_labels_only_corners_named_as_the_card_around_them(tmp_path) -> None:
    from conftest import ROOT

    from engine.cards import CARD_NAMES
    from vision.detector import CardDetector, ModelInfo
    from vision.training.realdata import labelled_cards, real_names, write_corner_set

    models = ROOT / "models"
    reader = CardDetector(ModelInfo(models / "cards.onnx", conf=0.02, min_class_conf=0.3,
                                    classifier=models / "corner-classifier.onnx"))
    count, boxes = write_corner_set(tmp_path, "train", reader, None, repeat=2, root=REAL,
                                    limit=4)
    assert count == 4 and boxes >= 4 * 4  # every photo shows cards, most with 2+ corners
    images = sorted((tmp_path / "images" / "train").iterdir())
    assert all(p.is_symlink() and p.resolve().parent == (REAL / "images").resolve()
               for p in images)
    names = real_names(REAL)
    for image in images:
        cards = labelled_cards(image.resolve(), 640, 640, names)  # the whole-card labels
        for line in (tmp_path / "labels" / "train" / f"{image.stem}.txt").read_text().split(
                "\n")[:-1]:
            class_id, cx, cy, _, _ = line.split()
            x, y = float(cx) * 640, float(cy) * 640
            assert any(c.card == CARD_NAMES[int(class_id)] and c.box[0] <= x <= c.box[2]
                       and c.box[1] <= y <= c.box[3] for c in cards)
    yaml = (tmp_path / "data.yaml").read_text()
    assert yaml.count(str((tmp_path / "images" / "train").resolve())) == 3  # 2 train + val
    # One box an index: no label lies mostly inside another of its photo.
    from vision.reading import NESTED_SHARE, nested_shares
    from vision.training.labels import labelled_boxes
    for image in images:
        xyxy = np.array([box for _, box in labelled_boxes(image, 640, 640, CARD_NAMES)])
        shares = nested_shares(xyxy, xyxy)
        np.fill_diagonal(shares, 0)
        assert (shares < NESTED_SHARE).all(), image.name


def test_an_index_boxed_twice_or_with_its_pip_is_labelled_once() -> None:
    from vision.training.realdata import one_box_an_index

    index = [100, 100, 120, 140]       # the corner index, scored highest
    with_pip = [98, 100, 150, 150]     # the index and the large pip beside it
    again = [101, 102, 121, 141]       # the same index, boxed again
    other = [300, 100, 320, 140]       # another card's index
    pip_alone = [130, 110, 150, 150]   # the pip, half of it inside the larger box only
    xyxy = np.array([with_pip, index, again, other, pip_alone], np.float32)
    scores = np.array([0.2, 0.8, 0.3, 0.7, 0.1], np.float32)
    assert one_box_an_index(xyxy, scores) == [1, 3, 4]
    # Order of the scores, not of the boxes, decides which of two nested boxes stays.
    assert one_box_an_index(xyxy[:2], np.array([0.9, 0.1], np.float32)) == [0]
    assert one_box_an_index(np.zeros((0, 4), np.float32), np.zeros(0, np.float32)) == []


@pytest.mark.skipif(not (REAL_DECKS / "manifest.csv").exists(),
                    reason="real-decks-dev not present")
def test_deck_crops_can_hold_a_deck_out() -> None:
    # Leave one deck out (issue 14): the crops of one kind only, from its photos only.
    from vision.training.labels import manifest_column
    from vision.training.realdata import labelled_corner_crops

    kind_of = manifest_column(REAL_DECKS, "kind")
    crops = list(labelled_corner_crops("holdout", REAL_DECKS, per_box=1,
                                       kinds=["webcam-handheld"]))
    assert crops and {kind_of[photo] for _, _, photo in crops} == {"webcam-handheld"}
    with pytest.raises(ValueError, match="phone-black, phone-white, webcam-handheld"):
        list(labelled_corner_crops("holdout", REAL_DECKS, kinds=["red-deck"]))



@pytest.mark.skipif(not (REAL_DECKS / "manifest.csv").exists(),
                    reason="real-decks-dev not present")
def test_a_deck_printed_light_on_dark_is_cut_in_its_negative_when_asked() -> None:
    # The reader reads the black deck's gold indices inverted (vision.netinput.light_on_dark),
    # so its training crops are cut so: the same crops, each 255 minus the one as cut.
    from vision.netinput import light_on_dark
    from vision.training.realdata import labelled_corner_crops

    cut = list(labelled_corner_crops("holdout", REAL_DECKS, per_box=1, kinds=["phone-black"]))
    read = list(labelled_corner_crops("holdout", REAL_DECKS, per_box=1, kinds=["phone-black"],
                                      inverted_kinds=["phone-black"]))
    assert [(label, photo) for _, label, photo in read] == \
        [(label, photo) for _, label, photo in cut]
    assert all(np.array_equal(a, 255 - b) for (a, _, _), (b, _, _) in zip(read, cut, strict=True))
    as_cut = np.stack([crop for crop, _, _ in cut])
    assert light_on_dark(as_cut).mean() > 0.9
    assert light_on_dark(np.stack([crop for crop, _, _ in read])).mean() < 0.1
    # Other decks are cut as they are, and a kind the set lacks is named.
    white = list(labelled_corner_crops("holdout", REAL_DECKS, per_box=1, kinds=["phone-white"],
                                       inverted_kinds=["phone-black"]))
    plain = list(labelled_corner_crops("holdout", REAL_DECKS, per_box=1, kinds=["phone-white"]))
    assert all(np.array_equal(a, b) for (a, _, _), (b, _, _) in zip(white, plain, strict=True))
    with pytest.raises(ValueError, match="no photos of kind red-deck to invert"):
        list(labelled_corner_crops("holdout", REAL_DECKS, inverted_kinds=["red-deck"]))


def test_mined_boxes_of_no_index_keep_out_what_may_be_an_index() -> None:
    from engine.cards import CARD_NAMES
    from vision.detections import Detections
    from vision.training.negatives import no_index_boxes

    def named(card: str, second: str) -> np.ndarray:
        row = np.linspace(0.003, 0.001, 52, dtype=np.float32)  # the third name: 2s
        row[CARD_NAMES.index(card)], row[CARD_NAMES.index(second)] = 0.6, 0.3
        return row

    boxes = np.array([[100, 100, 120, 130],   # on a labelled corner
                      [300, 300, 320, 330],   # a pip named as a card not in the photo
                      [500, 300, 520, 330],   # its second name is a card of the photo
                      [10, 300, 30, 330],     # at the photo's edge
                      [300, 500, 320, 530]],  # a rank of the photo, another suit
                     np.float32)
    probabilities = np.stack([named("Kc", "Jh"), named("Ks", "Kc"), named("Qh", "9d"),
                              named("Ks", "Kc"), named("9s", "Kc")])
    found = Detections(boxes, np.full(5, 0.5, np.float32), probabilities.argmax(axis=1),
                       CARD_NAMES, probabilities)
    corners = np.array([[98, 98, 122, 132]], float)
    present = {"Jd", "9d", "9h"}
    shape = (800, 800, 3)
    assert no_index_boxes(found, present, corners, shape).tolist() == \
        boxes[[1, 3, 4]].tolist()
    assert no_index_boxes(found, present, corners, shape, edge_share=0.12).tolist() == \
        boxes[[1, 4]].tolist()
    assert no_index_boxes(found, present, corners, shape, by_rank=True).tolist() == \
        boxes[[1, 3]].tolist()
    # Whole-card labels (real-photos-dev): no corner boxes to keep clear of.
    assert len(no_index_boxes(found, present, None, shape)) == 4


def test_a_detector_box_is_named_by_the_labelled_corner_it_overlaps_most() -> None:
    from vision.training.boxed_crops import MIN_IOU, named_boxes

    corners = np.array([[0, 0, 10, 20], [8, 0, 18, 20], [100, 100, 110, 120]], np.float64)
    boxes = np.array([
        [0, 0, 10, 10],     # the rank of the first corner alone: half its box
        [9, 0, 19, 20],     # mostly the second corner, a strip of the first
        [50, 50, 60, 60],   # a pip: on no corner
        [100, 100, 102, 104],  # a sliver of the third: under MIN_IOU
    ], np.float32)
    named = list(named_boxes(boxes, corners, [4, 17, 30]))
    assert [class_id for _, class_id in named] == [4, 17]
    assert np.array_equal(named[0][0], boxes[0])
    assert MIN_IOU > 0.04  # the sliver's overlap
    assert list(named_boxes(boxes, np.zeros((0, 4)), [])) == []


def test_mining_with_a_detector_that_is_not_there_says_so(tmp_path, capsys) -> None:
    from vision.training.negatives import main

    missing = tmp_path / "cards-int8.onnx"
    assert main(["--out", str(tmp_path / "negatives.npz"), "--scenes", "1",
                 "--weights", str(missing)]) == 2
    assert f"no detector export at {missing}" in capsys.readouterr().err
    assert not (tmp_path / "negatives.npz").exists()
