"""The solver's model of its opponents: a sample of settings that realistic players make.

Each table file in ``engine/data/`` holds the front, middle and back strengths of the
settings a self-play population chose for random hands under one preset (made by
``tools/make_solver_tables.py``). From it the solver gets, for each row:

* the chance that an opponent's row is below, equal to or above a given strength
  (the distinct strengths sorted, with their counts, and ``np.searchsorted``: Hankin's
  "probability of winning this row with this hand" table), and what the opponent's
  strong rows cost when they win; re-weighted for each hand by card removal (an
  opponent cannot hold the cards we hold, see :meth:`OpponentModel.view`);
* a fixed subsample of whole opponent settings, to score a few candidate settings
  exactly, rows together, so that the overall point, sweeps and scoops (which depend on
  all three rows at once, and rows are far from independent) are counted right.

The file is chosen by the rules' scoring shape (see :func:`table_name_for`), so a
house-rules variant of a preset uses the preset's opponents.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from math import comb
from pathlib import Path

import numpy as np

from ..cards import Card
from ..rules import Rules
from .payoff import PayoffRules, pair_payoff

DATA_PACKAGE = "engine.data"
FILE_PREFIX = "solver-"
# Opponent settings scored exactly for each candidate; enough that the difference between
# two candidates (scored against the same opponents) is well below the gaps that matter.
EXACT_SAMPLE = 1024


def data_dir() -> Path:
    return Path(str(resources.files(DATA_PACKAGE)))


def table_path(name: str, folder: Path | None = None) -> Path:
    return (folder or data_dir()) / f"{FILE_PREFIX}{name}.npz"


def available_tables(folder: Path | None = None) -> list[str]:
    folder = folder or data_dir()
    if not folder.is_dir():
        return []
    return sorted(p.name[len(FILE_PREFIX):-4] for p in folder.glob(f"{FILE_PREFIX}*.npz"))


def table_name_for(rules: Rules, available: list[str] | None = None) -> str | None:
    """The shipped table whose scoring is most like ``rules``: the preset's own when there
    is one, else the nearest scoring family."""
    available = available_tables() if available is None else available
    if rules.name in available:
        return rules.name
    if rules.row_scheme == "two-of-three":
        wanted = ["hawaiian-gardens", "wikipedia", "2-4"]
    elif rules.royalty_mode == "winner-instead":
        wanted = ["vietnamese" if rules.scoop_multiplier > 1 else "pagat", "pagat", "simple"]
    elif rules.royalty_mode == "winner-added":
        wanted = ["taiwanese" if rules.scoop_multiplier > 1 else "wikipedia", "wikipedia", "2-4"]
    elif rules.royalty_mode == "always":
        wanted = ["german" if rules.overall_point else "malayan", "german", "2-4"]
    elif rules.sweep_bonus or rules.scoop_multiplier > 1:
        wanted = ["1-6", "2-4"]
    elif rules.overall_point:
        wanted = ["2-4"]
    else:
        wanted = ["simple", "2-4"]
    for name in [*wanted, "2-4", *available]:
        if name in available:
            return name
    return None


def save_sample(path: Path, values: np.ndarray, meta: dict[str, object]) -> None:
    """Write a sample of settings (an (n, 3) array: front, middle, back strengths)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, values=values.astype(np.int32), meta=np.array(json.dumps(meta)))
    tmp.replace(path)  # a run killed half-way never leaves a broken table behind


def load_sample(path: Path) -> tuple[np.ndarray, dict[str, object]]:
    with np.load(path) as data:
        return data["values"].astype(np.int64), json.loads(str(data["meta"]))


