"""The table's own deck: learned from four photos, stored as plain data, corrected in use.

A deck is learned from four photos, one a suit, each showing that suit's 13 cards face up
in rank order A 2 3 ... 10 J Q K, read like text (left to right, then the next row down).
The detector boxes the corner indices, :func:`order_cards` groups them into 13 cards in
reading order, and the order names them. The classifier is then adapted to the deck: a
linear correction on its penultimate features (``FEATURES_MODEL``), added to its own
52-way log-probabilities and fitted on crops of the deck's corners (cut a few times each
with the box jittered, as the detector boxes them). Reading a photo with the deck
(``CardDetector(deck=...)``) replaces the classifier's probabilities with the corrected
ones, from one pass of the features model. The correction is fitted as a change to the
classifier's own reading, held small by a weight penalty, so what the network already
reads right on this design stays read, and it reads only the crops that look like the ones
it was fitted on (``MIN_LIKENESS``): others keep the classifier's reading.

Stored under ``$CPOKER_HOME/decks/NAME`` (default: the user's data folder, through
``platformdirs``) as ``deck.json`` (name, date, photos, suit order, model version,
corrections) and ``deck.npz`` (the corner crops with their names, and the fitted
correction): numpy and JSON, no torch. The crops are kept so that a deck refits itself when
the shipped features model changes, and so that corrections (crops the user named in use)
can be added, turned off and cleared.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache, cached_property
from pathlib import Path

import cv2
import numpy as np

from engine.cards import CARD_NAMES

from .classifier import ClassifierError, batch_norm_statistics, log_softmax
from .detections import Detections
from .netinput import (
    CROP,
    MARGIN,
    classifier_input,
    crop_square,
    light_on_dark,
    mostly_light_on_dark,
)
from .session import cpu_session

MODELS = Path(__file__).resolve().parent.parent / "models"
FEATURES_MODEL = MODELS / "corner-features-int8.onnx"
# Photo mode's classifier as a deck adapts it: its batch norms' statistics re-estimated on
# the deck's calibration corners (``batch_norm_statistics``; ``vision.training.adaptable``).
ADAPTABLE_MODEL = MODELS / "corner-classifier-photo-deck.onnx"
# The network that measures those statistics in one pass (``vision.training.adaptable``'s
# ``--statistics-out``).
ADAPTABLE_STATISTICS = MODELS / "corner-classifier-photo-deck-norms.onnx"
# The deck's own statistics' share against the trained ones. Measured on real-decks-dev's
# black deck learned from its corners (models/README.md, "Session 87"): the deck's alone
# read its composed hands of whole held-out corners 40.0 -> 45.0 % all right and lost a
# held-out photo; half and half 43.33 %, every held-out photo as before. At 0.75 its tune
# photos read a card that was not there.
ADAPTED_SHARE = 0.5
# At most this many of the calibration crops are read for the statistics (drawn evenly
# from them, always the same): the statistics network reads them in four turns, and the 52
# corners a deck learns from vary less than that many crops show. Learning the committed
# deck takes 5.6 s here (``bench/bench_deck.py``; 16.5 s while each of the five norms had
# its own pass of the whole adaptable network, session 88).
STATISTICS_CROPS = 320
# How ``CornerFeatures`` reads a crop; part of the version a deck's fit is tied to
# ("polarity": light-on-dark indices also read inverted, session 8).
READING = "polarity"
RANK_ORDER = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SUIT_ORDER = "shdc"
SUIT_WORDS = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}
FORMAT = 1
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
CLASS_OF = {name: i for i, name in enumerate(CARD_NAMES)}

Progress = Callable[[int, int, str], None]  # (step, steps, what is being done)


class DeckError(ValueError):
    """A deck that cannot be learned, found or used; the message says what to do."""


# --- where decks live ------------------------------------------------------------------

def cpoker_home() -> Path:
    """``$CPOKER_HOME``, or the user's data folder for cpoker."""
    home = os.environ.get("CPOKER_HOME")
    if home:
        return Path(home).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("cpoker"))


def decks_folder() -> Path:
    return cpoker_home() / "decks"


def check_name(name: str) -> str:
    if not NAME_PATTERN.fullmatch(name):
        raise DeckError(f"deck name {name!r}: use 1 to 40 letters, digits, '-', '_' or '.', "
                        "starting with a letter or digit")
    return name


def list_decks() -> list[dict[str, object]]:
    """The stored decks' manifests, by name."""
    folder = decks_folder()
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.iterdir()):
        manifest = path / "deck.json"
        if path.is_dir() and not path.name.startswith(".") and manifest.exists():
            try:
                found.append(json.loads(manifest.read_text()))
            except (OSError, ValueError):
                found.append({"name": path.name, "error": "unreadable deck.json"})
    return found


def forget_deck(name: str) -> None:
    path = decks_folder() / check_name(name)
    if not (path / "deck.json").exists():
        raise DeckError(f"no deck named {name!r}; `cpoker deck list` shows the stored decks")
    shutil.rmtree(path)


# --- the features model ------------------------------------------------------------------

