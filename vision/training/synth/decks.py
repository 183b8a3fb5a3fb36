"""Card designs: fetch them from package registries, rasterise them, find their corner indices.

The art itself is never committed (its licences are GPL/LGPL, see ``datasets/DECKS.md``);
``python -m vision.training.synth.decks fetch`` downloads the packages into
``datasets/cache/`` with the ordinary clients (``npm pack``, ``apt-get download``, ``pip
download``), renders every card to a PNG of ``CARD_HEIGHT`` pixels and records where its
two corner indices are. A deck drawn here with PIL (``procedural``) needs no download; the
tests use it, and it is kept out of training because it looks like no real deck.

    python -m vision.training.synth.decks fetch            # all decks (a few minutes)
    python -m vision.training.synth.decks list             # what is cached, with its role
    python -m vision.training.synth.decks preview OUT.png  # corner crops with their boxes, to check
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageChops, ImageDraw, ImageFont

from engine.cards import CARD_NAMES

REPO = Path(__file__).resolve().parents[3]
CACHE = Path(os.environ.get("CPOKER_DECK_CACHE", REPO / "datasets" / "cache"))
CARD_HEIGHT = 400
PROCEDURAL = "procedural"

# Rank and suit words the upstream files use, keyed by our one-letter notation.
RANK_WORDS = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
SUIT_WORDS = {"s": "spade", "h": "heart", "d": "diamond", "c": "club"}
GRID_ROWS = "cdhs"  # aisleriot sheets: 13 columns (A..K) by 5 rows (clubs, diamonds, ...)
GRID_COLS = "A23456789TJQK"

NPM_PACKAGE = "svg-cards@4.0.2"
# Further npm packages, each unpacked in its own folder under the cache's npm/ (svg-cards,
# the first, keeps npm/ itself): package name -> the version fetched.
NPM_EXTRA = {"@letele/playing-cards": "0.1.0", "@heruka_urgyen/react-playing-cards": "0.5.0",
             "@younestouati/playing-cards-standard-deck": "3.0.0"}
REACT_SVG = Path(__file__).with_name("react_svg.mjs")  # React SVG components -> SVG files
DEB_PACKAGES = ("gnome-cards-data", "kdegames-card-data-kf5")
# PyPI wheels whose package data holds a deck, with the version drawn (only the folders the
# decks read are unpacked from the wheel).
PYPI_PACKAGES = {"arcade": ("3.3.3", "arcade/resources/assets/images/cards/")}
KENNEY_SUITS = {"s": "Spades", "h": "Hearts", "d": "Diamonds", "c": "Clubs"}
AISLERIOT = "usr/share/aisleriot/cards"
KDE = "usr/share/carddecks"


@dataclass(frozen=True)
class DeckSource:
    """Where one deck's art comes from and how it is laid out in its file."""

    name: str
    package: str  # "npm:NAME", "deb:NAME" or "pypi:NAME"
    path: str  # relative to the unpacked package root
    # "png-dir" (one PNG a card), "grid" (13x5 sheet), "svg-id" (element ids), "svg-dir"
    # (one SVG a card, named like "TD.svg"), "svg-num" (one SVG a card, its rank a number
    # from 1 for the ace to 13 for the king: "12h.svg" for Q♥) or "react-svg" (an ES module
    # of React SVG components named like "Sq", "H10": SVGR output) or "png-kenney" (one
    # PNG a card, named like "cardHeartsQ.png", "cardSpades10.png")
    layout: str
    licence: str
    # "train", "val" or "probe": val decks never appear in training scenes; probe decks
    # neither, nor in the default val scenes (they are drawn when named: ``--val-decks``)
    role: str = "train"
    # How far apart (in card widths) two glyphs of one index may lie and still be joined:
    # a jumbo index sets the "1" and "0" of its tens further apart than most decks.
    glyph_gap: float = 0.035


