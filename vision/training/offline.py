"""Prepare ultralytics to run with no network.

Ultralytics checks for its plotting fonts at start-up and downloads them when missing.
We point ``YOLO_CONFIG_DIR`` at a project-local folder and copy a real TTF that ships
with matplotlib (a dependency of ultralytics) in under the names it looks for.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

FONT_NAMES = ("Arial.ttf", "Arial.Unicode.ttf")


def config_dir() -> Path:
    default = Path(__file__).resolve().parents[2] / ".yolo"
    return Path(os.environ.get("YOLO_CONFIG_DIR", default))


def prepare(target: Path | None = None) -> Path:
    import matplotlib

    target = target or config_dir()
    target.mkdir(parents=True, exist_ok=True)
    source = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
    for name in FONT_NAMES:
        dest = target / name
        if not dest.exists():
            shutil.copyfile(source, dest)
    return target


def configure_environment() -> None:
    """Set the offline variables for this process (call before importing ultralytics)."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    os.environ.setdefault("YOLO_AUTOINSTALL", "false")
    os.environ.setdefault("YOLO_CONFIG_DIR", str(config_dir()))
    prepare(Path(os.environ["YOLO_CONFIG_DIR"]))


if __name__ == "__main__":
    print(f"ultralytics config dir ready: {prepare()}")
