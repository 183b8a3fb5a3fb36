"""A live camera's stream (``vision.live.LiveStream``): each frame read again only where it
changed, and read as a fresh live-mode reading of that frame reads it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detections import Detections
from vision.detector import CardDetector
from vision.live import LiveStream
from vision.pipeline import read_image

SCENES = sorted((Path(__file__).parent / "data" / "scenes").glob("*.jpg"))
SKIN = (214, 164, 134)


@pytest.fixture(scope="module")
def detector() -> CardDetector:
    return CardDetector()


def frame_of(scene: Path, width: int = 640, height: int = 480) -> np.ndarray:
    image = cv2.cvtColor(cv2.imread(str(scene)), cv2.COLOR_BGR2RGB)
    h, w = image.shape[:2]
    keep = round(w * height / width)
    if keep <= h:
        image = image[(h - keep) // 2:(h - keep) // 2 + keep]
    return cv2.resize(image, (width, height), interpolation=cv2.INTER_AREA)


def noisy(frame: np.ndarray, seed: int, level: float = 3.0) -> np.ndarray:
    grain = np.random.default_rng(seed).normal(0.0, level, frame.shape)
    return np.clip(frame + grain, 0, 255).astype(np.uint8)


def with_hand(frame: np.ndarray, centre: tuple[int, int]) -> np.ndarray:
    covered = frame.copy()
    cv2.ellipse(covered, centre, (60, 110), 0, 0, 360, SKIN, -1)
    return covered


class PartsSpy:
    """The shipped detector, recording the windows each partial read was given."""

    def __init__(self, detector: CardDetector) -> None:
        self.detector = detector
        self.reading_settings = detector.reading_settings
        self.windows: list[np.ndarray] = []
        self.whole = 0
        self.modes: list[str] = []

    def detect(self, image: np.ndarray, mode: str = "photo", complete: object = None
               ) -> Detections:
        self.modes.append(mode)
        if mode == "live":
            self.whole += 1
        return self.detector.detect(image, mode, complete)  # type: ignore[arg-type]

    def detect_live_parts(self, image: np.ndarray, parts: np.ndarray) -> Detections:
        self.windows.append(parts)
        return self.detector.detect_live_parts(image, parts)


def fresh(detector: CardDetector, frame: np.ndarray) -> list[str]:
    return sorted(read_image(frame, detector, "frame", mode="live").card_names)


def test_a_still_hand_is_read_once_and_kept(detector: CardDetector) -> None:
    scene = frame_of(SCENES[1])
    stream = LiveStream(detector, refine=False)
    first = stream.read(noisy(scene, 0))
    assert sorted(first.card_names) == fresh(detector, noisy(scene, 0))
    assert len(first.cards) >= 12
    for seed in range(1, 6):
        assert stream.read(noisy(scene, seed)) is first  # noise is no change
    # A brighter frame (the camera's exposure) is no change either.
    brighter = np.clip(scene.astype(np.float32) * 1.12, 0, 255).astype(np.uint8)
    assert stream.read(brighter) is first
    assert (stream.counts.whole, stream.counts.parts, stream.counts.kept) == (1, 0, 6)


def test_a_hand_over_the_cards_is_read_where_it_lies(detector: CardDetector) -> None:
    """Each frame reads what a fresh reading of it reads, from windows around the change
    only; the hand gone, the cards it covered are back."""
    scene = frame_of(SCENES[1])
    spy = PartsSpy(detector)
    stream = LiveStream(spy, refine=False)  # type: ignore[arg-type]
    before = stream.read(scene)
    height, width = scene.shape[:2]
    for step, centre in enumerate(((320, 520), (320, 430), (320, 400), (320, 400))):
        frame = noisy(with_hand(scene, centre), step)
        reading = stream.read(frame)
        assert sorted(reading.card_names) == fresh(detector, frame)
        assert spy.windows, "the frame changed: read in parts"
        area = sum((x2 - x1) * (y2 - y1) for x1, y1, x2, y2 in spy.windows[-1].tolist())
        assert area < 0.6 * width * height
    assert len(reading.cards) < len(before.cards), "the hand covers a card"
    assert spy.whole == 1
    reads = len(spy.windows)
    stream.read(noisy(with_hand(scene, (320, 400)), 9))
    assert len(spy.windows) == reads, "held still twice: kept"
    back = stream.read(noisy(scene, 10))
    assert sorted(back.card_names) == sorted(before.card_names)
    stream.read(noisy(scene, 11))  # the hand's cells are read once more, settled
    assert sorted(stream.read(noisy(scene, 12)).card_names) == sorted(back.card_names)
    assert stream.counts.kept >= 2 and spy.whole == 1


def test_a_new_hand_or_frame_size_is_read_whole(detector: CardDetector) -> None:
    spy = PartsSpy(detector)
    stream = LiveStream(spy, refine=False)  # type: ignore[arg-type]
    stream.read(frame_of(SCENES[0]))
    other = frame_of(SCENES[1])
    reading = stream.read(other)
    assert spy.whole == 2 and not spy.windows
    assert sorted(reading.card_names) == fresh(detector, other)
    stream.read(other)  # the new hand's cells read once more, settled
    assert spy.whole == 3
    assert stream.read(other) is stream.read(other)
    assert spy.whole == 3 and stream.counts.kept == 2
    stream.read(frame_of(SCENES[1], 800, 600))
    assert spy.whole == 4
    stream.reset()
    stream.read(frame_of(SCENES[1], 800, 600))
    assert spy.whole == 5


class WholeOnly:
    """A detector that reads frames whole only (no ``detect_live_parts``)."""

    def __init__(self, detector: CardDetector) -> None:
        self.detector = detector
        self.calls = 0
        # Corners become cards as the real detector's settings say (a lone corner from 0.8).
        self.reading_settings = detector.reading_settings

    def detect(self, image: np.ndarray, mode: str = "photo", complete: object = None
               ) -> Detections:
        self.calls += 1
        return self.detector.detect(image, mode)  # type: ignore[arg-type]


def test_a_detector_without_parts_reads_each_changed_frame_whole(
        detector: CardDetector) -> None:
    whole = WholeOnly(detector)
    stream = LiveStream(whole, refine=False)  # type: ignore[arg-type]
    scene = frame_of(SCENES[2])
    stream.read(scene)
    stream.read(noisy(scene, 1))
    assert whole.calls == 1
    covered = with_hand(scene, (200, 480))
    reading = stream.read(covered)
    assert whole.calls == 2
    assert sorted(reading.card_names) == fresh(detector, covered)


def test_a_hand_held_still_is_read_once_in_photo_mode(detector: CardDetector) -> None:
    """``refine``: the first frame that holds still after a change is read whole in photo
    mode, as a photo of it would be, and kept; a change is read in live mode again."""
    scene = frame_of(SCENES[0])
    spy = PartsSpy(detector)
    stream = LiveStream(spy)  # type: ignore[arg-type]
    stream.read(noisy(scene, 0))
    assert spy.modes == ["live"] and not stream.refined
    still = noisy(scene, 1)
    refined = stream.read(still)
    assert spy.modes == ["live", "photo"] and stream.refined
    assert sorted(refined.card_names) == sorted(
        read_image(still, detector, "frame", mode="photo").card_names)
    assert stream.read(noisy(scene, 2)) is refined
    assert stream.read(noisy(scene, 3)) is refined
    covered = noisy(with_hand(scene, (320, 420)), 4)
    stream.read(covered)
    assert not stream.refined and spy.windows and spy.modes.count("photo") == 1
    stream.read(noisy(with_hand(scene, (320, 420)), 5))
    assert stream.refined and spy.modes.count("photo") == 2
    assert (stream.counts.whole, stream.counts.parts, stream.counts.kept,
            stream.counts.refined) == (1, 1, 2, 2)


class Frame:
    """What streamlit-webrtc hands the app's callback: a video frame."""

    def __init__(self, image: np.ndarray) -> None:
        self.image = image

    def to_ndarray(self, format: str) -> np.ndarray:
        assert format == "rgb24"
        return self.image


def test_the_apps_live_camera_boxes_each_frame_and_keeps_its_cards(
        detector: CardDetector) -> None:
    from ui.live import LiveReader

    scene = frame_of(SCENES[1])
    reader = LiveReader(detector, "en")
    boxed = reader(Frame(scene))
    assert boxed.to_ndarray(format="rgb24").shape == scene.shape
    assert sorted(reader.latest) == fresh(detector, scene)
    reader(Frame(noisy(scene, 1)))  # held still: read in photo mode
    assert reader.stream.refined
    photo = sorted(read_image(noisy(scene, 1), detector, "frame", mode="photo").card_names)
    assert sorted(reader.latest) == photo
    # Another deck chosen: the next frame is read afresh with it.
    other = CardDetector()
    reader.use(other)
    assert reader.stream.detector is other and not reader.stream.refined
    reader(Frame(scene))
    assert reader.stream.counts.whole == 2
    reader.use(other)  # the same deck again: nothing forgotten
    reader(Frame(noisy(scene, 2)))
    assert reader.stream.counts.whole == 2 and reader.stream.refined
