"""Cards and their notation.

A card is a small immutable value: a rank (2..14, the ace high) and a suit letter. The
canonical notation is two characters, rank then suit: ``As``, ``Td``, ``9h``, ``2c``.
The parser is generous about what it reads (``10d``, ``ah``, ``A♠``, ``♠A``, commas or
spaces between cards) and strict about what it accepts: an unknown token, a card given
twice or a wrong count is a :class:`CardError` whose message names the problem.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "shdc"  # order used for sorting and indexing only: suits never rank
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
SUIT_SYMBOLS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣"}
RANK_NAMES = {
    2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king", 14: "ace",
}
RANK_PLURALS = {rank: name + ("es" if name == "six" else "s") for rank, name in RANK_NAMES.items()}
RED_SUITS = frozenset("hd")

_SYMBOL_TO_SUIT = {
    "♠": "s", "♤": "s", "♥": "h", "♡": "h", "♦": "d", "♢": "d", "♣": "c", "♧": "c",
}
_RANK_ALIASES = {"10": "T", "1": None}


class CardError(ValueError):
    """Bad card input. The message is one line that says what is wrong."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """One playing card. ``index`` (0..51) orders cards by rank, then suit."""

    rank: int
    suit: str

    def __post_init__(self) -> None:
        if not 2 <= self.rank <= 14:
            raise CardError(f"rank {self.rank} is out of range 2..14")
        if self.suit not in SUIT_CHARS:
            raise CardError(f'unknown suit "{self.suit}"')

    @property
    def index(self) -> int:
        return (self.rank - 2) * 4 + SUIT_CHARS.index(self.suit)

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    @classmethod
    def from_index(cls, index: int) -> Card:
        return DECK[index]

    @classmethod
    def parse(cls, token: str) -> Card:
        return parse_card(token)

    def __str__(self) -> str:
        return RANK_CHARS[self.rank - 2] + self.suit

    def __repr__(self) -> str:
        return f"Card({self})"


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in range(2, 15) for suit in SUIT_CHARS)
CARD_NAMES: tuple[str, ...] = tuple(str(card) for card in DECK)
_BY_NAME = {str(card): card for card in DECK}


def parse_card(token: str) -> Card:
    """Parse one card: ``As``, ``Td``, ``10d``, ``ah``, ``A♠`` or ``♠A``."""
    text = token.strip()
    if not text:
        raise CardError("empty card")
    suit: str | None = None
    rank_text = text
    if text[0] in _SYMBOL_TO_SUIT:
        suit, rank_text = _SYMBOL_TO_SUIT[text[0]], text[1:]
    elif text[-1] in _SYMBOL_TO_SUIT:
        suit, rank_text = _SYMBOL_TO_SUIT[text[-1]], text[:-1]
    elif len(text) >= 2 and text[-1].lower() in SUIT_CHARS:
        suit, rank_text = text[-1].lower(), text[:-1]
    if suit is None:
        raise CardError(f'unknown card "{token}": no suit (use s, h, d, c or ♠ ♥ ♦ ♣)')
    rank_char = _RANK_ALIASES.get(rank_text, rank_text.upper())
    if rank_char is None or len(rank_char) != 1 or rank_char not in RANK_CHARS:
        raise CardError(f'unknown card "{token}": rank must be one of 2-9, T or 10, J, Q, K, A')
    return _BY_NAME[rank_char + suit]


_SEPARATORS = re.compile(r"[\s,;]+")


def parse_cards(text: str | Iterable[str], count: int | None = None) -> tuple[Card, ...]:
    """Parse a list of distinct cards, separated by spaces or commas.

    ``count`` makes the number of cards part of the contract (13 for a hand, 3 or 5 for a
    row). Duplicates are always an error.
    """
    tokens = _SEPARATORS.split(text.strip()) if isinstance(text, str) else list(text)
    tokens = [token for token in tokens if token and token.strip()]
    cards = tuple(parse_card(token) for token in tokens)
    ensure_distinct(cards)
    if count is not None and len(cards) != count:
        raise CardError(f"expected {count} cards, got {len(cards)}")
    return cards


def ensure_distinct(cards: Iterable[Card]) -> None:
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise CardError(f"{card} appears twice")
        seen.add(card)


def format_cards(cards: Iterable[Card]) -> str:
    """Canonical notation: ``As Td 9h``."""
    return " ".join(str(card) for card in cards)


def card_names(cards: Iterable[Card]) -> list[str]:
    return [str(card) for card in cards]


def sort_cards(cards: Sequence[Card]) -> list[Card]:
    """Highest rank first; suits in a fixed order so the output is stable."""
    return sorted(cards, key=lambda card: (-card.rank, SUIT_CHARS.index(card.suit)))
