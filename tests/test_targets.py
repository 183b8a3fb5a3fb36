"""The targets table: the shipped targets file, each figure read from the readings as the
workshop's commands write them, and a reading kept only when its command succeeded."""
from __future__ import annotations

import importlib.util
import json
import sys
import time
from pathlib import Path

import pytest

from vision.training import targets

ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_targets_name_readings_whose_commands_exist() -> None:
    readings, listed = targets.load_targets()
    assert {t.issue for t in listed} == {13, 14}
    assert {t.reading for t in listed} <= set(readings)
    for reading in readings.values():
        if reading.file:
            assert reading.file.startswith("{lodo}/eval/"), reading.name
            continue
        first = reading.command[0]
        if first == "-m":
            assert importlib.util.find_spec(reading.command[1]) is not None, reading.name
        else:
            assert (ROOT / first).is_file(), reading.name
    # Every figure of an evaluate reading is one evaluate --json writes.
    keys = {"card_precision", "card_recall", "photos_exactly_right", "rows_right",
            "readable_right", "readable_rows_right", "f1"}
    evaluated = [t for t in listed if "vision.training.evaluate" in readings[t.reading].command
                 or readings[t.reading].file]
    assert len(evaluated) >= 20
    for target in evaluated:
        assert target.figure.split(".")[-1] in keys, target.what


def _evaluate(precision: float, recall: float, right: float, **more: object) -> dict:
    return {"photos": 10, "card_precision": precision, "card_recall": recall,
            "photos_exactly_right": right, **more}


TOML = """
[readings.hands]
command = ["-m", "vision.training.evaluate", "x"]
draw = "bash tools/eval_sets.sh x"
[readings.decks]
command = ["-m", "vision.training.evaluate", "y"]
[readings.speed]
command = ["bench/bench_vision.py", "--json"]
[readings.lodo-black]
file = "{lodo}/eval/without-phone-black-real-decks-dev.json"
draw = "bash tools/lodo.sh DIR"

[[targets]]
issue = 13
what = "hands all right"
reading = "hands"
figure = "photos_exactly_right"
at_least = 0.97
[[targets]]
issue = 13
what = "rows right"
reading = "hands"
figure = "rows_right"
at_least = 0.97
[[targets]]
issue = 13
what = "black deck F1"
reading = "decks"
figure = "groups.phone-black.f1"
at_least = 0.97
[[targets]]
issue = 13
what = "a photo's time"
reading = "speed"
figure = "median_ms"
at_most = 250
[[targets]]
issue = 14
what = "black held out"
reading = "lodo-black"
figure = "groups.phone-black.f1"
at_least = 0.95
"""


def test_each_target_reads_its_figure_and_says_met_not_met_or_not_read(tmp_path: Path
                                                                        ) -> None:
    spec = tmp_path / "targets.toml"
    spec.write_text(TOML)
    readings, listed = targets.load_targets(spec)
    out = tmp_path / "out"
    out.mkdir()
    (out / "hands.json").write_text(json.dumps(_evaluate(0.99, 0.98, 0.975)))
    (out / "decks.json").write_text(json.dumps(_evaluate(
        0.9, 0.9, 0.9, by="kind", groups={"phone-black": _evaluate(0.98, 0.96, 0.9)})))
    found = targets.standings(readings, listed, out)
    by_what = {s.target.what: s for s in found}
    assert by_what["hands all right"].verdict() == "**met**"
    # A set with no rows in its manifest holds no rows figure: not read, not guessed.
    assert by_what["rows right"].value is None
    assert "hands holds no rows_right (drawn before it was recorded? bash tools/eval_sets.sh x)" \
        in by_what["rows right"].verdict()
    assert by_what["black deck F1"].value == pytest.approx(2 * 0.98 * 0.96 / 1.94)
    assert by_what["black deck F1"].verdict() == "not met"
    assert "run `python -m vision.training.targets run" in by_what["a photo's time"].verdict()
    assert "give --lodo DIR" in by_what["black held out"].verdict()
    # The lodo folder's file is read where --lodo says, and a bound from above is kept.
    lodo = tmp_path / "lodo"
    (lodo / "eval").mkdir(parents=True)
    (lodo / "eval" / "without-phone-black-real-decks-dev.json").write_text(json.dumps(
        _evaluate(0.9, 0.9, 0.9, groups={"phone-black": _evaluate(0.955, 0.787, 0.74)})))
    (out / "speed.json").write_text(json.dumps({"median_ms": 48.5, "p90_ms": 160.0}))
    found = {s.target.what: s for s in targets.standings(readings, listed, out, lodo)}
    assert found["black held out"].verdict() == "not met"
    assert found["a photo's time"].verdict() == "**met**"
    text = targets.table(list(found.values()), readings)
    assert "| 13 | a photo's time | `speed` | 48.5 | <= 250 | **met** |" in text
    assert "2 of 4 targets read are met (1 not read)." in text
    # Each reading says when it was made: a table read from old files says so.
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime((out / "speed.json").stat().st_mtime))
    assert f"- `speed`: `python bench/bench_vision.py --json` (read {when})" in text
    assert "- `lodo-black`: `{lodo}/eval/without-phone-black-real-decks-dev.json` (read" in text


