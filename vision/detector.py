"""The card-corner detector: a YOLO model trained on rendered scenes (see models/README.md).

The model loads once and answers many photos. The ONNX export runs through onnxruntime
when present (faster on a CPU); otherwise the PyTorch weights. Nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.cards import CARD_NAMES

from .detections import Detections
from .setup_offline import configure_environment

MODELS = Path(__file__).resolve().parent.parent / "models"


class ModelError(RuntimeError):
    """The detector's weights are missing or unusable."""


@dataclass(frozen=True)
class ModelInfo:
    weights: Path
    imgsz: int = 640
    conf: float = 0.35
    iou: float = 0.5
    classifier: Path | None = None  # second stage (vision.classifier), when shipped
    min_class_conf: float = 0.4  # a crop the classifier cannot name is not a corner


def default_model(models: Path = MODELS) -> ModelInfo:
    """The shipped model: settings from ``cards.json``, ONNX weights preferred."""
    settings = {}
    meta = models / "cards.json"
    if meta.exists():
        settings = json.loads(meta.read_text())
    classifier = models / "corner-classifier.onnx"
    for name in ("cards.onnx", "cards.pt"):
        if (models / name).exists():
            return ModelInfo(models / name, int(settings.get("imgsz", 640)),
                             float(settings.get("conf", 0.35)), float(settings.get("iou", 0.5)),
                             classifier if classifier.exists() else None,
                             float(settings.get("min_class_conf", 0.4)))
    raise ModelError(f"no detector weights in {models}: expected cards.onnx or cards.pt "
                     "(train one with `python -m vision.train`)")


class CardDetector:
    """Finds corner indices; ``detect`` returns :class:`Detections` in photo pixels."""

    def __init__(self, info: ModelInfo | None = None) -> None:
        self.info = info or default_model()
        configure_environment()
        # Ultralytics prints set-up notices on stdout on first use; stdout belongs to the
        # command's JSON output, so they go to stderr.
        with contextlib.redirect_stdout(sys.stderr):
            from ultralytics import YOLO  # heavy import, kept out of module import time

            try:
                self.model = YOLO(str(self.info.weights), task="detect")
            except Exception as error:  # ultralytics raises many types for a bad file
                raise ModelError(f"cannot load detector {self.info.weights}: {error}") from None
        names = self.model.names
        self.names = tuple(names[i] for i in range(len(names)))
        self.classifier = None
        if self.info.classifier is not None:
            from .classifier import CornerClassifier

            self.classifier = CornerClassifier(self.info.classifier)

    def detect(self, image: np.ndarray) -> Detections:
        """``image``: RGB uint8 (H, W, 3)."""
        # ultralytics expects BGR arrays, as OpenCV reads them.
        # Class-agnostic suppression: two corner indices never lie on top of each other,
        # so overlapping boxes are one index, whatever names the detector gave them.
        result = self.model.predict(image[:, :, ::-1], imgsz=self.info.imgsz,
                                    conf=self.info.conf, iou=self.info.iou, device="cpu",
                                    agnostic_nms=True, verbose=False)[0]
        boxes = result.boxes
        found = Detections(
            boxes.xyxy.cpu().numpy().astype(np.float32),
            boxes.conf.cpu().numpy().astype(np.float32),
            boxes.cls.cpu().numpy().astype(np.int64),
            self.names,
        )
        return self._name_corners(image, found) if self.classifier is not None else found

    def _name_corners(self, image: np.ndarray, found: Detections) -> Detections:
        """Second stage: the classifier names each corner from the full-size photo."""
        from .classifier import crop_square

        assert self.classifier is not None
        if len(found) == 0:
            return found
        crops = np.stack([crop_square(image, box) for box in found.xyxy])
        classes, confidence = self.classifier.classify(crops)
        keep = confidence >= self.info.min_class_conf
        named = Detections(found.xyxy, found.confidence * confidence,
                           classes.astype(np.int64), CARD_NAMES)
        return named[keep]

    def warm_up(self) -> None:
        self.detect(np.full((self.info.imgsz, self.info.imgsz, 3), 127, np.uint8))
