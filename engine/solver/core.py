"""The setting solver: 13 cards in, the best settings under a rule set out.

Method (after Paul Hankin's "near-optimal closed-hand Chinese poker", extended):

1. Every row strength of the hand is computed once (1,287 five-card and 286 three-card
   subsets, vectorised); the 72,072 splits are index arrays into them.
2. Each split gets a fast score: for each row, the chance to beat a realistic opponent's
   row of that strength (the self-play tables, re-weighted for the cards this hand holds,
   which no opponent can hold), times what winning pays, minus what losing costs
   (royalties included). This part of the value is exact given the tables, and linear, so
   a branch and bound over the backs skips every back that cannot beat the greedy split,
   and fouled splits are dropped.
3. The best two dozen splits by that score (and the greedy split, so that it is always
   rated by the same yardstick) are then scored against a fixed sample of whole opponent
   settings, so the payments that depend on all three rows together (overall point,
   sweep, scoop, home run, two-of-three) are counted with the rows' real correlation.
   The row-by-row part of that sample payoff is used as a control variate: the estimate
   is the exact linear value plus the sample mean of the non-linear remainder, which is
   much less noisy than the sample mean of the whole payoff.
4. With 3-4 players the value against one opponent is multiplied by the number of
   opponents, plus the home-run terms (all opponents scooped at once).
5. Settings that differ only in kickers are collapsed (see representatives), and
   naturals and surrender are compared with the best setting's value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..cards import Card, CardError, card_names, ensure_distinct
from ..hands import Category
from ..naturals import Natural, detect_natural
from ..rules import DEFAULT_PRESET, Rules, load_rules
from ..setting import Setting
from .payoff import FOUL_VALUE, ROW_NAMES, royalties_of, surrender_units
from .splits import (
    BACK_FRONTS,
    BACK_MIDDLES,
    MIDDLES_PER_BACK,
    SPLIT_BACK,
    SPLIT_FRONT,
    SPLIT_MIDDLE,
    greedy_split,
    order_cards,
    row_values,
    split_cards,
)
from .tables import HandView, OpponentModel, opponent_model

# Splits scored exactly against whole opponent settings (step 3). The fast score ranks
# the true best inside the first few almost always; 24 leaves room for the non-linear
# bonuses to reorder them, and for 3 distinct alternatives after collapsing.
CANDIDATES = 24
# Values closer than this (units per opponent) are within the tables' resolution for
# kicker-only differences; see representatives.
KICKER_RESOLUTION = 0.005


@dataclass(frozen=True)
class RatedSetting:
    """A setting with its expected value (units won per deal against the whole table),
    each row's chance to win against one opponent, and its royalties."""

    setting: Setting
    ev: float
    win: dict[str, float]
    tie: dict[str, float]
    royalties: float

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = self.setting.to_dict()
        data["ev"] = round(self.ev, 4)
        data["win"] = {row: round(p, 4) for row, p in self.win.items()}
        data["royalties"] = _number(self.royalties)
        return data


@dataclass(frozen=True)
class Advice:
    cards: tuple[Card, ...]
    rules: Rules
    players: int
    settings: list[RatedSetting]
    natural: Natural | None = None
    declare: bool = False
    surrender: bool = False
    surrender_ev: float | None = None
    opponents: str = ""

    @property
    def best(self) -> RatedSetting:
        return self.settings[0]

    @property
    def natural_ev(self) -> float | None:
        """Units a declared natural wins from the table (before other naturals)."""
        return None if self.natural is None else self.natural.points * (self.players - 1)

    def to_dict(self) -> dict[str, object]:
        natural = None
        if self.natural is not None:
            natural = {"name": self.natural.name, "points": _number(self.natural.points),
                       "declare": self.declare}
        return {
            "cards": card_names(self.cards),
            "rules": self.rules.name,
            "players": self.players,
            "natural": natural,
            "surrender": self.surrender,
            "settings": [s.to_dict() for s in self.settings],
        }


@dataclass(frozen=True)
class Comparison:
    """A player's own setting against the solver's best."""

    mine: RatedSetting
    best: RatedSetting
    legal: bool
    foul_reason: str | None = None

    @property
    def gives_up(self) -> float:
        return max(0.0, self.best.ev - self.mine.ev)

    def to_dict(self) -> dict[str, object]:
        return {
            "setting": self.mine.to_dict(),
            "best": self.best.to_dict(),
            "legal": self.legal,
            "foul_reason": self.foul_reason,
            "gives_up": round(self.gives_up, 4),
        }


