"""One synthetic photo: cards laid out on a table, shot at an angle, with YOLO labels.

Geometry: a layout places cards in table units (a card is 1 wide and ``aspect`` tall),
the layout is scaled and centred on the canvas, and one perspective transform (the camera's
tilt) is applied to everything. Each card is warped with its own homography and composited
in z-order with a soft drop shadow, while an "owner" map records which card is on top of
every pixel. A corner index is labelled when at least ``MIN_VISIBLE`` of its ink hull is
both inside the frame and on top; its box is the bounding box of the part that shows. A
labelled card is readable when one of its corners shows enough of its rank and of its
suit apart (``READABLE_RANK``); the scene names those that are not (``Scene.unreadable``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import cv2
import numpy as np

from engine.cards import CARD_NAMES
from vision.training.synth.backgrounds import BACKGROUNDS, TRAIN_BACKGROUNDS
from vision.training.synth.decks import Deck

Rng = np.random.Generator
Pose = tuple[float, float, float]  # centre x, centre y (card widths), rotation in degrees
CLASS_OF = {name: i for i, name in enumerate(CARD_NAMES)}
MIN_VISIBLE = 0.5  # share of an index's ink hull that must show for it to be labelled
MIN_BOX_PX = 3  # a visible index narrower or shorter than this is too small to label
# An index the scene's light washed out is not visible, whatever shows of its card: its
# box's grey spread in the lit scene (95th less 5th percentile, of 1) must reach this. A
# lamp's glare on a pale deck left 3 of 3,706 table indices at 0.016-0.020 in the photos
# (camera noise alone: no ink left to read); the next faintest measured 0.043 and can be
# made out (session 14).
MIN_INDEX_CONTRAST = 0.03
# A labelled index may show only its suit (its rank under the next card, or past the
# photo's edge), or only its rank: labelled, since half its ink is there, but no one can
# name the card from it (a red 3 is the 3 of hearts or of diamonds). A card is readable
# where one corner shows these shares of its rank's ink hull and of its suit's
# (``Deck.glyphs_of``; the rank's of the whole index where the two do not split), in frame,
# on top and not washed out. The manifest names the labelled cards that are not
# (``unreadable``). Half of each, the lenient bar: looked at on tune-1280b (session 61),
# a card with less shows no rank or no suit a person could name (except a four-colour
# deck's suit, told by its colour); at three quarters, half the cards the bar adds are
# still readable by eye.
READABLE_RANK = 0.5
READABLE_SUIT = 0.5


Label = tuple[int, float, float, float, float]  # class, cx, cy, w, h in [0, 1] of the photo
Share = TypeVar("Share", float, np.ndarray)  # a share of ink shown, or an array of them


@dataclass
class Scene:
    image: np.ndarray  # HxWx3 uint8 RGB, before JPEG encoding
    labels: list[Label]
    cards: list[str]  # every card placed, hidden or not, in z-order
    layout: str
    deck: str
    background: str
    jpeg_quality: int
    info: dict[str, float] = field(default_factory=dict)
    # A "rows" layout's set hand, front (3 cards) / middle / back (5 each), each row as
    # ``rows_of`` finds it; None for the other layouts.
    rows: dict[str, list[str]] | None = None
    # The labelled cards no labelled corner of which shows its rank and suit
    # (``readable_shares``).
    unreadable: tuple[str, ...] = ()
    # Each label's shares of its rank's ink and of its suit's that show in the photo
    # (``corner_labels``), in the order of ``labels``: a crop cut from a corner can be
    # told from its neighbours by what a person could read in it.
    shown: tuple[tuple[float, float], ...] = ()


def readable_shares(rank: Share, suit: Share) -> Share:
    """Whether a corner showing these shares of its rank's and its suit's ink can be
    read (``READABLE_RANK``, ``READABLE_SUIT``); for arrays of shares, element by
    element (a crop file's ``shown``)."""
    return (rank >= READABLE_RANK) & (suit >= READABLE_SUIT)


# ------------------------------------------------------------------------------- layouts


def _rotate(poses: list[Pose], degrees: float) -> list[Pose]:
    t = np.deg2rad(degrees)
    c, s = np.cos(t), np.sin(t)
    return [(x * c - y * s, x * s + y * c, a + degrees) for x, y, a in poses]


def layout_spread(rng: Rng, aspect: float) -> list[Pose]:
    """Thirteen cards dealt face up in a loose grid, as a player spreads a new hand."""
    cols = int(rng.integers(4, 7))
    sx, sy = rng.uniform(1.05, 1.6), aspect * rng.uniform(1.0, 1.35)
    tilt = rng.uniform(5, 35)
    poses = []
    for k in range(13):
        r, c = divmod(k, cols)
        poses.append((c * sx + rng.normal(0, 0.12), r * sy + rng.normal(0, 0.12),
                      rng.uniform(-tilt, tilt) + (180 if rng.random() < 0.2 else 0)))
    order = rng.permutation(13)
    return _rotate([poses[i] for i in order], rng.uniform(-180, 180))


def layout_rows(rng: Rng, aspect: float) -> list[Pose]:
    """A set hand: rows of 3, 5 and 5 (front row first), cards often overlapping in a row."""
    dx = rng.uniform(0.35, 1.2)  # below 1 each card covers the right part of the last
    dy = aspect * rng.uniform(0.55, 1.3)
    jitter = rng.uniform(0, 6)
    rows: list[list[Pose]] = []
    for r, n in enumerate((3, 5, 5)):
        rows.append([((j - (n - 1) / 2) * dx + rng.normal(0, 0.04), r * dy + rng.normal(0, 0.04),
                      rng.uniform(-jitter, jitter)) for j in range(n)])
    if rng.random() < 0.5:  # which row lies on top where rows overlap
        rows.reverse()
    poses = [pose for row in rows for pose in row]
    turn = float(rng.choice([0, 90, 180, 270])) + rng.uniform(-15, 15)
    return _rotate(poses, turn)


def rows_of(poses: Sequence[Pose], cards: Sequence[str]) -> dict[str, list[str]]:
    """Front, middle and back of ``layout_rows``' poses (``cards[i]`` at ``poses[i]``):
    undo the layout's common turn (the mean of the cards' turns), then the front row lies
    nearest, the back row farthest. Each row's cards nearest first."""
    turn = np.radians(float(np.mean([a for _, _, a in poses])))
    depth = [-x * np.sin(turn) + y * np.cos(turn) for x, y, _ in poses]
    order = [cards[i] for i in np.argsort(depth, kind="stable")]
    return {"front": order[:3], "middle": order[3:8], "back": order[8:]}


def layout_fan(rng: Rng, aspect: float) -> list[Pose]:
    """A fanned hand: cards turned about a pivot below them, each on top of the last."""
    n = int(rng.integers(5, 14))
    total = rng.uniform(35, 130)
    reach = aspect * rng.uniform(0.5, 1.0)  # pivot to card centre
    poses = []
    for i in range(n):
        phi = -total / 2 + i * total / (n - 1)
        t = np.deg2rad(phi)
        poses.append((reach * np.sin(t), -reach * np.cos(t), phi + rng.normal(0, 1.5)))
    return _rotate(poses, rng.uniform(-180, 180))


def layout_overlap(rng: Rng, aspect: float) -> list[Pose]:
    """A loose pile: cards dropped on each other, many indices hidden."""
    n = int(rng.integers(4, 14))
    spread = rng.uniform(0.6, 1.6)
    return [(rng.normal(0, spread), rng.normal(0, spread * aspect * 0.8), rng.uniform(-180, 180))
            for _ in range(n)]


def layout_few(rng: Rng, aspect: float) -> list[Pose]:
    """Four to eight large cards on a table, like a phone photo taken close up."""
    n = int(rng.integers(4, 9))
    cols = int(rng.integers(2, 5))
    sx, sy = rng.uniform(1.0, 1.8), aspect * rng.uniform(0.8, 1.4)
    tilt = rng.uniform(0, 30)
    poses = []
    for k in range(n):
        r, c = divmod(k, cols)
        poses.append((c * sx + rng.normal(0, 0.15), r * sy + rng.normal(0, 0.15),
                      rng.uniform(-tilt, tilt) + (90 if rng.random() < 0.15 else 0)))
    return _rotate(poses, rng.uniform(-180, 180))


def table_poses(rng: Rng, aspect: float, seats: int) -> list[Pose]:
    """A showdown seen from above: ``seats`` players round a table, each with three set rows
    in front of them, the front row (3 cards) nearest the table's centre and the back row
    (5) nearest the player, cards upright as their player sees them (the top of each card
    towards the centre). Seats sit roughly evenly round the centre, each a little off its
    ideal angle and distance; poses come seat by seat, front row first."""
    dx = rng.uniform(0.55, 1.15)  # card pitch within a row (below 1: cards overlap)
    dy = aspect * rng.uniform(0.75, 1.25)  # row pitch (below aspect: rows overlap)
    # The front row's centre lies this far from the table's centre: room for the other
    # seats' rows, so that no two seats' cards fall on each other.
    reach = max(2.0, 5 * dx / (2 * np.tan(np.pi / seats)) if seats > 2 else 1.0) \
        + aspect * 0.6 + rng.uniform(0.0, 1.0)
    start = rng.uniform(0, 360)
    poses: list[Pose] = []
    for seat in range(seats):
        # Angle of the seat as seen from the centre; y grows downwards on the canvas.
        theta = start + seat * 360 / seats + rng.normal(0, 6)
        distance = reach * rng.uniform(0.92, 1.1)
        jitter = rng.uniform(0, 4)
        local: list[Pose] = []
        for r, n in enumerate((3, 5, 5)):
            local += [((j - (n - 1) / 2) * dx + rng.normal(0, 0.03),
                       distance + r * dy + rng.normal(0, 0.03), rng.uniform(-jitter, jitter))
                      for j in range(n)]
        # Local frame: the seat lies straight below the centre (+y) with its cards upright
        # for a player at the bottom; turning it by theta - 90 puts the seat at theta.
        poses += _rotate(local, theta - 90)
    return poses


def layout_table(rng: Rng, aspect: float) -> list[Pose]:
    """The whole table's showdown: 2 to 4 seats (26 to 52 cards), see ``table_poses``."""
    return table_poses(rng, aspect, int(rng.integers(2, 5)))


LAYOUTS: dict[str, Callable[[Rng, float], list[Pose]]] = {
    "spread": layout_spread, "rows": layout_rows, "fan": layout_fan,
    "overlap": layout_overlap, "few": layout_few, "table": layout_table,
}
# The 13-card layouts are what the product reads; "few" matches the real photo set.
# "table" is asked for by name (a phone-resolution scene of 26-52 cards).
LAYOUT_WEIGHTS = {"spread": 0.25, "rows": 0.25, "fan": 0.12, "overlap": 0.1, "few": 0.28,
                  "table": 0.0}
# Below a tenth of the frame a card's index is a few pixels: no phone photo of a hand is
# taken from that far. A whole table is: its cards are a 12th to a 20th of the frame.
MIN_CARD_SHARE = {"table": 1 / 22}


# ------------------------------------------------------------------------------ geometry


def _translate(x: float, y: float) -> np.ndarray:
    return np.array([[1, 0, x], [0, 1, y], [0, 0, 1]], np.float64)


def _scale(s: float) -> np.ndarray:
    return np.diag([s, s, 1.0])


def _rotation(degrees: float) -> np.ndarray:
    t = np.deg2rad(degrees)
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], np.float64)


