"""Hand strength: checked against an evaluator nobody here wrote, and exhaustively for 3 cards."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from treys import Card as TreysCard
from treys import Evaluator

from engine.cards import DECK, Card, parse_cards
from engine.hands import (
    Category,
    all_three_card_kinds,
    category_name,
    describe,
    evaluate,
    evaluate3,
    evaluate5,
)


def test_order_matches_treys_on_200000_random_pairs() -> None:
    rng = random.Random(20261121)
    evaluator = Evaluator()
    treys_cards = {card: TreysCard.new(str(card)) for card in DECK}
    disagreements = 0
    for _ in range(200_000):
        a, b = rng.sample(DECK, 5), rng.sample(DECK, 5)
        ours = (evaluate5(a) > evaluate5(b)) - (evaluate5(a) < evaluate5(b))
        ta = evaluator.evaluate([treys_cards[c] for c in a[:2]], [treys_cards[c] for c in a[2:]])
        tb = evaluator.evaluate([treys_cards[c] for c in b[:2]], [treys_cards[c] for c in b[2:]])
        theirs = (ta < tb) - (ta > tb)  # treys: lower is stronger
        disagreements += ours != theirs
    assert disagreements == 0


@pytest.mark.parametrize(
    "text",
    ["As Ks Qs Js Ts", "9h 8h 7h 6h 5h", "Qc Qd Qh Qs 2c", "Kc Kd Kh 3s 3c", "2h 7h 9h Jh Kh",
     "Ac 2d 3h 4s 5c", "7c 7d 7h As 2c", "9s 9d 5h 5c 2s", "Ks Kh 9c 5d 3s", "Kc Ad 2h 3s 4c"],
)
def test_category_names_agree_with_treys(text: str) -> None:
    evaluator = Evaluator()
    cards = [TreysCard.new(token) for token in text.split()]
    theirs = evaluator.class_to_string(evaluator.get_rank_class(
        evaluator.evaluate(cards[:2], cards[2:]))).lower()
    ours = category_name(evaluate5(parse_cards(text)))
    assert ours == theirs


def _oracle3(ranks: tuple[int, ...]) -> tuple:
    """An independent ordering for 3-card fronts: more of a kind first, then ranks."""
    counts = Counter(ranks)
    return (sorted(counts.values(), reverse=True),
            sorted(ranks, key=lambda r: (counts[r], r), reverse=True))


def test_all_455_three_card_kinds_exhaustively() -> None:
    kinds = all_three_card_kinds()
    assert len(kinds) == 455
    suits = "shdc"
    values = {}
    for ranks in kinds:
        cards = [Card(r, suits[i]) for i, r in enumerate(ranks)]
        values[ranks] = evaluate3(cards)
    categories = Counter(Category(v >> 20) for v in values.values())
    assert categories == {Category.HIGH_CARD: 286, Category.PAIR: 156, Category.TRIPS: 13}
    for a, b in combinations(kinds, 2):
        expected = (_oracle3(a) > _oracle3(b)) - (_oracle3(a) < _oracle3(b))
        got = (values[a] > values[b]) - (values[a] < values[b])
        assert got == expected, (a, b)


def test_front_ignores_straights_and_flushes() -> None:
    assert evaluate(parse_cards("As Ks Qs")) < evaluate(parse_cards("2c 2d 3h"))
    assert category_name(evaluate(parse_cards("4s 3s 2s"))) == "high card"


def test_front_compares_with_middle_as_if_missing_lowest_kickers() -> None:
    front = evaluate(parse_cards("Kc Kd 9h"))
    middle = evaluate(parse_cards("Ks Kh 9c 5d 3s"))
    assert front < middle
    assert evaluate(parse_cards("Kc Kd Th")) > middle
    assert evaluate(parse_cards("Ac Kd Qh")) < evaluate(parse_cards("As Ks Qd 3c 2d"))


@pytest.mark.parametrize(
    ("text", "name", "words"),
    [
        ("As Ks Qs Js Ts", "royal flush", "royal flush"),
        ("5d 4d 3d 2d Ad", "straight flush", "straight flush, five-high"),
        ("9s 9d 5h 5c 2s", "two pair", "two pair, nines and fives"),
        ("Ks Kh 9c 5d 3s", "pair", "pair of kings"),
        ("Ac 2d 3h 4s 5c", "straight", "straight, five-high"),
        ("Kc Ad 2h 3s 4c", "high card", "ace-high"),
        ("6c 6d 6h 2s 2c", "full house", "full house, sixes full of twos"),
        ("6c 6d 6h", "three of a kind", "three of a kind, sixes"),
    ],
)
def test_names(text: str, name: str, words: str) -> None:
    value = evaluate(parse_cards(text))
    assert category_name(value) == name
    assert describe(value) == words


def test_wheel_is_lowest_straight() -> None:
    wheel = evaluate(parse_cards("Ac 2d 3h 4s 5c"))
    six_high = evaluate(parse_cards("2d 3h 4s 5c 6d"))
    broadway = evaluate(parse_cards("Tc Jd Qh Ks Ac"))
    assert wheel < six_high < broadway
    assert evaluate(parse_cards("Kc Ad 2h 3s 4c")) < wheel  # no wrap-around
