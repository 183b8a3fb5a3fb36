"""One way to open an ONNX model for the reader: onnxruntime on the CPU, a fixed number of
threads, and no spinning between calls (an idle app must not hold the CPU cores a photo
or another player's session needs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def cpu_session(weights: Path | bytes, threads: int = 2) -> Any:  # -> ort.InferenceSession
    """``weights``: the model's file, or the model itself serialised (the workshop builds
    some in memory). Raises onnxruntime's own exceptions for a missing or unusable file:
    the caller says which model it was."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # Errors only: a learned deck's adaptable classifier feeds its batch norms' statistics
    # as inputs, which onnxruntime warns about on every opening (vision.classifier).
    options.log_severity_level = 3
    model = weights if isinstance(weights, bytes) else str(weights)
    return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