def project(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a 3x3 homography to Nx2 points."""
    pts = np.concatenate([points, np.ones((len(points), 1))], axis=1) @ h.T
    return pts[:, :2] / pts[:, 2:3]


def camera_tilt(rng: Rng, size: int, strength: float) -> np.ndarray:
    """A random perspective: each canvas corner pulled by up to ``strength`` of the size."""
    src = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    dst = src + rng.uniform(-strength, strength, (4, 2)).astype(np.float32) * size
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


# ----------------------------------------------------------------------------- rendering


def _warp_card(image: np.ndarray, h: np.ndarray, size: int
               ) -> tuple[np.ndarray, tuple[int, int, int, int]] | None:
    """Warp a card into its bounding box on the canvas; None when it falls outside."""
    ch, cw = image.shape[:2]
    corners = project(h, np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float64))
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, size), min(y1, size)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    local = _translate(-x0, -y0) @ h
    warped = cv2.warpPerspective(image, local, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    return warped, (x0, y0, x1, y1)


def _shown(hull: np.ndarray, h: np.ndarray, owner: np.ndarray, index: int,
           rows: tuple[int, int] | None = None
           ) -> tuple[np.ndarray, tuple[int, int], float, float] | None:
    """Where a projected ink hull shows: in frame (within ``rows`` of it when given) and on
    top. Returns the mask of its pixels that show, the mask's offset (x, y) in the photo,
    the hull's projected area and its pixel count; None when none of it is in frame."""
    poly = project(h, hull.astype(np.float64))
    area = abs(cv2.contourArea(poly.astype(np.float32)))
    if area < 4:
        return None
    top, bottom = rows or (0, owner.shape[0])
    x0, y0 = np.floor(poly.min(axis=0)).astype(int)
    x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 1
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, top), min(x1, owner.shape[1]), min(y1, bottom)
    if cx1 <= cx0 or cy1 <= cy0:
        return None
    mask = np.zeros((cy1 - cy0, cx1 - cx0), np.uint8)
    # The hull runs along pixel edges while fillPoly fills every pixel its outline touches:
    # pull each vertex half a pixel inwards and onto pixel centres so that an edge at
    # x = 20 ends the fill at pixel 19, not 20.
    inner = poly - 0.5 * np.sign(poly - poly.mean(axis=0)) - 0.5 - np.array([cx0, cy0])
    cv2.fillPoly(mask, [np.round(inner * 16).astype(np.int32)], 1, shift=4)
    shown = (mask > 0) & (owner[cy0:cy1, cx0:cx1] == index)
    return shown, (cx0, cy0), area, float(mask.sum())


