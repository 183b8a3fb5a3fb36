"""Seats and rows of a whole table, on constructed card positions (vision.table).

A constructed table: seats at given angles round a centre (in the photo's coordinates, y
down, so 90 degrees is straight below the centre), each with rows of 3, 5 and 5 cards
across the line to the centre, the front row nearest; each card read from both corner
indices (its box spans the card) or, as often in a photo where cards overlap, from its
top-left index only (a small box off the card's centre).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from engine.cards import CARD_NAMES
from vision.reading import CardReading
from vision.table import WEAK_PAIR_CONF, group_table

CARD_PX = 60.0  # a card's width in the photo
ASPECT = 1.4
ROW_NAMES = ("front", "middle", "back")


@dataclass
class Constructed:
    cards: list[CardReading]
    size: tuple[int, int]
    seats: list[dict[str, list[str]]]  # in the order the angles were given


def _index_box(x: float, y: float, angle: float, corner: int) -> tuple[float, float, float,
                                                                       float]:
    """The box of a card's top-left (corner 0) or bottom-right (1) index, card units."""
    sign = -1 if corner == 0 else 1
    local = np.array([[sign * 0.38 + dx, sign * 0.55 + dy] for dx in (-0.08, 0.08)
                      for dy in (-0.15, 0.15)])
    t = math.radians(angle)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    points = local @ rot.T + (x, y)
    return (*points.min(axis=0), *points.max(axis=0))