def rank_counts(values: np.ndarray) -> np.ndarray:
    """How many cards of each rank (2..14, columns 0..12) a row of each strength holds.

    A strength lists the ranks that decide ties, which for every category but straights
    is every card's rank once grouped (a pair's rank stands for two cards, a full
    house's first rank for three...); a straight is known by its top card. Suits are not
    in a strength, so flushes count only by their ranks."""
    values = np.asarray(values, dtype=np.int64)
    out = np.zeros((len(values), 15), dtype=np.int8)
    rows = np.arange(len(values))
    category = values >> 20
    nibbles = [(values >> shift) & 15 for shift in (16, 12, 8, 4, 0)]
    groups = {0: (1, 1, 1, 1, 1), 1: (2, 1, 1, 1), 2: (2, 2, 1), 3: (3, 1, 1), 5: (1, 1, 1, 1, 1),
              6: (3, 2), 7: (4, 1)}
    for cat, sizes in groups.items():
        for j, size in enumerate(sizes):
            hit = (category == cat) & (nibbles[j] > 0)
            np.add.at(out, (rows[hit], nibbles[j][hit]), size)
    straight = (category == 4) | (category == 8)
    for step in range(5):
        rank = nibbles[0][straight] - step
        np.add.at(out, (rows[straight], np.where(rank == 1, 14, rank)), 1)
    return out[:, 2:]


def _one_hot_counts(counts: np.ndarray) -> np.ndarray:
    """(n, 52) float32: column 4 * rank + (count - 1) is 1 where a rank is held that
    many times, so a dot product with per-(rank, count) log factors sums them."""
    out = np.zeros((len(counts), 52), dtype=np.float32)
    for o in range(1, 5):
        out[:, o - 1::4] = counts == o
    return out


_IMPOSSIBLE = -60.0  # log weight of an opponent hand that needs cards we hold


def _log_factor_table() -> np.ndarray:
    """[held, count - 1]: log C(4 - held, count) / C(4, count), or _IMPOSSIBLE."""
    table = np.empty((5, 4), dtype=np.float32)
    for held in range(5):
        for count in range(1, 5):
            ways = comb(4 - held, count)
            table[held, count - 1] = np.log(ways / comb(4, count)) if ways else _IMPOSSIBLE
    return table


_LOG_FACTORS = _log_factor_table()


def removal_log_factors(mine: np.ndarray) -> np.ndarray:
    """Per (rank, count), laid out as the one-hot columns: log of the chance that an
    opponent can hold ``count`` cards of the rank when we hold ``mine[rank]`` of them,
    relative to not knowing our hand: C(4 - mine, count) / C(4, count)."""
    return _LOG_FACTORS[mine].ravel()


@dataclass(frozen=True)
class RowTable:
    """One row's opponent strengths, distinct and sorted, with how often each occurs,
    what losing to it costs in all, and the ranks it holds (for card removal)."""

    values: np.ndarray  # distinct strengths, sorted
    counts: np.ndarray  # how many sample settings have each
    cost_sums: np.ndarray  # summed cost of losing to each
    ranks: np.ndarray  # (D, 52) one-hot rank counts of each
    royalty_mean: float  # the opponent's mean royalty in this row ("always" mode)

    @classmethod
    def of(cls, values: np.ndarray, cost: np.ndarray, royalty_mean: float) -> RowTable:
        distinct, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
        cost_sums = np.bincount(inverse, weights=cost, minlength=len(distinct))
        return cls(distinct, counts.astype(np.float64), cost_sums,
                   _one_hot_counts(rank_counts(distinct)), royalty_mean)


@dataclass(frozen=True)
class HandView:
    """The opponents as seen from one hand: each row's cumulative chance and loss cost by
    strength, re-weighted for the cards this hand holds (an opponent cannot hold them),
    and the weights of the exact subsample."""

    below: tuple[np.ndarray, ...]  # per row, D + 1: chance an opponent row is < values[i]
    loss: tuple[np.ndarray, ...]  # per row, D + 1: expected cost of rows >= values[i]
    exact_weights: np.ndarray  # (K,), sums to 1


