"""The leave-one-deck-out tables are built from evaluate's readings as they are written."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from vision.training import lodo

ROOT = Path(__file__).resolve().parent.parent


def _scores(photos: int, precision: float, recall: float, right: float) -> dict:
    return {"photos": photos, "card_precision": precision, "card_recall": recall,
            "photos_exactly_right": right, "median_ms_per_photo": 50.0}


def _write(eval_dir: Path, model: str, photos_dev: dict, decks_dev: dict[str, dict]) -> None:
    (eval_dir / f"{model}-real-photos-dev.json").write_text(json.dumps(photos_dev))
    whole = _scores(sum(g["photos"] for g in decks_dev.values()), 0.9, 0.9, 0.9)
    (eval_dir / f"{model}-real-decks-dev.json").write_text(
        json.dumps({**whole, "by": "kind", "groups": decks_dev}))


def _decks(precision: float) -> dict[str, dict]:
    return {"phone-white": _scores(140, precision, 0.8, 0.75),
            "phone-black": _scores(39, precision, 0.6, 0.5),
            "webcam-handheld": _scores(47, precision, 0.5, 0.25)}


def test_each_deck_held_out_is_read_by_the_model_trained_without_it(tmp_path: Path) -> None:
    eval_dir = tmp_path / "eval"
    eval_dir.mkdir()
    _write(eval_dir, "base", _scores(248, 0.9, 0.8, 0.5), _decks(0.9))
    _write(eval_dir, "without-phone-black", _scores(248, 0.95, 0.95, 0.8), _decks(1.0))
    readings = lodo.load_readings(eval_dir)
    assert set(readings) == {"base", "without-phone-black"}
    black = readings["without-phone-black"]["phone-black"]
    assert black.photos == 39
    assert black.f1 == pytest.approx(2 * 1.0 * 0.6 / 1.6)
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ")
            for line in lodo.held_out_table(readings).splitlines()[2:]}
    assert set(rows) == {"real-photos (248)", "phone-white (140)", "phone-black (39)",
                         "webcam-handheld (47)"}
    # Its column "trained without it" holds its own model's reading, and nothing is made
    # up for the models not read.
    assert rows["phone-black (39)"][2] == "1.000 / 0.600 / **0.750** / 50 %"
    assert rows["phone-white (140)"][2] == "-"
    assert rows["real-photos (248)"][1] == "0.900 / 0.800 / **0.847** / 50 %"
    every = lodo.every_model_table(readings).splitlines()
    assert every[0] == "| model | real-photos | phone-white | phone-black | webcam-handheld |"
    assert [line.split(" | ")[0] for line in every[2:]] == ["| base", "| without-phone-black"]


def test_a_reading_without_kinds_or_not_json_is_refused_by_name(tmp_path: Path,
                                                                 capsys) -> None:
    eval_dir = tmp_path / "eval"
    eval_dir.mkdir()
    (eval_dir / "all-real-decks-dev.json").write_text(json.dumps(_scores(226, 1, 1, 1)))
    with pytest.raises(ValueError, match=r"all-real-decks-dev\.json: no group 'phone-white'"):
        lodo.load_readings(eval_dir)
    assert lodo.main(["table", str(tmp_path)]) == 2
    assert "read it with --by kind" in capsys.readouterr().err
    (eval_dir / "all-real-decks-dev.json").write_text("{not json")
    assert lodo.main(["table", str(tmp_path)]) == 2
    assert "all-real-decks-dev.json: not JSON" in capsys.readouterr().err


def test_a_folder_with_no_readings_says_what_to_run(tmp_path: Path, capsys) -> None:
    assert lodo.main(["table", str(tmp_path)]) == 2
    assert "run bash tools/lodo.sh" in capsys.readouterr().err
    (tmp_path / "eval").mkdir()
    assert lodo.main(["table", str(tmp_path)]) == 2
    assert "holds no readings" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_script_skips_what_is_done_and_stops_at_a_failed_step(tmp_path: Path) -> None:
    # PYTHON=false: every step fails, so only the order and the marks are seen.
    run = tmp_path / "run"
    (run / "data").mkdir(parents=True)
    (run / "data" / "crops-train.npz.done").touch()
    done = subprocess.run([shutil.which("bash"), str(ROOT / "tools" / "lodo.sh"), str(run)],
                          cwd=ROOT, env={"PATH": "/usr/bin:/bin", "PYTHON": "false"},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0] == f"have {run}/data/crops-train.npz"
    assert lines[-1] == f"FAILED {run}/data/crops-val.npz"
    assert not (run / "data" / "crops-val.npz.done").exists()


MODELS_TRAINED = ("base", "all", "without-real-photos", "without-phone-white",
                  "without-phone-black", "without-webcam-handheld")


def _first_step_run(tmp_path: Path, trained: bool = False, **env: str
                    ) -> tuple[str, Path, Path, subprocess.CompletedProcess[str]]:
    """The arguments of the first step tools/lodo.sh runs, DATA, the run's folder and the
    script's result. Every crop file of DATA is marked done (and, with ``trained``, every
    network), so the first step run is the base network's training (or the first
    reading): a stand-in python records its arguments and fails, stopping the script."""
    data = tmp_path / "drawn"
    data.mkdir(exist_ok=True)
    for name in ("crops-train", "crops-val", "font-crops", "real-photos-train",
                 "phone-white-train", "phone-black-train", "webcam-handheld-train",
                 "phone-black-inv-train"):
        (data / f"{name}.npz.done").touch()
    run = tmp_path / "run"
    for model in MODELS_TRAINED if trained else ():
        (run / model).mkdir(parents=True, exist_ok=True)
        (run / model / "corner-classifier.onnx.done").touch()
    calls = tmp_path / "calls"
    calls.unlink(missing_ok=True)
    python = tmp_path / "python"
    python.write_text(f'#!/bin/sh\necho "$@" >> {calls}\nexit 1\n')
    python.chmod(0o755)
    done = subprocess.run([shutil.which("bash"), str(ROOT / "tools" / "lodo.sh"), str(run)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "PYTHON": str(python),
                               "DATA": str(data), **env})
    assert done.returncode == 1
    (first,) = calls.read_text().splitlines()
    return first, data, run, done


def _base_training_call(tmp_path: Path, **env: str) -> tuple[str, Path]:
    """The arguments tools/lodo.sh trains its base network with, and DATA."""
    base, data, run, done = _first_step_run(tmp_path, **env)
    assert done.stdout.splitlines()[-1] == f"FAILED {run}/base/corner-classifier.onnx"
    assert not (run / "data").exists()
    return base, data


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_script_trains_the_recipe_asked_on_another_runs_crops(tmp_path: Path) -> None:
    base, data = _base_training_call(tmp_path)
    assert f"--train {data}/crops-train.npz {data}/font-crops.npz" in base
    # Photo mode's classifier's width and jitter by default (session 69) ...
    assert "--channels 64 128 256" in base and "--reshape --grain 0.15" in base
    # ... and sessions 8-67's recipe when asked.
    base, _ = _base_training_call(tmp_path, CHANNELS="32 64 128", AUGMENT="")
    assert "--channels 32 64 128" in base and "--reshape" not in base


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_held_out_decks_are_read_without_the_networks_that_saw_them(tmp_path: Path
                                                                        ) -> None:
    reading, _, run, _ = _first_step_run(tmp_path, trained=True)
    assert reading.startswith("-m vision.training.evaluate ../shared/datasets/real-photos-dev")
    model = f"{run}/base/corner-classifier.onnx"
    assert f"--classifier {model} --photo-classifier {model}" in reading
    # The second network, the crowded corners' and the face reader saw every deck.
    assert "--photo-second-weight 0 --photo-crowded-classifier-share 0 " \
        "--photo-face-weight 0" in reading
