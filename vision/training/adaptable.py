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
- each adaptable batch norm's input is an output too (the statistics network is checked
  against them, ``tests/test_classifier.py``);
- the metadata (``ADAPTABLE_KEY``) names, for each, that output, its two initializers and
  their trained values, which a deck's statistics are mixed with.

Beside it, ``--statistics-out`` writes the statistics network that measures a deck's or a
photo's statistics in one pass (``statistics_model``): onnxruntime runs every node of a
graph whatever outputs are asked for, so measuring the five norms one after another on the
adaptable model ran both of its copies five times in each of four turns (22.6 of the
44.3 s the black deck's 39 held-out photos took to read, session 88).

    python -m vision.training.adaptable --state models/checkpoints/corner-classifier-photo.pt \\
        --channels 64 128 256 --out models/corner-classifier-photo-deck.onnx \\
        --statistics-out models/corner-classifier-photo-deck-norms.onnx
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


def statistics_model(state: Path, norms: list[dict[str, object]],
                     channels: Sequence[int] = CHANNELS) -> bytes:
    """The serialised ONNX network that measures, in one pass, what
    ``vision.classifier.batch_norm_statistics`` mixes: each adaptable batch norm's mean and
    (unbiased) variance over a batch of crops in each of its turns, averaged over the
    turns, each norm's input normalised by the norms before it with the batch's own
    statistics (as a network in training mode normalises a batch). Its input ``turns`` is
    (T, N, 3, H, W), the N crops in T turns; its outputs are named as ``norms`` (the
    adaptable model's ``adaptable_norms``, in order) name the initializers they replace,
    and its metadata lists ``norms`` again, so that it alone gives the mixed statistics."""
    import onnx
    import torch
    import torch.nn.functional as functional

    trained = trained_network(state, channels)
    features = list(trained.features)
    positions = [k for k, module in enumerate(features)
                 if isinstance(module, torch.nn.BatchNorm2d)]
    if len(positions) != len(norms):
        raise ValueError(f"{state} has {len(positions)} batch norms, the adaptable model "
                         f"lists {len(norms)}")
    layers = torch.nn.ModuleList(features[:positions[-1] + 1])

    class OwnStatistics(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = layers

        def forward(self, turns: torch.Tensor):
            count = turns.shape[0]
            x = turns.flatten(0, 1)
            measured = []
            for layer in self.layers:
                if not isinstance(layer, torch.nn.BatchNorm2d):
                    x = layer(x)
                    continue
                # Each turn a batch, averaged as batch norm's running statistics average
                # batches.
                per_turn = x.unflatten(0, (count, -1))
                mean = per_turn.mean(dim=(1, 3, 4)).mean(dim=0)
                var = per_turn.var(dim=(1, 3, 4), unbiased=True).mean(dim=0)
                measured += [mean, var]
                x = functional.batch_norm(x, mean, var, layer.weight, layer.bias,
                                          training=False, eps=layer.eps)
            return tuple(measured)

    names = [str(norm[key]) for norm in norms for key in ("mean", "var")]
    buffer = io.BytesIO()
    with torch.no_grad():  # batch_norm takes measured statistics only outside autograd
        torch.onnx.export(OwnStatistics().eval(), torch.zeros(4, 2, 3, 40, 40), buffer,
                          input_names=["turns"], output_names=names,
                          dynamic_axes={"turns": {0: "turns", 1: "n"}},
                          opset_version=17, dynamo=False)
    model = onnx.load_from_string(buffer.getvalue())
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
    parser.add_argument("--statistics-out", type=Path, default=None,
                        help="where to write the network that measures a deck's statistics "
                             "(statistics_model)")
    args = parser.parse_args(argv)
    if not args.state.is_file():
        print(f"error: {args.state} not found", file=sys.stderr)
        return 2
    try:
        data = adaptable_model(args.state, args.channels)
        statistics = None if args.statistics_out is None \
            else statistics_model(args.state, listed_norms(data), args.channels)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    for path, written in ((args.out, data), (args.statistics_out, statistics)):
        if path is not None and written is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(written)
            print(f"{args.state} -> {path} ({len(written) / 1e6:.1f} MB)")
    return 0


def listed_norms(data: bytes) -> list[dict[str, object]]:
    """The batch norms a serialised adaptable model lists (``ADAPTABLE_KEY``)."""
    import onnx

    for entry in onnx.load_from_string(data).metadata_props:
        if entry.key == ADAPTABLE_KEY:
            return json.loads(entry.value)
    raise ValueError("the model lists no batch norms to adapt")


if __name__ == "__main__":
    raise SystemExit(main())
