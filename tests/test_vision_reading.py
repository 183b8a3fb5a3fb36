"""Photo loading and the detection -> cards -> rows stages, without a model."""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vision.detections import Detections
from vision.photo import PhotoError, load_photo
from vision.pipeline import read_image, reading_of
from vision.reading import CardReading, group_rows, merge_corners, read_cards

NAMES = ("As", "Kd", "Qh", "Jc", "Ts", "9d", "8h", "7c", "6s", "5d", "4h", "3c", "2s", "Ah")


def detections(items: list[tuple[str, float, float]], size: float = 20.0) -> Detections:
    """Corner boxes of ``size`` pixels centred at (x, y) for each named card."""
    xyxy = np.array([[x - size / 2, y - size, x + size / 2, y + size] for _, x, y in items],
                    np.float32).reshape(-1, 4)
    return Detections(xyxy, np.full(len(items), 0.9, np.float32),
                      np.array([NAMES.index(n) for n, _, _ in items], np.int64), NAMES)


def test_two_corners_of_one_card_merge() -> None:
    cards, warnings = read_cards(detections([("As", 100, 100), ("As", 160, 190),
                                             ("Kd", 400, 100)]))
    assert sorted(c.card for c in cards) == ["As", "Kd"] and warnings == []
    ace = next(c for c in cards if c.card == "As")
    assert ace.corners == 2 and ace.box == (90.0, 80.0, 170.0, 210.0)
    # Where each corner was seen stays with the card (a table's rows line them up).
    assert sorted(ace.corner_points) == [(100.0, 100.0), (160.0, 190.0)]
    assert next(c for c in cards if c.card == "Kd").corner_points == ()


def test_a_lone_corner_needs_the_lone_confidence() -> None:
    found = detections([("As", 100, 100), ("As", 160, 190), ("Kd", 400, 100),
                        ("Qh", 700, 100)])
    found = Detections(found.xyxy, np.array([0.5, 0.5, 0.95, 0.6], np.float32),
                       found.class_id, found.names)
    cards, _ = read_cards(found, min_lone_confidence=0.9)
    # As: two corners that agree, kept at 0.5; Kd: one corner at 0.95; Qh: one at 0.6.
    assert sorted(c.card for c in cards) == ["As", "Kd"]
    assert len(read_cards(found)[0]) == 3


def test_same_card_far_apart_is_seen_twice() -> None:
    cards, warnings = read_cards(detections([("As", 100, 100), ("As", 900, 700)]))
    assert [c.card for c in cards] == ["As", "As"]
    assert warnings == ["As seen 2 times: remove the duplicate card or correct the reading"]


def test_a_lone_corner_where_a_card_misses_its_fourth_is_that_corner_misread() -> None:
    # The ace shows three corners of a card 150 x 220 pixels; its fourth would lie at
    # (250, 320), where a lone Kd is read (glare on the ace's corner, say): not a card.
    ace = [("As", 100, 100), ("As", 250, 100), ("As", 100, 320)]
    merged = merge_corners(detections([*ace, ("Kd", 252, 318), ("Qh", 600, 100)]))
    assert sorted(c.card for c in merged.cards) == ["As", "Qh"]
    assert [c.card for c in merged.doubtful] == ["Kd"]
    # Beyond reach of that spot (over an index size away), or with the ace seen in two
    # corners only (no spot to predict), or three corners in no right angle: a card.
    assert "Kd" in {c.card for c in merge_corners(detections([*ace, ("Kd", 300, 320)])).cards}
    assert "Kd" in {c.card for c in merge_corners(
        detections([ace[0], ace[2], ("Kd", 250, 320)])).cards}
    # The three corners must each be sure of the ace (a renamed corner may lie elsewhere).
    unsure = detections([*ace, ("Kd", 252, 318)])
    unsure = Detections(unsure.xyxy, np.array([0.9, 0.9, 0.5, 0.9], np.float32),
                        unsure.class_id, unsure.names)
    assert "Kd" in {c.card for c in merge_corners(unsure).cards}
    # (A parallelogram's fourth corner would be (200, 250).)
    slanted = [("As", 100, 100), ("As", 250, 100), ("As", 350, 250)]
    assert "Kd" in {c.card for c in merge_corners(detections([*slanted, ("Kd", 200, 250)])).cards}


