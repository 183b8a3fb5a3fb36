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
