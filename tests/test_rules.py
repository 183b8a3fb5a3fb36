"""Rule sets are data: presets load, a table's own file is validated key by key."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.rules import RulesError, load_rules, preset, preset_names, rules_from_dict


def test_every_preset_loads_and_round_trips(tmp_path: Path) -> None:
    for name in preset_names():
        rules = preset(name)
        path = tmp_path / f"{name}.toml"
        path.write_text(rules.to_toml())
        assert load_rules(path) == rules


def test_a_table_copies_a_preset_and_changes_it(tmp_path: Path) -> None:
    path = tmp_path / "our-table.toml"
    path.write_text('preset = "pagat"\nsweep_bonus = 3\n"naturals.dragon" = 26\n')
    rules = load_rules(path)
    assert rules.name == "our-table"
    assert rules.sweep_bonus == 3 and rules.naturals["dragon"] == 26
    assert rules.royalties == preset("pagat").royalties


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("overall = 1\n", 'unknown key "overall"'),
        ('royalty_mode = "often"\n', "royalty_mode must be one of"),
        ("sweep_bonus = -1\n", "sweep_bonus must be a number >= 0"),
        ('sweep_bonus = "lots"\n', "sweep_bonus must be a number"),
        ("[royalties]\nfront_pair = 2\n", "royalties.front_pair is unknown"),
        ("[naturals]\nfive_kings = 2\n", "naturals.five_kings is unknown"),
        ("surrender = true\n", 'surrender must be false, "two-rows" or a number'),
        ('preset = "nope"\n', 'unknown preset "nope"'),
        ("this is = not toml =\n", "is not valid TOML"),
    ],
)
def test_bad_rules_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(RulesError, match=message):
        load_rules(path)


def test_missing_file_and_unknown_preset() -> None:
    with pytest.raises(RulesError, match="not found"):
        load_rules("no/such/rules.toml")
    with pytest.raises(RulesError, match='unknown preset "poker"'):
        load_rules("poker")


def test_royalty_lookup() -> None:
    from engine.hands import Category

    german = preset("german")
    assert german.royalty("back", Category.STRAIGHT_FLUSH, 14) == 5
    assert german.royalty("back", Category.STRAIGHT_FLUSH, 9) == 4
    assert german.royalty("middle", Category.STRAIGHT_FLUSH, 14) == 4
    assert rules_from_dict({}).royalty("front", Category.TRIPS, 5) == 0