def _visible_box(hull: np.ndarray, h: np.ndarray, owner: np.ndarray, index: int
                 ) -> tuple[int, int, int, int] | None:
    """Box of the part of a projected index hull that is in frame and on top, if enough."""
    found = _shown(hull, h, owner, index)
    if found is None:
        return None
    shown, (cx0, cy0), area, filled = found
    # Out-of-frame parts count as hidden: the denominator is the whole hull's area.
    if shown.sum() < MIN_VISIBLE * max(area, filled):
        return None
    ys, xs = np.nonzero(shown)
    box = (cx0 + int(xs.min()), cy0 + int(ys.min()), cx0 + int(xs.max()) + 1,
           cy0 + int(ys.max()) + 1)
    if box[2] - box[0] < MIN_BOX_PX or box[3] - box[1] < MIN_BOX_PX:
        return None
    return box


def _shown_share(hull: np.ndarray, h: np.ndarray, owner: np.ndarray, index: int,
                 rows: tuple[int, int]) -> float:
    """Share of a projected ink hull that lies in the photo's rows ``rows`` and on top."""
    found = _shown(hull, h, owner, index, rows)
    return 0.0 if found is None else float(found[0].sum()) / max(found[2], 1.0)


def corner_labels(deck: Deck, placed: Sequence[tuple[str, np.ndarray, float]],
                  owner: np.ndarray, rows: tuple[int, int]
                  ) -> list[tuple[Label, tuple[float, float]]]:
    """Each corner index of the ``placed`` cards (card, homography, art scale) that shows
    enough to be labelled (``_visible_box``), as the square scene's label, with the shares
    of its rank's ink and of its suit's that show within the photo's ``rows`` (both the
    whole index's where the deck's glyphs do not split it; ``readable_shares`` judges
    them)."""
    size = owner.shape[0]
    found: list[tuple[Label, tuple[float, float]]] = []
    for index, (card, h, ratio) in enumerate(placed):
        glyphs = deck.glyphs_of(card)
        for hull, parts in zip(deck.hulls[card], glyphs, strict=True):
            box = _visible_box(hull * ratio, h, owner, index)
            if box is None:
                continue
            x0, y0, x1, y1 = box
            # A small glyph's pixels can outnumber its projected area: at most all of it.
            shares = [min(1.0, _shown_share(part * ratio, h, owner, index, rows))
                      for part in (parts or (hull,))]
            found.append(((CLASS_OF[card], (x0 + x1) / 2 / size, (y0 + y1) / 2 / size,
                           (x1 - x0) / size, (y1 - y0) / size), (shares[0], shares[-1])))
    return found


