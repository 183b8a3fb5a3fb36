"""Make the solver's opponent tables by self-play (run by ``tools/make_solver_tables.py``).

Round 0's population is the greedy player (strongest back, middle, front) on random
hands. Each round deals fresh random hands and sets each with the solver playing against
the current population, under the preset's scoring; the settings it chose make the next
population, so the strategy is refitted to itself until it settles (Hankin's self-play
iteration). Each new population keeps half of the previous one (see :func:`mix`); the
last round's population is the shipped table, one file per preset.

Reproducible: the hands of round ``k`` for preset ``p`` come from a generator seeded by
(seed, p, k). Resumable: every finished round is saved in the work folder and a rerun
starts after the last one found; a round is also checkpointed every 2,000 hands. By
default 2-4 is made first from greedy play (6 rounds) and every other preset starts from
the 2-4 table (3 rounds), since their play is close to it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ..cards import DECK
from ..rules import load_rules
from .core import representatives, search
from .splits import order_cards
from .tables import (
    OpponentModel,
    bootstrap_values,
    data_dir,
    load_sample,
    save_sample,
    table_path,
)

DEFAULT_PRESETS = ("2-4", "simple", "1-6", "pagat", "wikipedia", "german", "taiwanese",
                   "vietnamese", "singapore", "malayan", "hawaiian-gardens")
CHECKPOINT_EVERY = 2000


def round_seed(seed: int, preset: str, round_no: int) -> np.random.SeedSequence:
    return np.random.SeedSequence([seed, zlib.crc32(preset.encode()), round_no])


def play_round(model: OpponentModel, hands: int, seed: np.random.SeedSequence,
               partial: Path, label: str) -> np.ndarray:
    """The solver's chosen settings for ``hands`` random hands against ``model``."""
    rng = np.random.default_rng(seed)
    deals = np.array([rng.choice(52, 13, replace=False) for _ in range(hands)])
    out = np.zeros((hands, 3), dtype=np.int64)
    start = 0
    if partial.exists():
        done, meta = load_sample(partial)
        if meta.get("hands") == hands and meta.get("label") == label:
            start = int(meta["done"])  # type: ignore[arg-type]
            out[:start] = done[:start]
    with tqdm(total=hands, initial=start, desc=label, unit="hand", smoothing=0.05) as bar:
        for i in range(start, hands):
            ordered = order_cards([DECK[j] for j in deals[i]])
            picks, rows, score, scored = search(ordered, model, 2)
            # The setting the solver would advise (kicker ties settled as it settles them).
            best = representatives(rows, score, scored.ev, picks, 2, 1)[0]
            out[i] = (rows[0][best], rows[1][best], rows[2][best])
            bar.update()
            if (i + 1) % CHECKPOINT_EVERY == 0 and i + 1 < hands:
                save_sample(partial, out[: i + 1],
                            {"hands": hands, "label": label, "done": i + 1})
    partial.unlink(missing_ok=True)
    return out


def mix(previous: np.ndarray, chosen: np.ndarray, round_no: int,
        seed: np.random.SeedSequence) -> np.ndarray:
    """The next population: this round's choices and as many settings drawn from the
    previous population. Plain best-response rounds oscillate (a population that puts
    pairs in front is best answered by a stronger middle, and back again); keeping half
    of the old population damps that, like fictitious play. Round 1 replaces the greedy
    start outright. Shuffled, so that any prefix is a fair subsample."""
    rng = np.random.default_rng(seed)
    if round_no == 1:
        return chosen[rng.permutation(len(chosen))]
    keep = previous[rng.choice(len(previous), size=len(chosen),
                               replace=len(previous) < len(chosen))]
    both = np.concatenate([chosen, keep])
    return both[rng.permutation(len(both))]


def make_table(preset: str, rounds: int, hands: int, seed: int, work: Path, out: Path,
               warm_start: str | None) -> None:
    rules = load_rules(preset)
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    start_path = table_path(warm_start, out) if warm_start else None
    if start_path is not None and start_path.exists():
        population, _ = load_sample(start_path)
        origin = f"table {warm_start}"
    else:
        population = bootstrap_values(hands, seed)
        origin = "greedy"
    first = 1
    for k in range(rounds, 0, -1):  # resume after the last finished round
        path = work / f"{preset}-round{k}.npz"
        if path.exists():
            population, _ = load_sample(path)
            first = k + 1
            break
    for k in range(first, rounds + 1):
        model = OpponentModel.build(rules, population, f"{preset} round {k - 1}")
        label = f"{preset} round {k}/{rounds}"
        chosen = play_round(model, hands, round_seed(seed, preset, k),
                            work / f"{preset}-round{k}.partial.npz", label)
        population = mix(population, chosen, k, round_seed(seed, preset, 1000 + k))
        save_sample(work / f"{preset}-round{k}.npz", population,
                    {"preset": preset, "round": k, "hands": hands, "seed": seed})
        shift = [float(np.mean(population[:, r] >> 20)) for r in range(3)]
        tqdm.write(f"{label}: mean category front/middle/back "
                   f"{shift[0]:.3f} / {shift[1]:.3f} / {shift[2]:.3f}")
    meta = {"preset": preset, "rounds": rounds, "hands": hands, "seed": seed,
            "start": origin, "seconds_this_run": round(time.monotonic() - started, 1)}
    save_sample(table_path(preset, out), population, meta)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="make_solver_tables",
        description="Make the setting solver's opponent tables by self-play.")
    parser.add_argument("presets", nargs="*", default=list(DEFAULT_PRESETS),
                        help="presets to make (default: all, 2-4 first)")
    parser.add_argument("--rounds", type=int, default=6,
                        help="self-play rounds from the greedy start (default 6)")
    parser.add_argument("--warm-rounds", type=int, default=3,
                        help="rounds for a preset warm-started from another's table "
                             "(default 3)")
    parser.add_argument("--hands", type=int, default=20000,
                        help="random hands a round (default 20000)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--warm-start", default="2-4",
                        help="start the other presets from this preset's finished table "
                             "(default 2-4, made first when listed); 'none' starts every "
                             "preset from greedy play")
    parser.add_argument("--work", type=Path, default=Path("build/solver-tables"),
                        help="folder for finished rounds (resume from here)")
    parser.add_argument("--out", type=Path, default=None,
                        help="folder for the finished tables (default engine/data)")
    args = parser.parse_args(argv)
    out = args.out or data_dir()
    started = time.monotonic()
    warm_start = None if args.warm_start == "none" else args.warm_start
    presets = list(args.presets)
    if warm_start in presets:  # the warm start's own table first
        presets.remove(warm_start)
        presets.insert(0, warm_start)
    for preset in presets:
        warm = warm_start if warm_start != preset else None
        if warm and not table_path(warm, out).exists():
            parser.error(f"--warm-start {warm}: no table {table_path(warm, out)}; make it "
                         "first or pass --warm-start none")
        rounds = args.warm_rounds if warm else args.rounds
        make_table(preset, rounds, args.hands, args.seed, args.work, out, warm)
    elapsed = time.monotonic() - started
    print(json.dumps({"presets": presets, "rounds": args.rounds,
                      "warm_rounds": args.warm_rounds, "hands": args.hands,
                      "seconds": round(elapsed, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
