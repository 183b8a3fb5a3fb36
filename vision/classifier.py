"""The second stage: a small CNN that names the card from a crop of one corner index.

Why a second stage: the detector looks at the photo shrunk to its input size, where a
corner index is only a few dozen pixels; finding it there is easy, naming it among 52
classes is not. The classifier reads the same corner from the photo at full resolution,
cut by ``vision.netinput.crop_square``. At run time only onnxruntime is needed; the network
is trained by ``vision.training.train_classifier``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .netinput import CROP, classifier_input, light_on_dark, sized_crops, text_input
from .session import cpu_session

MODELS = Path(__file__).resolve().parent.parent / "models"
DEFAULT_WEIGHTS = MODELS / "corner-classifier.onnx"

# How many ways a crop may be read, each a turn of it that names the same card: as it is
# (1); mirrored too (2); both upside down too (4): a card's two corner indices are each
# other turned half round, so an index upside down is still its card (a 6 upside down
# keeps its suit above the rank, which a 9 does not); and the quarter turns of those four
# (8), as fanned cards lie. The readings' log-probabilities are averaged.
ORIENTATIONS = (1, 2, 4, 8)
# An early exit (``views_probabilities``' ``early_sure``) also needs the index head decided:
# its probability at least this far from one half.
EARLY_INDEX = 0.4
# A crop printed light on dark is read in its negative, and as it is too only where the
# negative names it under this; the surer of the two readings is kept. Every tune and
# held-out photo read the same as when both were always read, and a dark tune hand took
# 1020.4 against 1583.7 ms (64 % of its light crops not read again; models/README.md,
# "Session 89").
NEGATIVE_SURE = 0.9
# The metadata key under which a classifier a learned deck adapts to itself
# (``vision.training.adaptable``) lists its batch norms: each one's input (an output of the
# model too), the names of its mean and variance initializers, and their trained values. Its
# statistics network (``batch_norm_statistics``) lists them alike.
ADAPTABLE_KEY = "cpoker_adaptable_batch_norms"
# The quarter turns (``np.rot90``'s k) in which a learned deck's corners are read to measure
# its batch-norm statistics (``batch_norm_statistics``).
QUARTER_TURNS = (0, 1, 2, 3)


class ClassifierError(RuntimeError):
    """The classifier's weights are missing or unusable."""


