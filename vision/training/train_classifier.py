"""Training the second stage, the corner classifier (run by ``vision.classifier``).

Why a second stage: the detector looks at the photo shrunk to its input size, where a
corner index of a 13-card spread is only 10-20 pixels tall; finding it there is easy,
naming it among 52 classes is not. The classifier reads the same corner from the photo at
full resolution (up to 2048 pixels, see ``vision.photo``), so it sees 2-4 times the
pixels. It is also cheap to train on a CPU: crops are tiny, and they are cut from
rendered scenes by the hundred thousand.

    python -m vision.training.train_classifier crops \
        --out datasets/generated/crops-train.npz --scenes 2500
    python -m vision.training.train_classifier train --train ... --val ... \
        --out models/corner-classifier.onnx

    python -m vision.training.train_classifier accuracy --model ... --crops ... [--covered]

At run time only onnxruntime is needed (``vision.classifier.CornerClassifier``); torch and
the scene renderer are this module's alone.
"""

from __future__ import annotations

import argparse
import inspect
import itertools
import json
import math
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np

from engine.cards import CARD_NAMES
from vision.classifier import DEFAULT_WEIGHTS, CornerClassifier
from vision.netinput import CROP, MARGIN, crop_square

from .prune_detector import strongest_channels

# A crop labelled so shows no corner index (vision.training.negatives); it teaches only
# the index head.
NOT_INDEX = len(CARD_NAMES)

# --- training data ---------------------------------------------------------------------

# A crop's margin is drawn from this range of MARGIN's multiples (1.17 to 1.5 times the box).
MARGIN_JITTER = (0.9, 1.15)
# A readable corner is partly covered when less than this share of its rank or its suit
# shows: in fans, such crops are named wrong 3 times in 10 or more where the whole index
# shows is 1 in 30 (models/README.md, "Session 62").
WHOLE_SHOWN = 0.95
# Which crops ``keep_crops`` keeps: what a person could read in them (``Scene.shown``).
KEEPS = ("all", "readable", "partly-covered")


def keep_crops(shown: np.ndarray, keep: str) -> np.ndarray:
    """Which crops to keep, by the shares of their rank and suit that show (``shown``,
    (N, 2)): ``all``; ``readable`` (``synth.scene.readable_shares``); ``partly-covered``,
    readable but less than ``WHOLE_SHOWN`` of the rank or the suit showing."""
    from vision.training.synth.scene import readable_shares

    if keep not in KEEPS:
        raise ValueError(f"no crops called {keep!r} to keep: choose {', '.join(KEEPS)}")
    shown = np.asarray(shown, np.float32).reshape(-1, 2)
    if keep == "all":
        return np.ones(len(shown), bool)
    readable = readable_shares(shown[:, 0], shown[:, 1])
    if keep == "readable":
        return readable
    return readable & (shown.min(axis=1) < WHOLE_SHOWN)


