"""Every worked example in the rule documents, replayed and settled."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from conftest import load_json

from engine.rules import preset, rules_from_dict
from engine.scoring import Player, settle
from engine.setting import Setting
from engine.table import parse_table

# Three hands that come back in several tests: each beats the next on every row.
STRONG = Setting.parse("Ac Ad Kh", "Ks Kd Qs Qh 2c", "Js Jd Jh 9c 9d")
WEAK = Setting.parse("2s 3d 5h", "4c 4d 6s 7h 8c", "Tc Td Th 8s 2d")
WEAKER = Setting.parse("2h 3c 5c", "4s 4h 6d 7s 8d", "9s 9h 3s 6c 7c")


def _settle(data: dict, rules: str | None = None):
    players, table_rules = parse_table(data, rules)
    return settle(players, table_rules)


def test_pagat_four_player_table() -> None:
    data = json.loads((resources.files("engine") / "examples" / "pagat-four-players.json")
                      .read_text())
    result = _settle(data)
    assert result.totals == {"North": 3, "East": -5, "South": 3, "West": -1}
    rows = {(p.a, p.b): tuple(p.rows.values()) for p in result.pairs}
    # The winners of each row exactly as the pagat table prints them.
    assert rows == {
        ("North", "East"): ("North", "North", "North"),
        ("North", "South"): ("South", "South", "North"),
        ("North", "West"): ("North", "North", "West"),
        ("East", "South"): ("South", "South", "East"),
        ("East", "West"): ("East", "West", "West"),
        ("South", "West"): ("South", "South", "West"),
    }


def test_pagat_bonus_example_a_pays_b_three() -> None:
    result = _settle(load_json("pagat-bonus.json"))
    assert result.totals == {"A": -3, "B": 3}
    units = sorted((p.to, p.units) for p in result.pairs[0].payments)
    assert units == [("A", 3), ("B", 2), ("B", 4)]


@pytest.mark.parametrize(("rules", "amy"), [("2-4", 2), ("1-6", 1)])
def test_wikipedia_amy_and_bob(rules: str, amy: int) -> None:
    result = _settle(load_json("wikipedia-amy-bob.json"), rules)
    assert result.totals == {"Amy": amy, "Bob": -amy}
    assert list(result.pairs[0].rows.values()) == ["Amy", "Bob", "Amy"]


def test_german_three_player_example() -> None:
    result = _settle(load_json("german-three-players.json"))
    assert result.totals == {"Player 1": -1, "Player 2": 6, "Player 3": -5}
    assert result.naturals["Player 2"].key == "three_flushes"
    one_three = next(p for p in result.pairs if (p.a, p.b) == ("Player 1", "Player 3"))
    reasons = sorted((p.to, p.units, p.kind) for p in one_three.payments)
    assert reasons == [("Player 1", 1, "overall"), ("Player 1", 1, "row"),
                       ("Player 1", 1, "row"), ("Player 1", 3, "royalty"),
                       ("Player 3", 1, "row"), ("Player 3", 3, "royalty")]
    # No royalties against a natural: Player 1's trips earn nothing from Player 2.
    one_two = next(p for p in result.pairs if (p.a, p.b) == ("Player 1", "Player 2"))
    assert [(p.to, p.units) for p in one_two.payments] == [("Player 2", 3)]


def test_hawaiian_gardens_chips_example() -> None:
    data = load_json("hawaiian-chips.json")
    result = _settle(data)
    start = 8
    assert start + result.totals["A"] == 12
    nets = {(p.a, p.b): p.net for p in result.pairs}
    assert nets[("A", "B")] == 6
    assert nets[("A", "C")] == -2
    assert nets[("A", "D")] == 0
    # Without the stack, A would have paid C the full 6 and D 1.
    del data["players"][0]["stack"]
    unlimited = _settle(data)
    assert unlimited.totals["A"] == 6 - 6 - 1


def test_hawaiian_gardens_sweep_of_every_opponent_pays_nine() -> None:
    rules = preset("hawaiian-gardens")
    result = settle([Player("S", STRONG), Player("W", WEAK), Player("X", WEAKER)], rules)
    assert result.totals["S"] == 18


def test_two_fouled_hands_pay_each_other_nothing_and_scoop_otherwise() -> None:
    rules = preset("2-4")
    foul1 = Setting.parse("Ac Ad Kh", "2c 3d 5h 7s 9c", "Js Jd 4h 8c 6d")
    foul2 = Setting.parse("Kc Ks Qh", "2s 3s 5d 7d 9d", "Jh Jc 4s 8d 6c")
    fine = Setting.parse("2h 3h 4c", "5c 5s 6h 6s 7c", "Th Tc Td 9h 9s")
    result = settle([Player("F1", foul1), Player("F2", foul2), Player("OK", fine)], rules)
    assert result.fouls == ["F1", "F2"]
    assert result.totals == {"F1": -4, "F2": -4, "OK": 8}


def test_surrender_and_two_rows_price() -> None:
    rules = rules_from_dict({"surrender": "two-rows", "overall_point": 1}, preset("pagat"))
    hand = Setting.parse("2h 3h 4c", "5c 5s 6h 6s 7c", "Th Tc Td 9h 9s")
    result = settle([Player("Q", hand, surrender=True), Player("P", STRONG)], rules)
    assert result.totals == {"Q": -2, "P": 2}


def test_bank_wins_ties_and_players_meet_only_the_bank() -> None:
    rules = preset("malayan")
    bank = Setting.parse("2h 3h 4c", "5c 5s 6h 6s 7c", "Th Tc Td 9h 9s")
    same = Setting.parse("2d 3d 4s", "5d 5h 6d 6c 7s", "8c 8d 8h Ks Kd")
    other = Setting.parse("Ac Ad Kh", "Qs Qd Jc Jd 2c", "As Ah Js Jh 9c")
    result = settle([Player("Bank", bank, bank=True), Player("P1", same), Player("P2", other)],
                    rules)
    assert {(p.a, p.b) for p in result.pairs} == {("Bank", "P1"), ("Bank", "P2")}
    bank_p1 = next(p for p in result.pairs if p.b == "P1")
    assert bank_p1.rows["front"] == "Bank" and bank_p1.rows["middle"] == "Bank"


def test_taiwanese_scoop_doubles_base_points_not_royalties() -> None:
    rules = preset("taiwanese")
    royal = Setting.parse("Ac Ad Ah", "Ks Kd Kh Qh Qc", "Js Jd Jh Jc 9d")
    result = settle([Player("S", royal), Player("W", WEAK)], rules)
    # Rows 3 + overall 1 = 4, doubled to 8; royalties 3 + 1 + 2 = 6 added: 14.
    assert result.totals["S"] == 14


def test_vietnamese_triple_when_every_opponent_is_scooped() -> None:
    rules = preset("vietnamese")
    two = settle([Player("S", STRONG), Player("W", WEAK)], rules)
    assert two.totals["S"] == 6  # heads-up: double; "every opponent" needs two or more
    three = settle([Player("S", STRONG), Player("W", WEAK), Player("X", WEAKER)], rules)
    assert three.totals["S"] == 18


def test_pool_best_rows_collect_and_a_sweep_takes_more() -> None:
    rules = rules_from_dict({"pool": True}, preset("simple"))
    result = settle([Player("S", STRONG), Player("W", WEAK), Player("X", WEAKER)], rules)
    # Pool 9: S takes it all (net +6) and each other player pays 3 more.
    assert result.totals == {"S": 12, "W": -6, "X": -6}
    assert result.pool is not None and result.pool["sweep"] == "S"


def test_single_winner_collects_one_from_each() -> None:
    rules = rules_from_dict({"single_winner": True}, preset("simple"))
    result = settle([Player("S", STRONG), Player("W", WEAK), Player("X", WEAKER)], rules)
    assert result.totals == {"S": 2, "W": -1, "X": -1}
