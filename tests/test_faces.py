"""A card's face read between its two corners: which corners pair, how the face's reading
joins theirs, the square it is cut in, and photo mode reading a short photo's faces."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest
from conftest import models_folder
from test_photo_mode import CountingLocator, corners, distribution

from engine.cards import CARD_NAMES
from vision.detections import Detections
from vision.detector import CardDetector, ModelError, default_model
from vision.netinput import CROP, face_square
from vision.reading import face_pairs, merge_corners, named_by_faces, within_one_card

# A webcam's 4s: its upper index read 6s, its lower 4s, neither surely; the face's pips
# say four, of a black suit.
FOUR_UP = distribution(("6s", 0.54), ("8s", 0.22), ("4s", 0.06))
FOUR_DOWN = distribution(("4s", 0.41), ("8s", 0.1), ("6s", 0.05))
FOUR_PIPS = distribution(("4s", 0.45), ("4c", 0.4), ("8s", 0.05))


def test_corners_a_cards_diagonal_apart_and_boxed_alike_pair() -> None:
    found = corners([("6s", 150, 270, 16, 50),   # a card's upper index
                     ("4s", 220, 435, 18, 55),   # its lower, 3.3 index sizes away
                     ("Js", 160, 300, 16, 50),   # too near the first: the same corner
                     ("As", 700, 270, 16, 50),   # too far from all
                     ("Kd", 290, 110, 40, 104),  # boxed twice as large
                     ("Qh", 290, 440, 55, 18)])  # lying, where the others stand
    pairs = face_pairs(found)
    assert (0, 1) in pairs and (1, 2) in pairs
    assert all(3 not in pair and 4 not in pair and 5 not in pair for pair in pairs)
    # A corner already part of a card is left out.
    assert face_pairs(found, np.array([True, False, False, False, False, False])) == [(1, 2)]
    assert face_pairs(found[np.array([0])]) == []


def test_the_face_reads_the_rank_the_index_reads_the_suit() -> None:
    found = corners([("6s", 150, 270, 16, 50), ("4s", 220, 435, 18, 55)],
                    np.stack([FOUR_UP, FOUR_DOWN]))
    cards = named_by_faces(found, [(0, 1)], FOUR_PIPS[None], weight=1.0, sure=0.6,
                           rank_share=0.5)
    assert cards.labels == ["4s", "4s"]
    assert cards.xyxy.tolist() == found.xyxy.tolist()
    assert float(cards.confidence.min()) >= 0.6
    # Both corners now name the card: one card, seen in two corners.
    merged = merge_corners(cards, min_lone_confidence=0.8, expect=1)
    assert [(card.card, card.corners) for card in merged.cards] == [("4s", 2)]


@pytest.mark.parametrize(("face", "sure", "rank_share", "why"), [
    (distribution(("9h", 0.9)), 0.6, 0.5, "the face reads another rank"),
    (FOUR_PIPS, 0.99, 0.5, "the joint reading is not sure enough"),
    (distribution(("4s", 0.3), ("7s", 0.3), ("8s", 0.3)), 0.6, 0.5,
     "the face's rank is too unsure"),
])
def test_a_pair_the_face_does_not_name_with_its_corners_is_no_card(
        face: np.ndarray, sure: float, rank_share: float, why: str) -> None:
    found = corners([("6s", 150, 270, 16, 50), ("4s", 220, 435, 18, 55)],
                    np.stack([FOUR_UP, FOUR_DOWN]))
    assert len(named_by_faces(found, [(0, 1)], face[None], 1.0, sure, rank_share)) == 0, why


def test_a_name_neither_corner_ranks_high_is_not_taken() -> None:
    # Two corners of background read 5h and 7s: even a face sure of 2s joins them into a
    # name neither corner holds among its two likeliest (the index reads the suit).
    found = corners([("5h", 150, 270, 16, 50), ("7s", 220, 435, 18, 55)],
                    np.stack([distribution(("5h", 0.69), ("2h", 0.1), ("2s", 0.05)),
                              distribution(("7s", 0.9), ("7c", 0.05), ("2s", 0.01))]))
    assert len(named_by_faces(found, [(0, 1)], distribution(("2s", 0.9))[None],
                              1.0, 0.6, 0.5)) == 0


def test_with_agree_each_corner_of_a_pair_shares_its_rank_or_colour() -> None:
    # tune-4032: a club's pip, read Ks and Kc, and a heart beside a queen, read Qh, paired
    # across two cards; the face between them read Qh. The pip shares neither Q nor red.
    pip_and_heart = corners([("Ks", 150, 270, 16, 50), ("Qh", 220, 435, 18, 55)],
                            np.stack([distribution(("Ks", 0.36), ("Kc", 0.28), ("Qh", 0.1)),
                                      distribution(("Qh", 0.74), ("Jh", 0.18))]))
    queen = distribution(("Qh", 0.9), ("Qd", 0.05))[None]
    assert named_by_faces(pip_and_heart, [(0, 1)], queen, 1.0, 0.6, 0.5).labels == \
        ["Qh", "Qh"]
    assert len(named_by_faces(pip_and_heart, [(0, 1)], queen, 1.0, 0.6, 0.5,
                              agree=True)) == 0
    # A webcam's 4s read 6s and 4s: the one reading 6s shares the suit, so the pair holds.
    four = corners([("6s", 150, 270, 16, 50), ("4s", 220, 435, 18, 55)],
                   np.stack([FOUR_UP, FOUR_DOWN]))
    assert named_by_faces(four, [(0, 1)], FOUR_PIPS[None], 1.0, 0.6, 0.5,
                          agree=True).labels == ["4s", "4s"]
    # A webcam's 2d whose blurred lower index reads 5h (session 70): red, as a diamond.
    two = corners([("2d", 150, 270, 16, 50), ("5h", 220, 435, 18, 55)],
                  np.stack([distribution(("2d", 0.74), ("5d", 0.1)),
                            distribution(("5h", 0.69), ("2d", 0.15))]))
    assert named_by_faces(two, [(0, 1)], distribution(("2d", 0.6), ("2h", 0.3))[None],
                          1.0, 0.6, 0.5, agree=True).labels == ["2d", "2d"]


def test_each_corner_joins_one_pair_the_surest_first() -> None:
    found = corners([("6s", 150, 270, 16, 50), ("4s", 220, 435, 18, 55),
                     ("4s", 80, 100, 16, 50)],
                    np.stack([FOUR_UP, FOUR_DOWN, FOUR_UP]))
    # The second pair's face is less sure: the first pair takes the corner they share.
    faces = np.stack([FOUR_PIPS, distribution(("4s", 0.35), ("4c", 0.3), ("6s", 0.1))])
    cards = named_by_faces(found, [(0, 1), (1, 2)], faces, 1.0, 0.6, 0.5)
    assert len(cards) == 2 and cards.xyxy.tolist() == found.xyxy[:2].tolist()


def test_a_pair_never_takes_a_card_the_reading_already_counts() -> None:
    found = corners([("6s", 150, 270, 16, 50), ("4s", 220, 435, 18, 55)],
                    np.stack([FOUR_UP, FOUR_DOWN]))
    four = CARD_NAMES.index("4s")
    assert named_by_faces(found, [(0, 1)], FOUR_PIPS[None], 1.0, 0.6, 0.5).labels == \
        ["4s", "4s"]
    # 4s is read already: the pair's next name, 8s, holds under a tenth of the joint
    # reading, so the pair is no card (never 4s twice).
    assert len(named_by_faces(found, [(0, 1)], FOUR_PIPS[None], 1.0, 0.6, 0.5,
                              held={four})) == 0


def test_two_pairs_naming_one_card_give_it_once_to_the_surer() -> None:
    found = corners([("6s", 150, 270, 16, 50), ("4s", 220, 435, 18, 55),
                     ("6s", 550, 270, 16, 50), ("4s", 620, 435, 18, 55)],
                    np.stack([FOUR_UP, FOUR_DOWN, FOUR_UP, FOUR_DOWN]))
    faces = np.stack([distribution(("4s", 0.3), ("4c", 0.3), ("8s", 0.05)), FOUR_PIPS])
    cards = named_by_faces(found, [(0, 1), (2, 3)], faces, 1.0, 0.6, 0.5)
    assert cards.labels == ["4s", "4s"]
    assert cards.xyxy.tolist() == found.xyxy[2:].tolist()


def test_pairs_lie_within_the_photos_own_card_diagonal() -> None:
    # Two corners 3.3 index sizes apart pair under the bound of 9; a photo whose cards
    # measure a diagonal of 2 (linked within 1.5 times it: 3) links them as two cards,
    # so they do not pair there; one whose cards measure 3 (4.5) pairs them.
    found = corners([("6s", 150, 270, 16, 50), ("4s", 220, 435, 18, 55)])
    assert face_pairs(found) == [(0, 1)]
    assert face_pairs(found, diagonal=2.0) == []
    assert face_pairs(found, diagonal=3.0) == [(0, 1)]
    assert within_one_card(found[:1], found[1:], None).tolist() == [True]
    assert within_one_card(found[:1], found[1:], 2.0).tolist() == [False]
    assert within_one_card(found[:1], found[1:], 3.0).tolist() == [True]


def test_the_face_square_holds_the_card_between_its_corners() -> None:
    image = np.zeros((400, 400, 3), np.uint8)
    image[100:300, 150:290] = 255  # a white card; its indices near two opposite corners
    crop = face_square(image, (155, 105, 170, 140), (270, 260, 285, 295))
    assert crop.shape == (CROP, CROP, 3)
    centre = crop[CROP // 4:3 * CROP // 4, CROP // 4:3 * CROP // 4]
    assert centre.min() == 255  # the face fills the middle
    assert crop[0, 0].max() == 0  # a rim of what lies around it
    # Corners at the photo's edge: the square is filled from the nearest pixels.
    assert face_square(image, (-20, -20, 5, 5), (380, 380, 420, 420)).shape == (CROP, CROP, 3)


class ByBox:
    """A photo classifier that names each box from a fixed list, in the locator's order."""

    def __init__(self, rows: list[np.ndarray]) -> None:
        self.rows = np.stack(rows)

    def views_probabilities(self, views: list[np.ndarray], weights: tuple[float, ...] = (1.0,),
                            orientations: int = 2, early_sure: float = 0.0,
                            early_views: bool = False, early_one: float = 0.0) -> np.ndarray:
        assert len(views[0]) == len(self.rows)
        return self.rows.copy()


