"""The text-reader study's parsing of what the recogniser read (vision.training.ocr_report)."""

from __future__ import annotations

import pytest

from vision.training.ocr_report import rank_in


@pytest.mark.parametrize(("text", "rank"), [
    ("K", "K"), ("10", "T"), ("1O", "T"), ("IO", "T"), ("q", "Q"), ("7+", "7"),
    (" a ", "A"), ("4a", "4"), ("21", "2"), ("", None), ("+*", None), ("0", None),
])
def test_the_rank_is_the_first_rank_in_the_text(text: str, rank: str | None) -> None:
    assert rank_in(text) == rank