def _rows_layout(angle_degrees: float, front_first: bool = True) -> list[tuple[str, float, float]]:
    sizes = (3, 5, 5) if front_first else (5, 5, 3)
    items, index = [], 0
    angle = math.radians(angle_degrees)
    for row, size in enumerate(sizes):
        for k in range(size):
            x, y = 100 + 90 * k, 100 + 200 * row
            rx = 500 + (x - 400) * math.cos(angle) - (y - 300) * math.sin(angle)
            ry = 500 + (x - 400) * math.sin(angle) + (y - 300) * math.cos(angle)
            items.append((NAMES[index], rx, ry))
            index += 1
    return items


@pytest.mark.parametrize("angle", [0, 30, 90, 135, 180, 270])
@pytest.mark.parametrize("front_first", [True, False])
def test_rows_found_in_any_orientation(angle: float, front_first: bool) -> None:
    cards, _ = read_cards(detections(_rows_layout(angle, front_first)))
    rows = group_rows(cards)
    assert rows is not None
    if front_first:
        front, middle, back = NAMES[:3], NAMES[3:8], NAMES[8:13]
    else:
        back, middle, front = NAMES[:5], NAMES[5:10], NAMES[10:13]
    assert {c.card for c in rows.front} == set(front)
    assert {c.card for c in rows.middle} == set(middle)
    assert {c.card for c in rows.back} == set(back)


def test_a_loose_spread_is_not_rows() -> None:
    rng = np.random.default_rng(3)
    items = [(NAMES[i], float(x), float(y)) for i, (x, y) in
             enumerate(rng.uniform(0, 1000, size=(13, 2)))]
    cards, _ = read_cards(detections(items))
    assert group_rows(cards) is None


class FakeDetector:
    def __init__(self, found: Detections) -> None:
        self.found = found

    def detect(self, image: np.ndarray, mode: str = "photo",
               complete: object = None) -> Detections:
        return self.found


def test_count_warnings() -> None:
    image = np.zeros((100, 100, 3), np.uint8)
    twelve = read_image(image, FakeDetector(detections(_rows_layout(0)[:12])))
    assert twelve.warnings == ["found 12 cards, expected 13: add the missing card or retake "
                               "the photo"]
    assert twelve.rows is None
    none = read_image(image, FakeDetector(Detections.empty(NAMES)))
    assert none.warnings[0].startswith("no cards found")
    full = read_image(image, FakeDetector(detections(_rows_layout(0))))
    assert full.warnings == [] and full.rows is not None
    assert full.to_dict()["rows"]["front"] == sorted(NAMES[:3], key=lambda n: NAMES.index(n))


def _jpeg(image: Image.Image, **kwargs: object) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", **kwargs)
    return buffer.getvalue()


class JudgedDetector(FakeDetector):
    """Records what ``read_image``'s judge says of the corners it finds."""

    def __init__(self, found: Detections) -> None:
        super().__init__(found)
        self.judged: list[bool | None] = []

    def detect(self, image: np.ndarray, mode: str = "photo",
               complete: Callable[[Detections], bool] | None = None) -> Detections:
        self.judged.append(None if complete is None else complete(self.found))
        return self.found


def test_the_reading_says_whether_the_corners_read_the_photo_whole() -> None:
    # A hand read whole is 13 cards, none of them twice; 12, or a card seen twice, falls
    # short; a photo of unknown count (a table) is never judged.
    image = np.zeros((100, 100, 3), np.uint8)
    hand = _rows_layout(0)
    twice = [*hand[:12], (hand[0][0], 900.0, 900.0)]
    for items, expect, judged in ((hand, 13, True), (hand[:12], 13, False),
                                  (twice, 13, False), (hand[:12], 12, True),
                                  (hand, None, None)):
        detector = JudgedDetector(detections(items))
        read_image(image, detector, expect=expect)
        assert detector.judged == [judged], (len(items), expect)


def test_exif_orientation_is_applied() -> None:
    wide = Image.new("RGB", (200, 100), (255, 0, 0))
    wide.paste((0, 0, 255), (100, 0, 200, 100))  # left half red, right half blue
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90 degrees clockwise to display
    loaded = load_photo(_jpeg(wide, exif=exif))
    assert loaded.shape == (200, 100, 3)
    # Turned clockwise, the stored left half is on top.
    assert loaded[20, 50].argmax() == 0 and loaded[180, 50].argmax() == 2


