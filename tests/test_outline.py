"""A lone corner's card found from its outline, and its face read where the outline places
it (``vision.outline``, ``vision.reading.named_by_lone_faces``, photo mode)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest
from test_faces import FOUR_PIPS, ByBox, FourPips
from test_photo_mode import CountingLocator, corners, distribution

from vision.detector import CardDetector, default_model
from vision.outline import (
    CardOutline,
    card_outline,
    holds_at_corner,
    opposite_index,
    shows_whole,
)
from vision.reading import merge_corners, named_by_lone_faces

TABLE = (40, 110, 60)  # green baize


def _card_photo(angle: float = 0.0, table: tuple[int, int, int] = TABLE,
                border: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A 640x640 photo of one white card (126 by 176 pixels, centre (320, 330)) turned
    ``angle`` degrees, its upper-left index inked; -> (photo, the index's box, the card's
    corners)."""
    image = np.zeros((640, 640, 3), np.uint8)
    image[:] = table
    rect = ((320.0, 330.0), (126.0, 176.0), angle)
    corners = cv2.boxPoints(rect)
    cv2.fillConvexPoly(image, corners.astype(np.int32), (250, 250, 245))
    if border:
        cv2.polylines(image, [corners.astype(np.int32)], True, (150, 150, 150), 2)
    # The index (16 by 34 pixels): at the corner nearest the photo's top left, 0.3 of
    # the way in to the card's centre.
    near = corners[np.argmin(corners.sum(axis=1))]
    centre = near + (np.array(rect[0]) - near) * 0.3
    box = np.array([centre[0] - 8, centre[1] - 17, centre[0] + 8, centre[1] + 17])
    cv2.rectangle(image, (int(box[0]) + 3, int(box[1]) + 3), (int(box[2]) - 3, int(box[1]) + 16),
                  (200, 20, 20), -1)
    cv2.circle(image, (int(centre[0]), int(box[3]) - 8), 5, (200, 20, 20), -1)
    return image, box, corners


def test_a_white_card_on_the_table_is_outlined_and_its_other_index_placed() -> None:
    for angle in (0.0, 20.0, -35.0):
        image, box, corners = _card_photo(angle)
        outline = card_outline(image, box)
        assert outline is not None, angle
        assert np.allclose(outline.centre, (320, 330), atol=4)
        # Canny's edge takes a pixel or two off each side.
        assert sorted(outline.sides) == [pytest.approx(124, abs=6), pytest.approx(173, abs=6)]
        partner = opposite_index(box, outline)
        # The reflected box lies at the card's far corner, as far in from it as the index.
        far = corners[np.argmax(np.linalg.norm(corners - box.reshape(2, 2).mean(axis=0),
                                               axis=1))]
        reflected = partner.reshape(2, 2).mean(axis=0)
        assert np.linalg.norm(reflected - far) < np.linalg.norm(
            box.reshape(2, 2).mean(axis=0) - corners).min() + 4
        assert partner[2] - partner[0] == box[2] - box[0]


def test_a_card_on_a_table_of_its_own_colour_ends_at_its_edge() -> None:
    image, box, _ = _card_photo(table=(235, 235, 228), border=True)
    outline = card_outline(image, box)
    assert outline is not None
    assert np.allclose(outline.centre, (320, 330), atol=6)


def test_no_card_shaped_outline_no_placement() -> None:
    # A box on the bare table: the "card" is the whole window, square and too large.
    image = np.zeros((640, 640, 3), np.uint8)
    image[:] = TABLE
    assert card_outline(image, np.array([300.0, 300.0, 318.0, 344.0])) is None
    # A card whose lower part lies under another object: what shows is square.
    image, box, _ = _card_photo()
    image[368:, :] = (30, 30, 30)
    assert card_outline(image, box) is None
    # A degenerate box.
    assert card_outline(image, np.array([10.0, 10.0, 10.0, 10.0])) is None


def test_a_card_shaped_outline_holds_the_index_near_a_corner() -> None:
    outline = CardOutline((320.0, 330.0), (126.0, 176.0), 0.0)
    assert holds_at_corner(outline, np.array([260.0, 250.0, 278.0, 294.0]))
    # The index in the middle of the card's side: not at a corner.
    assert not holds_at_corner(outline, np.array([312.0, 245.0, 328.0, 279.0]))
    # A card eleven index sides long is not this index's card.
    assert not holds_at_corner(outline, np.array([258.0, 243.0, 262.0, 259.0]))
    # A square.
    assert not holds_at_corner(CardOutline((320.0, 330.0), (176.0, 176.0), 0.0),
                               np.array([233.0, 243.0, 251.0, 287.0]))


def test_a_card_shows_whole_when_as_long_as_the_photos_longest_card() -> None:
    card = CardOutline((320.0, 330.0), (126.0, 176.0), 0.0)
    assert shows_whole(card, 176.0) and shows_whole(card, 200.0)
    # A card whose upper part lies under the row above shows a shorter part of itself.
    assert not shows_whole(CardOutline((320.0, 370.0), (126.0, 140.0), 0.0), 176.0)


# A webcam's 8h whose upper index is blurred: read 6h, unsurely; its face shows eight pips.
SIX_BLURRED = distribution(("6h", 0.3), ("5h", 0.2), ("9h", 0.1))
EIGHT_PIPS = distribution(("8h", 0.95), ("8d", 0.03))


