"""The scene generator: deterministic, labels in range, class names in engine order.

These run on the procedural deck (drawn with PIL, written to a temporary cache), so they
need neither the network nor the fetched card art, and take a couple of seconds.
"""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from engine.cards import CARD_NAMES
from vision.training.synth.__main__ import generate
from vision.training.synth.decks import (
    CACHE,
    PROCEDURAL,
    REACT_SVG,
    SOURCES_BY_NAME,
    _fetch_pypi,
    _package_root,
    _render_element,
    _rounded,
    _run,
    ensure_procedural,
    find_corner,
    kenney_file,
    load_deck,
    render_source,
    svg_dir_file,
    svg_num_file,
)
from vision.training.synth.scene import LAYOUTS, _visible_box, render_scene


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("deck-cache")
    ensure_procedural(root)
    return root


def _generate(out: Path, cache: Path) -> Path:
    return generate(out, count=6, seed=3, size=256, val_fraction=1 / 3, decks=[PROCEDURAL],
                    val_decks=[PROCEDURAL], workers=1, progress=False, cache_dir=cache)


def _read_yaml_names(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    start = lines.index("names:") + 1
    return [line.split(":", 1)[1].strip().strip("'") for line in lines[start:]]


def test_procedural_deck_has_two_corners_per_card(cache: Path) -> None:
    deck = load_deck(PROCEDURAL, cache)
    assert set(deck.images) == set(CARD_NAMES)
    for card in CARD_NAMES:
        h, w = deck.images[card].shape[:2]
        (tx0, ty0, tx1, ty1), (bx0, by0, bx1, by1) = deck.corners[card]
        # top-left index in the top-left quarter, bottom-right one in the opposite quarter
        assert 0 <= tx0 < tx1 <= w / 2 and 0 <= ty0 < ty1 <= h / 2, card
        assert w / 2 <= bx0 < bx1 <= w and h / 2 <= by0 < by1 <= h, card


@pytest.mark.skipif(shutil.which("rsvg-convert") is None, reason="needs rsvg-convert")
def test_svg_deck_element_is_rendered_whole_at_the_height_asked_wherever_it_sits(
        tmp_path: Path) -> None:
    # The element is found at zoom 1, then its box alone is rendered at a higher zoom with
    # an offset page: a card near the page's origin and one far from it must come out alike.
    svg = tmp_path / "cards.svg"
    svg.write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">'
        '<ellipse id="near" cx="26" cy="36" rx="25" ry="35" fill="#fff" stroke="#000"/>'
        '<ellipse id="far" cx="826" cy="636" rx="25" ry="35" fill="#fff" stroke="#000"/>'
        '</svg>')
    for element in ("near", "far"):
        image = _render_element(svg, element, 284)
        assert abs(image.height - 284) <= 2 and abs(image.width - 204) <= 2, image.size
        opaque = np.asarray(image)[:, :, 3] > 200
        # an ellipse cut off would end in a straight opaque edge
        for edge in (opaque[0], opaque[-1], opaque[:, 0], opaque[:, -1]):
            assert edge.mean() < 0.2, element


def test_svg_dir_decks_name_each_card_file_by_rank_and_suit() -> None:
    # @heruka_urgyen/react-playing-cards' 4color folder: 2C.svg ... TD.svg ... AS.svg
    assert [svg_dir_file(card) for card in ("Td", "As", "2c", "Qh")] == \
        ["TD.svg", "AS.svg", "2C.svg", "QH.svg"]
    assert len({svg_dir_file(card) for card in CARD_NAMES}) == 52


def test_a_square_cornered_card_is_rounded_and_a_rounded_one_kept() -> None:
    square = Image.new("RGBA", (280, 400), (250, 250, 250, 255))
    rounded = np.asarray(_rounded(square))
    assert rounded[0, 0, 3] == 0 and rounded[-1, -1, 3] == 0  # the corners cut away
    assert rounded[200, 140, 3] == 255 and rounded[0, 140, 3] == 255  # the card kept
    assert np.array_equal(np.asarray(_rounded(Image.fromarray(rounded))), rounded)


def test_svg_num_decks_name_each_card_file_by_rank_number_and_suit() -> None:
    # @younestouati/playing-cards-standard-deck's cards folder: 1s.svg (A) ... 13c.svg (K)
    assert [svg_num_file(card) for card in ("As", "Td", "Jh", "Kc", "2s")] == \
        ["1s.svg", "10d.svg", "11h.svg", "13c.svg", "2s.svg"]
    assert len({svg_num_file(card) for card in CARD_NAMES}) == 52