def _lighting(rng: Rng, size: int) -> np.ndarray:
    """A multiplicative light field: a linear gradient, a vignette and a colour cast."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
    t = rng.uniform(0, 2 * np.pi)
    gradient = 1.0 + rng.uniform(0, 0.45) * (x * np.cos(t) + y * np.sin(t))
    vignette = 1.0 - rng.uniform(0, 0.5) * (x**2 + y**2)
    cast = rng.uniform(0.88, 1.08, 3).astype(np.float32)
    level = rng.uniform(0.7, 1.1)
    return (gradient * vignette * level)[:, :, None] * cast


def _glare(rng: Rng, size: int) -> np.ndarray:
    """An additive specular blob: a light's reflection on glossy cards."""
    y, x = np.mgrid[0:size, 0:size].astype(np.float32)
    cx, cy = rng.uniform(0, size, 2)
    sx, sy = rng.uniform(0.03, 0.25, 2) * size
    t = rng.uniform(0, np.pi)
    u = (x - cx) * np.cos(t) + (y - cy) * np.sin(t)
    v = -(x - cx) * np.sin(t) + (y - cy) * np.cos(t)
    return (rng.uniform(0.2, 0.7) * np.exp(-(u**2 / (2 * sx**2) + v**2 / (2 * sy**2))))[:, :, None]