class FourPips:
    """A face reader that reads four black pips on every face, and counts its reads. It
    reads faces cut larger than corner crops, as a face reader may
    (``face_crops --side``): photo mode cuts them at its side."""

    def __init__(self) -> None:
        self.crops = 0
        self.side = 64

    def probabilities(self, crops: np.ndarray, mirrored: bool = True,
                      orientations: int | None = None) -> np.ndarray:
        assert crops.shape[1:] == (self.side, self.side, 3) and orientations == 4
        self.crops += len(crops)
        return np.repeat(FOUR_PIPS[None], len(crops), axis=0)


def _face_reader(min_class_conf: float = 0.3) -> tuple[CardDetector, FourPips]:
    info = dataclasses.replace(
        default_model(), photo_read_near=0.0, photo_index_px=24.0, photo_tight_margin=0.0,
        photo_uses_table_detector=False, photo_short_scales=(), photo_short_negative=False,
        photo_first_look_stands=0.0, photo_crowded_mask=0.0, photo_face_reader=None,
        min_class_conf=min_class_conf, min_lone_conf=0.8)
    boxes = np.array([[142, 245, 158, 295], [211, 408, 229, 463]], float)
    reader = CardDetector(info, locator=CountingLocator(boxes))
    reader.photo_classifier = ByBox([FOUR_UP, FOUR_DOWN])  # type: ignore[assignment]
    reader.second_classifier = reader.crowded_classifier = reader.text_reader = None
    face = FourPips()
    reader.face_reader = face  # type: ignore[assignment]
    return reader, face