# Only decks whose indices use the Anglo-American ranks (A K Q J 10..2) and the four
# French suits: German, Swiss, Italian, French-lettered (R D V) and Russian decks would
# teach the model glyphs it never meets and mislabel the ones it does. Decks whose index
# the finder below cannot box reliably (rank and suit far apart, or not turned 180° in the
# other corner) are left out too; datasets/DECKS.md lists them.
DECK_SOURCES: tuple[DeckSource, ...] = (
    DeckSource("svg-cards", "npm:svg-cards", "package/png/2x", "png-dir", "LGPL-2.1"),
    DeckSource("gnome-anglo", "deb:gnome-cards-data", f"{AISLERIOT}/anglo.svgz", "grid",
               "GPL-3+"),
    DeckSource("gnome-anglo-bitmap", "deb:gnome-cards-data", f"{AISLERIOT}/anglo_bitmap.svgz",
               "grid", "GPL-3+"),
    DeckSource("gnome-anglo-modern", "deb:gnome-cards-data", f"{AISLERIOT}/anglo_modern.svgz",
               "grid", "GPL-3+"),
    DeckSource("gnome-anglo-modern-4-color", "deb:gnome-cards-data",
               f"{AISLERIOT}/anglo_modern_4_color.svgz", "grid", "GPL-3+"),
    DeckSource("gnome-anglo-poker", "deb:gnome-cards-data", f"{AISLERIOT}/anglo_poker.svgz",
               "grid", "GPL-3+"),
    DeckSource("gnome-gnomangelo", "deb:gnome-cards-data", f"{AISLERIOT}/gnomangelo.svgz",
               "grid", "GPL-3+"),
    DeckSource("gnome-neoclassical", "deb:gnome-cards-data", f"{AISLERIOT}/neoclassical.svgz",
               "grid", "GPL-3+"),
    DeckSource("gnome-neoclassical-4-color", "deb:gnome-cards-data",
               f"{AISLERIOT}/neoclassical_4_color.svgz", "grid", "GPL-3+", role="val"),
    DeckSource("gnome-ornamental", "deb:gnome-cards-data", f"{AISLERIOT}/ornamental.svgz",
               "grid", "GPL-3+"),
    DeckSource("gnome-plastic", "deb:gnome-cards-data", f"{AISLERIOT}/plastic.svgz", "grid",
               "GPL-3+"),
    DeckSource("gnome-simplistic", "deb:gnome-cards-data", f"{AISLERIOT}/simplistic.svgz",
               "grid", "GPL-3+"),
    DeckSource("gnome-tigullio", "deb:gnome-cards-data", f"{AISLERIOT}/tigullio.svgz", "grid",
               "GPL-3+"),
    DeckSource("kde-standard", "deb:kdegames-card-data-kf5", f"{KDE}/svg-standard/standard.svgz",
               "svg-id", "GPL-2+", role="val"),
    DeckSource("kde-jolly-royal", "deb:kdegames-card-data-kf5",
               f"{KDE}/svg-jolly-royal/jolly-royal.svgz", "svg-id", "GPL-2+", role="val"),
    DeckSource("kde-tigullio-international", "deb:kdegames-card-data-kf5",
               f"{KDE}/svg-tigullio-international/tigullio-international.svgz", "svg-id",
               "LGPL-2+"),
    # Its suit sits well below the rank: indexed since the finder takes a suit under a rank.
    DeckSource("kde-nicu-white", "deb:kdegames-card-data-kf5", f"{KDE}/svg-nicu-white/white.svgz",
               "svg-id", "GPL-2+"),
    # Adrian Kennard's designs as React components: thin stroked rank glyphs, a typeface
    # no other deck here prints (session 14).
    DeckSource("kennard", "npm:@letele/playing-cards", "package/dist/index.esm.js",
               "react-svg", "CC0-1.0"),
    # The same designs with blue diamonds and green clubs (the package MIT, the art CC0).
    DeckSource("kennard-4-color", "npm:@heruka_urgyen/react-playing-cards",
               "package/src/images/4color", "svg-dir", "CC0-1.0"),
    # The same designs with jumbo indices ("big faces": the rank about twice as tall, the
    # suit under it as large as a pip), the look of most plastic poker decks. Probes: held
    # out of training and of the default val scenes, so the model card's rendered sets
    # stay the sets it has always measured (session 44).
    DeckSource("kennard-jumbo", "npm:@heruka_urgyen/react-playing-cards",
               "package/src/images/2color-bf", "svg-dir", "CC0-1.0", role="probe",
               glyph_gap=0.05),
    DeckSource("kennard-jumbo-4-color", "npm:@heruka_urgyen/react-playing-cards",
               "package/src/images/4color-bf", "svg-dir", "CC0-1.0", role="probe",
               glyph_gap=0.05),
    # Chris Aguilar's vectorised cards (hand-optimised by Mike Hall): a serif rank over its
    # suit, a face no other deck here prints (session 23).
    DeckSource("aguilar", "npm:@younestouati/playing-cards-standard-deck", "package/cards",
               "svg-num", "LGPL-3.0"),
    # Kenney's playing cards (kenney.nl), as the arcade game library ships them: a bold
    # slab-serif rank over its suit on a flat card, 140x190-pixel PNGs. A probe (session
    # 60): a fourth design no model here has trained on, read as the three held-out ones.
    DeckSource("kenney", "pypi:arcade", "arcade/resources/assets/images/cards",
               "png-kenney", "CC0-1.0", role="probe"),
)
SOURCES_BY_NAME = {source.name: source for source in DECK_SOURCES}

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in card pixels, exclusive ends
Glyphs = tuple[np.ndarray, np.ndarray]  # a corner's rank and suit ink hulls, Nx2 card pixels