def _motion_kernel(rng: Rng) -> np.ndarray:
    length = int(rng.integers(3, 8))
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1)
    kernel = cv2.warpAffine(kernel, rot, (length, length))
    return kernel / max(float(kernel.sum()), 1e-6)


def _camera(rng: Rng, image: np.ndarray) -> tuple[np.ndarray, dict[str, float]]:
    """Lens and sensor: blur (focus or motion), resolution loss and noise. Returns the image
    and what was done to it: ``blur`` (Gaussian sigma, px), ``motion`` (streak length, px),
    ``resolution`` (the share of the frame's pixels per side kept, 1.0 = none lost) and
    ``noise`` (sigma, in [0, 1] intensity)."""
    size = image.shape[0]
    done = {"blur": 0.0, "motion": 0.0, "resolution": 1.0, "noise": 0.0}
    roll = rng.random()
    if roll < 0.35:
        done["blur"] = rng.uniform(0.4, 1.4)
        image = cv2.GaussianBlur(image, (0, 0), done["blur"])
    elif roll < 0.5:
        kernel = _motion_kernel(rng)
        done["motion"] = float(kernel.shape[0])
        image = cv2.filter2D(image, -1, kernel)
    if rng.random() < 0.25:
        done["resolution"] = rng.uniform(0.45, 0.8)
        small = int(size * done["resolution"])
        image = cv2.resize(cv2.resize(image, (small, small), interpolation=cv2.INTER_AREA),
                           (size, size), interpolation=cv2.INTER_LINEAR)
    sigma = rng.uniform(0, 0.04) if rng.random() < 0.7 else 0.0
    if sigma:
        done["noise"] = sigma
        image = image + rng.normal(0, sigma, image.shape).astype(np.float32)
    return image, done


