"""The photo as read, for the page: shrunk to what a screen shows, each card boxed and
labelled with its row in the player's language, JPEG-encoded once per reading.

Why not ``vision.draw.annotate`` on the full photo at every rerun: drawing a 12-megapixel
photo and sending it as PNG took most of a rerun's time; the page needs 1,000 pixels.
"""

from __future__ import annotations

import io
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.draw import CARD_COLOUR, ROW_COLOURS

from .i18n import CJK_LANGUAGES, get_language
from .style import card_text
from .terms import row_label

DISPLAY_SIDE = 1000  # pixels: wider than any phone's screen at 2x, half a laptop's
JPEG_QUALITY = 85
# A font with CJK glyphs for the row names in Chinese (Debian's fonts-wqy-microhei, which
# `make run` installs where it can); without one the boxes carry the cards alone and the
# legend under the photo names the rows.
CJK_FONTS = (
    Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"),
    Path("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"),
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"),
    Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
)


@lru_cache(maxsize=16)
def label_font(size: int, cjk: bool) -> ImageFont.FreeTypeFont | ImageFont.ImageFont | None:
    """A font for the labels, or None when ``cjk`` is asked and none is installed."""
    if cjk:
        for path in CJK_FONTS:
            if path.exists():
                return ImageFont.truetype(str(path), size)
        return None
    try:
        import matplotlib

        path = f"{matplotlib.get_data_path()}/fonts/ttf/DejaVuSans-Bold.ttf"
        return ImageFont.truetype(path, size)
    except (ImportError, OSError):
        return ImageFont.load_default(size)


def shrink(image: np.ndarray, side: int = DISPLAY_SIDE) -> tuple[Image.Image, float]:
    """The photo at most ``side`` pixels on its longer side, and the scale applied."""
    picture = Image.fromarray(image).convert("RGB")
    scale = min(1.0, side / max(picture.size))
    if scale < 1:
        picture = picture.resize((round(picture.width * scale), round(picture.height * scale)),
                                 Image.Resampling.BILINEAR)
    return picture, scale


def annotated_jpeg(image: np.ndarray, reading: object, language: str | None = None,
                   box_scale: float = 1.0) -> bytes:
    """``reading``: a ``vision.pipeline.PhotoReading`` of ``image``, whose boxes are in
    ``image``'s pixels times ``box_scale`` (``image`` may be already shrunk)."""
    out = io.BytesIO()
    annotated_picture(image, reading, language, box_scale).save(out, format="JPEG",
                                                                quality=JPEG_QUALITY)
    return out.getvalue()


def annotated_picture(image: np.ndarray, reading: object, language: str | None = None,
                      box_scale: float = 1.0) -> Image.Image:
    """``annotated_jpeg``'s picture, not encoded (the live camera's frames go back as
    pixels)."""
    language = language or get_language()
    picture, scale = shrink(image)
    scale *= box_scale
    draw = ImageDraw.Draw(picture)
    size = max(14, round(30 * max(picture.size) / DISPLAY_SIDE))  # legible on a phone
    width = max(2, size // 7)
    card_font = label_font(size, cjk=False)
    row_font = label_font(size, cjk=language in CJK_LANGUAGES)
    row_of: dict[str, str] = {}
    rows = getattr(reading, "rows", None)
    if rows is not None:
        for row in ("front", "middle", "back"):
            for card in getattr(rows, row):
                row_of[card.card] = row
    for card in getattr(reading, "cards", []):
        colour = ROW_COLOURS.get(row_of.get(card.card, ""), CARD_COLOUR)
        x1, y1, x2, y2 = (v * scale for v in card.box)
        draw.rectangle((x1, y1, x2, y2), outline=colour, width=width)
        text, font = card_text(card.card), card_font
        if card.card in row_of and row_font is not None:
            text, font = f"{row_label(row_of[card.card])} {text}", row_font
        left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
        label_top = max(0.0, y1 - (bottom - top) - 2 * width)
        draw.rectangle((x1, label_top, x1 + right - left + 2 * width,
                        label_top + bottom - top + 2 * width), fill=colour)
        draw.text((x1 + width - left, label_top + width - top), text, fill=(0, 0, 0), font=font)
    return picture


def legend_html() -> str:
    """Which colour is which row, in the page's language (the browser has the fonts)."""
    items = "".join(
        f'<span><i style="background:rgb{colour}"></i>{row_label(row)}</span>'
        for row, colour in ROW_COLOURS.items())
    return f'<div class="cp-legend">{items}</div>'
