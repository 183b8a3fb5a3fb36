"""The card-corner detector: a YOLO model trained on rendered scenes (see models/README.md).

The model loads once and answers many photos. The ONNX export runs through onnxruntime
when present (faster on a CPU); otherwise the PyTorch weights. Nothing is downloaded.
"""

from __future__ import annotations

import ast
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
    # A card read from one corner alone needs this confidence; a misread corner is most
    # often a lone one, while a card's real corners agree with each other.
    min_lone_conf: float = 0.0
    # A faint corner (detector score between faint_conf and conf) is kept only when the
    # classifier is at least faint_class_conf sure of its name: on real photos the right
    # corner is often found at a low score, while low-scored boxes on pips and backs are
    # named with little confidence. None: no faint corners.
    faint_conf: float | None = None
    faint_class_conf: float = 0.9

    @property
    def detector_threshold(self) -> float:
        return self.conf if self.faint_conf is None else min(self.conf, self.faint_conf)


def default_model(models: Path = MODELS) -> ModelInfo:
    """The shipped model: files and thresholds from ``cards.json``.

    ``cards.json`` names the detector and classifier files to run (the int8 copies, see
    ``vision.quantize``); without those keys, ONNX is preferred to the PyTorch weights."""
    settings = {}
    meta = models / "cards.json"
    if meta.exists():
        settings = json.loads(meta.read_text())
    classifier = models / str(settings.get("classifier", "corner-classifier.onnx"))
    named = [str(settings["detector"])] if "detector" in settings else []
    for name in (*named, "cards.onnx", "cards.pt"):
        if (models / name).exists():
            return ModelInfo(models / name, int(settings.get("imgsz", 640)),
                             float(settings.get("conf", 0.35)), float(settings.get("iou", 0.5)),
                             classifier if classifier.exists() else None,
                             float(settings.get("min_class_conf", 0.4)),
                             float(settings.get("min_lone_conf", 0.0)),
                             None if settings.get("faint_conf") is None
                             else float(settings["faint_conf"]),
                             float(settings.get("faint_class_conf", 0.9)))
    raise ModelError(f"no detector weights in {models}: expected {' or '.join(named)} "
                     "cards.onnx or cards.pt (train one with `python -m vision.train`)")


def letterbox(image: np.ndarray, size: tuple[int, int]
              ) -> tuple[np.ndarray, float, tuple[int, int]]:
    """``image`` shrunk or grown to fit ``size`` (height, width), centred on grey as
    ultralytics pads in training (value 114). Returns the canvas, the scale and the
    (left, top) offset of the image on it."""
    import cv2

    height, width = image.shape[:2]
    target_h, target_w = size
    scale = min(target_h / height, target_w / width)
    new_w, new_h = round(width * scale), round(height * scale)
    pad_x, pad_y = (target_w - new_w) / 2, (target_h - new_h) / 2
    resized = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_LINEAR) \
        if (new_w, new_h) != (width, height) else image
    left, top = round(pad_x - 0.1), round(pad_y - 0.1)
    canvas = cv2.copyMakeBorder(resized, top, target_h - new_h - top, left,
                                target_w - new_w - left, cv2.BORDER_CONSTANT,
                                value=(114, 114, 114))
    return canvas, scale, (left, top)


def network_input(canvas: np.ndarray) -> np.ndarray:
    """A letterboxed RGB uint8 canvas as the detector takes it: (1, 3, H, W) in [0, 1]."""
    return canvas.transpose(2, 0, 1)[None].astype(np.float32) / 255.0


class OnnxYolo:
    """An ultralytics ONNX export run by onnxruntime alone: letterbox, one forward pass,
    class-agnostic non-maximum suppression. No torch, no ultralytics at run time: the app
    starts faster and a photo costs less than through ultralytics' own predictor."""

    def __init__(self, weights: Path, threads: int = 2) -> None:
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session = ort.InferenceSession(str(weights), options,
                                                providers=["CPUExecutionProvider"])
        except Exception as error:  # onnxruntime raises its own exception types
            raise ModelError(f"cannot load detector {weights}: {error}") from None
        meta = self.session.get_modelmeta().custom_metadata_map
        try:
            names = ast.literal_eval(meta["names"])
            self.imgsz = tuple(ast.literal_eval(meta["imgsz"]))
        except (KeyError, ValueError, SyntaxError):
            raise ModelError(f"{weights} is not an ultralytics detector export (no names or "
                             "imgsz in its metadata)") from None
        self.names = tuple(names[i] for i in range(len(names)))
        self.input = self.session.get_inputs()[0].name

    def predict(self, image: np.ndarray, conf: float, iou: float,
                max_det: int = 300) -> Detections:
        """``image``: RGB uint8; boxes come back in its pixels."""
        import cv2

        height, width = image.shape[:2]
        canvas, scale, (left, top) = letterbox(image, self.imgsz)
        # (4 + classes, anchors)
        output = self.session.run(None, {self.input: network_input(canvas)})[0][0]
        scores = output[4:]
        class_id = scores.argmax(axis=0)
        confidence = scores[class_id, np.arange(scores.shape[1])]
        keep = confidence > conf
        if not keep.any():
            return Detections.empty(self.names)
        cx, cy, w, h = output[:4, keep]
        confidence, class_id = confidence[keep], class_id[keep]
        boxes = np.stack([cx - w / 2, cy - h / 2, w, h], axis=1)
        chosen = cv2.dnn.NMSBoxes(boxes.tolist(), confidence.tolist(), conf, iou)
        chosen = np.asarray(chosen, np.int64).reshape(-1)
        chosen = chosen[np.argsort(-confidence[chosen])][:max_det]
        x1 = (boxes[chosen, 0] - left) / scale
        y1 = (boxes[chosen, 1] - top) / scale
        x2 = x1 + boxes[chosen, 2] / scale
        y2 = y1 + boxes[chosen, 3] / scale
        xyxy = np.stack([x1.clip(0, width), y1.clip(0, height), x2.clip(0, width),
                         y2.clip(0, height)], axis=1).astype(np.float32)
        return Detections(xyxy, confidence[chosen].astype(np.float32),
                          class_id[chosen].astype(np.int64), self.names)