@pytest.mark.parametrize(("change", "says"), [
    ("[readings.x]\ncommand = ['a']\nfile = 'b'\n", "give a command or a file"),
    ("[readings.x]\ncommand = ['a']\nwhen = 'now'\n", "unknown keys ['when']"),
    ("[[targets]]\nissue = 13\nwhat = 'w'\nreading = 'nothing'\nfigure = 'f'\nat_least = 1\n",
     "no reading named 'nothing'"),
    ("[readings.x]\ncommand = ['a']\n[[targets]]\nissue = 13\nwhat = 'w'\nreading = 'x'\n"
     "figure = 'f'\nat_least = 1\nat_most = 2\n", "at_least or at_most, one of them"),
    ("[reading.x]\ncommand = ['a']\n", "unknown tables ['reading']"),
    ("[readings.x\n", "targets.toml"),
])
def test_a_bad_targets_file_is_refused_by_entry(tmp_path: Path, change: str, says: str
                                                ) -> None:
    spec = tmp_path / "targets.toml"
    spec.write_text(change)
    with pytest.raises(targets.TargetsError, match=says.replace("[", r"\[").replace("]", r"\]")):
        targets.load_targets(spec)


def test_run_keeps_a_reading_only_when_its_command_succeeded(tmp_path: Path) -> None:
    spec = tmp_path / "targets.toml"
    (tmp_path / "ok.py").write_text("print('progress...')\nprint('{\"median_ms\": 12.5}')\n")
    (tmp_path / "broken.py").write_text("import sys\nprint('{}')\nsys.exit('no model')\n")
    (tmp_path / "chatty.py").write_text("print('done, no JSON')\n")
    spec.write_text("""
[readings.ok]
command = ["ok.py"]
[readings.broken]
command = ["broken.py"]
[readings.chatty]
command = ["chatty.py"]
[readings.absent]
command = ["ok.py"]
needs = "datasets/none"
draw = "bash tools/eval_sets.sh none"
""")
    readings, _ = targets.load_targets(spec)
    out = tmp_path / "out"
    said = targets.run_readings(readings, out, root=tmp_path, python=sys.executable)
    assert said[0] == "ok: read"
    assert said[1].startswith("broken: FAILED (exit 1): no model")
    assert said[2].startswith("chatty: FAILED (exit 0)")
    assert said[3] == "absent: not read, datasets/none is absent (bash tools/eval_sets.sh none)"
    assert sorted(p.name for p in out.iterdir()) == ["ok.json"]
    assert json.loads((out / "ok.json").read_text()) == {"median_ms": 12.5}
    # A reading already there is not run again.
    (tmp_path / "ok.py").write_text("raise SystemExit('must not run')\n")
    assert targets.run_readings(readings, out, only=["ok"], root=tmp_path)[0] \
        == f"ok: have {out / 'ok.json'}"
    with pytest.raises(targets.TargetsError, match="unknown readings"):
        targets.run_readings(readings, out, only=["okay"], root=tmp_path)


def test_the_table_command_says_what_to_run_for_a_missing_folder(tmp_path: Path,
                                                                 capsys) -> None:
    assert targets.main(["table", str(tmp_path / "none")]) == 2
    assert "run `python -m vision.training.targets run" in capsys.readouterr().err
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "eval-1280.json").write_text("{not json")
    assert targets.main(["table", str(tmp_path / "out")]) == 2
    assert "eval-1280.json: not JSON" in capsys.readouterr().err
