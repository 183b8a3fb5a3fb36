"""The machine a benchmark ran on, printed beside its figures.

``bench_vision --mode live`` gave 64.6-70.6 ms a 640x480 frame on 2026-11-29 and 17.5 ms
on 2026-11-30, on hosts of the same size (2 cores, 24 GiB) but not, it seems, the same
processor. onnxruntime picks its int8 and float kernels by the instructions the processor
has (VNNI for int8 dot products, AVX-512, AVX2), so a figure is comparable only with
figures from a host this line describes alike."""

from __future__ import annotations

import os
import platform
from pathlib import Path

# The instruction sets the networks' kernels choose between, newest first.
KERNEL_FLAGS = ("avx512_vnni", "avx_vnni", "avx512f", "avx2")


def host_line(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """One line: the processor's name, family and model, the CPUs this process may use,
    and which of ``KERNEL_FLAGS`` it has. Where /proc/cpuinfo is unreadable (not Linux),
    what ``platform`` knows."""
    fields: dict[str, str] = {}
    try:
        for line in cpuinfo.read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if not key:
                break  # the first processor's block is enough
            fields.setdefault(key, value.strip())
    except OSError:
        pass
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    name = fields.get("model name") or platform.processor() or platform.machine()
    family = fields.get("cpu family")
    model = fields.get("model")
    flags = set(fields.get("flags", "").split())
    kernels = [flag for flag in KERNEL_FLAGS if flag in flags]
    ident = f" (family {family}, model {model})" if family and model else ""
    return (f"host: {name}{ident}, {cpus} CPUs, "
            f"{' '.join(kernels) if kernels else 'none of ' + '/'.join(KERNEL_FLAGS)}")


if __name__ == "__main__":
    print(host_line())