def _number(value: float) -> float | int:
    rounded = round(float(value), 6)
    return int(rounded) if rounded.is_integer() else rounded


def resolve_rules(rules: Rules | str | None) -> Rules:
    if rules is None:
        return load_rules(DEFAULT_PRESET)
    if isinstance(rules, str):
        return load_rules(rules)
    return rules


def _check_players(players: int) -> None:
    if not isinstance(players, int) or not 2 <= players <= 4:
        raise CardError(f"players must be 2, 3 or 4, got {players}")


# --- scoring candidates ---------------------------------------------------------------

@dataclass
class _Scored:
    ev: np.ndarray  # (M,) units against the whole table
    win: tuple[np.ndarray, ...]  # (M,) per row
    tie: tuple[np.ndarray, ...]
    royalties: np.ndarray  # (M,)


def _score(model: OpponentModel, view: HandView, rows: tuple[np.ndarray, ...],
           players: int) -> _Scored:
    """Value of the settings whose front, middle, back strengths are ``rows`` (each a
    (M,) array; FOUL_VALUE for a fouled setting), against the opponents as ``view``
    sees them."""
    prules = model.prules
    rules = prules.rules
    royal = prules.has_royalties
    fouled = rows[0] == FOUL_VALUE
    my_roy = prules.royalties(rows) if royal else None
    linear = np.zeros(len(rows[0]))
    wins, ties = [], []
    for r in range(3):
        win, tie, lin = model.row_linear(r, rows[r], my_roy[r] if my_roy else None, view)
        wins.append(win)
        ties.append(tie)
        linear += lin
    mine = tuple(v[:, None].astype(np.int32) for v in rows)
    roy2 = tuple(v[:, None] for v in my_roy) if my_roy else None
    opponents = players - 1
    w = view.exact_weights
    home_run = (opponents >= max(2, rules.all_scooped_min_opponents)
                and (rules.all_scooped_multiplier != rules.scoop_multiplier
                     or (rules.row_scheme == "two-of-three"
                         and rules.three_of_three_all_units != rules.three_of_three_units)))
    plain = not royal and rules.row_scheme == "per-row"
    if plain:
        remainder, p_sweep = model.plain_remainder(mine, w)
        pair = linear + remainder
        if home_run:
            # Scooping this opponent is a home run only if every other opponent is
            # scooped too; taken as independent across opponents. Being home-run is the
            # opponent's doing, at the population's scoop rate.
            r_mine, _ = model.plain_remainder(mine, w, every_mine=True)
            r_theirs, _ = model.plain_remainder(mine, w, every_theirs=True)
            pair = pair + (p_sweep ** (opponents - 1)) * (r_mine - remainder)
            pair = pair + (model.scoop_rate ** (opponents - 1)) * (r_theirs - remainder)
    elif rules.row_scheme == "per-row":
        assert roy2 is not None
        remainder, p_sweep = model.royal_remainder(mine, roy2, w)
        pair = linear + remainder
        if home_run:
            r_mine, _ = model.royal_remainder(mine, roy2, w, every_mine=True)
            r_theirs, _ = model.royal_remainder(mine, roy2, w, every_theirs=True)
            pair = pair + (p_sweep ** (opponents - 1)) * (r_mine - remainder)
            pair = pair + (model.scoop_rate ** (opponents - 1)) * (r_theirs - remainder)
    else:  # two-of-three: the general payoff
        total, row_part = model.exact_payoff(mine, roy2)
        pair = linear + (total - row_part) @ w
        if home_run:
            sweep = np.ones(mine[0].shape[0], dtype=bool)[:, None]
            for r in range(3):
                sweep = sweep & (mine[r] > model.exact[r])
            p_sweep = sweep @ w
            t_mine, _ = model.exact_payoff(mine, roy2, every_mine=True)
            t_theirs, _ = model.exact_payoff(mine, roy2, every_theirs=True)
            pair = pair + (p_sweep ** (opponents - 1)) * ((t_mine - total) @ w)
            pair = pair + (model.scoop_rate ** (opponents - 1)) * ((t_theirs - total) @ w)
    royalties = (my_roy[0] + my_roy[1] + my_roy[2]) if my_roy else np.zeros(len(rows[0]))
    royalties = np.where(fouled, 0.0, royalties)
    return _Scored(pair * opponents, tuple(wins), tuple(ties), royalties)


