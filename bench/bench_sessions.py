"""Benchmark: several phones on one server. Real Streamlit server, real headless Chromium.

    python bench/bench_sessions.py [--sessions 8] [--uploads 60] [--app app.py] [--json]

Starts ``streamlit run APP`` (with CPOKER_TIMINGS=1, so the app logs where each run's time
goes) and one Debian Chromium with a separate browser context (a separate Streamlit
session) per phone, at 390x844. Two parts:

- together: every session uploads a photo at the same moment; answer time = from the
  upload to the page showing the cards read (the photo boxed, the cards listed). Reports
  the median and worst answer, and the server's phases (read, draw, solve, whole run)
  from its log;
- one session, many uploads: the same session uploads ``--uploads`` photos one after
  another; the server's resident memory (VmRSS of its process) is sampled every 10.

Photos: the committed scenes in tests/data/scenes (the reader finds 11-12 of their 13
cards today, so the page answers with the reading and its warning, without the solver;
bench/bench_app.py times the solver). The browsers run on the same machine as the
server, as in the issue's measurement, so their rendering competes for the same cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
SCENES = ROOT / "tests" / "data" / "scenes"
PHONE = {"width": 390, "height": 844}
TIMEOUT_MS = int(os.environ.get("CPOKER_BENCH_TIMEOUT_S", "300")) * 1000
TIMING = re.compile(r"cpoker-timing session=(\S+) phase=(\S+) ms=([\d.]+)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(app: Path, log: Path) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
           "CPOKER_TIMINGS": "1", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(app), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return process, url
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("the Streamlit server did not start within 120 s")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def open_session(browser, url: str):
    context = await browser.new_context(viewport=PHONE, device_scale_factor=2,
                                        is_mobile=True, has_touch=True)
    page = await context.new_page()
    await page.goto(url, wait_until="domcontentloaded")
    await page.get_by_text("Chinese Poker table assistant").first.wait_for(timeout=180_000)
    uploader = page.locator('[data-testid="stFileUploader"]').filter(
        has_text="A photo of your 13 cards").locator("input[type=file]")
    await uploader.wait_for(state="attached", timeout=180_000)
    return page, uploader


SHOWN_IMAGES = """() => Array.from(document.querySelectorAll('[data-testid="stImage"] img'))
  .map(img => img.src)"""


async def upload_and_wait(page, uploader, photo: Path) -> float:
    """Seconds from handing the photo to the page to the page showing its reading: a new
    photo (Streamlit serves each image at a new address) on the page, drawn with the
    cards read, which come in the same script run.
    (A phone loads an image below the fold lazily, so its pixels are not waited for.)"""
    before = await page.evaluate(SHOWN_IMAGES)
    start = time.perf_counter()
    await uploader.set_input_files(str(photo))
    await page.wait_for_function(
        """(before) => Array.from(
             document.querySelectorAll('[data-testid="stImage"] img')).some(
               img => !before.includes(img.src))""",
        arg=before, timeout=TIMEOUT_MS, polling=100)
    elapsed = time.perf_counter() - start
    print(f"answered {photo.name} in {elapsed:.2f} s", file=sys.stderr, flush=True)
    return elapsed


async def together(browser, url: str, sessions: int, photos: list[Path]) -> list[float]:
    opened = await asyncio.gather(*(open_session(browser, url) for _ in range(sessions)))
    return list(await asyncio.gather(*(
        upload_and_wait(page, uploader, photos[i % len(photos)])
        for i, (page, uploader) in enumerate(opened))))


async def one_session_many(browser, url: str, uploads: int, photos: list[Path], pid: int,
                           scratch: Path) -> tuple[list[float], list[tuple[int, float]]]:
    page, uploader = await open_session(browser, url)
    times, memory = [], [(0, rss_mb(pid))]
    for i in range(uploads):
        # A new file name each time, as a phone's camera gives.
        photo = scratch / f"upload-{i:03d}{photos[i % len(photos)].suffix}"
        photo.write_bytes(photos[i % len(photos)].read_bytes())
        await page.wait_for_timeout(200)
        times.append(await upload_and_wait(page, uploader, photo))
        photo.unlink()
        if (i + 1) % 10 == 0:
            memory.append((i + 1, rss_mb(pid)))
    return times, memory


def phases(log: Path, since: int = 0) -> dict[str, list[float]]:
    found: dict[str, list[float]] = defaultdict(list)
    for line in log.read_text(errors="replace").splitlines()[since:]:
        match = TIMING.search(line)
        if match:
            found[match[2]].append(float(match[3]))
    return found


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"n": len(ordered), "median": round(statistics.median(ordered), 3),
            "worst": round(ordered[-1], 3)} if ordered else {"n": 0}


async def run(args: argparse.Namespace) -> dict[str, object]:
    from playwright.async_api import async_playwright

    photos = sorted(SCENES.glob("*.jpg"))
    with tempfile.TemporaryDirectory() as scratch_dir:
        log = Path(scratch_dir) / "server.log"
        process, url = start_server(args.app, log)
        try:
            async with async_playwright() as handle:
                browser = await handle.chromium.launch(
                    executable_path=CHROMIUM, headless=True,
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                          "--disable-component-update", "--no-first-run"])
                # Warm: the first session loads the detector once for the server.
                warm_page, warm_uploader = await open_session(browser, url)
                await upload_and_wait(warm_page, warm_uploader, photos[0])
                await warm_page.context.close()
                memory_start = rss_mb(process.pid)
                lines_before = len(log.read_text(errors="replace").splitlines())
                answers = await together(browser, url, args.sessions, photos)
                server_phases = {name: summary(values) for name, values
                                 in phases(log, lines_before).items()}
                memory_after_together = rss_mb(process.pid)
                for context in browser.contexts:
                    await context.close()
                many, memory = await one_session_many(browser, url, args.uploads, photos,
                                                      process.pid, Path(scratch_dir))
                await browser.close()
        finally:
            process.terminate()
            process.wait(timeout=30)
    return {
        "app": str(args.app.relative_to(ROOT) if args.app.is_relative_to(ROOT) else args.app),
        "sessions": args.sessions,
        "together_answer_s": summary(answers),
        "together_server_phases_ms": server_phases,
        "server_rss_mb": {"warm": round(memory_start, 1),
                          "after_together": round(memory_after_together, 1)},
        "one_session_answer_s": summary(many),
        "one_session_rss_mb": [(n, round(mb, 1)) for n, mb in memory],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--uploads", type=int, default=60)
    parser.add_argument("--app", type=Path, default=ROOT / "app.py")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    args.app = args.app.resolve()
    result = asyncio.run(run(args))
    if args.json:
        print(json.dumps(result))
        return 0
    together_s, one = result["together_answer_s"], result["one_session_answer_s"]
    print(f"{args.sessions} sessions uploading at once: answer median "
          f"{together_s['median']:.2f} s, worst {together_s['worst']:.2f} s")
    for name, stats in result["together_server_phases_ms"].items():
        if stats["n"]:
            print(f"  server phase {name}: {stats['n']} runs, median {stats['median']:.0f} ms, "
                  f"worst {stats['worst']:.0f} ms")
    print(f"one session, {args.uploads} uploads: answer median {one['median']:.2f} s, "
          f"worst {one['worst']:.2f} s")
    print("server memory (MB): warm {warm}, after the {n} sessions {after}; over the uploads: "
          .format(warm=result["server_rss_mb"]["warm"], n=args.sessions,
                  after=result["server_rss_mb"]["after_together"])
          + ", ".join(f"{n}: {mb}" for n, mb in result["one_session_rss_mb"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
