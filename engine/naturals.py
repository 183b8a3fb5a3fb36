"""Naturals: the special 13-card hands that win automatically when declared.

Each natural the rule documents name is a detector that returns the arrangement (where
one matters: three straights, three flushes, three straight flushes, found by search)
and a tie-break key used when two players declare the same natural. Which naturals a
table plays and what they are worth is data in the rule set.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from .cards import SUIT_CHARS, Card, CardError, card_names, ensure_distinct, sort_cards
from .hands import evaluate3, evaluate5
from .rules import NATURAL_KEYS, Rules

NATURAL_NAMES: dict[str, str] = {
    "no_pictures": "no pictures",
    "small_cards": "small cards",
    "six_pairs": "six pairs",
    "three_straights": "three straights",
    "three_flushes": "three flushes",
    "twelve_one_colour": "twelve of one colour",
    "five_pairs_and_triple": "five pairs and a triple",
    "four_triples": "four triples",
    "one_colour": "one colour",
    "all_small": "all small",
    "all_big": "all big",
    "three_quads": "three quads",
    "three_straight_flushes": "three straight flushes",
    "twelve_pictures_plus_one": "all twelve pictures plus one",
    "twelve_royalties": "twelve royalties",
    "dragon": "dragon",
    "thirteen_one_suit": "thirteen of one suit",
    "clean_dragon": "clean dragon",
}
assert set(NATURAL_NAMES) == set(NATURAL_KEYS)

PICTURES = (11, 12, 13)


@dataclass(frozen=True, slots=True)
class Natural:
    """A natural found in 13 cards. ``rows`` are front, middle, back; for naturals whose
    arrangement does not matter they are the cards from the highest down."""

    key: str
    points: float
    front: tuple[Card, ...]
    middle: tuple[Card, ...]
    back: tuple[Card, ...]
    tiebreak: tuple[int, ...] = ()

    @property
    def name(self) -> str:
        return NATURAL_NAMES[self.key]

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "key": self.key,
            "points": self.points,
            "front": card_names(self.front),
            "middle": card_names(self.middle),
            "back": card_names(self.back),
        }


Arrangement = tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...], tuple[int, ...]]
Detector = Callable[[Sequence[Card], Rules], Arrangement | None]


def _sorted_rows(cards: Sequence[Card], tiebreak: tuple[int, ...] = ()) -> Arrangement:
    ordered = tuple(sort_cards(cards))
    return ordered[10:], ordered[5:10], ordered[:5], tiebreak


def _when(test: Callable[[Sequence[Card], Rules], bool],
          tiebreak: Callable[[Sequence[Card]], tuple[int, ...]] | None = None) -> Detector:
    def detect(cards: Sequence[Card], rules: Rules) -> Arrangement | None:
        if not test(cards, rules):
            return None
        return _sorted_rows(cards, tiebreak(cards) if tiebreak else ())
    return detect


def _counts(cards: Sequence[Card]) -> Counter[int]:
    return Counter(card.rank for card in cards)


def _pair_ranks(cards: Sequence[Card]) -> tuple[int, ...]:
    """Ranks of the pairs, highest first; four of a kind counts as two pairs."""
    counts = _counts(cards)
    return tuple(sorted((r for r, n in counts.items() for _ in range(n // 2)), reverse=True))


def _five_pairs_and_triple(cards: Sequence[Card], _rules: Rules) -> bool:
    counts = _counts(cards)
    for triple in (r for r, n in counts.items() if n >= 3):
        rest = [n - 3 if r == triple else n for r, n in counts.items()]
        if all(n % 2 == 0 for n in rest) and sum(n // 2 for n in rest) == 5:
            return True
    return False


def _colours(cards: Sequence[Card]) -> Counter[bool]:
    return Counter(card.is_red for card in cards)


# --- arrangement searches ------------------------------------------------------------

def _window(top: int, size: int) -> list[int]:
    """Ranks of a straight of ``size`` ending at ``top``; rank 1 stands for the ace."""
    return [14 if r == 1 else r for r in range(top - size + 1, top + 1)]


def _front_tops(rules: Rules) -> range:
    return range(3, 15 if rules.front_straight_ace_high else 14)


def _take(pool: list[Card], ranks: Sequence[int], suit: str | None = None) -> list[Card] | None:
    """Remove one card of each rank (of ``suit`` if given) from ``pool``; None if missing."""
    taken: list[Card] = []
    for rank in ranks:
        match = next((c for c in pool if c.rank == rank and (suit is None or c.suit == suit)),
                     None)
        if match is None:
            pool.extend(taken)
            return None
        pool.remove(match)
        taken.append(match)
    return taken


def _three_straights(cards: Sequence[Card], rules: Rules, suited: bool) -> Arrangement | None:
    """Back and middle 5-card straights and a 3-card straight front, best back first."""
    suits: Sequence[str | None] = SUIT_CHARS if suited else (None,)
    for back_top, back_suit in product(range(14, 4, -1), suits):
        pool = list(cards)
        back = _take(pool, _window(back_top, 5), back_suit)
        if back is None:
            continue
        for middle_top, middle_suit in product(range(back_top, 4, -1), suits):
            middle = _take(pool, _window(middle_top, 5), middle_suit)
            if middle is None:
                continue
            front_suit = pool[0].suit if suited else None
            for front_top in reversed(_front_tops(rules)):
                if sorted(c.rank for c in pool) == sorted(_window(front_top, 3)) and (
                    front_suit is None or all(c.suit == front_suit for c in pool)
                ):
                    front = tuple(sort_cards(pool))
                    return front, tuple(middle), tuple(back), (back_top, middle_top, front_top)
            pool.extend(middle)
    return None


def _three_flushes(cards: Sequence[Card], _rules: Rules) -> Arrangement | None:
    """Back and middle flushes and a 3-card flush front, best back, then middle, front."""
    by_suit = {s: [c for c in cards if c.suit == s] for s in SUIT_CHARS}
    best: tuple[tuple[int, int, int], Arrangement] | None = None
    for back_suit, middle_suit, front_suit in product(SUIT_CHARS, repeat=3):
        need = Counter({back_suit: 5}) + Counter({middle_suit: 5}) + Counter({front_suit: 3})
        if any(len(by_suit[s]) != need.get(s, 0) for s in SUIT_CHARS):
            continue
        # Cards of one suit have distinct ranks, so the best back is unique and taking
        # the best back, then the best middle from what is left, is the best arrangement.
        back = max(combinations(by_suit[back_suit], 5), key=evaluate5)
        rest = [c for c in cards if c not in back]
        middle = max(combinations([c for c in rest if c.suit == middle_suit], 5), key=evaluate5)
        front = tuple(c for c in rest if c not in middle)
        key = (evaluate5(back), evaluate5(middle), evaluate3(front))
        if best is None or key > best[0]:
            best = (key, (front, tuple(middle), tuple(back), key))
    return None if best is None else best[1]


DETECTORS: dict[str, Detector] = {
    "no_pictures": _when(lambda cs, _: all(c.rank not in PICTURES for c in cs)),
    "small_cards": _when(lambda cs, rules: all(c.rank <= rules.small_cards_max for c in cs)),
    "six_pairs": _when(lambda cs, _: len(_pair_ranks(cs)) == 6, _pair_ranks),
    "three_straights": lambda cs, rules: _three_straights(cs, rules, suited=False),
    "three_flushes": _three_flushes,
    "twelve_one_colour": _when(lambda cs, _: max(_colours(cs).values()) == 12),
    "five_pairs_and_triple": _when(_five_pairs_and_triple),
    "four_triples": _when(lambda cs, _: sum(n // 3 for n in _counts(cs).values()) == 4),
    "one_colour": _when(lambda cs, _: len(_colours(cs)) == 1),
    "all_small": _when(lambda cs, _: all(c.rank <= 8 for c in cs)),
    "all_big": _when(lambda cs, _: all(c.rank >= 8 for c in cs)),
    "three_quads": _when(lambda cs, _: sum(n == 4 for n in _counts(cs).values()) == 3),
    "three_straight_flushes": lambda cs, rules: _three_straights(cs, rules, suited=True),
    "twelve_pictures_plus_one": _when(
        lambda cs, _: sum(c.rank in PICTURES for c in cs) == 12),
    "twelve_royalties": _when(lambda cs, _: all(c.rank >= 11 for c in cs)),
    "dragon": _when(lambda cs, _: len(_counts(cs)) == 13),
    "thirteen_one_suit": _when(lambda cs, _: len({c.suit for c in cs}) == 1),
    "clean_dragon": _when(lambda cs, _: len({c.suit for c in cs}) == 1 and len(_counts(cs)) == 13),
}


def detect_natural(key: str, cards: Sequence[Card], rules: Rules) -> Natural | None:
    found = DETECTORS[key](cards, rules)
    if found is None:
        return None
    front, middle, back, tiebreak = found
    return Natural(key, rules.naturals.get(key, 0), front, middle, back, tiebreak)


def find_naturals(cards: Sequence[Card], rules: Rules) -> list[Natural]:
    """Every natural these rules play that the 13 cards make, the best first."""
    if len(cards) != 13:
        raise CardError(f"a natural needs 13 cards, got {len(cards)}")
    ensure_distinct(cards)
    found = [n for key in rules.naturals if (n := detect_natural(key, cards, rules))]
    return sorted(found, key=lambda n: rules.natural_rank(n.key), reverse=True)


def best_natural(cards: Sequence[Card], rules: Rules) -> Natural | None:
    found = find_naturals(cards, rules)
    return found[0] if found else None


def compare_naturals(a: Natural, b: Natural, rules: Rules) -> int:
    """+1 when ``a`` beats ``b``, -1 when it loses, 0 for a tie."""
    if rules.naturals_equal_values_tie and a.points == b.points:
        return 0
    rank_a, rank_b = rules.natural_rank(a.key), rules.natural_rank(b.key)
    if rank_a != rank_b:
        return 1 if rank_a > rank_b else -1
    if a.tiebreak != b.tiebreak:
        return 1 if a.tiebreak > b.tiebreak else -1
    return 0
