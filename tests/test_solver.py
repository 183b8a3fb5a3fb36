"""The setting solver: legal, complete and consistent advice; the scoring it relies on
agrees with engine.scoring; the command line keeps its contract."""

from __future__ import annotations

import argparse
import io
import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import DECK, Card, parse_cards
from engine.hands import evaluate3, evaluate5
from engine.naturals import best_natural
from engine.rules import load_rules, preset, preset_names
from engine.scoring import Player, settle
from engine.setting import Setting
from engine.solver import command, compare, find_natural, greedy_setting, rate, solve
from engine.solver.payoff import FOUL_VALUE, PayoffRules, pair_payoff, surrender_units
from engine.solver.splits import (
    N_SPLITS,
    SPLIT_BACK,
    SPLIT_FRONT,
    SPLIT_MIDDLE,
    SUB3,
    SUB5,
    order_cards,
    row_values,
    split_cards,
)
from engine.solver.tables import (
    available_tables,
    load_sample,
    opponent_model,
    rank_counts,
    table_name_for,
    table_path,
)
from engine.solver.train import make_table, mix

HANKIN = "As Ks Qs Js 6s 5s 3s Qh 9h 2h Jd 8c 3c"
SOLVER_PRESETS = ["2-4", "simple", "1-6", "pagat", "wikipedia", "taiwanese", "german",
                  "hawaiian-gardens", "vietnamese", "singapore", "malayan"]

hands = st.lists(st.integers(0, 51), min_size=13, max_size=13, unique=True).map(
    lambda idx: tuple(DECK[i] for i in idx))


def rows_of(setting: Setting) -> tuple[set[Card], set[Card], set[Card]]:
    return set(setting.front.cards), set(setting.middle.cards), set(setting.back.cards)


# --- the known hand -------------------------------------------------------------------

@pytest.mark.parametrize("rules", ["2-4", "simple"])
def test_hankin_article_hand(rules: str) -> None:
    advice = solve(parse_cards(HANKIN, 13), rules, players=2)
    best = advice.best.setting
    assert rows_of(best) == (set(parse_cards("Js Jd 9h")), set(parse_cards("Qs Qh 8c 3c 2h")),
                             set(parse_cards("As Ks 6s 5s 3s")))


# --- properties -------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(cards=hands, rules=st.sampled_from(SOLVER_PRESETS), players=st.integers(2, 4))
def test_advice_is_legal_complete_and_ranked(cards: tuple[Card, ...], rules: str,
                                             players: int) -> None:
    advice = solve(cards, rules, players, top=3)
    assert 1 <= len(advice.settings) <= 3
    for rated in advice.settings:
        setting = rated.setting
        assert setting.is_legal
        assert sorted(setting.cards) == sorted(cards)
        assert all(0 <= p <= 1 for p in rated.win.values())
    evs = [rated.ev for rated in advice.settings]
    assert evs == sorted(evs, reverse=True)
    greedy = rate(greedy_setting(cards), rules, players)
    assert greedy.ev <= advice.best.ev + 1e-9
    # The best setting, rated on its own, gets the value the search gave it.
    assert rate(advice.best.setting, rules, players).ev == pytest.approx(advice.best.ev)


@settings(max_examples=30, deadline=None)
@given(cards=hands, rules=st.sampled_from(SOLVER_PRESETS))
def test_advice_json_contract(cards: tuple[Card, ...], rules: str) -> None:
    data = json.loads(json.dumps(solve(cards, rules, 2).to_dict()))
    assert data["cards"] == [str(c) for c in cards]
    assert isinstance(data["surrender"], bool)
    assert data["natural"] is None or set(data["natural"]) == {"name", "points", "declare"}
    for entry in data["settings"]:
        assert {"front", "middle", "back", "ev", "win", "royalties"} <= set(entry)
        assert set(entry["win"]) == {"front", "middle", "back"}
        assert all(len(card) == 2 for row in ("front", "middle", "back") for card in entry[row])


def test_near_duplicates_are_collapsed() -> None:
    # Only kickers differ between many good settings of this hand; the top 3 must differ
    # in what the rows are made of.
    advice = solve(parse_cards(HANKIN, 13), "2-4", top=3)
    made = {tuple((h.category, h.value >> 16 & 15) for _, h in rated.setting.hands())
            for rated in advice.settings}
    assert len(made) == len(advice.settings) == 3


@settings(max_examples=40, deadline=None)
@given(cards=hands)
def test_greedy_setting_is_legal_with_strongest_back(cards: tuple[Card, ...]) -> None:
    setting = greedy_setting(cards)
    assert setting.is_legal
    assert sorted(setting.cards) == sorted(cards)
    from itertools import combinations
    assert setting.back.value == max(evaluate5(c) for c in combinations(cards, 5))


