"""Drawing what was read onto the photo. Separate from detecting, like supervision's
annotators: it takes readings and an image and returns a new image."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from .reading import CardReading, Rows
from .table import TableReading

ROW_COLOURS = {"front": (255, 196, 0), "middle": (0, 200, 255), "back": (120, 255, 80)}
CARD_COLOUR = (255, 64, 160)
RED_SUITS = {"h", "d"}
SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}


@lru_cache(maxsize=8)
def label_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
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
    font = label_font(max(12, round(22 * scale)))
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


# Seat colours, told apart at a glance and from the table cloths the generator draws.
SEAT_COLOURS = ((255, 196, 0), (0, 200, 255), (255, 64, 160), (120, 255, 80))


def annotate_table(image: np.ndarray, table: TableReading,
                   names: Sequence[str] | None = None) -> Image.Image:
    """The photo with each seat's rows boxed in the seat's own colour (a frame turned with
    the seat, so that rows of a seat at an angle are boxed tightly), each card's box
    thin, and the seat's number (and name) beyond its back row. A seat whose cards make no
    rows is boxed whole. A card taken from an unsure corner is labelled with a "?", one set
    aside as a card too many is crossed out and labelled too. ``image`` may be the photo at
    another size than the reading's."""
    canvas = Image.fromarray(image).convert("RGB")
    draw = ImageDraw.Draw(canvas)
    ratio = canvas.size[0] / table.size[0] if table.size[0] else 1.0
    scale = max(canvas.size) / 1000
    width = max(2, round(3 * scale))
    font = label_font(max(14, round(30 * scale)))
    small = label_font(max(10, round(16 * scale)))
    for seat in table.seats:
        colour = SEAT_COLOURS[(seat.number - 1) % len(SEAT_COLOURS)]
        outward = np.array(seat.outward)
        along = np.array([outward[1], -outward[0]])
        groups = seat.rows.items() if seat.rows else [("", seat.cards)]
        outer: tuple[float, float] | None = None
        for row_name, cards in groups:
            if not cards:
                continue
            points = np.array([(x, y) for c in cards for x in (c.box[0], c.box[2])
                               for y in (c.box[1], c.box[3])]) * ratio
            a, b = points @ along, points @ outward
            pad = 4 * width
            corners = [(a0 * along + b0 * outward) for a0, b0 in (
                (a.min() - pad, b.min() - pad), (a.max() + pad, b.min() - pad),
                (a.max() + pad, b.max() + pad), (a.min() - pad, b.max() + pad))]
            draw.polygon([tuple(p) for p in corners], outline=colour, width=width)
            if row_name:
                tag = (a.min() - pad) * along + (b.min() - pad) * outward
                draw.text(tuple(tag), row_name, fill=colour, font=small)
            far = float(b.max() + pad)
            if outer is None or far > outer[1]:
                outer = (float((a.min() + a.max()) / 2), far)
        for card in seat.cards:
            x1, y1, x2, y2 = (v * ratio for v in card.box)
            draw.rectangle((x1, y1, x2, y2), outline=colour, width=max(1, width // 2))
            if card.card in seat.unsure:  # read from one unsure corner: check it
                draw.text((x2 + width, y1), f"{card.card}?", fill=colour, font=small)
        for card in seat.set_aside:  # one card too many, left out: crossed, for a check
            x1, y1, x2, y2 = (v * ratio for v in card.box)
            draw.rectangle((x1, y1, x2, y2), outline=colour, width=max(1, width // 2))
            draw.line((x1, y1, x2, y2), fill=colour, width=max(1, width // 2))
            draw.line((x1, y2, x2, y1), fill=colour, width=max(1, width // 2))
            draw.text((x2 + width, y1), f"{card.card}?", fill=colour, font=small)
        if outer is not None:
            label = f"{seat.number}"
            if names and seat.number <= len(names):
                label += f" {names[seat.number - 1]}"
            spot = outer[0] * along + (outer[1] + 2 * width) * outward
            left, top, right, bottom = draw.textbbox((0, 0), label, font=font)
            x = float(np.clip(spot[0] - (right - left) / 2, 0, canvas.size[0] - (right - left)))
            y = float(np.clip(spot[1] - (bottom - top) / 2, 0, canvas.size[1] - (bottom - top)))
            draw.rectangle((x - width, y - width, x + right - left + 2 * width,
                            y + bottom - top + 3 * width), fill=colour)
            draw.text((x, y - top), label, fill=(0, 0, 0), font=font)
    return canvas
