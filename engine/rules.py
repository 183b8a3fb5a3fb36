"""Rule sets as data.

A table's rules are one flat :class:`Rules` value. The named presets live as TOML files
in ``engine/presets/`` (one file each); a table copies one, changes any key, and loads it
back with :func:`load_rules`. Every key is validated: an unknown key or a bad value is a
:class:`RulesError` that names it and says what is allowed. Scoring code reads fields;
it never asks which preset it is playing.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any, get_type_hints

import tomli_w

from .hands import Category

ROYALTY_MODES = ("none", "winner-instead", "winner-added", "always")
ROW_SCHEMES = ("per-row", "two-of-three")
NATURALS_VERSUS = ("higher-full", "difference")

# Which made hand in which row earns a royalty. A royal flush is an ace-high straight
# flush; when a rule set gives it no value of its own it is paid as a straight flush.
ROYALTY_KEYS: dict[str, tuple[str, Category, bool]] = {
    "front_trips": ("front", Category.TRIPS, False),
    "middle_full_house": ("middle", Category.FULL_HOUSE, False),
    "middle_quads": ("middle", Category.QUADS, False),
    "middle_straight_flush": ("middle", Category.STRAIGHT_FLUSH, False),
    "middle_royal_flush": ("middle", Category.STRAIGHT_FLUSH, True),
    "back_quads": ("back", Category.QUADS, False),
    "back_straight_flush": ("back", Category.STRAIGHT_FLUSH, False),
    "back_royal_flush": ("back", Category.STRAIGHT_FLUSH, True),
}

# Every special 13-card hand the rule documents name, weakest first. When two naturals
# are worth the same, this order decides which is higher (pagat lists six pairs, three
# straights, three flushes in that ascending order at 3 units each).
NATURAL_KEYS: tuple[str, ...] = (
    "no_pictures",
    "small_cards",
    "six_pairs",
    "three_straights",
    "three_flushes",
    "twelve_one_colour",
    "five_pairs_and_triple",
    "four_triples",
    "one_colour",
    "all_small",
    "all_big",
    "three_quads",
    "three_straight_flushes",
    "twelve_pictures_plus_one",
    "twelve_royalties",
    "dragon",
    "thirteen_one_suit",
    "clean_dragon",
)


DEFAULT_PRESET = "wikipedia"


class RulesError(ValueError):
    """A rule set that cannot be used; the message names the key and what is allowed."""


@dataclass(frozen=True)
class Rules:
    """Everything a table must agree on before the deal. Units are abstract stakes."""

    name: str = "custom"
    title: str = ""
    source: str = ""
    description: str = ""
    # Rows: each row won pays ``row_points``; or Hawaiian Gardens' two-of-three scheme.
    row_scheme: str = "per-row"
    row_points: float = 1
    two_of_three_units: float = 1
    three_of_three_units: float = 6
    three_of_three_all_units: float = 9
    # Royalties (bonuses for strong rows), see ROYALTY_KEYS for the names.
    royalty_mode: str = "none"
    royalties: dict[str, float] = field(default_factory=dict)
    # Pair bonuses.
    overall_point: float = 0
    overall_counts_royalties: bool = True
    sweep_bonus: float = 0
    scoop_multiplier: float = 1
    all_scooped_multiplier: float = 1
    all_scooped_min_opponents: int = 2
    # Naturals (special 13-card hands) with their values; see NATURAL_KEYS.
    naturals: dict[str, float] = field(default_factory=dict)
    naturals_versus: str = "higher-full"
    naturals_equal_values_tie: bool = False
    naturals_exempt_from_scoop: bool = True
    small_cards_max: int = 9
    front_straight_ace_high: bool = True
    # Surrender: false, a number of units paid to each opponent, or "two-rows" (pays as
    # if it lost two rows of three, the pagat definition).
    surrender: bool | float | str = False
    exchange_payment: float = 0
    # House play.
    bank_required: bool = False
    bank_wins_ties: bool = True
    # Whole-table schemes that replace pairwise settlement.
    pool: bool = False
    pool_stake: float = 3
    pool_sweep_extra: float = 3
    single_winner: bool = False
    # Side bets.
    aces_side_bet: bool = False
    aces_values: tuple[float, ...] = (0, 1, 2, 6, 8)

    def __post_init__(self) -> None:
        _validate(self)

    # --- derived views -------------------------------------------------------------
    def royalty(self, row: str, category: Category, top_rank: int) -> float:
        """Units a row earns for its made hand under this rule set (0 when none)."""
        if self.royalty_mode == "none":
            return 0
        royal = category == Category.STRAIGHT_FLUSH and top_rank == 14
        if royal and f"{row}_royal_flush" in self.royalties:
            return self.royalties[f"{row}_royal_flush"]
        for key, (key_row, key_category, key_royal) in ROYALTY_KEYS.items():
            if key_row == row and key_category == category and not key_royal:
                return self.royalties.get(key, 0)
        return 0

    def natural_rank(self, key: str) -> tuple[float, int]:
        """Sort key of a natural under these rules: its value, then the documents' order."""
        return (self.naturals[key], NATURAL_KEYS.index(key))

    @property
    def surrender_allowed(self) -> bool:
        return self.surrender is not False

    def replace(self, **changes: Any) -> Rules:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["aces_values"] = list(self.aces_values)
        return data

    def to_toml(self) -> str:
        return tomli_w.dumps(self.to_dict())


