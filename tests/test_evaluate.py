"""vision.training.evaluate's scoring and its breakdown by the generator's manifest."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from engine.cards import CARD_NAMES
from vision.detections import Detections
from vision.detector import default_model
from vision.training.evaluate import (
    FATES,
    GATE_FATES,
    WRONG_FATES,
    Scores,
    camera_group,
    gate_fate,
    group_of,
    missed_card_fate,
    opened_gates,
    wrong_card_fate,
)


def test_scores_count_cards_and_photos() -> None:
    scores = Scores()
    scores.add("a.jpg", {"As", "Kd"}, {"As", "Kd"}, 0.05)
    scores.add("b.jpg", {"As", "7d"}, {"As", "Jd", "2c"}, 0.07)
    assert (scores.precision, scores.recall, scores.exact_rate) == (3 / 4, 3 / 5, 1 / 2)
    assert scores.misses == [{"image": "b.jpg", "missed": ["2c", "Jd"], "wrong": ["7d"]}]


def test_a_missed_card_is_lost_where_its_corners_say() -> None:
    corners = [(100.0, 100.0, 120.0, 130.0), (300.0, 400.0, 320.0, 430.0)]
    on_it = (102.0, 101.0, 121.0, 129.0)  # overlaps the first corner well
    elsewhere = (600.0, 600.0, 620.0, 630.0)
    unsure, misnamed, merged, none = FATES
    # Left in doubt wins over what its corners read.
    assert missed_card_fate("Qs", corners, [("Qc", on_it)], {"Qs"}) == unsure
    assert missed_card_fate("Qs", corners, [("Qc", on_it), ("Qs", elsewhere)], set()) \
        == misnamed
    assert missed_card_fate("Qs", corners, [("Qs", on_it), ("Qc", on_it)], set()) == merged
    assert missed_card_fate("Qs", corners, [("Qs", elsewhere)], {"Kd"}) == none
    assert missed_card_fate("Qs", [], [("Qs", on_it)], set()) == none


def _named(boxes: list[tuple[float, float, float, float]],
           readings: list[dict[str, float]]) -> Detections:
    """Named corners at ``boxes``, each with the 52-way probabilities ``readings`` give
    (card -> probability, the rest spread evenly)."""
    probabilities = np.zeros((len(boxes), 52), np.float32)
    for row, reading in zip(probabilities, readings, strict=True):
        rest = (1.0 - sum(reading.values())) / (52 - len(reading))
        row[:] = rest
        for card, p in reading.items():
            row[CARD_NAMES.index(card)] = p
    return Detections(np.array(boxes, np.float32), probabilities.max(axis=1),
                      probabilities.argmax(axis=1).astype(np.int64), CARD_NAMES, probabilities)


def test_a_missed_card_is_lost_at_the_gate_its_open_reading_says() -> None:
    corner = (100.0, 100.0, 120.0, 130.0)
    on_it = (101.0, 101.0, 121.0, 129.0)
    beside = (111.0, 101.0, 131.0, 129.0)  # a fan's neighbour: half over it, another card
    elsewhere = (600.0, 600.0, 620.0, 630.0)
    none, wrong, second, lone, gated, folded, merged = GATE_FATES
    right = _named([on_it], [{"Qs": 0.7, "Qc": 0.2}])
    assert gate_fate("Qs", [corner], _named([elsewhere], [{"Qs": 0.9}]), None, set()) == none
    assert gate_fate("Qs", [], right, None, set()) == none
    assert gate_fate("Qs", [corner], _named([on_it], [{"Kd": 0.6, "Qh": 0.3}]), None,
                     set()) == wrong
    assert gate_fate("Qs", [corner], _named([on_it], [{"Qc": 0.6, "Qs": 0.3}]), None,
                     set()) == second
    assert gate_fate("Qs", [corner], right, None, {"Qs"}) == lone
    # Named right with every gate open, and no corner of that name kept there.
    assert gate_fate("Qs", [corner], right, _named([elsewhere], [{"Qs": 0.9}]), set()) \
        == gated
    # Kept, and folded into a surer neighbour that half covers it.
    kept = _named([on_it, beside], [{"Qs": 0.7}, {"8h": 0.95}])
    assert gate_fate("Qs", [corner], right, kept, set()) == folded
    assert gate_fate("Qs", [corner], right, _named([on_it], [{"Qs": 0.7}]), set()) == merged


def test_opened_gates_open_every_naming_bar_and_nothing_else() -> None:
    shipped = default_model()
    opened = opened_gates(shipped)
    assert (opened.min_class_conf, opened.faint_class_conf, opened.photo_min_index) == \
        (0.0, 0.0, 0.0)
    assert (opened.conf, opened.min_lone_conf, opened.weights) == \
        (shipped.conf, shipped.min_lone_conf, shipped.weights)


def test_a_card_read_but_not_there_is_told_by_where_it_was_read() -> None:
    labels = [(100.0, 100.0, 120.0, 130.0), (300.0, 400.0, 320.0, 430.0)]
    on_a_label = (102.0, 101.0, 121.0, 129.0)
    elsewhere = (600.0, 600.0, 620.0, 630.0)
    misread, off_labels = WRONG_FATES
    assert wrong_card_fate("Qs", [("Qs", on_a_label)], labels) == misread
    # A corner of another name on a label says nothing about where Qs was read.
    assert wrong_card_fate("Qs", [("Qc", on_a_label), ("Qs", elsewhere)], labels) == off_labels
    assert wrong_card_fate("Qs", [("Qs", on_a_label)], []) == off_labels


def test_camera_group_names_the_worst_thing_the_camera_did() -> None:
    sharp = {"blur": "0", "motion": "0", "resolution": "1"}
    assert camera_group(sharp) == "sharp"
    assert camera_group({**sharp, "blur": "0.8"}) == "blur"
    assert camera_group({**sharp, "blur": "0.8", "resolution": "0.6"}) == "low resolution"
    assert camera_group({**sharp, "motion": "5", "resolution": "0.6"}) == "motion"
    assert camera_group({"deck": "x"}) == "unknown"  # a manifest from before the columns


def test_group_of_reads_the_manifest(tmp_path: Path) -> None:
    with (tmp_path / "manifest.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["image", "deck", "blur", "motion", "resolution"])
        writer.writerow(["images/val/a.jpg", "kde-standard", "0", "3", "1"])
        writer.writerow(["images/val/b.jpg", "kde-jolly-royal", "0", "0", "1"])
    assert group_of(tmp_path, "deck") == {"images/val/a.jpg": "kde-standard",
                                          "images/val/b.jpg": "kde-jolly-royal"}
    assert group_of(tmp_path, "camera") == {"images/val/a.jpg": "motion",
                                            "images/val/b.jpg": "sharp"}
    assert group_of(tmp_path / "missing", "deck") == {}


def test_a_rows_cell_is_three_rows_of_thirteen_distinct_cards() -> None:
    from vision.training.labels import parse_hand_rows

    cell = "front 6d 7c Qh; middle Kh Th Ad 9c 2c; back 4d 6c 8h 9s Ts"
    assert parse_hand_rows(cell) == {"front": {"6d", "7c", "Qh"},
                                     "middle": {"Kh", "Th", "Ad", "9c", "2c"},
                                     "back": {"4d", "6c", "8h", "9s", "Ts"}}
    assert parse_hand_rows("") is None
    for bad, says in (("front 6d 7c; middle Kh Th Ad 9c 2c; back 4d 6c 8h 9s Ts", "2 cards"),
                      ("front 6d 7c Qh; middle Kh Th Ad 9c 2c; side 4d 6c 8h 9s Ts", "'side'"),
                      ("front 6d 7c Qh; middle Kh Th Ad 9c 2c", "three rows"),
                      ("front 6d 7c Qh; middle Kh Th Ad 9c 2c; back 4d 6c 8h 9s 6d",
                       "three rows of 13 distinct")):
        with pytest.raises(ValueError, match=says):
            parse_hand_rows(bad, "x.jpg")


def test_rows_count_only_where_every_card_shows_and_grouping_is_told_apart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """evaluate's rows: a scene read with its cards and rows right, one with its cards right
    and two rows swapped, one with a card hidden (not counted), one not in rows."""
    from types import SimpleNamespace

    from vision.reading import CardReading, Rows
    from vision.training import evaluate as evaluation

    front, middle, back = ["6d", "7c", "Qh"], ["Kh", "Th", "Ad", "9c", "2c"], \
        ["4d", "6c", "8h", "9s", "Ts"]
    cell = f"front {' '.join(front)}; middle {' '.join(middle)}; back {' '.join(back)}"
    shown = {"right": front + middle + back, "swapped": front + middle + back,
             "hidden": front + middle + back[:4], "spread": front + middle + back}
    (tmp_path / "data.yaml").write_text("names:\n" + "".join(
        f"  {i}: '{name}'\n" for i, name in enumerate(CARD_NAMES)))
    for split in ("images", "labels"):
        (tmp_path / split / "val").mkdir(parents=True)
    with (tmp_path / "manifest.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["image", "layout", "rows"])
        for name, cards in shown.items():
            (tmp_path / "images" / "val" / f"{name}.jpg").write_bytes(b"")
            (tmp_path / "labels" / "val" / f"{name}.txt").write_text("".join(
                f"{CARD_NAMES.index(card)} 0.5 0.5 0.01 0.01\n" for card in cards))
            writer.writerow([f"images/val/{name}.jpg", "spread" if name == "spread" else "rows",
                             "" if name == "spread" else cell])

    def cards_of(names: list[str]) -> list[CardReading]:
        return [CardReading(card, 0.99, (0.0, 0.0, 1.0, 1.0), 2, ()) for card in names]

    def read(path: object, *_: object, **__: object) -> SimpleNamespace:
        name = Path(str(path)).stem
        rows = Rows(cards_of(front), cards_of(back), cards_of(middle)) if name == "swapped" \
            else Rows(cards_of(front), cards_of(middle), cards_of(back))
        return SimpleNamespace(card_names=shown[name], rows=rows)

    monkeypatch.setattr(evaluation, "read_photo", read)
    scores = evaluation.evaluate(tmp_path, detector=None, by="layout")
    assert (scores.photos, scores.exact) == (4, 4)
    assert (scores.rows_scenes, scores.rows_right, scores.rows_cards_right) == (2, 1, 2)
    assert scores.to_dict()["rows_right"] == 0.5
    # A manifest without readability says nothing of the readable rows.
    assert "readable_rows_right" not in scores.to_dict()
    # With it, the rows scenes whose cards can all be read are scored again: here the
    # swapped hand shows its 2c as a suit alone.
    with (tmp_path / "manifest.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["image", "layout", "rows", "unreadable"])
        for name in shown:
            writer.writerow([f"images/val/{name}.jpg", "spread" if name == "spread" else "rows",
                             "" if name == "spread" else cell,
                             "2c" if name == "swapped" else ""])
    again = evaluation.evaluate(tmp_path, detector=None)
    assert (again.readable_rows_scenes, again.readable_rows_right) == (1, 1)
    assert again.to_dict()["readable_rows_right"] == 1.0
    assert scores.groups["rows"].rows_scenes == 2
    assert "rows_scenes" not in scores.groups["spread"].to_dict()
    assert evaluation.rows_right({"front": frozenset(front)}, None) is False


@pytest.mark.parametrize("flag", ["--fates", "--gates"])
def test_fates_are_refused_on_a_set_labelled_by_whole_cards(
        tmp_path: Path, flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    # real-photos-dev boxes whole cards: a missed card's fate was counted "no box" where
    # the reader did box its sideways index (session 60), the labels holding no corner.
    from vision.training import evaluate as evaluation

    names = "".join(f"  {i}: {name}\n" for i, name in enumerate(CARD_NAMES))
    (tmp_path / "data.yaml").write_text(
        "# whole-card boxes; class names in the project notation\npath: .\nnames:\n" + names)
    assert evaluation.main([str(tmp_path), flag]) == 2
    said = capsys.readouterr().err
    assert "whole-card boxes" in said and flag in said and "corner index" in said


def test_only_a_set_that_says_so_counts_as_labelled_by_whole_cards(tmp_path: Path) -> None:
    from vision.training.labels import whole_card_labels

    (tmp_path / "data.yaml").write_text("# corner-index boxes (the rank+suit symbols)\n"
                                        "names: [As, Ah]\n")
    assert not whole_card_labels(tmp_path)
    (tmp_path / "data.yaml").write_text("names: [As, Ah]  # whole-card boxes\n")
    assert not whole_card_labels(tmp_path)  # a value's trailing remark is no header
    (tmp_path / "data.yaml").write_text("  # Whole-card boxes\nnames: [As, Ah]\n")
    assert whole_card_labels(tmp_path)


def test_scenes_right_are_also_counted_among_those_whose_every_card_can_be_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scene read right, one read wrong, and one with a card showing its suit alone
    (read without it: wrong as labelled, not counted among the readable scenes)."""
    from types import SimpleNamespace

    from vision.training import evaluate as evaluation

    hand = ["6d", "7c", "Qh"]
    (tmp_path / "data.yaml").write_text("names:\n" + "".join(
        f"  {i}: '{name}'\n" for i, name in enumerate(CARD_NAMES)))
    for split in ("images", "labels"):
        (tmp_path / split / "val").mkdir(parents=True)
    read_as = {"right": hand, "wrong": [*hand[:2], "Qd"], "hidden": hand[:2]}
    with (tmp_path / "manifest.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["image", "layout", "unreadable"])
        for name in read_as:
            (tmp_path / "images" / "val" / f"{name}.jpg").write_bytes(b"")
            (tmp_path / "labels" / "val" / f"{name}.txt").write_text("".join(
                f"{CARD_NAMES.index(card)} 0.5 0.5 0.01 0.01\n" for card in hand))
            writer.writerow([f"images/val/{name}.jpg", "fan", "Qh" if name == "hidden" else ""])

    def read(path: object, *_: object, **__: object) -> SimpleNamespace:
        return SimpleNamespace(card_names=read_as[Path(str(path)).stem], rows=None)

    monkeypatch.setattr(evaluation, "read_photo", read)
    scores = evaluation.evaluate(tmp_path, detector=None, by="layout")
    assert (scores.photos, scores.exact) == (3, 1)
    assert (scores.readable_scenes, scores.readable_right) == (2, 1)
    assert scores.to_dict()["readable_right"] == 0.5
    assert scores.groups["fan"].readable_scenes == 2
    # Where each missed Qh was lost, and which of them no one could read: both readings
    # kept no corner, and the hidden scene's Qh is the unreadable one.
    def read_kept_nothing(path: object, *_: object, **__: object) -> SimpleNamespace:
        return SimpleNamespace(card_names=read_as[Path(str(path)).stem], rows=None,
                               size=(100, 100), doubtful=[], detections=None)

    monkeypatch.setattr(evaluation, "read_photo", read_kept_nothing)
    scores = evaluation.evaluate(tmp_path, detector=None, fates=True)
    assert scores.fates["no corner kept"] == 2
    assert scores.unreadable_fates["no corner kept"] == 1
    # A manifest drawn before the column existed says nothing of it.
    (tmp_path / "manifest.csv").write_text("image,layout\n" + "".join(
        f"images/val/{name}.jpg,fan\n" for name in read_as))
    assert "readable_scenes" not in evaluation.evaluate(tmp_path, detector=None).to_dict()