def test_a_lone_corners_face_names_its_card_though_the_corner_ranks_it_low() -> None:
    found = corners([("6h", 150, 270, 16, 50), ("Ks", 400, 270, 16, 50)],
                    np.stack([SIX_BLURRED, distribution(("Ks", 0.99))]))
    cards = named_by_lone_faces(found, [0], EIGHT_PIPS[None], weight=1.0, sure=0.8,
                                rank_share=0.8)
    assert cards.labels == ["8h"] and cards.xyxy.tolist() == found.xyxy[:1].tolist()
    assert float(cards.confidence[0]) >= 0.8
    # A name the reading already counts is never taken again.
    held = [found.names.index("8h")]
    assert len(named_by_lone_faces(found, [0], EIGHT_PIPS[None], 1.0, 0.8, 0.8, held)) == 0
    # An unsure face names nothing.
    flat = distribution(("8h", 0.3), ("7h", 0.3), ("9h", 0.3))
    assert len(named_by_lone_faces(found, [0], flat[None], 1.0, 0.8, 0.8)) == 0
    # Two lone corners reading one card: the surer takes it.
    sure_eight = distribution(("8h", 0.99))
    both = named_by_lone_faces(found, [0, 1], np.stack([EIGHT_PIPS, sure_eight]), 1.0, 0.8,
                               0.5)
    assert both.labels == ["8h"]
    assert len(named_by_lone_faces(found, [], np.zeros((0, 52)), 1.0, 0.8, 0.8)) == 0


def _lone_reader(lone: bool = True, boxes: np.ndarray | None = None,
                 names: list[np.ndarray] | None = None) -> tuple[CardDetector, FourPips]:
    info = dataclasses.replace(
        default_model(), photo_read_near=0.0, photo_index_px=24.0, photo_tight_margin=0.0,
        photo_uses_table_detector=False, photo_short_scales=(), photo_short_negative=False,
        photo_first_look_stands=0.0, photo_crowded_mask=0.0, photo_face_reader=None,
        min_lone_conf=0.8, photo_face_lone=lone)
    if boxes is None:
        _, box, _ = _card_photo()
        boxes = box[None]
    reader = CardDetector(info, locator=CountingLocator(boxes))
    reader.photo_classifier = ByBox(  # type: ignore[assignment]
        names or [distribution(("6s", 0.5), ("4s", 0.2))])
    reader.second_classifier = reader.crowded_classifier = reader.text_reader = None
    face = FourPips()
    reader.face_reader = face  # type: ignore[assignment]
    return reader, face


def _one_card(found) -> bool:
    merged = merge_corners(found, min_lone_confidence=0.8, expect=1)
    return len(merged.cards) == 1 and not merged.warnings


def test_photo_mode_reads_a_lone_corners_card_face_where_its_outline_places_it() -> None:
    reader, face = _lone_reader()
    image, _, _ = _card_photo()
    found = reader.detect(image, "photo", _one_card)
    assert face.crops == 1
    merged = merge_corners(found, **reader.reading_settings, expect=1)
    assert [card.card for card in merged.cards] == ["4s"]
    assert FOUR_PIPS.argmax() == found.class_id[0]
    # Off, or on a bare table where no card's outline holds the corner: no face is read.
    reader, face = _lone_reader(lone=False)
    reader.detect(image, "photo", _one_card)
    assert face.crops == 0
    reader, face = _lone_reader()
    bare = np.zeros_like(image)
    bare[:] = TABLE
    reader.detect(bare, "photo", _one_card)
    assert face.crops == 0


def test_a_lone_corner_on_a_card_shorter_than_the_photos_whole_cards_reads_no_face() -> None:
    # Two cards: the left one whole, its corner read surely; the right one's lower part
    # under a dark object, so what shows of it (126 by 144 pixels) is still card-shaped,
    # but shorter than the whole card beside it.
    image = np.zeros((640, 900, 3), np.uint8)
    image[:] = TABLE
    cv2.rectangle(image, (100, 242), (226, 418), (250, 250, 245), -1)
    cv2.rectangle(image, (500, 242), (626, 418), (250, 250, 245), -1)
    image[386:, 450:] = (30, 30, 30)
    for x in (100, 500):
        cv2.rectangle(image, (x + 12, 250), (x + 22, 262), (200, 20, 20), -1)
    boxes = np.array([[105.0, 245.0, 121.0, 279.0], [505.0, 245.0, 521.0, 279.0]])
    names = [distribution(("Ah", 0.99)), distribution(("6s", 0.5), ("4s", 0.2))]
    reader, face = _lone_reader(boxes=boxes, names=names)
    assert card_outline(image, boxes[1]) is not None
    reader.detect(image, "photo", lambda found: False)
    assert face.crops == 0
    # Uncovered, the right card is as long as the left: its face is read.
    image[386:, 450:] = TABLE
    cv2.rectangle(image, (500, 242), (626, 418), (250, 250, 245), -1)
    cv2.rectangle(image, (512, 250), (522, 262), (200, 20, 20), -1)
    reader, face = _lone_reader(boxes=boxes, names=names)
    reader.detect(image, "photo", lambda found: False)
    assert face.crops == 1
