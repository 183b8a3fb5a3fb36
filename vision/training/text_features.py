"""A pretrained text recogniser's features as a second reader of corner crops (issue 14).

    pip install -e .[ocr-study]
    python -m vision.training.text_features features CROPS.npz ...
    python -m vision.training.text_features lodo --extra crops-train font-crops
    python -m vision.training.text_features head --train A B ... --out models/corner-text.onnx

The rank glyph is text, and RapidOCR's PP-OCRv4 recogniser (Apache-2.0, its ONNX weights
inside the ``rapidocr-onnxruntime`` wheel: nothing is downloaded) has seen far more
typefaces than we render. Read as text it names few corners (``ocr_report``), so here its
inner features are tapped instead: the backbone's last pooled map (480 x 6 at a 48-pixel
crop) and the sequence neck's output (6 x 120). A linear head on those 3,600 values, fitted
on our crop files, names the 52 cards; photo mode can add its log-probabilities, weighted,
to the corner classifier's (``vision.classifier.TextReader``) where ``cards.json`` names it.
It does not: measured in session 18, it read the tune sets better and the held-out sets no
better (models/README.md, "Session 18").

``features`` caches each crop file's features beside it (``NAME.text.npz``: the crops as
they are and turned half round); ``lodo`` fits a head without each real deck and reads
that deck's held-out crops, beside the shipped classifier; ``head`` fits one head on all
the files given and writes the recogniser, cut at its taps, with the head appended as one
ONNX model: (N, 3, 48, 48) BGR in [-1, 1] -> (N, 52) logits.

Only the workshop runs this; the reader loads the written model with onnxruntime alone.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.cards import CARD_NAMES
from vision.classifier import log_softmax
from vision.netinput import text_input
from vision.session import cpu_session

GENERATED = Path(__file__).resolve().parents[2] / "datasets" / "generated"
# The recogniser's tensors tapped: the backbone's pooled map and the neck's sequence.
TAPS = ("p2o.AveragePool.1", "transpose_51.tmp_0")
FEATURES = 480 * 6 + 6 * 120  # at a TEXT_SIDE-pixel square input
# Held out one at a time by ``lodo``: each real deck's training and held-out crop files.
REAL_DECK_FILES = {
    "real-photos-dev": ("real-crops-train", "real-crops-holdout"),
    "phone-white": ("deck-phone-white-train", "deck-phone-white-holdout"),
    "phone-black": ("deck-phone-black-train", "deck-phone-black-holdout"),
    "webcam-handheld": ("deck-webcam-handheld-train", "deck-webcam-handheld-holdout"),
}


def recogniser_path() -> Path:
    try:
        import rapidocr_onnxruntime
    except ImportError:
        raise SystemExit("text_features needs the text recogniser: "
                         "pip install -e .[ocr-study]") from None
    found = sorted((Path(rapidocr_onnxruntime.__file__).parent / "models").glob("*rec*.onnx"))
    if not found:
        raise SystemExit("text_features: no recogniser model in the rapidocr wheel")
    return found[0]


def tapped(recogniser: Path) -> Any:
    """The recogniser cut at ``TAPS``: an onnx ModelProto from input ``x`` to the taps."""
    import onnx

    # The recogniser's own file lacks the shapes onnx's checker asks of a cut's outputs.
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "tapped.onnx"
        onnx.utils.extract_model(str(recogniser), str(out), ["x"], list(TAPS),
                                 check_model=False)
        return onnx.load(str(out))


def flat_features(outputs: Sequence[np.ndarray]) -> np.ndarray:
    """The taps' outputs for N crops -> (N, FEATURES): each flattened, side by side."""
    return np.concatenate([o.reshape(len(o), -1) for o in outputs], axis=1)


def feature_reader(recogniser: Path) -> Callable[[np.ndarray], np.ndarray]:
    """crops (N, CROP, CROP, 3) RGB uint8 -> (N, FEATURES) float32."""
    session = cpu_session(tapped(recogniser).SerializeToString())

    def read(crops: np.ndarray, batch: int = 256) -> np.ndarray:
        parts = [flat_features(session.run(list(TAPS), {"x": text_input(crops[i:i + batch])}))
                 for i in range(0, len(crops), batch)]
        return np.concatenate(parts).astype(np.float32) if parts \
            else np.zeros((0, FEATURES), np.float32)
    return read


