"""The corner classifier with its features as a second output, for learned decks.

A deck learned from four photos (``vision.decks``) adapts the classifier to that deck on
the network's penultimate features (the pooled vector the rank and suit heads read).
onnxruntime only returns a graph's outputs, so this tool writes a copy of the shipped
classifier whose graph also outputs that vector as ``features``; the run time needs no
``onnx`` package and no torch.

    python -m vision.training.deck_features                   # models/corner-features-int8.onnx

Rerun it whenever the shipped classifier changes: a deck records the hash of the file it
was fitted with and refits itself from its stored crops when that file changes.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path

from vision.decks import FEATURES_MODEL
from vision.detector import default_model


def add_features_output(source: Path, out: Path) -> str:
    """Write ``source`` with the input of its rank head as a second output, ``features``.
    Returns the name of the tensor exposed."""
    import onnx

    model = onnx.load(str(source))
    graph = model.graph
    heads = [node for node in graph.node if node.op_type == "Gemm"]
    if not heads:
        raise ValueError(f"{source}: no fully connected head (Gemm) to read features from")
    tensor = heads[0].input[0]
    if any(head.input[0] != tensor for head in heads):
        raise ValueError(f"{source}: its heads read different tensors; expected one "
                         "pooled feature vector")
    graph.node.append(onnx.helper.make_node("Identity", [tensor], ["features"]))
    graph.output.append(onnx.helper.make_tensor_value_info(
        "features", onnx.TensorProto.FLOAT, ["n", None]))
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    entry = model.metadata_props.add()
    entry.key, entry.value = "source_sha256", digest
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))
    return tensor


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.training.deck_features",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=None,
                        help="classifier ONNX file (default: the shipped one, cards.json)")
    parser.add_argument("--out", type=Path, default=FEATURES_MODEL)
    args = parser.parse_args(argv)
    source = args.source or default_model().classifier
    if source is None:
        print("no classifier shipped in models/ (see models/README.md)", file=sys.stderr)
        return 2
    tensor = add_features_output(source, args.out)
    print(f"{source} -> {args.out} (features: {tensor})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