_FIELD_TYPES = get_type_hints(Rules)
FIELD_NAMES = tuple(f.name for f in fields(Rules))


def _validate(rules: Rules) -> None:
    def bad(key: str, message: str) -> RulesError:
        return RulesError(f'rules "{rules.name}": {key} {message}')

    if rules.row_scheme not in ROW_SCHEMES:
        raise bad("row_scheme", f"must be one of {', '.join(ROW_SCHEMES)}")
    if rules.royalty_mode not in ROYALTY_MODES:
        raise bad("royalty_mode", f"must be one of {', '.join(ROYALTY_MODES)}")
    if rules.naturals_versus not in NATURALS_VERSUS:
        raise bad("naturals_versus", f"must be one of {', '.join(NATURALS_VERSUS)}")
    for key, value in rules.royalties.items():
        if key not in ROYALTY_KEYS:
            raise bad(f"royalties.{key}", f"is unknown; known: {', '.join(ROYALTY_KEYS)}")
        if not _is_number(value) or value < 0:
            raise bad(f"royalties.{key}", "must be a number >= 0")
    for key, value in rules.naturals.items():
        if key not in NATURAL_KEYS:
            raise bad(f"naturals.{key}", f"is unknown; known: {', '.join(NATURAL_KEYS)}")
        if not _is_number(value) or value <= 0:
            raise bad(f"naturals.{key}", "must be a number > 0")
    surrender = rules.surrender
    if not (surrender is False or surrender == "two-rows"
            or (_is_number(surrender) and surrender >= 0)):
        raise bad("surrender", 'must be false, "two-rows" or a number of units >= 0')
    if surrender is True:
        raise bad("surrender", 'must be false, "two-rows" or a number of units >= 0')
    if len(rules.aces_values) != 5 or not all(_is_number(v) for v in rules.aces_values):
        raise bad("aces_values", "must list 5 numbers: the values of 0, 1, 2, 3 and 4 aces")
    if not 9 <= rules.small_cards_max <= 10:
        raise bad("small_cards_max", "must be 9 or 10")
    if rules.pool and rules.single_winner:
        raise bad("pool", "and single_winner cannot both be on")
    for name in ("row_points", "overall_point", "sweep_bonus", "pool_stake", "pool_sweep_extra",
                 "exchange_payment", "two_of_three_units", "three_of_three_units",
                 "three_of_three_all_units"):
        value = getattr(rules, name)
        if not _is_number(value) or value < 0:
            raise bad(name, "must be a number >= 0")
    for name in ("scoop_multiplier", "all_scooped_multiplier"):
        value = getattr(rules, name)
        if not _is_number(value) or value < 1:
            raise bad(name, "must be a number >= 1")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _coerce(name: str, key: str, value: Any) -> Any:
    """Check one key's type as read from TOML or JSON, with a message that names it."""
    expected = _FIELD_TYPES[key]
    problem = None
    if expected is bool and not isinstance(value, bool):
        problem = "must be true or false"
    elif expected is str and not isinstance(value, str):
        problem = "must be a string"
    elif expected is int and (not isinstance(value, int) or isinstance(value, bool)):
        problem = "must be a whole number"
    elif expected is float and not _is_number(value):
        problem = "must be a number"
    elif expected == dict[str, float] and not isinstance(value, Mapping):
        problem = "must be a table of name = number"
    elif expected == tuple[float, ...]:
        if not isinstance(value, list | tuple):
            problem = "must be a list of numbers"
        else:
            value = tuple(value)
    elif expected == bool | float | str and not isinstance(value, bool | int | float | str):
        problem = 'must be false, "two-rows" or a number'
    if problem:
        raise RulesError(f'rules "{name}": {key} {problem}, got {value!r}')
    return dict(value) if isinstance(value, Mapping) else value