def build_table(angles: list[float], *, turn: float = 0.0, askew: list[float] | None = None,
                reach: float = 3.6, dx: float = 1.0, dy: float = ASPECT * 1.05,
                distances: list[float] | None = None, lone: float = 0.4, seed: int = 0,
                margin: float = 2.0) -> Constructed:
    """``angles``: each seat's direction from the centre (degrees, photo coordinates);
    ``turn`` turns the whole photo; ``askew`` turns each seat's rows about their middle;
    ``lone``: the share of cards read from one corner only."""
    rng = np.random.default_rng(seed)
    names = list(rng.permutation(CARD_NAMES))
    cards: list[CardReading] = []
    seats: list[dict[str, list[str]]] = []
    boxes: list[tuple[str, float, tuple[float, float, float, float], int,
                      list[tuple[float, float]]]] = []
    for s, theta in enumerate(angles):
        distance = reach * (distances[s] if distances else 1.0)
        skew = math.radians(askew[s] if askew else 0.0)
        seat: dict[str, list[str]] = {}
        for r, (row, n) in enumerate(zip(ROW_NAMES, (3, 5, 5), strict=True)):
            seat[row] = []
            for j in range(n):
                # Seat below the centre, rows across +y; askew about the middle row's centre.
                x, y = (j - (n - 1) / 2) * dx, (r - 1) * dy
                x, y = (x * math.cos(skew) - y * math.sin(skew),
                        x * math.sin(skew) + y * math.cos(skew))
                y += distance + dy
                card_angle = math.degrees(skew) + rng.normal(0, 2)
                # Turn the seat from straight below (90 degrees) to theta, then the photo.
                t = math.radians(theta - 90 + turn)
                gx, gy = x * math.cos(t) - y * math.sin(t), x * math.sin(t) + y * math.cos(t)
                name = names.pop()
                seat[row].append(name)
                corner_boxes = [_index_box(gx, gy, card_angle + theta - 90 + turn, c)
                                for c in ((0,) if rng.random() < lone else (0, 1))]
                box = (min(b[0] for b in corner_boxes), min(b[1] for b in corner_boxes),
                       max(b[2] for b in corner_boxes), max(b[3] for b in corner_boxes))
                points = [((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in corner_boxes]
                boxes.append((name, 0.9, box, len(corner_boxes), points))
        seats.append(seat)
    lo = np.min([b[2][:2] for b in boxes], axis=0) - margin
    hi = np.max([b[2][2:] for b in boxes], axis=0) + margin
    for name, confidence, (x1, y1, x2, y2), corners, points in boxes:
        box = ((x1 - lo[0]) * CARD_PX, (y1 - lo[1]) * CARD_PX, (x2 - lo[0]) * CARD_PX,
               (y2 - lo[1]) * CARD_PX)
        seen = tuple(((x - lo[0]) * CARD_PX, (y - lo[1]) * CARD_PX) for x, y in points)
        cards.append(CardReading(name, confidence, box, corners, seen if corners > 1 else ()))
    size = (int((hi[0] - lo[0]) * CARD_PX), int((hi[1] - lo[1]) * CARD_PX))
    order = rng.permutation(len(cards))  # a reader lists cards in no seat order
    return Constructed([cards[i] for i in order], size, seats)


def expected_order(angles: list[float], turn: float = 0.0) -> list[int]:
    """Seat indices as numbered: nearest the bottom edge first (the largest sine), then
    clockwise on screen, which with y down is increasing angle."""
    turned = [(a + turn) % 360 for a in angles]
    first = max(range(len(turned)), key=lambda i: math.sin(math.radians(turned[i])))
    return sorted(range(len(turned)), key=lambda i: (turned[i] - turned[first]) % 360)


def assert_read_right(table: Constructed, angles: list[float], turn: float = 0.0) -> None:
    reading = group_table(table.cards, table.size)
    assert [s.warnings for s in reading.seats] == [[]] * len(angles)
    assert reading.ready
    got = [s.rows.to_dict() for s in reading.seats if s.rows is not None]
    want = [table.seats[i] for i in expected_order(angles, turn)]
    assert [{r: set(c) for r, c in g.items()} for g in got] == \
        [{r: set(c) for r, c in w.items()} for w in want]


# Players never sit exactly opposite: 2 seats a little off, so that no turn of the photo
# leaves both seats equally near its bottom edge (then either could be seat 1).
EVEN = {2: [80.0, 265.0], 3: [90.0, 210.0, 330.0], 4: [90.0, 180.0, 270.0, 0.0]}


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("turn", [0, 90, 180, 270, 37, -128])
def test_even_tables_every_orientation(seats: int, turn: float) -> None:
    angles = EVEN[seats]
    assert_read_right(build_table(angles, turn=turn, seed=seats * 100 + turn), angles, turn)


def test_numbering_starts_at_the_bottom_and_goes_clockwise() -> None:
    # Seats below, right, above and left of the centre (y down): clockwise on screen from
    # the bottom runs left, top, right.
    table = build_table([90.0, 0.0, 270.0, 180.0], seed=3)
    reading = group_table(table.cards, table.size)
    below, right, above, left = table.seats
    got = [set(s.card_names) for s in reading.seats]
    assert got == [{c for row in s.values() for c in row} for s in (below, left, above, right)]
    assert reading.seats[0].center[1] > reading.seats[2].center[1]  # 1 below 3


def test_rows_left_to_right_as_the_player_sees_them() -> None:
    table = build_table([90.0, 270.0], lone=0.0, seed=4)
    reading = group_table(table.cards, table.size)
    bottom, top = reading.seats
    assert bottom.rows is not None and top.rows is not None
    # The player at the bottom sees left to right as the photo does; the one at the top,
    # facing them, the other way round.
    xs = [c.center[0] for c in bottom.rows.back]
    assert xs == sorted(xs)
    xs = [c.center[0] for c in top.rows.back]
    assert xs == sorted(xs, reverse=True)
    # Front row first in a seat's cards.
    assert bottom.card_names[:3] == [c.card for c in bottom.rows.front]


@pytest.mark.parametrize("angles", [
    [90.0, 180.0, 270.0],            # three seats, one side of the table empty
    [90.0, 0.0],                     # two players at adjacent sides
    [100.0, 150.0 + 30, 300.0, 20.0],  # four at uneven angles
    [45.0, 225.0],                   # two across a corner
    [75.0, 160.0, 290.0],
])
def test_uneven_spacing(angles: list[float]) -> None:
    assert_read_right(build_table(angles, seed=int(sum(angles))), angles)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_rows_askew_and_seats_at_different_distances(seats: int) -> None:
    angles = EVEN[seats]
    askew = [25.0, -30.0, 15.0, -20.0][:seats]
    distances = [1.0, 1.3, 0.95, 1.2][:seats]
    table = build_table(angles, askew=askew, distances=distances, turn=17, seed=seats)
    assert_read_right(table, angles, turn=17)


@pytest.mark.parametrize("dx,dy", [(0.55, ASPECT * 0.8), (1.15, ASPECT * 1.25),
                                   (0.7, ASPECT * 0.75)])
def test_overlapping_cards_and_rows(dx: float, dy: float) -> None:
    angles = EVEN[4]
    reach = 2.5 * dx + ASPECT * 0.6 + 0.3
    assert_read_right(build_table(angles, dx=dx, dy=dy, reach=reach, lone=0.7, seed=9),
                      angles)


def test_seats_fixed_by_the_caller() -> None:
    table = build_table(EVEN[3], seed=5)
    assert len(group_table(table.cards, table.size, seats=3).seats) == 3
    with pytest.raises(ValueError, match="2 to 4 seats"):
        group_table(table.cards, table.size, seats=5)


# --- warnings -------------------------------------------------------------------------

def seat_of(reading: object, card: str) -> object:
    return next(s for s in reading.seats if card in s.card_names)  # type: ignore[attr-defined]


def test_missing_card_names_the_seat() -> None:
    table = build_table(EVEN[3], seed=11)
    missing = table.seats[1]["middle"][2]
    cards = [c for c in table.cards if c.card != missing]
    reading = group_table(cards, table.size)
    short = seat_of(reading, table.seats[1]["back"][0])
    assert short.rows is None
    assert short.warnings == [f"seat {short.number}: 12 cards, a hand has 13: find the "
                              "missing card or retake the photo"]
    assert not reading.ready
    others = [s for s in reading.seats if s is not short]
    assert all(s.rows is not None and not s.warnings for s in others)
    assert len(short.cards) == 12  # the cards read so far are kept for correction


def test_extra_card_names_the_seat() -> None:
    table = build_table(EVEN[2], seed=12)
    unused = next(c for c in CARD_NAMES if c not in {r.card for r in table.cards})
    # Seen in both corners, between two rows: no card of the seat can be set aside to
    # leave clean rows (see test_a_seat_sets_aside_a_lone_corner_too_many).
    stray = _phantom_between_rows(table, 0, unused, 0.9)
    extra = CardReading(stray.card, stray.confidence, stray.box, 2)
    reading = group_table([*table.cards, extra], table.size)
    seat = seat_of(reading, unused)
    assert seat.rows is None
    assert seat.warnings[0] == (f"seat {seat.number}: 14 cards, a hand has 13: remove the "
                                "extra card or retake the photo")


def test_card_seen_at_two_seats() -> None:
    table = build_table(EVEN[4], seed=13)
    twice = table.seats[0]["front"][0]
    misread = table.seats[2]["back"][1]
    cards = [CardReading(twice, c.confidence, c.box, c.corners) if c.card == misread else c
             for c in table.cards]
    reading = group_table(cards, table.size)
    holders = [s for s in reading.seats if twice in s.card_names]
    assert len(holders) == 2
    first, second = holders
    assert first.warnings == [f"seat {first.number}: {twice} is also seen at seat "
                              f"{second.number}: a deck holds it once; correct the misread one"]
    assert second.warnings == [f"seat {second.number}: {twice} is also seen at seat "
                               f"{first.number}: a deck holds it once; correct the misread one"]
    assert not reading.ready
    # Both seats still have their rows: only the card is in doubt.
    assert first.rows is not None and second.rows is not None


def test_card_seen_twice_in_one_seat() -> None:
    table = build_table(EVEN[2], seed=14)
    seat_cards = table.seats[0]
    twice, misread = seat_cards["middle"][0], seat_cards["back"][3]
    cards = [CardReading(twice, c.confidence, c.box, c.corners) if c.card == misread else c
             for c in table.cards]
    reading = group_table(cards, table.size)
    seat = seat_of(reading, twice)
    assert seat.warnings == [f"seat {seat.number}: {twice} seen twice in this seat: one of "
                             "them is misread; correct it"]


def test_seat_cut_off_by_the_edge() -> None:
    table = build_table(EVEN[4], seed=15, margin=0.0)
    reading = group_table(table.cards, table.size)
    # With no margin, every seat's outermost cards touch the frame.
    edges = {s.number: s.warnings for s in reading.seats}
    bottom = reading.seats[0]
    assert any("bottom edge" in w for w in bottom.warnings), edges
    assert all(any("may be cut off" in w for w in ws) for ws in edges.values())
    assert not reading.ready
    # Cut at the photo's top: only the top seat runs off.
    table = build_table(EVEN[4], seed=15)
    top_seat = min(group_table(table.cards, table.size).seats, key=lambda s: s.center[1])
    cut = min(c.box[1] for c in top_seat.cards) + 5
    kept = [CardReading(c.card, c.confidence, (c.box[0], max(c.box[1] - cut, 0.0),
                                               c.box[2], c.box[3] - cut), c.corners)
            for c in table.cards if c.box[3] - cut > 0]
    size = (table.size[0], int(table.size[1] - cut))
    reading = group_table(kept, size)
    flagged = [s for s in reading.seats if s.warnings]
    assert len(flagged) == 1
    assert flagged[0].number == 3
    assert flagged[0].warnings == ["seat 3: cards at the photo's top edge: the seat may be cut "
                                   "off; retake the photo with the whole table in view"]


def test_cards_not_in_rows() -> None:
    # One seat's 13 cards laid as a grid of four rows of 4, 4, 4 and 1 instead.
    table = build_table(EVEN[2], seed=16, lone=0.0)
    gridded = {c for row in table.seats[1].values() for c in row}
    top = [c for c in table.cards if c.card in gridded]
    cx = float(np.mean([c.center[0] for c in top]))
    cy = float(np.mean([c.center[1] for c in top]))
    cards = [c for c in table.cards if c.card not in gridded]
    for k, card in enumerate(sorted(gridded)):
        row, column = divmod(k, 4)
        x, y = cx + (column - 1.5) * 1.2 * CARD_PX, cy + (row - 1.5) * 1.0 * CARD_PX
        cards.append(CardReading(card, 0.9, (x - 20, y - 25, x + 20, y + 25), 2))
    reading = group_table(cards, table.size)
    seat = seat_of(reading, next(iter(gridded)))
    assert seat.rows is None
    assert seat.warnings == [f"seat {seat.number}: the cards do not lie in three rows of 3, "
                             "5 and 5: straighten the rows, or correct them by hand"]
    assert len(seat.cards) == 13
    assert reading.seats[0].rows is not None  # the other seat is read


def test_rows_laid_close_line_up_by_the_corners_seen() -> None:
    # Rows overlapping (0.98 card heights apart) with 70 % of the cards read from one corner:
    # a card seen in two corners sits at its centre, half a card off the corners its row
    # shows, and can land in the wrong row. Standing it at the corner that lines up with
    # its row reads the rows right far more often, and rarely wrong without a warning.
    import dataclasses

    def rows_read(strip: bool) -> tuple[int, int]:
        right = wrong = 0
        for seed in range(40):
            table = build_table(EVEN[4], seed=seed, lone=0.7, dy=ASPECT * 0.7)
            cards = [dataclasses.replace(c, corner_points=()) if strip else c
                     for c in table.cards]
            reading = group_table(cards, table.size)
            want = [table.seats[i] for i in expected_order(EVEN[4])]
            for seat, rows in zip(reading.seats, want, strict=True):
                if seat.rows is None:
                    continue
                got = {r: set(c) for r, c in seat.rows.to_dict().items()}
                if got == {r: set(c) for r, c in rows.items()}:
                    right += 1
                else:
                    wrong += 1
        return right, wrong

    by_centres, by_corners = rows_read(strip=True), rows_read(strip=False)
    assert by_corners[0] >= 150 and by_corners[0] > by_centres[0]  # of 160 seats
    assert by_corners[1] <= 2 and by_corners[1] < by_centres[1]


def test_front_row_laid_farthest_from_the_centre() -> None:
    table = build_table(EVEN[2], seed=17, lone=0.0)
    reading = group_table(table.cards, table.size)
    bottom = reading.seats[0]
    assert bottom.rows is not None
    # Mirror the bottom seat's rows about its middle row: the row of 3 now lies outermost.
    middle_y = float(np.mean([c.center[1] for c in bottom.rows.middle]))
    names = set(bottom.card_names)
    mirrored = [CardReading(c.card, c.confidence,
                            (c.box[0], 2 * middle_y - c.box[3], c.box[2], 2 * middle_y - c.box[1]),
                            c.corners) if c.card in names else c for c in table.cards]
    reading = group_table(mirrored, table.size)
    seat = reading.seats[0]
    assert seat.rows is not None
    assert set(seat.rows.to_dict()["front"]) == set(table.seats[0]["front"])
    assert seat.warnings == ["seat 1: the row of 3 lies farthest from the table's centre, "
                             "where the back row goes: check which row is which"]


def test_too_few_cards() -> None:
    reading = group_table([], (4032, 3024))
    assert reading.seats == []
    assert reading.warnings and "found 0 cards" in reading.warnings[0]
    assert not reading.ready


def test_to_dict_matches_the_issue() -> None:
    table = build_table(EVEN[2], seed=18)
    data = group_table(table.cards, table.size).to_dict()
    assert set(data) == {"seats", "warnings"}
    seat = data["seats"][0]
    assert set(seat) == {"seat", "cards", "rows", "warnings"}
    assert seat["seat"] == 1 and len(seat["cards"]) == 13
    assert {k: len(v) for k, v in seat["rows"].items()} == {"front": 3, "middle": 5, "back": 5}


def _lone(card: CardReading, confidence: float = 0.6) -> CardReading:
    """``card`` as a doubtful reading: one corner index, read unsure."""
    x1, y1, x2, y2 = card.box
    side = min(x2 - x1, y2 - y1, 0.35 * CARD_PX)
    return CardReading(card.card, confidence, (x1, y1, x1 + side, y1 + side), 1)


def test_short_seat_takes_its_doubtful_cards() -> None:
    table = build_table(EVEN[3], seed=21)
    missing = [table.seats[1]["middle"][2], table.seats[1]["back"][4]]
    kept = [c for c in table.cards if c.card not in missing]
    doubtful = [_lone(c) for c in table.cards if c.card in missing]
    # A doubtful reading of a card a seat already holds is a misread second corner.
    held = next(c for c in kept if c.card == table.seats[1]["front"][0])
    doubtful.append(_lone(held, 0.8))
    reading = group_table(kept, table.size, doubtful=doubtful)
    assert reading.ready
    seat = seat_of(reading, missing[0])
    assert seat.rows is not None and sorted(seat.unsure) == sorted(missing)
    assert all(s.unsure == [] for s in reading.seats if s is not seat)
    assert {r: set(c) for r, c in seat.rows.to_dict().items()} == \
        {r: set(c) for r, c in table.seats[1].items()}


def test_doubtful_cards_never_fill_a_full_seat_or_a_far_one() -> None:
    table = build_table(EVEN[2], seed=22)
    unused = [c for c in CARD_NAMES if c not in {r.card for r in table.cards}]
    near = next(c for c in table.cards if c.card == table.seats[0]["back"][4])
    x1, y1 = near.box[:2]
    beside_full = CardReading(unused[0], 0.8, (x1 + 20, y1 + 20, x1 + 35, y1 + 40), 1)
    reading = group_table(table.cards, table.size, doubtful=[beside_full])
    assert reading.ready and all(len(s.cards) == 13 for s in reading.seats)
    # A seat short of a card does not take a doubtful one lying far from its cards.
    missing = table.seats[0]["front"][1]
    kept = [c for c in table.cards if c.card != missing]
    far = CardReading(missing, 0.8, (0.0, 0.0, 15.0, 20.0), 1)
    short = seat_of(group_table(kept, table.size, doubtful=[far]), table.seats[0]["back"][0])
    assert len(short.cards) == 12 and short.rows is None


def test_of_two_unsure_corners_the_seat_takes_the_one_that_completes_its_rows() -> None:
    # The right card, unsure (0.6), lies in its row; a misread corner more sure of itself
    # (0.8) lies between the front and middle rows: the seat takes the one in the row.
    table = build_table(EVEN[2], seed=24)
    missing = table.seats[0]["middle"][2]
    kept = [c for c in table.cards if c.card != missing]
    by_name = {c.card: c for c in table.cards}
    right = _lone(by_name[missing])
    (fx, fy), (mx, my) = (by_name[table.seats[0]["front"][1]].center,
                          by_name[table.seats[0]["middle"][3]].center)
    unused = next(c for c in CARD_NAMES if c not in by_name)
    half = right.box[2] - right.box[0]
    gx, gy = (fx + mx) / 2, (fy + my) / 2
    between = CardReading(unused, 0.8, (gx - half / 2, gy - half / 2, gx + half / 2,
                                        gy + half / 2), 1)
    reading = group_table(kept, table.size, doubtful=[between, right])
    seat = seat_of(reading, missing)
    assert seat.unsure == [missing] and seat.rows is not None and reading.ready
    assert unused not in {c for s in reading.seats for c in s.card_names}


def _phantom_between_rows(table: Constructed, seat: int, name: str,
                          confidence: float, corners: int = 1) -> CardReading:
    """A card named ``name`` between a seat's front and middle rows, read from ``corners``
    boxes, as a pip read as an index lands among its seat's cards."""
    by_name = {c.card: c for c in table.cards}
    (fx, fy), (mx, my) = (by_name[table.seats[seat]["front"][1]].center,
                          by_name[table.seats[seat]["middle"][3]].center)
    gx, gy, half = (fx + mx) / 2, (fy + my) / 2, 0.08 * CARD_PX
    return CardReading(name, confidence, (gx - half, gy - half, gx + half, gy + half),
                       corners)


def test_a_seat_sets_aside_a_lone_corner_too_many() -> None:
    # A pip named as a card, seen in one corner and sure enough to count (0.85), makes a
    # seat 14: the seat keeps the 13 that lie in clean rows and sets the stray aside.
    table = build_table(EVEN[2], seed=25)
    unused = next(c for c in CARD_NAMES if c not in {r.card for r in table.cards})
    stray = _phantom_between_rows(table, 0, unused, 0.85)
    reading = group_table([*table.cards, stray], table.size)
    seat = seat_of(reading, table.seats[0]["back"][0])
    assert [c.card for c in seat.set_aside] == [unused] and len(seat.cards) == 13
    assert seat.rows is not None
    assert {r: set(c) for r, c in seat.rows.to_dict().items()} == \
        {r: set(c) for r, c in table.seats[0].items()}
    assert all(s.set_aside == [] and not s.warnings for s in reading.seats if s is not seat)
    # Which corner is the stray is a guess: the settlement waits for the players' check.
    assert seat.warnings == [f"seat {seat.number}: {unused}, seen in one corner, was set "
                             "aside as a card too many: check it"]
    assert not reading.ready
    assert "set_aside" not in seat.to_dict()  # the JSON of `cpoker table` is as issue 15 says


def test_a_seat_sets_aside_a_card_too_many_read_unsurely_in_two_corners() -> None:
    # Two boxes on one card's pips, both misread as one name at 0.55, make a "card" seen
    # in two corners: named so unsurely, it may be the seat's stray as a lone corner may.
    table = build_table(EVEN[2], seed=25, lone=0.0)
    unused = next(c for c in CARD_NAMES if c not in {r.card for r in table.cards})
    seat = seat_of(group_table([*table.cards, _phantom_between_rows(table, 0, unused, 0.55, 2)],
                               table.size), table.seats[0]["back"][0])
    assert [c.card for c in seat.set_aside] == [unused] and seat.rows is not None
    assert {r: set(c) for r, c in seat.rows.to_dict().items()} == \
        {r: set(c) for r, c in table.seats[0].items()}
    assert seat.warnings == [f"seat {seat.number}: {unused}, read in 2 corners at only 0.55, "
                             "was set aside as a card too many: check it"]
    # At WEAK_PAIR_CONF and above, two corners count as a card: the seat keeps 14.
    sure = _phantom_between_rows(table, 0, unused, WEAK_PAIR_CONF, 2)
    seat = seat_of(group_table([*table.cards, sure], table.size), unused)
    assert seat.set_aside == [] and len(seat.cards) == 14


def test_a_jumbo_index_seat_sets_aside_its_stray_by_its_cards_placed_half_a_card_off(
        ) -> None:
    # A rendered table of a jumbo-index deck as the reader read it (the file says how):
    # the 10 of diamonds' upper index, half under the next row, read as 5d at 0.88, makes
    # the seat 14. Its 13 true cards, most seen in one corner, lie in clean rows only with
    # their corners placed where their cards' centres are; at their corners they did not,
    # and the seat kept all 14 (session 44).
    record = json.loads((Path(__file__).parent / "data" / "tables" /
                         "jumbo-reading-seed15-3.json").read_text())

    def reading(c: dict) -> CardReading:
        return CardReading(c["card"], c["confidence"], tuple(c["box"]), c["corners"],
                           tuple(tuple(p) for p in c["points"]))

    table = group_table([reading(c) for c in record["cards"]], tuple(record["size"]),
                        doubtful=[reading(c) for c in record["doubtful"]])
    seat = seat_of(table, "Td")
    assert [c.card for c in seat.set_aside] == ["5d"] and seat.rows is not None
    truth = next(rows for rows in record["truth"] if "Td" in rows["front"])
    assert {r: set(c) for r, c in seat.rows.to_dict().items()} == \
        {r: set(c) for r, c in truth.items()}
    assert seat.warnings == [f"seat {seat.number}: 5d, seen in one corner, was set aside as "
                             "a card too many: check it"]


def test_a_seat_keeps_a_card_too_many_it_cannot_tell_from_the_rest() -> None:
    # Seen in both corners, the 14th card is as real as the others: the seat keeps all
    # 14 and says so.
    table = build_table(EVEN[2], seed=26, lone=0.0)
    unused = next(c for c in CARD_NAMES if c not in {r.card for r in table.cards})
    reading = group_table([*table.cards, _phantom_between_rows(table, 0, unused, 0.95, 2)],
                          table.size)
    seat = seat_of(reading, unused)
    assert seat.set_aside == [] and len(seat.cards) == 14 and not reading.ready
    assert seat.warnings[0].endswith("14 cards, a hand has 13: remove the extra card or "
                                     "retake the photo")
    # Seen in one corner, but the 13 left do not lie in rows (a seat of scattered cards,
    # every one seen in one corner): nothing is set aside.
    scattered = build_table(EVEN[2], seed=27, lone=1.0)
    rng = np.random.default_rng(0)
    mine = {card for row in scattered.seats[0].values() for card in row}

    def shaken(card: CardReading) -> CardReading:
        dx, dy = rng.normal(0, 0.5 * CARD_PX, 2)
        x1, y1, x2, y2 = card.box
        return CardReading(card.card, card.confidence, (x1 + dx, y1 + dy, x2 + dx, y2 + dy), 1)

    moved = [shaken(c) if c.card in mine else c for c in scattered.cards]
    spare = next(c for c in CARD_NAMES if c not in {r.card for r in scattered.cards})
    stray = _phantom_between_rows(scattered, 0, spare, 0.95)
    seat = seat_of(group_table([*moved, stray], scattered.size), spare)
    assert seat.rows is None or seat.set_aside == []
    # Three strays: more than MAX_FILLED too many, nothing is set aside.
    spare = [c for c in CARD_NAMES if c not in {r.card for r in table.cards}][:3]
    strays = [_phantom_between_rows(table, 0, name, 0.95) for name in spare]
    seat = seat_of(group_table([*table.cards, *strays], table.size), spare[0])
    assert seat.set_aside == [] and len(seat.cards) == 16


def test_a_card_set_aside_is_drawn_crossed_out() -> None:
    from vision.draw import annotate_table

    table = build_table(EVEN[2], seed=25)
    unused = next(c for c in CARD_NAMES if c not in {r.card for r in table.cards})
    stray = _phantom_between_rows(table, 0, unused, 0.85)
    image = np.full((table.size[1], table.size[0], 3), 255, np.uint8)
    reading = group_table([*table.cards, stray], table.size)
    marked = np.asarray(annotate_table(image, reading))
    for seat in reading.seats:
        seat.set_aside = []
    plain = np.asarray(annotate_table(image, reading))
    x1, y1, x2, y2 = (int(v) for v in stray.box)
    cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
    assert (marked[cy - 1:cy + 2, cx - 1:cx + 2] != plain[cy - 1:cy + 2, cx - 1:cx + 2]).any()


def test_seat_short_of_three_cards_is_not_filled() -> None:
    table = build_table(EVEN[2], seed=23)
    missing = table.seats[0]["back"][:3]
    kept = [c for c in table.cards if c.card not in missing]
    doubtful = [_lone(c) for c in table.cards if c.card in missing]
    seat = seat_of(group_table(kept, table.size, doubtful=doubtful), table.seats[0]["front"][0])
    assert len(seat.cards) == 10


def test_a_card_taken_from_an_unsure_corner_is_drawn_marked() -> None:
    from vision.draw import annotate_table

    table = build_table(EVEN[2], seed=24)
    missing = table.seats[0]["middle"][0]
    kept = [c for c in table.cards if c.card != missing]
    doubtful = [_lone(c) for c in table.cards if c.card == missing]
    image = np.full((table.size[1], table.size[0], 3), 255, np.uint8)
    reading = group_table(kept, table.size, doubtful=doubtful)
    marked = np.asarray(annotate_table(image, reading))
    for seat in reading.seats:
        seat.unsure = []
    plain = np.asarray(annotate_table(image, reading))
    assert marked.shape == plain.shape == image.shape
    _, y1, x2, _ = doubtful[0].box
    beside = (slice(int(y1), int(y1) + 20), slice(int(x2) + 2, int(x2) + 40))
    assert (marked[beside] != plain[beside]).any()  # the "?" label beside the card
    assert (marked != plain).sum() == (marked[beside] != plain[beside]).sum()


def test_saved_readings_group_again_as_they_were_read(tmp_path) -> None:
    # table_report --save-readings / --regroup: a change to the grouping is measured on
    # the same readings without reading the photos again.
    from types import SimpleNamespace

    from vision.training.table_report import reading_record, regroup

    table = build_table([90, 210, 330])
    lines = []
    for cards in (table.cards, table.cards[1:]):  # whole, then one card missing
        reading = SimpleNamespace(size=table.size, cards=cards, doubtful=[])
        lines.append(json.dumps(reading_record(reading, table.seats)))
    saved = tmp_path / "readings.jsonl"
    saved.write_text("\n".join(lines) + "\n")
    result = regroup(str(saved))
    assert result["scenes"] == 2 and result["seats"] == 6
    assert result["seats_right"] == pytest.approx(5 / 6)
    assert result["tables_right"] == pytest.approx(1 / 2)
    with pytest.raises(SystemExit, match="without corners"):
        regroup(str(saved), remerge=True)


def test_saved_corners_merge_again_into_the_same_cards(tmp_path) -> None:
    # --regroup --remerge: a change to vision.reading measured on saved corners. Each card
    # saved as its two corners, at the two ends of its box.
    from types import SimpleNamespace

    from engine.cards import CARD_NAMES
    from vision.detections import Detections
    from vision.training.table_report import corners_of, reading_record, regroup

    table = build_table([90, 210, 330])
    boxes, names = [], []
    for card in table.cards:
        x1, y1, x2, y2 = card.box
        side = max(x2 - x1, y2 - y1) / 4  # the corners within one card of each other
        boxes += [[x1, y1, x1 + side, y1 + side], [x2 - side, y2 - side, x2, y2]]
        names += [CARD_NAMES.index(card.card)] * 2
    found = Detections(np.array(boxes, np.float32), np.full(len(boxes), 0.99, np.float32),
                       np.array(names, np.int64), CARD_NAMES)
    reading = SimpleNamespace(size=table.size, cards=table.cards, doubtful=[],
                              detections=found)
    record = json.loads(json.dumps(reading_record(reading, table.seats)))
    assert len(corners_of(record)) == 2 * len(table.cards)
    saved = tmp_path / "readings.jsonl"
    saved.write_text(json.dumps(record) + "\n")
    assert regroup(str(saved), remerge=True)["seats_right"] == 1.0


def test_table_report_takes_a_candidate_reader_only_with_reader(capsys) -> None:
    # --weights / --classifier name the models --reader reads with; alone they would be
    # ignored silently, so the report refuses them.
    from vision.training.table_report import main

    with pytest.raises(SystemExit) as stop:
        main(["--weights", "candidate.onnx", "--count", "1"])
    assert stop.value.code == 2
    assert "need --reader" in capsys.readouterr().err
    # So are the photo-mode settings of a candidate reader (vision.training.reader_options).
    with pytest.raises(SystemExit) as stop:
        main(["--photo-orientations", "4", "--count", "1"])
    assert stop.value.code == 2
    assert "need --reader" in capsys.readouterr().err
    # And the mode the tables are read in (session 41: photo mode against table mode).
    with pytest.raises(SystemExit) as stop:
        main(["--mode", "photo", "--count", "1"])
    assert stop.value.code == 2
    assert "need --reader" in capsys.readouterr().err


def test_table_report_keeps_rendered_scenes_and_reads_them_back(tmp_path) -> None:
    # --scenes: a candidate reader is measured on the very tables an earlier run rendered.
    from vision.training.table_report import SceneCache, TableScene

    rng = np.random.default_rng(3)
    image = rng.integers(0, 256, (30, 40, 3), dtype=np.uint8)
    scene = TableScene(image, [{"front": ["As", "Kd", "2c"], "middle": [], "back": []}],
                       {"As": (1.0, 2.0, 5.5, 9.0)}, {"As": 2},
                       [("As", (1.0, 2.0, 3.0, 4.0))], "deck", "felt", 85)
    cache = SceneCache(tmp_path, seed=5, count=2, frame=(40, 30))
    assert not cache.complete
    cache.save(0, scene)
    assert not SceneCache(tmp_path, seed=5, count=2, frame=(40, 30)).complete
    cache.save(1, scene)
    again = SceneCache(tmp_path, seed=5, count=2, frame=(40, 30))
    assert again.complete and not SceneCache(tmp_path, seed=6, count=2, frame=(40, 30)).complete
    # Tables drawn with other decks (--decks) are other scenes.
    assert not SceneCache(tmp_path, seed=5, count=2, frame=(40, 30), decks=["kde-standard"]
                          ).complete
    loaded = again.load(1)
    assert np.array_equal(loaded.image, image)
    assert loaded.seats == scene.seats and loaded.boxes == scene.boxes
    assert loaded.corners == scene.corners and loaded.indices == scene.indices
    assert (loaded.deck, loaded.background, loaded.jpeg_quality) == ("deck", "felt", 85)


def test_table_scenes_cached_by_an_older_generator_are_drawn_again(tmp_path,
                                                                   monkeypatch) -> None:
    from vision.training import table_report
    from vision.training.table_report import SceneCache, TableScene

    scene = TableScene(np.zeros((30, 40, 3), np.uint8), [], {}, {}, [], "deck", "felt", 85)
    old = SceneCache(tmp_path, seed=5, count=1, frame=(40, 30))
    old.save(0, scene)
    assert SceneCache(tmp_path, seed=5, count=1, frame=(40, 30)).complete
    monkeypatch.setattr(table_report, "SCENES_VERSION", table_report.SCENES_VERSION + 1)
    assert not SceneCache(tmp_path, seed=5, count=1, frame=(40, 30)).complete
