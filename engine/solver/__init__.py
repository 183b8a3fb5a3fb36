"""Setting solver: the best ways to set 13 cards under a rule set, with their values.

``solve(cards, rules, players, top)`` ranks settings by expected units against realistic
opponents; ``compare(setting, ...)`` says what a player's own setting gives up;
``greedy_setting(cards)`` is the simple baseline the benchmark plays against.
"""

from .core import (
    Advice,
    Comparison,
    RatedSetting,
    compare,
    find_natural,
    greedy_setting,
    rate,
    solve,
)

__all__ = [
    "Advice",
    "Comparison",
    "RatedSetting",
    "compare",
    "find_natural",
    "greedy_setting",
    "rate",
    "solve",
]
