"""From corner detections to cards, and from cards to the three rows of a set hand.

The detector finds the rank-and-suit index in each visible corner of a card, so one card
is usually seen twice. A deck holds each card once, so detections of the same card are
merged into one reading, unless they lie too far apart to belong to one card (then the
card is reported as seen twice: a second deck, or a misread).

Rows: a set hand lies as three rows, the front row of 3 and two rows of 5. Whatever the
photo's orientation, the rows are found as the direction in which the cards fall into
three well separated bands of 3, 5 and 5; the band of 3 is the front, the band next to it
the middle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from .detections import Detections

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class CardReading:
    card: str
    confidence: float
    box: Box  # the union of the card's corner boxes
    corners: int  # how many corner indices were seen
    # The centre of each corner seen, when more than one: a whole table's rows line up
    # the cards' visible corners (vision.table).
    corner_points: tuple[tuple[float, float], ...] = ()

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return (x1 + x2) / 2, (y1 + y2) / 2

    def to_dict(self) -> dict[str, object]:
        return {"card": self.card, "confidence": round(self.confidence, 4),
                "box": [round(v, 1) for v in self.box]}


def _union(boxes: np.ndarray) -> Box:
    return (float(boxes[:, 0].min()), float(boxes[:, 1].min()),
            float(boxes[:, 2].max()), float(boxes[:, 3].max()))


# How far apart two corner indices of one card can lie, in their own size (the longer side
# of the larger box): a card's two indices sit at the two ends of its diagonal. Measured
# (2026-11-23): the 17 rendered decks' diagonals are 3.3 to 8.8 index sizes; in
# real-decks-dev's photos two corners of one card lie at most 6.1 index sizes apart. The
# old rule, 12 times the median box *height*, split cards whose indices lie on their side
# (a wide, low box), up to 16.5 heights apart on the black deck.
CARD_DIAGONAL_PER_INDEX = 9.0
# The photo's own cards say how large a card is there: the corners of a card seen in both
# (one name, two sure corners within the bound above) lie one diagonal apart. With at
# least ``MIN_MEASURED_CARDS`` such cards, two corners are one card when they lie within
# ``DIAGONAL_SLACK`` times the cards' median diagonal (in index sizes), never more than
# the bound above. The slack covers an index turned on the card (its box grows by up to
# a third) and a phone's perspective. Why: a misread corner one card away from a real one
# of that name merged with it, and the card's box, stretched over two cards, broke the
# rows of a table (session 10, rendered tables: 2 of 12 lost seats).
MIN_MEASURED_CARDS = 3
# No card's two corners lie closer than this, in index sizes (the 17 rendered decks: 3.3
# and up): two boxes of one name nearer than that are one index boxed twice, which says
# nothing of the card's size.
MIN_DIAGONAL_PER_INDEX = 2.5
DIAGONAL_SLACK = 1.5
SURE_CORNER = 0.9
# Corners of one name at most this many index sizes apart are one index (boxed twice);
# beyond it and nearer than this share of the photo's measured diagonal they lie on two
# neighbouring cards (``_one_card_apart``).
SAME_INDEX = 1.0
NEIGHBOUR_SHARE = 0.6
# Two boxes of which the smaller lies this much inside the larger are one index boxed
# twice (or a pip boxed inside an index), read under two names at times: the most
# confident stays (``fold_nested``). Measured (session 10, each photo detected once,
# merged both ways): real-photos-dev held out 0.985 / 0.977 / 87.5 % -> 0.993 / 0.977 /
# 90.7 %, real-decks-dev held out 0.959 / 0.803 / 76.5 % -> 0.963 / 0.803 / 77.0 %,
# eval-1280 recall 0.9236 -> 0.9227, eval-table unchanged, table seats 136 of 154 either
# way. Naming the kept box from the members' mean probabilities instead lost cards (a
# sure lone corner fell under the lone bar): real-decks-dev recall 0.783. Session 13: 0.85 ->
# 0.5, as photo mode read at 32-pixel indices finds an index boxed twice shifted (the rank
# alone, and rank and suit: 54 % of the smaller inside the larger, 8c/8s of a committed
# table): real-photos-dev held out 0.9945 / 0.9818 / 92.3 % -> 0.9954 / 0.9818 / 92.7 %,
# real-decks-dev held out 0.9600 / 0.8276 -> 0.9639 / 0.8276, eval-1280 precision 0.9953 ->
# 0.9963, eval-4032 0.9982 -> 1.000, eval-table and table seats unchanged.
NESTED_SHARE = 0.5
# A card whose name another card of the photo also reads takes its next likeliest name
# when the classifier gives that name at least this probability (see ``read_cards``).
MIN_ALTERNATIVE = 0.15
# A card seen in three of its corners shows where its fourth lies (the three make a right
# angle); a lone corner of another name within this many index sizes of that spot is the
# fourth corner misread (glare on a 6h's corner read Jh at 0.94, session 25), not a card.
FOURTH_CORNER_REACH = 0.75
MAX_RIGHT_ANGLE_COSINE = 0.3  # about 73 to 107 degrees: a phone's perspective skews it


@dataclass
class MergedCorners:
    """``read_cards``' whole answer: the cards read, the doubtful ones left out (seen in
    one corner below ``min_lone_confidence``, most confident first), and the warnings.
    ``offers``: each doubtful card offered to a hand read short, with the "maybe" warning
    (among ``warnings``) that offers it, so that a step that counts the card after all
    drops that warning without reading its text."""

    cards: list[CardReading]
    doubtful: list[CardReading]
    warnings: list[str]
    offers: dict[str, str] = field(default_factory=dict)


def read_cards(detections: Detections, max_card_span: float | None = None,
               min_lone_confidence: float = 0.0, expect: int | None = None,
               min_alternative: float = MIN_ALTERNATIVE,
               ) -> tuple[list[CardReading], list[str]]:
    """The cards and warnings of :func:`merge_corners`."""
    merged = merge_corners(detections, max_card_span, min_lone_confidence, expect,
                           min_alternative)
    return merged.cards, merged.warnings


def merge_corners(detections: Detections, max_card_span: float | None = None,
                  min_lone_confidence: float = 0.0, expect: int | None = None,
                  min_alternative: float = MIN_ALTERNATIVE,
                  drop_lone_duplicates: bool = True) -> MergedCorners:
    """Merge the corners of each card; returns the cards, the doubtful ones and warnings.

    Two corners that name the same card are one card when they lie within one card's
    diagonal of each other, judged from their own size (the photo's measured diagonal,
    ``_measured_diagonal`` and ``DIAGONAL_SLACK``, times the larger box's longer side; two
    corners of one name much nearer than that lie on neighbouring cards), or within
    ``max_card_span`` pixels when given. A card seen in one corner only is kept when that
    corner's confidence reaches ``min_lone_confidence``, and, with
    ``drop_lone_duplicates``, when no card seen in two or more corners carries its name
    (then the lone corner is the misread one: a deck holds each card once). Measured on 40
    rendered tables (session 10, saved corners, ``table_report --regroup --remerge``): the
    measured diagonal, the neighbours split and the dropped duplicates took seats read
    right from 88 to 93 of 106 (seeds 15 and 16; the seat filling of ``vision.table`` one
    more); the 13-card sets and the real photos read the same cards. Boxes nested in one
    another are first folded into one corner (``fold_nested``).

    A deck holds each card once, so when the detections carry the classifier's 52-way
    probabilities the photo's names are decoded together: when two cards read the same
    name, the one less likely to carry it (its corners' joint probability) takes its next
    likeliest name that no other card holds, if that name has at least ``min_alternative``
    of its probability; otherwise both stay and a warning says the card was seen twice.

    ``expect``: how many cards the photo should hold (a hand: 13). When more are read, the
    least sure of the cards seen in one corner are set aside as cards too many (into the
    doubtful ones), as many as are too many, each with a warning. When fewer are read,
    the doubtful cards left out (one corner, below ``min_lone_confidence``) that name a
    card not read yet are offered in a warning, most confident first, as many as are
    missing: the user checks the photo and adds the card in a moment. They are not read
    as cards: filling the count with them (most confident first, from 0.3, 0.5, 0.6 or 0.7
    up) was tried on rendered val (held-out decks, the 133 spread and rows scenes of
    ``v1``) and cost 1.3 to 3.4 points of precision for 1.0 to 3.1 points of recall.

    (Dropping a lone corner that lies inside a card seen in two or more corners, as a
    likely misread of that card, was measured and left out: on the real photos' tune shots
    it traded 1.0 point of recall for 0.5 of precision, and on rendered spreads it lost 2.4
    points of recall, because there the top card of a pile covers other cards' corners.)
    A narrower rule is kept: a lone corner that lies where a card seen surely in three
    corners has its fourth (``_missing_fourth_corners``) is that corner misread, and left
    out. Measured (session 25): with the shipped classifiers no photo of the tune or
    held-out sets changes; with GPU run j as the photo classifier it leaves out the one
    wrong card of two held-out real photos (glare on a 6h's corner read Jh at 0.94).
    """
    detections = fold_nested(detections)
    names = detections.class_id.copy()
    linked = _one_card_apart(detections, max_card_span)
    groups = _cards_by_name(names, linked)
    if detections.class_probabilities is not None:
        names, groups = _decode_jointly(detections, names, groups, linked, min_alternative)
    readings: list[CardReading] = []
    doubtful: list[CardReading] = []
    held_surely = {class_id for class_id, members in groups
                   if _two_corners(detections, members)}
    fourth_corners = _missing_fourth_corners(detections, groups)
    for class_id, members in groups:
        index = np.array(members)
        confidence = float(_sureness(detections, index, class_id).max())
        boxes = detections.xyxy[index]
        points = tuple((float(x1 + x2) / 2, float(y1 + y2) / 2) for x1, y1, x2, y2 in boxes) \
            if len(members) > 1 else ()
        reading = CardReading(detections.names[class_id], confidence, _union(boxes),
                              len(members), points)
        if len(members) == 1 and (reading.confidence < min_lone_confidence or (
                drop_lone_duplicates and class_id in held_surely) or _at_a_fourth_corner(
                detections, members[0], fourth_corners)):
            doubtful.append(reading)
        else:
            readings.append(reading)
    set_aside: list[CardReading] = []
    if expect is not None and len(readings) > expect:
        # A hand of ``expect`` cards read with more: the least sure cards seen in one corner
        # alone are the strays (a pip or court art named surely, a neighbour's index read
        # twice), as a table's seat judges them (vision.table). Measured (session 43,
        # models/README.md): 12 photos more right over the rendered and real-deck sets, and
        # two true cards set aside, each in a photo already wrong.
        lone = sorted((r for r in readings if r.corners == 1), key=lambda r: r.confidence)
        set_aside = lone[:len(readings) - expect]
        readings = [r for r in readings if all(r is not aside for aside in set_aside)]
        doubtful.extend(set_aside)
    counts = Counter(r.card for r in readings)
    warnings = [f"{name} seen {count} times: remove the duplicate card or correct the reading"
                for name, count in sorted(counts.items()) if count > 1]
    warnings += [f"{card.card}, seen in one corner, was set aside as a card too many: check "
                  "it" for card in set_aside]
    offers: dict[str, str] = {}
    if expect is not None and len(readings) < expect:
        for maybe in sorted(doubtful, key=lambda r: -r.confidence):
            if len(offers) == expect - len(readings):
                break
            if maybe.card not in counts and maybe.card not in offers:
                x, y = maybe.center
                offers[maybe.card] = (
                    f"maybe {maybe.card}: one corner near ({x:.0f}, {y:.0f}) reads "
                    f"{maybe.card} at {maybe.confidence:.2f}, too unsure to count; check it "
                    "and add the card if it is there")
                warnings.append(offers[maybe.card])
    readings.sort(key=lambda r: -r.confidence)
    doubtful.sort(key=lambda r: -r.confidence)
    return MergedCorners(readings, doubtful, warnings, offers)


# A card's face read between its two corners (``face_pairs``, ``named_by_faces``): the two
# indices of one card are boxed alike, within this ratio of sizes, and lie the same way
# (a box this much wider than high lies on its side; one as much higher stands).
FACE_SIZE_RATIO = 1.35
FACE_ASPECT = 1.25


def face_pairs(detections: Detections, taken: np.ndarray | None = None,
               most: int | None = None, diagonal: float | None = None
               ) -> list[tuple[int, int]]:
    """The pairs of corners (i < j) that may be one card's two indices, its face between
    them: a card's diagonal apart (``MIN_DIAGONAL_PER_INDEX`` to
    ``CARD_DIAGONAL_PER_INDEX`` index sizes), boxed alike (``FACE_SIZE_RATIO``) and not
    one lying where the other stands (``FACE_ASPECT``). ``taken`` (N,): corners already
    part of a card, left out. ``most``: of more pairs, only the ``most`` whose corners
    agree best on a name (their joint probability of it), when the detections carry
    their names' probabilities: a photo of many stray boxes pairs hundreds.
    ``diagonal``: the photo's card diagonal in index sizes (``measured_diagonal``), when
    its cards measure one: two corners are then a card apart only within
    ``DIAGONAL_SLACK`` of it, as ``merge_corners`` links them, so that a pair named one
    card is counted as one card, not as the same card twice."""
    n = len(detections)
    if n < 2:
        return []
    sizes = detections.longer_sides.astype(np.float64)
    larger = np.maximum(sizes[:, None], sizes[None, :])
    smaller = np.minimum(sizes[:, None], sizes[None, :])
    apart = pairwise_distances(detections.centers.astype(np.float64)) / np.maximum(larger, 1e-6)
    width = (detections.xyxy[:, 2] - detections.xyxy[:, 0]).astype(np.float64)
    height = (detections.xyxy[:, 3] - detections.xyxy[:, 1]).astype(np.float64)
    lying, standing = width >= FACE_ASPECT * height, height >= FACE_ASPECT * width
    crossed = (lying[:, None] & standing[None, :]) | (standing[:, None] & lying[None, :])
    fits = (apart >= MIN_DIAGONAL_PER_INDEX) & (apart <= card_reach(diagonal)) & \
        (larger <= FACE_SIZE_RATIO * smaller) & ~crossed
    if taken is not None:
        fits &= ~taken[:, None] & ~taken[None, :]
    first, second = np.nonzero(np.triu(fits, 1))
    if most is not None and len(first) > most and detections.class_probabilities is not None:
        log_p = np.log(np.clip(detections.class_probabilities.astype(np.float64), 1e-6, 1.0))
        agree = (log_p[first] + log_p[second]).max(axis=1)
        keep = np.argsort(-agree, kind="stable")[:most]
        first, second = first[keep], second[keep]
    return [(int(i), int(j)) for i, j in zip(first, second, strict=True)]


def named_by_faces(detections: Detections, pairs: list[tuple[int, int]], faces: np.ndarray,
                   weight: float, sure: float, rank_share: float, top: int = 2,
                   held: Collection[int] = (), agree: bool = False) -> Detections:
    """The corners of ``pairs`` (``face_pairs``) that their card's face names together
    with them: each pair's two corners' names and its face's (``faces``, (P, 52)
    probabilities in ``detections.names``' order, raised to ``weight``) are joined, and a
    pair is one card of the likeliest joint name when that name has at least ``sure`` of
    the joint probability, its rank at least ``rank_share`` of the face's (the face reads
    the rank, its pips or court figure, where a blurred index is lost) and it is one of
    the ``top`` likeliest names of one of its corners (the index reads the suit, which a
    face's small pips confuse). Surest pairs first, each corner in one pair at most, and
    each name once: a deck holds each card once, so a pair never takes a name in ``held``
    (the class ids the reading already counts) or one an earlier pair took; it takes its
    likeliest other name, if that one clears the bars. ``agree``: and each corner's own
    likeliest name shares the pair's rank or its colour (an index, blurred or half
    covered, still shows one of them: a webcam's 2♦ read 5♥; a pip of another card or
    court art boxed as a corner may show neither). Both corners come back named so (the
    joint probabilities), the rest left out."""
    if not pairs or detections.class_probabilities is None:
        return detections[np.zeros(len(detections), bool)]
    probabilities = detections.class_probabilities.astype(np.float64)
    log_p = _log_clipped(probabilities)
    joint, face_ranks = _joined_with_faces(
        log_p[[i for i, _ in pairs]] + log_p[[j for _, j in pairs]], faces, weight)
    used: set[int] = set()
    named: set[int] = set(held)
    chosen: list[int] = []
    renamed: list[np.ndarray] = []
    for k in np.argsort(-joint.max(axis=1), kind="stable"):
        i, j = pairs[int(k)]
        free = joint[k].copy()
        free[list(named)] = -1.0
        name = int(free.argmax())
        # The bars read the name's share of the whole joint reading, taken names included.
        if joint[k, name] < sure or face_ranks[k, name // 4] < rank_share or \
                i in used or j in used:
            continue
        if name not in np.argsort(-probabilities[i])[:top] and \
                name not in np.argsort(-probabilities[j])[:top]:
            continue
        if agree and not all(_shares_rank_or_colour(int(probabilities[c].argmax()), name)
                             for c in (i, j)):
            continue
        used |= {i, j}
        named.add(name)
        chosen += [i, j]
        renamed += [joint[k], joint[k]]
    return _renamed(detections, chosen, renamed)


RED_SUITS = (1, 2)  # a class id's suit (its remainder by 4, ``CARD_NAMES``' order s h d c)


def _shares_rank_or_colour(card: int, other: int) -> bool:
    """Whether two class ids (``CARD_NAMES``' order: four suits a rank) name one rank or
    suits of one colour."""
    return card // 4 == other // 4 or (card % 4 in RED_SUITS) == (other % 4 in RED_SUITS)


def named_by_lone_faces(detections: Detections, lone: Sequence[int], faces: np.ndarray,
                        weight: float, sure: float, rank_share: float,
                        held: Collection[int] = ()) -> Detections:
    """The ``lone`` corners (indices into ``detections``) that their card's face names
    together with them, surest first: a corner whose partner index is not boxed, with the
    face of the card its outline places (``faces``, (L, 52) probabilities in
    ``detections.names``' order, raised to ``weight``), is one card of the likeliest joint
    name when that name has at least ``sure`` of the joint probability and its rank at
    least ``rank_share`` of the face's. Unlike a pair's (``named_by_faces``), the name
    need not be one of the corner's likeliest: the face is the card's own, found by its
    outline, and a lone corner is most often lost to a blurred rank the face reads. Each
    name once and none in ``held``, as ``named_by_faces`` gives them; each corner comes
    back named by the joint probabilities, the rest left out."""
    if len(lone) == 0 or detections.class_probabilities is None:
        return detections[np.zeros(len(detections), bool)]
    joint, face_ranks = _joined_with_faces(
        _log_clipped(detections.class_probabilities[list(lone)].astype(np.float64)), faces,
        weight)
    named: set[int] = set(held)
    chosen: list[int] = []
    renamed: list[np.ndarray] = []
    for k in np.argsort(-joint.max(axis=1), kind="stable"):
        free = joint[k].copy()
        free[list(named)] = -1.0
        name = int(free.argmax())
        if joint[k, name] < sure or face_ranks[k, name // 4] < rank_share:
            continue
        named.add(name)
        chosen.append(int(lone[int(k)]))
        renamed.append(joint[k])
    return _renamed(detections, chosen, renamed)


def _log_clipped(probabilities: np.ndarray) -> np.ndarray:
    """Log-probabilities, with a floor of 1e-6 so no reading vetoes a name outright."""
    return np.log(np.clip(probabilities, 1e-6, 1.0))


def _joined_with_faces(log_corners: np.ndarray, faces: np.ndarray, weight: float
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The corners' summed log-probabilities (K, 52) joined with their faces' readings
    (K, 52 probabilities, raised to ``weight``) -> (the joint probabilities (K, 52), the
    faces' rank probabilities (K, 13)): names are rank-major, four suits a rank."""
    faces = np.asarray(faces, np.float64)
    joint = log_corners + weight * _log_clipped(faces)
    joint = np.exp(joint - joint.max(axis=1, keepdims=True))
    joint /= joint.sum(axis=1, keepdims=True)
    return joint, faces.reshape(len(faces), -1, 4).sum(axis=2)


def _renamed(detections: Detections, chosen: list[int], names: list[np.ndarray]
             ) -> Detections:
    """The ``chosen`` corners of ``detections``, each named by its row of ``names`` (52
    probabilities): the cards a face named."""
    if not chosen:
        return detections[np.zeros(len(detections), bool)]
    joint_names = np.array(names, np.float32)
    return Detections(detections.xyxy[chosen], joint_names.max(axis=1),
                      joint_names.argmax(axis=1).astype(np.int64), detections.names,
                      joint_names)


def overlap_areas(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """(N, M): the area ``boxes[i]`` and ``others[j]`` (x1 y1 x2 y2) have in common."""
    a = boxes.astype(np.float64)[:, None]
    b = others.astype(np.float64)[None]
    width = np.clip(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0,
                    None)
    height = np.clip(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0,
                     None)
    return width * height


def nested_shares(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """(N, M): how much of the smaller of ``boxes[i]`` and ``others[j]`` (x1 y1 x2 y2) lies
    inside the larger; from ``NESTED_SHARE`` on, the two are one index boxed twice."""
    a = boxes.astype(np.float64)[:, None]
    b = others.astype(np.float64)[None]
    area_a = (a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
    area_b = (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1])
    return overlap_areas(boxes, others) / np.maximum(np.minimum(area_a, area_b), 1e-6)


def fold_nested(detections: Detections, share: float = NESTED_SHARE) -> Detections:
    """One corner for each index boxed twice or more (boxes whose smaller one lies at
    least ``share`` inside the larger): the most confident box stays, with its name.

    Greedy, most confident first: a box folds into a kept box it nests with, never into
    one it only reaches through a third. Two indices side by side that a larger box
    straddles (a fan's neighbours, a box over both) are two corners, not one: folding the
    three as one cluster dropped a sure 2h beside a sure 5s (``tune-1280b`` val_000055,
    models/README.md, "Session 40")."""
    n = len(detections)
    if n < 2:
        return detections
    nested = nested_shares(detections.xyxy, detections.xyxy) >= share
    np.fill_diagonal(nested, False)
    if not nested.any():
        return detections
    kept: list[int] = []
    for i in np.argsort(-detections.confidence, kind="stable"):
        if not nested[i, kept].any():
            kept.append(int(i))
    return detections[np.sort(np.array(kept))]


Group = tuple[int, list[int]]  # a card: its name's class id, the indices of its corners


def _one_card_apart(detections: Detections, span: float | None) -> np.ndarray:
    """(N, N): whether two corners lie within one card of each other: ``span`` pixels when
    given, else the photo's card diagonal (``_measured_diagonal``) times the larger
    of the two corners' sizes. Computed once a photo; every grouping below reads it."""
    distance = pairwise_distances(detections.centers)
    if span is not None:
        return distance <= span
    sizes = detections.longer_sides
    larger = np.maximum(sizes[:, None], sizes[None, :])
    measured = _measured_diagonal(detections, distance, larger)
    if measured is None:
        return distance <= CARD_DIAGONAL_PER_INDEX * larger
    linked = distance <= card_reach(measured) * larger
    # A card's two indices lie a diagonal apart, never much nearer (unless one index was
    # boxed twice): two corners of one name nearer than that are two cards, one misread.
    between = (distance > SAME_INDEX * larger) & (distance < NEIGHBOUR_SHARE * measured * larger)
    return linked & ~between


def pairwise_distances(centers: np.ndarray) -> np.ndarray:
    """(N, N) distances between the (N, 2) points ``centers``."""
    return np.hypot(*(centers[:, None, :] - centers[None, :, :]).transpose(2, 0, 1))


def measured_diagonal(detections: Detections) -> float | None:
    """A card's diagonal in index sizes as this photo's cards show it
    (``_measured_diagonal``), or None when too few cards measure it."""
    sizes = detections.longer_sides
    return _measured_diagonal(detections, pairwise_distances(detections.centers),
                              np.maximum(sizes[:, None], sizes[None, :]))


def within_one_card(first: Detections, second: Detections, diagonal: float | None
                    ) -> np.ndarray:
    """(N,): whether corners ``first[k]`` and ``second[k]`` lie within one card of each
    other as ``merge_corners`` links two corners: ``card_reach(diagonal)`` times the larger
    box's longer side (``diagonal``: the photo's card diagonal in index sizes, or None)."""
    distance = np.hypot(*(first.centers - second.centers).astype(np.float64).T)
    larger = np.maximum(first.longer_sides, second.longer_sides).astype(np.float64)
    return distance <= card_reach(diagonal) * larger


def card_reach(diagonal: float | None) -> float:
    """How far apart, in index sizes, two corners of one card may lie: ``DIAGONAL_SLACK``
    times the photo's measured card ``diagonal``, never more than
    ``CARD_DIAGONAL_PER_INDEX`` (that bound when the photo measures none)."""
    if diagonal is None:
        return CARD_DIAGONAL_PER_INDEX
    return min(CARD_DIAGONAL_PER_INDEX, DIAGONAL_SLACK * diagonal)


def _measured_diagonal(detections: Detections, distance: np.ndarray, larger: np.ndarray
                       ) -> float | None:
    """A card's diagonal in index sizes as this photo shows it: the median over the cards
    whose two corners are both seen and sure, and lie between ``MIN_DIAGONAL_PER_INDEX``
    and ``CARD_DIAGONAL_PER_INDEX`` apart; None with fewer than ``MIN_MEASURED_CARDS``.
    ``distance`` and ``larger``: the corners' (N, N) distances and larger sizes."""
    sure = _sureness(detections, np.arange(len(detections)), detections.class_id)
    ratios = []
    for class_id in np.unique(detections.class_id):
        members = np.flatnonzero(detections.class_id == class_id)
        if len(members) != 2 or (sure[members] < SURE_CORNER).any():
            continue
        a, b = members
        ratio = float(distance[a, b] / max(float(larger[a, b]), 1e-6))
        if MIN_DIAGONAL_PER_INDEX <= ratio <= CARD_DIAGONAL_PER_INDEX:
            ratios.append(ratio)
    if len(ratios) < MIN_MEASURED_CARDS:
        return None
    return float(np.median(ratios))


def _cards_by_name(names: np.ndarray, linked: np.ndarray) -> list[Group]:
    """The corners grouped into cards: same name, within one card of each other."""
    groups: list[Group] = []
    for class_id in np.unique(names):
        chosen = np.flatnonzero(names == class_id)
        for members in _cluster(linked[np.ix_(chosen, chosen)]):
            groups.append((int(class_id), sorted(int(chosen[m]) for m in members)))
    return groups


def _decode_jointly(detections: Detections, names: np.ndarray, groups: list[Group],
                    linked: np.ndarray, min_alternative: float
                    ) -> tuple[np.ndarray, list[Group]]:
    """Rename the less likely of two cards that read the same name (``read_cards``)."""
    assert detections.class_probabilities is not None
    log_p = np.log(np.clip(detections.class_probabilities.astype(np.float64), 1e-9, 1.0))
    names = names.copy()
    for _ in range(len(groups)):  # each round renames one card; it ends when none is left
        taken = Counter(class_id for class_id, _ in groups)
        duplicated = [(class_id, members) for class_id, members in groups
                      if taken[class_id] > 1]
        renamed = False
        # The least likely holder of a shared name first.
        for class_id, members in sorted(duplicated,
                                        key=lambda g: log_p[g[1], g[0]].sum()):
            joint = log_p[members].sum(axis=0)
            posterior = np.exp(joint - joint.max())
            posterior /= posterior.sum()
            for alternative in np.argsort(-posterior):
                if posterior[alternative] < min_alternative:
                    break
                holders = [m for c, m in groups if c == alternative]
                # A name no card holds, or held by a card this one's corners lie within
                # reach of (then they are that card's other corner, and merge with it).
                if alternative != class_id and all(
                        linked[np.ix_(members, other)].any() for other in holders):
                    names[members] = alternative
                    renamed = True
                    break
            if renamed:
                break
        if not renamed:
            break
        groups = _cards_by_name(names, linked)
    return names, groups


def _two_corners(detections: Detections, members: list[int]) -> bool:
    """Whether a card's corners include two of its corners, not one index boxed twice:
    two of them lie at least ``MIN_DIAGONAL_PER_INDEX`` index sizes apart."""
    if len(members) < 2:
        return False
    size = float(detections.longer_sides[members].max())
    spread = pairwise_distances(detections.centers[members])
    return bool(spread.max() >= MIN_DIAGONAL_PER_INDEX * size)


def _sureness(detections: Detections, corners: np.ndarray,
              names: int | np.ndarray) -> np.ndarray:
    """How sure each of ``corners`` is of ``names`` (one name for all, or one a corner):
    the classifier's probability of it where the detections carry them, else the
    detector's confidence."""
    if detections.class_probabilities is None:
        return detections.confidence[corners]
    return detections.class_probabilities[corners, names]


def _missing_fourth_corners(detections: Detections, groups: list[Group]) -> np.ndarray:
    """(K, 2): where the unseen fourth corner of each card seen surely (``SURE_CORNER``)
    in exactly three corners lies (corners of one name within ``SAME_INDEX`` index sizes
    count as one), when the three make a right angle (its cosine under
    ``MAX_RIGHT_ANGLE_COSINE``) and a card's diagonal (``MIN_DIAGONAL_PER_INDEX``): the
    two ends of the longest side plus each other, less the corner between them."""
    centers = detections.centers
    spots = []
    for class_id, members in groups:
        # Only corners sure of the card's own name (a corner renamed by the joint decoding
        # joins a card it may not lie on: two rows' cards on a rendered table).
        sure = [m for m, p in zip(members, _sureness(detections, np.array(members), class_id),
                                  strict=True) if p >= SURE_CORNER]
        if len(sure) < 3:
            continue
        size = float(detections.longer_sides[sure].max())
        near = pairwise_distances(centers[sure]) <= SAME_INDEX * size
        places = [centers[[sure[i] for i in c]].mean(axis=0) for c in _cluster(near)]
        if len(places) != 3:
            continue
        a, b, c = places
        sides = [(np.hypot(*(b - c)), a, b, c), (np.hypot(*(a - c)), b, a, c),
                 (np.hypot(*(a - b)), c, a, b)]
        diagonal, vertex, end1, end2 = max(sides, key=lambda side: side[0])
        u, v = end1 - vertex, end2 - vertex
        cosine = abs(float(u @ v)) / max(float(np.hypot(*u) * np.hypot(*v)), 1e-6)
        if cosine < MAX_RIGHT_ANGLE_COSINE and diagonal >= MIN_DIAGONAL_PER_INDEX * size:
            spots.append(end1 + end2 - vertex)
    return np.array(spots, np.float64).reshape(-1, 2)


def _at_a_fourth_corner(detections: Detections, corner: int, spots: np.ndarray) -> bool:
    """Whether ``corner`` lies where a card's unseen fourth corner is
    (``_missing_fourth_corners``), within ``FOURTH_CORNER_REACH`` of its own size."""
    if not len(spots):
        return False
    distance = np.hypot(*(spots - detections.centers[corner]).T)
    return bool(distance.min() <= FOURTH_CORNER_REACH * float(detections.longer_sides[corner]))


def _cluster(linked: np.ndarray) -> list[list[int]]:
    """Single-link clusters of the points ``linked`` (N, N) joins."""
    n = len(linked)
    clusters: list[list[int]] = []
    seen = np.zeros(n, bool)
    for start in range(n):
        if seen[start]:
            continue
        stack, members = [start], []
        seen[start] = True
        while stack:
            i = stack.pop()
            members.append(i)
            for j in np.flatnonzero(linked[i] & ~seen):
                seen[j] = True
                stack.append(int(j))
        clusters.append(sorted(members))
    return clusters


# --- rows -----------------------------------------------------------------------------

ROW_SIZES = (3, 5, 5)
ROW_ORDERS = (ROW_SIZES, ROW_SIZES[::-1])  # front row first or last across the photo


@dataclass(frozen=True)
class Rows:
    front: list[CardReading]
    middle: list[CardReading]
    back: list[CardReading]

    def to_dict(self) -> dict[str, list[str]]:
        return {"front": [r.card for r in self.front], "middle": [r.card for r in self.middle],
                "back": [r.card for r in self.back]}


# A set hand's placements tried at most (``group_rows``): past this many, the cards stand
# at their centres only. 3^6: six cards seen in two corners, the rest in one.
MAX_ROW_PLACEMENTS = 729
# Where neither the centres nor those placements make rows, each card may move, one at a
# time, to another spot of its own while the rows' separation grows (``_searched_rows``):
# a card seen in two or more corners to its centre or one of them, a card seen in one to
# half or all of the photo's card diagonal either way (its centre or its other corner,
# whichever way the card lies). The best of many placements tried scores higher than a
# chance layout's first, so what the search finds counts as rows only from
# ``SEARCHED_SEPARATION``. Chosen on the tune sets (session 79, ``tune-1280b`` and
# ``tune-4032``): the four set hands read with all 13 cards right and no rows reach 9.0
# to 16.9, the 13-card spreads the shipped grouping gives no rows at most 6.3.
SEARCHED_SEPARATION = 8.0
MAX_SEARCH_ROUNDS = 6  # the tune sets' gains need at most 4 (15 ms a hand at most)
LONE_CORNER_STEPS = (0.5, 1.0)  # shares of the card's diagonal
# Where the search separates rows under ``SEARCHED_SEPARATION`` but at least
# ``min_separation``, a second placement is tried: each card seen in one corner stands half
# the photo's card diagonal from it, one way or the other (its card's centre, whichever
# end of the card the corner is), every combination at once; the cards seen in two or
# more corners at their centres. When that too separates rows by ``min_separation`` and
# cuts them into the same three rows as the search, the rows stand: two placements found
# them apart. At most this many combinations (8 cards seen in one corner).
MAX_HALF_PLACEMENTS = 256


def group_rows(cards: list[CardReading], min_separation: float = 1.5,
               search: bool = True) -> Rows | None:
    """Three rows of 3/5/5 cards, or None when the cards do not lie in three rows.

    For each direction (every 2 degrees) the cards' positions across that direction are
    sorted and cut into bands of 3-5-5 or 5-5-3; the best direction is the one where the
    gaps between bands are widest compared with the spread inside the bands. A layout is
    only taken as rows when that ratio passes ``min_separation``.

    The cards stand at their centres first. When that finds no rows, each card seen in two
    or more corners may stand at one of those corners instead, as a whole table's seats
    place them (``vision.table._row_bands``): in rows laid overlapping, most cards show
    one corner only, the next card covering the rest, and a card seen whole lines up with
    its row by its corners, not its centre. Every such placement (up to
    ``MAX_ROW_PLACEMENTS``) is judged at once, against the same ``min_separation``.
    Measured (session 58, ``tune-1280b``'s 86 set hands read with all 13 cards right):
    rows right 71 -> 82, none wrong, 4 still none; its spreads, fans and piles were given
    rows as before (36 of 103 spreads, cards dealt in grids of 5 columns; no fan or pile).
    A hand's rows took 0.09 ms at the median before and after, 2.2 ms at most.

    Still none, and ``search``: each card moves in turn to another spot of its own while
    the separation grows (``_searched_rows``), counted from ``SEARCHED_SEPARATION``. A
    card seen in one corner, the rest of it under the next card, may show the row's far
    corner (a row's lower right where its neighbours show their upper left), and a set
    of 11 cards seen in two corners has too many placements to try each.

    The search short of that bar but past ``min_separation``: the rows stand when a second
    placement, each card seen in one corner at its card's centre whichever end of the card
    that corner is (``_half_diagonal_rows``), separates them as well and cuts the same
    three rows. Measured (session 85, every hand read with its 13 cards right in
    ``tune-rows``, 300 set hands drawn for it, ``tune-1280b`` and ``tune-4032``): set hands'
    rows right 318 -> 323 of 326, none wrong; 4 spreads of 114 laid in three columns given
    rows (42 before, by their centres).
    """
    if len(cards) != 13:
        return None
    centres = np.array([c.center for c in cards], dtype=np.float64)
    found = _best_rows(centres[None])
    if found[0] < min_separation:
        placements = _row_placements(cards, centres)
        if len(placements) > 1:
            found = _best_rows(placements)
    if found[0] < min_separation and search:
        searched = _searched_rows(cards, centres, found)
        if searched[0] >= SEARCHED_SEPARATION:
            found = searched
        elif searched[0] >= min_separation:
            halves = _half_diagonal_rows(cards, centres)
            if halves is not None and halves[0] >= min_separation and \
                    _bands(halves) == _bands(searched):
                found = halves
    if found[0] < min_separation:
        return None
    front, middle, back = _bands(found)

    def row(indices: list[int]) -> list[CardReading]:
        # Within a row, left to right along the row's direction, for a stable display.
        return sorted((cards[i] for i in indices), key=lambda r: r.center)

    return Rows(row(front), row(middle), row(back))


def row_completing_card(cards: list[CardReading], doubtful: list[CardReading]
                        ) -> tuple[CardReading, Rows] | None:
    """For a set hand read one card short: the one card, of those seen in a single corner
    and not counted (``doubtful``: the "maybe" offers, and the corners photo mode's naming
    gates held back, ``vision.pipeline.held_back_cards``), with which the hand lies in
    three rows of 3, 5 and 5 (``group_rows``, by the cards' centres and corners, not
    searched), and those rows; None when no such card or more than one name fits.

    A set hand holds 13 cards in three rows, so a row one card short says where the
    missing card lies; a corner the classifier named there, however unsurely, is most
    likely that card. Measured (session 85, the five tune sets, photo mode): 3 hands more
    right (a corner named 8d, Th and 8s under the lone-corner bar in the short row) and
    a fourth hand one card nearer, no card read wrong; with the search as well, a Kd was
    read where a Ks lay."""
    held = {card.card for card in cards}
    fits: dict[str, tuple[CardReading, Rows]] = {}
    for maybe in sorted(doubtful, key=lambda card: -card.confidence):
        if maybe.card in held or maybe.corners != 1 or maybe.card in fits:
            continue
        rows = group_rows([*cards, maybe], search=False)
        if rows is not None and _beside_its_row(rows, maybe):
            fits[maybe.card] = (maybe, rows)
    return next(iter(fits.values())) if len(fits) == 1 else None


# A card completing a row lies beside the row's other cards: its nearest row-mate at most
# this many times as far as the farthest of their own nearest row-mates. Without it, an
# unsure corner a table's width away could still fall in a row's band across the rows.
BESIDE_ITS_ROW = 1.5


def _beside_its_row(rows: Rows, card: CardReading) -> bool:
    """Whether ``card`` lies beside the other cards of the row it was put in."""
    row = next(r for r in (rows.front, rows.middle, rows.back) if any(c is card for c in r))
    others = np.array([c.center for c in row if c is not card], np.float64)
    if len(others) < 2:
        return False
    gaps = pairwise_distances(others)
    np.fill_diagonal(gaps, np.inf)
    nearest = float(np.hypot(*(others - np.array(card.center)).T).min())
    return nearest <= BESIDE_ITS_ROW * float(gaps.min(axis=1).max())


def _bands(found: tuple[float, int, int, np.ndarray]) -> list[list[int]]:
    """``_best_rows``' result cut into its rows' card indices: front, middle, back."""
    _, direction, layout, placement = found
    angle = np.radians(2 * direction)
    across = placement @ np.array([-np.sin(angle), np.cos(angle)])
    order = np.argsort(across, kind="stable")
    bands = [sorted(int(i) for i in b)
             for b in np.split(order, np.cumsum(ROW_ORDERS[layout])[:-1])]
    return bands if len(bands[0]) == 3 else bands[::-1]


def _half_diagonal_rows(cards: list[CardReading], centres: np.ndarray
                        ) -> tuple[float, int, int, np.ndarray] | None:
    """``_best_rows`` over every placement of the cards seen in one corner at half the
    photo's card diagonal from it, either way (``MAX_HALF_PLACEMENTS``); the others at
    their centres. None when the photo measures no diagonal or there are too many."""
    diagonal = _card_diagonal(cards)
    lone = [i for i, card in enumerate(cards) if len(card.corner_points) < 2]
    if diagonal is None or not lone or 2 ** len(lone) > MAX_HALF_PLACEMENTS:
        return None
    signs = np.array(np.meshgrid(*([[1.0, -1.0]] * len(lone)), indexing="ij"))
    signs = signs.reshape(len(lone), -1).T  # (K, lone)
    placements = np.repeat(centres[None], len(signs), axis=0)
    placements[:, lone] += signs[:, :, None] * (0.5 * diagonal)
    return _best_rows(placements)


def _card_diagonal(cards: list[CardReading]) -> np.ndarray | None:
    """The photo's card diagonal, corner to corner, from its cards seen in two corners:
    the median length along their mean axis (a diagonal and its reverse alike); None
    when no card shows two."""
    spans = np.array([np.subtract(c.corner_points[-1], c.corner_points[0])
                      for c in cards if len(c.corner_points) == 2], np.float64)
    if not len(spans):
        return None
    angles = 2 * np.arctan2(spans[:, 1], spans[:, 0])  # doubled: v and -v agree
    axis = np.arctan2(np.sin(angles).mean(), np.cos(angles).mean()) / 2
    return float(np.median(np.hypot(spans[:, 0], spans[:, 1]))) * \
        np.array([np.cos(axis), np.sin(axis)])


def _searched_rows(cards: list[CardReading], centres: np.ndarray,
                   start: tuple[float, int, int, np.ndarray]
                   ) -> tuple[float, int, int, np.ndarray]:
    """``_best_rows``' result from ``start`` improved one card's move at a time (a card
    seen in two corners to its centre or one of them; one seen in one corner by
    ``LONE_CORNER_STEPS`` of the photo's card diagonal either way), each round taking
    the move that separates the rows most, until none separates them more."""
    diagonal = _card_diagonal(cards)
    spots = [_card_spots(card, centre, diagonal)
             for card, centre in zip(cards, centres, strict=True)]
    found = start
    for _ in range(MAX_SEARCH_ROUNDS):
        placement = found[3]
        moves = []
        for i, options in enumerate(spots):
            for spot in options:
                if not np.allclose(spot, placement[i]):
                    moved = placement.copy()
                    moved[i] = spot
                    moves.append(moved)
        if not moves:
            break
        best = _best_rows(np.stack(moves))
        if best[0] <= found[0]:
            break
        found = best
    return found


def _card_spots(card: CardReading, centre: np.ndarray, diagonal: np.ndarray | None
                ) -> np.ndarray:
    """(S, 2): where ``card`` may stand in its row, ``centre`` first: a card seen in two
    or more corners at its centre or one of them; one seen in one corner, given the
    photo's card ``diagonal``, also ``LONE_CORNER_STEPS`` of it either way."""
    if len(card.corner_points) > 1:
        return np.array([centre, *card.corner_points], np.float64)
    if diagonal is None:
        return np.asarray(centre, np.float64)[None]
    return np.array([centre] + [centre + sign * step * diagonal
                                for step in LONE_CORNER_STEPS for sign in (1, -1)],
                    np.float64)


def _row_placements(cards: list[CardReading], centres: np.ndarray) -> np.ndarray:
    """(K, 13, 2): every way the cards may stand, each card seen in two or more corners at
    its centre or at one of those corners, the others at their centres; the first
    placement all centres. Only the centres when there would be more than
    ``MAX_ROW_PLACEMENTS``."""
    movable = [i for i, card in enumerate(cards) if len(card.corner_points) > 1]
    spots = [_card_spots(cards[i], centres[i], None) for i in movable]
    if not movable or int(np.prod([len(s) for s in spots])) > MAX_ROW_PLACEMENTS:
        return centres[None]
    grids = np.meshgrid(*(np.arange(len(s)) for s in spots), indexing="ij")
    picks = np.stack([g.reshape(-1) for g in grids], axis=1)  # (K, movable), row 0 all 0
    placements = np.repeat(centres[None], len(picks), axis=0)
    for column, (i, options) in enumerate(zip(movable, spots, strict=True)):
        placements[:, i] = options[picks[:, column]]
    return placements


def _best_rows(placements: np.ndarray) -> tuple[float, int, int, np.ndarray]:
    """The best (score, direction step, layout in ``ROW_ORDERS``, placement) over
    ``placements`` (K, 13, 2) and every direction (2-degree steps), in one pass of numpy;
    the first of equals (placement, then direction, then 3-5-5 before 5-5-3), as a loop
    over them keeps it."""
    # Every direction at once (a loop over them took 22 ms a hand, a live frame's fifth):
    # (K, directions, 13) positions across each, sorted, so a band's spread is its last
    # position less its first.
    angles = np.radians(np.arange(0, 180, 2))
    across = np.einsum("kcx,xd->kdc", placements,
                       np.stack([-np.sin(angles), np.cos(angles)]))
    ranked = np.sort(across, axis=2)
    scores = []
    for sizes in ROW_ORDERS:
        ends = np.cumsum(sizes)
        starts = ends - np.array(sizes)
        spread = (ranked[..., ends - 1] - ranked[..., starts]).max(axis=2)
        gaps = (ranked[..., starts[1:]] - ranked[..., ends[:-1] - 1]).min(axis=2)
        scores.append(gaps / np.maximum(spread, 1e-6))
    flat = np.stack(scores, axis=2).reshape(-1)  # placement, direction, layout
    pick = int(np.argmax(flat))
    placement, rest = divmod(pick, len(angles) * len(ROW_ORDERS))
    direction, layout = divmod(rest, len(ROW_ORDERS))
    return float(flat[pick]), direction, layout, placements[placement]
