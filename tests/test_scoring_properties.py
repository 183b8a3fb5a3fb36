"""Properties every settlement keeps, on random tables under every preset and option."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import DECK
from engine.naturals import best_natural
from engine.rules import Rules, preset, preset_names, rules_from_dict
from engine.scoring import Player, settle
from engine.setting import Setting

OPTION_CHOICES: list[dict[str, Any]] = [
    {},
    {"sweep_bonus": 3},
    {"overall_point": 1, "royalty_mode": "always"},
    {"pool": True, "bank_required": False},
    {"single_winner": True, "bank_required": False},
    {"aces_side_bet": True},
    {"surrender": "two-rows"},
]


@st.composite
def tables(draw: st.DrawFn, with_stacks: bool = True) -> tuple[list[Player], Rules]:
    rules = rules_from_dict(draw(st.sampled_from(OPTION_CHOICES)),
                            preset(draw(st.sampled_from(preset_names()))))
    count = draw(st.integers(2, 4))
    deck = draw(st.permutations(DECK))
    whole_table = rules.pool or rules.single_winner
    bank_seat = 0 if rules.bank_required else (
        None if whole_table else draw(st.sampled_from([None, 0, 1])))
    players = []
    for seat in range(count):
        cards = deck[13 * seat: 13 * seat + 13]
        front, middle, back = cards[:3], cards[3:8], cards[8:]
        setting = Setting.of(front, middle, back)
        if setting.middle.value > setting.back.value and draw(st.booleans()):
            setting = Setting.of(front, back, middle)  # mostly legal, sometimes fouled
        natural = bool(best_natural(cards, rules)) and draw(st.booleans())
        surrender = (not natural and rules.surrender_allowed
                     and draw(st.integers(0, 4)) == 0)
        stack = draw(st.sampled_from([None, None, 5, 20])) if with_stacks else None
        players.append(Player(f"P{seat}", setting, natural=natural, surrender=surrender,
                              bank=seat == bank_seat, stack=stack))
    return players, rules


FAST = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(tables())
def test_totals_sum_to_zero(table: tuple[list[Player], Rules]) -> None:
    players, rules = table
    result = settle(players, rules)
    assert abs(sum(result.totals.values())) < 1e-9
    for pair in result.pairs:
        assert abs(pair.net + sum(-p.units if p.to == pair.a else p.units
                                  for p in pair.payments)) < 1e-9


@FAST
@given(tables(with_stacks=False), st.data())
def test_swapping_two_players_swaps_their_results(
    table: tuple[list[Player], Rules], data: st.DataObject
) -> None:
    players, rules = table
    i, j = data.draw(st.lists(st.integers(0, len(players) - 1), min_size=2, max_size=2,
                              unique=True))
    swapped = list(players)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    before, after = settle(players, rules).totals, settle(swapped, rules).totals
    for name in before:
        assert abs(before[name] - after[name]) < 1e-9


@FAST
@given(tables())
def test_a_fouled_hand_never_wins_a_row(table: tuple[list[Player], Rules]) -> None:
    players, rules = table
    result = settle(players, rules)
    for pair in result.pairs:
        for winner in pair.rows.values():
            assert winner not in result.fouls
    for name in result.fouls:
        for pair in result.pairs:
            assert all(p.kind != "royalty" or p.to != name for p in pair.payments)