def rules_from_dict(data: Mapping[str, Any], base: Rules | None = None) -> Rules:
    """Build rules from a mapping, on top of ``base`` (the defaults when None).

    ``royalties`` and ``naturals`` given here replace the base's tables whole, so a table
    can remove an entry; to change one entry use the key ``royalties.NAME`` or
    ``naturals.NAME``.
    """
    base = base or Rules()
    name = str(data.get("name", base.name))
    changes: dict[str, Any] = {}
    royalties = dict(base.royalties)
    naturals = dict(base.naturals)
    for key, value in data.items():
        table, _, entry = key.partition(".")
        if entry and table in ("royalties", "naturals"):
            target = royalties if table == "royalties" else naturals
            if value is False or (value == 0 and table == "naturals"):
                target.pop(entry, None)
            else:
                target[entry] = value
            continue
        if key not in FIELD_NAMES:
            raise RulesError(
                f'rules "{name}": unknown key "{key}"; run `cpoker rules PRESET` to see the keys'
            )
        value = _coerce(name, key, value)
        if key == "royalties":
            royalties = dict(value)
        elif key == "naturals":
            naturals = dict(value)
        else:
            changes[key] = value
    return dataclasses.replace(base, royalties=royalties, naturals=naturals, **changes)


def preset_names() -> list[str]:
    folder = resources.files(__package__) / "presets"
    return sorted(p.name.removesuffix(".toml") for p in folder.iterdir()
                  if p.name.endswith(".toml"))


def preset(name: str) -> Rules:
    folder = resources.files(__package__) / "presets"
    path = folder / f"{name}.toml"
    if not path.is_file():
        raise RulesError(f'unknown preset "{name}"; presets: {", ".join(preset_names())}')
    return rules_from_dict(tomllib.loads(path.read_text(encoding="utf-8")))


def rules_from_toml(text: str, name: str = "custom") -> Rules:
    """A rules file's text (as uploaded in the app); may start from a preset."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RulesError(f"rules file {name} is not valid TOML: {error}") from None
    base_name = data.pop("preset", None)
    if base_name is not None and not isinstance(base_name, str):
        raise RulesError(f'rules file {name}: preset must be a preset name')
    base = preset(base_name) if base_name else None
    data.setdefault("name", name)
    return rules_from_dict(data, base)


def load_rules(spec: str | Path) -> Rules:
    """A preset name, or the path of a TOML rules file (which may start from a preset
    with ``preset = "NAME"``)."""
    text = str(spec)
    if text in preset_names():
        return preset(text)
    path = Path(text)
    if not path.suffix and not path.exists():
        raise RulesError(f'unknown preset "{text}"; presets: {", ".join(preset_names())}')
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RulesError(f"rules file {path} not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise RulesError(f"rules file {path} cannot be read: {error}") from None
    return rules_from_toml(text, path.stem)