def _one_card(found: Detections) -> bool:
    merged = merge_corners(found, min_lone_confidence=0.8, expect=1)
    return len(merged.cards) == 1 and not merged.warnings


def test_photo_mode_reads_a_short_photos_faces_and_finds_the_card() -> None:
    reader, face = _face_reader()
    image = np.full((640, 640, 3), 90, np.uint8)
    found = reader.detect(image, "photo", _one_card)
    assert face.crops == 1
    merged = merge_corners(found, **reader.reading_settings, expect=1)
    assert [(card.card, card.corners) for card in merged.cards] == [("4s", 2)]


def test_the_faces_pair_corners_the_naming_gates_dropped() -> None:
    # The lower index, named 4s at 0.41, falls under a bar of 0.5 and leaves the reading;
    # the face still pairs it with the upper one.
    reader, face = _face_reader(min_class_conf=0.5)
    found = reader.detect(np.full((640, 640, 3), 90, np.uint8), "photo", _one_card)
    assert face.crops == 1 and found.labels == ["4s", "4s"]


def test_a_photo_whose_cards_measure_a_short_diagonal_pairs_no_corners_further_apart(
        ) -> None:
    # Three cards read surely in both corners, 3.3 index sizes apart (boxes 16x50), and two
    # unsure corners 7 index sizes apart: within the bound of 9, but the merge counts
    # corners that far apart in this photo as two cards, so their face is not read.
    def box(x: float, y: float) -> list[float]:
        return [x - 8, y - 25, x + 8, y + 25]

    boxes = np.array([box(100, 100), box(100, 265), box(200, 100), box(200, 265),
                      box(300, 100), box(300, 265), box(450, 100), box(450, 450)], float)
    reader, face = _face_reader()
    reader.locator = CountingLocator(boxes)  # type: ignore[assignment]
    sure = [distribution((name, 0.99)) for name in ("As", "As", "Ks", "Ks", "Qs", "Qs")]
    reader.photo_classifier = ByBox([*sure, FOUR_UP, FOUR_DOWN])  # type: ignore[assignment]
    reader.detect(np.full((640, 640, 3), 90, np.uint8), "photo", lambda found: False)
    assert face.crops == 0
    # The same two corners alone (no card measures the photo): their face is read.
    reader.locator = CountingLocator(boxes[6:])  # type: ignore[assignment]
    reader.photo_classifier = ByBox([FOUR_UP, FOUR_DOWN])  # type: ignore[assignment]
    reader.detect(np.full((640, 640, 3), 90, np.uint8), "photo", lambda found: False)
    assert face.crops == 1