@dataclass(frozen=True)
class OpponentModel:
    """Opponents for one rule set: row tables and a subsample of whole settings."""

    name: str
    prules: PayoffRules
    rows: tuple[RowTable, RowTable, RowTable]  # front, middle, back
    size: int
    exact: tuple[np.ndarray, np.ndarray, np.ndarray]  # (1, K) strengths per row
    exact_roy: tuple[np.ndarray, ...] | None
    # Per row, what each subsample opponent is paid when it wins that row (row unit and
    # royalty), and its royalties summed ("always" mode): for the fast royalty path.
    exact_cost: tuple[np.ndarray, ...]
    exact_unit_sum: np.ndarray
    exact_roy_sum: np.ndarray
    exact_ranks: np.ndarray  # (K, 52) one-hot rank counts of the whole settings
    scoop_rate: float  # chance that one opponent scoops another (for home runs)
    meta: dict[str, object]

    @classmethod
    def build(cls, rules: Rules, values: np.ndarray, name: str,
              meta: dict[str, object] | None = None) -> OpponentModel:
        prules = PayoffRules.of(rules)
        all_roy = (prules.royalties((values[:, 0], values[:, 1], values[:, 2]))
                   if prules.has_royalties else (np.zeros(len(values)),) * 3)
        _, costs_all = row_payments(rules, all_roy)
        rows = []
        for r in range(3):
            cost = costs_all[r]
            if rules.row_scheme != "per-row":  # rows are not paid one by one
                cost = all_roy[r] if rules.royalty_mode == "winner-added" \
                    else np.zeros(len(values))
            mean = float(all_roy[r].mean()) if rules.royalty_mode == "always" else 0.0
            rows.append(RowTable.of(values[:, r], cost, mean))
        k = min(EXACT_SAMPLE, len(values))
        exact = tuple(values[:k, r][None, :].astype(np.int32) for r in range(3))
        exact_roy = prules.royalties(exact) if prules.has_royalties else None
        units, costs = row_payments(rules, exact_roy or (np.zeros_like(exact[0], float),) * 3)
        roy_sum = sum(exact_roy) if exact_roy else np.zeros_like(exact[0], float)
        whole = rank_counts(values[:k, 0]) + rank_counts(values[:k, 1]) \
            + rank_counts(values[:k, 2])
        # How often one opponent scoops another: pair the sample with itself, shifted.
        half = len(values) // 2
        a, b = values[:half], values[half:2 * half]
        scoops = ((a > b).all(axis=1)).mean() if half else 0.0
        return cls(name, prules, (rows[0], rows[1], rows[2]), len(values),
                   exact, exact_roy, costs, units[0] + units[1] + units[2],
                   roy_sum, _one_hot_counts(whole), float(scoops),
                   meta or {})  # type: ignore[arg-type]

    def view(self, cards: Sequence[Card] | None) -> HandView:
        """The opponents given that we hold ``cards`` (None: not conditioned on a hand).

        Card removal: an opponent setting's weight is multiplied by the chance that its
        ranks can be dealt from the 39 cards we do not hold, relative to a random deal
        (rank by rank; suits are ignored). A row's table is re-weighted by that row's
        ranks, a whole setting in the exact subsample by all 13."""
        below, loss = [], []
        factors = None
        if cards is not None:
            mine = np.zeros(13, dtype=np.int64)
            for card in cards:
                mine[card.rank - 2] += 1
            factors = removal_log_factors(mine)
        for table in self.rows:
            weights = table.counts
            if factors is not None:
                weights = weights * np.exp(table.ranks @ factors)
            total = weights.sum()
            below.append(np.concatenate([[0.0], np.cumsum(weights)]) / total)
            tail = np.cumsum((table.cost_sums * (weights / table.counts))[::-1])[::-1]
            loss.append(np.concatenate([tail, [0.0]]) / total)
        k = self.exact[0].shape[1]
        if factors is None:
            exact_weights = np.full(k, 1.0 / k)
        else:
            exact_weights = np.exp(self.exact_ranks @ factors).astype(np.float64)
            exact_weights /= exact_weights.sum()
        return HandView(tuple(below), tuple(loss), exact_weights)

    def row_linear(self, r: int, strengths: np.ndarray, royalties: np.ndarray | None,
                   view: HandView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For strengths in row ``r``: chance to win, chance to tie, and the expected
        row-by-row payment (row points and royalties) against one opponent."""
        rules = self.prules.rules
        table = self.rows[r]
        lower = np.searchsorted(table.values, strengths, side="left")
        upper = np.searchsorted(table.values, strengths, side="right")
        cumulative = view.below[r]
        win = cumulative[lower]
        tie = cumulative[upper] - win
        lose_cost = view.loss[r][upper]
        if rules.row_scheme == "per-row":
            gain = np.full(len(strengths), float(rules.row_points))
            if royalties is not None and rules.royalty_mode == "winner-instead":
                gain = np.where(royalties > 0, royalties, gain)
        else:
            gain = np.zeros(len(strengths))
        if royalties is not None and rules.royalty_mode == "winner-added":
            gain = gain + royalties
        linear = win * gain - lose_cost
        if royalties is not None and rules.royalty_mode == "always":
            linear = linear + royalties - table.royalty_mean
        return win, tie, linear

    def plain_remainder(self, mine: tuple[np.ndarray, ...], weights: np.ndarray,
                        every_mine: bool = False,
                        every_theirs: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The fast path of :meth:`exact_payoff` for per-row scoring without royalties
        (simple, 2-4, 1-6 and their variants): the mean over the subsample of what the
        overall point, sweep and scoop add to the row points, and the chance of a sweep.

        Without royalties every payment follows from the net rows won, d = wins - losses,
        and whether a side won all three, so it is int8 arithmetic on comparisons."""
        rules = self.prules.rules
        d = np.zeros((mine[0].shape[0], self.exact[0].shape[1]), dtype=np.int8)
        for m, t in zip(mine, self.exact, strict=True):
            d += (m > t).view(np.int8)
            d -= (m < t).view(np.int8)
        mean = np.zeros(d.shape[0])
        if rules.overall_point:
            mean += rules.overall_point * (np.sign(d) @ weights)
        sweep_me = (d == 3) @ weights
        sweep_them = (d == -3) @ weights
        scoop_base = 3 * rules.row_points + rules.overall_point + rules.sweep_bonus
        mult_me = rules.all_scooped_multiplier if every_mine else rules.scoop_multiplier
        mult_them = rules.all_scooped_multiplier if every_theirs else rules.scoop_multiplier
        mean += sweep_me * (rules.sweep_bonus + (mult_me - 1) * scoop_base)
        mean -= sweep_them * (rules.sweep_bonus + (mult_them - 1) * scoop_base)
        return mean, sweep_me

    def royal_remainder(self, mine: tuple[np.ndarray, ...], my_roy: tuple[np.ndarray, ...],
                        weights: np.ndarray, every_mine: bool = False,
                        every_theirs: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The fast path of :meth:`exact_payoff` for per-row scoring with royalties:
        mean over the subsample of the non-row-by-row payments, and the sweep chance.

        At a sweep the sweeper's base is known without the comparisons (all its row
        units, the overall point, the sweep bonus), so only the overall point with
        royalties counted needs the full (M, K) row-by-row payment."""
        rules = self.prules.rules
        units, gains = row_payments(rules, my_roy)
        wins = np.zeros((mine[0].shape[0], self.exact[0].shape[1]), dtype=np.int8)
        losses = np.zeros_like(wins)
        linear = None
        need_linear = bool(rules.overall_point and rules.overall_counts_royalties)
        if need_linear:
            linear = np.zeros(wins.shape, dtype=np.float32)
            if rules.royalty_mode == "always":
                linear += (my_roy[0] + my_roy[1] + my_roy[2]).astype(np.float32)
                linear -= self.exact_roy_sum.astype(np.float32)
        for r in range(3):
            gt = mine[r] > self.exact[r]
            lt = mine[r] < self.exact[r]
            wins += gt.view(np.int8)
            losses += lt.view(np.int8)
            if linear is not None:
                linear += gt * gains[r].astype(np.float32)
                linear -= lt * self.exact_cost[r].astype(np.float32)
        mean = np.zeros(wins.shape[0])
        if rules.overall_point:
            lead = np.sign(linear) if linear is not None else np.sign(wins - losses)
            mean += rules.overall_point * (lead @ weights)
        swept_me = wins == 3
        swept_them = losses == 3
        sweep_me = swept_me @ weights
        mean += rules.sweep_bonus * (sweep_me - swept_them @ weights)
        # A sweeper's base: its row units, the sweep bonus, and the overall point when it
        # leads (it always does, unless "always" royalties counted for the overall
        # outweigh three lost rows).
        if linear is not None and rules.overall_point:
            lead_me = (swept_me & (linear > 0)) @ weights
            lead_them = (swept_them & (linear < 0))
        else:
            lead_me, lead_them = sweep_me, swept_them
        mult_me = rules.all_scooped_multiplier if every_mine else rules.scoop_multiplier
        mult_them = rules.all_scooped_multiplier if every_theirs else rules.scoop_multiplier
        if mult_me > 1:
            base_me = (units[0] + units[1] + units[2])[:, 0] + rules.sweep_bonus
            mean += (mult_me - 1) * (sweep_me * base_me + lead_me * rules.overall_point)
        if mult_them > 1:
            base_them = (self.exact_unit_sum[0] + rules.sweep_bonus) * weights
            mean -= (mult_them - 1) * ((swept_them @ base_them)
                                       + (lead_them @ weights) * rules.overall_point)
        return mean, sweep_me

    def exact_payoff(self, mine: tuple[np.ndarray, ...], my_roy: tuple[np.ndarray, ...] | None,
                     every_mine: bool = False,
                     every_theirs: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Payoff of candidate settings (each row a (M, 1) array) against the subsample:
        two (M, K) arrays, the total and its row-by-row part."""
        return pair_payoff(self.prules, mine, self.exact, my_roy, self.exact_roy,
                           every_mine, every_theirs)


def row_payments(rules: Rules, royalties: tuple[np.ndarray, ...]
                 ) -> tuple[tuple[np.ndarray, ...], tuple[np.ndarray, ...]]:
    """For rows with these royalties: the row unit a win pays (what a scoop multiplies)
    and the whole row-by-row payment of a win (the unit plus a winner's royalty)."""
    units, paid = [], []
    for roy in royalties:
        unit = np.full(roy.shape, float(rules.row_points))
        if rules.royalty_mode == "winner-instead":
            unit = np.where(roy > 0, roy, unit)
        units.append(unit)
        paid.append(unit + roy if rules.royalty_mode == "winner-added" else unit)
    return tuple(units), tuple(paid)


def bootstrap_values(n: int, seed: int) -> np.ndarray:
    """Settings of the greedy player for ``n`` random hands: the starting population for
    self-play, and the fallback opponents when no table file is shipped."""
    from ..cards import DECK
    from .splits import SPLIT_BACK, SPLIT_FRONT, SPLIT_MIDDLE, greedy_split, order_cards, row_values

    rng = np.random.default_rng(seed)
    out = np.zeros((n, 3), dtype=np.int64)
    for i in range(n):
        hand = [DECK[j] for j in rng.choice(52, 13, replace=False)]
        v5, v3 = row_values(order_cards(hand))
        s = greedy_split(v5, v3)
        out[i] = (v3[SPLIT_FRONT[s]], v5[SPLIT_MIDDLE[s]], v5[SPLIT_BACK[s]])
    return out


_BY_ID: dict[int, tuple[Rules, OpponentModel]] = {}
_BY_TEXT: dict[str, OpponentModel] = {}


def opponent_model(rules: Rules, folder: str | None = None) -> OpponentModel:
    """The opponents for ``rules``, cached: building one takes tens of milliseconds and a
    batch asks for the same rules on every line. ``Rules`` holds dicts, so it cannot be
    hashed: the cache is keyed by identity first, then by the rules' full text."""
    hit = _BY_ID.get(id(rules))
    if hit is not None and hit[0] is rules and folder is None:
        return hit[1]
    key = f"{folder}|{rules!r}"
    model = _BY_TEXT.get(key)
    if model is None:
        model = _build_model(rules, folder)
        _BY_TEXT[key] = model
    if folder is None:
        if len(_BY_ID) > 256:  # a long-running app that builds rules per request
            _BY_ID.clear()
        _BY_ID[id(rules)] = (rules, model)
    return model


def _build_model(rules: Rules, folder: str | None) -> OpponentModel:
    path_folder = Path(folder) if folder else None
    name = table_name_for(rules, available_tables(path_folder))
    if name is None:
        return OpponentModel.build(rules, bootstrap_values(4000, seed=0), "greedy",
                                   {"source": "greedy bootstrap (no table file found)"})
    values, meta = load_sample(table_path(name, path_folder))
    return OpponentModel.build(rules, values, name, meta)
