"""The command line's JSON contract and its one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import DATA

from cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "2c 3d 4h", "9s 9d 5h 5c 2s", "Kc Kd 9h 7c 6c", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["legal"] is False
    assert data["reason"] == "middle: two pair, nines and fives, beats back: pair of kings"
    assert data["rows"]["middle"]["category"] == "two pair"
    assert set(data["rows"]) == {"front", "middle", "back"}


def test_check_legal_royal(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check", "2c 3d 4h", "9s 9d 5h 5c 2s", "As Ks Qs Js Ts", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["legal"] is True and data["reason"] is None
    assert data["rows"]["back"]["category"] == "royal flush"


def test_naturals_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "naturals", "Ac 2h 3d Tc Js Qh Kd Ah Ts Jh Qd Kc As",
                       "--rules", "pagat", "--json")
    data = json.loads(out)
    assert code == 0
    first = data["naturals"][0]
    assert first["name"] == "three straights" and first["points"] == 3
    assert len(first["front"]) == 3 and len(first["middle"]) == 5 and len(first["back"]) == 5


def test_naturals_empty_list(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "naturals", "2s 7c 4d 5h 9s Jh 8d Kc Ts Jc Qd Kh As", "--json")
    assert json.loads(out) == {"rules": "wikipedia", "naturals": []}


def test_score_json_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", str(DATA / "german-three-players.json"), "--json")
    data = json.loads(out)
    assert code == 0
    assert data["totals"] == {"Player 1": -1, "Player 2": 6, "Player 3": -5}
    assert data["naturals"]["Player 2"]["name"] == "three flushes"
    assert data["fouls"] == []
    pair = data["pairs"][1]
    assert set(pair) >= {"a", "b", "rows", "payments", "net"}
    assert all(set(p) == {"to", "units", "reason"} for p in pair["payments"])


def test_score_rules_flag_wins(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "score", str(DATA / "wikipedia-amy-bob.json"), "--rules", "1-6",
                    "--json")
    assert json.loads(out)["totals"] == {"Amy": 1, "Bob": -1}


def test_score_readable_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "score", str(DATA / "pagat-bonus.json"))
    assert code == 0 and "A v B" in out and "instead of 1" in out


def _table(tmp_path: Path, data: object) -> str:
    path = tmp_path / "table.json"
    path.write_text(json.dumps(data))
    return str(path)


GOOD = {"name": "N", "front": "2c 3d 4h", "middle": "5c 5s 6h 6s 7c", "back": "Th Tc Td 9h 9s"}


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"players": [GOOD, {**GOOD, "name": "S"}]}, "is used twice at the table"),
        ({"players": [GOOD, {**GOOD, "name": "S", "front": "As Ad",
                             "middle": "Kc Kd Ks 2s 2d", "back": "Qc Qd Qs 3s 3d"}]},
         "the front row needs 3 cards, got 2"),
        ({"rules": "poker-night", "players": [GOOD]}, 'unknown preset "poker-night"'),
        ({"options": {"sweep": 2}, "players": [GOOD]}, 'unknown key "sweep"'),
        ({"options": {"royalty_mode": "sometimes"}, "players": [GOOD]}, "royalty_mode must be"),
        ({"players": [GOOD]}, "a table has 2 to 4 players, got 1"),
        ({"players": [GOOD, {"name": "S", "cards": "As Ks"}]}, "expected 13 cards, got 2"),
        ({"players": [{**GOOD, "front": "2c 3d 1x"}]}, 'unknown card "1x"'),
    ],
)
def test_bad_tables_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], table: dict, message: str
) -> None:
    code, out, err = run(capsys, "score", _table(tmp_path, table), "--json")
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_not_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.json"
    path.write_text("{players: oops")
    code, _, err = run(capsys, "score", str(path))
    assert code == 2 and "is not valid JSON" in err


def test_bad_cards_on_check(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "check", "2c 3d 4h", "9s 9d 5h 5c 2s", "Kc Kd 9h 7c 9s")
    assert code == 2 and "9s appears twice" in err


def test_rules_list_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "rules", "--json")
    names = [p["name"] for p in json.loads(out)["presets"]]
    assert names == sorted(["simple", "pagat", "2-4", "1-6", "wikipedia", "taiwanese", "german",
                            "malayan", "vietnamese", "singapore", "hawaiian-gardens"])
    _, out, _ = run(capsys, "rules", "pagat")
    assert "front_trips = 3" in out
    code, _, err = run(capsys, "rules", "nope")
    assert code == 2 and 'unknown preset "nope"' in err


def test_demo_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo")
    assert code == 0 and "+3" in out and "-5" in out