def file_version(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


class CornerFeatures:
    """The classifier with its penultimate features (``vision.training.deck_features``):
    for crops, the 52-way log-probabilities and the feature vectors, each averaged over the
    crop and its mirror image as ``CornerClassifier`` reads them."""

    def __init__(self, weights: Path = FEATURES_MODEL, threads: int = 2) -> None:
        if not weights.exists():
            raise DeckError(f"{weights.name} is missing from {weights.parent}: make it with "
                            "`python -m vision.training.deck_features`")
        self.session = cpu_session(weights, threads)
        outputs = [o.name for o in self.session.get_outputs()]
        if "features" not in outputs:
            raise DeckError(f"{weights.name} has no features output: remake it with "
                            "`python -m vision.training.deck_features`")
        self.outputs = [outputs[0], "features"]
        self.input = self.session.get_inputs()[0].name
        # The weights and how crops are read: a deck fitted on other features is refitted.
        self.version = f"{file_version(weights)}-{READING}"

    def run(self, crops: np.ndarray, batch: int = 512) -> tuple[np.ndarray, np.ndarray]:
        """(N, CROP, CROP, 3) uint8 -> log-probabilities (N, 52), features (N, D).

        As ``CornerClassifier`` does, a crop whose index looks lighter than its card is
        also read inverted, and the surer reading (with its features) is kept: on a black
        deck with gold indices the plain crops' features cannot tell the cards apart."""
        n = len(crops)
        light = np.flatnonzero(light_on_dark(crops))
        # The inverted copies ride in the same runs of the network as the rest.
        log_probs, features = self._run(np.concatenate([crops, 255 - crops[light]]), batch)
        surer = np.flatnonzero(log_probs[n:].max(axis=1) > log_probs[light].max(axis=1))
        log_probs[light[surer]] = log_probs[n + surer]
        features[light[surer]] = features[n + surer]
        return log_probs[:n], features[:n]

    def _run(self, crops: np.ndarray, batch: int) -> tuple[np.ndarray, np.ndarray]:
        logps, feats = [], []
        for start in range(0, len(crops), batch):
            x = classifier_input(crops[start:start + batch])
            n = len(x)
            logits, features = self.session.run(
                self.outputs, {self.input: np.concatenate([x, x[:, :, :, ::-1]])})
            log_probs = log_softmax(logits)
            logps.append((log_probs[:n] + log_probs[n:]) / 2)
            feats.append((features[:n] + features[n:]) / 2)
        if not logps:
            return np.zeros((0, 52), np.float32), np.zeros((0, 0), np.float32)
        return np.concatenate(logps).astype(np.float32), np.concatenate(feats).astype(np.float32)


@cache
def shared_features(weights: Path = FEATURES_MODEL) -> CornerFeatures:
    return CornerFeatures(weights)


# --- crops ---------------------------------------------------------------------------

def jittered_crops(image: np.ndarray, box: Sequence[float], count: int,
                   rng: np.random.Generator, covered: int = 0) -> np.ndarray:
    """The corner's crop, then ``count`` more as other photos would show it: the box a
    little off (as the detector draws it), the card a little turned, the light, focus and
    resolution changed; then ``covered`` of those again, each partly under the next card
    (``cover_crop``)."""
    x1, y1, x2, y2 = (float(v) for v in box)
    w, h = x2 - x1, y2 - y1
    crops = [crop_square(image, box)]
    for _ in range(count):
        bw, bh = w * rng.uniform(0.85, 1.2), h * rng.uniform(0.85, 1.2)
        cx = (x1 + x2) / 2 + rng.normal(0, 0.08) * bw
        cy = (y1 + y2) / 2 + rng.normal(0, 0.08) * bh
        crop = crop_square(image, (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2),
                           angle=rng.uniform(-12, 12), margin=MARGIN * rng.uniform(0.9, 1.15))
        pixels = crop.astype(np.float32) * rng.uniform(0.7, 1.2) + rng.uniform(-25, 25)
        if rng.random() < 0.3:
            pixels = cv2.GaussianBlur(pixels, (0, 0), rng.uniform(0.3, 1.0))
        if rng.random() < 0.3:
            small = int(rng.integers(16, 32))
            pixels = cv2.resize(cv2.resize(pixels, (small, small), interpolation=cv2.INTER_AREA),
                                (CROP, CROP), interpolation=cv2.INTER_LINEAR)
        crops.append(np.clip(pixels + 0.5, 0, 255).astype(np.uint8))
    crops += [cover_crop(crops[int(k)], rng) for k in rng.integers(len(crops), size=covered)]
    return np.stack(crops)


# A covered copy's edge lies this far from the crop's centre along its normal, drawn
# evenly, in crop sides: from the centre (half the crop hidden) to near a corner. Less than
# the classifier's training covers (``train_classifier.OCCLUDE_OFFSET`` reaches a tenth past
# the centre): these are fitted as the deck's own card, so what still shows must name it.
COVER_OFFSET = (0.0, 0.45)
COVER_SHADOW = (0.45, 0.95)  # the covering card's shadow darkens the strip beside its edge


def cover_crop(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``crop`` partly under another card of the deck, as the next card of a fan or a row
    covers an index: everything beyond a straight edge at any angle takes the card's face
    colour (the crop's median, which is the face: the glyphs are the lesser part), and a
    thin shadow runs along the edge. The cards a learned deck still missed were such
    corners, half under the next card: unlike the four photos' clean corners, so the
    correction neither read them nor was fitted where they lie (models/README.md, session
    39)."""
    side = crop.shape[0]
    angle = rng.uniform(0, 2 * math.pi)
    offset = rng.uniform(*COVER_OFFSET) * side
    ys, xs = np.mgrid[:side, :side].astype(np.float32) - (side - 1) / 2
    beyond = xs * math.cos(angle) + ys * math.sin(angle) - offset
    face = np.median(crop.reshape(-1, crop.shape[2]), axis=0)
    pixels = crop.astype(np.float32)
    shadow = (beyond > -1.5) & (beyond <= 0)
    pixels[shadow] *= rng.uniform(*COVER_SHADOW)
    pixels[beyond > 0] = face
    return np.clip(pixels + 0.5, 0, 255).astype(np.uint8)


# --- the correction --------------------------------------------------------------------

# The correction reads a crop only when its features are at least this like (cosine) those
# of a crop it was fitted on; any other crop keeps the classifier's own reading. Ungated,
# the correction cost more than it gave (all 13 right 73 % -> 55 % on the rendered held-out
# decks): a corner half under the next card, a rank boxed without its suit, a pip or a
# face is unlike the calibration photos' clean corners, and the correction, fitted where
# it has no data there, made such crops confident misreads. Measured offline on 40 hands
# of each of the three held-out designs (deck learned from four photos; see the model
# card): gated at 0.9 the mean of all 13 right 0.687 -> 0.673, at 0.95 -> 0.723, at 0.98
# -> 0.687 (the base reader 0.687, ungated 0.600).
MIN_LIKENESS = 0.95
# Photo mode's own reading (its larger classifier, two margins, four turns) keeps this
# share of the log-probabilities of a crop alike the deck's, the correction the rest: the
# correction alone (0) read the held-out rendered designs' hands worse than no deck (all 13
# right 88.3 -> 87.5 %), joined at a half better (-> 89.2 %; models/README.md, "Session
# 39"). Live mode reads with the correction alone: its own classifier is the one corrected.
OWN_SHARE = 0.5


@dataclass
class Correction:
    """``log p = base log p + weight @ ((features - mean) / scale) + bias``, renormalised,
    for the crops like the ones it was fitted on (``anchors``: their unit feature vectors,
    see ``MIN_LIKENESS``)."""

    weight: np.ndarray  # (52, D)
    bias: np.ndarray  # (52,)
    mean: np.ndarray  # (D,)
    scale: np.ndarray  # (D,)
    anchors: np.ndarray  # (K, D) unit vectors, float16 (stored with the deck)

    def apply(self, log_probs: np.ndarray, features: np.ndarray,
              unlike: np.ndarray | None = None,
              own_share: float | np.ndarray = 0.0) -> np.ndarray:
        """The corrected probabilities of the crops alike the deck's; the others keep
        ``log_probs``, or ``unlike`` (log-probabilities) when given. ``own_share`` (one for
        all crops, or (N,)): the share of an alike crop's log-probabilities that ``unlike``
        keeps beside the correction's (0: the correction alone)."""
        corrected = log_softmax(
            log_probs + ((features - self.mean) / self.scale) @ self.weight.T + self.bias)
        if unlike is not None:
            share = np.broadcast_to(np.asarray(own_share, np.float64), len(log_probs))[:, None]
            corrected = (1 - share) * corrected + share * unlike
        alike = likeness(features, self.anchors) >= MIN_LIKENESS
        logits = np.where(alike[:, None], corrected, log_probs if unlike is None else unlike)
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        return (probs / probs.sum(axis=1, keepdims=True)).astype(np.float32)


def unit_rows(features: np.ndarray) -> np.ndarray:
    return features / (np.linalg.norm(features, axis=1, keepdims=True) + 1e-9)


def likeness(features: np.ndarray, anchors: np.ndarray) -> np.ndarray:
    """Each crop's cosine similarity to the most alike anchor (0 when there are none)."""
    if len(anchors) == 0 or len(features) == 0:
        return np.zeros(len(features), np.float32)
    return (unit_rows(features) @ anchors.astype(np.float32).T).max(axis=1)


def fit_correction(log_probs: np.ndarray, features: np.ndarray, labels: np.ndarray,
                   weights: np.ndarray | None = None, l2: float = 1e-3, steps: int = 1000,
                   rate: float = 0.05) -> Correction:
    """The correction that names the crops right, by full-batch Adam on the weighted
    cross-entropy plus ``l2`` times the squared weights. 1,000 steps: a user's correction of
    a corner the classifier was sure of (9c at 0.99998, said to be 9d) took the corrected
    crops only to 0.33 in 300, and to 0.99 in 1,000 (it starts as no correction: where
    the deck's crops are already read right, little is learned)."""
    n, dims = features.shape
    mean = features.mean(axis=0)
    scale = features.std(axis=0) + 1e-3
    x = (features - mean) / scale
    sample = np.ones(n) if weights is None else weights.astype(np.float64)
    sample = sample / sample.sum()
    target = np.zeros((n, 52))
    target[np.arange(n), labels] = 1.0
    weight = np.zeros((52, dims))
    bias = np.zeros(52)
    moments = [np.zeros_like(weight), np.zeros_like(bias)]
    squares = [np.zeros_like(weight), np.zeros_like(bias)]
    for step in range(1, steps + 1):
        logits = log_probs + x @ weight.T + bias
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        probs /= probs.sum(axis=1, keepdims=True)
        error = (probs - target) * sample[:, None]
        grads = [error.T @ x + 2 * l2 * weight, error.sum(axis=0)]
        for k, (param, grad) in enumerate(zip((weight, bias), grads, strict=True)):
            moments[k] = 0.9 * moments[k] + 0.1 * grad
            squares[k] = 0.999 * squares[k] + 0.001 * grad**2
            param -= rate * (moments[k] / (1 - 0.9**step)) / (
                np.sqrt(squares[k] / (1 - 0.999**step)) + 1e-8)
    return Correction(weight.astype(np.float32), bias.astype(np.float32),
                      mean.astype(np.float32), scale.astype(np.float32),
                      unit_rows(features).astype(np.float16))


# --- a learned deck --------------------------------------------------------------------

SOURCE_PHOTO, SOURCE_CORRECTION = 0, 1
STATISTIC = "statistic:"  # deck.npz's keys of photo mode's classifier's adapted statistics
CORRECTION_WEIGHT = 4.0  # a crop the user named outweighs a calibration crop
# Each calibration corner's crops: as cut, ``JITTERED`` jittered, and ``COVERED`` of those
# again partly under the next card (``cover_crop``). Off: 8 covered copies a corner read
# no more hands right (rendered held-out designs 93.33 % either way, told 13; the black
# deck a held-out photo more and two composed hands fewer; models/README.md, session 46),
# and learning took half as long again.
JITTERED = 12
COVERED = 0


@dataclass
class LearnedDeck:
    """A deck's crops (with their names and where they came from) and the correction
    fitted on them. ``probabilities`` is the hook ``CardDetector(deck=...)`` calls."""

    name: str
    crops: np.ndarray  # (N, CROP, CROP, 3) uint8
    labels: np.ndarray  # (N,) class ids in CARD_NAMES order
    sources: np.ndarray  # (N,) SOURCE_PHOTO or SOURCE_CORRECTION
    manifest: dict[str, object] = field(default_factory=dict)
    correction: Correction | None = None
    features: CornerFeatures | None = None
    # Photo mode's classifier's batch-norm statistics on the calibration photos' corners
    # (initializer name -> values; ``ADAPTABLE_MODEL``), empty until fitted.
    statistics: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def corrections_enabled(self) -> bool:
        return bool(self._corrections().get("enabled", True))

    @property
    def correction_count(self) -> int:
        """Corrections stored: crops the user named (each kept with its jittered copies)."""
        return int(self._corrections().get("count", 0))

    def _corrections(self) -> dict[str, object]:
        value = self.manifest.setdefault("corrections", {"enabled": True, "count": 0})
        assert isinstance(value, dict)
        return value

    @cached_property
    def prints_light_on_dark(self) -> bool:
        """Whether the deck prints its indices lighter than its cards (gold or silver on
        black), judged on its calibration photos' corners (``LIGHT_ON_DARK_SHARE`` of them
        or more): the reader then reads every photo of it in its negative too, however few
        boxes a photo's first look finds to vote with. The user's corrections do not
        vote: the photos' corners do not change once learned, so neither does this."""
        return mostly_light_on_dark(self.crops[self.sources == SOURCE_PHOTO])

    def _model(self) -> CornerFeatures:
        if self.features is None:
            self.features = shared_features()
        return self.features

    def _fitted(self) -> np.ndarray:
        """Which stored crops the correction is fitted on (and its anchors are, in order):
        all, or the photos' alone while corrections are off."""
        return np.ones(len(self.labels), bool) if self.corrections_enabled \
            else self.sources == SOURCE_PHOTO

    @property
    def photo_network(self) -> tuple[Path, dict[str, np.ndarray]] | None:
        """Photo mode's classifier adapted to this deck: (its model, the initializers that
        adapt it), or None when nothing is learned from photos."""
        return (ADAPTABLE_MODEL, self.statistics) if self.statistics else None

    def fit_statistics(self) -> None:
        """Re-estimate photo mode's classifier's batch norms on the calibration photos'
        corners. The user's corrections do not count: a few corners, each copied, would
        weigh in as the deck's whole look; and measuring them again for each would keep
        the user waiting about 2.4 s a correction (320 crops, session 88; 15 s before the
        statistics network)."""
        photos = self.crops[self.sources == SOURCE_PHOTO]
        if len(photos) > STATISTICS_CROPS:
            photos = photos[np.linspace(0, len(photos) - 1, STATISTICS_CROPS).astype(int)]
        self.statistics = {}
        if len(photos) == 0 or not ADAPTABLE_MODEL.is_file():
            return
        try:
            self.statistics = batch_norm_statistics(ADAPTABLE_STATISTICS, photos,
                                                    ADAPTED_SHARE)
        except ClassifierError as error:
            raise DeckError(f"the deck cannot adapt photo mode's classifier ({error}): "
                            "reinstall cpoker to restore its models") from None
        self.manifest["adapted"] = {"file": ADAPTABLE_MODEL.name,
                                    "version": file_version(ADAPTABLE_MODEL),
                                    "share": ADAPTED_SHARE}

    def fit(self) -> None:
        """Fit the correction on the stored crops (corrections too, when enabled), and
        adapt photo mode's classifier to the photos' corners when that is not done yet."""
        if not self.statistics:
            self.fit_statistics()
        use = self._fitted()
        model = self._model()
        self.manifest["model"] = {"file": FEATURES_MODEL.name, "version": model.version}
        if not use.any():
            self.correction = None
            return
        log_probs, features = model.run(self.crops[use])
        weights = np.where(self.sources[use] == SOURCE_CORRECTION, CORRECTION_WEIGHT, 1.0)
        self.correction = fit_correction(log_probs, features, self.labels[use], weights)

    def probabilities(self, crops: np.ndarray, unlike: np.ndarray | None = None
                      ) -> np.ndarray | None:
        """The 52-way probabilities of ``crops`` read with this deck's correction; None
        when nothing is learned (the classifier alone reads them). One pass of the
        features model gives both the classifier's reading and the features. ``unlike``:
        (N, 52) probabilities for the crops unlike the deck's, which the correction leaves
        alone (photo mode's larger classifier reads them better); default the features
        model's own reading. Given, ``unlike`` also keeps ``OWN_SHARE`` of the reading of
        a crop alike the deck's photos, but none of one alike a crop the user named: their
        word stands over any classifier's."""
        if self.correction is None:
            return None
        if len(crops) == 0:
            return np.zeros((0, 52), np.float32)
        log_probs, features = self._model().run(crops)
        if unlike is None:
            return self.correction.apply(log_probs, features)
        share = np.full(len(crops), OWN_SHARE)
        taught = self.correction.anchors[self.sources[self._fitted()] == SOURCE_CORRECTION]
        share[likeness(features, taught) >= MIN_LIKENESS] = 0.0
        return self.correction.apply(log_probs, features, np.log(np.maximum(unlike, 1e-30)),
                                     share)

    # corrections ----------------------------------------------------------------------

    def add_correction(self, image: np.ndarray, box: Sequence[float], card: str,
                       seed: int = 0, copies: int = 8) -> None:
        """Keep the corner at ``box`` of ``image`` as ``card`` and refit; the caller saves.
        Nothing is kept while corrections are turned off."""
        if card not in CLASS_OF:
            raise DeckError(f"{card!r} is not a card name (e.g. As, Td, 9h)")
        if not self.corrections_enabled:
            return
        rng = np.random.default_rng(seed + self.correction_count)
        crops = jittered_crops(image, box, copies, rng)
        self.crops = np.concatenate([self.crops, crops])
        self.labels = np.concatenate([self.labels, np.full(len(crops), CLASS_OF[card])])
        self.sources = np.concatenate([self.sources,
                                       np.full(len(crops), SOURCE_CORRECTION, np.int8)])
        self._corrections()["count"] = self.correction_count + 1
        self.fit()

    def set_corrections(self, enabled: bool) -> None:
        """Turn learning from corrections on or off (those kept stay, unused while off)."""
        self._corrections()["enabled"] = bool(enabled)
        self.fit()

    def clear_corrections(self) -> None:
        keep = self.sources == SOURCE_PHOTO
        self.crops, self.labels, self.sources = \
            self.crops[keep], self.labels[keep], self.sources[keep]
        self._corrections()["count"] = 0
        self.fit()

    # storage ---------------------------------------------------------------------------

    def save(self) -> Path:
        """Write the deck whole or not at all: into a temporary folder beside it, then
        renamed into place."""
        folder = decks_folder()
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / check_name(self.name)
        scratch = Path(tempfile.mkdtemp(prefix=f".{self.name}.", dir=folder))
        try:
            arrays: dict[str, np.ndarray] = {"crops": self.crops, "labels": self.labels,
                                             "sources": self.sources}
            if self.correction is not None:
                arrays.update(weight=self.correction.weight, bias=self.correction.bias,
                              mean=self.correction.mean, scale=self.correction.scale,
                              anchors=self.correction.anchors)
            arrays.update({STATISTIC + name: values for name, values in self.statistics.items()})
            np.savez_compressed(scratch / "deck.npz", **arrays)
            self.manifest.update(name=self.name, format=FORMAT,
                                 crops=len(self.labels))
            (scratch / "deck.json").write_text(json.dumps(self.manifest, indent=2) + "\n")
            old = None
            if target.exists():
                old = folder / f".{self.name}.old-{os.getpid()}"
                target.rename(old)
            scratch.rename(target)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(scratch, ignore_errors=True)
            raise
        return target


def new_deck(name: str) -> LearnedDeck:
    """An empty deck (nothing learned yet): corrections can be added to it."""
    return LearnedDeck(check_name(name), np.zeros((0, CROP, CROP, 3), np.uint8),
                       np.zeros(0, np.int64), np.zeros(0, np.int8),
                       {"name": name, "created": _now(), "photos": [], "suit_order": None,
                        "corrections": {"enabled": True, "count": 0}})


def load_deck(name: str) -> LearnedDeck:
    """The stored deck ``name``; refitted (and saved) when the features model changed."""
    path = decks_folder() / check_name(name)
    try:
        manifest = json.loads((path / "deck.json").read_text())
        data = np.load(path / "deck.npz")
    except FileNotFoundError:
        known = ", ".join(str(d.get("name")) for d in list_decks()) or "none yet"
        raise DeckError(f"no deck named {name!r} (stored decks: {known}); learn it with "
                        "`cpoker deck learn`") from None
    except (OSError, ValueError) as error:
        raise DeckError(f"deck {name!r} in {path} cannot be read ({error}): forget it and "
                        "learn it again") from None
    if manifest.get("format") != FORMAT:
        raise DeckError(f"deck {name!r} was stored in another format: learn it again")
    deck = LearnedDeck(name, data["crops"], data["labels"].astype(np.int64),
                       data["sources"].astype(np.int8), manifest)
    if "weight" in data:
        anchors = data["anchors"] if "anchors" in data else np.zeros((0, 0), np.float16)
        deck.correction = Correction(data["weight"], data["bias"], data["mean"], data["scale"],
                                     anchors)
    deck.statistics = {key[len(STATISTIC):]: data[key] for key in data.files
                       if key.startswith(STATISTIC)}
    model = manifest.get("model")
    stored = model.get("version") if isinstance(model, dict) else None
    adapted = manifest.get("adapted")
    # A deck stored before the correction was gated has no anchors: refit it too. One
    # stored before photo mode's classifier was adapted (session 87), or for another
    # version of it, re-estimates its statistics.
    refit = deck.correction is not None and (stored != deck._model().version
                                             or "anchors" not in data)
    readapt = bool((deck.sources == SOURCE_PHOTO).any()) and ADAPTABLE_MODEL.is_file() and (
        not isinstance(adapted, dict) or adapted.get("version") != file_version(
            ADAPTABLE_MODEL) or adapted.get("share") != ADAPTED_SHARE)
    if readapt:
        deck.fit_statistics()
    if refit:
        deck.fit()  # after the statistics: it measures them itself only when they are missing
    if refit or readapt:
        deck.save()
    return deck


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --- ordering the corners of a calibration photo -----------------------------------------

# How far apart a card's two corner indices lie, in index heights. A jumbo index is about
# two fifths of its card's height, so its corners lie under two index heights apart
# (kennard-jumbo: 1.95); the floor was 3 until session 44, and every calibration photo of
# such a deck was refused as 26 cards.
PAIR_SPAN = (1.5, 30.0)


@dataclass(frozen=True)
class CardCorners:
    """One card of a calibration photo: its corner boxes (indexes into the detections)
    and where the card lies (a point inside it, for ordering)."""

    corners: tuple[int, ...]
    anchor: tuple[float, float]


def pair_offsets(centers: np.ndarray, height: float, names: Sequence[str] | None = None,
                 limit: int = 4) -> list[np.ndarray]:
    """Candidates for the offset from a card's upper corner index to its lower one, shared
    by every card of the photo (one card-diagonal down and to the right; the same for a
    card lying upside down), most supported first: offsets between two corners that many
    other pairs of corners repeat. A pair whose corners the classifier names alike counts
    double: the two corners of a card usually read the same, two cards' corners never."""
    n = len(centers)
    offsets, weights = [], []
    for i in range(n):
        for j in range(n):
            d = centers[j] - centers[i]
            if d[0] <= 0 or d[1] <= 0:
                continue
            length = float(np.hypot(*d))
            angle = math.degrees(math.atan2(d[1], d[0]))
            if PAIR_SPAN[0] * height <= length <= PAIR_SPAN[1] * height and 25 <= angle <= 85:
                offsets.append(d)
                weights.append(2.0 if names is not None and names[i] == names[j] else 1.0)
    if len(offsets) < 3:
        return []
    vectors = np.array(offsets)
    weight = np.array(weights)
    # Perspective makes near cards larger than far ones: the offsets differ by a share.
    radius = np.maximum(0.8 * height, 0.15 * np.hypot(vectors[:, 0], vectors[:, 1]))
    near = np.linalg.norm(vectors[:, None] - vectors[None], axis=2) <= radius[:, None]
    support = near.astype(np.float64) @ weight
    found: list[np.ndarray] = []
    for best in np.argsort(-support, kind="stable"):
        if len(found) == limit or near[best].sum() < 3:
            break
        centre = vectors[near[best]].mean(axis=0)
        if all(np.hypot(*(centre - f)) > radius[best] for f in found):
            found.append(centre)
    return found


def order_cards(boxes: np.ndarray, names: Sequence[str] | None = None,
                expect: int | None = None) -> list[CardCorners]:
    """Corner boxes (N, 4) of cards laid out like text -> the cards in reading order.

    The two corner indices of a card lie one card-diagonal apart, the same offset for every
    card of the photo (``pair_offsets``); corners that pair up that way are one card, and
    a corner left alone (its partner hidden or missed) is a card of its own. Of the
    candidate offsets (and none: cards overlapping in rows show one corner each), the best
    supported that makes ``expect`` cards is taken. Rows are then found across the
    layout's direction (the median direction from each card to its nearest neighbour
    beside it, so a photo taken a little askew reads the same), cut where the cards'
    positions across it jump by more than half a card, and each row is read along it."""
    if len(boxes) == 0:
        return []
    boxes = np.asarray(boxes, np.float64)
    centers = np.stack([(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2],
                       axis=1).astype(np.float64)
    height = float(np.median(boxes[:, 3] - boxes[:, 1]))
    # Two boxes on one index (the detector's suppression keeps both now and then) are one
    # corner.
    merged: list[list[int]] = []
    for i in range(len(centers)):
        home = next((m for m in merged
                     if np.hypot(*(centers[m[0]] - centers[i])) < 0.6 * height), None)
        if home is None:
            merged.append([i])
        else:
            home.append(i)
    points = np.array([centers[m].mean(axis=0) for m in merged])
    labels = [names[m[0]] for m in merged] if names is not None else None
    hypotheses: list[np.ndarray | None] = [*pair_offsets(points, height, labels), None]
    grouped = [_group(points, height, offset, labels) for offset in hypotheses]
    if labels is not None:
        # The offset whose pairs the classifier names most alike: it misreads a design's
        # glyph the same way in both corners, while two cards' corners differ.
        def agreement(cards: list[CardCorners]) -> float:
            pairs = [c.corners for c in cards if len(c.corners) == 2]
            alike = sum(labels[a] == labels[b] for a, b in pairs)
            return alike - 0.5 * (len(pairs) - alike)

        chosen = max(range(len(grouped)), key=lambda k: (agreement(grouped[k]), -k))
    else:
        chosen = next((k for k, cards in enumerate(grouped) if len(cards) == expect), 0)
    offset = hypotheses[chosen]
    card_height = abs(offset[1]) + height if offset is not None else 4 * height
    return [CardCorners(tuple(i for k in card.corners for i in merged[k]), card.anchor)
            for card in _reading_order(grouped[chosen], card_height)]


def _group(centers: np.ndarray, height: float, offset: np.ndarray | None,
           names: Sequence[str] | None = None) -> list[CardCorners]:
    cards: list[CardCorners] = []
    used: set[int] = set()
    pairs: list[tuple[int, int]] = []
    if offset is not None:
        tolerance = max(1.2 * height, 0.3 * float(np.hypot(*offset)))
        candidates = []
        for i in range(len(centers)):
            for j in range(len(centers)):
                if i != j:
                    miss = float(np.hypot(*(centers[j] - centers[i] - offset)))
                    if miss <= tolerance:
                        # Corners the classifier names alike are more likely one card, by
                        # half the tolerance: a card's own corners may lie further from
                        # the shared offset than one of them does from the next row's
                        # card (a tilted card, a large index: kenney's ace of spades and
                        # the eight under it, tests/test_decks.py).
                        alike = names is not None and names[i] == names[j]
                        candidates.append((miss if alike else miss * 1.5 + 0.5 * tolerance,
                                           i, j))
        for _, i, j in sorted(candidates):
            if i not in used and j not in used:
                used.update((i, j))
                pairs.append((i, j))
                middle = (centers[i] + centers[j]) / 2
                cards.append(CardCorners((i, j), (float(middle[0]), float(middle[1]))))
    paired = [np.array(card.anchor) for card in cards]
    angle = _row_angle(np.array(paired)) if len(paired) >= 2 else 0.0
    normal = np.array([-math.sin(angle), math.cos(angle)])
    for i in range(len(centers)):
        if i in used:
            continue
        if offset is not None and any(_inside(centers[i], centers[a], centers[b], height)
                                      for a, b in pairs):
            continue  # a box elsewhere on a card already found
        anchor = centers[i]
        if offset is not None:
            # Upper or lower corner of its card: the card's centre that does not fall on
            # a card already found.
            options = [centers[i] + offset / 2, centers[i] - offset / 2]
            clear = [o for o in options if all(
                np.hypot(*(o - p)) > 0.5 * np.hypot(*offset) for p in paired)]
            # Of the two, the one in line with a row of the cards found.
            anchor = min(clear or options, key=lambda o: min(
                (abs(float((o - q) @ normal)) for q in paired), default=0.0))
        cards.append(CardCorners((i,), (float(anchor[0]), float(anchor[1]))))
    return cards


def _row_angle(points: np.ndarray) -> float:
    """The rows' direction (radians from the x axis): the median direction from each card
    to its nearest neighbour lying beside it."""
    directions = []
    for i, p in enumerate(points):
        d = points - p
        d[i] = np.inf
        side = np.abs(d[:, 1]) < np.abs(d[:, 0])
        if side.any():
            k = int(np.argmin(np.where(side, np.hypot(d[:, 0], d[:, 1]), np.inf)))
            v = d[k] if d[k][0] > 0 else -d[k]
            directions.append(math.atan2(v[1], v[0]))
    return float(np.median(directions)) if directions else 0.0


def _inside(point: np.ndarray, upper: np.ndarray, lower: np.ndarray, height: float) -> bool:
    """Whether ``point`` lies on the card whose corner indices are at ``upper`` and
    ``lower``: on its pips or picture, or in one of its two other corners (blank, or a
    second pair of indices on some decks)."""
    low = np.minimum(upper, lower) - 0.5 * height
    high = np.maximum(upper, lower) + 0.5 * height
    return bool(np.all(point > low) and np.all(point < high))


def _reading_order(cards: list[CardCorners], card_height: float) -> list[CardCorners]:
    points = np.array([c.anchor for c in cards], np.float64)
    if len(points) < 2:
        return cards
    angle = _row_angle(points)
    along = points @ np.array([math.cos(angle), math.sin(angle)])
    across = points @ np.array([-math.sin(angle), math.cos(angle)])
    order = np.argsort(across)
    rows: list[list[int]] = [[int(order[0])]]
    for previous, current in itertools.pairwise(order):
        if across[current] - across[previous] > 0.5 * card_height:
            rows.append([])
        rows[-1].append(int(current))
    return [cards[i] for row in rows for i in sorted(row, key=lambda k: along[k])]


# --- learning ----------------------------------------------------------------------------

@dataclass
class SuitPhoto:
    """One calibration photo as understood: the cards in order, each with its corners."""

    path: str
    suit: str
    image: np.ndarray
    detections: Detections
    cards: list[CardCorners]
    # The classifier's (13, 52) reading of the cards in order, when it was read.
    card_probs: np.ndarray | None = None
    # Quarter turns (``np.rot90``) the photo was understood in: ``image`` and
    # ``detections`` are the photo so turned (``TURNS``).
    turn: int = 0

    def names(self) -> list[str]:
        return [f"{rank}{self.suit}" for rank in RANK_ORDER]

    def card_boxes(self) -> list[tuple[str, list[tuple[float, float, float, float]]]]:
        """Each card's name and corner boxes, in the order understood (for display)."""
        return [(name, [tuple(float(v) for v in self.detections.xyxy[i])
                        for i in card.corners])
                for name, card in zip(self.names(), self.cards, strict=True)]


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


CONFIDENT = 0.9  # the base classifier's judgment counts against the user's order above this


def _suit_read(card_probs: np.ndarray) -> tuple[str | None, int, int]:
    """The suit the base classifier reads on most of a photo's cards where it is sure:
    (suit or None, cards read as it, cards read surely). ``card_probs``: (13, 52)."""
    suit_probs = card_probs.reshape(13, 13, 4).sum(axis=1)
    sure = [int(p.argmax()) for p in suit_probs if p.max() >= CONFIDENT]
    if not sure:
        return None, 0, 0
    counts = np.bincount(sure, minlength=4)
    top = int(counts.argmax())
    # Each suit's letter in CARD_NAMES order is s h d c, as in SUIT_ORDER.
    if counts[top] < max(3, len(sure) / 2):
        return None, int(counts[top]), len(sure)
    return SUIT_ORDER[top], int(counts[top]), len(sure)


def _check_suits(reads: Sequence[tuple[str, str, tuple[str | None, int, int]]]) -> None:
    """Raise for a photo whose cards read surely as another suit than the one named, when
    the photo named with that suit does not read as it: photos given in the wrong order.
    (A photo alone reading as another suit is the base classifier misled by the design:
    on a held-out rendered deck it read most diamonds as spades.) ``reads``: (path, suit
    named, ``_suit_read``) for each photo."""
    read_as = {named: read[0] for _, named, read in reads}
    for path, named, (suit, count, sure) in reads:
        if suit is not None and suit != named and read_as.get(suit) != suit:
            raise DeckError(
                f"{path}: its cards read as {SUIT_WORDS[suit]}, not {SUIT_WORDS[named]} "
                f"({count} of {sure} cards read surely): give one photo a suit, in the order "
                "of --suits (by default spades, hearts, diamonds, clubs)")


# Each place's rank (A 2 ... K) as an index into the ranks in CARD_NAMES' order (2 .. A).
RANKS_2_TO_A = [name[0] for name in CARD_NAMES[::4]]
PLACE_RANKS = [RANKS_2_TO_A.index(rank) for rank in RANK_ORDER]


def _sure_ranks(card_probs: np.ndarray) -> tuple[list[tuple[int, int]], int]:
    """Of a photo's 13 cards in order (``card_probs``: (13, 52)), those the classifier
    reads surely (``CONFIDENT``) as another rank than their place stands for, as (place,
    rank read), and how many it reads surely as their own."""
    rank_probs = card_probs.reshape(13, 13, 4).sum(axis=2)  # card, rank (2..A)
    sure = rank_probs.max(axis=1) >= CONFIDENT
    read = rank_probs.argmax(axis=1)
    wrong = [(k, int(read[k])) for k in range(13) if sure[k] and read[k] != PLACE_RANKS[k]]
    right = int(sum(bool(sure[k]) and read[k] == PLACE_RANKS[k] for k in range(13)))
    return wrong, right


def _check_order(path: str, suit: str, card_probs: np.ndarray
                 ) -> tuple[list[tuple[int, int]], int]:
    """Raise when the base classifier, where confident, says the photo's cards are not in
    rank order. ``card_probs``: (13, 52), cards in order. Else returns the photo's sure
    ranks (``_sure_ranks``)."""
    wrong, right = _sure_ranks(card_probs)
    swapped = any(read == PLACE_RANKS[j] and PLACE_RANKS[k] == other for k, read in wrong
                  for j, other in wrong if j != k)
    if wrong and (swapped or (len(wrong) >= 3 and len(wrong) * 2 >= right)):
        described = ", ".join(f"the {_ordinal(k + 1)} card reads {RANKS_2_TO_A[r]}{suit}"
                              for k, r in wrong[:4])
        raise DeckError(f"{path}: cards out of order ({described}): lay the {SUIT_WORDS[suit]}"
                        " A 2 3 4 5 6 7 8 9 10 J Q K, left to right, then the next row down, "
                        "and retake the photo")
    return wrong, right


# The turns (quarter turns, as ``np.rot90`` counts them) a calibration photo is understood
# in: as taken first, then from the far side of the table (the same layout, its cards read
# K to A: an index prints the same either way up), then a quarter either way (a phone that
# wrote no orientation). Before, either was refused: "cards out of order" or "found 26
# cards" of a photo laid out as asked (models/README.md, "Session 60").
TURNS = (0, 2, 1, 3)
# A photo not understood as taken is understood turned only where the classifier reads at
# least this many of its cards surely as the ranks they then stand for: a turn that merely
# draws no objection (corners read unsurely) could be the turn that reverses the order.
MIN_RANKS_SURE = 3

CardReader = Callable[[np.ndarray, Detections, list[CardCorners]], np.ndarray]


def understand_photo(path: str, suit: str, image: np.ndarray, detector: object,
                     read_cards: CardReader | None = None) -> SuitPhoto:
    """Box and order one calibration photo's 13 cards; raise :class:`DeckError` naming the
    photo when it does not show 13 cards of ``suit`` in order. ``read_cards``: the
    classifier's (13, 52) probabilities of a photo's cards, as ordered; given, the photo is
    also checked for order, and a photo not understood as taken is tried turned
    (``TURNS``): the result's image and detections are then the photo turned."""
    # Told that the photo holds 13 cards, photo mode reads a photo still short again (at
    # other scales, in its negative, ...) as it reads a hand: a photo of a black deck's
    # gold or silver indices was otherwise boxed from its first passes alone.
    def complete(found: Detections) -> bool:
        return len(order_cards(found.xyxy, found.labels, expect=13)) == 13

    detections: Detections = detector.detect(  # type: ignore[attr-defined]
        image, "photo", complete)
    if len(detections) == 0:
        raise DeckError(f"{path}: no cards found: lay the 13 {SUIT_WORDS[suit]} face up, "
                        "corners visible, and retake the photo")
    refusal: DeckError | None = None  # what is wrong with the photo as taken
    for turn in TURNS if read_cards is not None else (0,):
        found = detections.turned(image.shape, turn) if turn else detections
        cards = order_cards(found.xyxy, found.labels, expect=13)
        if len(cards) != 13:
            verb = "fewer" if len(cards) < 13 else "more"
            refusal = refusal or DeckError(
                f"{path}: found {len(cards)} cards, {verb} than the 13 {SUIT_WORDS[suit]}: "
                "lay out all 13, apart from each other, and retake the photo")
            continue
        # The photo itself is turned only for a turn whose cards are counted right.
        seen = np.ascontiguousarray(np.rot90(image, turn)) if turn else image
        photo = SuitPhoto(path, suit, seen, found, cards, turn=turn)
        if read_cards is None:
            return photo
        photo.card_probs = read_cards(seen, found, cards)
        try:
            wrong, right = _check_order(path, suit, photo.card_probs)
        except DeckError as error:
            refusal = refusal or error
            continue
        if turn == 0 or (right >= MIN_RANKS_SURE and right > len(wrong)):
            return photo
    assert refusal is not None
    raise refusal


def card_reader(model: CornerFeatures | None = None) -> CardReader:
    """``understand_photo``'s ``read_cards`` as learning reads the cards (``model``:
    default the shipped features model), so that a photo is shown to the user as it will
    be learned."""
    features = model or shared_features()
    return lambda image, detections, cards: _card_probabilities(features, image, detections,
                                                                cards)


def _card_probabilities(model: CornerFeatures, image: np.ndarray, detections: Detections,
                        cards: list[CardCorners]) -> np.ndarray:
    """(13, 52): each card's name as the features model reads its corners together."""
    crops = np.stack([crop_square(image, detections.xyxy[i])
                      for card in cards for i in card.corners])
    log_probs, _ = model.run(crops)
    card_probs = []
    start = 0
    for card in cards:
        joint = log_probs[start:start + len(card.corners)].sum(axis=0)
        start += len(card.corners)
        p = np.exp(joint - joint.max())
        card_probs.append(p / p.sum())
    return np.array(card_probs)


def learn_deck(name: str, photos: Sequence[str | Path], suits: str = SUIT_ORDER,
               detector: object | None = None, progress: Progress | None = None,
               copies: int = JITTERED, covered: int = COVERED, seed: int = 0
               ) -> LearnedDeck:
    """Learn deck ``name`` from four photos (one a suit, in the order ``suits``) and store
    it; nothing is stored unless every photo was understood."""
    from .photo import PhotoError, load_photo

    check_name(name)
    suits = suits.lower()
    if sorted(suits) != sorted(SUIT_ORDER) or len(suits) != 4:
        raise DeckError(f"--suits {suits!r}: give the four suits s h d c once each, in the "
                        "order of the photos (e.g. shdc)")
    if len(photos) != 4:
        raise DeckError(f"{len(photos)} photos given: give four, one a suit, in the order "
                        f"{' '.join(SUIT_WORDS[s] for s in suits)}")
    if detector is None:
        from .detector import CardDetector, ModelError

        try:
            detector = CardDetector()
        except ModelError as error:
            raise DeckError(str(error)) from None
    steps = len(photos) + 2
    tell = progress or (lambda step, total, what: None)
    model = shared_features()
    read_cards = card_reader(model)
    understood: list[SuitPhoto] = []
    suit_reads: list[tuple[str, str, tuple[str | None, int, int]]] = []
    contents: dict[str, str] = {}
    for path in photos:
        try:
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        except OSError:
            continue  # load_photo says what is wrong with it
        if digest in contents:
            raise DeckError(f"{path} and {contents[digest]} are the same photo: give one "
                            "photo a suit")
        contents[digest] = str(path)
    for step, (path, suit) in enumerate(zip(photos, suits, strict=True)):
        tell(step, steps, f"reading {Path(path).name}")
        try:
            image = load_photo(path)
        except PhotoError as error:
            raise DeckError(str(error)) from None
        photo = understand_photo(str(path), suit, image, detector, read_cards)
        assert photo.card_probs is not None
        suit_reads.append((str(path), suit, _suit_read(photo.card_probs)))
        understood.append(photo)
    _check_suits(suit_reads)
    tell(len(photos), steps, "cutting corner crops")
    rng = np.random.default_rng(seed)
    crops_list, labels_list = [], []
    for photo in understood:
        for card_name, card in zip(photo.names(), photo.cards, strict=True):
            for i in card.corners:
                crops = jittered_crops(photo.image, photo.detections.xyxy[i], copies, rng,
                                       covered)
                crops_list.append(crops)
                labels_list.append(np.full(len(crops), CLASS_OF[card_name]))
    crops = np.concatenate(crops_list)
    labels = np.concatenate(labels_list).astype(np.int64)
    deck = LearnedDeck(name, crops, labels, np.zeros(len(labels), np.int8), {
        "name": name, "created": _now(),
        "photos": [{"file": Path(p.path).name, "suit": p.suit,
                    "corners": int(sum(len(c.corners) for c in p.cards)),
                    "turned": 90 * p.turn}
                   for p in understood],
        "suit_order": suits, "corrections": {"enabled": True, "count": 0}},
        features=model)
    tell(len(photos) + 1, steps, "fitting the deck")
    deck.fit()
    deck.save()
    tell(steps, steps, "saved")
    return deck
