"""The app's live camera: each session's frames read as a stream, boxed as read.

Apart from ``app.py`` so that it can be tested without running the page."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from vision.live import LiveStream

from .photo import annotated_picture


class LiveReader:
    """Reads every frame of the live video (in streamlit-webrtc's worker thread) and keeps
    the latest reading for the page to take. Each camera has its own stream
    (``vision.live``), which reads a frame again only where it changed and a hand held
    still once in photo mode: a still hand then costs next to nothing, so one laptop
    serves several phones' cameras."""

    def __init__(self, detector: Any, language: str) -> None:
        self.stream = LiveStream(detector)
        self.language = language
        self.lock = threading.Lock()
        self.latest: list[str] = []

    def use(self, detector: Any) -> None:
        """Read with ``detector`` (another deck chosen) from the next frame on."""
        with self.lock:
            if self.stream.detector is not detector:
                self.stream.detector = detector
                self.stream.reset()

    def __call__(self, frame: Any) -> Any:
        import av

        image = frame.to_ndarray(format="rgb24")
        with self.lock:
            reading = self.stream.read(image)
            self.latest = list(dict.fromkeys(reading.card_names))
        boxed = np.asarray(annotated_picture(image, reading, self.language))
        return av.VideoFrame.from_ndarray(boxed, format="rgb24")
