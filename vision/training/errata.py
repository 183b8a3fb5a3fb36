"""Label errata for the shared development sets: labels found wrong by eye, and the
correction, kept in ``datasets/errata.toml`` beside the sets' own labels (which are
read-only, and are never edited or copied in).

A set's labels were drawn by people, and a few are wrong: a ten of hearts labelled a ten
of diamonds, or a card in plain view left out. Measured against such a label, a reader
that names the card right counts a miss and a false card. Each erratum was looked at in
the photo itself before it was written, and says what was seen (``seen``); the workshop
measures and trains with the corrected labels, and ``evaluate --raw-labels`` measures
against the labels as shipped, so both figures can be given.

One erratum names a photo of a set, or every copy of one shot (``real-photos-dev``
exports each shot up to three times, flipped: ``IMG_..._jpg.rf.<hash>.jpg``), by the
part of the file name before ``.rf.`` and its suffix, and corrects it:

- ``replace = { Td = "Th" }``: every label of the first card is the second card;
- ``add = ["5d"]``: the card is in the photo though no label names it (it has no box, so
  it only counts in the photo's set of cards, not in training boxes);
- ``relabel = [{ at = [0.566, 0.669], label = "Qh", card = "3c" }]``: one box is another
  card, where the same card's other boxes are right (a three's corner labelled with the
  queen beside it): the box labelled ``label`` that holds the point ``at`` (x, y as shares
  of the photo's width and height) is ``card``.

The corner detector trains on ``real-decks-dev``'s label files as they are
(``realdata.write_decks_set`` links them): it is trained class-agnostic, so a replaced
name changes nothing there, and an added card brings no box.

This module is the workshop's: the reader never reads labels.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from engine.cards import CARD_NAMES

ERRATA_FILE = Path(__file__).resolve().parents[2] / "datasets" / "errata.toml"
KEYS = {"photo", "replace", "add", "relabel", "seen"}
RELABEL_KEYS = {"at", "label", "card"}


class ErrataError(ValueError):
    """The errata file says something this module cannot take: the message names the
    set, the entry and what is wrong."""


@dataclass(frozen=True)
class Relabel:
    """One box of a photo is another card: the box labelled ``label`` that holds ``at``
    (x, y, shares of the photo's width and height) is ``card``."""

    at: tuple[float, float]
    label: str
    card: str

    def fits(self, label: str, box: tuple[float, float, float, float]) -> bool:
        """Whether a label (its card, its box x1 y1 x2 y2 in shares of the photo) is the
        one this corrects."""
        x, y = self.at
        return label == self.label and box[0] <= x <= box[2] and box[1] <= y <= box[3]


@dataclass(frozen=True)
class Erratum:
    photo: str  # the file name's stem before ".rf." (every copy of the shot)
    replace: Mapping[str, str] = field(default_factory=dict)
    add: tuple[str, ...] = ()
    seen: str = ""
    relabel: tuple[Relabel, ...] = ()

    def box_card(self, label: str, box: tuple[float, float, float, float]) -> str:
        """A label's card as corrected, its box x1 y1 x2 y2 in shares of the photo."""
        for one in self.relabel:
            if one.fits(label, box):
                return one.card
        return self.replace.get(label, label)


def photo_key(image_name: str) -> str:
    """``IMG_1_jpg.rf.<hash>.jpg`` and ``IMG_1_jpg.jpg`` -> ``IMG_1_jpg``."""
    name = Path(image_name).name
    return name.split(".rf.")[0] if ".rf." in name else Path(name).stem


@dataclass(frozen=True)
class Errata:
    """The errata of every set, by set name (the set's folder name) and photo key."""

    by_set: Mapping[str, Mapping[str, Erratum]] = field(default_factory=dict)

    @classmethod
    def none(cls) -> Errata:
        return cls({})

    def for_image(self, image: Path) -> Erratum | None:
        """The erratum of ``image`` (a photo inside a set's ``images/`` folder), if any."""
        found = self.by_set.get(set_name(image))
        return None if found is None else found.get(photo_key(image.name))

    def card(self, image: Path, card: str, box: tuple[float, float, float, float]) -> str:
        """A label's card as corrected for ``image``; ``box``: its x1 y1 x2 y2 as shares
        of the photo's width and height."""
        erratum = self.for_image(image)
        return card if erratum is None else erratum.box_card(card, box)

    def cards(self, image: Path,
              labelled: Iterable[tuple[str, tuple[float, float, float, float]]]) -> set[str]:
        """The set of cards in ``image``, from its labels (card, box in shares of the
        photo), as corrected."""
        erratum = self.for_image(image)
        if erratum is None:
            return {card for card, _ in labelled}
        return {erratum.box_card(card, box) for card, box in labelled} | set(erratum.add)

    def count(self, images: Iterable[Path]) -> int:
        """How many of ``images`` an erratum corrects."""
        return sum(self.for_image(p) is not None for p in images)


def set_name(image: Path) -> str:
    """The set a photo belongs to: the folder holding its ``images/`` folder."""
    parts = image.parts
    if "images" not in parts:
        return ""
    return parts[len(parts) - 1 - parts[::-1].index("images") - 1]


def _card(value: object, where: str) -> str:
    if not isinstance(value, str) or value not in CARD_NAMES:
        raise ErrataError(f"{where}: {value!r} is not a card; write cards as rank and suit "
                          "in the project's notation (Th, 5d, As)")
    return value


def _relabels(value: object, where: str) -> tuple[Relabel, ...]:
    form = ("'relabel' is a list of tables, each { at = [x, y], label = \"Qh\", card = "
            "\"3c\" } (x and y: shares of the photo's width and height, 0 to 1)")
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ErrataError(f"{where}: {form}")
    found = []
    for one in value:
        at = one.get("at")
        if set(one) != RELABEL_KEYS or not isinstance(at, list) or len(at) != 2 or not all(
                isinstance(v, int | float) and 0 <= v <= 1 for v in at):
            raise ErrataError(f"{where}: {form}")
        label, card = _card(one.get("label"), where), _card(one.get("card"), where)
        if label == card:
            raise ErrataError(f"{where}: a card relabelled as itself")
        found.append(Relabel((float(at[0]), float(at[1])), label, card))
    return tuple(found)


def parse_errata(text: str, source: str = "errata") -> Errata:
    """Errata from TOML text: one array of tables a set, ``[[real-photos-dev]]``, each
    table one photo's erratum. Strict: an unknown key, a card not in the notation, a photo
    named twice or an erratum that corrects nothing is an :class:`ErrataError`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ErrataError(f"{source}: not TOML ({error})") from None
    by_set: dict[str, dict[str, Erratum]] = {}
    for set_key, entries in data.items():
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise ErrataError(f"{source}: {set_key!r} must be an array of tables "
                              f"([[{set_key}]]), one a photo")
        found: dict[str, Erratum] = {}
        for number, entry in enumerate(entries, 1):
            where = f"{source}: [[{set_key}]] number {number}"
            unknown = sorted(set(entry) - KEYS)
            if unknown:
                raise ErrataError(f"{where}: unknown key {', '.join(unknown)}; an erratum "
                                  f"has {', '.join(sorted(KEYS))}")
            photo = entry.get("photo")
            if not isinstance(photo, str) or not photo:
                raise ErrataError(f"{where}: 'photo' (the file name before .rf.) is missing")
            where = f"{source}: [[{set_key}]] photo {photo}"
            if photo in found:
                raise ErrataError(f"{where}: named twice; give one erratum a photo")
            replace = entry.get("replace", {})
            add = entry.get("add", [])
            if not isinstance(replace, dict) or not isinstance(add, list):
                raise ErrataError(f"{where}: 'replace' is a table (Td = \"Th\"), 'add' a "
                                  "list of cards")
            pairs = {_card(old, where): _card(new, where) for old, new in replace.items()}
            if any(old == new for old, new in pairs.items()):
                raise ErrataError(f"{where}: a card replaced by itself")
            cards = tuple(_card(c, where) for c in add)
            relabels = _relabels(entry.get("relabel", []), where)
            if not pairs and not cards and not relabels:
                raise ErrataError(f"{where}: corrects nothing; give 'replace', 'add' or "
                                  "'relabel'")
            if not isinstance(entry.get("seen", ""), str) or not entry.get("seen"):
                raise ErrataError(f"{where}: say what was seen in the photo ('seen')")
            found[photo] = Erratum(photo, pairs, cards, entry["seen"], relabels)
        by_set[set_key] = found
    return Errata(by_set)


@cache
def shipped_errata() -> Errata:
    """``datasets/errata.toml``, read once (none when the file is absent)."""
    if not ERRATA_FILE.exists():
        return Errata.none()
    return parse_errata(ERRATA_FILE.read_text(encoding="utf-8"), ERRATA_FILE.name)