def test_a_photo_read_whole_or_read_without_a_count_reads_no_face() -> None:
    reader, face = _face_reader()
    image = np.full((640, 640, 3), 90, np.uint8)
    reader.detect(image, "photo", lambda found: True)
    reader.detect(image, "photo", None)
    assert face.crops == 0


def test_the_face_settings_are_checked() -> None:
    info = default_model()
    for bad in ({"photo_face_sure": 0.0}, {"photo_face_rank": 1.5},
                {"photo_face_weight": -1.0}):
        with pytest.raises(ModelError, match="photo_face_sure"):
            dataclasses.replace(info, **bad)


def test_the_workshop_cuts_a_face_for_each_card_labelled_in_two_corners() -> None:
    from vision.training.face_crops import card_pairs, jittered_faces

    labels = [("4s", (10, 10, 20, 40)), ("Kd", (50, 50, 60, 80)), ("4s", (60, 120, 70, 150)),
              ("9h", (5, 5, 8, 8)), ("9h", (90, 90, 95, 95)), ("9h", (100, 5, 105, 10))]
    pairs = list(card_pairs(labels))
    # Kd shows one corner and 9h three (a label error or two decks): no face for either.
    assert [card for card, _, _ in pairs] == ["4s"]
    _, a, b = pairs[0]
    image = cv2.GaussianBlur(  # smooth, so the same square cut at two sizes looks alike
        np.random.default_rng(1).integers(0, 255, (200, 200, 3), np.uint8), (0, 0), 4)
    crops = list(jittered_faces(image, a, b, 3, np.random.default_rng(0)))
    assert len(crops) == 3 and crops[0].shape == (CROP, CROP, 3)
    assert np.array_equal(crops[0], face_square(image, a, b))  # the first as labelled
    # Cut larger for a face reader of larger input (``face_crops --side``), from the same
    # draws: the same squares, at 64 pixels.
    larger = list(jittered_faces(image, a, b, 3, np.random.default_rng(0), side=64))
    assert [crop.shape for crop in larger] == [(64, 64, 3)] * 3
    assert np.array_equal(larger[0], face_square(image, a, b, size=64))
    for small, large in zip(crops, larger, strict=True):
        shrunk = cv2.resize(large, (CROP, CROP), interpolation=cv2.INTER_AREA)
        assert np.abs(shrunk.astype(int) - small.astype(int)).mean() < 2


