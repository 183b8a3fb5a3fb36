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
