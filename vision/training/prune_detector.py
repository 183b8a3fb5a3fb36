"""Cut a trained YOLOv8 detector down to a thinner one of the same shape, as a start for
training the thinner one (live mode's detector).

    python -m vision.training.prune_detector models/cards.pt runs/NAME/thin.pt [--width 0.125]

Live mode reads a 640x480 frame in one detector pass, and the nano network's pass alone
takes most of its 60 ms on this machine. A network of the same YAML at half the width
(``--width 0.125``: channels 8 to 128 instead of 16 to 256) runs in about half the time.
Trained from scratch on two cores it would need far more epochs than a session holds, so
it starts from the trained network instead: every convolution keeps the output channels
whose batch-norm scale is largest (network slimming: a channel a trained network scales
near zero carries little), and every later layer keeps the matching input channels. The
residual adds of the backbone's bottlenecks keep the channel set they add to. What comes
out detects poorly until trained on (``train_detector --weights THIN.pt``), but it starts
from features that already find corner indices.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Sequence
from pathlib import Path

from .offline import configure_environment


def strongest_channels(bn_weight, count: int, offset: int = 0):
    """Indices of the ``count`` channels with the largest |scale|, in their own order."""
    import torch

    order = torch.argsort(bn_weight.detach().abs(), descending=True)[:count]
    return torch.sort(order).values + offset


def _copy_conv(teacher, student, keep_in, keep_out) -> None:
    """``student`` (an ultralytics Conv: conv, bn) takes ``teacher``'s weights on the kept
    input and output channels."""
    import torch

    with torch.no_grad():
        student.conv.weight.copy_(teacher.conv.weight[keep_out][:, keep_in])
        for name in ("weight", "bias", "running_mean", "running_var"):
            getattr(student.bn, name).copy_(getattr(teacher.bn, name)[keep_out])


def _conv_keep(teacher, student, keep_in, fixed_out=None):
    out = student.conv.out_channels
    keep_out = fixed_out if fixed_out is not None else strongest_channels(teacher.bn.weight, out)
    _copy_conv(teacher, student, keep_in, keep_out)
    return keep_out


def thinned(teacher_model, width: float):
    """A DetectionModel of ``teacher_model``'s YAML at ``width``, its weights cut from the
    teacher's. The depth stays the teacher's: a bottleneck dropped has no weights to cut."""
    import torch
    from ultralytics.nn.modules import SPPF, C2f, Concat, Conv, Detect
    from ultralytics.nn.tasks import DetectionModel

    cfg = copy.deepcopy(teacher_model.yaml)
    scale = cfg.get("scale", "n")
    depth, _, max_channels = cfg["scales"][scale]
    cfg["scales"] = {"t": [depth, width, max_channels]}
    cfg["scale"] = "t"
    cfg.pop("yaml_file", None)
    student_model = DetectionModel(cfg, ch=cfg.get("channels", 3), nc=cfg["nc"],
                                   verbose=False)
    teacher_model = teacher_model.float().eval()

    # Each layer's output channel count in the teacher, for concatenations' offsets.
    widths: dict[int, int] = {}
    hooks = [layer.register_forward_hook(
        lambda _m, _i, out, i=i: widths.__setitem__(i, out.shape[1]) if torch.is_tensor(out)
        else None) for i, layer in enumerate(teacher_model.model)]
    with torch.no_grad():
        teacher_model(torch.zeros(1, 3, 64, 64))
    for hook in hooks:
        hook.remove()

    kept: dict[int, torch.Tensor] = {}
    image = torch.arange(3)
    for i, (teacher, student) in enumerate(zip(teacher_model.model, student_model.model,
                                               strict=True)):
        source = teacher.f
        keep_in = (image if source == -1 and i == 0 else
                   kept[i - 1] if source == -1 else None if isinstance(source, list)
                   else kept[source])
        if isinstance(teacher, Conv):
            kept[i] = _conv_keep(teacher, student, keep_in)
        elif isinstance(teacher, C2f):
            half_t, half_s = teacher.c, student.c
            first = strongest_channels(teacher.cv1.bn.weight[:half_t], half_s)
            second = strongest_channels(teacher.cv1.bn.weight[half_t:], half_s, half_t)
            _conv_keep(teacher.cv1, student.cv1, keep_in, torch.cat([first, second]))
            pieces = [first, second - half_t]
            for bt, bs in zip(teacher.m, student.m, strict=True):
                inner = _conv_keep(bt.cv1, bs.cv1, pieces[-1])
                # A residual add keeps the channels it adds to.
                pieces.append(_conv_keep(bt.cv2, bs.cv2, inner,
                                         pieces[-1] if bt.add else None))
            joined = torch.cat([piece + k * half_t for k, piece in enumerate(pieces)])
            kept[i] = _conv_keep(teacher.cv2, student.cv2, joined)
        elif isinstance(teacher, SPPF):
            inner = _conv_keep(teacher.cv1, student.cv1, keep_in)
            pooled = teacher.cv1.conv.out_channels
            joined = torch.cat([inner + k * pooled for k in range(teacher.cv2.conv.in_channels
                                                                  // pooled)])
            kept[i] = _conv_keep(teacher.cv2, student.cv2, joined)
        elif isinstance(teacher, Concat):
            parts, offset = [], 0
            for j in source:
                j = i - 1 if j == -1 else j
                parts.append(kept[j] + offset)
                offset += widths[j]
            kept[i] = torch.cat(parts)
        elif isinstance(teacher, Detect):
            for level, j in enumerate(source):
                for branches_t, branches_s in ((teacher.cv2, student.cv2),
                                               (teacher.cv3, student.cv3)):
                    bt, bs = branches_t[level], branches_s[level]
                    first = _conv_keep(bt[0], bs[0], kept[j])
                    second = _conv_keep(bt[1], bs[1], first)
                    with torch.no_grad():
                        bs[2].weight.copy_(bt[2].weight[:, second])
                        bs[2].bias.copy_(bt[2].bias)
            student.dfl.load_state_dict(teacher.dfl.state_dict())
        elif isinstance(teacher, torch.nn.Upsample):
            kept[i] = kept[i - 1] if source == -1 else kept[source]
        else:
            raise ValueError(f"layer {i} ({type(teacher).__name__}) is not one this cuts")
    student_model.names = teacher_model.names
    student_model.args = getattr(teacher_model, "args", {})
    return student_model


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("weights", type=Path, help="trained detector (.pt)")
    parser.add_argument("out", type=Path, help="the thinner network's checkpoint (.pt)")
    parser.add_argument("--width", type=float, default=0.125,
                        help="width multiple (the nano network's is 0.25)")
    args = parser.parse_args(argv)
    configure_environment()
    import torch

    checkpoint = torch.load(args.weights, map_location="cpu", weights_only=False)
    teacher = checkpoint.get("ema") or checkpoint["model"]
    student = thinned(teacher, args.width)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": student, "train_args": checkpoint.get("train_args", {}),
                "epoch": -1, "date": checkpoint.get("date"),
                "version": checkpoint.get("version")}, args.out)
    teacher_params = sum(p.numel() for p in teacher.parameters())
    student_params = sum(p.numel() for p in student.parameters())
    print(f"{args.out}: width {args.width}, {student_params:,} parameters "
          f"({teacher_params:,} in {args.weights.name})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
