"""Drawing what was read onto the photo. Separate from detecting, like supervision's
annotators: it takes readings and an image and returns a new image."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .reading import CardReading, Rows

ROW_COLOURS = {"front": (255, 196, 0), "middle": (0, 200, 255), "back": (120, 255, 80)}
CARD_COLOUR = (255, 64, 160)
RED_SUITS = {"h", "d"}
SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        import matplotlib

        path = f"{matplotlib.get_data_path()}/fonts/ttf/DejaVuSans-Bold.ttf"
        return ImageFont.truetype(path, size)
    except (ImportError, OSError):
        return ImageFont.load_default()


def card_label(card: str) -> str:
    rank = "10" if card[0] == "T" else card[0]
    return rank + SUIT_SYMBOLS.get(card[1], card[1])


def annotate(image: np.ndarray, cards: list[CardReading], rows: Rows | None = None
             ) -> Image.Image:
    """The photo with each card boxed and labelled; boxes coloured by row when known."""
    canvas = Image.fromarray(image).convert("RGB")
    draw = ImageDraw.Draw(canvas)
    scale = max(canvas.size) / 1000
    width = max(2, round(3 * scale))
    font = _font(max(12, round(22 * scale)))
    row_of: dict[str, str] = {}
    if rows is not None:
        for row_name in ("front", "middle", "back"):
            for reading in getattr(rows, row_name):
                row_of[reading.card] = row_name
    for reading in cards:
        colour = ROW_COLOURS.get(row_of.get(reading.card, ""), CARD_COLOUR)
        x1, y1, x2, y2 = reading.box
        draw.rectangle((x1, y1, x2, y2), outline=colour, width=width)
        text = f"{card_label(reading.card)} {reading.confidence:.2f}"
        if reading.card in row_of:
            text = f"{row_of[reading.card]}: {text}"
        left, top, right, bottom = draw.textbbox((x1, y1), text, font=font)
        lift = bottom - top + 2 * width
        box = (left, top - lift, right + 2 * width, bottom - lift + 2 * width)
        draw.rectangle(box, fill=colour)
        draw.text((x1 + width, y1 - lift + width), text, fill=(0, 0, 0), font=font)
    return canvas
