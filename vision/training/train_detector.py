"""Train the card-corner detector from a model YAML, reproducibly and resumably.

    python -m vision.training.train_detector --data datasets/generated/NAME/data.yaml --name RUN \
        [--epochs 12] [--imgsz 640] [--batch 16] [--seed 0] [--model yolov8n.yaml]
        [--weights models/cards.pt]        # start from earlier weights instead of scratch
        [--single-cls]                     # find corners only; the classifier names them
    # continue RUN from runs/cards/RUN/weights/last.pt
    python -m vision.training.train_detector --name RUN --resume
    # best weights so far -> models/
    python -m vision.training.train_detector --name RUN --publish models/cards.pt

Nothing is downloaded: the network comes from the YAML (no pretrained checkpoint), the
ultralytics environment is set offline before it is imported, and AMP (whose check fetches
a model) is off because this trains on the CPU. Runs live in ``runs/cards/RUN`` (git-ignored);
ultralytics writes ``weights/last.pt`` after every epoch, which is what ``--resume`` reads.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from .offline import configure_environment

REPO = Path(__file__).resolve().parents[2]
PROJECT = REPO / "runs" / "cards"

# Augmentations chosen for corner indices. The scenes already carry rotation, perspective,
# lighting, blur and JPEG, so ultralytics' own geometric jitter stays mild: a 0.5 scale
# jitter would halve indices that are only ~15 px wide. Left-right flips keep the class (a
# mirrored K♠ is still K♠) and the real photo set has mirrored shots; up-down flips are off
# because, together with rotation, they turn a 6 into a mirrored 9.
AUGMENT = {"fliplr": 0.5, "flipud": 0.0, "degrees": 0.0, "scale": 0.25, "translate": 0.1,
           "mosaic": 1.0, "mixup": 0.0, "erasing": 0.0, "hsv_h": 0.015, "hsv_s": 0.5,
           "hsv_v": 0.4}


def run_dir(name: str) -> Path:
    return PROJECT / name


def train(data: Path, name: str, epochs: int, imgsz: int, batch: int, seed: int, model: str,
          weights: Path | None, workers: int, lr0: float, cache: str | bool,
          hours: float | None = None, single_cls: bool = False,
          augment: dict[str, float] | None = None, device: str = "cpu",
          teacher: Path | None = None) -> Path:
    """``teacher``: a trained detector whose neck features the network learns to match as
    well as the boxes (ultralytics' feature distillation, ``distill_model``): a thinner
    network cut from it keeps more of what it found."""
    configure_environment()
    from ultralytics import YOLO

    _use_every_core()
    plots = _can_plot()

    # Earlier weights carry their own architecture; loading them into a YAML-built model
    # with .load() is not enough, because the trainer rebuilds a YAML model from scratch.
    net = YOLO(str(weights) if weights is not None else model)
    net.train(
        data=str(data.resolve()), epochs=epochs, imgsz=imgsz, batch=batch, device=device,
        workers=workers, seed=seed, deterministic=True, project=str(PROJECT), name=name,
        # AMP stays off on a GPU too: its check downloads a model, and a nano network trains
        # in float32 there at the speed its data loaders feed it.
        exist_ok=True, pretrained=weights is not None, amp=False, optimizer="AdamW", lr0=lr0,
        cos_lr=True,
        warmup_epochs=min(1.0, epochs / 10), close_mosaic=max(1, epochs // 5), cache=cache,
        # One optimizer step per batch: the default nominal batch of 64 would accumulate four
        # CPU batches per step and leave a short run with a few hundred steps in all.
        nbs=batch,
        patience=epochs, plots=plots, verbose=True, time=hours, single_cls=single_cls,
        **({"distill_model": str(teacher)} if teacher is not None else {}),
        **{**AUGMENT, **(augment or {})},
    )
    return run_dir(name)


def _use_every_core() -> None:
    """Train on every core. ultralytics sets torch to ``cpu_count - 1`` threads for CPU
    training (and loads data in the training process): one thread on this two-core
    machine, which left half of it idle in every detector run until session 50."""
    import os

    from ultralytics.utils import torch_utils

    torch_utils.NUM_THREADS = os.cpu_count() or 1


def _can_plot() -> bool:
    """True where polars is installed. A lent GPU machine has no room for its 54 MB
    wheel: there the plots (drawn with polars) are off, and the trainer's one unguarded
    use of it during a run, reading ``results.csv`` back into each checkpoint, is done
    with the csv module instead. (``--resume`` is left as it was: it runs here.)"""
    try:
        import polars  # noqa: F401
    except ImportError:
        import csv

        from ultralytics.engine.trainer import BaseTrainer

        def read_results_csv(trainer: BaseTrainer) -> dict[str, list[float]]:
            rows = list(csv.DictReader(trainer.csv.read_text().splitlines()))
            return {key.strip(): [float(row[key]) for row in rows]
                    for key in (rows[0] if rows else {})}

        BaseTrainer.read_results_csv = read_results_csv  # type: ignore[method-assign]
        return False
    return True


def resume(name: str, hours: float | None = None) -> Path:
    """Continue a run from its last.pt; ``hours`` re-plans the remaining epochs to fit."""
    configure_environment()
    from ultralytics import YOLO

    _use_every_core()
    last = run_dir(name) / "weights" / "last.pt"
    if not last.exists():
        raise SystemExit(f"nothing to resume: {last} is missing")
    # ultralytics lets `time` change on resume: it then re-estimates the epoch count after
    # each epoch and stretches the LR schedule to end when the time is up.
    YOLO(str(last)).train(resume=True, **({"time": hours} if hours else {}))
    return run_dir(name)


def publish(name: str, dest: Path) -> Path:
    """Copy the run's best weights (optimizer state stripped) to ``dest``, with a summary."""
    configure_environment()
    from ultralytics.utils.torch_utils import strip_optimizer

    weights = run_dir(name) / "weights"
    best = weights / "best.pt" if (weights / "best.pt").exists() else weights / "last.pt"
    if not best.exists():
        raise SystemExit(f"no weights in {weights}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    # Copy first: strip_optimizer rewrites its file, and the run's own copy must stay whole
    # for --resume.
    tmp = dest.with_suffix(".tmp.pt")
    shutil.copyfile(best, tmp)
    strip_optimizer(str(tmp))
    tmp.replace(dest)
    results = run_dir(name) / "results.csv"
    summary = {"run": name, "source": str(best.relative_to(REPO)), "published": time.strftime(
        "%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    if results.exists():
        lines = results.read_text().strip().splitlines()
        header = [h.strip() for h in lines[0].split(",")]
        summary["epochs_done"] = len(lines) - 1
        summary["last_epoch"] = dict(zip(header, (v.strip() for v in lines[-1].split(",")),
                                         strict=False))
    print(json.dumps(summary, indent=1))
    return dest


def export_onnx(weights: Path, dest: Path, imgsz: int = 640) -> Path:
    """``weights`` exported for the reader: ONNX with dynamic input axes, so photo mode can
    read a photo at the size its indices need (``vision.detector.CardDetector.photo_side``)
    and live mode a 640x480 frame on a 640x480 canvas; ``imgsz`` is recorded as the size of
    the first look and of live mode."""
    configure_environment()
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "weights.pt"
        shutil.copyfile(weights, copy)
        with contextlib.redirect_stdout(sys.stderr):
            from ultralytics import YOLO

            made = YOLO(str(copy)).export(format="onnx", imgsz=imgsz, opset=17, dynamic=True)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(made), dest)
    return dest


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.train_detector", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--name", help="run name, under runs/cards/")
    parser.add_argument("--data", type=Path, help="data.yaml from python -m vision.training.synth")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--model", default="yolov8n.yaml", help="architecture YAML")
    parser.add_argument("--weights", type=Path, help="initial weights (default: from scratch)")
    parser.add_argument("--workers", type=int, default=2, help="data loader processes")
    parser.add_argument("--lr0", type=float, default=0.002)
    # JPEG decoding is ~1 % of a CPU training step, and cache="ram" makes runs
    # non-deterministic, so no cache by default.
    parser.add_argument("--cache", default="no", help="ultralytics image cache: ram, disk, no")
    parser.add_argument("--hours", type=float,
                        help="train for this long instead of --epochs: ultralytics fits the "
                             "epoch count and LR schedule to it (also with --resume)")
    parser.add_argument("--single-cls", action="store_true",
                        help="one class, 'corner': the detector only finds corner indices and "
                             "the classifier (vision.classifier) names them")
    parser.add_argument("--hsv-h", type=float, default=None,
                        help="hue jitter, a fraction of the colour circle (default "
                             f"{AUGMENT['hsv_h']}); 0.5 turns suits any colour, as in "
                             "four-colour decks, for a single-class detector")
    parser.add_argument("--scale", type=float, default=None,
                        help="scale jitter, +/- this fraction (default "
                             f"{AUGMENT['scale']}); larger teaches indices of more sizes")
    parser.add_argument("--device", default="cpu",
                        help="torch device: cpu, or a GPU's index (0) on a lent machine")
    parser.add_argument("--teacher", type=Path, default=None,
                        help="a trained detector whose features the network also learns "
                             "to match (distillation; e.g. models/cards.pt for a thinner "
                             "network cut from it)")
    parser.add_argument("--resume", action="store_true", help="continue the run from last.pt")
    parser.add_argument("--publish", type=Path, metavar="DEST",
                        help="copy the run's best weights to DEST and exit")
    parser.add_argument("--export", type=Path, nargs=2, metavar=("WEIGHTS", "DEST"),
                        help="export WEIGHTS (.pt) to DEST as the reader's ONNX and exit")
    args = parser.parse_args(argv)
    if args.export:
        print(export_onnx(args.export[0], args.export[1], args.imgsz))
        return 0
    if not args.name:
        parser.error("--name is required (except with --export)")
    if args.publish:
        publish(args.name, args.publish)
    elif args.resume:
        resume(args.name, args.hours)
    else:
        if args.data is None:
            parser.error("--data is required to start a run")
        cache: str | bool = False if args.cache == "no" else args.cache
        train(args.data, args.name, args.epochs, args.imgsz, args.batch, args.seed, args.model,
              args.weights, args.workers, args.lr0, cache, args.hours, args.single_cls,
              {key: value for key, value in (("hsv_h", args.hsv_h), ("scale", args.scale))
               if value is not None}, args.device, args.teacher)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