# --- the split arrays and vectorised strengths ------------------------------------------

def test_splits_cover_every_setting_once() -> None:
    assert N_SPLITS == 72072
    full = (1 << 13) - 1
    masks = set()
    for b, m, f in zip(SPLIT_BACK, SPLIT_MIDDLE, SPLIT_FRONT, strict=True):
        bm = sum(1 << i for i in SUB5[b])
        mm = sum(1 << i for i in SUB5[m])
        fm = sum(1 << i for i in SUB3[f])
        assert bm | mm | fm == full and bm & mm == 0
        masks.add((bm, mm))
    assert len(masks) == N_SPLITS


@settings(max_examples=25, deadline=None)
@given(cards=hands)
def test_row_values_match_the_evaluator(cards: tuple[Card, ...]) -> None:
    ordered = order_cards(cards)
    v5, v3 = row_values(ordered)
    for i in range(0, len(SUB5), 97):
        assert v5[i] == evaluate5([ordered[j] for j in SUB5[i]])
    for i in range(len(SUB3)):
        assert v3[i] == evaluate3([ordered[j] for j in SUB3[i]])
    front, middle, back = split_cards(ordered, 12345)
    assert len(front) == 3 and len(middle) == len(back) == 5


@settings(max_examples=40, deadline=None)
@given(cards=hands)
def test_rank_counts_read_every_card_from_a_strength(cards: tuple[Card, ...]) -> None:
    for setting in (greedy_setting(cards), solve(cards, "2-4", top=1).best.setting):
        for _, hand in setting.hands():
            counts = rank_counts(np.array([hand.value]))[0]
            expected = np.zeros(13, dtype=np.int64)
            for card in hand.cards:
                expected[card.rank - 2] += 1
            assert counts.tolist() == expected.tolist(), str(hand)


def test_card_removal_reweights_the_opponents() -> None:
    model = opponent_model(preset("2-4"))
    aces = parse_cards("As Ah Ad Ac Ks Kh 2c 3d 4h 5s 7c 8d 9h", 13)
    plain, held = model.view(None), model.view(aces)
    assert held.exact_weights.sum() == pytest.approx(1)
    # Holding all four aces and two kings, we face no front with aces and few with
    # kings: a front pair of kings beats more opponents than against a random hand.
    front_kings = np.array([1 << 20 | 13 << 16 | 9 << 12])
    win_plain, _, _ = model.row_linear(0, front_kings, None, plain)
    win_held, _, _ = model.row_linear(0, front_kings, None, held)
    assert win_held[0] > win_plain[0] + 0.02
    assert all(b[-1] == pytest.approx(1) for b in held.below)


# --- the vectorised payoff agrees with engine.scoring -----------------------------------

def _values(setting: Setting) -> tuple[np.ndarray, ...]:
    legal = setting.is_legal
    return tuple(np.array([h.value if legal else FOUL_VALUE]) for _, h in setting.hands())


def _random_setting(cards: Sequence[Card], rng: random.Random) -> Setting:
    shuffled = list(cards)
    rng.shuffle(shuffled)
    return Setting.of(shuffled[:3], shuffled[3:8], shuffled[8:])


@pytest.mark.parametrize("name", preset_names())
def test_pair_payoff_matches_settle(name: str) -> None:
    rules = preset(name).replace(naturals={}, bank_required=False, aces_side_bet=False)
    prules = PayoffRules.of(rules)
    rng = random.Random(name)
    # Strong hands (royalties) come from dealing quads and straight flushes on purpose.
    for i in range(150):
        deal = rng.sample(DECK, 26)
        if i % 3 == 0:
            deal = [*DECK[:8], *[c for c in deal if c not in DECK[:8]]][:26]
            rng.shuffle(deal)
        settings_ = []
        for cards in (deal[:13], deal[13:]):
            pick = i % 4
            if pick == 0:
                settings_.append(_random_setting(cards, rng))
            elif pick == 1:
                settings_.append(greedy_setting(cards))
            else:
                settings_.append(solve(cards, rules, 2, top=1).best.setting)
        a, b = settings_
        if not a.is_legal and not b.is_legal:
            continue
        expected = settle([Player("a", a), Player("b", b)], rules).totals["a"]
        total, _ = pair_payoff(prules, _values(a), _values(b))
        assert total[0] == pytest.approx(expected), (name, str(a), str(b))


@pytest.mark.parametrize("name", ["2-4", "1-6", "simple", "wikipedia", "taiwanese", "german",
                                  "pagat", "vietnamese", "singapore", "malayan"])