@dataclass
class Deck:
    """A rendered deck: one RGBA image per card and the boxes of its two corner indices."""

    name: str
    images: dict[str, np.ndarray]  # card name -> HxWx4 uint8, RGBA
    corners: dict[str, tuple[Box, Box]]  # card name -> (top-left box, bottom-right box)
    hulls: dict[str, tuple[np.ndarray, np.ndarray]]  # the index ink's convex hulls, Nx2
    # The cards' glyphs split so far (``glyphs_of``).
    _glyphs: dict[str, tuple[Glyphs | None, Glyphs | None]] = field(
        default_factory=dict, repr=False)

    @property
    def aspect(self) -> float:
        """Height over width of the deck's cards."""
        h, w = self.images[CARD_NAMES[0]].shape[:2]
        return h / w

    def glyphs_of(self, card: str) -> tuple[Glyphs | None, Glyphs | None]:
        """Each corner's rank and suit ink hulls apart (``corner_glyphs``; None where the
        two do not split): whether a person can read a corner is whether both glyphs show.
        Split when a scene first places the card, not when the deck is loaded: all 52 cost
        about half a second a deck, which a process that loads decks without drawing
        scenes need not pay."""
        if card not in self._glyphs:
            self._glyphs[card] = corner_glyphs(self.images[card], self.corners[card])
        return self._glyphs[card]


# ----------------------------------------------------------------------------- fetching


def _run(cmd: Sequence[str], cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(list(cmd), cwd=cwd, check=True, capture_output=True)


def fetch_packages(cache_dir: Path = CACHE) -> dict[str, str]:
    """Download and unpack the source packages; return package -> version."""
    versions: dict[str, str] = {"npm:svg-cards": _fetch_npm(NPM_PACKAGE, cache_dir / "npm")}
    for package, version in NPM_EXTRA.items():
        versions[f"npm:{package}"] = _fetch_npm(f"{package}@{version}",
                                                _npm_root(package, cache_dir))

    deb_dir = cache_dir / "deb"
    deb_dir.mkdir(parents=True, exist_ok=True)
    for package in DEB_PACKAGES:
        debs = sorted(deb_dir.glob(f"{package}_*.deb"))
        if not debs:
            try:
                _run(["apt-get", "download", package], cwd=deb_dir)
            except subprocess.CalledProcessError as error:
                # apt-get download needs the package lists, absent on a fresh machine.
                raise RuntimeError(f"apt-get download {package} failed (run `apt-get update` "
                                   f"first?): {error.stderr.decode(errors='replace')}") from error
            debs = sorted(deb_dir.glob(f"{package}_*.deb"))
        root = deb_dir / "x" / package
        if not root.exists():
            root.parent.mkdir(parents=True, exist_ok=True)
            _run(["dpkg-deb", "-x", str(debs[-1]), str(root)])
        versions[f"deb:{package}"] = _run(["dpkg-deb", "-f", str(debs[-1]), "Version"]).stdout \
            .decode().strip()
    for package, (version, folder) in PYPI_PACKAGES.items():
        versions[f"pypi:{package}"] = _fetch_pypi(package, version, folder,
                                                  cache_dir / "pypi" / package)
    return versions


def _fetch_pypi(package: str, version: str, folder: str, root: Path) -> str:
    """``pip download`` the wheel of ``package`` ``version`` (no dependencies) into
    ``root``, unless it is there already, and unpack ``folder`` of it there, unless it is
    already; return the version."""
    if not (root / folder).is_dir():
        root.mkdir(parents=True, exist_ok=True)
        wheels = sorted(root.glob(f"{package}-{version}-*.whl"))
        if not wheels:
            _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                  "--quiet", "-d", str(root), f"{package}=={version}"])
            wheels = sorted(root.glob(f"{package}-{version}-*.whl"))
        if not wheels:
            raise RuntimeError(f"pip download {package}=={version} left no wheel in {root}")
        with zipfile.ZipFile(wheels[-1]) as archive:
            archive.extractall(root, [name for name in archive.namelist()
                                      if name.startswith(folder)])
    return version


def _fetch_npm(spec: str, root: Path) -> str:
    """``npm pack`` the package ``spec`` into ``root`` and unpack it there, unless it is
    already; return its version."""
    root.mkdir(parents=True, exist_ok=True)
    manifest = root / "package" / "package.json"
    if not manifest.exists():
        out = _run(["npm", "pack", spec, "--silent"], cwd=root).stdout.decode()
        with tarfile.open(root / out.strip().splitlines()[-1]) as tar:
            tar.extractall(root, filter="data")
    return str(json.loads(manifest.read_text())["version"])


def _npm_root(package: str, cache_dir: Path) -> Path:
    return cache_dir / "npm" / package.replace("@", "").replace("/", "-")


