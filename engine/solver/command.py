"""``cpoker solve``: the solver on the command line (registered by ``cli.py``).

    cpoker solve CARDS [--rules PRESET] [--players N] [--top N] [--json]
    cpoker solve --batch FILE|- [--rules PRESET] [--players N] [--json]

Batch mode reads one hand a line and writes one JSON object a line, in order; a line
that cannot be solved gets ``{"error": "..."}`` and the batch goes on. Bad input
otherwise exits with status 2 and a one-line message on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from typing import TextIO

from ..cards import CardError, format_cards, parse_cards
from ..rules import DEFAULT_PRESET, Rules, RulesError, load_rules
from .core import Advice, solve

EXIT_BAD_INPUT = 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("cards", nargs="*", metavar="CARDS",
                        help='13 cards, e.g. "As Ks Qs Js 6s 5s 3s Qh 9h 2h Jd 8c 3c"')
    parser.add_argument("--batch", metavar="FILE", default=None,
                        help="solve one hand a line from FILE (- for stdin); "
                             "writes one JSON object a line")
    parser.add_argument("--rules", metavar="PRESET", default=None,
                        help=f"preset name or rules file (default {DEFAULT_PRESET})")
    # Parsed as text and checked in run(), so a bad value is a one-line message.
    parser.add_argument("--players", metavar="N", default="2",
                        help="players at the table, 2-4 (default 2)")
    parser.add_argument("--top", metavar="N", default="3",
                        help="how many settings to show (default 3)")
    parser.add_argument("--json", action="store_true", help="print JSON")


class _BadInput(ValueError):
    pass


def _whole(value: str, name: str, low: int, high: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise _BadInput(f"{name} must be a whole number from {low} to {high}, "
                        f"got {value!r}") from None
    if not low <= number <= high:
        raise _BadInput(f"{name} must be from {low} to {high}, got {number}")
    return number


def solve_line(line: str, rules: Rules, players: int, top: int = 3) -> dict[str, object]:
    """One batch line to one JSON-ready object (an error object for a bad line)."""
    try:
        if not line.strip():
            raise CardError("empty line: expected 13 cards")
        return solve(parse_cards(line, 13), rules, players, top).to_dict()
    except CardError as error:
        return {"error": str(error)}


def solve_lines(lines: Iterable[str], rules: Rules, players: int,
                top: int = 3) -> Iterator[str]:
    """The batch: one JSON line out for each line in (line endings stripped)."""
    for line in lines:
        yield json.dumps(solve_line(line.rstrip("\r\n"), rules, players, top))


def run(args: argparse.Namespace) -> int:
    try:
        players = _whole(args.players, "--players", 2, 4)
        top = _whole(args.top, "--top", 1, 20)
        rules = load_rules(args.rules or DEFAULT_PRESET)
        if args.batch is not None:
            if args.cards:
                raise _BadInput("give either CARDS or --batch FILE, not both")
            return _run_batch(args.batch, rules, players, top)
        if not args.cards:
            raise _BadInput("give 13 cards, or --batch FILE")
        advice = solve(parse_cards(" ".join(args.cards), 13), rules, players, top)
    except (_BadInput, CardError, RulesError) as error:
        print(f"cpoker solve: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps(advice.to_dict()))
    else:
        print(render(advice))
    return 0


def _run_batch(source: str, rules: Rules, players: int, top: int) -> int:
    if source == "-":
        _write_batch(sys.stdin, rules, players, top)
        return 0
    try:
        handle = open(source, encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as error:
        raise _BadInput(f"cannot read {source}: {error.strerror or error}") from None
    with handle:
        try:
            _write_batch(handle, rules, players, top)
        except UnicodeDecodeError:
            raise _BadInput(f"{source} is not UTF-8 text") from None
    return 0


def _write_batch(lines: TextIO, rules: Rules, players: int, top: int) -> None:
    out = sys.stdout
    for text in solve_lines(lines, rules, players, top):
        out.write(text + "\n")
    out.flush()


def _percent(p: float) -> str:
    return f"{100 * p:3.0f}%"


def render(advice: Advice) -> str:
    """The readable table printed without --json."""
    lines = [f"hand: {format_cards(advice.cards)}",
             f"rules: {advice.rules.name}, {advice.players} players "
             f"(expected units against the whole table)"]
    if advice.natural is not None:
        what = ("declare it" if advice.declare
                else "play it as a setting instead: the best setting expects more")
        lines.append(f"natural: {advice.natural.name}, {advice.natural.points:g} from each "
                     f"player: {what}")
    if advice.surrender_ev is not None:
        verdict = "surrender" if advice.surrender else "do not surrender"
        lines.append(f"surrender: {verdict} (costs {-advice.surrender_ev:g}; the best "
                     f"setting expects {advice.best.ev:+.2f})")
    rows = [("#", "front", "middle", "back", "EV", "win front/middle/back", "royalties")]
    for i, rated in enumerate(advice.settings, 1):
        s = rated.setting
        rows.append((str(i), format_cards(s.front.cards), format_cards(s.middle.cards),
                     format_cards(s.back.cards), f"{rated.ev:+.3f}",
                     " ".join(_percent(rated.win[r]) for r in ("front", "middle", "back")),
                     f"{rated.royalties:g}"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        lines.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths,
                                                                          strict=True)).rstrip())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run without cli.py: ``python -m engine.solver.command ...``."""
    parser = argparse.ArgumentParser(prog="cpoker solve", description="Best settings of 13 cards.")
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