class CornerClassifier:
    """Names corner crops: ``probabilities`` gives each crop's 52-way distribution (in
    ``engine.cards.CARD_NAMES`` order), ``classify`` its best name and confidence."""

    def __init__(self, weights: Path = DEFAULT_WEIGHTS, threads: int = 2,
                 soften_px: int = 0,
                 initializers: Mapping[str, np.ndarray] | None = None) -> None:
        """``soften_px``: each crop is read softened to that many pixels
        (``vision.netinput.softened``; 0: as cut). ``initializers``: values replacing the
        model's own of those names (a learned deck's ``batch_norm_statistics``, fed as the
        inputs an adaptable model takes them at)."""
        self.session, self.input = _opened(weights, threads, "classifier")
        self.feeds = {name: np.ascontiguousarray(values, np.float32)
                      for name, values in (initializers or {}).items()}
        unknown = set(self.feeds) - {item.name for item in
                                     self.session.get_overridable_initializers()}
        if unknown:
            raise ClassifierError(f"{weights} takes no input {', '.join(sorted(unknown))}")
        self.soften_px = soften_px
        self.side = input_side(self.session)
        # A second output, when the model has one, is its index head's logit: whether the
        # crop shows a corner index at all (vision.training.train_classifier.build_network).
        # An adaptable model's further outputs (its batch norms' inputs) are not read.
        outputs = [output.name for output in self.session.get_outputs()]
        self.judges_index = len(outputs) > 1
        self.outputs = outputs[:2]

    def probabilities(self, crops: np.ndarray, mirrored: bool = True,
                      orientations: int | None = None) -> np.ndarray:
        """``crops``: (N, CROP, CROP, 3) uint8 RGB -> (N, 52) probabilities.

        Each crop is also read mirrored (a mirrored index names the same card) and the two
        readings' log-probabilities are averaged: measured on the held-out crops, this
        names 1-2 % more of them right than one reading, for twice a small cost.
        ``orientations`` (see ``ORIENTATIONS``) reads it more ways, instead of ``mirrored``."""
        return self.views_probabilities([crops], mirrored, orientations=orientations)

    def views_probabilities(self, views: Sequence[np.ndarray], mirrored: bool = True,
                            weights: Sequence[float] | None = None,
                            orientations: int | None = None,
                            early_sure: float = 0.0, early_views: bool = False,
                            early_one: float = 0.0) -> np.ndarray:
        """The same N corners cut several ways (``views``: each (N, CROP, CROP, 3)) ->
        (N, 52) probabilities from the readings' log-probabilities averaged with
        ``weights`` (one a view; default equal), in one run of the network. Photo mode cuts
        each corner twice, close and with more of the card around it
        (``vision.detector.ModelInfo.photo_margins``). Each view is read in
        ``orientations`` turns (``ORIENTATIONS``; default 2 when ``mirrored``, else 1).

        A corner whose index looks lighter than its card (``vision.netinput.light_on_dark``,
        judged on the first view) is read inverted as well, and keeps the surer of the two
        readings: on the black deck of ``real-decks-dev`` (gold and silver indices) this
        names 73 % of its held-out corners right instead of 3 %, and on light decks it
        changes almost nothing (rendered held-out crops 0.947 -> 0.946). The negative is
        read first, and the crop as it is only where the negative names it under
        ``NEGATIVE_SURE``.

        ``early_sure`` (0: off): read in more than two turns, a crop is first read as it
        is and mirrored (every view), and read in its other turns only when that names it
        under ``early_sure``, or leaves its index head undecided (``EARLY_INDEX``): a sure
        name is not changed by more turns, and most crops of a photo are named surely, so
        the network reads a half (four turns) to a quarter (eight) of the crops. The
        crops read in every turn are named exactly as without it. ``early_views`` (with
        ``early_sure``): the first view is read alone first, and a crop it names so surely
        is not read in the other views either. ``early_one`` (with ``early_sure``, 0: off):
        a crop that its first view names this surely as it is is not read mirrored either
        (``_as_is_then_mirrored``), and keeps that one reading when ``early_one`` is at
        least ``early_sure``."""
        return self.views_reading(views, mirrored, weights, orientations, early_sure,
                                  early_views, early_one)[0]

    def views_reading(self, views: Sequence[np.ndarray], mirrored: bool = True,
                      weights: Sequence[float] | None = None,
                      orientations: int | None = None, early_sure: float = 0.0,
                      early_views: bool = False, early_one: float = 0.0
                      ) -> tuple[np.ndarray, np.ndarray | None]:
        """``views_probabilities``, and (N,) the probability that each crop shows a corner
        index at all when the model judges that (``judges_index``; else None): its index
        logits averaged over the same readings, of the reading kept."""
        turns = orientations if orientations is not None else 2 if mirrored else 1
        if turns not in ORIENTATIONS:
            raise ClassifierError(f"orientations {turns}: choose one of "
                                  f"{', '.join(map(str, ORIENTATIONS))}")
        n = len(views[0]) if views else 0
        if n == 0:
            return np.zeros((0, 52), np.float32), \
                np.zeros(0, np.float32) if self.judges_index else None
        light = np.flatnonzero(light_on_dark(views[0]))
        # The light-on-dark crops ride inverted in the same run of the network as the rest.
        flipped = views
        if len(light):
            flipped = [view.copy() for view in views]
            for view in flipped:
                view[light] = 255 - view[light]
        probs, index = self._joint_probabilities(flipped, turns, weights, early_sure,
                                                 early_views, early_one)
        unsure = light[probs[light].max(axis=1) < NEGATIVE_SURE]
        if len(unsure) == 0:
            return probs, index
        as_is, as_is_index = self._joint_probabilities(
            [view[unsure] for view in views], turns, weights, early_sure, early_views,
            early_one)
        kept = as_is.max(axis=1) >= probs[unsure].max(axis=1)  # the surer reading
        probs[unsure[kept]] = as_is[kept]
        if index is not None and as_is_index is not None:
            index[unsure[kept]] = as_is_index[kept]
        return probs, index

    def _joint_probabilities(self, views: Sequence[np.ndarray], turns: int,
                             weights: Sequence[float] | None, early_sure: float = 0.0,
                             early_views: bool = False, early_one: float = 0.0
                             ) -> tuple[np.ndarray, np.ndarray | None]:
        n, count = len(views[0]), len(views)
        batch = np.concatenate([classifier_input(sized_crops(view, self.side, self.soften_px))
                                for view in views])  # (count * n, 3, H, W), view-major
        by_view = batch.reshape(count, n, *batch.shape[1:])
        share = np.ones(count) if weights is None else np.asarray(weights, np.float64)
        first = 2 if early_sure > 0 and turns > 2 else turns
        one_first = early_one > 0 and early_sure > 0 and first == 2

        def first_turns(batch: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
            """Readings of ``batch`` (one view or more, view-major) in the ``first`` turns
            (turn-major, then view, as ``_turned`` stacks them) x crops x names; one view's
            sure crops read as they are only, with ``early_one``."""
            if one_first and len(batch) == n:
                return self._as_is_then_mirrored(batch, early_one)
            return self._readings(_turned(batch, first), n)

        if not (early_sure > 0 and early_views and count > 1):
            log_probs, logits = first_turns(_flat(by_view))
            return self._other_turns(by_view, log_probs, logits, share, first, turns,
                                     early_sure)
        # The first view alone first: a crop it names surely is not read the other ways.
        log_probs, logits = first_turns(by_view[0])
        probs, index = _averaged(log_probs, logits, share[:1])
        rest = np.flatnonzero(~_decided(probs, index, early_sure))
        if len(rest) == 0:
            return probs, index
        more, more_logits = self._readings(_turned(_flat(by_view[1:, rest]), first), len(rest))
        probs[rest], rest_index = self._other_turns(
            by_view[:, rest], _with_first_view(log_probs[:, rest], more, count),
            None if logits is None or more_logits is None
            else _with_first_view(logits[:, rest], more_logits, count),
            share, first, turns, early_sure)
        if index is not None and rest_index is not None:
            index[rest] = rest_index
        return probs, index

    def _other_turns(self, by_view: np.ndarray, log_probs: np.ndarray,
                     logits: np.ndarray | None, share: np.ndarray, first: int, turns: int,
                     early_sure: float) -> tuple[np.ndarray, np.ndarray | None]:
        """``by_view`` (views, n, 3, H, W) read in their ``first`` turns (``log_probs``,
        ``logits``) -> their joint reading, the crops that leaves undecided read in their
        other turns too."""
        probs, index = _averaged(log_probs, logits, share)
        if first == turns:
            return probs, index
        rest = np.flatnonzero(~_decided(probs, index, early_sure))
        if len(rest) == 0:
            return probs, index
        chosen = _flat(by_view[:, rest])
        # The other turns of the undecided crops, their first turns reused.
        more, more_logits = self._readings(_turned(chosen, turns)[first * len(chosen):],
                                           len(rest))
        probs[rest], joined_index = _averaged(
            np.concatenate([log_probs[:, rest], more]),
            None if logits is None or more_logits is None
            else np.concatenate([logits[:, rest], more_logits]), share)
        if index is not None and joined_index is not None:
            index[rest] = joined_index
        return probs, index

    def _as_is_then_mirrored(self, batch: np.ndarray, early_one: float
                             ) -> tuple[np.ndarray, np.ndarray | None]:
        """``batch`` (n, 3, H, W) read as it is and mirrored, as ``_readings`` of its two
        first turns gives them (2, n, ...), but mirrored only where the crop as it is is
        named under ``early_one`` (or its index head undecided): a crop named so surely
        holds its one reading in both turns, which average to it."""
        n = len(batch)
        log_probs, logits = self._readings(batch, n)
        probs, index = _averaged(log_probs, logits, np.ones(1))
        log_probs = np.concatenate([log_probs, log_probs])
        logits = None if logits is None else np.concatenate([logits, logits])
        rest = np.flatnonzero(~_decided(probs, index, early_one))
        if len(rest):
            mirrored, mirrored_logits = self._readings(
                np.ascontiguousarray(batch[rest][:, :, :, ::-1]), len(rest))
            log_probs[1, rest] = mirrored[0]
            if logits is not None and mirrored_logits is not None:
                logits[1, rest] = mirrored_logits[0]
        return log_probs, logits

    def _readings(self, batch: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray | None]:
        """One run of the network over ``batch`` (readings of ``n`` crops, one after
        another) -> log-probabilities (readings, n, 52), and the index head's logits
        (readings, n) when it has one."""
        outputs = self.session.run(self.outputs, {self.input: batch, **self.feeds})
        log_probs = log_softmax(outputs[0])
        log_probs = log_probs.reshape(-1, n, log_probs.shape[1])
        return log_probs, outputs[1].reshape(-1, n) if self.judges_index else None

    def classify(self, crops: np.ndarray, mirrored: bool = True
                 ) -> tuple[np.ndarray, np.ndarray]:
        """(class ids, confidences) of the crops' most likely names."""
        if len(crops) == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        probs = self.probabilities(crops, mirrored)
        return probs.argmax(axis=1), probs.max(axis=1)


def input_side(session: Any) -> int:  # session: an onnxruntime InferenceSession
    """The side a classifier's ONNX model reads a crop at: ``CROP``, or the fixed side it
    was exported at (``train_classifier --input-px``): smaller for a corner model trained
    on crops averaged down, which costs less, or larger for a face reader's, whose crops
    the caller cuts at that side (``vision.netinput.face_square``)."""
    side = session.get_inputs()[0].shape[-1]
    return side if isinstance(side, int) and side > 0 else CROP


def _opened(weights: Path, threads: int, what: str) -> tuple[Any, str]:
    """(session, its input's name) for a reader's ONNX model; ClassifierError names
    ``what`` could not be loaded."""
    try:
        session = cpu_session(weights, threads)
    except Exception as error:  # onnxruntime raises its own exception types
        raise ClassifierError(f"cannot load {what} {weights}: {error}") from None
    return session, session.get_inputs()[0].name


def adaptable_norms(weights: Path, session: Any = None) -> list[dict[str, Any]]:
    """The batch norms a learned deck may re-estimate in the classifier at ``weights``, as
    its metadata lists them (``ADAPTABLE_KEY``); ClassifierError when it lists none.
    ``session``: one already open on ``weights``."""
    if session is None:
        session, _ = _opened(weights, 1, "classifier")
    text = session.get_modelmeta().custom_metadata_map.get(ADAPTABLE_KEY)
    if not text:
        raise ClassifierError(f"{weights} lists no batch norms to adapt "
                              "(export it with python -m vision.training.adaptable)")
    return json.loads(text)


def statistics_session(weights: Path, threads: int = 2) -> Any:
    """An onnxruntime session on a statistics network (``batch_norm_statistics``), to measure
    many photos' statistics with; ClassifierError when it cannot be opened."""
    return _opened(weights, threads, "the classifier's statistics network")[0]


def batch_norm_statistics(weights: Path, crops: np.ndarray, share: float,
                          threads: int = 2, session: Any = None,
                          turns: Sequence[int] = QUARTER_TURNS) -> dict[str, np.ndarray]:
    """AdaBN: the mean and variance of each adaptable batch norm's input (``adaptable_norms``)
    over ``crops`` (N, CROP, CROP, 3), a deck's own corners, mixed with the trained ones at
    ``share`` (1: the deck's alone), as initializer values for ``CornerClassifier``.

    ``weights`` is the adaptable classifier's statistics network
    (``vision.training.adaptable.statistics_model``), which measures them in one pass: the
    crops are read as the reader reads them (those printed light on dark inverted) in each
    of ``turns`` (quarter turns: ``QUARTER_TURNS``, all four, or a photo's
    ``vision.detector.PHOTO_STATISTICS_TURNS``), each turn a batch, the statistics averaged
    over the turns as batch norm's running statistics average batches; each norm's input is
    normalised by the norms before it with the crops' own statistics, as a network run in
    training mode on the deck's crops normalises them. ``session``: one already open on
    ``weights`` (a photo's reader measures each photo's own)."""
    if session is None:
        session = statistics_session(weights, threads)
    norms = adaptable_norms(weights, session)
    crops = crops.copy()
    light = light_on_dark(crops)
    crops[light] = 255 - crops[light]
    batch = classifier_input(crops)
    turned = np.ascontiguousarray(np.stack([np.rot90(batch, k, axes=(2, 3)) for k in turns]))
    names = [norm[key] for norm in norms for key in ("mean", "var")]
    try:
        own = dict(zip(names, session.run(names, {session.get_inputs()[0].name: turned}),
                       strict=True))
    except Exception as error:  # onnxruntime raises its own exception types
        raise ClassifierError(f"{weights} cannot measure the batch norms it lists: "
                              f"{error}") from None
    mixed = {}
    for norm in norms:
        for key in ("mean", "var"):
            trained = np.asarray(norm[f"trained_{key}"], np.float32)
            mixed[norm[key]] = (share * own[norm[key]] + (1 - share) * trained
                                ).astype(np.float32)
    return mixed


# Probabilities are clipped here before their logarithm: an int8 network's softmax can
# underflow to 0 for names it rules out.
_TINY = 1e-12


def _averaged(log_probs: np.ndarray, logits: np.ndarray | None, share: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray | None]:
    """Readings (turns x views, n, 52) of n crops -> (n, 52) probabilities from their
    log-probabilities averaged, each view weighing ``share`` in every turn; and the index
    head's logits (turns x views, n) averaged alike, as (n,) probabilities."""
    weights = np.tile(share, len(log_probs) // len(share))
    weights = weights / weights.sum()
    joint = np.tensordot(weights, log_probs, axes=1)
    probs = np.exp(joint - joint.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    if logits is None:
        return probs.astype(np.float32), None
    return probs.astype(np.float32), _sigmoid(np.tensordot(weights, logits, axes=1))


def blended_readings(first: np.ndarray, second: np.ndarray, share: float) -> np.ndarray:
    """Two (N, 52) readings of the same corners joined as the classifier joins its views
    and turns: log-probabilities averaged, ``second`` weighing ``share`` of the whole."""
    joint = (1 - share) * np.log(np.clip(first, _TINY, 1)) + \
        share * np.log(np.clip(second, _TINY, 1))
    return np.exp(log_softmax(joint)).astype(np.float32)


def blended_index(first: np.ndarray, second: np.ndarray, share: float) -> np.ndarray:
    """Two (N,) index-head probabilities of the same corners joined as the head's views
    are: logits averaged, ``second`` weighing ``share``."""
    def logit(p: np.ndarray) -> np.ndarray:
        p = np.clip(p.astype(np.float64), 1e-7, 1 - 1e-7)
        return np.log(p / (1 - p))

    return _sigmoid((1 - share) * logit(first) + share * logit(second))


def _sigmoid(logits: np.ndarray) -> np.ndarray:
    """The index head's logits as float32 probabilities."""
    return (1 / (1 + np.exp(-logits))).astype(np.float32)


def log_softmax(logits: np.ndarray) -> np.ndarray:
    """(N, K) logits -> (N, K) log-probabilities, row by row."""
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def _turned(batch: np.ndarray, turns: int) -> np.ndarray:
    """``batch`` (N, 3, H, W) and its first ``turns`` orientations (``ORIENTATIONS``),
    stacked one after another: (turns * N, 3, H, W)."""
    stack = [batch]
    if turns >= 2:
        stack.append(batch[:, :, :, ::-1])  # mirrored
    if turns >= 4:
        stack += [batch[:, :, ::-1, ::-1], batch[:, :, ::-1, :]]  # upside down, and mirrored
    if turns >= 8:
        stack += [np.rot90(view, 1, axes=(2, 3)) for view in stack[:4]]
    return np.ascontiguousarray(np.concatenate(stack))


def _flat(by_view: np.ndarray) -> np.ndarray:
    """(views, n, 3, H, W) -> (views * n, 3, H, W), view-major."""
    return by_view.reshape(-1, *by_view.shape[2:])


def _decided(probs: np.ndarray, index: np.ndarray | None, early_sure: float) -> np.ndarray:
    """The crops an early exit leaves as read: named at ``early_sure`` or more, and their
    index head (when there is one) decided (``EARLY_INDEX``)."""
    decided = probs.max(axis=1) >= early_sure
    if index is not None:
        decided &= np.abs(index - 0.5) >= EARLY_INDEX
    return decided


def _with_first_view(first_view: np.ndarray, others: np.ndarray, count: int) -> np.ndarray:
    """Readings of the first view (turns, m, ...) and of the other ``count - 1`` views
    (turns * (count - 1), m, ...), each turn-major -> all of them turn-major, then view,
    as ``_turned`` stacks a view-major batch: (turns * count, m, ...)."""
    turns = len(first_view)
    rest = others.reshape(turns, count - 1, *others.shape[1:])
    return np.concatenate([first_view[:, None], rest], axis=1).reshape(
        turns * count, *others.shape[1:])


class TextReader:
    """A second reader of corner crops: a pretrained text recogniser's inner features
    (PP-OCRv4, which has seen far more typefaces than our renders) with a linear head
    fitted on our crops (``vision.training.text_features``). Alone it names crops worse
    than the classifier; its log-probabilities, weighted, are added to the classifier's,
    where the two networks' different errors partly cancel. Crop by crop that names more
    corners right; in whole photos it was measured and is not run (models/README.md,
    "Session 18")."""

    def __init__(self, weights: Path, threads: int = 2) -> None:
        self.session, self.input = _opened(weights, threads, "text reader")

    def log_probabilities(self, crops: np.ndarray) -> np.ndarray:
        """(N, CROP, CROP, 3) uint8 RGB -> (N, 52) log-probabilities: each crop read as it
        is and turned half round (a card's two corners are each other so turned), the two
        readings averaged."""
        if len(crops) == 0:
            return np.zeros((0, 52), np.float32)
        both = text_input(np.concatenate([crops, crops[:, ::-1, ::-1]]))
        log_probs = log_softmax(self.session.run(None, {self.input: both})[0].astype(np.float64))
        n = len(crops)
        return ((log_probs[:n] + log_probs[n:]) / 2).astype(np.float32)
