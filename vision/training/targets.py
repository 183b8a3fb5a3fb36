"""Where issues 13's and 14's targets stand: every target beside today's figure.

    python -m vision.training.targets run DIR [--only NAME ...] [--lodo LODO_DIR]
    python -m vision.training.targets table DIR [--lodo LODO_DIR] [--json]

The targets and the readings that check them are data (``targets.toml`` beside this
module): each reading is a command of the workshop (``evaluate --json``, the benchmarks'
``--json``, ``deck_report``) whose last line of output is a JSON object. ``run`` runs the
readings that ``DIR`` does not hold yet, one after another, and keeps each as
``DIR/NAME.json`` only when its command succeeded, so a stopped run goes on where it
stopped; ``table`` prints the table from what is there. A reading whose set is absent, or
not run, leaves its targets "not read" and says how to make it: no figure is guessed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGETS_FILE = Path(__file__).with_name("targets.toml")
READING_KEYS = {"command", "file", "needs", "draw"}
TARGET_KEYS = {"issue", "what", "reading", "figure", "at_least", "at_most"}


class TargetsError(ValueError):
    """A targets file, a reading or a folder that cannot be used; the message says why."""


@dataclass(frozen=True)
class Reading:
    """How one reading is made: a command (arguments after ``python``), or a file another
    tool wrote (``{lodo}`` standing for tools/lodo.sh's folder)."""

    name: str
    command: tuple[str, ...] = ()
    file: str = ""
    needs: str = ""
    draw: str = ""

    def command_line(self) -> str:
        return "python " + " ".join(self.command) if self.command else self.file


@dataclass(frozen=True)
class Target:
    issue: int
    what: str
    reading: str
    figure: str
    at_least: float | None = None
    at_most: float | None = None

    def met(self, value: float) -> bool:
        if self.at_least is not None:
            return value >= self.at_least
        assert self.at_most is not None
        return value <= self.at_most

    def bound(self) -> str:
        return f">= {self.at_least:g}" if self.at_least is not None else f"<= {self.at_most:g}"


def load_targets(path: Path = TARGETS_FILE) -> tuple[dict[str, Reading], list[Target]]:
    """The readings by name and the targets, checked: an unknown key, a target naming no
    reading, or one with both bounds or neither raises TargetsError naming the entry."""
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise TargetsError(f"{path}: {error}") from None
    unknown = set(data) - {"readings", "targets"}
    if unknown:
        raise TargetsError(f"{path}: unknown tables {sorted(unknown)} (readings, targets)")
    readings = {}
    for name, entry in data.get("readings", {}).items():
        where = f"{path.name}: reading {name!r}"
        extra = set(entry) - READING_KEYS
        if extra:
            raise TargetsError(f"{where}: unknown keys {sorted(extra)} ({sorted(READING_KEYS)})")
        if bool(entry.get("command")) == bool(entry.get("file")):
            raise TargetsError(f"{where}: give a command or a file, one of them")
        command = entry.get("command", [])
        if not isinstance(command, list) or not all(isinstance(a, str) for a in command):
            raise TargetsError(f"{where}: command is a list of arguments after python")
        readings[name] = Reading(name, tuple(command), entry.get("file", ""),
                                 entry.get("needs", ""), entry.get("draw", ""))
    targets = []
    for number, entry in enumerate(data.get("targets", []), start=1):
        where = f"{path.name}: target {number} ({entry.get('what', '?')!r})"
        extra = set(entry) - TARGET_KEYS
        missing = {"issue", "what", "reading", "figure"} - set(entry)
        if extra or missing:
            raise TargetsError(f"{where}: unknown keys {sorted(extra)}, missing {sorted(missing)}")
        if entry["reading"] not in readings:
            raise TargetsError(f"{where}: no reading named {entry['reading']!r}")
        if ("at_least" in entry) == ("at_most" in entry):
            raise TargetsError(f"{where}: give at_least or at_most, one of them")
        targets.append(Target(int(entry["issue"]), str(entry["what"]), str(entry["reading"]),
                              str(entry["figure"]), entry.get("at_least"),
                              entry.get("at_most")))
    return readings, targets


def figure_of(result: Mapping[str, object], figure: str) -> float | None:
    """``figure`` (dotted keys, a last key "f1" worked out from the card precision and
    recall beside it) of a reading's JSON; None where the reading does not hold it."""
    *path, last = figure.split(".")
    node: object = result
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            return None
        node = node[key]
    if not isinstance(node, Mapping):
        return None
    if last == "f1":
        precision, recall = node.get("card_precision"), node.get("card_recall")
        if not isinstance(precision, int | float) or not isinstance(recall, int | float):
            return None
        return 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    value = node.get(last)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else None


def _source(reading: Reading, out: Path, lodo: Path | None) -> Path | None:
    """Where ``reading``'s JSON lies (None: a lodo file, and no --lodo given)."""
    if reading.file:
        return None if lodo is None else Path(reading.file.replace("{lodo}", str(lodo)))
    return out / f"{reading.name}.json"


def load_result(path: Path) -> dict[str, object]:
    try:
        result = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise TargetsError(f"{path}: not JSON ({error})") from None
    if not isinstance(result, dict):
        raise TargetsError(f"{path}: not a JSON object")
    return result


@dataclass(frozen=True)
class Standing:
    target: Target
    value: float | None
    why_not: str = ""  # when value is None: why it was not read
    read_at: str = ""  # when its reading was written (the file's time), if it was

    def verdict(self) -> str:
        if self.value is None:
            return f"not read: {self.why_not}"
        return "**met**" if self.target.met(self.value) else "not met"

    def shown(self) -> str:
        if self.value is None:
            return "-"
        if self.target.at_most is not None and self.target.at_most >= 10:
            return f"{self.value:.1f}"
        return f"{self.value:.4f}" if self.value < 10 else f"{self.value:.1f}"


def standings(readings: Mapping[str, Reading], targets: Sequence[Target], out: Path,
              lodo: Path | None = None) -> list[Standing]:
    """Each target with its figure from the readings in ``out`` (and ``lodo``)."""
    results: dict[str, dict[str, object] | str] = {}
    written: dict[str, str] = {}
    for name, reading in readings.items():
        path = _source(reading, out, lodo)
        if path is None:
            results[name] = f"give --lodo DIR ({reading.draw})"
        elif not path.is_file():
            results[name] = f"no {path.name} ({reading.draw or 'run it'})" if reading.file \
                else f"run `python -m vision.training.targets run {out} --only {name}`"
        else:
            results[name] = load_result(path)
            written[name] = time.strftime("%Y-%m-%d %H:%M", time.localtime(path.stat().st_mtime))
    found = []
    for target in targets:
        result = results[target.reading]
        if isinstance(result, str):
            found.append(Standing(target, None, result))
            continue
        value = figure_of(result, target.figure)
        # A set drawn before its manifest recorded a figure (rows, readable cards) holds
        # none: drawn again, it does.
        draw = readings[target.reading].draw
        found.append(Standing(target, value, "" if value is not None else
                              f"{target.reading} holds no {target.figure}"
                              + (f" (drawn before it was recorded? {draw})" if draw else ""),
                              written[target.reading]))
    return found


def table(found: Sequence[Standing], readings: Mapping[str, Reading]) -> str:
    lines = ["| issue | target | reading | figure | bound | verdict |",
             "| --- | --- | --- | --- | --- | --- |"]
    for standing in found:
        target = standing.target
        lines.append(f"| {target.issue} | {target.what} | `{target.reading}` | "
                     f"{standing.shown()} | {target.bound()} | {standing.verdict()} |")
    met = sum(s.value is not None and s.target.met(s.value) for s in found)
    read = sum(s.value is not None for s in found)
    lines += ["", f"{met} of {read} targets read are met ({len(found) - read} not read).", "",
              "Readings:", ""]
    used = {s.target.reading: s.read_at for s in found}
    lines += [f"- `{name}`: `{readings[name].command_line()}`"
              + (f" (read {when})" if when else "") for name, when in used.items()]
    return "\n".join(lines)


def run_readings(readings: Mapping[str, Reading], out: Path, only: Sequence[str] = (),
                 python: str = sys.executable, root: Path = ROOT) -> list[str]:
    """Run the command readings ``out`` lacks (of ``only`` when given), each from
    ``root``; keep each result as ``out/NAME.json`` only when its command succeeded and
    its last line is a JSON object. Returns what happened to each, in words."""
    unknown = [name for name in only if name not in readings]
    if unknown:
        raise TargetsError(f"unknown readings {unknown}: known {sorted(readings)}")
    out.mkdir(parents=True, exist_ok=True)
    said = []
    for name, reading in readings.items():
        if (only and name not in only) or not reading.command:
            continue
        path = out / f"{name}.json"
        if path.is_file():
            said.append(f"{name}: have {path}")
            continue
        if reading.needs and not (root / reading.needs).exists():
            said.append(f"{name}: not read, {reading.needs} is absent ({reading.draw})")
            continue
        print(f"== {time.strftime('%H:%M:%S')} {name}: {reading.command_line()}",
              file=sys.stderr, flush=True)
        done = subprocess.run([python, *reading.command], cwd=root, capture_output=True,
                              text=True)
        lines = done.stdout.strip().splitlines()
        try:
            result = json.loads(lines[-1]) if lines else None
        except json.JSONDecodeError:
            result = None
        if done.returncode != 0 or not isinstance(result, dict):
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            said.append(f"{name}: FAILED (exit {done.returncode}): {tail}")
            continue
        scratch = path.with_suffix(".part")
        scratch.write_text(json.dumps(result) + "\n")
        scratch.replace(path)
        said.append(f"{name}: read")
    return said


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.training.targets",
                                     description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the readings DIR lacks, then print the table")
    run.add_argument("dir", type=Path)
    run.add_argument("--only", nargs="+", default=(), metavar="NAME")
    shown = commands.add_parser("table", help="print the table of DIR's readings")
    shown.add_argument("dir", type=Path)
    shown.add_argument("--json", action="store_true")
    for command in (run, shown):
        command.add_argument("--lodo", type=Path, default=None,
                             help="tools/lodo.sh's folder, for issue 14's held-out decks")
        command.add_argument("--targets", type=Path, default=TARGETS_FILE,
                             help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        readings, targets = load_targets(args.targets)
        if args.command == "run":
            for line in run_readings(readings, args.dir, args.only):
                print(line, file=sys.stderr)
        elif not args.dir.is_dir():
            raise TargetsError(f"{args.dir} is not a folder: run `python -m "
                               f"vision.training.targets run {args.dir}` first")
        found = standings(readings, targets, args.dir, args.lodo)
    except TargetsError as error:
        print(f"targets: {error}", file=sys.stderr)
        return 2
    if getattr(args, "json", False):
        print(json.dumps([{"issue": s.target.issue, "what": s.target.what,
                           "reading": s.target.reading, "figure": s.target.figure,
                           "value": s.value, "bound": s.target.bound(),
                           "verdict": s.verdict().strip("*")} for s in found]))
    else:
        print(table(found, readings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