def test_an_iphones_heic_photo_is_read_upright() -> None:
    # tools/make_heic_photos.py: the photo above as HEIC, stored with orientation 6.
    loaded = load_photo(Path(__file__).parent / "data" / "heic" / "turned.heic")
    assert loaded.shape == (200, 100, 3)
    assert loaded[20, 50].argmax() == 0 and loaded[180, 50].argmax() == 2


@pytest.mark.parametrize(("size", "expected"), [((4032, 3024), (1512, 2016)),
                                                ((3000, 1000), (683, 2048)),
                                                ((9000, 6000), (1365, 2048))])
def test_a_big_photo_without_reduced_decoding_shrinks_as_a_jpeg_does(
        size: tuple[int, int], expected: tuple[int, int]) -> None:
    # A PNG (or HEIC) has no draft: reduced by an integer factor first, to the size JPEG's
    # draft gives a phone photo (4032x3024 -> 2016x1512), then to at most 2048.
    photo = Image.new("RGB", size, (255, 0, 0))
    photo.paste((0, 0, 255), (size[0] // 2, 0, *size))
    data = io.BytesIO()
    photo.save(data, "PNG", compress_level=1)
    loaded = load_photo(data.getvalue())
    assert loaded.shape[:2] == expected and max(loaded.shape) <= 2048
    assert loaded[10, 10].argmax() == 0 and loaded[10, -10].argmax() == 2


@pytest.mark.parametrize("mode", ["L", "P", "RGBA", "CMYK"])
def test_photos_of_any_colour_mode_are_read_as_rgb(mode: str) -> None:
    photo = Image.new("RGB", (120, 80), (200, 30, 30)).convert(mode)
    data = io.BytesIO()
    photo.save(data, "JPEG" if mode in ("L", "CMYK") else "PNG")
    loaded = load_photo(data.getvalue())
    assert loaded.shape == (80, 120, 3) and loaded.dtype == np.uint8
    if mode != "L":
        assert loaded[40, 60].argmax() == 0


def test_huge_photos_are_shrunk_not_refused() -> None:
    big = Image.new("RGB", (6000, 4000), (0, 128, 0))
    loaded = load_photo(_jpeg(big))
    assert max(loaded.shape[:2]) <= 2048


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"not an image at all", "is not an image we can read"),
     (b"\xff\xd8\xff\xe0broken jpeg", "cannot be read")],
)
def test_unreadable_photos(content: bytes, message: str) -> None:
    with pytest.raises(PhotoError, match=message):
        load_photo(content)


def test_missing_and_tiny_photos(tmp_path: Path) -> None:
    with pytest.raises(PhotoError, match="no such file"):
        load_photo(tmp_path / "nope.jpg")
    with pytest.raises(PhotoError, match="too small"):
        load_photo(_jpeg(Image.new("RGB", (10, 10))))


def test_a_doubtful_card_is_offered_when_cards_are_missing() -> None:
    found = detections([("As", 100, 100), ("As", 160, 190), ("Kd", 400, 100),
                        ("Qh", 700, 100), ("Jc", 900, 100), ("Kd", 1000, 700)])
    found = Detections(found.xyxy, np.array([0.9, 0.9, 0.95, 0.6, 0.7, 0.5], np.float32),
                       found.class_id, found.names)
    # Two sure cards; Jc (0.7) and Qh (0.6) are doubtful; the lone Kd far away names a card
    # already read, so it is not offered.
    cards, warnings = read_cards(found, min_lone_confidence=0.9, expect=3)
    assert sorted(c.card for c in cards) == ["As", "Kd"]
    assert len(warnings) == 1 and warnings[0].startswith("maybe Jc: one corner near (900, 100)")
    _, warnings = read_cards(found, min_lone_confidence=0.9, expect=4)
    assert [w.split(":")[0] for w in warnings] == ["maybe Jc", "maybe Qh"]
    # Nothing is offered when the count is not known or nothing is missing.
    assert read_cards(found, min_lone_confidence=0.9)[1] == []
    assert read_cards(found, min_lone_confidence=0.9, expect=2)[1] == []
    # merge_corners also hands over the doubtful cards themselves, most confident first
    # (a whole table's reading fills a short seat from them), whatever the count.
    merged = merge_corners(found, min_lone_confidence=0.9)
    assert [(c.card, c.corners) for c in merged.doubtful] == [("Jc", 1), ("Qh", 1), ("Kd", 1)]
    assert sorted(c.card for c in merged.cards) == ["As", "Kd"]
    # Each card offered to a hand read short is handed over with the warning that offers
    # it, so a step that counts the card after all (a set hand's rows) drops that warning.
    assert merged.offers == {}
    offered = merge_corners(found, min_lone_confidence=0.9, expect=4)
    assert list(offered.offers) == ["Jc", "Qh"]
    assert list(offered.offers.values()) == offered.warnings


