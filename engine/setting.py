"""A player's setting: 13 cards as front 3, middle 5 and back 5, legal or fouled."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import Enum

from .cards import Card, CardError, card_names, ensure_distinct, format_cards, parse_cards
from .hands import Hand


class Row(Enum):
    FRONT = "front"
    MIDDLE = "middle"
    BACK = "back"

    @property
    def size(self) -> int:
        return 3 if self is Row.FRONT else 5


ROWS: tuple[Row, ...] = (Row.FRONT, Row.MIDDLE, Row.BACK)


@dataclass(frozen=True, slots=True)
class Setting:
    front: Hand
    middle: Hand
    back: Hand

    @classmethod
    def of(cls, front: Sequence[Card], middle: Sequence[Card], back: Sequence[Card]) -> Setting:
        for row, cards in zip(ROWS, (front, middle, back), strict=True):
            if len(cards) != row.size:
                raise CardError(f"the {row.value} row needs {row.size} cards, got {len(cards)}")
        ensure_distinct([*front, *middle, *back])
        return cls(Hand.of(front), Hand.of(middle), Hand.of(back))

    @classmethod
    def parse(cls, front: str, middle: str, back: str) -> Setting:
        rows = []
        for row, text in zip(ROWS, (front, middle, back), strict=True):
            try:
                rows.append(parse_cards(text))
            except CardError as error:
                raise CardError(f"{row.value}: {error}") from None
        return cls.of(*rows)

    def row(self, row: Row) -> Hand:
        return getattr(self, row.value)

    def hands(self) -> Iterator[tuple[Row, Hand]]:
        for row in ROWS:
            yield row, self.row(row)

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.front.cards + self.middle.cards + self.back.cards

    @property
    def foul_reason(self) -> str | None:
        """None when legal (back >= middle >= front), else the broken order in words."""
        if self.middle.value > self.back.value:
            return _beats(Row.MIDDLE, self.middle, Row.BACK, self.back)
        if self.front.value > self.middle.value:
            return _beats(Row.FRONT, self.front, Row.MIDDLE, self.middle)
        return None

    @property
    def is_legal(self) -> bool:
        return self.foul_reason is None

    def to_dict(self) -> dict[str, list[str]]:
        return {row.value: card_names(hand.cards) for row, hand in self.hands()}

    def __str__(self) -> str:
        return " / ".join(format_cards(hand.cards) for _, hand in self.hands())


def _beats(upper: Row, upper_hand: Hand, lower: Row, lower_hand: Hand) -> str:
    return (
        f"{upper.value}: {upper_hand.description}, beats "
        f"{lower.value}: {lower_hand.description}"
    )