def _package_root(source: DeckSource, cache_dir: Path) -> Path:
    kind, name = source.package.split(":", 1)
    if kind == "pypi":
        return cache_dir / "pypi" / name
    if kind == "npm":
        return _npm_root(name, cache_dir) if name in NPM_EXTRA else cache_dir / "npm"
    return cache_dir / "deb" / "x" / name


def _ensure_rsvg() -> str:
    exe = shutil.which("rsvg-convert")
    if exe:
        return exe
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        _run(["apt-get", "install", "-y", "--no-install-recommends", "librsvg2-bin"])
        exe = shutil.which("rsvg-convert")
    if not exe:
        raise RuntimeError("rsvg-convert is missing: apt-get install librsvg2-bin")
    return exe


def _rsvg(path: Path, *args: str) -> Image.Image:
    png = _run([_ensure_rsvg(), *args, str(path)]).stdout
    return Image.open(io.BytesIO(png)).convert("RGBA")


def _opaque_box(image: Image.Image) -> Box:
    """Box of the image's opaque pixels."""
    alpha = np.asarray(image)[:, :, 3]
    ys, xs = np.nonzero(alpha > 16)
    if not len(xs):
        raise ValueError("nothing opaque to crop to")
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _trim(image: Image.Image) -> Image.Image:
    """Crop to the opaque part: element exports and grid cells carry transparent margins."""
    return image.crop(_opaque_box(image))


def _rounded(image: Image.Image, radius: float = 0.05) -> Image.Image:
    """A card drawn as a square-cornered rectangle with its corners rounded (``radius``
    times its width), as a printed card's are; a card already rounded is left as it is."""
    if image.getpixel((0, 0))[3] < 128:
        return image
    mask = Image.new("L", image.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, image.width - 1, image.height - 1),
                                           round(radius * image.width), fill=255)
    alpha = ImageChops.multiply(image.getchannel("A"), mask)
    rounded = image.copy()
    rounded.putalpha(alpha)
    return rounded


def _to_height(image: Image.Image, height: int = CARD_HEIGHT) -> Image.Image:
    width = max(1, round(image.width * height / image.height))
    return image.resize((width, height), Image.Resampling.LANCZOS)


def _render_element(path: Path, element: str, height: int) -> Image.Image:
    """One element of an SVG file, cropped to its opaque part, about ``height`` pixels high.

    ``rsvg-convert`` 2.54 sizes an ``-i`` export by the element's extents as librsvg works
    them out, and for the ``<use>``-built cards of the KDE decks those are off: far too
    large (``-h 1200`` drew the penguins deck's K♥ 82 pixels high) or a little short (the
    jolly-royal 3♥ lost its right edge). So: render once at zoom 1 to see where the ink
    really is, then render just that box, padded, at the zoom that makes it ``height``
    tall; giving the page explicitly also keeps rsvg-convert from clipping the element.
    """
    try:
        x0, y0, x1, y1 = _opaque_box(_rsvg(path, "-i", element))
    except ValueError as error:
        raise ValueError(f"{path.name} element {element}: {error}") from error
    zoom = height / (y1 - y0)
    pad = 2 + 0.05 * max(x1 - x0, y1 - y0)  # zoom-1 pixels, for a box cut short at zoom 1
    image = _rsvg(path, "-i", element, f"--zoom={zoom:.6f}",
                  f"--left={(pad - x0) * zoom:.3f}px", f"--top={(pad - y0) * zoom:.3f}px",
                  f"--page-width={(x1 - x0 + 2 * pad) * zoom:.3f}px",
                  f"--page-height={(y1 - y0 + 2 * pad) * zoom:.3f}px")
    return _trim(image)


def svg_dir_file(card: str) -> str:
    """A card's file in an "svg-dir" deck: rank and suit in capitals, "TD.svg" for 10♦."""
    return f"{card[0]}{card[1].upper()}.svg"


def svg_num_file(card: str) -> str:
    """A card's file in an "svg-num" deck: "1s.svg" for A♠, "10d.svg" for 10♦, "13c.svg"
    for K♣."""
    return f"{GRID_COLS.index(card[0]) + 1}{card[1]}.svg"


def kenney_file(card: str) -> str:
    """A card's file in a "png-kenney" deck: "cardHeartsQ.png" for Q♥, "cardSpades10.png"
    for 10♠."""
    rank = "10" if card[0] == "T" else card[0]
    return f"card{KENNEY_SUITS[card[1]]}{rank}.png"