def _collapse_key(values: tuple[int, int, int]) -> tuple[int, ...]:
    """What makes a setting a different idea: each row's category and the ranks that
    make it (the pair, both pairs, the trips, a straight's or flush's top card); the
    kickers are left out, so settings that only move kickers around count as one."""
    key: list[int] = []
    for v in values:
        category = v >> 20
        r1, r2 = (v >> 16) & 15, (v >> 12) & 15
        two = category in (Category.TWO_PAIR, Category.FULL_HOUSE)
        key += [category, r1, r2 if two else 0]
    return tuple(key)


def representatives(rows: tuple[np.ndarray, ...], score: np.ndarray, ev: np.ndarray,
                     picks: np.ndarray, players: int, top: int) -> list[int]:
    """Which candidates to show, best first: one per collapse group (see
    :func:`_collapse_key`).

    Within a group, settings whose values are closer than KICKER_RESOLUTION to the
    group's best are not told apart by the model (they differ in where a kicker goes, and
    the tables hold only a few dozen opponent rows in such narrow bands), so the one with
    the strongest front, then middle, is shown: front rows are decided on kickers about
    five times as often as middle or back rows (10.7% of front comparisons between two
    self-play settings against 2.3% and 3.3%, in the 2-4 table), so that is where a kicker
    is most likely to count. Never below the greedy split's value, so the greedy setting
    is never rated above the top one."""
    eps = KICKER_RESOLUTION * (players - 1)
    greedy_ev = float(ev[-1]) if len(picks) else -np.inf  # search() appends it last
    order = np.lexsort((-score, -ev))  # ties: the better fast score first
    groups: dict[tuple[int, ...], list[int]] = {}
    for j in order:
        key = _collapse_key((int(rows[0][j]), int(rows[1][j]), int(rows[2][j])))
        groups.setdefault(key, []).append(int(j))
    shown = []
    for members in groups.values():
        best = ev[members[0]]
        floor = best - eps
        if best >= greedy_ev:
            floor = max(floor, greedy_ev)
        close = [j for j in members if ev[j] >= floor]
        shown.append(max(close, key=lambda j: (rows[0][j], rows[1][j], ev[j])))
    shown.sort(key=lambda j: -ev[j])
    return shown[:top]


# --- naturals, cheaply ---------------------------------------------------------------

def _flush_shape(suit_counts: list[int]) -> bool:
    return sorted(n for n in suit_counts if n) in ([13], [3, 10], [5, 8], [3, 5, 5])


def _runs_cover(ranks: set[int]) -> bool:
    """Necessary for three straights: every rank held sits in a run of 3 or more
    consecutive ranks held (the ace counts low and high)."""
    present = set(ranks) | ({1} if 14 in ranks else set())
    for rank in ranks:
        ok = False
        for low in (rank - 2, rank - 1, rank):
            if all(r in present for r in (low, low + 1, low + 2)):
                ok = True
                break
        if not ok and rank == 14:
            ok = all(r in present for r in (1, 2, 3))
        if not ok:
            return False
    return True


