"""Every way to set 13 cards, as index arrays, and the strength of every row at once.

A hand's 13 cards are put in a fixed order (highest index first). Then the 1,287 five-card
subsets and 286 three-card subsets of the positions 0..12 are the same for every hand, and
so are the 72,072 splits (back 5, middle 5, front 3). They are built once at import as
small integer arrays, so that solving a hand is a few numpy gathers and comparisons rather
than a Python loop over 72,072 settings.

The splits are laid out grouped by back: split ``b * 56 + t`` has back subset ``b`` and
the ``t``-th middle among the 8 cards left. That lets the greedy player (strongest back
first) look only at the few splits that use a strongest back.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np

from ..cards import SUIT_CHARS, Card, sort_cards
from ..hands import (
    FLUSH_KEYS,
    FLUSH_TABLE,
    PLAIN_KEYS,
    PLAIN_TABLE,
    RANK_PRIMES,
    evaluate3,
)

N_CARDS = 13
MIDDLES_PER_BACK = 56  # C(8, 5)

SUB5 = np.array(list(combinations(range(N_CARDS), 5)), dtype=np.intp)  # (1287, 5)
SUB3 = np.array(list(combinations(range(N_CARDS), 3)), dtype=np.intp)  # (286, 3)


def _masks(subsets: np.ndarray) -> np.ndarray:
    return (np.left_shift(1, subsets)).sum(axis=1)


def _build_splits() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mask5 = _masks(SUB5)
    mask3 = _masks(SUB3)
    index5 = np.full(1 << N_CARDS, -1, dtype=np.int32)
    index5[mask5] = np.arange(len(mask5))
    index3 = np.full(1 << N_CARDS, -1, dtype=np.int32)
    index3[mask3] = np.arange(len(mask3))
    full = (1 << N_CARDS) - 1
    backs, middles = [], []
    for b, bmask in enumerate(mask5):
        # Middles are the 5-subsets disjoint from the back, in the fixed subset order.
        disjoint = np.flatnonzero((mask5 & bmask) == 0)
        assert len(disjoint) == MIDDLES_PER_BACK
        backs.append(np.full(MIDDLES_PER_BACK, b))
        middles.append(disjoint)
    back = np.concatenate(backs).astype(np.intp)
    middle = np.concatenate(middles).astype(np.intp)
    front = index3[full ^ mask5[back] ^ mask5[middle]].astype(np.intp)
    assert (front >= 0).all()
    return back, middle, front


SPLIT_BACK, SPLIT_MIDDLE, SPLIT_FRONT = _build_splits()
N_SPLITS = len(SPLIT_BACK)  # 72,072
# The same, one row per back subset: row b lists the 56 (middle, front) pairs that go
# with back b, so a per-back value broadcasts instead of being gathered 72,072 times.
BACK_MIDDLES = SPLIT_MIDDLE.reshape(-1, MIDDLES_PER_BACK)
BACK_FRONTS = SPLIT_FRONT.reshape(-1, MIDDLES_PER_BACK)

_PRIMES = np.array((0, 0, *RANK_PRIMES), dtype=np.int64)  # indexed by rank 2..14
_SUIT_BITS = {suit: 1 << i for i, suit in enumerate(SUIT_CHARS)}


def _front_table() -> np.ndarray:
    """Front strength by ranks in descending order: index r1 * 225 + r2 * 15 + r3."""
    table = np.zeros(15 ** 3, dtype=np.int64)
    for r1 in range(2, 15):
        for r2 in range(2, r1 + 1):
            for r3 in range(2, r2 + 1):
                cards = [Card(r1, "s"), Card(r2, "h"), Card(r3, "d")]
                table[r1 * 225 + r2 * 15 + r3] = evaluate3(cards)
    return table


FRONT_TABLE = _front_table()


def order_cards(cards: Sequence[Card]) -> tuple[Card, ...]:
    """The fixed order the split arrays assume: highest card first (so every subset lists
    its ranks in descending order, which the front table needs)."""
    return tuple(sorted(cards, key=lambda card: card.index, reverse=True))


def row_values(ordered: Sequence[Card]) -> tuple[np.ndarray, np.ndarray]:
    """Strength of every 5-card subset (1,287) and every 3-card subset (286) of the
    ordered 13 cards, as ``engine.hands`` would give them."""
    ranks = np.fromiter((c.rank for c in ordered), dtype=np.int64, count=N_CARDS)
    suits = np.fromiter((_SUIT_BITS[c.suit] for c in ordered), dtype=np.int64, count=N_CARDS)
    ranks5 = ranks[SUB5]
    keys = np.prod(_PRIMES[ranks5], axis=1)
    flush = np.bitwise_and.reduce(suits[SUB5], axis=1) != 0
    values5 = PLAIN_TABLE[np.searchsorted(PLAIN_KEYS, keys)]
    if flush.any():
        values5[flush] = FLUSH_TABLE[np.searchsorted(FLUSH_KEYS, keys[flush])]
    ranks3 = ranks[SUB3]
    values3 = FRONT_TABLE[ranks3[:, 0] * 225 + ranks3[:, 1] * 15 + ranks3[:, 2]]
    return values5, values3


def split_cards(ordered: Sequence[Card], split: int) -> tuple[tuple[Card, ...], ...]:
    """(front, middle, back) cards of split number ``split``, each row in the usual
    display order (highest rank first, suits in a fixed order)."""
    front = tuple(sort_cards([ordered[i] for i in SUB3[SPLIT_FRONT[split]]]))
    middle = tuple(sort_cards([ordered[i] for i in SUB5[SPLIT_MIDDLE[split]]]))
    back = tuple(sort_cards([ordered[i] for i in SUB5[SPLIT_BACK[split]]]))
    return front, middle, back


def greedy_split(values5: np.ndarray, values3: np.ndarray) -> int:
    """The greedy player's split: the strongest back, then the strongest middle from
    what is left, then the front (of equal backs, the one that leaves the strongest
    middle, then front). Always legal: the back is the strongest 5 of all 13 cards, and
    the middle, the strongest 5 of the 8 left, is at least the front's 3 plus any two."""
    backs = np.flatnonzero(values5 == values5.max())
    splits = (backs[:, None] * MIDDLES_PER_BACK + np.arange(MIDDLES_PER_BACK)).ravel()
    middle = values5[SPLIT_MIDDLE[splits]]
    splits = splits[middle == middle.max()]
    front = values3[SPLIT_FRONT[splits]]
    return int(splits[np.argmax(front)])
