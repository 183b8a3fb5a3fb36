"""Shared test helpers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
SHARED = ROOT.parent / "shared"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def load_json(name: str) -> dict:
    return json.loads((DATA / name).read_text())


# The files cards.json names beside the detector and the classifier.
NAMED_MODEL_FILES = ("table_detector", "photo_classifier", "photo_text_reader",
                     "photo_second_classifier", "photo_crowded_classifier",
                     "photo_face_reader", "live_detector", "photo_adaptable_classifier",
                     "photo_adaptable_statistics")


def models_folder(tmp_path: Path, keep: str | None = None, **settings: object) -> Path:
    """A models folder holding the shipped detector and classifier and a cards.json that
    names no other file but ``keep`` (one of ``NAMED_MODEL_FILES``, not copied: a test
    copies it in when it wants it there), with ``settings`` changed."""
    import shutil

    from vision.detector import default_model

    info = default_model()
    models = tmp_path / "models"
    models.mkdir()
    for file in (info.weights, info.classifier):
        assert file is not None
        shutil.copy(file, models / file.name)
    cards = json.loads((info.weights.parent / "cards.json").read_text())
    for key in NAMED_MODEL_FILES:
        if key != keep:
            cards.pop(key, None)
    (models / "cards.json").write_text(json.dumps({**cards, **settings}))
    return models