def _could_be(key: str, cards: Sequence[Card], counts: Counter[int],
              suits: list[int], rules: Rules) -> bool:
    """A quick necessary condition for each natural, so the exact detector (a search
    over arrangements for some) runs only on the rare hands that might qualify."""
    n = list(counts.values())
    match key:
        case "six_pairs":
            return sum(c // 2 for c in n) >= 6
        case "five_pairs_and_triple":
            return sum(c // 2 for c in n) >= 5 and max(n) >= 3
        case "four_triples":
            return sum(c // 3 for c in n) >= 4
        case "three_quads":
            return sum(c == 4 for c in n) >= 3
        case "dragon" | "clean_dragon":
            return len(n) == 13
        case "three_flushes":
            return _flush_shape(suits)
        case "three_straights":
            return max(n) <= 3 and _runs_cover(set(counts))
        case "three_straight_flushes":
            return _flush_shape(suits) and max(n) <= 3 and _runs_cover(set(counts))
        case "thirteen_one_suit":
            return max(suits) == 13
        case "one_colour" | "twelve_one_colour":
            red = suits[1] + suits[2]
            return red >= 12 or red <= 1
        case "all_small":
            return max(counts) <= 8
        case "all_big":
            return min(counts) >= 8
        case "small_cards":
            return max(counts) <= rules.small_cards_max
        case "twelve_royalties":
            return min(counts) >= 11
        case "twelve_pictures_plus_one":
            return sum(c for r, c in counts.items() if 11 <= r <= 13) == 12
        case "no_pictures":
            return not any(11 <= r <= 13 for r in counts)
    return True


def find_natural(cards: Sequence[Card], rules: Rules) -> Natural | None:
    """The best natural the cards make under ``rules`` (as ``engine.naturals``), fast."""
    if not rules.naturals:
        return None
    counts = Counter(c.rank for c in cards)
    suits = [0, 0, 0, 0]
    for c in cards:
        suits["shdc".index(c.suit)] += 1
    found = [nat for key in rules.naturals
             if _could_be(key, cards, counts, suits, rules)
             and (nat := detect_natural(key, cards, rules)) is not None]
    if not found:
        return None
    return max(found, key=lambda nat: rules.natural_rank(nat.key))


# --- the API -------------------------------------------------------------------------

def _check_cards(cards: Sequence[Card]) -> tuple[Card, ...]:
    cards = tuple(cards)
    if len(cards) != 13:
        raise CardError(f"a hand has 13 cards, got {len(cards)}")
    ensure_distinct(cards)
    return cards


def search(ordered: Sequence[Card], model: OpponentModel, players: int
           ) -> tuple[np.ndarray, tuple[np.ndarray, ...], np.ndarray, _Scored]:
    """Steps 1-4 for 13 cards in the split arrays' order: the candidate split numbers,
    their row strengths (front, middle, back), fast scores and exact values."""
    v5, v3 = row_values(ordered)
    view = model.view(ordered)
    prules = model.prules
    roy5m = roy5b = roy3 = None
    if prules.has_royalties:
        roy3 = royalties_of(v3, prules.royalty[0])
        roy5m = royalties_of(v5, prules.royalty[1])
        roy5b = royalties_of(v5, prules.royalty[2])
    # Step 2: the fast linear score per subset first (cheap), then gathered for the
    # 72,072 splits.
    _, _, lin3 = model.row_linear(0, v3, roy3, view)
    _, _, lin5m = model.row_linear(1, v5, roy5m, view)
    _, _, lin5b = model.row_linear(2, v5, roy5b, view)
    if prules.rules.row_scheme != "per-row":
        # Rows are not paid one by one: rank splits by the rows they are likely to win.
        for r, (values, lin) in enumerate(((v3, lin3), (v5, lin5m), (v5, lin5b))):
            win, tie, _ = model.row_linear(r, values, None, view)
            lin += 2 * win + tie - 1
    # Branch and bound over backs: a back's splits score at most its own score plus the
    # best middle and the best front no stronger than it. Backs whose bound is below the
    # greedy split's score cannot hold a better split and are skipped (about four in five
    # backs of a random hand: a weak back leaves only weak middles and fronts).
    greedy = greedy_split(v5, v3)
    floor = lin5b[SPLIT_BACK[greedy]] + lin5m[SPLIT_MIDDLE[greedy]] + lin3[SPLIT_FRONT[greedy]]
    by_value = np.argsort(v5)
    best_middle_upto = np.maximum.accumulate(lin5m[by_value])
    reach = np.searchsorted(v5[by_value], v5, side="right") - 1
    fronts_by_value = np.argsort(v3)
    best_front_upto = np.maximum.accumulate(lin3[fronts_by_value])
    # A back weaker than every front (index -1) has no legal split at all; any finite
    # bound is still an upper bound for it.
    reach3 = np.searchsorted(v3[fronts_by_value], v5, side="right") - 1
    bound = lin5b + best_middle_upto[reach] + best_front_upto[np.maximum(reach3, 0)]
    backs = np.flatnonzero(bound >= floor - 1e-9)
    middles = BACK_MIDDLES[backs]
    fronts = BACK_FRONTS[backs]
    middle_v = v5[middles]
    front_v = v3[fronts]
    score = lin5b[backs][:, None] + lin5m[middles] + lin3[fronts]
    score[(middle_v > v5[backs][:, None]) | (front_v > middle_v)] = -np.inf
    flat = score.ravel()
    m = CANDIDATES
    if len(flat) > m:
        if len(backs) > m:
            # The best m splits lie in the m backs with the best split each.
            top_backs = np.argpartition(-score.max(axis=1), m)[:m]
            local = np.argpartition(-score[top_backs].ravel(), m)[:m]
            rows_i, cols = top_backs[local // MIDDLES_PER_BACK], local % MIDDLES_PER_BACK
        else:
            local = np.argpartition(-flat, m)[:m]
            rows_i, cols = local // MIDDLES_PER_BACK, local % MIDDLES_PER_BACK
    else:
        rows_i, cols = np.divmod(np.arange(len(flat)), MIDDLES_PER_BACK)
    keep = np.isfinite(score[rows_i, cols])
    rows_i, cols = rows_i[keep], cols[keep]
    picks = backs[rows_i] * MIDDLES_PER_BACK + cols
    picked_score = score[rows_i, cols]
    # The greedy split goes last (moved there if already picked): representatives
    # reads its value from there.
    keep = picks != greedy
    picks = np.append(picks[keep], greedy)
    picked_score = np.append(picked_score[keep], floor)
    # Steps 3-4: exact scoring of the candidates.
    rows = (v3[SPLIT_FRONT[picks]], v5[SPLIT_MIDDLE[picks]], v5[SPLIT_BACK[picks]])
    return picks, rows, picked_score, _score(model, view, rows, players)


def solve(cards: Sequence[Card], rules: Rules | str | None = None, players: int = 2,
          top: int = 3) -> Advice:
    """The best settings of 13 cards under ``rules`` at a table of ``players``, best
    first, near-duplicates collapsed; with the natural and surrender advice."""
    cards = _check_cards(cards)
    rules = resolve_rules(rules)
    _check_players(players)
    model = opponent_model(rules)
    ordered = order_cards(cards)
    picks, rows, score, scored = search(ordered, model, players)
    settings = [
        _rated(Setting.of(*split_cards(ordered, int(picks[j]))), scored, j)
        for j in representatives(rows, score, scored.ev, picks, players, max(1, top))
    ]

    natural = find_natural(cards, rules)
    best_ev = settings[0].ev
    declare = natural is not None and natural.points * (players - 1) >= best_ev
    surrender_ev = None
    surrender = False
    if rules.surrender_allowed:
        surrender_ev = -surrender_units(rules) * (players - 1)
        surrender = not declare and surrender_ev > best_ev
    return Advice(cards, rules, players, settings, natural, declare, surrender, surrender_ev,
                  model.name)


def _rated(setting: Setting, scored: _Scored, j: int) -> RatedSetting:
    return RatedSetting(
        setting,
        float(scored.ev[j]),
        {row: float(scored.win[r][j]) for r, row in enumerate(ROW_NAMES)},
        {row: float(scored.tie[r][j]) for r, row in enumerate(ROW_NAMES)},
        float(scored.royalties[j]),
    )


def rate(setting: Setting, rules: Rules | str | None = None, players: int = 2) -> RatedSetting:
    """A given setting's value by the solver's yardstick (a fouled one pays as scooped)."""
    rules = resolve_rules(rules)
    _check_players(players)
    model = opponent_model(rules)
    if setting.is_legal:
        values = [setting.front.value, setting.middle.value, setting.back.value]
    else:
        values = [FOUL_VALUE] * 3
    rows = tuple(np.array([v], dtype=np.int64) for v in values)
    return _rated(setting, _score(model, model.view(setting.cards), rows, players), 0)


def compare(setting: Setting, rules: Rules | str | None = None, players: int = 2) -> Comparison:
    """How much ``setting`` gives up against the solver's best setting of its cards."""
    rules = resolve_rules(rules)
    advice = solve(setting.cards, rules, players, top=1)
    mine = rate(setting, rules, players)
    return Comparison(mine, advice.best, setting.is_legal, setting.foul_reason)


def greedy_setting(cards: Sequence[Card]) -> Setting:
    """The greedy player's setting: strongest back, then strongest middle, then front."""
    ordered = order_cards(_check_cards(cards))
    v5, v3 = row_values(ordered)
    return Setting.of(*split_cards(ordered, greedy_split(v5, v3)))
