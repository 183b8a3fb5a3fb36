"""`cpoker`: the command line for the same jobs as the app.

``--json`` output is a contract that scripts rely on: one JSON document on stdout (one
object a line for the batch and detect commands). Bad input exits with code 2 and one
line on stderr that says what is wrong; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any

from engine.cards import CardError, parse_cards
from engine.hands import Hand
from engine.naturals import find_naturals
from engine.rules import DEFAULT_PRESET, Rules, RulesError, load_rules, preset, preset_names
from engine.scoring import Settlement, TableError, settle
from engine.setting import Setting
from engine.solver import command as solve_command
from engine.table import load_table, parse_player, parse_table

EXIT_BAD_INPUT = 2
EXIT_NOT_SETTLED = 1  # `cpoker table`: a photo read, but its table not settled
BAD_INPUT_ERRORS: tuple[type[Exception], ...] = (CardError, RulesError, TableError)


def _emit(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False))


def _sign(units: float) -> str:
    text = f"{units:+g}"
    return "0" if text in ("+0", "-0") else text


# --- check ----------------------------------------------------------------------------

def _row_summary(hand: Hand) -> dict[str, Any]:
    return {"cards": [str(c) for c in hand.cards], "category": hand.category_name,
            "description": hand.description}


def cmd_check(args: argparse.Namespace) -> int:
    setting = Setting.parse(args.front, args.middle, args.back)
    reason = setting.foul_reason
    if args.json:
        _emit({"legal": reason is None, "reason": reason,
               "rows": {row.value: _row_summary(hand) for row, hand in setting.hands()}})
        return 0
    for row, hand in setting.hands():
        print(f"{row.value:>6}  {hand!s:<15} {hand.description}")
    print("legal" if reason is None else f"fouled: {reason}")
    return 0


# --- naturals -------------------------------------------------------------------------

def cmd_naturals(args: argparse.Namespace) -> int:
    rules = load_rules(args.rules)
    cards = parse_cards(args.cards, count=13)
    found = find_naturals(cards, rules)
    if args.json:
        _emit({"rules": rules.name, "naturals": [n.to_dict() for n in found]})
        return 0
    if not found:
        print(f"no natural under rules {rules.name}")
    for natural in found:
        print(f"{natural.name}: {natural.points:g} units")
        print(f"    front {' '.join(map(str, natural.front))} | middle "
              f"{' '.join(map(str, natural.middle))} | back {' '.join(map(str, natural.back))}")
    return 0


# --- score ----------------------------------------------------------------------------

def format_settlement(result: Settlement) -> str:
    """The showdown as the rule documents print it: one line a pair, then totals."""
    names = [p.name for p in result.players]
    width = max(6, *(len(n) for n in names))
    header = (f"{'pair':<{2 * width + 3}}  {'front':<{width}} {'middle':<{width}} "
              f"{'back':<{width}}  " + " ".join(f"{n:>{width}}" for n in names))
    lines = [f"rules: {result.rules.name}", header]
    for pair in result.pairs:
        cells = []
        for row in ("front", "middle", "back"):
            cells.append(f"{pair.rows[row] or '-':<{width}}")
        nets = []
        for n in names:
            if n == pair.a:
                nets.append(f"{_sign(pair.net):>{width}}")
            elif n == pair.b:
                nets.append(f"{_sign(-pair.net):>{width}}")
            else:
                nets.append(" " * width)
        label = f"{pair.a} v {pair.b}"
        lines.append(f"{label:<{2 * width + 3}}  {' '.join(cells)}  {' '.join(nets)}")
    totals = result.totals
    lines.append(f"{'total':<{2 * width + 3}}  {' ' * (3 * width + 2)}  "
                 + " ".join(f"{_sign(totals[n]):>{width}}" for n in names))
    if result.fouls:
        lines.append(f"fouled: {', '.join(result.fouls)}")
    for name, natural in result.naturals.items():
        lines.append(f"natural: {name} declares {natural.name} ({natural.points:g})")
    lines.append("")
    lines.append("payments:")
    for pair in result.pairs:
        for payment in pair.payments:
            lines.append(f"  {payment.payer} pays {payment.to} {payment.units:g}: "
                         f"{payment.reason}")
    return "\n".join(lines)


def cmd_score(args: argparse.Namespace) -> int:
    players, rules = load_table(args.table, args.rules)
    result = settle(players, rules)
    if args.json:
        _emit(result.to_dict())
    else:
        print(format_settlement(result))
    return 0


# --- rules ----------------------------------------------------------------------------

def describe_rules(rules: Rules) -> str:
    lines = [f"{rules.name}: {rules.title}", f"source: {rules.source}", "", rules.description, ""]
    lines.append(rules.to_toml())
    return "\n".join(lines)


def cmd_rules(args: argparse.Namespace) -> int:
    if args.preset is None:
        if args.json:
            _emit({"presets": [{"name": n, "title": preset(n).title} for n in preset_names()]})
            return 0
        for name in preset_names():
            print(f"{name:<18} {preset(name).title}")
        return 0
    rules = load_rules(args.preset)
    if args.json:
        _emit(rules.to_dict())
    else:
        print(describe_rules(rules))
    return 0


# --- demo -----------------------------------------------------------------------------

EXAMPLES = resources.files("engine") / "examples"


def cmd_demo(_args: argparse.Namespace) -> int:
    players, rules = parse_table(json.loads((EXAMPLES / "pagat-four-players.json").read_text()))
    print("Demo: the four-player showdown from the pagat.com rules, settled under 'simple'.\n")
    print(format_settlement(settle(players, rules)))
    return 0


# --- detect ---------------------------------------------------------------------------

def _detector(deck: str | None = None) -> Any:
    """The card detector, loaded once per command (the import is heavy: kept lazy);
    ``deck``: the name of a learned deck to read with (``cpoker deck learn``)."""
    from vision.detector import CardDetector, ModelError

    try:
        return CardDetector(deck=_learned_deck(deck) if deck else None)
    except ModelError as error:
        raise _CommandError(str(error)) from None


class _CommandError(RuntimeError):
    """A command that cannot run at all (e.g. no detector weights)."""


def _read_photos(paths: Sequence[str], expect: int | None, fast: bool = False,
                 deck: str | None = None) -> list[Any]:
    """Photo mode (each photo read at the scale its cards need), or live mode with
    ``fast`` (one pass at the network's size, as for a camera stream); ``deck``: a learned
    deck's name."""
    from vision.photo import PhotoError
    from vision.pipeline import PhotoReading, read_photo

    detector = _detector(deck)
    readings = []
    for path in paths:
        try:
            readings.append(read_photo(path, detector, expect=expect,
                                       mode="live" if fast else "photo"))
        except PhotoError as error:
            readings.append(PhotoReading(path, [], None, [str(error)]))
    return readings


def _describe_reading(reading: Any) -> str:
    lines = [f"{reading.image}: {len(reading.cards)} cards: {' '.join(reading.card_names)}"]
    if reading.rows:
        rows = reading.rows.to_dict()
        lines.append("  rows: " + " | ".join(f"{k} {' '.join(v)}" for k, v in rows.items()))
    lines.extend(f"  warning: {w}" for w in reading.warnings)
    return "\n".join(lines)


def cmd_detect(args: argparse.Namespace) -> int:
    from pathlib import Path

    readings = _read_photos(args.photos, args.expect or None, args.fast, args.deck)
    for reading in readings:
        if args.save and reading.detections is not None:
            from vision.draw import annotate
            from vision.photo import load_photo

            folder = Path(args.save)
            folder.mkdir(parents=True, exist_ok=True)
            # Decoded at the size it was read at, so the boxes fall where they were found.
            photo = load_photo(reading.image, max(reading.size))
            picture = annotate(photo, reading.cards, reading.rows)
            picture.save(folder / (Path(reading.image).stem + "-cards.jpg"), quality=90)
        if args.json:
            _emit(reading.to_dict())
        else:
            print(_describe_reading(reading))
    unreadable = [r for r in readings if r.detections is None]
    return EXIT_BAD_INPUT if unreadable else 0


def cmd_advise(args: argparse.Namespace) -> int:
    """Read the 13 cards in a photo, then solve them; the photo's rows, if set, are rated."""
    from engine.solver import compare, solve

    rules = load_rules(args.rules)
    reading = _read_photos([args.photo], 13, args.fast, args.deck)[0]
    report: dict[str, Any] = {**reading.to_dict(), "advice": None, "own": None}
    problem = reading.warnings[0] if reading.detections is None else None
    cards: tuple = ()
    if problem is None:
        try:
            cards = parse_cards(reading.card_names, count=13)
        except CardError as error:
            problem = f"the photo shows no usable hand: {error}; retake it or type the cards"
    if problem is None:
        advice = solve(cards, rules, players=args.players, top=args.top)
        report["advice"] = advice.to_dict()
        if reading.rows is not None:
            rows = reading.rows.to_dict()
            own = Setting.parse(rows["front"], rows["middle"], rows["back"])
            report["own"] = compare(own, rules, players=args.players).to_dict()
    if args.json:
        _emit(report)
    else:
        print(_describe_reading(reading))
        if report["advice"] is not None:
            from engine.solver.command import render

            print(render(advice))
            if report["own"] is not None:
                own_report = report["own"]
                verdict = ("fouled: " + own_report["foul_reason"] if not own_report["legal"]
                           else f"legal, gives up {own_report['gives_up']:.2f} units a deal")
                print(f"your setting in the photo: {verdict}")
    if problem is not None:
        print(f"cpoker: error: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0


# --- deck -----------------------------------------------------------------------------

def _learned_deck(name: str) -> Any:
    """The learned deck ``name`` (``--deck``), or a clear error."""
    from vision.decks import DeckError, load_deck

    try:
        return load_deck(name)
    except DeckError as error:
        raise _CommandError(str(error)) from None


def _progress_bar(step: int, steps: int, what: str) -> None:
    """A one-line progress bar on stderr (stdout stays for the result)."""
    width = 24
    filled = round(width * step / steps)
    end = "\n" if step == steps else ""
    print(f"\r[{'#' * filled}{'.' * (width - filled)}] {step}/{steps} {what:<32}", end=end,
          file=sys.stderr, flush=True)


def cmd_deck(args: argparse.Namespace) -> int:
    from vision.decks import DeckError, decks_folder, forget_deck, learn_deck, list_decks

    try:
        if args.deck_command == "learn":
            progress = None if args.json or not sys.stderr.isatty() else _progress_bar
            deck = learn_deck(args.name, args.photos, suits=args.suits, progress=progress)
            report = {"name": deck.name, "folder": str(decks_folder() / deck.name),
                      **{k: deck.manifest[k] for k in ("created", "photos", "suit_order")},
                      "printed_light_on_dark": deck.prints_light_on_dark}
            if args.json:
                _emit(report)
            else:
                print(f"learned deck {deck.name!r} from {len(args.photos)} photos "
                      f"({len(deck.labels)} corner crops) -> {report['folder']}")
                for photo in deck.manifest["photos"]:  # type: ignore[union-attr]
                    if photo.get("turned"):
                        print(f"  {photo['file']} was read turned {photo['turned']} degrees "
                              "anticlockwise (taken from another side of the cards)")
                if deck.prints_light_on_dark:
                    print("  its indices are printed light on dark (gold or silver on black): "
                          "every photo read with it is also read in its negative")
                print(f"read photos with it: cpoker detect PHOTO --deck {deck.name}")
        elif args.deck_command == "list":
            decks = list_decks()
            if args.json:
                _emit({"folder": str(decks_folder()), "decks": decks})
            elif not decks:
                print(f"no decks learned yet (in {decks_folder()}); "
                      "learn one with `cpoker deck learn NAME S.jpg H.jpg D.jpg C.jpg`")
            for deck in decks if not args.json else []:
                corrections = deck.get("corrections") or {}
                print(f"{deck.get('name')!s:<20} learned {deck.get('created', '?')}, "
                      f"{corrections.get('count', 0)} corrections"
                      f"{'' if corrections.get('enabled', True) else ' (off)'}")
        else:
            forget_deck(args.name)
            if args.json:
                _emit({"forgotten": args.name})
            else:
                print(f"forgot deck {args.name!r}")
    except DeckError as error:
        raise _CommandError(str(error)) from None
    return 0


# --- table ----------------------------------------------------------------------------

MAX_SEATS = 4


def parse_names(text: str | None) -> list[str]:
    """Seat names from ``--names "Ann,Bo,Cy,Di"``, seat 1 first."""
    if text is None:
        return []
    names = [name.strip() for name in text.split(",")]
    if any(not name for name in names):
        raise _CommandError(f'--names "{text}": a name is empty; give 2 to 4 names '
                            'separated by commas, seat 1 first, like "Ann,Bo,Cy"')
    if not 2 <= len(names) <= MAX_SEATS:
        raise _CommandError(f"--names gives {len(names)} names; a table seats 2 to 4 players")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise _CommandError(f'--names gives "{twice[0]}" twice: give each seat its own name')
    return names


def _seat_name(number: int, names: Sequence[str]) -> str:
    return names[number - 1] if number <= len(names) else f"Seat {number}"


def read_table_photo(path: str, detector: Any, rules: Rules, names: Sequence[str]
                     ) -> tuple[dict[str, Any], Any, Settlement | None]:
    """One photo of the whole table: its report (the JSON ``cpoker table`` prints), the
    table read (None when the photo cannot be read at all) and its settlement (None until
    every seat is right)."""
    from vision.photo import PhotoError
    from vision.pipeline import TABLE_PHOTO_MODE, read_photo
    from vision.table import group_table

    report: dict[str, Any] = {"image": path, "seats": [], "settlement": None, "warnings": []}
    try:
        reading = read_photo(path, detector, expect=None, mode=TABLE_PHOTO_MODE)
    except PhotoError as error:
        report["warnings"].append(str(error))
        return report, None, None
    table = group_table(reading.cards, reading.size, doubtful=reading.doubtful)
    warnings = [*reading.warnings, *table.warnings]
    if names and len(names) != len(table.seats):
        warnings.append(f"{len(names)} names given, {len(table.seats)} seats found: check "
                        "that the photo shows every seat's three rows")
    players = []
    settled: Settlement | None = None
    for seat in table.seats:
        entry: dict[str, Any] = {"seat": seat.number, "name": _seat_name(seat.number, names),
                                 **{k: v for k, v in seat.to_dict().items() if k != "seat"},
                                 "legal": None}
        if seat.rows is not None:
            rows = seat.rows.to_dict()
            try:
                entry["legal"] = Setting.parse(rows["front"], rows["middle"],
                                               rows["back"]).foul_reason is None
            except CardError:
                entry["legal"] = None  # a card twice in the seat: its warning says so
            players.append({"name": entry["name"], **rows})
        report["seats"].append(entry)
    if table.ready and not warnings:
        try:
            # The same path as `cpoker score` takes for a table file's players.
            settled = settle([parse_player(p, n) for n, p in enumerate(players, start=1)], rules)
            report["settlement"] = settled.to_dict()
        except TableError as error:
            settled = None
            warnings.append(f"cannot settle: {error}")
    elif table.seats:
        warnings.append("not settled: correct the seats named in the warnings (or save the "
                        "table with --save and settle the file with cpoker score)")
    report["warnings"] = warnings
    return report, table, settled


def table_file(report: dict[str, Any], rules_spec: str) -> dict[str, Any]:
    """The photo's seats as a table file for ``cpoker score``: rows where read, else the
    cards read so far, to correct by hand."""
    players = []
    for seat in report["seats"]:
        player: dict[str, Any] = {"name": seat["name"]}
        if seat["rows"] is not None:
            player.update({row: " ".join(cards) for row, cards in seat["rows"].items()})
        else:
            player["cards"] = " ".join(seat["cards"])
        players.append(player)
    return {"rules": rules_spec, "players": players}


def _describe_table(report: dict[str, Any], table: Any = None) -> str:
    """The report for a person; ``table`` (``vision.table.TableReading``) adds the cards
    each seat took from one unsure corner, which the JSON does not carry."""
    lines = [f"{report['image']}: {len(report['seats'])} seats"]
    seats = {seat.number: seat for seat in table.seats} if table is not None else {}
    for seat in report["seats"]:
        head = f"  seat {seat['seat']} {seat['name']}: "
        if seat["rows"] is not None:
            head += " | ".join(f"{row} {' '.join(cards)}" for row, cards in seat["rows"].items())
            head += {True: "  (legal)", False: "  (fouled)", None: ""}[seat["legal"]]
        else:
            head += f"{len(seat['cards'])} cards, not in rows: {' '.join(seat['cards'])}"
        lines.append(head)
        read = seats.get(seat["seat"])
        if read is not None and read.unsure:
            lines.append(f"    check: {' '.join(read.unsure)} read from one unsure corner")
        lines.extend(f"    warning: {w}" for w in seat["warnings"])
    lines.extend(f"  warning: {w}" for w in report["warnings"])
    return "\n".join(lines)


def cmd_table(args: argparse.Namespace) -> int:
    from pathlib import Path

    rules = load_rules(args.rules)
    names = parse_names(args.names)
    detector = _detector(args.deck)
    unreadable = unsettled = False
    for path in args.photos:
        report, table, settled = read_table_photo(path, detector, rules, names)
        unreadable |= table is None
        unsettled |= table is not None and report["settlement"] is None
        if args.save and table is not None:
            from vision.draw import annotate_table
            from vision.photo import load_photo

            folder = Path(args.save)
            folder.mkdir(parents=True, exist_ok=True)
            stem = folder / (Path(path).stem + "-table")
            names_read = [seat["name"] for seat in report["seats"]]
            annotate_table(load_photo(path), table, names_read).save(
                stem.with_suffix(".jpg"), quality=90)
            stem.with_suffix(".json").write_text(
                json.dumps(table_file(report, args.rules), indent=1, ensure_ascii=False) + "\n",
                encoding="utf-8")
        if args.json:
            _emit(report)
        else:
            print(_describe_table(report, table))
            if settled is not None:
                print(format_settlement(settled))
    return EXIT_BAD_INPUT if unreadable else EXIT_NOT_SETTLED if unsettled else 0


# --- parser ---------------------------------------------------------------------------

FAST_HELP = ("live mode: one quick pass at 640 pixels, as for a camera frame (default: "
             "photo mode, which reads each photo at the resolution its cards need)")


def _rules_help() -> str:
    return f"a preset ({', '.join(preset_names())}) or a rules TOML file; default {DEFAULT_PRESET}"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cpoker", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    check = sub.add_parser("check", help="is a setting legal or fouled?")
    check.add_argument("front")
    check.add_argument("middle")
    check.add_argument("back")
    check.add_argument("--json", action="store_true")
    check.set_defaults(handler=cmd_check)

    naturals = sub.add_parser("naturals", help="special 13-card hands in these cards")
    naturals.add_argument("cards")
    naturals.add_argument("--rules", default=DEFAULT_PRESET, help=_rules_help())
    naturals.add_argument("--json", action="store_true")
    naturals.set_defaults(handler=cmd_naturals)

    score = sub.add_parser("score", help="settle a showdown from a table file")
    score.add_argument("table", help="table JSON file")
    score.add_argument("--rules", default=None, help=_rules_help() + " (overrides the file)")
    score.add_argument("--json", action="store_true")
    score.set_defaults(handler=cmd_score)

    rules = sub.add_parser("rules", help="list the presets, or show one in full")
    rules.add_argument("preset", nargs="?")
    rules.add_argument("--json", action="store_true")
    rules.set_defaults(handler=cmd_rules)

    demo = sub.add_parser("demo", help="settle an example table")
    demo.set_defaults(handler=cmd_demo)

    detect = sub.add_parser("detect", help="read the cards in photos")
    detect.add_argument("photos", nargs="+", metavar="PHOTO")
    detect.add_argument("--json", action="store_true", help="one JSON object a line per photo")
    detect.add_argument("--save", metavar="DIR", help="write each photo annotated into DIR")
    detect.add_argument("--expect", type=int, default=13,
                        help="cards expected in each photo (0: any number); default 13. "
                        "Photo mode looks harder at a photo that reads short of it")
    detect.add_argument("--fast", action="store_true", help=FAST_HELP)
    detect.add_argument("--deck", metavar="NAME", help="read with a learned deck "
                        "(`cpoker deck learn`)")
    detect.set_defaults(handler=cmd_detect)

    advise = sub.add_parser("advise", help="read 13 cards from a photo and suggest settings")
    advise.add_argument("photo", metavar="PHOTO")
    advise.add_argument("--rules", default=DEFAULT_PRESET, help=_rules_help())
    advise.add_argument("--players", type=int, default=2, choices=[2, 3, 4])
    advise.add_argument("--top", type=int, default=3)
    advise.add_argument("--json", action="store_true")
    advise.add_argument("--fast", action="store_true", help=FAST_HELP)
    advise.add_argument("--deck", metavar="NAME", help="read with a learned deck "
                        "(`cpoker deck learn`)")
    advise.set_defaults(handler=cmd_advise)

    deck = sub.add_parser("deck", help="learn the table's own deck from four photos; list, "
                          "forget")
    deck_sub = deck.add_subparsers(dest="deck_command", required=True, metavar="ACTION")
    learn = deck_sub.add_parser("learn", help="learn a deck from four photos, one a suit, "
                                "each suit's 13 cards in order A 2 .. 10 J Q K like text")
    learn.add_argument("name", metavar="NAME")
    learn.add_argument("photos", nargs="+", metavar="PHOTO",
                       help="four photos, one a suit, in the order of --suits")
    learn.add_argument("--suits", default="shdc",
                       help="the photos' suits in order (default shdc: spades hearts "
                       "diamonds clubs)")
    learn.add_argument("--json", action="store_true")
    listing = deck_sub.add_parser("list", help="the learned decks")
    listing.add_argument("--json", action="store_true")
    forget = deck_sub.add_parser("forget", help="delete a learned deck")
    forget.add_argument("name", metavar="NAME")
    forget.add_argument("--json", action="store_true")
    deck.set_defaults(handler=cmd_deck)

    table = sub.add_parser("table", help="read and settle a whole table from one photo each")
    table.add_argument("photos", nargs="+", metavar="PHOTO")
    table.add_argument("--rules", default=DEFAULT_PRESET, help=_rules_help())
    table.add_argument("--names", metavar='"Ann,Bo,Cy,Di"',
                       help="the seats' names, seat 1 (nearest the photo's bottom edge) first, "
                            "then clockwise; default Seat 1, Seat 2, ...")
    table.add_argument("--json", action="store_true", help="one JSON object a line per photo")
    table.add_argument("--save", metavar="DIR",
                       help="write each photo with its seats boxed, and its table file for "
                            "`cpoker score`, into DIR")
    table.add_argument("--deck", metavar="NAME", help="read with a learned deck "
                       "(`cpoker deck learn`)")
    table.set_defaults(handler=cmd_table)

    solve = sub.add_parser("solve", help="best settings for 13 cards")
    solve_command.add_arguments(solve)
    solve.set_defaults(handler=solve_command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except (*BAD_INPUT_ERRORS, _CommandError) as error:
        print(f"cpoker: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
