"""Benchmark of the setting solver: strength against a greedy player, and speed.

    .venv/bin/python bench/bench_solver.py                      # the full run
    .venv/bin/python bench/bench_solver.py --deals 1000 --four-deals 250 --speed-hands 300

Strength: a duplicate match. Each deal gives two hands; the solver plays one against the
greedy player (strongest back, then strongest middle, then front) holding the other, then
the seats swap, so luck of the deal cancels. Every game is settled by
``engine.scoring.settle`` under the preset, naturals and surrender included (the greedy
player declares any natural it holds and never surrenders). The figure is the solver's
mean net units per hand, with its standard error. The 4-player match deals all 52 cards
and seats the solver in each of the four seats in turn against three greedy players.

Speed: random hands through ``engine.solver.command.solve_lines`` (what
``cpoker solve --batch`` runs: parse the line, solve, write JSON), in a fresh process
pinned to one core; the median time per hand, and the process's peak resident memory.
Then the same file through the whole ``cpoker solve --batch`` command, start-up
included, for its wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.cards import DECK, Card, format_cards  # noqa: E402
from engine.rules import Rules, load_rules  # noqa: E402
from engine.scoring import Player, settle  # noqa: E402
from engine.solver import find_natural, greedy_setting, solve  # noqa: E402

TARGET_STRENGTH = 1.25  # units a hand, 2 players, 2-4 scoring
TARGET_MEDIAN_MS = 3.0


def solver_player(name: str, cards: Sequence[Card], rules: Rules, players: int) -> Player:
    advice = solve(cards, rules, players, top=1)
    if advice.declare:
        return Player(name, cards=tuple(cards), natural=True)
    if advice.surrender:
        return Player(name, cards=tuple(cards), surrender=True)
    return Player(name, setting=advice.best.setting)


def greedy_player(name: str, cards: Sequence[Card], rules: Rules) -> Player:
    if rules.naturals and find_natural(cards, rules) is not None:
        return Player(name, cards=tuple(cards), natural=True)
    return Player(name, setting=greedy_setting(cards))


def deal(rng: np.random.Generator, hands: int) -> list[tuple[Card, ...]]:
    order = rng.permutation(52)
    return [tuple(DECK[i] for i in order[13 * h: 13 * h + 13]) for h in range(hands)]


def duplicate_two(rules: Rules, deals: int, seed: int) -> tuple[float, float, float]:
    """Solver's mean units a hand against greedy, its standard error, seconds taken."""
    rng = np.random.default_rng(seed)
    per_deal = np.zeros(deals)
    started = time.perf_counter()
    for i in range(deals):
        a, b = deal(rng, 2)
        total = 0.0
        for mine, theirs in ((a, b), (b, a)):
            players = [solver_player("solver", mine, rules, 2), greedy_player("greedy", theirs,
                                                                               rules)]
            total += settle(players, rules).totals["solver"]
        per_deal[i] = total / 2
    return _summary(per_deal, started)


def duplicate_four(rules: Rules, deals: int, seed: int) -> tuple[float, float, float]:
    """The solver in each seat in turn against three greedy players: mean units a hand."""
    rng = np.random.default_rng(seed)
    per_deal = np.zeros(deals)
    started = time.perf_counter()
    for i in range(deals):
        hands = deal(rng, 4)
        greedy = [greedy_player(f"g{s}", hands[s], rules) for s in range(4)]
        total = 0.0
        for seat in range(4):
            players = list(greedy)
            players[seat] = solver_player("solver", hands[seat], rules, 4)
            total += settle(players, rules).totals["solver"]
        per_deal[i] = total / 4
    return _summary(per_deal, started)


def _summary(per_deal: np.ndarray, started: float) -> tuple[float, float, float]:
    error = float(per_deal.std(ddof=1) / np.sqrt(len(per_deal))) if len(per_deal) > 1 else 0.0
    return float(per_deal.mean()), error, time.perf_counter() - started


