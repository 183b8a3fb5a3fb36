"""Hand strength for the 5-card middle and back rows and the 3-card front row.

A hand's strength is one integer, so that hands compare with ``<`` and sort fast:

    category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

where ``r1..r5`` are the ranks that decide ties, most important first. A 3-card front
row fills only ``r1..r3`` and leaves the last two at zero, which is exactly the rule that
a front row compares with a middle row "as if it had two missing lowest kickers": front
``Kc Kd 9h`` is below middle ``Ks Kh 9c 5d 3s``. The front row only knows three of a
kind, one pair and high card: three cards in sequence or of one suit are worth nothing.

The 5-card table is built once at import, keyed by the product of one prime per rank
(order-free and unique for a multiset of ranks), so a vectorised caller can use it too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from itertools import combinations, combinations_with_replacement

import numpy as np

from .cards import RANK_NAMES, RANK_PLURALS, Card, CardError, format_cards


class Category(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        return CATEGORY_LABELS[self]


CATEGORY_LABELS = {
    Category.HIGH_CARD: "high card",
    Category.PAIR: "pair",
    Category.TWO_PAIR: "two pair",
    Category.TRIPS: "three of a kind",
    Category.STRAIGHT: "straight",
    Category.FLUSH: "flush",
    Category.FULL_HOUSE: "full house",
    Category.QUADS: "four of a kind",
    Category.STRAIGHT_FLUSH: "straight flush",
}
ROYAL_FLUSH = "royal flush"

RANK_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)  # ranks 2..14


def rank_prime(rank: int) -> int:
    return RANK_PRIMES[rank - 2]


def pack(category: Category, ranks: Sequence[int]) -> int:
    value = int(category) << 20
    for shift, rank in zip((16, 12, 8, 4, 0), ranks, strict=False):
        value |= rank << shift
    return value


def category_of(value: int) -> Category:
    return Category(value >> 20)


def tiebreak_ranks(value: int) -> tuple[int, ...]:
    return tuple(r for r in ((value >> s) & 0xF for s in (16, 12, 8, 4, 0)) if r)


def _straight_top(distinct_desc: Sequence[int]) -> int:
    """Top rank of a 5-card straight, or 0. A-2-3-4-5 is five-high; no wrap-arounds."""
    if len(distinct_desc) != 5:
        return 0
    if distinct_desc[0] - distinct_desc[4] == 4:
        return distinct_desc[0]
    if list(distinct_desc) == [14, 5, 4, 3, 2]:
        return 5
    return 0


def _grouped(ranks: Sequence[int]) -> list[tuple[int, int]]:
    """(count, rank) pairs, biggest group first, then highest rank."""
    return sorted(((n, r) for r, n in Counter(ranks).items()), reverse=True)


def _value_of_ranks(ranks: Sequence[int], flush: bool) -> int:
    groups = _grouped(ranks)
    counts = [n for n, _ in groups]
    order = [r for _, r in groups]
    top = _straight_top(order) if counts[0] == 1 else 0
    if top and flush:
        return pack(Category.STRAIGHT_FLUSH, [top])
    if counts[0] == 4:
        return pack(Category.QUADS, order)
    if counts[:2] == [3, 2]:
        return pack(Category.FULL_HOUSE, order)
    if flush:
        return pack(Category.FLUSH, order)
    if top:
        return pack(Category.STRAIGHT, [top])
    if counts[0] == 3:
        return pack(Category.TRIPS, order)
    if counts[:2] == [2, 2]:
        return pack(Category.TWO_PAIR, order)
    if counts[0] == 2:
        return pack(Category.PAIR, order)
    return pack(Category.HIGH_CARD, order)


def _build_five_card_tables() -> tuple[dict[int, int], dict[int, int]]:
    plain: dict[int, int] = {}
    suited: dict[int, int] = {}
    for ranks in combinations_with_replacement(range(2, 15), 5):
        if max(Counter(ranks).values()) > 4:
            continue
        key = 1
        for rank in ranks:
            key *= rank_prime(rank)
        plain[key] = _value_of_ranks(ranks, flush=False)
        if len(set(ranks)) == 5:
            suited[key] = _value_of_ranks(ranks, flush=True)
    return plain, suited


PLAIN_VALUES, FLUSH_VALUES = _build_five_card_tables()

# The same tables as sorted arrays, for vectorised look-ups (np.searchsorted on the key).
PLAIN_KEYS = np.array(sorted(PLAIN_VALUES), dtype=np.int64)
PLAIN_TABLE = np.array([PLAIN_VALUES[k] for k in PLAIN_KEYS], dtype=np.int64)
FLUSH_KEYS = np.array(sorted(FLUSH_VALUES), dtype=np.int64)
FLUSH_TABLE = np.array([FLUSH_VALUES[k] for k in FLUSH_KEYS], dtype=np.int64)


def evaluate5(cards: Sequence[Card]) -> int:
    key = 1
    for card in cards:
        key *= RANK_PRIMES[card.rank - 2]
    first = cards[0].suit
    if all(card.suit == first for card in cards):
        return FLUSH_VALUES[key]
    return PLAIN_VALUES[key]


def evaluate3(cards: Sequence[Card]) -> int:
    """A front row: three of a kind, one pair or high card; straights and flushes ignored."""
    groups = _grouped([card.rank for card in cards])
    order = [r for _, r in groups]
    category = {3: Category.TRIPS, 2: Category.PAIR, 1: Category.HIGH_CARD}[groups[0][0]]
    return pack(category, order)


def evaluate(cards: Sequence[Card]) -> int:
    """Strength of a 3-card or 5-card row; 3-card rows compare with 5-card rows."""
    if len(cards) == 5:
        return evaluate5(cards)
    if len(cards) == 3:
        return evaluate3(cards)
    raise CardError(f"a row has 3 or 5 cards, got {len(cards)}")


def category_name(value: int) -> str:
    """Category in words; the ace-high straight flush is shown as a royal flush."""
    category = category_of(value)
    if category == Category.STRAIGHT_FLUSH and tiebreak_ranks(value)[0] == 14:
        return ROYAL_FLUSH
    return category.label


def describe(value: int) -> str:
    """A hand in words: "two pair, nines and fives", "pair of kings", "royal flush"."""
    category = category_of(value)
    ranks = tiebreak_ranks(value)
    name, plural = RANK_NAMES, RANK_PLURALS
    match category:
        case Category.HIGH_CARD:
            return f"{name[ranks[0]]}-high"
        case Category.PAIR:
            return f"pair of {plural[ranks[0]]}"
        case Category.TWO_PAIR:
            return f"two pair, {plural[ranks[0]]} and {plural[ranks[1]]}"
        case Category.TRIPS:
            return f"three of a kind, {plural[ranks[0]]}"
        case Category.STRAIGHT:
            return f"straight, {name[ranks[0]]}-high"
        case Category.FLUSH:
            return f"flush, {name[ranks[0]]}-high"
        case Category.FULL_HOUSE:
            return f"full house, {plural[ranks[0]]} full of {plural[ranks[1]]}"
        case Category.QUADS:
            return f"four of a kind, {plural[ranks[0]]}"
        case _:
            if ranks[0] == 14:
                return ROYAL_FLUSH
            return f"straight flush, {name[ranks[0]]}-high"


@dataclass(frozen=True, slots=True)
class Hand:
    """A row of 3 or 5 cards with its strength."""

    cards: tuple[Card, ...]
    value: int

    @classmethod
    def of(cls, cards: Sequence[Card]) -> Hand:
        return cls(tuple(cards), evaluate(cards))

    @property
    def category(self) -> Category:
        return category_of(self.value)

    @property
    def category_name(self) -> str:
        return category_name(self.value)

    @property
    def description(self) -> str:
        return describe(self.value)

    def __str__(self) -> str:
        return format_cards(self.cards)


def all_three_card_kinds() -> list[tuple[int, int, int]]:
    """The 455 rank multisets of a 3-card hand (suits aside), for exhaustive tests."""
    return list(combinations_with_replacement(range(2, 15), 3))


def five_card_subsets(cards: Sequence[Card]) -> list[tuple[Card, ...]]:
    return list(combinations(cards, 5))