def test_fast_paths_match_general_payoff(name: str) -> None:
    rules = preset(name).replace(all_scooped_multiplier=3, sweep_bonus=1)
    model = opponent_model(rules)
    rng = np.random.default_rng(1)
    # Strong rows (royalties) as well as the opponents' own: strengths from the sample
    # and some quads and straight flushes, with a fouled setting.
    strong = np.array([7 << 20 | 14 << 16 | 2 << 12, 8 << 20 | 9 << 16, 6 << 20 | 3 << 16,
                       3 << 20 | 12 << 16])
    mine = tuple(np.concatenate([rng.choice(model.exact[r][0], 30), strong, [FOUL_VALUE]])
                 .astype(np.int32)[:, None] for r in range(3))
    mine = (np.minimum(mine[0], 3 << 20 | 14 << 16), mine[1], mine[2])
    prules = model.prules
    my_roy = prules.royalties(mine)
    weights = rng.random(model.exact[0].shape[1])
    weights /= weights.sum()
    for every_mine, every_theirs in ((False, False), (True, False), (False, True)):
        total, row_part = model.exact_payoff(mine, my_roy if prules.has_royalties else None,
                                             every_mine, every_theirs)
        if prules.has_royalties:
            fast, _ = model.royal_remainder(mine, my_roy, weights, every_mine, every_theirs)
        else:
            fast, _ = model.plain_remainder(mine, weights, every_mine, every_theirs)
        assert np.allclose(fast, (total - row_part) @ weights, atol=1e-5)


def test_surrender_units_match_settle() -> None:
    for name in ("wikipedia", "german", "hawaiian-gardens"):
        rules = preset(name)
        cards = DECK[:26]
        players = [Player("a", cards=tuple(cards[:13]), surrender=True),
                   Player("b", setting=greedy_setting(cards[13:]))]
        assert settle(players, rules).totals["a"] == -surrender_units(rules)
    two_rows = preset("2-4").replace(surrender="two-rows")
    assert surrender_units(two_rows) == 2


# --- naturals, surrender, comparison ---------------------------------------------------

def test_find_natural_agrees_with_engine() -> None:
    rng = random.Random(3)
    rules_list = [preset(n) for n in ("wikipedia", "pagat", "malayan", "german", "singapore",
                                      "hawaiian-gardens", "vietnamese")]
    special = [
        "As Ah Ks Kh Qs Qh Js Jh Ts Th 9s 9h 2c",  # six pairs
        "2s 3s 4s 5s 6s 7h 8h 9h Th Jh Qd Kd Ad",  # dragon, three straights
        "2s 5s 7s 9s Js 3h 6h 8h Th Qh 4d 6d 9d",  # three flushes
        "As Ks Qs Js Ts 9h 8h 7h 6h 5h 4d 3d 2d",  # dragon, straight flushes
        "2s 2h 2d 5s 5h 5d 9s 9h 9d Js Jh Jd 3c",  # four triples
        "As Ks Qs Js Ah Kh Qh Jh Ad Kd Qd Jd Ac",  # twelve royalties
    ]
    hands_ = [parse_cards(text, 13) for text in special]
    hands_ += [tuple(rng.sample(DECK, 13)) for _ in range(300)]
    for cards in hands_:
        for rules in rules_list:
            fast, slow = find_natural(cards, rules), best_natural(cards, rules)
            assert (fast.key if fast else None) == (slow.key if slow else None), (
                [str(c) for c in cards], rules.name)


def test_declares_a_big_natural() -> None:
    dragon = parse_cards("2s 3h 4d 5c 6s 7h 8d 9c Ts Jh Qd Kc As", 13)
    advice = solve(dragon, "wikipedia", players=3)
    assert advice.natural is not None and advice.natural.key == "dragon"
    assert advice.declare and advice.natural_ev == 72
    assert advice.to_dict()["natural"] == {"name": "dragon", "points": 36, "declare": True}


def test_surrender_advice_is_consistent() -> None:
    rng = random.Random(11)
    seen = False
    for _ in range(60):
        advice = solve(tuple(rng.sample(DECK, 13)), "wikipedia", players=2, top=1)
        assert advice.surrender_ev == -3
        assert advice.surrender == (not advice.declare and advice.surrender_ev > advice.best.ev)
        seen |= advice.surrender
    assert solve(DECK[:13], "2-4").surrender_ev is None  # 2-4 has no surrender
    # A weak hand where surrender is cheap: surrender beats playing it.
    weak = parse_cards("2s 3h 4d 5c 7s 8h 9d Jc 2h 3d 4c 6s 7d", 13)
    cheap = preset("2-4").replace(surrender=0.5)
    advice = solve(weak, cheap)
    assert advice.surrender and advice.surrender_ev == -0.5 and advice.best.ev < -0.5
    assert not solve(parse_cards(HANKIN, 13), cheap).surrender
    del seen


