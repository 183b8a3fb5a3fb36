"""Legal or fouled, with the reason in words."""

from __future__ import annotations

import pytest

from engine.cards import CardError
from engine.setting import Setting


def test_legal_setting() -> None:
    setting = Setting.parse("Kc Kd 9h", "Ks Kh 9c 5d 3s", "2c 2d 2h 7s 8s")
    assert setting.is_legal and setting.foul_reason is None


def test_equal_strength_is_legal() -> None:
    assert Setting.parse("2c 3d 5h", "Ac Kd Qh 9s 7s", "Ad Kc Qs 9h 7h").is_legal


def test_middle_beats_back() -> None:
    setting = Setting.parse("2c 3d 4h", "9s 9d 5h 5c 2s", "Kc Kd 9h 7c 6c")
    assert setting.foul_reason == (
        "middle: two pair, nines and fives, beats back: pair of kings")


def test_front_beats_middle() -> None:
    setting = Setting.parse("Jc Jd 4h", "9s 9d 5h 7c 2s", "Kc Kd Kh 7s 6c")
    assert setting.foul_reason == "front: pair of jacks, beats middle: pair of nines"


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (("Jc Jd", "9s 9d 5h 7c 2s", "Kc Kd Kh 7s 6c"), "the front row needs 3 cards, got 2"),
        (("Jc Jd 2c", "9s 9d 5h 7c", "Kc Kd Kh 7s 6c"), "the middle row needs 5 cards, got 4"),
        (("Jc Jd 2c", "9s 9d 5h 7c 2s", "Kc Kd Kh 7s Jc"), "Jc appears twice"),
        (("Jc Jd 1x", "9s 9d 5h 7c 2s", "Kc Kd Kh 7s 6c"), 'front: unknown card "1x"'),
    ],
)
def test_bad_settings(rows: tuple[str, str, str], message: str) -> None:
    with pytest.raises(CardError, match=message):
        Setting.parse(*rows)