def make_crops(scenes: int, seed: int, role: str, size: int = 960, per_box: int = 2,
               deck_names: Sequence[str] | None = None,
               layouts: Sequence[str] | None = None,
               margin_jitter: tuple[float, float] = MARGIN_JITTER,
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops of every labelled corner in ``scenes`` rendered scenes of ``role`` decks (or
    only ``deck_names`` of them), each cut ``per_box`` times with the box jittered as a
    detector's box would be, at a margin of ``MARGIN`` times a draw from
    ``margin_jitter``. ``layouts``: only these scene layouts, in equal shares (default:
    the generator's mix of 13-card layouts). Returns the crops, their class ids and, for
    each, the shares of its corner's rank and suit that show (``Scene.shown``, float16)."""
    rng = np.random.default_rng(seed)
    images: list[np.ndarray] = []
    labels: list[int] = []
    shown: list[tuple[float, float]] = []
    for scene, jpeg in rendered_scenes(rng, scenes, role, size, layout_weights(layouts),
                                       deck_names):
        for (cls, cx, cy, w, h), shares in zip(scene.labels, scene.shown, strict=True):
            for _ in range(per_box):
                bw, bh = w * size * rng.uniform(0.85, 1.2), h * size * rng.uniform(0.85, 1.2)
                x = cx * size + rng.normal(0, 0.08) * bw
                y = cy * size + rng.normal(0, 0.08) * bh
                box = (x - bw / 2, y - bh / 2, x + bw / 2, y + bh / 2)
                images.append(crop_square(jpeg, box, margin=MARGIN * rng.uniform(*margin_jitter)))
                labels.append(cls)
                shown.append(shares)
    return (np.stack(images), np.array(labels, np.int64),
            np.array(shown, np.float16).reshape(-1, 2))


def worker_seeds(seed: int, scenes: int, workers: int) -> list[tuple[int, int]]:
    """(seed, scenes) for each of ``workers`` processes drawing ``scenes`` together: one
    worker draws them all on ``seed`` (the crops as one process makes them); more split
    the scenes evenly, each on its own stream of ``seed`` (``SeedSequence.spawn``), so
    that no two draw the same scenes and the same call draws the same crops again."""
    if workers <= 1:
        return [(seed, scenes)]
    streams = np.random.SeedSequence(seed).spawn(workers)
    counts = [scenes // workers + (k < scenes % workers) for k in range(workers)]
    return [(int(stream.generate_state(1)[0]), count)
            for stream, count in zip(streams, counts, strict=True) if count]


def make_crops_in_parallel(scenes: int, seed: int, role: str, size: int, workers: int,
                           **options: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``make_crops`` drawn by ``workers`` processes (``worker_seeds``), joined in order."""
    jobs = worker_seeds(seed, scenes, workers)
    if len(jobs) == 1:
        return make_crops(scenes, seed, role, size, **options)  # type: ignore[arg-type]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(len(jobs)) as pool:
        parts = list(pool.map(_crops_job, [(count, part_seed, role, size, options)
                                           for part_seed, count in jobs]))
    return (np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]),
            np.concatenate([p[2] for p in parts]))


def _crops_job(job: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    scenes, seed, role, size, options = job
    return make_crops(scenes, seed, role, size, **options)


def rendered_scenes(rng: np.random.Generator, scenes: int, role: str, size: int,
                    weights: dict[str, float] | None = None,
                    deck_names: Sequence[str] | None = None, what: str = "crops"
                    ) -> Iterator[tuple[object, np.ndarray]]:
    """``scenes`` rendered scenes of ``role`` decks (or only ``deck_names`` of them), each
    of a deck drawn from ``rng`` and laid out by ``weights`` (``render_scene``'s
    ``layout_weights``), with its photo as its JPEG quality leaves it (``jpeg_copy``).
    Raises ValueError naming a deck of ``deck_names`` the role does not hold."""
    from tqdm import tqdm

    from vision.training.synth.backgrounds import BACKGROUNDS, TRAIN_BACKGROUNDS
    from vision.training.synth.decks import available_decks, load_deck
    from vision.training.synth.scene import render_scene

    names = available_decks(role)
    if deck_names:
        unknown = sorted(set(deck_names) - set(names))
        if unknown:
            raise ValueError(f"no {role} deck named {', '.join(unknown)}; the {role} decks "
                             f"are {', '.join(names)}")
        names = [name for name in names if name in deck_names]
    decks = [load_deck(name) for name in names]
    backgrounds = TRAIN_BACKGROUNDS if role == "train" else tuple(BACKGROUNDS)
    for _ in tqdm(range(scenes), desc=f"{what} ({role})", unit="scene"):
        deck = decks[int(rng.integers(len(decks)))]
        scene = render_scene(rng, deck, size=size, backgrounds=backgrounds,
                             layout_weights=weights)
        yield scene, jpeg_copy(scene)


def layout_weights(layouts: Sequence[str] | None) -> dict[str, float] | None:
    """``render_scene``'s ``layout_weights`` for only these layouts, in equal shares (None:
    the generator's mix). Raises ValueError naming a layout the generator does not draw."""
    from vision.training.synth.scene import LAYOUTS

    unknown = sorted(set(layouts or ()) - set(LAYOUTS))
    if unknown:
        raise ValueError(f"no layout named {', '.join(unknown)}; the layouts are "
                         f"{', '.join(sorted(LAYOUTS))}")
    return {name: 1.0 for name in layouts} if layouts else None


def corner_boxes(scene, width: int, height: int) -> np.ndarray:  # a synth.scene.Scene
    """(N, 4) x1 y1 x2 y2 of the scene's labelled corners, in the pixels of its photo."""
    return np.array([((cx - w / 2) * width, (cy - h / 2) * height,
                      (cx + w / 2) * width, (cy + h / 2) * height)
                     for _, cx, cy, w, h in scene.labels], np.float64).reshape(-1, 4)


def jpeg_copy(scene) -> np.ndarray:  # a vision.training.synth.scene.Scene
    """The scene's photo as its JPEG quality leaves it, as a camera saves it: the crop files
    and ``vision.training.negatives`` cut their crops from this copy."""
    return cv2.imdecode(np.frombuffer(cv2.imencode(
        ".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])[1], np.uint8),
        cv2.IMREAD_UNCHANGED)


# --- the network -------------------------------------------------------------------------

RANKS, SUITS = 13, 4  # CARD_NAMES is rank-major: class = rank_index * 4 + suit_index
assert len(CARD_NAMES) == RANKS * SUITS and CARD_NAMES[4] == "3s"


CHANNELS = (24, 48, 96)  # the first model's widths; a wider one is trained with --channels
STAGES = (3, 4)  # how many widths --channels may give: the network's stages
PRECISIONS = ("fp32", "bf16")  # the arithmetic train's passes may run in
MAX_INPUT_PX = 128  # the largest side a network reads crops at (a face's, ``face_crops``)
INDEX_CHANNELS = 32  # the index head's 1x1 convolution over the last feature map
CENTRE_CHANNELS = 32  # the centre head's 1x1 convolution over the last feature map


def build_network(channels: Sequence[int] = CHANNELS, index_head: bool = False,
                  centre_head: bool = False):
    """A small CNN (a torch module: torch is the workshop's) with two heads, rank (13) and
    suit (4), joined into 52 log-probabilities.

    Naming the rank and the suit separately lets every card teach the glyphs it shares
    with the others (all the sevens, all the spades): 52 independent classes each see a
    quarter or a thirteenth of that data.

    ``channels``: the widths of three stages, or of four (``STAGES``); each stage ends in a
    2x2 pooling.

    ``index_head``: a third head, one logit, says whether the crop shows a corner index at
    all (trained on ``vision.training.negatives``' crops of pips, court art and the rest);
    the network then returns (log-probabilities, index logits), and the ONNX model has
    both as outputs (``vision.classifier.CornerClassifier.views_reading``). It reads the
    last feature map before it is pooled (5x5 for a 40-pixel crop), because where the ink
    lies tells an index from a pip: a rank above a suit against one symbol alone. A linear
    head on the pooled features, trained alone, let too many heart and club pips through
    (models/README.md, "Session 19").

    ``centre_head``: rank and suit logits read from the same unpooled map, added to the
    pooled heads' logits. Pooling over the whole crop cannot tell the index the box is
    centred on from a fanned neighbour's index beside it; the map's cells can. Its last
    layer starts at zero, so the network first computes exactly what it did without it.
    """
    import torch
    import torch.nn as nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                nn.ReLU(inplace=True)]

    class CornerNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            # Full resolution gets one thin layer only: most of the cost of a CNN on a CPU
            # is in its early, wide feature maps.
            # Every later stage is two layers and a pooling. A fourth stage widens each
            # feature's view from 34 to 74 pixels: a face read at 64 needs its whole
            # square seen to count pips.
            # (Built in this order: a seed draws each layer's first weights as before.)
            first = block(3, channels[0])
            later = [layer for cin, cout in itertools.pairwise(channels)
                     for layer in (*block(cin, cout), *block(cout, cout), nn.MaxPool2d(2))]
            self.features = nn.Sequential(
                *first, nn.MaxPool2d(2), *later,
                nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2))
            last = channels[-1]
            self.rank = nn.Linear(last, RANKS)
            self.suit = nn.Linear(last, SUITS)
            side = CROP // 2 ** len(channels)  # one 2x2 pooling a stage
            self.index = nn.Sequential(
                nn.Conv2d(last, INDEX_CHANNELS, 1), nn.ReLU(inplace=True), nn.Flatten(),
                nn.Dropout(0.2), nn.Linear(INDEX_CHANNELS * side * side, 1)) \
                if index_head else None
            self.centre = None
            if centre_head:
                self.centre = nn.Sequential(
                    nn.Conv2d(last, CENTRE_CHANNELS, 1), nn.ReLU(inplace=True), nn.Flatten(),
                    nn.Dropout(0.2), nn.Linear(CENTRE_CHANNELS * side * side, RANKS + SUITS))
                nn.init.zeros_(self.centre[-1].weight)
                nn.init.zeros_(self.centre[-1].bias)

        def forward(self, x: torch.Tensor):  # (N, 52) log-probs [, (N, 1) index logits]
            spatial = self.features[:-3](x)  # before pooling, flattening and dropout
            f = self.features[-3:](spatial)
            rank, suit = self.rank(f), self.suit(f)
            if self.centre is not None:
                centre = self.centre(spatial)
                rank, suit = rank + centre[:, :RANKS], suit + centre[:, RANKS:]
            rank = torch.log_softmax(rank, dim=1)
            suit = torch.log_softmax(suit, dim=1)
            names = (rank[:, :, None] + suit[:, None, :]).flatten(1)
            return names if self.index is None else (names, self.index(spatial))

    return CornerNet()


def widen_state(narrow: dict, wide: dict) -> dict:  # torch state dicts
    """``wide``'s state with ``narrow``'s weights in its first channels, computing the
    narrow network's function exactly: a wider network started from the trained one
    instead of from scratch (session 7's 48-96-192 network from scratch named 6.5 % of the
    held-out crops after 2 epochs; the trained 32-64-128 one names 94 %).

    The new channels keep their random incoming weights, so they compute something, but
    every weight from a new channel into an old one (and into the heads) starts at zero:
    the old channels and the output are unchanged until training moves those weights.
    Batch norm's new channels keep their defaults, and a head the narrow network lacks
    (index, centre) starts as built. ValueError: a layer that is not there or is wider."""
    widened = {}
    for name, target in wide.items():
        if name not in narrow:
            if name.startswith(("index.", "centre.")):  # a head the narrow one lacks
                widened[name] = target.clone()
                continue
            raise ValueError(f"{name}: the narrower network has no such layer")
        source = narrow[name]
        if source.shape == target.shape:
            widened[name] = source.clone()
            continue
        if source.dim() != target.dim() or any(
                have > want for have, want in zip(source.shape, target.shape, strict=True)):
            raise ValueError(f"{name}: {tuple(source.shape)} cannot widen to "
                             f"{tuple(target.shape)}")
        merged = target.clone()
        if source.dim() >= 2:
            # Rows are a layer's outputs, columns its inputs: old outputs read no new input.
            merged[:source.shape[0], source.shape[1]:] = 0
        merged[tuple(slice(0, n) for n in source.shape)] = source
        widened[name] = merged
    return widened


def narrow_state(wide: dict, narrow: dict) -> dict:  # torch state dicts
    """``narrow``'s state cut from ``wide``'s trained weights: each convolution keeps the
    output channels whose batch-norm scale is largest (network slimming: a channel the
    trained network scales near zero carries little), each later layer and head the
    matching inputs. Live mode's classifier at a quarter of the cost starts so from the
    trained one instead of from scratch (``vision.training.prune_detector`` does the same
    for the detector). The cut network reads worse than the wide one until trained on."""
    import torch

    convs = sorted((int(name.split(".")[1]) for name, value in wide.items()
                    if name.startswith("features.") and name.endswith(".weight")
                    and value.dim() == 4))
    cut = {name: value.clone() for name, value in wide.items()}
    keep_in = torch.arange(3)
    for layer in convs:
        conv, norm = f"features.{layer}", f"features.{layer + 1}"
        count = narrow[f"{conv}.weight"].shape[0]
        if count > wide[f"{conv}.weight"].shape[0]:
            raise ValueError(f"{conv}: {wide[f'{conv}.weight'].shape[0]} channels cannot "
                             f"narrow to {count}")
        keep_out = strongest_channels(wide[f"{norm}.weight"], count)
        cut[f"{conv}.weight"] = wide[f"{conv}.weight"][keep_out][:, keep_in].clone()
        for part in ("weight", "bias", "running_mean", "running_var"):
            cut[f"{norm}.{part}"] = wide[f"{norm}.{part}"][keep_out].clone()
        keep_in = keep_out
    # The heads read the last convolution's channels (pooled, or per cell: the 1x1 convs).
    for head in ("rank.weight", "suit.weight", "index.0.weight", "centre.0.weight"):
        if head in wide:
            cut[head] = wide[head][:, keep_in].clone()
    for name, target in narrow.items():
        if name not in cut or cut[name].shape != target.shape:
            raise ValueError(f"{name}: the wide network's state does not cut to "
                             f"{tuple(target.shape)}")
    return {name: cut[name] for name in narrow}


def _rand(generator, *size: int):  # -> torch, uniform in [0, 1)
    """Uniform draws from ``generator``, made on its device (the GPU's when training
    there: a CPU generator cannot draw on the GPU)."""
    import torch

    return torch.rand(*size, generator=generator, device=generator.device)


def _reshape(batch, generator):  # torch tensors (N, 3, H, W) in [0, 1]
    """Typeface variation the decks' glyphs lack: each crop is stretched or squeezed (a
    condensed or wide face), slanted, scaled, shifted and turned a little (the detector's
    box is not always centred), and one in three has its strokes made bolder or lighter by
    half a pixel (a min or max filter at twice the size)."""
    import torch
    import torch.nn.functional as F

    n = batch.shape[0]

    def uniform(low: float, high: float):
        return low + (high - low) * _rand(generator, n)

    scale, aspect = uniform(0.88, 1.15), uniform(0.85, 1.18)
    angle, shear = uniform(-0.17, 0.17), uniform(-0.15, 0.15)
    cos, sin = torch.cos(angle), torch.sin(angle)
    theta = torch.zeros(n, 2, 3, device=batch.device)
    # The grid maps output to input coordinates: dividing by the scale enlarges the glyph.
    theta[:, 0, 0] = cos / (scale * aspect)
    theta[:, 0, 1] = (-sin + shear) / (scale * aspect)
    theta[:, 1, 0] = sin / scale
    theta[:, 1, 1] = cos / scale
    shift = _rand(generator, n, 2)
    theta[:, :, 2] = 0.08 * (shift - 0.5) * 2
    grid = F.affine_grid(theta, list(batch.shape), align_corners=False)
    batch = F.grid_sample(batch, grid, mode="bilinear", padding_mode="border",
                          align_corners=False)
    weight = _rand(generator, n, 1, 1, 1)
    large = F.interpolate(batch, scale_factor=2, mode="bilinear", align_corners=False)
    side = batch.shape[-1]
    bolder = F.interpolate(-F.max_pool2d(-large, 3, 1, 1), size=side, mode="area")
    lighter = F.interpolate(F.max_pool2d(large, 3, 1, 1), size=side, mode="area")
    batch = torch.where(weight < 0.17, bolder, torch.where(weight < 0.33, lighter, batch))
    return batch


def _per_crop(span: tuple[float, float], n: int, generator):  # -> torch (N, 1, 1, 1)
    """One value a crop, drawn evenly from ``span``, shaped to scale whole crops."""

    low, high = span
    return low + (high - low) * _rand(generator, n, 1, 1, 1)


# A faded crop keeps this share of its contrast, drawn evenly, washed toward white.
FADE_CONTRAST = (0.2, 0.6)


def _fade(batch, generator, share: float):  # torch tensors (N, 3, H, W) in [0, 1]
    """``share`` of the crops washed toward white, as a card lit by a lamp or a window
    prints its index on a table photo. Tried in session 14 (run 20) for the rendered
    tables' glare-paled indices; it read no more of them (``models/README.md``)."""
    import torch

    n = batch.shape[0]
    chosen = _rand(generator, n, 1, 1, 1) < share
    keep = _per_crop(FADE_CONTRAST, n, generator)
    return torch.where(chosen, 1 - (1 - batch) * keep, batch)


# A grainy crop gets this share of its pixels, drawn evenly, set black or white ...
SPECKLE_DENSITY = (0.005, 0.04)
# ... and grey noise of a standard deviation drawn evenly from this range ...
GRAIN_SIGMA = (0.02, 0.08)
# ... and half of the grainy crops in a batch are smeared along one line this long (pixels).
SMEAR_LENGTH = (3, 7)


def _grain(batch, generator, share: float):  # torch tensors (N, 3, H, W) in [0, 1]
    """``share`` of the crops made as grainy as a cheap camera or a noisy photo makes them:
    salt-and-pepper specks (half of ``real-decks-dev``'s photos carry them), grey sensor
    noise, and for half of those a smear along one direction (a hand-held webcam's motion).
    The rendered crops have none of this, and the real decks' tune crops are misread three
    times as often as their training crops (session 17)."""
    import torch
    import torch.nn.functional as F

    n, _, height, width = batch.shape
    chosen = _rand(generator, n, 1, 1, 1) < share
    if not bool(chosen.any()):
        return batch
    low, high = SMEAR_LENGTH
    length = int(torch.randint(low, high + 1, (1,), generator=generator, device=generator.device))
    angle = float(_rand(generator, 1)) * np.pi
    kernel = np.zeros((length, length), np.float32)
    centre = (length - 1) / 2
    for step in np.linspace(-centre, centre, 4 * length):
        kernel[round(centre + step * np.sin(angle)),
               round(centre + step * np.cos(angle))] = 1
    weight = torch.from_numpy(kernel / kernel.sum()).to(batch.device).expand(
        3, 1, length, length)
    smeared = F.conv2d(F.pad(batch, [length // 2, (length - 1) // 2] * 2, mode="replicate"),
                       weight, groups=3)
    smear = chosen & (_rand(generator, n, 1, 1, 1) < 0.5)
    grainy = torch.where(smear, smeared, batch)
    sigma = _per_crop(GRAIN_SIGMA, n, generator)
    grainy = grainy + sigma * torch.randn(grainy.shape, generator=generator,
                                          device=generator.device)
    density = _per_crop(SPECKLE_DENSITY, n, generator)
    draw = _rand(generator, n, 1, height, width)
    grainy = torch.where(draw < density / 2, torch.zeros_like(grainy),
                         torch.where(draw > 1 - density / 2, torch.ones_like(grainy), grainy))
    return torch.where(chosen, grainy.clamp(0, 1), batch)


# An occluded crop's covering edge lies this far from the crop's centre, drawn evenly, in
# crop sides: from a little past the centre (more than half the crop hidden) to a corner.
OCCLUDE_OFFSET = (-0.1, 0.45)
# The covering card's shadow darkens the strip just outside its edge to this, drawn evenly.
OCCLUDE_SHADOW = (0.45, 0.95)


def _occlude(batch, generator, share: float):  # torch tensors (N, 3, H, W) in [0, 1]
    """``share`` of the crops partly covered by another card, as the next card of a fan or
    a row covers an index: everything beyond a straight edge at any angle is hidden, half
    of them under another crop of the batch (the covering card's own print), half under
    plain card white, and the edge casts a thin shadow. The label stays the covered card's:
    where what still shows fits two names (the lower loop of an 8 or of a 6), the network
    learns to share its belief between them, and the lone-corner bar keeps such a corner
    out instead of naming it surely. Session 33 found most of the wrong cards the reader
    names on ``tune-1280b`` are such corners: an 8 half covered read as a 6 at 0.99."""
    import torch

    n, _, height, width = batch.shape
    chosen = _rand(generator, n, 1, 1, 1) < share
    if not bool(chosen.any()):
        return batch
    angle = 2 * math.pi * _rand(generator, n, 1, 1)
    low, high = OCCLUDE_OFFSET
    offset = (low + (high - low) * _rand(generator, n, 1, 1)) * width
    ys = torch.arange(height, device=batch.device, dtype=batch.dtype) - (height - 1) / 2
    xs = torch.arange(width, device=batch.device, dtype=batch.dtype) - (width - 1) / 2
    # Each pixel's distance past the edge, along the edge's normal: (N, H, W).
    beyond = xs[None, None, :] * torch.cos(angle) + ys[None, :, None] * torch.sin(angle) \
        - offset
    covered = (beyond > 0).unsqueeze(1)
    shadow = ((beyond > -1.5) & (beyond <= 0)).unsqueeze(1)
    white = 0.82 + 0.18 * _rand(generator, n, 1, 1, 1) + 0.04 * (
        _rand(generator, n, 3, 1, 1) - 0.5)
    other = _rand(generator, n, 1, 1, 1) < 0.5
    cover = torch.where(other, batch.roll(1, dims=0), white.expand_as(batch))
    dark = _per_crop(OCCLUDE_SHADOW, n, generator)
    hidden = torch.where(covered, cover, torch.where(shadow, batch * dark, batch))
    return torch.where(chosen, hidden.clamp(0, 1), batch)


def _augment(batch, generator, reshape: bool = False, fade: float = 0.0,
             grain: float = 0.0, sharp: float = 0.0,
             occlude: float = 0.0):  # (N, 3, H, W) in [0, 1]
    import torch
    import torch.nn.functional as F

    n = batch.shape[0]
    # First, so that what follows blurs and varies the covering card's edge with the rest.
    if occlude > 0:
        batch = _occlude(batch, generator, occlude)
    if reshape:
        batch = _reshape(batch, generator)
    if fade > 0:
        batch = _fade(batch, generator, fade)
    if grain > 0:
        batch = _grain(batch, generator, grain)
    # The rendered crops already hold every rotation; a mirror image keeps the class and
    # the real photo set has mirrored shots.
    if bool(_rand(generator, 1) < 0.5):
        batch = batch.flip(3)
    # Colour: some decks print clubs green and diamonds blue, so a suit must be known by
    # its shape as well as its colour: a quarter of the crops lose their colour, and one
    # batch in five has its colour channels shuffled.
    grey = _rand(generator, n, 1, 1, 1) < 0.25
    batch = torch.where(grey, batch.mean(dim=1, keepdim=True).expand_as(batch), batch)
    if bool(_rand(generator, 1) < 0.2):
        batch = batch[:, torch.randperm(3, generator=generator, device=generator.device)]
    # Light, contrast, colour cast, blur by shrinking, noise.
    gain = 0.6 + 0.7 * _rand(generator, n, 1, 1, 1)
    bias = 0.25 * (_rand(generator, n, 1, 1, 1) - 0.5)
    cast = 1 + 0.12 * (_rand(generator, n, 3, 1, 1) - 0.5)
    batch = (batch - 0.5) * gain + 0.5 + bias
    batch = batch * cast
    # Shrunk to between 18 and 40 pixels a 40-pixel crop; as much of a larger one (a face).
    side = batch.shape[-1]
    small = int(torch.randint(round(18 * side / CROP), side + 1, (1,), generator=generator,
                              device=generator.device))
    # The draw above leaves one batch in 23 as cut, so the networks learned softened crops
    # and read a crop better softened than as the reader cuts it (models/README.md,
    # "Session 28"). ``sharp``: that share of the batches more left as cut. Drawn only
    # when asked, so a run without it draws the random numbers it always drew.
    if sharp > 0 and bool(_rand(generator, 1) < sharp):
        small = side
    if small < side:
        batch = F.interpolate(F.interpolate(batch, size=small, mode="area"), size=side,
                              mode="bilinear", align_corners=False)
    level = 0.02 * _rand(generator, 1)
    batch = batch + level * torch.randn(batch.shape, generator=generator,
                                        device=generator.device)
    return batch.clamp(0, 1)


def train(train_files: Sequence[Path], val_files: Sequence[Path], out: Path, epochs: int,
          seed: int, batch_size: int = 64, per_epoch: int = 50_000, init: Path | None = None,
          lr: float = 2e-3, shares: Sequence[float] | None = None,
          channels: Sequence[int] = CHANNELS, reshape: bool = False,
          widen: Path | None = None, fade: float = 0.0,
          grain: float = 0.0, sharp: float = 0.0, index_head: bool = False,
          index_only: bool = False, centre_head: bool = False,
          centre_only: bool = False, device: str = "cpu",
          state_only: bool = False, names_only: bool = False,
          unsure: float = 0.0, occlude: float = 0.0,
          narrow: Path | None = None,
          teacher: tuple[Path, Sequence[int]] | None = None,
          teacher_weight: float = 1.0, input_px: int = CROP,
          resume: bool = False, until: int | None = None,
          precision: str = "fp32") -> dict[str, object]:
    """Train, exporting the ONNX model and a state dict (``out`` with ``.pt``, to start a
    later run from with ``init``) after every epoch, so a stopped run loses little.

    After every epoch the whole run's state (network, optimiser, schedule, random
    generators) is written too (``resume_path(out)``). ``resume``: go on from that file's
    last finished epoch, exactly as the run would have gone unstopped, when it exists and
    was written by a run of these same settings (a run of other settings is refused); else
    start. ``until``: stop after that many of the ``epochs`` (the schedule stays the whole
    run's), so that a run too long for one sitting of the 2-core machine is trained in
    parts, each resumed where the last stopped.

    Each epoch samples ``per_epoch`` crops, ``shares`` of them from each training file (by
    default in proportion to the files' sizes): a small file of real-photo crops can weigh
    as much as a large rendered one. Accuracy is reported on every validation file.
    ``reshape``: also vary the glyphs' shapes (``_reshape``). ``widen``: a narrower
    network's state dict to start from (``widen_state``), ``narrow`` a wider one's
    (``narrow_state``). ``teacher``: a trained network (state dict, widths) whose
    52-way reading of each index crop the network also learns to give (knowledge
    distillation: the divergence from it, times ``teacher_weight``, joins the loss); a
    narrow network learns more from a wide one's soft names than from the labels alone.
    ``fade``: the share of crops
    washed pale (``_fade``). ``grain``: the share made grainy (``_grain``). ``sharp``:
    the share of batches more left as cut rather than softened by shrinking (``_augment``).
    ``occlude``: the share of crops partly covered by another card (``_occlude``).
    ``index_head``: also learn whether a crop shows an index (``build_network``): crops
    labelled ``NOT_INDEX`` (``vision.training.negatives``) teach its "no" and nothing of
    the names; a state dict without that head (``init``) starts it from scratch.
    ``index_only``: train the index head alone, on the trained network's features (frozen,
    batch norm's statistics too), so that the names read exactly as ``init``'s.
    ``centre_head``: add the centre head (``build_network``); a state dict without it
    (``init``) starts it at zero. ``centre_only``: train the centre head alone, on the
    frozen network, so that the index head and the features stay ``init``'s.
    ``names_only``: train the rank and suit layers alone, on the frozen network, so that
    the features and the index head stay ``init``'s. ``unsure``: the weight of a second
    loss on the crops of no index (with ``index_head``): the names' divergence from an
    even 52-way reading, so that a pip or a half-hidden index is not named surely; without
    it those crops teach nothing of the names (models/README.md, "Session 32").
    ``device``: where the network trains and the crops are drawn and varied ("cuda" on a
    lent GPU machine; "cpu" draws exactly the random numbers it always drew).
    ``state_only``: write the state dict alone each epoch and no ONNX model (export it
    later with ``average --states``), for a machine whose torch exports differently.
    ``input_px``: the side the network reads crops at, at most the crops' own (``CROP``
    for corner crops; a face file may be cut larger, ``face_crops --side``): each crop,
    drawn and varied at its own side, is averaged down to it (as the reader shrinks a crop
    for a model of that input, ``vision.netinput.sized_crops``), and the ONNX model takes
    that side. A crop read softened to 28 pixels holds no more than 28 pixels show, at
    half the cost of reading it at 40 (models/README.md, "Session 53"). The teacher reads
    the crops at ``CROP``, as it was trained.

    ``precision``: "fp32", or "bf16": the network's forward and backward passes in
    bfloat16 (autocast; the weights, the optimiser, the losses and validation stay fp32),
    its maps laid out channels last. On this 2-core machine's CPU (AVX512-BF16) a batch of
    256 trains 2.7 times as fast, an epoch (its crops varied in fp32) twice as fast
    (models/README.md, "Session 64"). It is not among the
    settings a resumed run must match: a run may change it between sittings, going on from
    the same state but not bit for bit as a run of one precision; each epoch's line in
    the history says which it trained in."""
    import contextlib

    import torch
    import torch.nn.functional as F

    if precision not in PRECISIONS:
        raise ValueError(f"--precision {precision}: choose one of {', '.join(PRECISIONS)}")
    if not 16 <= input_px <= MAX_INPUT_PX:
        raise ValueError(f"--input-px {input_px}: choose 16 to {MAX_INPUT_PX} pixels, at "
                         f"most the crops' side ({CROP} for corner crops)")
    if input_px != CROP and (index_head or centre_head):
        raise ValueError(f"the index and centre heads read a {CROP // 8}x{CROP // 8} map of "
                         f"a {CROP}-pixel crop: train them at --input-px {CROP}")
    if until is not None and not 1 <= until <= epochs:
        raise ValueError(f"--until {until}: choose 1 to --epochs ({epochs})")
    settings = _run_settings({name: value for name, value in locals().items()
                              if name in inspect.signature(train).parameters})
    saved = resume_path(out)
    state = None
    if resume and saved.exists():
        # Checked before the crops load, so a refused run costs nothing. On the CPU: the
        # random generators' states must be CPU tensors, and loading a state dict moves
        # each tensor to its parameter's device.
        state = torch.load(saved, map_location="cpu", weights_only=False)
        if state["settings"] != settings:
            changed = sorted(key for key in settings | state["settings"]
                             if settings.get(key) != state["settings"].get(key))
            raise ValueError(f"{saved} was written by a run of other settings ("
                             f"{', '.join(changed)}): train with the same ones to go on, or "
                             "remove the file to start again")
    torch.manual_seed(seed)
    torch.set_num_threads(2)
    generator = torch.Generator(device).manual_seed(seed)
    parts = [np.load(path) for path in train_files]
    sizes = [len(part["labels"]) for part in parts]
    x_train = torch.from_numpy(np.concatenate([p["images"] for p in parts])).permute(
        0, 3, 1, 2).contiguous().to(device)
    if input_px > x_train.shape[-1]:
        raise ValueError(f"--input-px {input_px}: the training crops are "
                         f"{x_train.shape[-1]} pixels; a crop is never enlarged")
    y_train = torch.from_numpy(np.concatenate([p["labels"] for p in parts])).to(device)
    offsets = np.cumsum([0, *sizes])
    weights = np.array(shares if shares else sizes, np.float64)
    if len(weights) != len(parts):
        raise ValueError(f"{len(parts)} training files but {len(weights)} shares")
    quota = np.round(weights / weights.sum() * min(per_epoch, len(y_train))).astype(int)
    vals = []
    for path in val_files:
        data = np.load(path)
        vals.append((path.stem, torch.from_numpy(data["images"]).permute(0, 3, 1, 2).to(
            device).float() / 255, torch.from_numpy(data["labels"]).to(device)))
    if not index_head and bool((y_train >= NOT_INDEX).any()):
        raise ValueError("crops labelled as no index are among the training files: they "
                         "need the index head (--index-head)")
    net = build_network(channels, index_head, centre_head)
    if init is not None:
        _load_trained(net, init, "this network")
    elif widen is not None:
        net.load_state_dict(widen_state(read_state(widen),
                                        net.state_dict()))
    elif narrow is not None:
        net.load_state_dict(narrow_state(read_state(narrow),
                                         net.state_dict()))
    net.to(device)
    if precision == "bf16":
        net.to(memory_format=torch.channels_last)
    teacher_net = None
    if teacher is not None:
        teacher_net = _teacher_network(*teacher)
        teacher_net.to(device).eval()
    if index_only and (not index_head or init is None):
        raise ValueError("training the index head alone needs --index-head and a "
                         "trained network to start from (--init)")
    if names_only and (index_only or centre_only or init is None):
        raise ValueError("training the names alone needs a trained network to start "
                         "from (--init), and not --index-only or --centre-only")
    if unsure and not index_head:
        raise ValueError("--unsure reads the crops of no index: it needs the index head "
                         "(--index-head) and such crops among --train")
    if unsure and (index_only or centre_only):
        raise ValueError("--unsure teaches the names, which --index-only and --centre-only "
                         "keep frozen: train the names too, or leave --unsure out")
    if centre_only and (index_only or not centre_head or init is None):
        raise ValueError("training the centre head alone needs --centre-head, a trained "
                         "network to start from (--init), and not --index-only")
    # The one part a run trains alone on the rest of the network, frozen (None: all of it).
    alone = (("index.",) if index_only else ("centre.",) if centre_only
             else ("rank.", "suit.") if names_only else None)
    if alone is not None:
        for name, parameter in net.named_parameters():
            parameter.requires_grad = name.startswith(alone)
    optimiser = torch.optim.AdamW([p for p in net.parameters() if p.requires_grad], lr=lr,
                                  weight_decay=1e-4)
    per_epoch = int(quota.sum())  # a fresh random sample of crops each epoch
    steps = epochs * ((per_epoch + batch_size - 1) // batch_size)
    # Many small steps suit a CPU: a short warm-up, then a cosine decay.
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=lr, total_steps=steps,
                                                   pct_start=0.1)
    history: dict[str, object] = {}
    started = time.time()
    device_kind = "cuda" if device.startswith("cuda") else "cpu"

    def autocast():  # the passes in bfloat16, or as they are
        return torch.autocast(device_kind, dtype=torch.bfloat16) if precision == "bf16" \
            else contextlib.nullcontext()

    first = 0
    if state is not None:
        net.load_state_dict(state["net"])
        optimiser.load_state_dict(state["optimiser"])
        schedule.load_state_dict(state["schedule"])
        generator.set_state(state["generator"])
        torch.set_rng_state(state["torch_rng"])
        if state.get("cuda_rng") is not None:  # dropout's numbers on a GPU
            torch.cuda.set_rng_state(state["cuda_rng"], torch.device(device))
        first, history = int(state["epoch"]), dict(state["history"])
        started -= float(state["minutes"]) * 60
        print(json.dumps({"resumed": str(saved), "epoch": first}), flush=True)
    for epoch in range(first, epochs if until is None else until):
        net.train()
        if alone is not None:
            net.features.eval()  # batch norm keeps the trained network's statistics
        # Sampling with replacement within a file lets a small file fill a large share.
        order = torch.cat([int(offsets[i]) + torch.randint(size, (int(q),), generator=generator,
                                                           device=device)
                           for i, (size, q) in enumerate(zip(sizes, quota, strict=True))])
        order = order[torch.randperm(len(order), generator=generator, device=device)]
        total_loss = 0.0
        for start in range(0, len(order), batch_size):
            index = order[start:start + batch_size]
            batch = _augment(x_train[index].float() / 255, generator, reshape, fade, grain,
                             sharp, occlude)
            labels = y_train[index]
            shown_to_teacher, batch = batch, _at_side(batch, input_px)
            if precision == "bf16":
                batch = batch.contiguous(memory_format=torch.channels_last)
            with autocast():
                outputs = net(batch)
            # The losses in fp32 (a no-op in fp32): bfloat16 keeps three digits.
            if index_head:
                log_probs, index_logits = outputs[0].float(), outputs[1].float()
                is_index = labels < NOT_INDEX
                loss = F.binary_cross_entropy_with_logits(index_logits[:, 0], is_index.float())
                if bool(is_index.any()):
                    loss = loss + F.nll_loss(log_probs[is_index], labels[is_index])
                if unsure and not bool(is_index.all()):
                    # KL(even || names): 0 when all 52 names are equally likely.
                    even = -log_probs[~is_index].mean(dim=1) - math.log(log_probs.shape[1])
                    loss = loss + unsure * even.mean()
            else:
                log_probs = outputs.float()  # joint log-probabilities: rank loss + suit loss
                loss = F.nll_loss(log_probs, labels)
            if teacher_net is not None:
                shown = labels < NOT_INDEX  # the teacher names index crops only
                if bool(shown.any()):
                    with torch.no_grad(), autocast():
                        taught = teacher_net(shown_to_teacher[shown])
                    if isinstance(taught, tuple):  # its names; its index head says nothing here
                        taught = taught[0]
                    taught = taught.float()
                    loss = loss + teacher_weight * F.kl_div(
                        log_probs[shown], taught, log_target=True, reduction="batchmean")
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total_loss += float(loss.detach()) * len(index)
        accuracy = {name: value for name, x_val, y_val in vals
                    for name, value in evaluate_accuracy(net, x_val, y_val, name,
                                                         input_px).items()}
        history = {"epoch": epoch + 1, "loss": total_loss / per_epoch,
                   "val_accuracy": accuracy, "minutes": (time.time() - started) / 60,
                   "precision": precision}
        print(json.dumps(history), flush=True)
        out.parent.mkdir(parents=True, exist_ok=True)
        torch.save({key: value.cpu() for key, value in net.state_dict().items()},
                   out.with_suffix(".pt"))
        if not state_only:
            export(net.cpu(), out, input_px)
            net.to(device)
        # Written last and whole (renamed into place), so a run stopped while writing
        # resumes from the epoch before.
        partial = saved.with_name(saved.name + ".part")
        torch.save({"settings": settings, "epoch": epoch + 1, "history": history,
                    "minutes": (time.time() - started) / 60, "net": net.state_dict(),
                    "optimiser": optimiser.state_dict(), "schedule": schedule.state_dict(),
                    "generator": generator.get_state(), "torch_rng": torch.get_rng_state(),
                    "cuda_rng": torch.cuda.get_rng_state(torch.device(device))
                    if device.startswith("cuda") else None},
                   partial)
        partial.replace(saved)
    return history


def resume_path(out: Path) -> Path:
    """Where ``train`` keeps the run's whole state after each epoch: beside ``out``."""
    return out.with_suffix(".resume.pt")


def _run_settings(arguments: dict[str, object]) -> dict[str, object]:
    """What decides a run's course (``train``'s ``arguments`` but where it writes,
    ``resume``, ``until`` and ``precision``), in plain values: a resumed run must match
    it."""
    def plain(value: object) -> object:
        if isinstance(value, Path):
            return str(value)
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        return value
    return {key: plain(value) for key, value in arguments.items()
            if key not in ("out", "resume", "until", "precision")}


def _at_side(batch, side: int):  # torch tensors (N, 3, CROP, CROP) -> (N, 3, side, side)
    """A batch of crops averaged down to ``side`` pixels, as the network of that input
    reads them (``input_px``); at ``CROP``, the batch itself."""
    import torch.nn.functional as F

    return batch if batch.shape[-1] == side else F.interpolate(batch, size=(side, side),
                                                               mode="area")


def _teacher_network(path: Path, channels: Sequence[int]):  # -> a torch module
    """The trained network at ``path``, ``channels`` wide, built with the heads its state
    holds (index, centre): photo mode's classifier, which has an index head, can teach
    live mode's, which has none. ``_load_trained`` checks the state's other layers."""
    state = read_state(path)
    net = build_network(channels, index_head=any(key.startswith("index.") for key in state),
                        centre_head=any(key.startswith("centre.") for key in state))
    _load_trained(net, path, f"a network {tuple(channels)} wide", state)
    return net


def read_state(path: Path) -> dict:
    """The state dict saved at ``path`` (``torch.save`` of a network's tensors). ValueError
    when the file is not one: unreadable, not a torch file, or a whole checkpoint (an
    ultralytics ``.pt``) rather than a classifier's tensors."""
    import torch

    try:
        state = torch.load(path, map_location="cpu")
    except Exception as error:  # torch raises pickle's, zip's and its own errors alike
        raise ValueError(f"{path} is not a saved classifier state (.pt): {error}") from error
    if not isinstance(state, dict) or not all(isinstance(value, torch.Tensor)
                                              for value in state.values()):
        raise ValueError(f"{path} is not a classifier's state dict (a dict of tensors, as "
                         "train_classifier writes beside its .onnx)")
    return state


def _load_trained(net, path: Path, what: str,  # net: a torch module
                  state: dict | None = None) -> None:
    """``net`` takes the state dict at ``path`` (``state``, when already loaded from it); a
    head the state lacks (index, centre) starts as built. ValueError names ``what`` when
    the state lacks other layers of ``net`` or holds layers it has not."""
    if state is None:
        state = read_state(path)
    # load_state_dict raises torch's RuntimeError on a layer of another shape, even when not
    # strict: a state of other widths is named here instead, with the widths that differ.
    own = net.state_dict()
    differ = [f"{key} {tuple(state[key].shape)} against {tuple(value.shape)}"
              for key, value in own.items()
              if key in state and tuple(state[key].shape) != tuple(value.shape)]
    if differ:
        raise ValueError(f"{path} does not fit {what}: its layers are of other widths "
                         f"({'; '.join(differ[:3])}{' ...' if len(differ) > 3 else ''}); "
                         "give --channels as the state was trained")
    missing, unexpected = net.load_state_dict(state, strict=False)
    if unexpected or any(not key.startswith(("index.", "centre.")) for key in missing):
        raise ValueError(f"{path} does not fit {what}: missing {missing}, "
                         f"unexpected {unexpected}")


def evaluate_accuracy(net, x_val, y_val, name: str = "val",
                      input_px: int = CROP) -> dict[str, float]:
    """``name``: the share of the index crops named right; with an index head, also
    ``name:index``, the share of crops it judges rightly (over 0.5) to be an index or
    (labelled ``NOT_INDEX``) not. ``input_px``: the side the network reads the crops at."""
    import torch

    net.eval()
    correct = judged = 0
    is_index = y_val < NOT_INDEX
    with torch.no_grad():
        for start in range(0, len(x_val), 1024):
            out = net(_at_side(x_val[start:start + 1024], input_px))
            labels = y_val[start:start + 1024]
            if isinstance(out, tuple):
                out, index_logits = out
                judged += int(((index_logits[:, 0] > 0) == (labels < NOT_INDEX)).sum())
            correct += int((out.argmax(1) == labels).sum())
    scores = {}
    if bool(is_index.any()):
        scores[name] = round(correct / int(is_index.sum()), 4)
    if getattr(net, "index", None) is not None:
        scores[f"{name}:index"] = round(judged / max(1, len(x_val)), 4)
    return scores


# A name this sure is counted even when its card shows one corner (``min_lone_conf`` in
# ``models/cards.json``): a crop named wrong this surely becomes a wrong card.
SURE = 0.8
# The covers ``crop_accuracy`` draws: the same for every network, so their figures compare.
COVER_SEED = 5


def crop_accuracy(classifier: CornerClassifier, images: np.ndarray, labels: np.ndarray,
                  covered: bool = False, shown: np.ndarray | None = None
                  ) -> dict[str, float]:
    """A classifier read on crops: ``once`` and ``mirrored``, the shares named right read
    once and with the mirrored second reading; ``sure_wrong``, the share of the index crops
    named wrong at ``SURE`` or more. ``covered``: also ``covered`` and
    ``covered_sure_wrong``, the same two for the index crops each partly covered by another
    card (``_occlude``, seeded ``COVER_SEED``): a partly hidden index should be named right
    or unsurely, and the crop files hold few of them (session 33). ``shown``: each crop's
    shares of its rank and suit that show (``make_crops``); then also ``once`` and
    ``sure_wrong`` of the crops a person could read (``readable_*``) and of each kind that
    cannot be (``rank_hidden_*``: under half its rank shows; ``suit_hidden_*``: its rank
    shows, under half its suit), with their counts: a network should name only the
    readable ones surely."""

    def read(crops: np.ndarray, mirrored: bool) -> tuple[np.ndarray, np.ndarray]:
        # One batch at least: the classifier reads an empty one as empty arrays.
        parts = [classifier.classify(crops[i:i + 512], mirrored)
                 for i in range(0, max(1, len(crops)), 512)]
        return np.concatenate([n for n, _ in parts]), np.concatenate([c for _, c in parts])

    def named_wrong_surely(named: np.ndarray, sureness: np.ndarray, truth: np.ndarray) -> float:
        wrong = (named != truth) & (sureness >= SURE)
        return round(float(wrong.mean()), 4) if len(truth) else 0.0

    index = labels < NOT_INDEX
    named, sureness = read(images, False)
    scores = {"once": round(float((named == labels).mean()), 4),
              "sure_wrong": named_wrong_surely(named[index], sureness[index], labels[index]),
              "mirrored": round(float((read(images, True)[0] == labels).mean()), 4)}
    if shown is not None:
        from vision.training.synth.scene import READABLE_RANK

        readable = keep_crops(shown, "readable")
        rank_shown = shown[:, 0] >= READABLE_RANK
        kinds = {"readable": readable, "rank_hidden": ~rank_shown,
                 "suit_hidden": rank_shown & ~readable}
        for kind, chosen in kinds.items():
            chosen = chosen & index
            scores[f"{kind}_count"] = int(chosen.sum())
            scores[f"{kind}_once"] = round(float((named[chosen] == labels[chosen]).mean()),
                                           4) if chosen.any() else 0.0
            scores[f"{kind}_sure_wrong"] = named_wrong_surely(
                named[chosen], sureness[chosen], labels[chosen])
    if covered:
        import torch

        batch = torch.from_numpy(images[index]).permute(0, 3, 1, 2).float() / 255
        hidden = _occlude(batch, torch.Generator().manual_seed(COVER_SEED), 1.0)
        crops = (hidden.permute(0, 2, 3, 1) * 255).round().to(torch.uint8).numpy()
        named, sureness = read(crops, False)
        right = named == labels[index]
        scores["covered"] = round(float(right.mean()), 4) if len(right) else 0.0
        scores["covered_sure_wrong"] = named_wrong_surely(named, sureness, labels[index])
    return scores


def export(net, out: Path, input_px: int = CROP) -> None:  # torch module
    """``net`` as an ONNX model of crops ``input_px`` on a side (any number of them): the
    reader shrinks its crops to the side the model takes (``vision.netinput.sized_crops``)."""
    import torch

    net.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    outputs = ["logits"] if getattr(net, "index", None) is None else ["logits", "index"]
    torch.onnx.export(net, torch.zeros(1, 3, input_px, input_px), str(out),
                      input_names=["crops"],
                      output_names=outputs,
                      dynamic_axes={"crops": {0: "n"}, **{name: {0: "n"} for name in outputs}},
                      opset_version=17, dynamo=False)


def parse_state(text: str, channels: Sequence[int]) -> tuple[Path, tuple[int, ...]]:
    """``PATH`` or ``PATH:C1,C2,C3[,C4]`` -> (a state dict, its network's widths; ``channels``
    without them)."""
    path, colon, widths = text.rpartition(":")
    if not colon:
        return Path(text), tuple(channels)
    parts = widths.split(",")
    if len(parts) not in STAGES or not all(part.isdigit() and int(part) > 0 for part in parts):
        raise ValueError(f"{text}: the widths after the colon must be three or four whole "
                         "numbers above 0, as PATH:96,192,384")
    return Path(path), tuple(int(part) for part in parts)


def export_average(states: Sequence[Path | tuple[Path, Sequence[int]]], out: Path,
                   channels: Sequence[int] = CHANNELS) -> None:
    """One ONNX model that runs every trained network of ``states`` (state dicts, each
    ``channels`` wide, or (state dict, its own widths)) on a crop and gives their mean
    log-probabilities. The reader takes it as any classifier (it renormalises the logits),
    so networks trained apart read as one file with no change to ``vision``. Where every
    state carries an index head, the model gives their mean index logit too, as photo
    mode's classifier must; a mix of states with and without one is refused
    (``ValueError``), since the reader would lose the index head's judgement unawares."""
    import torch
    import torch.nn as nn

    loaded = []
    for state in states:
        path, widths = state if isinstance(state, tuple) else (state, channels)
        loaded.append((path, widths, _float_state(path)))
    with_index = [any(key.startswith("index.") for key in weights) for _, _, weights in loaded]
    if any(with_index) and not all(with_index):
        without = [str(path) for (path, _, _), has in zip(loaded, with_index, strict=True)
                   if not has]
        raise ValueError("some states have an index head and some do not (without one: "
                         f"{', '.join(without)}); average networks of one kind")
    nets = []
    for path, widths, weights in loaded:
        net = build_network(widths, index_head=all(with_index))
        _load_trained(net, path, f"a network {tuple(widths)} wide", weights)
        nets.append(net)

    class Average(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.nets = nn.ModuleList(nets)
            self.index = True if all(with_index) else None  # ``export`` names the outputs by it

        def forward(self, x: torch.Tensor):
            outputs = [net(x) for net in self.nets]
            if self.index is None:
                return torch.stack(outputs).mean(dim=0)
            return (torch.stack([names for names, _ in outputs]).mean(dim=0),
                    torch.stack([index for _, index in outputs]).mean(dim=0))

    export(Average(), out)


def _float_state(path: Path) -> dict:
    """The state dict at ``path`` in single precision: one may come back from a GPU machine
    in half precision."""
    return {key: value.float() if value.is_floating_point() else value
            for key, value in read_state(path).items()}


def trained_network(state: Path, channels: Sequence[int] = CHANNELS):  # -> torch module
    """The network whose state dict (``channels`` wide) is at ``state``, in single
    precision, with the heads the state has, in evaluation mode. ValueError as
    ``_load_trained`` raises it."""
    weights = _float_state(state)
    net = build_network(channels, index_head=any(key.startswith("index.") for key in weights),
                        centre_head=any(key.startswith("centre.") for key in weights))
    _load_trained(net, state, f"a network {tuple(channels)} wide", weights)
    return net.eval()


def export_state(state: Path, out: Path, channels: Sequence[int] = CHANNELS) -> bool:
    """One trained network's state dict (``channels`` wide; a run trained with
    ``--state-only`` writes only that) as the ONNX model a run without it writes, with its
    index head where the state has one (what this returns)."""
    net = trained_network(state, channels)
    export(net, out)
    return net.index is not None


def keep_members(source: Path, members: Sequence[int], out: Path) -> int:
    """Write the averaged model ``source`` (``export_average``'s, plain or quantized) as the
    mean of only its networks at ``members`` (their places among ``average --states``,
    from 0), the others cut out; returns how many networks ``source`` averaged. The kept
    networks' weights are copied as they are, so a quantized model keeps its
    quantization: one network of session 24's four reads a crop in about a quarter of the
    time (models/README.md, "Session 41"). ``ValueError`` when ``source`` is not such an
    average or a place is not one of its networks."""
    import onnx
    from onnx.utils import Extractor

    try:
        model = onnx.load(str(source))
    except Exception as error:  # protobuf's own error types
        raise ValueError(f"{source} is not an ONNX model: {error}") from None
    graph = model.graph
    producers = {name: node for node in graph.node for name in node.output}
    averaged: set[int] = set()
    stacks = []
    for output in graph.output:
        # export_average's outputs: each a ReduceMean over the networks' stacked outputs.
        mean = producers.get(output.name)
        stack = producers.get(mean.input[0]) if mean is not None and \
            mean.op_type == "ReduceMean" else None
        if stack is None or stack.op_type != "Concat":
            raise ValueError(f"{source}: its output {output.name} is not a mean over several "
                             "networks; keep members of a model train_classifier average wrote")
        averaged.add(len(stack.input))
        stacks.append(stack)
    if len(averaged) != 1:
        raise ValueError(f"{source}: its outputs average different numbers of networks")
    count = averaged.pop()
    if not members or len(set(members)) != len(members) or \
            not all(0 <= member < count for member in members):
        raise ValueError(f"{source} averages {count} networks: keep one or more different "
                         f"places from 0 to {count - 1}, not {' '.join(map(str, members))}")
    for stack in stacks:
        kept = [stack.input[member] for member in sorted(members)]
        del stack.input[:]
        stack.input.extend(kept)
    # The stacks' recorded shapes still count every network: inferred again below.
    stale = {stack.output[0] for stack in stacks}
    shapes = [info for info in graph.value_info if info.name not in stale]
    del graph.value_info[:]
    graph.value_info.extend(shapes)
    # The networks no output reaches any more are dropped, weights and all.
    trimmed = Extractor(model).extract_model([node.name for node in graph.input],
                                             [node.name for node in graph.output])
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(trimmed, str(out))
    return count


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m vision.training.train_classifier", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    crops = sub.add_parser("crops", help="cut corner crops from rendered scenes")
    crops.add_argument("--out", type=Path, required=True)
    crops.add_argument("--scenes", type=int, default=2500)
    crops.add_argument("--seed", type=int, default=0)
    crops.add_argument("--role", choices=["train", "val"], default="train")
    crops.add_argument("--size", type=int, default=960)
    crops.add_argument("--workers", type=int, default=1,
                       help="processes drawing the scenes (1: as one process draws them; "
                            "more: other scenes, the same on every call)")
    crops.add_argument("--decks", nargs="+", default=None,
                       help="only these decks of the role (default: all of them)")
    crops.add_argument("--layouts", nargs="+", default=None,
                       help="only these scene layouts, in equal shares (default: the "
                       "generator's mix of 13-card layouts)")
    crops.add_argument("--margins", type=float, nargs=2, default=list(MARGIN_JITTER),
                       metavar=("LOW", "HIGH"),
                       help="a crop's margin is MARGIN times a draw from LOW to HIGH "
                       "(default %(default)s)")
    crops.add_argument("--keep", choices=KEEPS, default="all",
                       help="all crops; only those of corners a person could read (half "
                       "their rank and half their suit show); or only the readable ones "
                       "partly covered (default all)")
    fit = sub.add_parser("train", help="train the classifier and export it to ONNX")
    fit.add_argument("--train", type=Path, nargs="+", required=True,
                     help="crop files (.npz) to train on")
    fit.add_argument("--share", type=float, nargs="+", default=None,
                     help="each training file's share of an epoch (default: by size)")
    fit.add_argument("--val", type=Path, nargs="+", required=True,
                     help="crop files to report accuracy on after each epoch")
    fit.add_argument("--out", type=Path, default=DEFAULT_WEIGHTS)
    fit.add_argument("--epochs", type=int, default=8)
    fit.add_argument("--per-epoch", type=int, default=50_000, help="crops sampled per epoch")
    fit.add_argument("--batch", type=int, default=64)
    fit.add_argument("--lr", type=float, default=2e-3)
    fit.add_argument("--init", type=Path, default=None, help="state dict to start from")
    fit.add_argument("--widen", type=Path, default=None,
                     help="state dict of a narrower network to start from: its channels "
                     "are kept and the new ones added (not with --init)")
    fit.add_argument("--teacher", default=None, metavar="STATE[:C1,C2,C3]",
                     help="a trained network's state dict (and its widths, default "
                     "--channels) whose soft names the network also learns")
    fit.add_argument("--teacher-weight", type=float, default=1.0,
                     help="the teacher's divergence's weight in the loss (default 1)")
    fit.add_argument("--input-px", type=int, default=CROP,
                     help=f"the side the network reads crops at, averaged down from the "
                     f"crops' own (default {CROP}, the corner crops' side; a face file may "
                     "be cut larger; the ONNX model takes that side)")
    fit.add_argument("--narrow", type=Path, default=None,
                     help="state dict of a wider network to start from: each layer keeps "
                     "its channels of largest batch-norm scale (not with --init)")
    fit.add_argument("--seed", type=int, default=0)
    fit.add_argument("--channels", type=int, nargs="+", default=list(CHANNELS),
                     help="widths of the network's three stages, or four: a fourth sees a "
                     "64-pixel face whole (default %(default)s)")
    fit.add_argument("--reshape", action="store_true",
                     help="also stretch, slant, shift and embolden the glyphs")
    fit.add_argument("--fade", type=float, default=0.0, metavar="SHARE",
                     help="wash this share of the crops pale, toward white (default 0)")
    fit.add_argument("--index-head", action="store_true",
                     help="also learn whether a crop shows an index at all, from crops "
                     "labelled as none (vision.training.negatives) among --train")
    fit.add_argument("--centre-head", action="store_true",
                     help="also name the crop from the unpooled feature map, where the "
                     "centred index stands apart from its neighbours (build_network)")
    fit.add_argument("--centre-only", action="store_true",
                     help="train the centre head alone on --init's frozen network")
    fit.add_argument("--index-only", action="store_true",
                     help="train the index head alone on --init's frozen network, whose "
                     "names stay exactly as they were")
    fit.add_argument("--names-only", action="store_true",
                     help="train the rank and suit layers alone on --init's frozen "
                     "network, whose index head stays exactly as it was")
    fit.add_argument("--unsure", type=float, default=0.0, metavar="WEIGHT",
                     help="with --index-head: also teach the names to read a crop of no "
                     "index as no card in particular, at this weight (default 0)")
    fit.add_argument("--grain", type=float, default=0.0, metavar="SHARE",
                     help="give this share of the crops specks, sensor noise and motion "
                     "smear (default 0)")
    fit.add_argument("--sharp", type=float, default=0.0, metavar="SHARE",
                     help="leave this share of the batches more as cut, not softened by "
                     "shrinking (default 0: one batch in 23 is left so)")
    fit.add_argument("--occlude", type=float, default=0.0, metavar="SHARE",
                     help="cover this share of the crops partly with another card, as fans "
                     "and rows cover indices; the label stays (default 0)")
    fit.add_argument("--device", default="cpu",
                     help="where to train: cpu (default) or cuda on a GPU machine")
    fit.add_argument("--state-only", action="store_true",
                     help="write the state dict alone each epoch, no ONNX model (export "
                     "it later with average --states)")
    fit.add_argument("--resume", action="store_true",
                     help="go on from the last epoch a stopped run of the same settings "
                     "finished (OUT with .resume.pt), else start")
    fit.add_argument("--precision", choices=PRECISIONS, default="fp32",
                     help="bf16: train in bfloat16 (autocast, channels last), an epoch "
                     "twice as fast on a CPU with AVX512-BF16; may change between sittings "
                     "of a resumed run (default fp32)")
    fit.add_argument("--until", type=int, default=None, metavar="EPOCH",
                     help="stop after this many of --epochs, the schedule kept the whole "
                     "run's (go on later with --resume)")
    average = sub.add_parser("average", help="export networks trained apart as one ONNX "
                             "model that averages their log-probabilities")
    average.add_argument("--states", nargs="+", required=True, metavar="PATH[:C1,C2,C3[,C4]]",
                         help="state dicts (.pt) of the networks, each --channels wide or "
                         "as wide as the widths after its colon")
    average.add_argument("--channels", type=int, nargs="+", default=list(CHANNELS))
    average.add_argument("--out", type=Path, required=True)
    one = sub.add_parser("export", help="export one trained network's state dict (a run "
                         "with --state-only writes only that) as its ONNX model")
    one.add_argument("--state", required=True, metavar="PATH[:C1,C2,C3[,C4]]",
                     help="the state dict (.pt), --channels wide or as wide as the widths "
                     "after its colon")
    one.add_argument("--channels", type=int, nargs="+", default=list(CHANNELS))
    one.add_argument("--out", type=Path, required=True)
    members = sub.add_parser("members", help="keep some networks of an averaged model "
                             "(average's, plain or quantized) and cut the others out")
    members.add_argument("--model", type=Path, required=True)
    members.add_argument("--keep", type=int, nargs="+", required=True, metavar="PLACE",
                         help="the networks kept, by their places among average --states, "
                         "from 0")
    members.add_argument("--out", type=Path, required=True)
    check = sub.add_parser("accuracy", help="a model's accuracy on crop files, read once "
                           "and with the mirrored second reading")
    check.add_argument("--model", type=Path, default=DEFAULT_WEIGHTS)
    check.add_argument("--crops", type=Path, nargs="+", required=True)
    check.add_argument("--covered", action="store_true",
                       help="also read every index crop partly covered by another card "
                       "(the same covers each time) and say how many are named wrong surely")
    args = parser.parse_args(argv)
    widths = getattr(args, "channels", CHANNELS)
    if len(widths) not in STAGES:
        parser.error(f"--channels takes three or four widths (one a stage), not {len(widths)}")
    if args.command == "accuracy":
        classifier = CornerClassifier(args.model)
        for path in args.crops:
            data = np.load(path)
            shown = data["shown"].astype(np.float32) if "shown" in data else None
            print(json.dumps({"crops": str(path), "count": len(data["labels"]),
                              **crop_accuracy(classifier, data["images"], data["labels"],
                                              args.covered, shown)}))
        return 0
    if args.command == "members":
        if not args.model.is_file():
            print(f"error: {args.model} not found", file=sys.stderr)
            return 2
        try:
            count = keep_members(args.model, args.keep, args.out)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        print(f"{len(args.keep)} of {count} networks kept -> {args.out}")
        return 0
    if args.command == "export":
        try:
            path, widths = parse_state(args.state, args.channels)
            if not path.is_file():
                raise ValueError(f"{path} not found: give a state dict a run wrote "
                                 "(--state-only, or its OUT.pt)")
            index_head = export_state(path, args.out, widths)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        print(f"{path} ({'with' if index_head else 'without'} an index head) -> {args.out}")
        return 0
    if args.command == "average":
        try:
            states = [parse_state(text, args.channels) for text in args.states]
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        missing = [str(path) for path, _ in states if not path.is_file()]
        if missing or len(states) < 2:
            print("error: --states needs two or more state dicts that exist"
                  + (f" (not found: {', '.join(missing)})" if missing else ""), file=sys.stderr)
            return 2
        try:
            export_average(states, args.out, args.channels)
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        print(f"{len(args.states)} networks averaged -> {args.out}")
        return 0
    if args.command == "crops":
        if args.workers < 1:
            print(f"error: --workers {args.workers}: give 1 or more processes", file=sys.stderr)
            return 2
        try:
            images, labels, shown = make_crops_in_parallel(
                args.scenes, args.seed, args.role, args.size, args.workers,
                deck_names=args.decks, layouts=args.layouts,
                margin_jitter=tuple(args.margins))
        except ValueError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        kept = keep_crops(shown, args.keep)
        if not kept.any():
            print(f"error: none of the {len(labels)} crops cut is {args.keep}: draw more "
                  "--scenes", file=sys.stderr)
            return 2
        args.out.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(args.out, images=images[kept], labels=labels[kept],
                            shown=shown[kept])
        print(f"{int(kept.sum())} crops -> {args.out}"
              + ("" if args.keep == "all" else f" ({args.keep}, of {len(labels)} cut)"))
        return 0
    for option, share, of in (("--fade", args.fade, "crops"), ("--grain", args.grain, "crops"),
                              ("--sharp", args.sharp, "batches"),
                              ("--occlude", args.occlude, "crops")):
        if not 0 <= share <= 1:
            print(f"error: {option} is a share of the {of}, 0 to 1, not {share}",
                  file=sys.stderr)
            return 2
    starts = [option for option, given in (("--init", args.init), ("--widen", args.widen),
                                           ("--narrow", args.narrow)) if given is not None]
    if len(starts) > 1:
        print(f"error: {' and '.join(starts)} {'both' if len(starts) == 2 else 'all'} say "
              "what to start from; give one",
              file=sys.stderr)
        return 2
    try:
        history = train(args.train, args.val, args.out, args.epochs, args.seed,
                        batch_size=args.batch, per_epoch=args.per_epoch, init=args.init,
                        lr=args.lr, shares=args.share, channels=args.channels,
                        reshape=args.reshape, widen=args.widen, fade=args.fade,
                        grain=args.grain, sharp=args.sharp, index_head=args.index_head,
                        index_only=args.index_only, centre_head=args.centre_head,
                        centre_only=args.centre_only, device=args.device,
                        state_only=args.state_only, names_only=args.names_only,
                        unsure=args.unsure, occlude=args.occlude, narrow=args.narrow,
                        teacher=None if args.teacher is None
                        else parse_state(args.teacher, args.channels),
                        teacher_weight=args.teacher_weight, input_px=args.input_px,
                        resume=args.resume, until=args.until, precision=args.precision)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    written = args.out.with_suffix(".pt") if args.state_only else args.out
    print(f"wrote {written}: {history}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
