"""Card notation: generous reading, one canonical output, exact error messages."""

from __future__ import annotations

import pytest

from engine.cards import DECK, Card, CardError, format_cards, parse_card, parse_cards


@pytest.mark.parametrize(
    ("token", "expected"),
    [("As", "As"), ("Td", "Td"), ("10d", "Td"), ("ah", "Ah"), ("A♠", "As"), ("♠A", "As"),
     ("10♥", "Th"), ("♦10", "Td"), ("kc", "Kc"), ("2S", "2s"), ("tH", "Th"), ("♣q", "Qc")],
)
def test_reads_every_notation(token: str, expected: str) -> None:
    assert str(parse_card(token)) == expected


def test_separators_and_canonical_output() -> None:
    assert format_cards(parse_cards("As, Td 9h,,  10c")) == "As Td 9h Tc"


@pytest.mark.parametrize(
    ("text", "message"),
    [("1x", 'unknown card "1x"'), ("Zs", 'unknown card "Zs"'), ("A", 'unknown card "A"'),
     ("As Kd As", "As appears twice"), ("10d Td", "Td appears twice")],
)
def test_bad_cards_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(CardError, match=message):
        parse_cards(text)


def test_wrong_count() -> None:
    with pytest.raises(CardError, match="expected 13 cards, got 12"):
        parse_cards(" ".join(str(c) for c in DECK[:12]), count=13)


def test_deck_indices() -> None:
    assert len(DECK) == 52 and len(set(DECK)) == 52
    assert all(Card.from_index(card.index) == card for card in DECK)