def test_a_card_too_many_seen_in_one_corner_is_set_aside() -> None:
    # As seen in two corners; Kd, Qh and Jc in one each, Qh the least sure. Told 3, the
    # reading sets Qh aside with a warning and keeps it among the doubtful cards; told 2,
    # the two least sure lone cards; told nothing, or 4, nothing is set aside.
    found = detections([("As", 100, 100), ("As", 160, 190), ("Kd", 400, 100),
                        ("Qh", 700, 100), ("Jc", 900, 100)])
    found = Detections(found.xyxy, np.array([0.9, 0.9, 0.95, 0.6, 0.7], np.float32),
                       found.class_id, found.names)
    merged = merge_corners(found, expect=3)
    assert sorted(c.card for c in merged.cards) == ["As", "Jc", "Kd"]
    assert [c.card for c in merged.doubtful] == ["Qh"]
    assert merged.warnings == ["Qh, seen in one corner, was set aside as a card too many: "
                               "check it"]
    assert sorted(c.card for c in merge_corners(found, expect=2).cards) == ["As", "Kd"]
    for expect in (None, 4):
        assert len(merge_corners(found, expect=expect).cards) == 4
    # Told 1, every lone card is set aside, least sure first in the warnings; told
    # nothing, none.
    image = np.zeros((100, 100, 3), np.uint8)
    told_one = read_image(image, FakeDetector(found), expect=1)
    assert [c.card for c in told_one.cards] == ["As"]
    assert [w.split(",")[0] for w in told_one.warnings] == ["Qh", "Jc", "Kd"]
    assert len(read_image(image, FakeDetector(found), expect=None).cards) == 4


def _one_unsure(items: list[tuple[str, float, float]], lone: float = 0.5) -> FakeDetector:
    """A detector that finds ``items``, the first named at ``lone`` only, in a reader whose
    lone-corner bar is 0.9."""
    found = detections(items)
    confidence = np.full(len(items), 0.95, np.float32)
    confidence[0] = lone
    detector = FakeDetector(Detections(found.xyxy, confidence, found.class_id, found.names))
    detector.reading_settings = {"min_lone_confidence": 0.9}  # type: ignore[attr-defined]
    return detector


def test_the_count_warning_comes_before_the_cards_offered() -> None:
    items = _rows_layout(0)[:13]
    items[0] = (items[0][0], 900.0, 100.0)  # away from the rows: it completes none
    found = detections(items)
    confidence = np.full(len(items), 0.95, np.float32)
    confidence[0] = 0.5  # one card's corners: the first item is its lone corner
    found = Detections(found.xyxy, confidence, found.class_id, found.names)

    detector = FakeDetector(found)
    detector.reading_settings = {"min_lone_confidence": 0.9}  # type: ignore[attr-defined]
    reading = read_image(np.zeros((100, 100, 3), np.uint8), detector)
    assert len(reading.cards) == 12
    assert reading.warnings[0].startswith("found 12 cards, expected 13")
    assert reading.warnings[1].startswith(f"maybe {items[0][0]}:")