def test_a_set_labelled_by_whole_card_gives_the_faces_that_lie_clear() -> None:
    from vision.training.face_crops import clear_cards

    boxes = np.array([
        [10, 10, 60, 80],     # clear
        [100, 10, 150, 80],   # a fifth of it under the next card
        [140, 10, 190, 80],   # the same card's neighbour, as much under it
        [10, 100, 60, 170],   # a sliver of it under the card beside it: still clear
        [58, 160, 108, 230],
        [150, 150, 200, 239.5],  # reaches the photo's bottom edge
    ])
    assert clear_cards(boxes, 240, 240).tolist() == [True, False, False, True, True, False]
    assert clear_cards(boxes[:1], 240, 240).tolist() == [True]  # alone in its photo
    assert clear_cards(np.zeros((0, 4)), 240, 240).tolist() == []


def test_the_shipped_face_reader_is_named_and_reads_faces() -> None:
    from vision.classifier import CornerClassifier

    info = default_model()
    assert info.photo_face_reader is not None and info.photo_face_reader.exists()
    assert info.photo_face_reader.name == "corner-face.onnx"
    assert (info.photo_face_weight, info.photo_face_sure, info.photo_face_rank) == \
        (1.0, 0.6, 0.8)
    reader = CornerClassifier(info.photo_face_reader)
    # The reader cuts faces at the side its face model takes (64 since session 76).
    side = reader.side
    faces = np.random.default_rng(0).integers(0, 255, (3, side, side, 3), dtype=np.uint8)
    read = reader.probabilities(faces, orientations=4)
    assert read.shape == (3, 52) and np.allclose(read.sum(axis=1), 1.0, atol=1e-3)


def test_a_face_reader_cards_json_names_but_lacks_is_named(tmp_path) -> None:
    import shutil

    models = models_folder(tmp_path, keep="photo_face_reader")
    with pytest.raises(ModelError, match=r"photo_face_reader corner-face\.onnx"):
        default_model(models)
    shipped = default_model().photo_face_reader
    assert shipped is not None
    shutil.copy(shipped, models / "corner-face.onnx")
    assert default_model(models).photo_face_reader == models / "corner-face.onnx"


def test_a_photo_of_many_stray_boxes_reads_a_bounded_number_of_faces() -> None:
    from vision import detector as detector_module

    # Twelve unsure corners in a grid, every one a card's diagonal from several others:
    # dozens of pairs, of which only MAX_FACE_PAIRS (set to 5 here) have their face read.
    boxes = np.array([[100 + 60 * (k % 4), 100 + 160 * (k // 4),
                       116 + 60 * (k % 4), 150 + 160 * (k // 4)] for k in range(12)], float)
    reader, face = _face_reader()
    reader.locator = CountingLocator(boxes)  # type: ignore[assignment]
    names = ("6s", "8s", "3s", "5s", "7s", "9s", "Ts", "Js", "Qs", "Ks", "As", "2s")
    reader.photo_classifier = ByBox(  # type: ignore[assignment]
        [distribution((name, 0.5), ("4s", 0.1)) for name in names])
    image = np.full((640, 640, 3), 90, np.uint8)
    assert len(face_pairs(reader.detect(image, "photo", None))) > 5
    original = detector_module.MAX_FACE_PAIRS
    detector_module.MAX_FACE_PAIRS = 5
    try:
        reader.detect(image, "photo", lambda found: False)
    finally:
        detector_module.MAX_FACE_PAIRS = original
    assert face.crops == 5
