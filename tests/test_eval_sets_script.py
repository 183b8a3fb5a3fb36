"""tools/eval_sets.sh refuses a set it does not know before it removes or draws anything.

The script deletes each named set before drawing it again: a misspelt name must not cost
the sets already drawn (the held-out ones take minutes to draw on this machine).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASH = shutil.which("bash")


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_an_unknown_set_is_refused_before_any_set_is_removed(tmp_path: Path) -> None:
    # A copy of the script in a tree of its own, beside a set already drawn.
    (tmp_path / "tools").mkdir()
    shutil.copy(ROOT / "tools" / "eval_sets.sh", tmp_path / "tools")
    drawn = tmp_path / "datasets" / "generated" / "eval-1280" / "data.yaml"
    drawn.parent.mkdir(parents=True)
    drawn.write_text("drawn before\n")
    done = subprocess.run([BASH, "tools/eval_sets.sh", "eval-1280", "eval-9999"],
                          cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "PYTHON": "false"},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "unknown set eval-9999" in done.stdout
    assert "eval-1280" in done.stdout.split("known", 1)[1]
    assert drawn.read_text() == "drawn before\n"
