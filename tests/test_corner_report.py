"""The corner tally: each labelled corner falls under exactly one outcome."""

from __future__ import annotations

import numpy as np

from vision.training.corner_report import corner_outcome, main

LABEL = np.array([100.0, 100.0, 120.0, 130.0])


def outcome(boxes: list[list[float]], box_conf: list[float], names: list[str],
            name_conf: list[float]) -> str:
    return corner_outcome(LABEL, "As", np.array(boxes, np.float32).reshape(-1, 4),
                          np.array(box_conf, np.float32), names, np.array(name_conf),
                          conf=0.25, lone_conf=0.85)


def test_each_outcome() -> None:
    assert outcome([], [], [], []) == "not boxed"
    assert outcome([[300, 300, 320, 330]], [0.9], ["As"], [0.99]) == "not boxed"
    assert outcome([[101, 101, 121, 131]], [0.1], ["As"], [0.99]) == "faint"
    assert outcome([[101, 101, 121, 131]], [0.9], ["Ks"], [0.99]) == "named wrong"
    assert outcome([[101, 101, 121, 131]], [0.9], ["As"], [0.6]) == "named right, unsure"
    assert outcome([[101, 101, 121, 131]], [0.9], ["As"], [0.9]) == "named right"


def test_the_best_overlapping_box_decides() -> None:
    boxes = [[110, 110, 130, 140], [100, 100, 120, 130]]
    assert outcome(boxes, [0.9, 0.9], ["Ks", "As"], [0.99, 0.99]) == "named right"


def test_a_folder_without_data_yaml_is_refused(tmp_path, capsys) -> None:
    assert main([str(tmp_path)]) == 2
    assert "has no data.yaml" in capsys.readouterr().err
