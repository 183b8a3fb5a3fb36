"""The detector's trainer where polars is missing, as on a lent GPU machine."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import pytest

from vision.training.offline import configure_environment
from vision.training.train_detector import _can_plot


def test_without_polars_the_results_are_read_with_the_csv_module(tmp_path, monkeypatch) -> None:
    configure_environment()
    trainer = pytest.importorskip("ultralytics.engine.trainer")
    # Put ultralytics' own reader back after the test, whatever _can_plot does to it.
    monkeypatch.setattr(trainer.BaseTrainer, "read_results_csv",
                        trainer.BaseTrainer.read_results_csv)
    monkeypatch.setitem(sys.modules, "polars", None)  # import polars -> ImportError
    assert _can_plot() is False
    results = tmp_path / "results.csv"
    results.write_text("epoch, time,metrics/recall(B)\n1,511.2,0.97345\n2,1006.1,0.98039\n")
    read = trainer.BaseTrainer.read_results_csv(SimpleNamespace(csv=results))
    assert read == {"epoch": [1.0, 2.0], "time": [511.2, 1006.1],
                    "metrics/recall(B)": [0.97345, 0.98039]}


def test_a_teacher_is_handed_to_the_trainer_as_its_distillation_model(tmp_path,
                                                                      monkeypatch) -> None:
    # --teacher makes the run learn the teacher's features too (ultralytics'
    # distill_model); without it the trainer is called exactly as before.
    configure_environment()
    ultralytics = pytest.importorskip("ultralytics")
    from vision.training import train_detector

    calls: list[dict] = []

    class Recorder:
        def __init__(self, source: str) -> None:
            self.source = source

        def train(self, **options) -> None:
            calls.append(options)

    monkeypatch.setattr(ultralytics, "YOLO", Recorder)
    data = tmp_path / "data.yaml"
    data.write_text("train: x\nval: x\nnc: 1\nnames: ['corner']\n")
    common = ["--name", "t", "--data", str(data), "--weights", str(tmp_path / "thin.pt"),
              "--epochs", "1", "--single-cls"]
    assert train_detector.main([*common, "--teacher", "models/cards.pt"]) == 0
    assert train_detector.main(common) == 0
    assert calls[0]["distill_model"] == "models/cards.pt"
    assert "distill_model" not in calls[1]
    assert {k: v for k, v in calls[0].items() if k != "distill_model"} == calls[1]