def _rows_by_each_direction(cards: list, min_separation: float = 1.5) -> list[set[str]] | None:
    """``group_rows`` as first written, one direction at a time: the definition its
    every-direction-at-once form must keep."""
    if len(cards) != 13:
        return None
    centers = np.array([c.center for c in cards], dtype=np.float64)
    best: tuple[float, list[np.ndarray]] | None = None
    for degrees in range(0, 180, 2):
        angle = math.radians(degrees)
        across = centers @ np.array([-math.sin(angle), math.cos(angle)])
        order = np.argsort(across)
        for sizes in ((3, 5, 5), (5, 5, 3)):
            cuts = np.cumsum(sizes)[:-1]
            bands = np.split(order, cuts)
            spread = max(float(np.ptp(across[b])) for b in bands)
            gap = min(float(across[order[c]] - across[order[c - 1]]) for c in cuts)
            score = gap / max(spread, 1e-6)
            if best is None or score > best[0]:
                best = (score, bands)
    assert best is not None
    if best[0] < min_separation:
        return None
    bands = best[1] if len(best[1][0]) == 3 else best[1][::-1]
    return [{cards[i].card for i in band} for band in bands]


@pytest.mark.parametrize("seed", range(40))
def test_rows_are_the_ones_each_direction_tried_in_turn_finds(seed: int) -> None:
    """Rows laid a little unevenly (and some layouts too loose to be rows): the same rows,
    or none, as trying each direction in turn."""
    rng = np.random.default_rng(seed)
    spread = 5 + 30 * (seed % 4)  # up to 95 pixels, rows 200 apart
    items = [(name, x + rng.normal(0, spread / 3), y + rng.normal(0, spread))
             for name, x, y in _rows_layout(float(rng.uniform(0, 360)), bool(seed % 2))]
    cards, _ = read_cards(detections(items))
    rows = group_rows(cards)
    expected = _rows_by_each_direction(cards)
    assert (rows is None) == (expected is None)
    if rows is not None:
        assert [{c.card for c in row} for row in (rows.front, rows.middle, rows.back)] == expected


def _overlapping_rows(turn_degrees: float, far_corner: str | None
                      ) -> tuple[list[CardReading], list[set[str]]]:
    """Session 58's overlapping rows (pitch 100, cards 140 tall, the last card of each row
    seen in both corners, the rest in their upper one), ``far_corner`` (a card's name)
    seen by its lower index alone: a row's lower right where its neighbours show their
    upper left."""
    turn = math.radians(turn_degrees)

    def at(x: float, y: float) -> tuple[float, float]:
        return (500 + x * math.cos(turn) - y * math.sin(turn),
                500 + x * math.sin(turn) + y * math.cos(turn))

    def box(x: float, y: float) -> tuple[float, float, float, float]:
        return (x - 8, y - 12, x + 8, y + 12)

    cards: list[CardReading] = []
    rows = []
    for row, size in enumerate((3, 5, 5)):
        rows.append(set(NAMES[len(cards):len(cards) + size]))
        for k in range(size):
            x, y = 60.0 * k, 100.0 * row
            name = NAMES[len(cards)]
            upper, lower = at(x - 40, y - 60), at(x + 40, y + 60)
            if k == size - 1:
                whole = (min(upper[0], lower[0]) - 8, min(upper[1], lower[1]) - 12,
                         max(upper[0], lower[0]) + 8, max(upper[1], lower[1]) + 12)
                cards.append(CardReading(name, 0.99, whole, 2, (upper, lower)))
            else:
                cards.append(CardReading(name, 0.99, box(*(lower if name == far_corner
                                                           else upper)), 1))
    return cards, rows


@pytest.mark.parametrize("angle", [0, 37, 90, 200])
def test_overlapping_rows_line_up_by_the_corners_of_the_cards_seen_whole(angle: float
                                                                         ) -> None:
    """Rows laid overlapping (pitch 100, cards 140 tall): most cards show their upper
    index only, 60 above their centre, the next row covering the rest; the last card of
    each row shows both. At the centres those cards fall between the rows' indices, and no
    rows are found; standing at its upper corner each lines up with its row."""
    cards, rows = _overlapping_rows(angle, None)
    assert _rows_by_each_direction(cards) is None  # at the centres: no rows
    found = group_rows(cards, search=False)  # the placements alone find them
    assert found is not None
    assert [{c.card for c in row} for row in (found.front, found.middle, found.back)] == rows