def render_scene(rng: Rng, deck: Deck, size: int = 640, layout: str | None = None,
                 backgrounds: Sequence[str] = TRAIN_BACKGROUNDS,
                 layout_weights: dict[str, float] | None = None,
                 height: int | None = None,
                 placed_cards: Sequence[tuple[str, Pose]] | None = None) -> Scene:
    """Render one scene from ``deck``; all randomness comes from ``rng``. The photo is
    ``size`` pixels square, or ``size`` wide and ``height`` high (a landscape phone photo,
    e.g. 4032x3024): then the layout is fitted into the height and the square is cut to
    it.

    ``placed_cards``: these cards at these poses (in z-order) instead of a layout's random
    ones, e.g. a deck's suit laid out in rank order (``tools/make_deck_photos.py``);
    ``layout`` then only names the scene."""
    frame = min(height or size, size)
    weights = layout_weights or LAYOUT_WEIGHTS
    if placed_cards is not None:
        layout = layout or "placed"
    elif layout is None:
        names = sorted(weights)
        p = np.array([weights[n] for n in names], np.float64)
        if p.sum() == 0:  # only zero-weight layouts asked for by name: equal shares
            p = np.ones_like(p)
        layout = names[int(rng.choice(len(names), p=p / p.sum()))]
    aspect = deck.aspect
    if placed_cards is not None:
        cards = [card for card, _ in placed_cards]
        poses = [pose for _, pose in placed_cards]
    else:
        poses = LAYOUTS[layout](rng, aspect)
        cards = [CARD_NAMES[i] for i in rng.choice(52, size=len(poses), replace=False)]

    # White tables dominate the "few cards" photos the detector is checked against.
    kinds = tuple(backgrounds)
    if layout == "few" and "white" in kinds and rng.random() < 0.5:
        kind = "white"
    else:
        kind = kinds[int(rng.integers(len(kinds)))]
    canvas = BACKGROUNDS[kind](rng, size).astype(np.float32)

    # Fit the layout's extent into the frame; a fill above 1 crops the outer cards a bit.
    unit = np.array([[-0.5, -aspect / 2], [0.5, -aspect / 2], [0.5, aspect / 2],
                     [-0.5, aspect / 2]])
    extent = np.concatenate([project(_translate(x, y) @ _rotation(a), unit) for x, y, a in poses])
    lo, hi = extent.min(axis=0), extent.max(axis=0)
    fill = rng.uniform(0.8, 1.05)
    card_px = fill * frame / float(max(hi - lo))
    # Too small a card would only teach guessing (see MIN_CARD_SHARE).
    card_px = float(np.clip(card_px, frame * MIN_CARD_SHARE.get(layout, 1 / 10), frame / 2.6))
    centre = (lo + hi) / 2
    shift = rng.uniform(-0.08, 0.08, 2) * frame
    layout_to_canvas = (_translate(size / 2 + shift[0], size / 2 + shift[1]) @ _scale(card_px)
                        @ _translate(-centre[0], -centre[1]))
    tilt = camera_tilt(rng, size, rng.uniform(0.0, 0.16))

    # Shadows fall one way for the whole scene, as under one lamp.
    light = rng.uniform(0, 2 * np.pi)
    shadow_offset = np.array([np.cos(light), np.sin(light)]) * card_px * rng.uniform(0.0, 0.07)
    shadow_sigma = card_px * rng.uniform(0.01, 0.06) + 0.5
    shadow_strength = rng.uniform(0.15, 0.55)

    owner = np.full((size, size), -1, np.int16)
    placed: list[tuple[str, np.ndarray, float]] = []
    for index, (card, (x, y, angle)) in enumerate(zip(cards, poses, strict=True)):
        art = deck.images[card]
        # Shrink the art close to its on-screen size first: warpPerspective samples
        # without averaging, and a 400-pixel card squeezed to 80 pixels would alias.
        target_h = max(8, int(np.ceil(card_px * aspect * 1.3)))
        ratio = min(1.0, target_h / art.shape[0])
        if ratio < 1.0:
            art = cv2.resize(art, (max(2, round(art.shape[1] * ratio)), target_h),
                             interpolation=cv2.INTER_AREA)
        ch, cw = art.shape[:2]
        card_to_layout = (_translate(x, y) @ _rotation(angle) @ _scale(1.0 / cw)
                          @ _translate(-cw / 2, -ch / 2))
        h = tilt @ layout_to_canvas @ card_to_layout
        placed.append((card, h, ratio))
        result = _warp_card(art, h, size)
        if result is None:
            continue
        warped, (x0, y0, x1, y1) = result
        alpha = warped[:, :, 3:4].astype(np.float32) / 255.0
        rgb = warped[:, :, :3].astype(np.float32) / 255.0 * rng.uniform(0.93, 1.04)
        # The drop shadow: the card's silhouette, shifted away from the light and blurred.
        # It is drawn only within the card's bounding box (plus 2 px), so on a card that
        # lies square to the frame it shows as a darkened rim on two sides: a card lying
        # flat casts little more than that.
        shift_m = np.float32([[1, 0, shadow_offset[0]], [0, 1, shadow_offset[1]]])
        shadow = cv2.warpAffine(alpha[:, :, 0], shift_m, (x1 - x0, y1 - y0))
        shadow = cv2.GaussianBlur(shadow, (0, 0), shadow_sigma)[:, :, None]
        region = canvas[y0:y1, x0:x1]
        region *= 1.0 - shadow_strength * shadow
        region[:] = region * (1.0 - alpha) + rgb * alpha
        owner[y0:y1, x0:x1][alpha[:, :, 0] > 0.5] = index

    top = (size - frame) // 2  # the photo's rows of the square scene
    corners = corner_labels(deck, placed, owner, (top, top + frame))

    canvas *= _lighting(rng, size)
    if rng.random() < 0.35:
        canvas += _glare(rng, size)
    canvas = np.clip(canvas, 0, 1)
    # Judged on the lit scene, before the camera's noise adds a spread of its own.
    corners = [corner for corner in corners if index_shows(canvas, corner[0])]
    canvas, camera = _camera(rng, canvas)
    image = (np.clip(canvas, 0, 1) * 255 + 0.5).astype(np.uint8)
    quality = int(rng.integers(35, 96))
    labels = [label for label, _ in corners]
    kept = range(len(labels))
    if frame < size:
        image, labels, kept = _cut_rows(image, labels, top, frame)
    shown = tuple(corners[k][1] for k in kept)
    rows = rows_of(poses, cards) if layout == "rows" and placed_cards is None else None
    readable = {CARD_NAMES[label[0]] for label, shares in zip(labels, shown, strict=True)
                if readable_shares(*shares)}
    labelled = {CARD_NAMES[label[0]] for label in labels}
    unreadable = tuple(card for card in cards if card in labelled and card not in readable)
    return Scene(image, labels, cards, layout, deck.name, kind, quality,
                 {"card_px": card_px, **camera}, rows, unreadable, shown)