def render_source(source: DeckSource, cache_dir: Path = CACHE) -> dict[str, Image.Image]:
    """Rasterise all 52 cards of one deck at ``CARD_HEIGHT`` pixels."""
    root = _package_root(source, cache_dir)
    cards: dict[str, Image.Image] = {}
    if source.layout == "png-dir":
        for name in CARD_NAMES:
            rank, suit = name[0], name[1]
            word = RANK_WORDS.get(rank, rank)
            image = Image.open(root / source.path / f"{SUIT_WORDS[suit]}_{word}.png")
            cards[name] = _to_height(_trim(image.convert("RGBA")))
    elif source.layout == "grid":
        # One render of the whole sheet, cut into its 13x5 cells: far faster than one
        # rsvg-convert per element, and aisleriot's element ids export the whole page.
        sheet = _rsvg(root / source.path, "-w", str(13 * 300))
        cell_w, cell_h = sheet.width / 13, sheet.height / 5
        for row, suit in enumerate(GRID_ROWS):
            for col, rank in enumerate(GRID_COLS):
                box = (round(col * cell_w), round(row * cell_h),
                       round((col + 1) * cell_w), round((row + 1) * cell_h))
                cards[rank + suit] = _to_height(_trim(sheet.crop(box)))
    elif source.layout == "svg-id":
        for name in CARD_NAMES:
            rank, suit = name[0], name[1]
            element = f"{RANK_WORDS.get(rank, rank)}_{SUIT_WORDS[suit]}"
            image = _render_element(root / source.path, element, 3 * CARD_HEIGHT)
            cards[name] = _to_height(image)
    elif source.layout in ("svg-dir", "svg-num"):
        file_of = svg_dir_file if source.layout == "svg-dir" else svg_num_file
        for name in CARD_NAMES:
            image = _rsvg(root / source.path / file_of(name), "-h", str(3 * CARD_HEIGHT))
            cards[name] = _to_height(_rounded(_trim(image)))
    elif source.layout == "png-kenney":
        for name in CARD_NAMES:
            image = Image.open(root / source.path / kenney_file(name))
            cards[name] = _to_height(_trim(image.convert("RGBA")))
    elif source.layout == "react-svg":
        with tempfile.TemporaryDirectory() as folder:
            _run(["node", str(REACT_SVG), str(root / source.path), folder])
            for name in CARD_NAMES:
                rank, suit = name[0], name[1]
                stem = f"{suit.upper()}{'10' if rank == 'T' else rank.lower()}"
                image = _rsvg(Path(folder) / f"{stem}.svg", "-h", str(3 * CARD_HEIGHT))
                cards[name] = _to_height(_trim(image))
    else:
        raise ValueError(f"unknown layout {source.layout!r}")
    return cards


# ------------------------------------------------------------------------ corner indices


def ink_mask(card: np.ndarray) -> np.ndarray:
    """Pixels that differ clearly from the card's paper colour, outline peeled off."""
    h, w = card.shape[:2]
    rgb = card[:, :, :3].astype(np.int16)
    opaque = card[:, :, 3] > 200
    # Peel the outline off: the card's border stroke would otherwise join any glyph
    # that comes close to the edge into one blob that spans the whole window.
    peel = max(2, round(0.012 * w))
    inner = cv2.erode(opaque.astype(np.uint8), np.ones((2 * peel + 1, 2 * peel + 1), np.uint8))
    # The paper colour: the median light colour of a strip just inside the border, which
    # is blank on every design (the middle of a court card is art, not paper).
    strip = np.concatenate([rgb[int(0.35 * h):int(0.65 * h), 2 * peel:4 * peel].reshape(-1, 3),
                            rgb[2 * peel:4 * peel, int(0.35 * w):int(0.65 * w)].reshape(-1, 3)])
    light = strip[strip.sum(axis=1) > 3 * 140]
    paper = np.median(light if len(light) else rgb[opaque], axis=0)
    return (np.abs(rgb - paper).max(axis=2) > 70) & (inner > 0)


def find_corner(card: np.ndarray, glyph_gap: float = 0.035) -> Box:
    """Box of the rank+suit index in the card's top-left corner.

    Ink is what differs from the card's paper colour. The index is the cluster of ink
    blobs that starts nearest the corner and grows by absorbing blobs close to it, so the
    pips and court frames further in stay out. Blobs reaching the search window's far
    edges (a frame line, court art) are not index glyphs and are dropped first.
    ``glyph_gap``: how far (in card widths) a blob may lie beside the cluster and join it
    (``DeckSource.glyph_gap``).
    """
    h, w = card.shape[:2]
    ink = ink_mask(card)
    blobs = _ink_blobs(ink, int(0.3 * w), int(0.36 * h))
    if not blobs:
        raise ValueError("no index ink found in the top-left corner")
    gap_x, gap_y = glyph_gap * w, 0.05 * h
    cluster = min(blobs, key=lambda b: b[0] + b[1])
    grown = True
    while grown:
        grown = False
        for blob in blobs:
            x0, y0, x1, y1 = cluster
            if blob[0] >= x0 and blob[1] >= y0 and blob[2] <= x1 and blob[3] <= y1:
                continue
            near = (blob[0] <= x1 + gap_x and blob[2] >= x0 - gap_x
                    and blob[1] <= y1 + gap_y and blob[3] >= y0 - gap_y)
            merged = (min(x0, blob[0]), min(y0, blob[1]), max(x1, blob[2]), max(y1, blob[3]))
            if near and merged[2] - merged[0] <= 0.22 * w and merged[3] - merged[1] <= 0.32 * h:
                cluster, grown = merged, True
    return _with_suit_below(cluster, _ink_blobs(ink, int(0.3 * w), int(0.5 * h)), w, h)