def test_compare_says_what_a_setting_gives_up() -> None:
    cards = parse_cards(HANKIN, 13)
    best = solve(cards, "2-4").best
    assert compare(best.setting, "2-4").gives_up == pytest.approx(0, abs=1e-9)
    greedy = compare(greedy_setting(cards), "2-4")
    assert greedy.gives_up > 0.1 and greedy.legal
    fouled = Setting.of(parse_cards("As Ks Qs"), parse_cards("Js 6s 5s 3s Qh"),
                        parse_cards("9h 2h Jd 8c 3c"))
    foul = compare(fouled, "2-4")
    assert not foul.legal and foul.foul_reason
    assert foul.mine.ev < -3 and foul.gives_up > greedy.gives_up
    assert set(foul.to_dict()) >= {"setting", "best", "gives_up", "legal"}


# --- tables ----------------------------------------------------------------------------

def test_shipped_tables_and_fallbacks() -> None:
    shipped = available_tables()
    assert "2-4" in shipped
    for name in preset_names():
        assert table_name_for(preset(name), shipped) in shipped
    house = preset("2-4").replace(name="my-house", sweep_bonus=1)
    assert table_name_for(house, ["2-4", "1-6"]) == "1-6"
    values, meta = load_sample(table_path("2-4"))
    assert values.shape[1] == 3 and len(values) >= 10000 and meta["preset"] == "2-4"


def test_table_generation_is_seeded_and_resumable(tmp_path: Path) -> None:
    work, out = tmp_path / "work", tmp_path / "out"
    make_table("2-4", rounds=2, hands=40, seed=5, work=work, out=out, warm_start=None)
    first, _ = load_sample(out / "solver-2-4.npz")
    # A rerun finds both rounds done and only rewrites the table, identically.
    make_table("2-4", rounds=2, hands=40, seed=5, work=work, out=out, warm_start=None)
    again, _ = load_sample(out / "solver-2-4.npz")
    assert np.array_equal(first, again)
    # Starting afresh with the same seed makes the same table.
    make_table("2-4", rounds=2, hands=40, seed=5, work=tmp_path / "w2", out=tmp_path / "o2",
               warm_start=None)
    fresh, _ = load_sample(tmp_path / "o2" / "solver-2-4.npz")
    assert np.array_equal(first, fresh)
    assert len(mix(first, first[:10], 3, np.random.SeedSequence(1))) == 20


# --- the command line ---------------------------------------------------------------------

def _run(argv: list[str], capsys: pytest.CaptureFixture[str],
         stdin: str | None = None, monkeypatch: pytest.MonkeyPatch | None = None
         ) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    if stdin is not None and monkeypatch is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = command.run(parser.parse_args(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_command_single_hand(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run([HANKIN, "--rules", "2-4", "--json", "--top", "2"], capsys)
    assert code == 0
    data = json.loads(out)
    assert len(data["settings"]) == 2 and data["settings"][0]["front"] == ["Js", "Jd", "9h"]
    code, out, _ = _run(HANKIN.split(), capsys)
    assert code == 0 and "front" in out and "EV" in out and "wikipedia" in out


@pytest.mark.parametrize("argv", [
    ["As Ks"],
    ["As As Ks Qs Js 6s 5s 3s Qh 9h 2h Jd 8c"],
    [HANKIN, "--players", "5"],
    [HANKIN, "--players", "two"],
    [HANKIN, "--rules", "nonsense"],
    ["--batch", "/no/such/file"],
    [],
])
def test_command_bad_input(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_command_batch(capsys: pytest.CaptureFixture[str],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    lines = f"{HANKIN}\nAs Ks nonsense\n\n{HANKIN.lower()}\n"
    code, out, _ = _run(["--batch", "-", "--rules", "2-4"], capsys, lines, monkeypatch)
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 4
    assert rows[0]["settings"][0]["back"] == ["As", "Ks", "6s", "5s", "3s"]
    assert set(rows[1]) == {"error"} and set(rows[2]) == {"error"}
    assert rows[3]["cards"] == rows[0]["cards"]


def test_default_rules_are_the_default_preset() -> None:
    from engine.rules import DEFAULT_PRESET
    assert solve(parse_cards(HANKIN, 13)).rules.name == load_rules(DEFAULT_PRESET).name
