"""The detector's PyTorch weights (``models/cards.pt``, a run's ``best.pt``) as a corner
locator, for the workshop's measurements: the reader itself runs only the ONNX export.

    detector = torch_card_detector(ModelInfo(Path("runs/cards/RUN/weights/best.pt"), ...))
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import numpy as np

from vision.detections import Detections
from vision.detector import CardDetector, ModelError, ModelInfo

from .offline import configure_environment


class UltralyticsLocator:
    """Corner boxes from ultralytics' own predictor (letterbox to a multiple of 32, NMS).
    It reads at any size, as photo mode asks."""

    dynamic = True

    def __init__(self, weights: Path, imgsz: int = 640) -> None:
        configure_environment()
        # Ultralytics prints set-up notices on stdout on first use; stdout belongs to a
        # command's JSON output, so they go to stderr.
        with contextlib.redirect_stdout(sys.stderr):
            from ultralytics import YOLO

            try:
                self.model = YOLO(str(weights), task="detect")
            except Exception as error:  # ultralytics raises many types for a bad file
                raise ModelError(f"cannot load detector {weights}: {error}") from None
        names = self.model.names
        self.names = tuple(names[i] for i in range(len(names)))
        self.imgsz = imgsz

    def predict(self, image: np.ndarray, conf: float, iou: float, max_det: int = 300,
                side: int | None = None) -> Detections:
        # ultralytics expects BGR arrays, as OpenCV reads them.
        result = self.model.predict(image[:, :, ::-1], imgsz=side or self.imgsz, conf=conf,
                                    iou=iou, device="cpu", agnostic_nms=True,
                                    max_det=max_det, verbose=False)[0]
        boxes = result.boxes
        return Detections(boxes.xyxy.cpu().numpy().astype(np.float32),
                          boxes.conf.cpu().numpy().astype(np.float32),
                          boxes.cls.cpu().numpy().astype(np.int64), self.names)


def card_detector(info: ModelInfo, locate_only: bool = False) -> CardDetector:
    """A :class:`CardDetector` for ``info``: its ONNX file through onnxruntime, as the reader
    runs it, or its ``.pt`` file through ultralytics."""
    if info.weights.suffix == ".onnx":
        return CardDetector(info, locate_only)
    return CardDetector(info, locate_only, UltralyticsLocator(info.weights, info.imgsz))
