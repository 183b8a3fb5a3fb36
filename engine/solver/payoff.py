"""What one setting wins from another under a rule set, for many pairs at once.

This is ``engine.scoring``'s pair showdown (rows, royalties, overall point, sweep, scoop
and home-run multipliers, the two-of-three scheme) restated on numpy arrays of row
strengths, so the solver can score each candidate setting against thousands of
opponent settings in one go. ``tests/test_solver.py`` checks it against
``engine.scoring.settle`` on random deals under every preset, so the two cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..hands import Category
from ..rules import Rules

ROW_NAMES = ("front", "middle", "back")

# A fouled hand loses every row: give it a strength below every real hand.
FOUL_VALUE = -1


def royalty_table(rules: Rules, row: str) -> np.ndarray:
    """Royalty of one row by ``strength >> 16`` (category << 4 | top rank): a flat table
    of 144, so a look-up is one gather. The last entry (a straight flush with top rank
    15, which does not exist) is 0, and it is where a fouled row's -1 lands."""
    table = np.zeros(9 * 16, dtype=np.float64)
    if rules.royalty_mode == "none":
        return table
    for category in Category:
        for top in range(2, 15):
            table[int(category) << 4 | top] = rules.royalty(row, category, top)
    assert table[-1] == 0
    return table


def royalties_of(values: np.ndarray, table: np.ndarray) -> np.ndarray:
    """Royalty of each row strength in ``values`` (a fouled row, -1, earns none)."""
    return table[np.asarray(values) >> 16]


@dataclass(frozen=True)
class PayoffRules:
    """The numbers of a rule set that the pair payoff needs, with royalty tables."""

    rules: Rules
    royalty: tuple[np.ndarray, np.ndarray, np.ndarray]

    @classmethod
    def of(cls, rules: Rules) -> PayoffRules:
        return cls(rules, tuple(royalty_table(rules, row) for row in ROW_NAMES))  # type: ignore[arg-type]

    @property
    def has_royalties(self) -> bool:
        return self.rules.royalty_mode != "none" and any(t.any() for t in self.royalty)

    def royalties(self, values: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        return tuple(royalties_of(v, t) for v, t in zip(values, self.royalty, strict=True))


def pair_payoff(
    prules: PayoffRules,
    mine: tuple[np.ndarray, ...],
    theirs: tuple[np.ndarray, ...],
    my_roy: tuple[np.ndarray, ...] | None = None,
    their_roy: tuple[np.ndarray, ...] | None = None,
    every_mine: bool = False,
    every_theirs: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Net units ``mine`` wins from ``theirs`` (front, middle, back strengths, broadcast
    against each other), and the part of it that is paid row by row (row points and
    royalties, before the overall point, sweep and scoop multipliers).

    ``every_mine`` / ``every_theirs``: a scoop by that side also scoops every other
    opponent at the table (home run), so the bigger multiplier applies.
    Neither side may be a natural or a surrender; a fouled side has strength -1 in
    every row and royalties 0.
    """
    rules = prules.rules
    royal = prules.has_royalties
    if royal and my_roy is None:
        my_roy = prules.royalties(mine)
    if royal and their_roy is None:
        their_roy = prules.royalties(theirs)
    win_rows = [m > t for m, t in zip(mine, theirs, strict=True)]
    lose_rows = [m < t for m, t in zip(mine, theirs, strict=True)]
    wins = win_rows[0].astype(np.int8) + win_rows[1] + win_rows[2]
    losses = lose_rows[0].astype(np.int8) + lose_rows[1] + lose_rows[2]

    base_me: np.ndarray | float = 0.0
    base_them: np.ndarray | float = 0.0
    bonus_me: np.ndarray | float = 0.0
    bonus_them: np.ndarray | float = 0.0
    mode = rules.royalty_mode
    per_row = rules.row_scheme == "per-row"
    for r in range(3):
        if per_row:
            if royal and mode == "winner-instead":
                assert my_roy is not None and their_roy is not None
                unit_me = np.where(my_roy[r] > 0, my_roy[r], rules.row_points)
                unit_them = np.where(their_roy[r] > 0, their_roy[r], rules.row_points)
                base_me = base_me + win_rows[r] * unit_me
                base_them = base_them + lose_rows[r] * unit_them
            else:
                base_me = base_me + win_rows[r] * rules.row_points
                base_them = base_them + lose_rows[r] * rules.row_points
        if royal and mode == "winner-added":
            assert my_roy is not None and their_roy is not None
            bonus_me = bonus_me + win_rows[r] * my_roy[r]
            bonus_them = bonus_them + lose_rows[r] * their_roy[r]
        elif royal and mode == "always":
            assert my_roy is not None and their_roy is not None
            bonus_me = bonus_me + my_roy[r]
            bonus_them = bonus_them + their_roy[r]
    linear = (base_me + bonus_me) - (base_them + bonus_them)

    if not per_row:
        three_me = rules.three_of_three_all_units if every_mine else rules.three_of_three_units
        three_them = (rules.three_of_three_all_units if every_theirs
                      else rules.three_of_three_units)
        base_me = np.where(wins == 3, three_me, np.where(wins == 2, rules.two_of_three_units, 0.0))
        base_them = np.where(losses == 3, three_them,
                             np.where(losses == 2, rules.two_of_three_units, 0.0))
    if rules.overall_point:
        if rules.overall_counts_royalties:
            score = (base_me + bonus_me) - (base_them + bonus_them)
        else:
            score = wins - losses
        lead = np.sign(score)
        base_me = base_me + (lead > 0) * rules.overall_point
        base_them = base_them + (lead < 0) * rules.overall_point
    swept_me = wins == 3
    swept_them = losses == 3
    if rules.sweep_bonus:
        base_me = base_me + swept_me * rules.sweep_bonus
        base_them = base_them + swept_them * rules.sweep_bonus
    mult_me = rules.all_scooped_multiplier if every_mine else rules.scoop_multiplier
    mult_them = rules.all_scooped_multiplier if every_theirs else rules.scoop_multiplier
    extra_me = swept_me * (base_me * (mult_me - 1)) if mult_me > 1 else 0.0
    extra_them = swept_them * (base_them * (mult_them - 1)) if mult_them > 1 else 0.0
    total = (base_me + bonus_me + extra_me) - (base_them + bonus_them + extra_them)
    return np.asarray(total, dtype=np.float64), np.asarray(linear, dtype=np.float64)


def surrender_units(rules: Rules) -> float:
    """What a surrender pays each opponent (as ``engine.scoring`` settles it)."""
    if rules.surrender is False:
        return 0.0
    if rules.surrender == "two-rows":
        if rules.row_scheme == "two-of-three":
            return float(rules.two_of_three_units)
        return float(rules.row_points + rules.overall_point)
    return float(rules.surrender)
