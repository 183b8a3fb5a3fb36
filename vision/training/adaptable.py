"""Export photo mode's classifier as the network a learned deck adapts to itself.

A deck printed unlike the training decks (the black deck's gold and silver indices) moves
the statistics of the network's inner layers away from what its batch norms were trained
on. Recomputing them on the deck's own calibration corners (AdaBN) names its corners better
without training anything: on ``real-decks-dev``'s black deck, composed hands of its held-out
corners 40.0 -> 43.33 % all right; and a dark photo read with no deck adapts it to its own
corners (``ModelInfo.photo_dark_adapt``; models/README.md, "Session 87"). The reader does it
with onnxruntime alone (``vision.classifier.batch_norm_statistics``), so this file keeps
what that needs and the shipped int8 classifier folds away:

- the names come from a copy of the network whose batch norms stay in the graph, their
  running means and variances inputs a caller may feed (their trained values the
  defaults; onnxruntime folds a norm into its convolution when they are initializers
  alone, and a session's replaced initializers then go unread);
- the index head (does the crop show an index at all) reads the network as trained:
  adapted too, it lost held-out photos of the black deck;
- each adaptable batch norm's input is an output too, so the same file measures the
  deck's statistics;
- the metadata (``ADAPTABLE_KEY``) names, for each, that output, its two initializers and
  their trained values, which a deck's statistics are mixed with.

    python -m vision.training.adaptable --state models/checkpoints/corner-classifier-photo.pt \\
        --channels 64 128 256 --out models/corner-classifier-photo-deck.onnx
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from vision.classifier import ADAPTABLE_KEY
from vision.training.train_classifier import CHANNELS, trained_network

NAMES_PREFIX = "names"  # the adaptable copy's initializers are named under it


def adaptable_model(state: Path, channels: Sequence[int] = CHANNELS) -> bytes:
    """The serialised ONNX model (see the module's docstring) of the network at ``state``,
    which must have an index head."""
    import onnx
    import torch

    trained = trained_network(state, channels)
    if trained.index is None:
        raise ValueError(f"{state} has no index head: photo mode's classifier has one")

    class NamesAdaptable(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            setattr(self, NAMES_PREFIX, copy.deepcopy(trained))
            self.trained = trained

        def forward(self, x: torch.Tensor):
            return getattr(self, NAMES_PREFIX)(x)[0], self.trained(x)[1]

    buffer = io.BytesIO()
    # No constant folding: it would fold each batch norm into its convolution, and with it
    # the statistics a deck replaces. onnxruntime folds them when it opens the session.
    torch.onnx.export(NamesAdaptable().eval(), torch.zeros(1, 3, 40, 40), buffer,
                      input_names=["crops"], output_names=["logits", "index"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}, "index": {0: "n"}},
                      opset_version=17, dynamo=False, do_constant_folding=False)
    model = onnx.load_from_string(buffer.getvalue())
    values = {init.name: onnx.numpy_helper.to_array(init) for init in model.graph.initializer}
    adaptable = [node for node in model.graph.node if node.op_type == "BatchNormalization"
                 and node.name.startswith(f"/{NAMES_PREFIX}/")]
    # The exporter keeps one initializer for tensors that hold the same values, so the
    # trained copy's norms read the adaptable copy's statistics: they get their own.
    fed = {name for node in adaptable for name in node.input[3:]}
    for node in model.graph.node:
        if node.name.startswith(f"/{NAMES_PREFIX}/"):
            continue
        for k, name in enumerate(node.input):
            if name in fed:
                own = f"trained.{name}"
                if own not in values:
                    model.graph.initializer.append(
                        onnx.numpy_helper.from_array(values[name], own))
                    values[own] = values[name]
                node.input[k] = own
    norms = []
    for node in adaptable:
        source, _, _, mean, var = node.input
        model.graph.output.append(onnx.helper.make_tensor_value_info(
            source, onnx.TensorProto.FLOAT, ["n", "channels", "height", "width"]))
        # An initializer that is also a graph input is a default the caller may feed
        # instead, and onnxruntime does not fold it into the convolution before it.
        for name in (mean, var):
            model.graph.input.append(onnx.helper.make_tensor_value_info(
                name, onnx.TensorProto.FLOAT, list(values[name].shape)))
        norms.append({"input": source, "mean": mean, "var": var,
                      "trained_mean": values[mean].tolist(),
                      "trained_var": values[var].tolist()})
    if not norms:
        raise ValueError("the exported network has no batch norm left to adapt")
    entry = model.metadata_props.add()
    entry.key, entry.value = ADAPTABLE_KEY, json.dumps(norms)
    onnx.checker.check_model(model)
    return model.SerializeToString()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.training.adaptable",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--state", type=Path, required=True,
                        help="photo mode's classifier's state dict (with its index head)")
    parser.add_argument("--channels", type=int, nargs="+", default=list(CHANNELS))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if not args.state.is_file():
        print(f"error: {args.state} not found", file=sys.stderr)
        return 2
    try:
        data = adaptable_model(args.state, args.channels)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    print(f"{args.state} -> {args.out} ({len(data) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
