"""The reader apart from its workshop: what runs for a user never imports what trains.

- no module of the reader (``vision`` outside ``vision.training``), nor ``cli`` or ``app``,
  imports the workshop, torch, ultralytics or the scene generator, at any depth;
- reading a photo end to end (``cpoker detect``) leaves none of them in ``sys.modules``;
- no two project modules import each other, and none uses another's underscore names.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, ROOT

HEAVY = ("torch", "torchvision", "ultralytics", "vision.training")
READER = sorted(p for p in (ROOT / "vision").glob("*.py"))
PACKAGES = ("engine", "vision")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_files() -> list[Path]:
    files = [ROOT / "cli.py", ROOT / "app.py"]
    for package in PACKAGES:
        files += sorted((ROOT / package).rglob("*.py"))
    return files


def imports_of(path: Path) -> list[tuple[str, list[str]]]:
    """(module, names taken from it) for every import in ``path``, relative ones resolved,
    including those inside functions."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[: len(parent) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            found.append((base, [alias.name for alias in node.names]))
    return found


def is_heavy(module: str) -> bool:
    return any(module == h or module.startswith(h + ".") for h in HEAVY)


@pytest.mark.parametrize("path", [*READER, ROOT / "cli.py", ROOT / "app.py"],
                         ids=lambda p: p.name)
def test_the_reader_imports_nothing_heavy(path: Path) -> None:
    heavy = [module for module, _ in imports_of(path) if is_heavy(module)]
    assert not heavy, f"{path.name} imports {heavy}: the reader must not import the workshop"


def test_no_two_modules_import_each_other() -> None:
    graph: dict[str, set[str]] = {}
    files = project_files()
    names = {module_name(p) for p in files}
    for path in files:
        targets = set()
        for module, taken in imports_of(path):
            # ``from vision import detector`` imports the module vision.detector.
            targets |= {f"{module}.{t}" for t in taken if f"{module}.{t}" in names}
            if module in names:
                targets.add(module)
        graph[module_name(path)] = targets - {module_name(path)}
    pairs = sorted({tuple(sorted((a, b))) for a, targets in graph.items() for b in targets
                    if a in graph.get(b, set())})
    # A package's __init__ and its own modules are not a cycle of two modules.
    pairs = [p for p in pairs if not p[1].startswith(p[0] + ".")]
    assert not pairs, f"modules importing each other: {pairs}"


def test_no_module_uses_another_modules_private_names() -> None:
    offences = []
    for path in project_files():
        for module, taken in imports_of(path):
            if module.split(".")[0] in (*PACKAGES, "cli", "app"):
                offences += [f"{module_name(path)} takes {module}.{t}" for t in taken
                             if t.startswith("_") and t != "__version__"]
    assert not offences, offences


def test_reading_a_photo_loads_neither_torch_nor_the_workshop() -> None:
    """``cpoker detect`` end to end, then a look at what was imported."""
    scene = sorted((DATA / "scenes").glob("*.jpg"))[0]
    script = (
        "import json, sys\n"
        "import cli\n"
        f"code = cli.main(['detect', {str(scene)!r}, '--json'])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('torch', 'torchvision', 'ultralytics') or m.startswith('vision.training'))\n"
        "print(json.dumps({'code': code, 'heavy': heavy}))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["code"] == 0, done.stderr
    assert result["heavy"] == [], f"reading a photo imported {result['heavy']}"
