"""Two readings compared figure by figure and photo by photo (vision.training.compare), the
wrong photos evaluate --json lists for it, and tools/tune_sets.sh, which reads the tune sets
into a folder of readings."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from vision.training.compare import compare, describe, figures, main

ROOT = Path(__file__).resolve().parent.parent
BASH = shutil.which("bash")


def _reading(folder: Path, name: str, reading: dict[str, object], before: str = "") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(before + json.dumps(reading) + "\n")


def _hands(recall: float, wrong: list[dict[str, object]]) -> dict[str, object]:
    return {"data": "datasets/generated/tune-1280b", "photos": 3, "card_precision": 1.0,
            "card_recall": recall, "photos_exactly_right": round(1 - len(wrong) / 3, 4),
            "median_ms_per_photo": 90.0 + len(wrong),
            "groups": {"webcam-handheld": {"card_recall": recall}}, "wrong_photos": wrong}


def test_two_readings_differ_by_the_figures_and_photos_that_moved(tmp_path: Path) -> None:
    before, after = tmp_path / "base", tmp_path / "lever"
    # a.jpg gains its Qs, b.jpg reads as it did, c.jpg loses its 5d to a wrong 6h.
    _reading(before, "tune", _hands(0.9, [
        {"image": "a.jpg", "missed": ["Qs"], "wrong": []},
        {"image": "b.jpg", "missed": ["8h"], "wrong": ["6h"]}]))
    _reading(after, "tune", _hands(0.9, [
        {"image": "b.jpg", "missed": ["8h"], "wrong": ["6h"]},
        {"image": "c.jpg", "missed": ["5d"], "wrong": ["6h"]}]), before="progress 10 %\n")
    _reading(before, "bench", {"median_ms": 110.9, "host": "a"})
    _reading(after, "bench", {"median_ms": 91.5, "host": "b"})
    _reading(before, "only-before", {"photos": 1})
    changes = compare(before, after)
    assert [change["reading"] for change in changes] == ["bench", "tune"]
    lines = describe(changes)
    # The same figures, but two photos changed: a right card in one, a wrong one in another.
    assert lines[lines.index("tune:") + 1:] == [
        "  a.jpg: missed Qs -> right", "  c.jpg: right -> missed 5d, wrong 6h"]
    assert lines[:2] == ["bench:", "  median_ms: 110.9 -> 91.5"]
    # Only the readings named; one of the same figures and photos reads "the same".
    _reading(after, "same", {"photos": 1, "wrong_photos": []})
    _reading(before, "same", {"photos": 1, "wrong_photos": []})
    assert describe(compare(before, after, ["same"])) == ["same: the same"]
    # Equal figures without wrong-photo lists (a bench, an older reading) say only that.
    _reading(after, "figures-only", {"photos": 1, "card_recall": 0.9})
    _reading(before, "figures-only", {"photos": 1, "card_recall": 0.9})
    assert describe(compare(before, after, ["figures-only"])) == [
        "figures-only: the same figures (a reading lists no wrong photos)"]


def test_figures_are_the_readings_numbers_groups_dotted() -> None:
    reading = _hands(0.95, [])
    found = figures(reading)
    assert found["groups.webcam-handheld.card_recall"] == 0.95
    assert found["photos"] == 3 and "data" not in found and "wrong_photos" not in found


def test_what_cannot_be_compared_is_said(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    before, after = tmp_path / "base", tmp_path / "lever"
    assert main([str(before), str(after)]) == 2
    assert f"{before}: no such folder of readings" in capsys.readouterr().err
    _reading(before, "tune", {"photos": 1})
    after.mkdir()
    assert main([str(before), str(after)]) == 2
    assert "no reading of the same name" in capsys.readouterr().err
    assert main([str(before), str(after), "tune"]) == 2
    assert f"no reading {after / 'tune.json'}" in capsys.readouterr().err
    (after / "tune.json").write_text("Traceback (most recent call last):\n")
    assert main([str(before), str(after)]) == 2
    assert "its last line is not a JSON object" in capsys.readouterr().err
    _reading(after, "tune", {"photos": 2})
    assert main([str(before), str(after), "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said == [{"reading": "tune", "figures": [
        {"figure": "photos", "before": 1.0, "after": 2.0}], "photos": None}]


def test_evaluate_json_lists_every_wrong_photo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    from types import SimpleNamespace

    from engine.cards import CARD_NAMES
    from vision.training import evaluate as evaluation

    hand = ["6d", "7c", "Qh"]
    (tmp_path / "data.yaml").write_text("# corner-index boxes\nnames:\n" + "".join(
        f"  {i}: '{name}'\n" for i, name in enumerate(CARD_NAMES)))
    read_as = {f"photo{k:02d}": hand[:3 - k % 2] for k in range(14)}  # 7 of 14 miss a Qh
    for split in ("images", "labels"):
        (tmp_path / split / "val").mkdir(parents=True)
    for name in read_as:
        (tmp_path / "images" / "val" / f"{name}.jpg").write_bytes(b"")
        (tmp_path / "labels" / "val" / f"{name}.txt").write_text("".join(
            f"{CARD_NAMES.index(card)} 0.5 0.5 0.01 0.01\n" for card in hand))

    def read(path: object, *_: object, **__: object) -> SimpleNamespace:
        return SimpleNamespace(card_names=read_as[Path(str(path)).stem], rows=None)

    monkeypatch.setattr(evaluation, "read_photo", read)
    assert evaluation.main([str(tmp_path), "--json", "--misses", "2"]) == 0
    reading = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert reading["photos_exactly_right"] == 0.5
    assert reading["wrong_photos"] == [{"image": f"photo{k:02d}.jpg", "missed": ["Qh"], "wrong": []}
                                       for k in (1, 3, 5, 7, 9, 11, 13)]


@pytest.mark.skipif(BASH is None, reason="needs bash")
def test_the_tune_sets_are_read_into_a_folder_of_readings(tmp_path: Path) -> None:
    # The script in a tree of its own, the shared sets beside it, and an evaluate that
    # says what it was asked; the real-photos set fails to read.
    work = tmp_path / "work"
    (work / "tools").mkdir(parents=True)
    shutil.copy(ROOT / "tools" / "tune_sets.sh", work / "tools")
    for drawn in ("tune-1280b", "tune-4032", "tune-rows", "tune-dark"):
        (work / "datasets" / "generated" / drawn).mkdir(parents=True)
        (work / "datasets" / "generated" / drawn / "data.yaml").write_text("names: []\n")
    for shared in ("real-decks-dev", "real-photos-dev"):
        (tmp_path / "shared" / "datasets" / shared).mkdir(parents=True)
    (work / "fake_evaluate.py").write_text(
        "import json, sys\n"
        "if 'real-photos-dev' in sys.argv[1]:\n"
        "    sys.exit('no such photo')\n"
        "print('reading')\n"
        "print(json.dumps({'card_precision': 1.0, 'card_recall': 0.5,\n"
        "                  'photos_exactly_right': 0.25, 'args': sys.argv[1:]}))\n")
    done = subprocess.run(
        [BASH, "tools/tune_sets.sh", "out", "--photo-face-lone", "no"], cwd=work,
        env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable, "EVALUATE": "fake_evaluate.py"},
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "tune-1280b: 1.0 / 0.5 / 0.25 photos right" in done.stdout
    assert "real-photos-dev: failed, see out/real-photos-dev.err" in done.stdout
    decks = json.loads((work / "out" / "real-decks-dev.json").read_text())
    assert decks["args"] == ["../shared/datasets/real-decks-dev", "--expect", "labelled",
                             "--json", "--split", "none", "--shots", "tune", "--by", "kind",
                             "--photo-face-lone", "no"]
    assert sorted(path.name for path in (work / "out").glob("*.json")) == [
        "real-decks-dev.json", "tune-1280b.json", "tune-4032.json", "tune-dark.json",
        "tune-rows.json"]
    # No folder named: the usage; a set not drawn: how to draw it, before anything is read.
    usage = subprocess.run([BASH, "tools/tune_sets.sh"], cwd=work, capture_output=True,
                           text=True, timeout=60)
    assert usage.returncode == 2 and "usage" in usage.stdout
    shutil.rmtree(work / "datasets" / "generated" / "tune-4032")
    absent = subprocess.run([BASH, "tools/tune_sets.sh", "again"], cwd=work,
                            env={"PATH": "/usr/bin:/bin", "PYTHON": sys.executable},
                            capture_output=True, text=True, timeout=60)
    assert absent.returncode == 2 and "bash tools/eval_sets.sh" in absent.stdout
    assert not (work / "again").exists()
