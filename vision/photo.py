"""Reading a photo the way the user sees it: EXIF orientation fixed, huge photos shrunk.

JPEG, PNG, WebP, AVIF and BMP through Pillow; HEIC/HEIF (an iPhone's photos as it saves
them) through pi-heif's decoder, registered with Pillow below."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError, features

try:
    # An iPhone saves its photos as HEIC unless told otherwise, and a photo sent from it to
    # a laptop stays HEIC. pi-heif is pillow-heif's decoder alone (libheif and libde265, no
    # encoder), a dependency of the project; it is imported defensively so that a platform
    # without its wheel still reads every other format.
    from pi_heif import register_heif_opener
except ImportError:  # pragma: no cover - the dependency is declared in pyproject.toml
    HEIF_READABLE = False
else:
    register_heif_opener()
    HEIF_READABLE = True

# The file types a photo may come as, for a form's file picker (the app's uploads): what
# Pillow reads here, and HEIC through pi-heif.
PHOTO_SUFFIXES: tuple[str, ...] = (
    ("jpg", "jpeg", "png", "webp") + (("avif",) if features.check("avif") else ())
    + (("heic", "heif") if HEIF_READABLE else ()) + ("bmp",))

# A phone photo is 12-50 megapixels; the detector looks at 640-1280 pixels, so anything
# bigger than this is shrunk before it is held in memory as an array.
MAX_SIDE = 2048
# A photo is decoded or reduced to no less than this share of ``max_side`` before the last
# shrink: JPEG's draft keeps both sides at least the size asked, so asking a tenth less than
# the box lets a 4032x3024 photo decode at 2016x1512 rather than in full.
DECODE_SLACK = 0.9
# Pillow refuses images over ~179 megapixels as a decompression bomb; we say so clearly.
Image.MAX_IMAGE_PIXELS = 200_000_000


class PhotoError(ValueError):
    """A photo that cannot be used; the message says which and why."""


def load_photo(source: str | Path | bytes, max_side: int = MAX_SIDE) -> np.ndarray:
    """RGB uint8 array (H, W, 3), upright per EXIF, longest side at most ``max_side``."""
    label = "the uploaded photo" if isinstance(source, bytes) else str(source)
    try:
        handle = io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")  # noqa: SIM115
    except FileNotFoundError:
        raise PhotoError(f"{label}: no such file") from None
    except OSError as error:
        raise PhotoError(f"{label}: cannot be opened ({error.strerror or error})") from None
    try:
        with handle:
            with warnings.catch_warnings():
                # The size is checked below, with a message that says what to do.
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)
                image = Image.open(handle)
            with image:
                # Pillow only warns between its limit and twice it, and would then decode a
                # gigabyte of pixels: refuse at the limit, before decoding.
                if image.size[0] * image.size[1] > Image.MAX_IMAGE_PIXELS:
                    width, height = image.size
                    raise PhotoError(f"{label} is too large ({width}x{height} pixels, "
                                     f"{width * height / 1e6:.0f} megapixels): use a photo of at "
                                     f"most {Image.MAX_IMAGE_PIXELS / 1e6:.0f} megapixels")
                # JPEG: decode at a reduced size (1/2, 1/4, 1/8), far cheaper than all of a
                # 12-megapixel photo (``DECODE_SLACK``).
                width, height = image.size
                fit = min(1.0, max_side / max(width, height)) * DECODE_SLACK
                image.draft("RGB", (int(width * fit), int(height * fit)))
                image.load()
                # Turned in place, and converted only when not RGB already: each copy of a
                # phone photo's 3-megapixel draft cost about 30 ms (two of them, a
                # whole table's photo; models/README.md, session 46).
                ImageOps.exif_transpose(image, in_place=True)
                rgb = image if image.mode == "RGB" else image.convert("RGB")
                # A format with no reduced decoding (HEIC, PNG, WebP) arrives whole: it is
                # box-averaged by the largest integer factor that leaves it at least the
                # size JPEG's draft asks for (a 4032x3024 photo to 2016x1512, as its JPEG
                # reads; any integer, where the draft takes powers of two), 12 ms where
                # LANCZOS over the whole photo cost 240 (session 80).
                factor = int(max(rgb.size) / (DECODE_SLACK * max_side))
                if factor >= 2:
                    rgb = rgb.reduce(factor)
                if max(rgb.size) > max_side:
                    rgb.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
                if min(rgb.size) < 32:
                    raise PhotoError(f"{label} is too small ({rgb.size[0]}x{rgb.size[1]} "
                                     "pixels) to show cards")
                # Before the file is closed: the pixels are the image's own.
                return np.asarray(rgb)
    except PhotoError:
        raise
    except (UnidentifiedImageError, ImportError, Image.DecompressionBombError, OSError,
            SyntaxError, ValueError) as error:
        # Once ultralytics is imported it wraps Image.open to fetch a HEIF plugin for files
        # Pillow cannot identify; offline that surfaces as an ImportError.
        unknown = isinstance(error, UnidentifiedImageError | ImportError)
        what = "is not an image we can read" if unknown else f"cannot be read ({error})"
        raise PhotoError(f"{label} {what}: use a JPEG or PNG photo") from None
