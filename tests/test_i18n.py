"""Translations: every catalog complete and fresh, every engine word and reason mapped."""

from __future__ import annotations

import random
import re
from importlib import resources

import pytest
from conftest import DATA, ROOT

from engine.cards import CARD_NAMES, CardError, parse_cards
from engine.hands import describe as english_describe
from engine.hands import evaluate
from engine.naturals import NATURAL_NAMES
from engine.rules import NATURAL_KEYS, preset, preset_names
from engine.scoring import TableError, settle
from engine.setting import Setting
from engine.table import load_table, parse_player
from ui import terms
from ui.i18n import CATALOG_LANGUAGES, LANGUAGES, set_language, translations


@pytest.fixture(autouse=True)
def english_after() -> None:
    yield
    set_language("en")


def test_catalogs_are_complete_and_fresh() -> None:
    """Fails when a marked string has no translation in some catalog, a translation drops
    a placeholder, or a catalog (or its compiled .mo) is stale against the sources."""
    pytest.importorskip("babel", reason="Babel is in the test extra: pip install -e '.[test]'")
    import importlib.util

    spec = importlib.util.spec_from_file_location("catalogs", ROOT / "tools" / "catalogs.py")
    catalogs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(catalogs)
    assert catalogs.check() == []


@pytest.mark.parametrize("language", CATALOG_LANGUAGES)
def test_each_catalog_is_compiled_and_translates(language: str) -> None:
    catalog = translations(language)
    assert catalog.gettext("My hand") != "My hand"
    assert catalog.gettext("royal flush") != "royal flush"


def _hands(count: int, size: int, seed: int) -> list[tuple]:
    rng = random.Random(seed)
    return [parse_cards(rng.sample(CARD_NAMES, size)) for _ in range(count)]


def test_english_descriptions_are_the_engines() -> None:
    """The app rebuilds hand descriptions from values: in English, word for word the
    engine's (so the catalogs' msgids say what the engine says)."""
    set_language("en")
    special = ["As Ks Qs Js Ts", "5h 4h 3h 2h Ah", "9s 9d 9h 9c 2s", "7s 7d 7h 2c 2s",
               "Ks Kd Kh", "Qs Qd 2h", "As 3d 2h"]
    for cards in [parse_cards(s) for s in special] + _hands(400, 5, 1) + _hands(200, 3, 2):
        value = evaluate(cards)
        assert terms.describe(value) == english_describe(value)


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_every_natural_and_category_has_a_name(language: str) -> None:
    set_language(language)
    names = [terms.natural_label(key) for key in NATURAL_KEYS]
    assert len(set(names)) == len(names)
    if language == "en":
        assert names == [NATURAL_NAMES[key] for key in NATURAL_KEYS]
    else:
        assert not set(names) & set(NATURAL_NAMES.values())


def _random_players(rng: random.Random, count: int, rules) -> list:
    deck = list(CARD_NAMES)
    rng.shuffle(deck)
    players = []
    for seat in range(count):
        hand = deck[13 * seat: 13 * seat + 13]
        entry = {"name": f"P{seat} x", "front": " ".join(hand[:3]),
                 "middle": " ".join(hand[3:8]), "back": " ".join(hand[8:])}
        if rules.surrender_allowed and rng.random() < 0.15:
            entry["surrender"] = True
        if rules.bank_required and seat == 0:
            entry["bank"] = True
        players.append(parse_player(entry, seat + 1))
    return players


def _settlements():
    """Settled tables: the worked examples, and random deals under every preset with
    every rule switched on that changes the reasons written."""
    for path in [*resources.files("engine").joinpath("examples").iterdir(),
                 *DATA.glob("*.json")]:
        if str(path).endswith(".json"):
            players, rules = load_table(str(path))
            yield settle(players, rules)
    rng = random.Random(16)
    for name in preset_names():
        base = preset(name)
        variants = [base, base.__class__(**{**base.__dict__, "aces_side_bet": True,
                                            "sweep_bonus": 2, "overall_point": 1})]
        for rules in variants:
            for _ in range(25):
                try:
                    yield settle(_random_players(rng, rng.choice([2, 3, 4]), rules), rules)
                except TableError:
                    continue


@pytest.mark.parametrize("language", ["zh_Hans", "vi"])
def test_every_payment_reason_is_translated(language: str) -> None:
    set_language(language)
    kinds = set()
    for result in _settlements():
        for pair in result.pairs:
            for payment in pair.payments:
                text = terms.payment_reason(payment, pair, result)
                assert text is not None, f"no shape for {payment.reason!r}"
                assert text != payment.reason
                kinds.add(payment.kind)
    # Rows, royalties, overall, sweeps and scoops, naturals, surrender, aces, stack limits.
    assert {"row", "royalty", "overall", "sweep", "scoop", "natural", "surrender",
            "aces"} <= kinds


def _engine_errors() -> list[str]:
    """Messages the engine writes for what a player can type into the app."""
    found = []
    for text in ("As Ks 1x", "As Ks Q", "As Ks As", "As,,Kd 10"):
        try:
            parse_cards(text)
        except CardError as error:
            found.append(str(error))
    try:
        Setting.parse("As Ks", "2c 3c 4c 5c 6c", "7d 8d 9d Td Jd")
    except CardError as error:
        found.append(str(error))
    tables = [
        [{"name": "A", "front": "As Ks Qs", "middle": "2c 3c 4c 5c 6c",
          "back": "7d 8d 9d Td Jd"},
         {"name": "B", "front": "As Kd Qd", "middle": "2d 3d 4d 5d 6d",
          "back": "7h 8h 9h Th Jh"}],
        [{"name": "A", "front": "As Ks Qs", "middle": "2c 3c 4c 5c 6c"}],
        [{"name": "A", "cards": "As Ks Qs Js", "natural": True},
         {"name": "B", "cards": "2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac", "natural": True}],
        [{"name": "A", "front": "As Ks Qs", "middle": "2c 3c 4c 5c 6c",
          "back": "7d 8d 9d Td Jd", "surrender": True},
         {"name": "A", "front": "Ah Kh Qh", "middle": "2h 3h 4h 5h 6h",
          "back": "7s 8s 9s Ts Js"}],
    ]
    for table in tables:
        try:
            settle([parse_player(p, i + 1) for i, p in enumerate(table)], preset("simple"))
        except (CardError, TableError) as error:
            found.append(str(error))
    return found


@pytest.mark.parametrize("language", CATALOG_LANGUAGES)
def test_engine_messages_are_translated(language: str) -> None:
    messages = _engine_errors()
    assert len(messages) >= 8
    set_language(language)
    for text in messages:
        assert terms.is_known_message(text), text
        assert terms.message(text) != text


@pytest.mark.parametrize("language", CATALOG_LANGUAGES)
def test_presets_read_in_words(language: str) -> None:
    set_language(language)
    for name in preset_names():
        rules = preset(name)
        # The app's copy of the engine's words is current (else the English shows).
        assert terms.PRESET_TEXTS[name] == (rules.title, rules.description)
        assert terms.preset_title(rules) == translations(language).gettext(rules.title)
        assert terms.preset_description(rules) != rules.description


def test_the_command_line_stays_english() -> None:
    """The engine never imports the app's translations."""
    for path in (ROOT / "engine").rglob("*.py"):
        assert not re.search(r"^\s*(from|import) ui\b", path.read_text(), re.M), path
    assert not re.search(r"^\s*(from|import) ui\b", (ROOT / "cli.py").read_text(), re.M)