def index_shows(canvas: np.ndarray, label: Label) -> bool:
    """Whether the labelled index still shows in the lit ``canvas``
    (``MIN_INDEX_CONTRAST``)."""
    return index_contrast(canvas, label) >= MIN_INDEX_CONTRAST


def index_contrast(image: np.ndarray, label: Label) -> float:
    """How much the labelled index's box of ``image`` (RGB, uint8 or floats in [0, 1])
    varies in grey: its 95th less its 5th percentile, of 1. Near 0 the box is one flat
    tone: no ink shows."""
    height, width = image.shape[:2]
    _, cx, cy, w, h = label
    x0, x1 = int((cx - w / 2) * width), int(np.ceil((cx + w / 2) * width))
    y0, y1 = int((cy - h / 2) * height), int(np.ceil((cy + h / 2) * height))
    patch = image[max(y0, 0):y1, max(x0, 0):x1].astype(np.float32).mean(axis=2)
    if patch.size == 0:
        return 0.0
    low, high = np.percentile(patch, [5, 95])
    return float(high - low) / (255 if image.dtype == np.uint8 else 1)


def _cut_rows(image: np.ndarray, labels: list[Label], top: int, height: int
              ) -> tuple[np.ndarray, list[Label], list[int]]:
    """Rows ``top`` to ``top + height`` of a square scene, with its labels (those whose
    box lies at least half inside, clipped to it) and their places in ``labels``."""
    size = image.shape[0]
    kept: list[Label] = []
    places: list[int] = []
    for place, (cls, cx, cy, w, h) in enumerate(labels):
        y0, y1 = (cy - h / 2) * size - top, (cy + h / 2) * size - top
        c0, c1 = max(y0, 0.0), min(y1, float(height))
        if c1 - c0 < 0.5 * (y1 - y0):
            continue
        kept.append((cls, cx, (c0 + c1) / 2 / height, w, (c1 - c0) / height))
        places.append(place)
    return np.ascontiguousarray(image[top:top + height]), kept, places


def encode_jpeg(scene: Scene) -> bytes:
    ok, data = cv2.imencode(".jpg", cv2.cvtColor(scene.image, cv2.COLOR_RGB2BGR),
                            [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return data.tobytes()


def yolo_lines(scene: Scene) -> str:
    return "".join(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in scene.labels)