def test_kenney_decks_name_each_card_file_by_suit_word_and_rank() -> None:
    # arcade's resources/assets/images/cards: cardSpadesA.png ... cardHearts10.png
    assert [kenney_file(card) for card in ("As", "Th", "Qd", "2c")] == \
        ["cardSpadesA.png", "cardHearts10.png", "cardDiamondsQ.png", "cardClubs2.png"]
    assert len({kenney_file(card) for card in CARD_NAMES}) == 52


def test_a_pypi_deck_is_unpacked_from_its_wheel_and_drawn_at_the_deck_height(
        tmp_path: Path) -> None:
    # A wheel already downloaded is not downloaded again: only the deck's folder of it is
    # unpacked (the rest of arcade's 42 MB stays in the wheel).
    source = SOURCES_BY_NAME["kenney"]
    package, folder = source.package.split(":", 1)[1], source.path + "/"
    root = tmp_path / "pypi" / package
    root.mkdir(parents=True)
    with zipfile.ZipFile(root / f"{package}-3.3.3-py3-none-any.whl", "w") as wheel:
        for card in CARD_NAMES:
            face = Image.new("RGBA", (140, 190), (255, 255, 255, 255))
            with wheel.open(folder + kenney_file(card), "w") as file:
                face.save(file, format="PNG")
        wheel.writestr("arcade/__init__.py", "")
    assert _fetch_pypi(package, "3.3.3", folder, root) == "3.3.3"
    assert not (root / "arcade" / "__init__.py").exists()
    cards = render_source(source, tmp_path)
    assert sorted(cards) == sorted(CARD_NAMES)
    assert {image.size for image in cards.values()} == {(295, 400)}


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_react_svg_components_are_written_out_as_svg_files(tmp_path: Path) -> None:
    # SVGR output, as @letele/playing-cards ships it: camelCase attributes, a style
    # object, text to escape, nested elements, an export list with renames.
    module = tmp_path / "index.esm.js"
    module.write_text(
        "import _extends from '@babel/runtime/helpers/extends';\n"
        "import * as React from 'react';\n"
        "const SvgS10 = _ref => {\n"
        "  let { title, ...props } = _ref;\n"
        "  return React.createElement('svg', _extends({ xmlns: 'http://www.w3.org/2000/svg',"
        " viewBox: '0 0 10 14', className: 'card' }, props),"
        " React.createElement('g', { strokeWidth: 2, fillRule: 'evenodd' },"
        " React.createElement('path', { d: 'M0 0h1', style: { fillOpacity: 0.5 } }),"
        " React.createElement('text', null, 'A<B&C')),"
        " React.createElement('use', { xlinkHref: '#a' }));\n"
        "};\n"
        "export { SvgS10 as S10 };\n")
    out = tmp_path / "svg"
    _run(["node", str(REACT_SVG), str(module), str(out)])
    assert [p.name for p in out.iterdir()] == ["S10.svg"]
    svg = (out / "S10.svg").read_text()
    assert 'viewBox="0 0 10 14"' in svg and 'class="card"' in svg
    assert '<g stroke-width="2" fill-rule="evenodd">' in svg
    assert 'style="fill-opacity:0.5"' in svg and "<text>A&lt;B&amp;C</text>" in svg
    assert 'xlink:href="#a"' in svg and 'xmlns:xlink="http://www.w3.org/1999/xlink"' in svg
    assert "title" not in svg


JOLLY = SOURCES_BY_NAME["kde-jolly-royal"]
JOLLY_FILE = _package_root(JOLLY, CACHE) / JOLLY.path


@pytest.mark.skipif(shutil.which("rsvg-convert") is None or not JOLLY_FILE.exists(),
                    reason="needs rsvg-convert and the fetched KDE card art")
def test_kde_deck_cards_come_out_the_same_size() -> None:
    # librsvg misjudges these <use>-built cards' extents: asked for 400 pixels with -h, the
    # ace came out 98 high and the 3 of hearts 225.
    sizes = [_render_element(JOLLY_FILE, element, 400).size
             for element in ("1_spade", "3_heart", "10_club")]
    assert all(abs(h - 400) <= 8 for _, h in sizes), sizes  # zoom from a ~100-pixel probe
    widths = [w * 400 / h for w, h in sizes]  # at 400 pixels high, as the cache keeps them
    assert max(widths) - min(widths) <= 2, sizes


