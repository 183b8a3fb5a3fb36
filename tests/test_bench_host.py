"""The host line the benchmarks print beside their figures (bench/host.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from conftest import ROOT


def _host_module():
    spec = importlib.util.spec_from_file_location("bench_host", ROOT / "bench" / "host.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_first_processor_names_the_host_and_its_kernel_instructions(tmp_path: Path):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n"
        "model name\t: AMD EPYC\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n\n"
        "processor\t: 1\nmodel name\t: another\nflags\t\t: fpu\n\n")
    line = _host_module().host_line(cpuinfo)
    assert line.startswith("host: AMD EPYC (family 26, model 2), ")
    assert line.endswith(" CPUs, avx512_vnni avx512f avx2")


def test_a_host_without_those_instructions_or_cpuinfo_still_gets_a_line(tmp_path: Path):
    host = _host_module()
    bare = tmp_path / "cpuinfo"
    bare.write_text("processor\t: 0\nmodel name\t: Old\nflags\t\t: fpu sse2\n")
    assert host.host_line(bare).endswith("none of avx512_vnni/avx_vnni/avx512f/avx2")
    assert host.host_line(tmp_path / "missing").startswith("host: ")
