"""Where a session's time goes: with CPOKER_TIMINGS=1 in the server's environment, each
phase of a script run (reading the photo, solving, drawing, the whole run) is logged to
stderr as one line, ``cpoker-timing session=ID phase=NAME ms=N``, which
bench/bench_sessions.py reads. Off, it costs one environment lookup."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

ENABLED = os.environ.get("CPOKER_TIMINGS") == "1"


def _session_id() -> str:
    try:
        from streamlit.runtime.scriptrunner import get_script_run_ctx

        ctx = get_script_run_ctx()
    except ImportError:
        ctx = None
    return ctx.session_id if ctx is not None else "-"


@contextmanager
def phase(name: str) -> Iterator[None]:
    if not ENABLED:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        ms = 1000 * (time.perf_counter() - start)
        print(f"cpoker-timing session={_session_id()} phase={name} ms={ms:.1f}",
              file=sys.stderr, flush=True)