def _ink_blobs(ink: np.ndarray, x_end: int, y_end: int) -> list[Box]:
    """Boxes of the ink blobs in the window ``[0, x_end) x [0, y_end)``, leaving out specks
    and blobs that reach the window's far edges (a frame line or art, not a glyph)."""
    h, w = ink.shape[:2]
    window = np.zeros(ink.shape, np.uint8)
    window[:y_end, :x_end] = ink[:y_end, :x_end]
    count, _, stats, _ = cv2.connectedComponentsWithStats(window, connectivity=8)
    blobs = []
    for i in range(1, count):
        x, y, bw, bh, area = stats[i]
        touches = x + bw >= x_end or y + bh >= y_end
        if touches or area < max(4, (w * h) // 20000):
            continue
        blobs.append((int(x), int(y), int(x + bw), int(y + bh)))
    return blobs


def _with_suit_below(cluster: Box, blobs: list[Box], card_width: int, card_height: int
                     ) -> Box:
    """``cluster`` and the suit symbol under it, when the cluster is a rank alone.

    Some decks set the suit well below a large rank (gnome-ornamental, kde-jolly-royal's
    kings and two of its tens): further than the growing step reaches, or past its window.
    A cluster whose blobs all sit side by side (a rank: "K", or "1" and "0") has no suit
    under its rank yet, so a blob right under it, centred under it and at most 1.3 times
    its height is taken as its suit."""
    x0, y0, x1, y1 = cluster
    cw, ch = x1 - x0, y1 - y0
    members = [b for b in blobs if b[0] >= x0 and b[1] >= y0 and b[2] <= x1 and b[3] <= y1]
    if any(a[1] >= b[3] for a in members for b in members):  # one blob above another
        return cluster
    under = [b for b in blobs
             if y1 <= b[1] <= y1 + 0.8 * ch
             and x0 - 0.25 * cw <= (b[0] + b[2]) / 2 <= x1 + 0.25 * cw
             and b[3] - b[1] <= 1.3 * ch
             and max(x1, b[2]) - min(x0, b[0]) <= 0.24 * card_width
             and b[3] - y0 <= 0.42 * card_height]
    if not under:
        return cluster
    suit = min(under, key=lambda b: b[1])
    return (min(x0, suit[0]), y0, max(x1, suit[2]), suit[3])


def find_corners(card: np.ndarray, glyph_gap: float = 0.035) -> tuple[Box, Box]:
    """Top-left and bottom-right index boxes (the latter found on the card turned 180°)."""
    h, w = card.shape[:2]
    tl = find_corner(card, glyph_gap)
    x0, y0, x1, y1 = find_corner(card[::-1, ::-1], glyph_gap)
    return tl, (w - x1, h - y1, w - x0, h - y0)


def ink_hull(card: np.ndarray, box: Box) -> list[list[int]]:
    """Convex hull of the index ink inside ``box``, in card pixels.

    Scenes label the projected hull rather than the projected box: on a card turned 45°
    the box's corners would swell the label well beyond the glyphs.
    """
    x0, y0, x1, y1 = box
    ys, xs = np.nonzero(ink_mask(card)[y0:y1, x0:x1])
    if len(xs) < 3:
        return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]
    return _pixel_hull(xs + x0, ys + y0).tolist()


