"""Every special 13-card hand the documents name, found, valued and compared per preset."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.naturals import NATURAL_NAMES, compare_naturals, detect_natural, find_naturals
from engine.rules import NATURAL_KEYS, Rules, preset

EVERY = Rules(name="every", naturals={key: 1 for key in NATURAL_KEYS})

# One example hand per natural, most taken from the Wikipedia article's illustrations.
EXAMPLES = {
    "six_pairs": "3d 8h 8d 6c 6s Th Td Jc Js Qh Qd Ac As",
    "five_pairs_and_triple": "8c 8h 8d 9c 9s Th Td Jc Js Qh Qd Kc Ks",
    "four_triples": "7c 3h 3d 3s 8c 8h 8d Tc Th Td Ah Ad As",
    "three_quads": "Kh 8c 8d 8h 8s Tc Td Th Ts Ac Ad Ah As",
    "three_straights": "Ac 2h 3d Tc Js Qh Kd Ah Ts Jh Qd Kc As",
    "three_flushes": "2c 8c Qc 4d 5d 7d Td Jd 2s 5s 9s Js As",
    "three_straight_flushes": "Ad 2d 3d Th Jh Qh Kh Ah Ts Js Qs Ks As",
    "dragon": "2s 3c 4d 5h 6s 7h 8d 9c Ts Jc Qd Kh As",
    "clean_dragon": "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As",
    "thirteen_one_suit": "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As",
    "one_colour": "2h 2d 3d 4h 7h 8h 9h Td Jd Qh Kh Kd Ah",
    "twelve_one_colour": "2h 2d 3d 4h 7h 8h 9h Td Jd Qh Kh Kd As",
    "all_small": "2c 3c 3d 3h 5s 5c 5d 6h 6s 7c 7d 7h 8s",
    "all_big": "8c 9c 9d Th Ts Jc Jd Jh Qs Qc Kd Ah As",
    "twelve_royalties": "Js Jc Jd Jh Qc Qh Qd Kc Kd Kh Ad Ah As",
    "twelve_pictures_plus_one": "Js Jc Jd Jh Qs Qc Qh Qd Ks Kc Kd Kh 2c",
    "small_cards": "2c 3c 3d 3h 5s 5c 5d 6h 6s 7c 7d 9h 9s",
    "no_pictures": "2c 3c 3d 3h 5s 5c 5d 6h 6s 7c 7d Ah Ts",
}


@pytest.mark.parametrize("key", sorted(EXAMPLES))
def test_each_natural_is_found(key: str) -> None:
    found = {n.key for n in find_naturals(parse_cards(EXAMPLES[key]), EVERY)}
    assert key in found


def test_every_named_natural_has_an_example() -> None:
    assert set(EXAMPLES) == set(NATURAL_KEYS) == set(NATURAL_NAMES)


def test_ordinary_hand_has_none() -> None:
    cards = parse_cards("2s 7c 4d 5h 9s Jh 8d Kc Ts Jc Qd Kh As")
    assert [n.key for n in find_naturals(cards, EVERY) if n.key != "no_pictures"] == []
    assert find_naturals(cards, preset("wikipedia")) == []


def test_three_straights_shows_the_arrangement() -> None:
    natural = detect_natural("three_straights", parse_cards(EXAMPLES["three_straights"]),
                             preset("pagat"))
    assert natural is not None
    assert sorted(c.rank for c in natural.front) == [2, 3, 14]
    assert {c.rank for c in natural.back} == {10, 11, 12, 13, 14}
    assert {c.rank for c in natural.middle} == {10, 11, 12, 13, 14}


def test_wikipedia_three_straights_excludes_queen_king_ace_front() -> None:
    cards = parse_cards("Qc Kh Ad 2c 3h 4d 5s 6c 2d 3s 4c 5h 6d")
    assert detect_natural("three_straights", cards, preset("wikipedia")) is None
    found = detect_natural("three_straights", cards, preset("pagat"))
    assert found is not None and sorted(c.rank for c in found.front) == [12, 13, 14]


def test_three_flushes_eight_of_one_suit_count_as_two() -> None:
    cards = parse_cards("2h 3h 4h 5h 9h Th Jh Kh 2s 5s 9s Js As")
    natural = detect_natural("three_flushes", cards, preset("pagat"))
    assert natural is not None
    # Best back first: the ace-high spade flush beats the best heart flush (king-high).
    assert {c.suit for c in natural.back} == {"s"}
    assert {c.suit for c in natural.middle} == {c.suit for c in natural.front} == {"h"}
    assert sorted(c.rank for c in natural.middle) == [5, 9, 10, 11, 13]


def test_six_pairs_quads_count_as_two_pairs_and_compare_highest_pair_down() -> None:
    rules = preset("pagat")
    with_quads = find_naturals(parse_cards("Ac As Ah Ad Ks Kh Qs Qh Js Jh Ts Th 9h"), rules)[0]
    lower = find_naturals(parse_cards("Kc Kd Qc Qd Jc Jd Tc Td 9c 9d 8c 8d 2s"), rules)[0]
    assert with_quads.key == lower.key == "six_pairs"
    assert compare_naturals(with_quads, lower, rules) == 1


def test_preset_ranks_and_values() -> None:
    rules = preset("wikipedia")
    found = find_naturals(parse_cards(EXAMPLES["clean_dragon"]), rules)
    assert [n.key for n in found][:2] == ["clean_dragon", "dragon"]
    assert found[0].points == 108
    # Three straights beats six pairs in pagat's ascending order, both worth 3.
    pagat = preset("pagat")
    straights = find_naturals(parse_cards(EXAMPLES["three_straights"]), pagat)[0]
    pairs = find_naturals(parse_cards(EXAMPLES["six_pairs"]), pagat)[0]
    assert compare_naturals(straights, pairs, pagat) == 1
    # Singapore: two 3-point claims pay each other nothing.
    singapore = preset("singapore")
    s1 = find_naturals(parse_cards(EXAMPLES["three_straights"]), singapore)[0]
    s2 = find_naturals(parse_cards(EXAMPLES["six_pairs"]), singapore)[0]
    assert compare_naturals(s1, s2, singapore) == 0


def test_dragons_tie() -> None:
    rules = preset("pagat")
    a = find_naturals(parse_cards(EXAMPLES["dragon"]), rules)[0]
    b = find_naturals(parse_cards("2h 3s 4c 5d 6h 7s 8c 9d Th Js Qc Kd Ac"), rules)[0]
    assert compare_naturals(a, b, rules) == 0