@pytest.mark.parametrize("angle", [0, 37, 90, 200])
def test_a_card_seen_by_its_far_corner_is_searched_into_its_row(angle: float) -> None:
    """A middle-row card seen by its lower index alone lies 120 below its neighbours'
    upper ones, past the next row's: no placement of the cards seen whole makes rows.
    Moved by the photo's card diagonal (its corners' span on the cards seen whole) it
    stands at its upper corner, and the rows are found (tune-1280b's val_000006: a 7c
    at the end of a row)."""
    far = NAMES[5]
    cards, rows = _overlapping_rows(angle, far)
    assert group_rows(cards, search=False) is None
    found = group_rows(cards)
    assert found is not None
    assert [{c.card for c in row} for row in (found.front, found.middle, found.back)] == rows


@pytest.mark.parametrize("seed", range(12))
def test_a_scattered_hand_seen_in_two_corners_is_not_searched_into_rows(seed: int) -> None:
    """13 cards dropped anywhere, each seen in both corners: the search may move every
    card and still finds no rows, since what it finds must clear SEARCHED_SEPARATION
    (without that bar, 8 of these 12 would be given rows)."""
    rng = np.random.default_rng(seed)
    cards = []
    for i, (x, y) in enumerate(rng.uniform(100, 900, size=(13, 2))):
        upper, lower = (x - 40, y - 60), (x + 40, y + 60)
        cards.append(CardReading(NAMES[i], 0.99, (x - 48, y - 72, x + 48, y + 72), 2,
                                 (upper, lower)))
    assert group_rows(cards) is None


# What photo mode read of tune-rows' val_000013 (session 85: a set hand of a held-out
# design, its cards lying on their sides in three columns, the back row's cards partly
# under one another): (card, box, corners seen, the corners' centres when two).
_SIDEWAYS_SET_HAND = [
    ("Ts", (136.3, 264.3, 337.6, 406.8), 2, ((164.0, 395.2), (307.1, 276.3))),
    ("9h", (791.7, 842.1, 866.5, 868.0), 1, ()),
    ("4d", (591.1, 767.7, 657.6, 789.9), 1, ()),
    ("4h", (352.9, 723.4, 412.0, 747.4), 1, ()),
    ("5s", (350.1, 451.4, 582.2, 594.2), 2, ((382.9, 582.2), (546.6, 461.5))),
    ("2h", (612.9, 596.3, 681.3, 621.3), 1, ()),
    ("Qh", (599.7, 291.7, 859.7, 460.3), 2, ((634.3, 447.4), (823.2, 304.6))),
    ("Jd", (133.5, 591.7, 333.0, 723.1), 2, ((159.4, 712.5), (306.2, 602.3))),
    ("2c", (604.3, 107.1, 860.0, 278.8), 2, ((640.3, 267.7), (822.2, 118.2))),
    ("3s", (358.4, 285.8, 581.3, 437.9), 2, ((389.9, 427.7), (546.6, 294.6))),
    ("Js", (370.1, 114.5, 595.4, 281.6), 2, ((402.9, 270.5), (562.2, 124.6))),
    ("6c", (352.0, 769.5, 572.0, 909.3), 2, ((381.5, 897.2), (538.8, 778.8))),
    ("3h", (129.8, 427.1, 333.9, 558.5), 2, ((156.6, 548.3), (304.8, 436.8))),
]


def _sideways_set_hand() -> list[CardReading]:
    return [CardReading(name, 0.99, box, corners, points)
            for name, box, corners, points in _SIDEWAYS_SET_HAND]


