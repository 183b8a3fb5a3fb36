"""The lent-GPU training scripts refuse a run they do not know before any work starts.

A lent machine's minutes are few (15 a session); an unknown letter used to train with
default options, or with no files, and the mistake showed only in what came back.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BASH = shutil.which("bash")


def _run(script: str, letters: list[str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "OUT": str(tmp_path / "out"), "WORK": str(tmp_path / "work"),
           "CROPS": str(tmp_path / "crops")}
    return subprocess.run([BASH, f"tools/{script}", *letters], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("script, known", [("gpu_detector.sh", "a"),
                                           ("gpu_photo_classifiers.sh", "m")])
def test_an_unknown_run_is_refused_before_any_work(script: str, known: str,
                                                   tmp_path: Path) -> None:
    done = _run(script, [known, "zz"], tmp_path)
    assert done.returncode == 2
    assert "unknown run zz" in done.stdout
    assert known in done.stdout.split("known", 1)[1]
    # Nothing was unpacked, drawn or trained.
    work = tmp_path / "work"
    assert not work.exists() or not any(work.iterdir())


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("script", sorted(path.name for path in (ROOT / "tools").glob("*.sh")))
def test_each_tool_script_parses(script: str) -> None:
    # A lent machine's minutes, or an hour of crops here, are lost to a script that stops
    # at a syntax error halfway.
    done = subprocess.run([BASH, "-n", f"tools/{script}"], cwd=ROOT, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_the_classifier_check_refuses_before_any_work(tmp_path: Path) -> None:
    # Its readings take 25 minutes of both cores: a missing state or crop file is named at
    # once, not after the export.
    env = {**os.environ, "GENERATED": str(tmp_path / "generated")}

    def check(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([BASH, "tools/photo_classifier_check.sh", *args], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=60)

    done = check()
    assert done.returncode == 2 and "usage:" in done.stdout
    done = check(str(tmp_path / "gone.pt"))
    assert done.returncode == 2 and "usage:" in done.stdout
    state = tmp_path / "run.pt"
    state.write_bytes(b"")
    done = check(str(state), str(tmp_path / "check"))
    assert done.returncode == 2
    assert f"missing {tmp_path / 'generated'}/crops-val-fan.npz" in done.stdout
    assert not (tmp_path / "check").exists()