def test_generator_is_deterministic_and_labels_are_valid(tmp_path: Path, cache: Path) -> None:
    data = _generate(tmp_path / "a", cache)
    _generate(tmp_path / "b", cache)
    files = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*")
                   if p.is_file() and p.name != "data.yaml")  # data.yaml names its own path
    assert len([f for f in files if f.suffix == ".jpg"]) == 6
    for rel in files:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes(), rel

    assert _read_yaml_names(data) == list(CARD_NAMES)
    boxes = 0
    for label in (tmp_path / "a" / "labels").rglob("*.txt"):
        image = Image.open(str(label).replace("labels", "images")[:-4] + ".jpg")
        assert image.size == (256, 256)
        for line in label.read_text().splitlines():
            cls, *coords = line.split()
            assert 0 <= int(cls) < len(CARD_NAMES)
            cx, cy, w, h = map(float, coords)
            assert 0 < w <= 1 and 0 < h <= 1
            assert cx - w / 2 >= 0 and cx + w / 2 <= 1 + 1e-6
            assert cy - h / 2 >= 0 and cy + h / 2 <= 1 + 1e-6
            boxes += 1
    assert boxes > 0


def _card(glyphs: list[tuple[int, int, int, int]], width: int = 294, height: int = 400
          ) -> np.ndarray:
    """A white RGBA card with black rectangles as glyphs (x0, y0, x1, y1)."""
    card = np.full((height, width, 4), 255, np.uint8)
    for x0, y0, x1, y1 in glyphs:
        card[y0:y1, x0:x1, :3] = 0
    return card


def test_index_finder_takes_a_suit_set_well_below_a_large_rank() -> None:
    # As gnome-ornamental and some kde-jolly-royal cards: a tall rank, then a gap, then a
    # large suit reaching below the first search window (0.36 of the card's height).
    rank, suit = (20, 23, 70, 87), (13, 101, 70, 172)
    assert find_corner(_card([rank, suit])) == (13, 23, 70, 172)
    # A narrow rank (a J) with a suit twice as wide under it.
    rank, suit = (31, 27, 56, 92), (17, 106, 75, 177)
    assert find_corner(_card([rank, suit])) == (17, 27, 75, 177)


def test_index_finder_keeps_a_stacked_index_as_it_is() -> None:
    # Rank over suit already: a pip further down is not a second suit.
    rank, suit, pip = (10, 10, 40, 50), (12, 56, 38, 80), (12, 110, 38, 134)
    assert find_corner(_card([rank, suit, pip])) == (10, 10, 40, 80)


def test_index_finder_takes_a_wide_ten_whole() -> None:
    # gnome-ornamental's "10" on the card turned 180 degrees reaches to 0.26 of its width,
    # where the first search window ended.
    one, zero, suit = (16, 28, 30, 93), (36, 28, 77, 93), (20, 105, 72, 170)
    assert find_corner(_card([one, zero, suit])) == (16, 28, 77, 170)


def test_a_jumbo_ten_takes_its_glyph_gap() -> None:
    # kennard-jumbo's Ts: "1" and "0" 11 pixels apart on a 286-pixel card, past the usual
    # step (0.035 of the width, 10 pixels); its source's glyph_gap (0.05) joins them.
    one, zero, suit = (14, 17, 21, 95), (32, 14, 64, 98), (18, 110, 60, 168)
    card = _card([one, zero, suit], width=286)
    assert find_corner(card) == one
    assert find_corner(card, glyph_gap=0.05) == (14, 14, 64, 168)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_every_layout_labels_only_cards_it_placed(layout: str, cache: Path) -> None:
    deck = load_deck(PROCEDURAL, cache)
    scene = render_scene(np.random.default_rng(11), deck, size=320, layout=layout)
    assert scene.layout == layout
    assert len(set(scene.cards)) == len(scene.cards)
    placed = {CARD_NAMES.index(card) for card in scene.cards}
    assert scene.labels, "a scene should show at least one index"
    assert {label[0] for label in scene.labels} <= placed
    # at most two corners a card
    assert len(scene.labels) <= 2 * len(scene.cards)