def test_a_set_hand_of_lone_corners_is_found_where_two_placements_agree(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Four cards of val_000013 show one corner each, at whichever end of the card the
    next card left uncovered. The search separates its rows only 2.8 (under
    SEARCHED_SEPARATION); those cards placed half a card's diagonal from their corner,
    every way, separate the same three rows 4.9, and the two placements agree."""
    from vision import reading

    found = group_rows(_sideways_set_hand())
    assert found is not None
    assert {row: set(cards) for row, cards in found.to_dict().items()} == {
        "front": {"3h", "Jd", "Ts"}, "middle": {"3s", "4h", "5s", "6c", "Js"},
        "back": {"2c", "2h", "4d", "9h", "Qh"}}
    monkeypatch.setattr(reading, "MAX_HALF_PLACEMENTS", 1)  # the second placement off
    assert group_rows(_sideways_set_hand()) is None


def test_lone_corners_placed_apart_from_the_search_give_no_rows(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The second placement counts only where it cuts the rows the search cut: given one
    that separates other rows widely, the hand keeps no rows."""
    from vision import reading

    searched = reading._searched_rows
    monkeypatch.setattr(reading, "_half_diagonal_rows", lambda cards, centres: (
        50.0, *searched(cards, centres, reading._best_rows(centres[None]))[1:3],
        centres[::-1].copy()))
    assert group_rows(_sideways_set_hand()) is None


def test_a_set_hand_one_card_short_takes_the_unsure_corner_that_completes_its_rows() -> None:
    """The front row shows two cards and, where its third lies, a corner named As under
    the lone-corner bar: the hand counts it, with a warning to check it, and has rows."""
    items = _rows_layout(0)[:13]
    reading = read_image(np.zeros((100, 100, 3), np.uint8), _one_unsure(items))
    assert sorted(reading.card_names) == sorted(NAMES[:13])
    assert reading.rows is not None
    assert {c.card for c in reading.rows.front} == set(NAMES[:3])
    assert reading.warnings == ["As was read in one unsure corner (0.50) and counted because "
                                "it completes the three rows: check it"]
    assert reading.doubtful == []
    # Live mode's frames keep it out, as they spare the rows' search.
    live = reading_of(np.zeros((100, 100, 3), np.uint8), _one_unsure(items).found,
                      expect=13, settings={"min_lone_confidence": 0.9}, search_rows=False)
    assert len(live.cards) == 12 and live.warnings[0].startswith("found 12 cards")


@pytest.mark.parametrize("where", [(650.0, 300.0), (1500.0, 100.0)])
def test_an_unsure_corner_away_from_the_short_row_does_not_complete_it(
        where: tuple[float, float]) -> None:
    """Past the row's end by three cards, or a table's width off where a band across the
    rows would still take it: the corner stays offered, the hand one card short."""
    items = _rows_layout(0)[:13]
    items[0] = (items[0][0], *where)
    reading = read_image(np.zeros((100, 100, 3), np.uint8), _one_unsure(items))
    assert len(reading.cards) == 12 and reading.rows is None
    assert reading.warnings[0].startswith("found 12 cards, expected 13")
    assert reading.warnings[1].startswith("maybe As:")


def test_two_unsure_names_that_each_complete_the_rows_leave_the_hand_short() -> None:
    """Two unsure corners named apart, one at each end of the short row: which is the
    card? Neither counts."""
    items = _rows_layout(0)[:13]
    items.append(("Ah", items[2][1] + 90, items[2][2]))
    found = detections(items)
    confidence = np.full(len(items), 0.95, np.float32)
    confidence[[0, 13]] = 0.5
    detector = FakeDetector(Detections(found.xyxy, confidence, found.class_id, found.names))
    detector.reading_settings = {"min_lone_confidence": 0.9}  # type: ignore[attr-defined]
    reading = read_image(np.zeros((100, 100, 3), np.uint8), detector)
    assert len(reading.cards) == 12 and reading.rows is None


@pytest.mark.parametrize(("named", "counted"), [(0.9, True), (0.5, False)])
def test_a_set_hand_one_card_short_looks_among_the_corners_its_gates_held_back(
        named: float, counted: bool) -> None:
    """The front row's first card was held back by a naming gate (photo mode keeps such
    corners beside its reading, ``Detections.held_back``): named at least as surely as a
    lone corner must be (0.9 here), it completes the rows and counts; named 0.5, it does
    not, and the hand stays one card short."""
    items = _rows_layout(0)[:13]
    every = detections(items)
    confidence = np.full(len(items), 0.95, np.float32)
    confidence[0] = named
    every = Detections(every.xyxy, confidence, every.class_id, every.names)
    kept = every[np.arange(1, len(items))]
    found = Detections(kept.xyxy, kept.confidence, kept.class_id, kept.names, held_back=every)
    reading = reading_of(np.zeros((100, 100, 3), np.uint8), found, expect=13,
                         settings={"min_lone_confidence": 0.8})
    assert (len(reading.cards) == 13) == counted
    assert (reading.rows is not None) == counted
    if counted:
        assert reading.warnings[0].startswith(f"{items[0][0]} was read in one unsure corner")
    else:
        assert reading.warnings[0].startswith("found 12 cards, expected 13")