class CardDetector:
    """Finds corner indices; ``detect`` returns :class:`Detections` in photo pixels."""

    def __init__(self, info: ModelInfo | None = None, locate_only: bool = False) -> None:
        """``locate_only``: boxes without names are wanted (e.g. to cut training crops)."""
        self.info = info or default_model()
        self.onnx: OnnxYolo | None = None
        if self.info.weights.suffix == ".onnx":
            self.onnx = OnnxYolo(self.info.weights)
            self.names = self.onnx.names
        else:
            configure_environment()
            # Ultralytics prints set-up notices on stdout on first use; stdout belongs to
            # the command's JSON output, so they go to stderr.
            with contextlib.redirect_stdout(sys.stderr):
                from ultralytics import YOLO  # heavy import, kept out of module import time

                try:
                    self.model = YOLO(str(self.info.weights), task="detect")
                except Exception as error:  # ultralytics raises many types for a bad file
                    raise ModelError(f"cannot load detector {self.info.weights}: {error}"
                                     ) from None
            names = self.model.names
            self.names = tuple(names[i] for i in range(len(names)))
        self.classifier = None
        if self.info.classifier is not None:
            from .classifier import CornerClassifier

            self.classifier = CornerClassifier(self.info.classifier)
        elif not locate_only and not set(self.names) <= set(CARD_NAMES):
            # A single-class detector finds corners without naming them.
            raise ModelError(f"detector {self.info.weights.name} finds corners without naming "
                             "them: it needs the corner classifier (models/"
                             "corner-classifier.onnx)")

    def detect(self, image: np.ndarray) -> Detections:
        """``image``: RGB uint8 (H, W, 3)."""
        # Class-agnostic suppression: two corner indices never lie on top of each other,
        # so overlapping boxes are one index, whatever names the detector gave them.
        if self.onnx is not None:
            found = self.onnx.predict(image, self.info.detector_threshold, self.info.iou)
        else:
            # ultralytics expects BGR arrays, as OpenCV reads them.
            result = self.model.predict(image[:, :, ::-1], imgsz=self.info.imgsz,
                                        conf=self.info.detector_threshold, iou=self.info.iou,
                                        device="cpu",
                                        agnostic_nms=True, verbose=False)[0]
            boxes = result.boxes
            found = Detections(
                boxes.xyxy.cpu().numpy().astype(np.float32),
                boxes.conf.cpu().numpy().astype(np.float32),
                boxes.cls.cpu().numpy().astype(np.int64),
                self.names,
            )
        if self.classifier is None:
            return found[found.confidence >= self.info.conf]
        return self._name_corners(image, found)

    @property
    def reading_settings(self) -> dict[str, object]:
        """How ``vision.reading.read_cards`` should merge this model's corners."""
        return {"min_lone_confidence": self.info.min_lone_conf}

    def _name_corners(self, image: np.ndarray, found: Detections) -> Detections:
        """Second stage: the classifier names each corner from the full-size photo.

        The confidence is the classifier's: the detector's score only says that a corner
        index is there, not which card it names."""
        from .classifier import crop_square

        assert self.classifier is not None
        if len(found) == 0:
            return found
        crops = np.stack([crop_square(image, box) for box in found.xyxy])
        classes, confidence = self.classifier.classify(crops)
        keep = (confidence >= self.info.min_class_conf) & (
            (found.confidence >= self.info.conf) | (confidence >= self.info.faint_class_conf))
        named = Detections(found.xyxy, confidence, classes.astype(np.int64), CARD_NAMES)
        return named[keep]

    def warm_up(self) -> None:
        self.detect(np.full((self.info.imgsz, self.info.imgsz, 3), 127, np.uint8))