def test_an_index_the_light_washed_out_gets_no_label(cache: Path) -> None:
    from vision.training.synth.scene import index_shows

    def shown_labels(canvas: np.ndarray, labels: list) -> list:
        return [label for label in labels if index_shows(canvas, label)]

    deck = load_deck(PROCEDURAL, cache)
    scene = render_scene(np.random.default_rng(11), deck, size=320, layout="spread")
    lit = scene.image.astype(np.float32) / 255
    assert shown_labels(lit, scene.labels) == scene.labels
    # A glare as a lamp's on glossy cards, strong enough to burn the left half white:
    # the indices there no longer show, those on the right still do.
    glared = lit.copy()
    glared[:, :160] = 1.0
    kept = shown_labels(glared, scene.labels)
    left = [label for label in scene.labels if label[1] + label[3] / 2 < 0.5]
    assert left and kept == [label for label in scene.labels if label not in left]


def test_index_contrast_tells_ink_from_a_flat_patch() -> None:
    from vision.training.synth.scene import MIN_INDEX_CONTRAST, index_contrast

    image = np.full((100, 100, 3), 250, np.uint8)
    label = (0, 0.5, 0.5, 0.2, 0.3)  # the box 40..60 x 35..65
    assert index_contrast(image, label) < MIN_INDEX_CONTRAST
    image[45:55, 45:55] = 30  # a glyph's ink in the box
    assert index_contrast(image, label) > 0.5
    assert index_contrast(image, (0, 1.5, 1.5, 0.1, 0.1)) == 0.0  # a box off the photo


def test_covered_corner_gets_no_box() -> None:
    hull = np.array([[10, 10], [20, 10], [20, 30], [10, 30]], np.float32)
    owner = np.zeros((64, 64), np.int16)  # card 0 is on top everywhere ...
    assert _visible_box(hull, np.eye(3), owner, 0) == (10, 10, 20, 30)
    owner[:, :16] = 1  # ... until card 1 covers the left 60 % of the index
    assert _visible_box(hull, np.eye(3), owner, 0) is None
    owner[:, :16] = 0
    owner[:, 13:] = 1  # a sliver of 30 % left showing is still "mostly hidden"
    assert _visible_box(hull, np.eye(3), owner, 0) is None


def test_font_index_crops_are_deterministic_and_labelled() -> None:
    import matplotlib

    from vision.training.synth.fontindex import find_faces, make_font_crops

    fonts = sorted(str(p) for p in (Path(matplotlib.get_data_path()) / "fonts" / "ttf").glob(
        "DejaVu*.ttf"))
    faces = find_faces(fonts)
    assert faces.ranks and faces.suits  # DejaVu draws ranks and the four suits
    images, labels = make_font_crops(24, seed=5, faces=faces)
    again, labels_again = make_font_crops(24, seed=5, faces=faces)
    assert images.shape == (24, 40, 40, 3) and images.dtype == np.uint8
    assert np.array_equal(images, again) and np.array_equal(labels, labels_again)
    assert labels.min() >= 0 and labels.max() < len(CARD_NAMES)
    # Every crop holds ink, not a blank patch of card.
    assert (images.reshape(24, -1).std(axis=1) > 10).all()


def test_a_font_without_suit_symbols_is_not_a_suit_face() -> None:
    import matplotlib

    from vision.training.synth.fontindex import find_faces

    ttf = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    # Computer Modern (cmr10) draws letters and digits but no card suits.
    faces = find_faces([str(ttf / "DejaVuSans.ttf"), str(ttf / "cmr10.ttf")])
    assert str(ttf / "cmr10.ttf") not in faces.suits
    assert str(ttf / "DejaVuSans.ttf") in faces.suits


def _dejavu_faces():
    import matplotlib

    from vision.training.synth.fontindex import find_faces

    ttf = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    return find_faces([str(ttf / "DejaVuSerif.ttf"), str(ttf / "DejaVuSans.ttf")])