_SPEED_SCRIPT = r"""
import json, os, resource, sys, time
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
sys.path.insert(0, sys.argv[1])
from engine.rules import load_rules
from engine.solver.command import solve_lines
rules = load_rules(sys.argv[3])
players = int(sys.argv[4])
lines = open(sys.argv[2], encoding="utf-8").read().splitlines()
list(solve_lines(lines[:1], rules, players))  # load the opponent table once
times = []
for line in lines:
    start = time.perf_counter()
    for _ in solve_lines([line], rules, players):
        pass
    times.append(time.perf_counter() - start)
times.sort()
print(json.dumps({
    "median_ms": 1000 * times[len(times) // 2],
    "p90_ms": 1000 * times[int(len(times) * 0.9)],
    "mean_ms": 1000 * sum(times) / len(times),
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def speed(preset: str, players: int, hands: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        for _ in range(hands):
            handle.write(format_cards(deal(rng, 1)[0]) + "\n")
        path = handle.name
    try:
        env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                   MKL_NUM_THREADS="1")
        out = subprocess.run([sys.executable, "-c", _SPEED_SCRIPT, str(ROOT), path, preset,
                              str(players)], capture_output=True, text=True, check=True,
                             env=env)
        result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
        # The whole command, start-up included: `cpoker solve --batch FILE`.
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import sys, cli; sys.exit(cli.main())", "solve",
                        "--batch", path, "--rules", preset, "--players", str(players)],
                       cwd=ROOT, stdout=subprocess.DEVNULL, check=True, env=env)
        result["batch_wall_s"] = time.perf_counter() - started
        return result
    finally:
        os.unlink(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=10000,
                        help="2-player deals a preset (each played both ways)")
    parser.add_argument("--presets", default="2-4,simple,1-6,pagat,wikipedia")
    parser.add_argument("--four-deals", type=int, default=2500,
                        help="4-player deals (each played from all four seats)")
    parser.add_argument("--four-preset", default="2-4")
    parser.add_argument("--speed-hands", type=int, default=1000)
    parser.add_argument("--speed-presets", default="2-4,wikipedia")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args(argv)

    figures: dict[str, object] = {}
    rows: list[tuple[str, ...]] = []
    for preset in [p for p in args.presets.split(",") if p]:
        mean, error, seconds = duplicate_two(load_rules(preset), args.deals, args.seed)
        target = f">= {TARGET_STRENGTH}" if preset == "2-4" else ""
        rows.append((f"strength {preset}, 2 players", f"{mean:+.3f} ± {error:.3f}",
                     f"{2 * args.deals} hands", target, f"{seconds:.0f} s"))
        figures[f"strength_{preset}_2p"] = {"mean": mean, "stderr": error,
                                            "hands": 2 * args.deals}
        print(rows[-1], flush=True)
    if args.four_deals:
        mean, error, seconds = duplicate_four(load_rules(args.four_preset), args.four_deals,
                                              args.seed)
        rows.append((f"strength {args.four_preset}, 4 players", f"{mean:+.3f} ± {error:.3f}",
                     f"{4 * args.four_deals} hands", "", f"{seconds:.0f} s"))
        figures[f"strength_{args.four_preset}_4p"] = {"mean": mean, "stderr": error,
                                                      "hands": 4 * args.four_deals}
        print(rows[-1], flush=True)
    for preset in [p for p in args.speed_presets.split(",") if p]:
        if not args.speed_hands:
            break
        result = speed(preset, 2, args.speed_hands, args.seed)
        rows.append((f"speed {preset}, median per hand", f"{result['median_ms']:.2f} ms",
                     f"{args.speed_hands} hands", f"<= {TARGET_MEDIAN_MS} ms",
                     f"p90 {result['p90_ms']:.2f} ms, peak RSS "
                     f"{result['peak_rss_mb']:.0f} MB, batch {result['batch_wall_s']:.1f} s"))
        figures[f"speed_{preset}"] = result
        print(rows[-1], flush=True)

    header = ("figure", "value", "sample", "target", "notes")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print()
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print(" | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
