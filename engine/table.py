"""The table file: a showdown written as JSON, strictly parsed.

    {"rules": "pagat", "options": {"sweep_bonus": 1},
     "players": [{"name": "North", "front": "...", "middle": "...", "back": "..."},
                 {"name": "East", "cards": "... 13 cards ...", "natural": true}]}

A player who declares a natural or surrenders may give ``cards`` (all 13) instead of
rows. Flags: ``natural``, ``surrender``, ``bank``, ``stack`` (chips), ``exchange``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .cards import CardError, parse_cards
from .rules import DEFAULT_PRESET, Rules, load_rules, rules_from_dict
from .scoring import Player, TableError
from .setting import ROWS, Setting

PLAYER_KEYS = {"name", "front", "middle", "back", "cards", "natural", "surrender", "bank",
               "stack", "exchange"}
TABLE_KEYS = {"rules", "options", "players"}


def _cards_text(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)
    raise TableError(f"{where} must be a string of cards or a list of card strings")


def parse_player(data: Any, seat: int) -> Player:
    if not isinstance(data, Mapping):
        raise TableError(f"player {seat} must be an object with a name and cards")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise TableError(f'player {seat} needs a "name"')
    unknown = set(data) - PLAYER_KEYS
    if unknown:
        raise TableError(f'{name}: unknown key "{sorted(unknown)[0]}"; '
                         f"known: {', '.join(sorted(PLAYER_KEYS))}")
    flags = {}
    for flag in ("natural", "surrender", "bank", "exchange"):
        value = data.get(flag, False)
        if not isinstance(value, bool):
            raise TableError(f'{name}: "{flag}" must be true or false')
        flags[flag] = value
    stack = data.get("stack")
    if stack is not None and (not isinstance(stack, int | float) or isinstance(stack, bool)):
        raise TableError(f'{name}: "stack" must be a number of chips')
    rows_given = [row.value for row in ROWS if row.value in data]
    setting = None
    cards: tuple = ()
    try:
        if rows_given:
            missing = [row.value for row in ROWS if row.value not in data]
            if missing:
                raise TableError(f"{name}: missing the {' and '.join(missing)} row")
            if "cards" in data:
                raise TableError(f'{name}: give either "cards" or the three rows, not both')
            texts = [_cards_text(data[row.value], f"{name}'s {row.value}") for row in ROWS]
            setting = Setting.parse(*texts)
        elif "cards" in data:
            cards = parse_cards(_cards_text(data["cards"], f"{name}'s cards"), count=13)
        else:
            raise TableError(f'{name}: give "front", "middle" and "back", or all 13 "cards"')
    except CardError as error:
        raise TableError(f"{name}: {error}") from None
    return Player(name=name, setting=setting, cards=cards, stack=stack, **flags)


def parse_table(data: Any, rules_override: str | None = None) -> tuple[list[Player], Rules]:
    """Players and rules from a table document; ``rules_override`` (the flag) wins."""
    if not isinstance(data, Mapping):
        raise TableError("a table file is a JSON object with \"players\"")
    unknown = set(data) - TABLE_KEYS
    if unknown:
        raise TableError(f'unknown key "{sorted(unknown)[0]}" in the table file; '
                         f"known: {', '.join(sorted(TABLE_KEYS))}")
    spec = rules_override or data.get("rules") or DEFAULT_PRESET
    if not isinstance(spec, str):
        raise TableError('"rules" must be a preset name or a rules file path')
    rules = load_rules(spec)
    options = data.get("options") or {}
    if not isinstance(options, Mapping):
        raise TableError('"options" must be an object of rule keys and values')
    if options:
        rules = rules_from_dict(options, rules)
    players_data = data.get("players")
    if not isinstance(players_data, list):
        raise TableError('the table file needs "players": a list of 2 to 4 players')
    players = [parse_player(p, seat) for seat, p in enumerate(players_data, start=1)]
    return players, rules


def load_table(path: str | Path, rules_override: str | None = None) -> tuple[list[Player], Rules]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TableError(f"table file {path} not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise TableError(f"table file {path} cannot be read: {error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise TableError(f"table file {path} is not valid JSON: {error}") from None
    return parse_table(data, rules_override)