def test_a_reprinted_deck_keeps_its_art_and_prints_new_indices_where_the_old_ones_were(
        cache: Path) -> None:
    from vision.training.synth.retype import reprint

    deck = load_deck(PROCEDURAL, cache)
    cards, boxes, faces_used = reprint(deck, np.random.default_rng(4), _dejavu_faces())
    again, boxes_again, _ = reprint(deck, np.random.default_rng(4), _dejavu_faces())
    assert "DejaVu" in faces_used and set(cards) == set(CARD_NAMES) and boxes == boxes_again
    for card in CARD_NAMES:
        old = deck.images[card]
        new = np.asarray(cards[card])
        assert np.array_equal(new, np.asarray(again[card]))
        assert new.shape == old.shape
        h, w = old.shape[:2]
        (tx0, ty0, tx1, ty1), (bx0, by0, bx1, by1) = boxes[card]
        assert 0 <= tx0 < tx1 <= w / 2 and 0 <= ty0 < ty1 <= h / 2, card
        assert w / 2 <= bx0 < bx1 <= w and h / 2 <= by0 < by1 <= h, card
        # Ink in each new box; the centre pip and the card's outline as they were.
        for x0, y0, x1, y1 in boxes[card]:
            assert new[y0:y1, x0:x1, :3].min() < 150, card
        assert np.array_equal(new[h // 3:2 * h // 3, w // 3:2 * w // 3],
                              old[h // 3:2 * h // 3, w // 3:2 * w // 3])
        assert np.array_equal(new[:, :, 3], old[:, :, 3])
    # The old index is gone: a serif face does not print DejaVu Sans Bold's strokes.
    assert any(not np.array_equal(np.asarray(cards[c])[:h // 4, :w // 4], deck.images[c][
        :h // 4, :w // 4]) for c in CARD_NAMES)


def test_reprinted_decks_are_written_as_training_decks_with_their_drawn_boxes(
        tmp_path: Path, cache: Path) -> None:
    from vision.training.synth.decks import available_decks
    from vision.training.synth.retype import reprint_decks

    shutil.copytree(cache / "decks", tmp_path / "decks")
    written = reprint_decks(2, seed=3, cache_dir=tmp_path, bases=[PROCEDURAL],
                            faces=_dejavu_faces())
    assert written == [f"retype-{PROCEDURAL}-3-0", f"retype-{PROCEDURAL}-3-1"]
    assert set(written) <= set(available_decks("train", tmp_path))
    deck = load_deck(written[0], tmp_path)
    assert set(deck.corners) == set(CARD_NAMES) and set(deck.hulls) == set(CARD_NAMES)


def test_a_set_hand_rows_are_the_rows_it_was_laid_in() -> None:
    from vision.training.synth.scene import layout_rows, rows_of

    cards = list(CARD_NAMES[:13])
    for seed in range(40):  # every turn of the layout (0, 90, 180, 270 degrees, +-15)
        rows = rows_of(layout_rows(np.random.default_rng(seed), 1.4), cards)
        # layout_rows places the front row's 3 cards first, or the back row's 5 first
        # when the rows are drawn the other way up (which row lies on top).
        laid = ({"front": set(cards[:3]), "middle": set(cards[3:8]), "back": set(cards[8:])},
                {"back": set(cards[:5]), "middle": set(cards[5:10]), "front": set(cards[10:])})
        assert {row: set(held) for row, held in rows.items()} in laid, seed


def test_a_rows_scene_carries_its_rows_into_the_manifest(tmp_path: Path, cache: Path) -> None:
    from vision.training.labels import manifest_hand_rows

    deck = load_deck(PROCEDURAL, cache)
    assert render_scene(np.random.default_rng(5), deck, size=320, layout="spread").rows is None
    generate(tmp_path, count=3, seed=4, size=256, val_fraction=1 / 3, decks=[PROCEDURAL],
             val_decks=[PROCEDURAL], layouts=["rows"], workers=1, progress=False,
             cache_dir=cache)
    rows = manifest_hand_rows(tmp_path)
    assert len(rows) == 3
    manifest = (tmp_path / "manifest.csv").read_text().splitlines()
    for line in manifest[1:]:
        image, placed = line.split(",")[0], set(line.split(",")[6].split())
        assert set().union(*rows[image].values()) == placed
        assert [len(rows[image][row]) for row in ("front", "middle", "back")] == [3, 5, 5]


def test_a_corner_parts_its_rank_from_the_suit_under_it() -> None:
    from vision.training.synth.decks import corner_glyphs, glyph_hulls, ink_mask

    rank, suit = (20, 23, 70, 87), (13, 101, 70, 172)
    card = _card([rank, suit])
    parts = glyph_hulls(ink_mask(card), find_corner(card))
    assert parts is not None
    spans = [(*hull.min(axis=0), *hull.max(axis=0)) for hull in parts]
    assert spans == [rank, suit]  # hulls run along pixel edges: exclusive ends, as boxes
    # A rank touching its suit, or one index set side by side, cannot be parted.
    assert glyph_hulls(ink_mask(_card([(20, 23, 70, 101), (13, 101, 70, 172)])),
                       (13, 23, 70, 172)) is None
    # The bottom-right index is read turned, and its hulls turned back: its rank lies
    # under its suit on the card as it stands.
    h, w = card.shape[:2]
    both = _card([rank, suit, (w - 70, h - 87, w - 20, h - 23), (w - 70, h - 172, w - 13, h - 101)])
    corners = (find_corner(both), (w - 70, h - 172, w - 13, h - 23))
    top, bottom = corner_glyphs(both, corners)
    assert top is not None and bottom is not None
    assert bottom[0].min(axis=0).tolist() == [w - 70, h - 87]  # the rank, turned back
    assert bottom[1].max(axis=0).tolist() == [w - 13, h - 101]  # the suit above it


def test_a_card_showing_only_its_suit_is_labelled_but_not_readable(cache: Path) -> None:
    from vision.training.synth.scene import corner_labels, readable_shares

    def readable_corners(rows: tuple[int, int]) -> list[tuple[float, ...]]:
        return [label for label, shares in corner_labels(deck, placed, owner, rows)
                if readable_shares(*shares)]

    deck = load_deck(PROCEDURAL, cache)
    card = "7h"
    height = deck.images[card].shape[0]
    placed = [(card, np.eye(3), 1.0)]
    owner = np.zeros((height, height), np.int16)  # the card alone, on top everywhere
    whole = (0, height)
    assert len(readable_corners(whole)) == 2
    # Another card over the 60 % of each rank furthest from its suit (its upper loop):
    # three quarters of each index still show (labelled, as a detector should box it),
    # but no corner shows enough of the card's rank to tell a 7 from a 1.
    for k, (parts, hull) in enumerate(zip(deck.glyphs_of(card), deck.hulls[card], strict=True)):
        assert parts is not None
        x0, y0 = parts[0].min(axis=0).astype(int)
        x1, y1 = parts[0].max(axis=0).astype(int)
        if k == 0:  # the top-left rank stands above its suit, the bottom-right one below
            owner[y0:y0 + round(0.6 * (y1 - y0)), x0:x1] = 1
        else:
            owner[y1 - round(0.6 * (y1 - y0)):y1, x0:x1] = 1
        assert _visible_box(hull, np.eye(3), owner, 0) is not None
    assert readable_corners(whole) == []
    # The photo's frame ends under the top-left index's rank: that corner is not readable,
    # the bottom-right one (uncovered again) is.
    owner[:] = 0
    rank_bottom = int(deck.glyphs_of(card)[0][0][:, 1].max())  # type: ignore[index]
    readable = readable_corners((rank_bottom - 5, height))
    assert len(readable) == 1 and readable[0][2] > 0.5  # its box in the lower half


def test_each_label_says_how_much_of_its_rank_and_suit_shows(cache: Path) -> None:
    from vision.training.synth.scene import readable_shares

    deck = load_deck(PROCEDURAL, cache)
    for seed in range(4):
        # A phone photo's frame cut from the square scene, so that labels at its edge
        # are clipped or dropped with their shares.
        scene = render_scene(np.random.default_rng(seed), deck, size=640, height=480,
                             layout="fan")
        assert len(scene.shown) == len(scene.labels)
        assert all(0 <= rank <= 1 and 0 <= suit <= 1 for rank, suit in scene.shown)
        readable = {CARD_NAMES[label[0]]
                    for label, shares in zip(scene.labels, scene.shown, strict=True)
                    if readable_shares(*shares)}
        labelled = {CARD_NAMES[label[0]] for label in scene.labels}
        assert set(scene.unreadable) == labelled - readable
    assert readable_shares(0.5, 0.5) and not readable_shares(0.49, 1.0)
    assert not readable_shares(1.0, 0.49)


def test_the_manifest_names_the_cards_no_corner_shows_readably(tmp_path: Path,
                                                               cache: Path) -> None:
    from vision.training.labels import manifest_unreadable

    generate(tmp_path, count=20, seed=8, size=256, val_fraction=0.5, decks=[PROCEDURAL],
             val_decks=[PROCEDURAL], layouts=["fan", "overlap"], workers=1, progress=False,
             cache_dir=cache)
    unreadable = manifest_unreadable(tmp_path)
    assert unreadable is not None and len(unreadable) == 20
    names = _read_yaml_names(tmp_path / "data.yaml")
    some = 0
    for image, cards in unreadable.items():
        label = (tmp_path / image.replace("images", "labels")).with_suffix(".txt")
        labelled = {names[int(line.split()[0])] for line in label.read_text().splitlines()}
        assert cards <= labelled, image  # only cards that are there, labelled
        some += len(cards)
    assert some > 0  # fans and piles cover ranks