def _pixel_hull(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Convex hull (Nx2, int) of the pixels at ``xs``, ``ys``: of their squares, not their
    centres, so that the hull covers whole pixels (far edges included)."""
    points = np.concatenate([np.stack([xs, ys], 1), np.stack([xs + 1, ys + 1], 1),
                             np.stack([xs + 1, ys], 1), np.stack([xs, ys + 1], 1)])
    return cv2.convexHull(points.astype(np.int32)).reshape(-1, 2)


def glyph_hulls(ink: np.ndarray, box: Box) -> Glyphs | None:
    """The rank's and the suit's hulls of the upright index in ``box`` of a card's ink
    (``ink_mask``), in card pixels as ``ink_hull``, split at the widest band of blank rows
    between ink: the rank stands above its suit. None where no such band parts them
    (glyphs touching, or set side by side): then only the index as a whole can be
    judged."""
    x0, y0, x1, y1 = box
    ink = ink[y0:y1, x0:x1]
    inked = np.flatnonzero(ink.any(axis=1))
    if len(inked) < 2:
        return None
    gaps = np.diff(inked)
    widest = int(gaps.argmax())
    if gaps[widest] < 2:  # no blank row between the first ink row and the last
        return None
    cut = int(inked[widest]) + 1  # the first blank row under the rank
    parts = []
    for rows in (slice(0, cut), slice(cut, None)):
        ys, xs = np.nonzero(ink[rows])
        if len(xs) < 3:
            return None
        parts.append(_pixel_hull(xs + x0, ys + (rows.start or 0) + y0).astype(np.float32))
    return parts[0], parts[1]


def corner_glyphs(card: np.ndarray, corners: tuple[Box, Box]
                  ) -> tuple[Glyphs | None, Glyphs | None]:
    """``glyph_hulls`` of both corners of ``card``: the bottom-right index is read on the
    card turned 180 degrees, where it stands upright, and its hulls turned back."""
    h, w = card.shape[:2]
    ink = ink_mask(card)
    x0, y0, x1, y1 = corners[1]
    turned = glyph_hulls(ink[::-1, ::-1], (w - x1, h - y1, w - x0, h - y0))
    back = None if turned is None else tuple(
        (np.array([w, h], np.float32) - hull) for hull in turned)
    return glyph_hulls(ink, corners[0]), back  # type: ignore[return-value]


# ------------------------------------------------------------------- the procedural deck


@cache
def _font(size: int) -> ImageFont.FreeTypeFont:
    import matplotlib  # ships DejaVu Sans, which has the four suit symbols

    path = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans-Bold.ttf"
    return ImageFont.truetype(str(path), size)


SUIT_GLYPHS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}


def procedural_card(name: str, height: int = CARD_HEIGHT) -> Image.Image:
    """A plain card drawn with PIL: index in two corners, one big suit symbol."""
    width = round(height * 0.7)
    image = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, width - 1, height - 1), radius=width // 14,
                           fill=(250, 250, 246, 255), outline=(60, 60, 60, 255), width=2)
    colour = (200, 20, 30, 255) if name[1] in "hd" else (15, 15, 15, 255)
    rank = "10" if name[0] == "T" else name[0]
    corner = Image.new("RGBA", (width // 4, height // 4), (0, 0, 0, 0))
    cdraw = ImageDraw.Draw(corner)
    cdraw.text((corner.width // 2, 2), rank, font=_font(height // 11), fill=colour, anchor="mt")
    cdraw.text((corner.width // 2, height // 10), SUIT_GLYPHS[name[1]], font=_font(height // 13),
               fill=colour, anchor="mt")
    margin = width // 30
    image.alpha_composite(corner, (margin, margin))
    image.alpha_composite(corner.rotate(180), (width - corner.width - margin,
                                               height - corner.height - margin))
    draw.text((width // 2, height // 2), SUIT_GLYPHS[name[1]], font=_font(height // 3),
              fill=colour, anchor="mm")
    return image


# -------------------------------------------------------------------------- the cache


def deck_dir(name: str, cache_dir: Path = CACHE) -> Path:
    return cache_dir / "decks" / name


def save_deck(name: str, cards: dict[str, Image.Image], meta: dict[str, object],
              cache_dir: Path = CACHE,
              known_corners: dict[str, tuple[Box, Box]] | None = None,
              glyph_gap: float = 0.035) -> None:
    """Index every card's corners (or take ``known_corners``, where the caller drew
    them), then write the PNGs and ``meta.json``.

    The corners are found before anything is written, so a deck whose index finder fails
    on one card leaves no half-written deck behind.
    """
    corners: dict[str, list[list[int]]] = {}
    hulls: dict[str, list[list[list[int]]]] = {}
    for card, image in cards.items():
        pixels = np.asarray(image)
        try:
            tl, br = known_corners[card] if known_corners else find_corners(pixels, glyph_gap)
        except ValueError as error:
            raise ValueError(f"{name} {card}: {error}") from error
        corners[card] = [list(tl), list(br)]
        hulls[card] = [ink_hull(pixels, tl), ink_hull(pixels, br)]
    out = deck_dir(name, cache_dir)
    out.mkdir(parents=True, exist_ok=True)
    for card, image in cards.items():
        image.save(out / f"{card}.png")
    meta = {**meta, "name": name, "corners": corners, "hulls": hulls}
    (out / "meta.json").write_text(json.dumps(meta, indent=1))


def ensure_procedural(cache_dir: Path = CACHE) -> Path:
    """Write the procedural deck into the cache if it is not there yet (it takes a second)."""
    path = deck_dir(PROCEDURAL, cache_dir)
    if not (path / "meta.json").exists():
        cards = {name: procedural_card(name) for name in CARD_NAMES}
        save_deck(PROCEDURAL, cards, {"source": "drawn with PIL and DejaVu Sans",
                                      "licence": "MIT (this project)", "role": "test"},
                  cache_dir)
    return path


def fetch(names: Iterable[str] | None = None, cache_dir: Path = CACHE,
          force: bool = False) -> list[str]:
    """Fetch, render and index the named decks (default: all); return the names written.

    A deck already in the cache is kept unless ``force``. A deck whose corners cannot be
    found is skipped with a message rather than stopping the others.
    """
    from tqdm import tqdm

    versions = fetch_packages(cache_dir)
    written = []
    wanted = list(names) if names else [s.name for s in DECK_SOURCES]
    for name in tqdm(wanted, desc="decks", unit="deck"):
        if not force and (deck_dir(name, cache_dir) / "meta.json").exists():
            written.append(name)
            continue
        source = SOURCES_BY_NAME[name]
        try:
            cards = render_source(source, cache_dir)
            save_deck(name, cards, {"package": source.package,
                                    "version": versions[source.package],
                                    "file": source.path, "licence": source.licence,
                                    "role": source.role}, cache_dir,
                      glyph_gap=source.glyph_gap)
        except subprocess.CalledProcessError as error:
            tqdm.write(f"skipped deck {name}: {error.stderr.decode(errors='replace').strip()}")
            continue
        except ValueError as error:
            tqdm.write(f"skipped deck {error}")
            continue
        written.append(name)
    ensure_procedural(cache_dir)
    return written


def available_decks(role: str | None = None, cache_dir: Path = CACHE) -> list[str]:
    """Cached decks, optionally only those of one role ("train", "val", "probe", "test")."""
    root = cache_dir / "decks"
    names = []
    for meta_path in sorted(root.glob("*/meta.json")):
        meta = json.loads(meta_path.read_text())
        if role is None or meta.get("role") == role:
            names.append(meta_path.parent.name)
    return names


@cache
def load_deck(name: str, cache_dir: Path = CACHE) -> Deck:
    """Load a cached deck (kept in memory: scenes reuse a deck many times)."""
    path = deck_dir(name, cache_dir)
    meta = json.loads((path / "meta.json").read_text())
    images = {card: np.asarray(Image.open(path / f"{card}.png").convert("RGBA"))
              for card in CARD_NAMES}
    corners = {card: (tuple(tl), tuple(br)) for card, (tl, br) in meta["corners"].items()}
    hulls = {card: (np.array(tl, np.float32), np.array(br, np.float32))
             for card, (tl, br) in meta["hulls"].items()}
    return Deck(name, images, corners, hulls)  # type: ignore[arg-type]


def preview(names: Sequence[str], out: Path, cards: Sequence[str] = ("As", "Kh", "Qd", "Jc",
            "Ts", "8h", "4d", "6c"), cache_dir: Path = CACHE) -> None:
    """A contact sheet of each deck's corners with their boxes, to check the index finder."""
    tile_h = CARD_HEIGHT // 2
    rows = []
    for name in names:
        deck = load_deck(name, cache_dir)
        tiles = []
        for card in cards:
            image = np.ascontiguousarray(deck.images[card][:, :, :3])
            bg = deck.images[card][:, :, 3:] / 255.0
            image = (image * bg + 128 * (1 - bg)).astype(np.uint8)
            for x0, y0, x1, y1 in deck.corners[card]:
                cv2.rectangle(image, (x0, y0), (x1 - 1, y1 - 1), (0, 200, 0), 2)
            h, w = image.shape[:2]
            tiles.append(cv2.resize(image, (round(w * tile_h / h), tile_h)))
        row = np.concatenate(tiles, axis=1)
        cv2.putText(row, name, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 0, 255), 1)
        rows.append(row)
    width = max(r.shape[1] for r in rows)
    rows = [np.pad(r, ((0, 0), (0, width - r.shape[1]), (0, 0))) for r in rows]
    Image.fromarray(np.concatenate(rows, axis=0)).save(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.synth.decks", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_fetch = sub.add_parser("fetch", help="download, render and index the decks")
    p_fetch.add_argument("decks", nargs="*", help="deck names (default: all)")
    p_fetch.add_argument("--force", action="store_true", help="render cached decks again")
    sub.add_parser("list", help="list cached decks and their roles")
    p_prev = sub.add_parser("preview", help="write a contact sheet of corner boxes")
    p_prev.add_argument("out", type=Path)
    p_prev.add_argument("--decks", nargs="*")
    args = parser.parse_args(argv)
    if args.command == "fetch":
        written = fetch(args.decks, force=args.force)
        print(f"{len(written)} decks in {CACHE / 'decks'}")
    elif args.command == "list":
        for role in ("train", "val", "probe", "test"):
            print(f"{role}: {' '.join(available_decks(role))}")
    else:
        preview(args.decks or available_decks(), args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