def cache_path(crops: Path) -> Path:
    return crops.with_suffix(".text.npz")


def write_features(files: Sequence[Path]) -> None:
    read = feature_reader(recogniser_path())
    for path in files:
        data = np.load(path)
        images = data["images"]
        tick = time.perf_counter()
        upright = read(images)
        turned = read(np.ascontiguousarray(images[:, ::-1, ::-1]))
        np.savez(cache_path(path), upright=upright.astype(np.float16),
                 turned=turned.astype(np.float16), labels=data["labels"])
        ms = 1000 * (time.perf_counter() - tick) / max(2 * len(images), 1)
        print(f"{path.name}: {len(images)} crops, {ms:.2f} ms a crop a turn", flush=True)


def load_features(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    path = cache_path(GENERATED / f"{name}.npz")
    if not path.exists():
        raise SystemExit(f"text_features: {path} not made (run `features` on "
                         f"{path.with_suffix('').with_suffix('.npz')} first)")
    data = np.load(path)
    return data["upright"].astype(np.float32), data["turned"].astype(np.float32), data["labels"]


class LinearHead:
    """Standardised features -> 52 logits."""

    def __init__(self, mean: np.ndarray, scale: np.ndarray, weight: np.ndarray,
                 bias: np.ndarray) -> None:
        self.mean, self.scale, self.weight, self.bias = mean, scale, weight, bias

    def logits(self, features: np.ndarray) -> np.ndarray:
        return ((features - self.mean) / self.scale) @ self.weight.T + self.bias

    def log_probabilities(self, upright: np.ndarray, turned: np.ndarray) -> np.ndarray:
        """Both turns' log-probabilities averaged, as the reader reads a crop."""
        return (log_softmax(self.logits(upright)) + log_softmax(self.logits(turned))) / 2


def fit_head(features: np.ndarray, labels: np.ndarray, epochs: int = 12,
             weight_decay: float = 1e-4, seed: int = 0) -> LinearHead:
    """Multinomial logistic regression (AdamW, dropout on the inputs) on standardised
    features."""
    import torch

    torch.manual_seed(seed)
    x = torch.from_numpy(features.astype(np.float32))
    y = torch.from_numpy(labels.astype(np.int64))
    mean, scale = x.mean(0), x.std(0) + 1e-3
    x = (x - mean) / scale
    layer = torch.nn.Linear(x.shape[1], len(CARD_NAMES))
    net = torch.nn.Sequential(torch.nn.Dropout(0.2), layer)
    optimiser = torch.optim.AdamW(net.parameters(), 1e-3, weight_decay=weight_decay)
    for _ in range(epochs):
        order = torch.randperm(len(x))
        for start in range(0, len(x), 256):
            batch = order[start:start + 256]
            loss = torch.nn.functional.cross_entropy(net(x[batch]), y[batch])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return LinearHead(mean.numpy(), scale.numpy(), layer.weight.detach().numpy(),
                      layer.bias.detach().numpy())


def training_set(names: Sequence[str], cap: int, seed: int = 0
                 ) -> tuple[np.ndarray, np.ndarray]:
    """At most ``cap`` crops of each file, both turns of each, with their labels."""
    rng = np.random.default_rng(seed)
    features, labels = [], []
    for name in names:
        upright, turned, label = load_features(name)
        chosen = rng.permutation(len(label))[:cap]
        features += [upright[chosen], turned[chosen]]
        labels += [label[chosen], label[chosen]]
    return np.concatenate(features), np.concatenate(labels)


def export(head: LinearHead, recogniser: Path, out: Path) -> None:
    """The recogniser cut at its taps with ``head`` appended, as one float ONNX model;
    the standardisation is folded into the head's weights."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = tapped(recogniser)
    graph = model.graph
    weight = (head.weight / head.scale).astype(np.float32)  # (52, FEATURES)
    bias = (head.bias - weight @ head.mean).astype(np.float32)
    graph.initializer.extend([
        numpy_helper.from_array(np.array([0, -1], np.int64), "text_head_flat"),
        numpy_helper.from_array(np.ascontiguousarray(weight.T), "text_head_weight"),
        numpy_helper.from_array(bias, "text_head_bias")])
    flat = [f"text_head_in{i}" for i in range(len(TAPS))]
    graph.node.extend(
        [helper.make_node("Reshape", [tap, "text_head_flat"], [name])
         for tap, name in zip(TAPS, flat, strict=True)]
        + [helper.make_node("Concat", flat, ["text_head_features"], axis=1),
           helper.make_node("MatMul", ["text_head_features", "text_head_weight"],
                            ["text_head_product"]),
           helper.make_node("Add", ["text_head_product", "text_head_bias"], ["logits"])])
    del graph.output[:]
    graph.output.append(helper.make_tensor_value_info("logits", TensorProto.FLOAT,
                                                      ["batch", len(CARD_NAMES)]))
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))


def shipped_log_probabilities(name: str) -> np.ndarray:
    """The shipped photo classifier on a crop file, as photo mode reads one crop (four
    turns)."""
    from vision.classifier import MODELS, CornerClassifier

    classifier = CornerClassifier(MODELS / "corner-classifier-photo-int8.onnx")
    probabilities = classifier.probabilities(np.load(GENERATED / f"{name}.npz")["images"],
                                             orientations=4)
    return np.log(probabilities + 1e-9)


def ranks(classes: np.ndarray) -> np.ndarray:
    return np.array([CARD_NAMES[int(c)][0] for c in classes])


def lodo(extra: Sequence[str], cap: int, weights: Sequence[float]) -> None:
    """Print, for each real deck held out of the head's training, the held-out crops named
    right by the head alone, the shipped classifier, and the two added at each weight."""
    print("| deck held out | crops | head: card | head: rank | classifier: card "
          + " ".join(f"| both at {w}" for w in weights) + " |")
    print("|---|---|---|---|---|" + "---|" * len(weights))
    for held, (_, test) in REAL_DECK_FILES.items():
        names = [train for deck, (train, _) in REAL_DECK_FILES.items() if deck != held]
        head = fit_head(*training_set([*names, *extra], cap))
        upright, turned, labels = load_features(test)
        own = head.log_probabilities(upright, turned)
        shipped = shipped_log_probabilities(test)
        mixed = [float(((shipped + w * own).argmax(1) == labels).mean()) for w in weights]
        print(f"| {held} | {len(labels)} | {(own.argmax(1) == labels).mean():.3f} "
              f"| {(ranks(own.argmax(1)) == ranks(labels)).mean():.3f} "
              f"| {(shipped.argmax(1) == labels).mean():.3f} "
              + " ".join(f"| {m:.3f}" for m in mixed) + " |", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.training.text_features",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    feats = sub.add_parser("features", help="cache the recogniser's features of crop files")
    feats.add_argument("crops", type=Path, nargs="+")
    study = sub.add_parser("lodo", help="leave one real deck out of the head's training")
    study.add_argument("--extra", nargs="*", default=[],
                       help="crop files (names under datasets/generated) always trained on")
    study.add_argument("--cap", type=int, default=6000, help="crops at most a file")
    study.add_argument("--weights", type=float, nargs="+", default=[0.1, 0.25, 0.5])
    head = sub.add_parser("head", help="fit the head on crop files and write the model")
    head.add_argument("--train", nargs="+", required=True,
                      help="crop files (names under datasets/generated)")
    head.add_argument("--cap", type=int, default=6000)
    head.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "features":
        missing = [str(p) for p in args.crops if not p.exists()]
        if missing:
            print(f"text_features: no such crop file: {', '.join(missing)}", file=sys.stderr)
            return 2
        write_features(args.crops)
    elif args.command == "lodo":
        lodo(args.extra, args.cap, args.weights)
    else:
        fitted = fit_head(*training_set(args.train, args.cap))
        export(fitted, recogniser_path(), args.out)
        print(f"text head -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
