"""Int8 copies of the two ONNX models, for speed on a CPU.

    python -m vision.training.quantize detector --out models/cards-int8.onnx
    python -m vision.training.quantize classifier --out models/corner-classifier-int8.onnx

Static quantization (onnxruntime, QDQ format): weights int8 per output channel, activations
uint8 with ranges measured on calibration inputs. Only convolutions are quantized; the
detector's box decoding and the classifier's log-softmax stay in float. Calibration inputs
come from training data only (rendered training scenes and the real set's ``train`` shots;
training crops for the classifier), never from what the models are measured on.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from vision.classifier import DEFAULT_WEIGHTS as CLASSIFIER_WEIGHTS
from vision.classifier import input_side
from vision.detector import MODELS
from vision.netinput import CROP, classifier_input, detector_input, letterbox, sized_crops
from vision.photo import load_photo
from vision.session import cpu_session

GENERATED = Path(__file__).resolve().parents[2] / "datasets" / "generated"


def quantize(source: Path, out: Path, inputs: Iterator[np.ndarray]) -> None:
    """Write ``source`` quantized to ``out``, calibrated on ``inputs`` (model-ready arrays)."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    name = onnx.load(str(source)).graph.input[0].name

    class Reader(CalibrationDataReader):
        def get_next(self) -> dict[str, np.ndarray] | None:
            batch = next(inputs, None)
            return None if batch is None else {name: batch}

    with tempfile.TemporaryDirectory() as scratch:
        prepared = Path(scratch) / "prepared.onnx"
        # Symbolic shape inference cannot follow a detector's dynamic height and width
        # through its reshapes; the ONNX shape inference it falls back to is enough here.
        quant_pre_process(str(source), str(prepared), skip_symbolic_shape=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        # reduce_range: 7-bit weights. On x86 CPUs without VNNI (AVX2 only, as this
        # machine's AMD EPYC) onnxruntime's u8 x s8 kernels add pairs of products in 16
        # bits, which saturates with full-range weights: the classifier quantized on a
        # VNNI machine named 2 in 10 corners wrong here (measured 2026-11-23).
        quantize_static(str(prepared), str(out), Reader(), quant_format=QuantFormat.QDQ,
                        per_channel=True, reduce_range=True,
                        activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8, op_types_to_quantize=["Conv"],
                        calibrate_method=CalibrationMethod.MinMax)


def detector_inputs(count: int, imgsz: int, seed: int, rendered_set: Path = GENERATED / "v1"
                    ) -> Iterator[np.ndarray]:
    """Letterboxed photos: half rendered training scenes (or tiles), half the real set's
    train shots (when the real set is there)."""
    from .realdata import REAL_PHOTOS, photos

    rng = random.Random(seed)
    rendered = sorted((rendered_set / "images" / "train").glob("*.jpg"))
    real = photos("train") if REAL_PHOTOS.is_dir() else []
    if not rendered and not real:
        raise SystemExit("no calibration photos: render scenes first "
                         "(python -m vision.training.synth --out datasets/generated/v1 ...)")
    chosen = rng.sample(rendered, min(len(rendered), count // 2 if real else count)) + \
        rng.sample(real, min(len(real), count // 2))
    for path in chosen:
        canvas, _, _ = letterbox(load_photo(path), (imgsz, imgsz))
        yield detector_input(canvas)


def classifier_inputs(files: Sequence[Path], count: int, seed: int,
                      batch: int = 64, side: int = CROP) -> Iterator[np.ndarray]:
    """Calibration batches of the files' crops, each averaged down to ``side``, the side
    the model reads (``train_classifier --input-px``), as the reader does."""
    rng = np.random.default_rng(seed)
    crops = []
    for path in files:
        images = np.load(path)["images"]
        crops.append(images[rng.choice(len(images), min(len(images), count // len(files)),
                                       replace=False)])
    pool = np.concatenate(crops)
    for start in range(0, len(pool), batch):
        yield classifier_input(sized_crops(pool[start:start + batch], side))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.quantize", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", choices=["detector", "classifier"])
    parser.add_argument("--source", type=Path, default=None,
                        help="float model (default: the shipped one)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=96,
                        help="calibration photos (detector) or crops (classifier)")
    parser.add_argument("--imgsz", type=int, default=640)
    parser.add_argument("--crops", type=Path, nargs="+",
                        default=[GENERATED / "crops-train.npz",
                                 GENERATED / "real-crops-train.npz",
                                 GENERATED / "font-crops.npz"],
                        help="training crop files to calibrate the classifier on (default: "
                             "the rendered, real and font crops the shipped one used)")
    parser.add_argument("--rendered", type=Path, default=GENERATED / "v1",
                        help="rendered set whose training images calibrate the detector")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.model == "detector":
        source = args.source or MODELS / "cards.onnx"
        inputs = detector_inputs(args.count, args.imgsz, args.seed, args.rendered)
    else:
        source = args.source or CLASSIFIER_WEIGHTS
        missing = [str(p) for p in args.crops if not p.exists()]
        if missing:
            print(f"missing crop files: {', '.join(missing)} (see models/README.md)",
                  file=sys.stderr)
            return 2
        inputs = classifier_inputs(args.crops, args.count, args.seed,
                                   side=input_side(cpu_session(source, 1)))
    quantize(source, args.out, inputs)
    print(f"{source} -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
