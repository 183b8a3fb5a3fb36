"""Translations: every catalog complete and fresh, every engine word and reason mapped."""

from __future__ import annotations

import ast
import json
import random
import re
import struct
import zlib
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import numpy as np
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


def test_a_new_babel_release_does_not_make_the_catalogs_stale() -> None:
    """Babel names itself in every catalog's header (2.19.0 came out while 2.18.0's
    catalogs were committed): that line alone is not a change; a message is."""
    pytest.importorskip("babel", reason="Babel is in the test extra: pip install -e '.[test]'")
    import importlib.util

    from babel.messages.catalog import Catalog

    spec = importlib.util.spec_from_file_location("catalogs", ROOT / "tools" / "catalogs.py")
    catalogs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(catalogs)
    header = b'msgid ""\nmsgstr ""\n"Generated-By: Babel %s\\n"\n\nmsgid "Deal"\nmsgstr "%s"\n'
    assert catalogs._same_po(header % (b"2.18.0", b"Chia"), header % (b"2.19.0", b"Chia"))
    assert not catalogs._same_po(header % (b"2.18.0", b"Chia"), header % (b"2.18.0", b"Bai"))
    catalog = Catalog(locale="vi")
    catalog.add("Deal", "Chia")
    compiled = catalogs._mo_bytes(catalog)
    assert catalogs._same_mo(compiled, catalog)
    catalog["Deal"].string = "Bai"
    assert not catalogs._same_mo(compiled, catalog)


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


# --- every string the page shows is marked --------------------------------------------------

# Streamlit calls whose first positional argument the player reads (a label, a message; for
# st.tabs the list of tab titles; st.write shows every positional argument).
SHOWN_FIRST = frozenset({
    "audio_input", "button", "camera_input", "caption", "chat_input", "checkbox",
    "color_picker", "date_input", "dialog", "download_button", "error", "expander",
    "file_uploader", "form_submit_button", "header", "info", "link_button", "markdown",
    "metric", "multiselect", "number_input", "page_link", "pills", "popover", "radio",
    "segmented_control", "select_slider", "selectbox", "slider", "spinner", "status",
    "subheader", "success", "tabs", "text", "text_area", "text_input", "time_input", "title",
    "toast", "toggle", "warning", "write",
})
# Calls whose first argument is not read (a picture, a number) but whose keywords are.
SHOWN_KEYWORDS_ONLY = frozenset({"image", "progress", "set_page_config", "video", "audio"})
SHOWN_KEYWORDS = frozenset({"label", "help", "placeholder", "caption", "text", "body",
                            "page_title"})
# Choosers whose options are shown as they are unless a format_func names them.
CHOOSERS = frozenset({"radio", "selectbox", "multiselect", "select_slider", "pills",
                      "segmented_control"})
# Literal strings shown as they are on purpose, because they are not English.
NOT_LANGUAGE = {
    # The language chooser's label is in every language at once, so that a player who
    # cannot read the page's current language still finds it.
    "Language / 語言 / 语言 / Ngôn ngữ",
    # Card notation (the typed-hand placeholder): typed the same in every language.
    "As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s",
    # An example deck name: a deck's name is Latin letters, digits, '-', '_' or '.'
    # (vision.decks.NAME_PATTERN), so a translated example could not be typed as a name.
    "blue-bicycle",
}
PLACEHOLDERS = re.compile(r"\{[^{}]*\}")
LETTER = re.compile(r"[^\W\d_]")


def _words(text: str) -> bool:
    """Whether a literal is language: it has a letter outside its {placeholders} (so
    "**{}**", "- " and "" are not) and is not one of NOT_LANGUAGE."""
    return text not in NOT_LANGUAGE and bool(LETTER.search(PLACEHOLDERS.sub("", text)))


def _untranslated(node: ast.AST) -> list[str]:
    """The English text in an expression a call shows: a literal or an f-string (whose
    literal parts are words), seen through +, %, str.format, x if c else y, lists and
    tuples. A call (``_()``, ``ngettext()``, a helper), a name or an attribute is fine."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) and _words(node.value) else []
    if isinstance(node, ast.JoinedStr):
        text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
        return [f"f{text!r}"] if _words(text) else []
    if isinstance(node, ast.BinOp):
        return _untranslated(node.left) + _untranslated(node.right)
    if isinstance(node, ast.IfExp):
        return _untranslated(node.body) + _untranslated(node.orelse)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [text for element in node.elts for text in _untranslated(element)]
    if isinstance(node, ast.Starred):
        return _untranslated(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
            node.func.attr == "format":
        return _untranslated(node.func.value)  # "English {x}".format(...) is still English
    return []


def _is_streamlit(node: ast.AST) -> bool:
    """``st.x``, ``st.sidebar.x``, and ``sidebar.x`` (the app's name for st.sidebar)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in ("st", "sidebar")


def untranslated_in(source: str, filename: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and _is_streamlit(node.func.value)):
            continue
        name = node.func.attr
        if name not in SHOWN_FIRST | SHOWN_KEYWORDS_ONLY:
            continue
        shown = []
        if name in SHOWN_FIRST and node.args:
            shown += node.args if name == "write" else node.args[:1]
        shown += [k.value for k in node.keywords if k.arg in SHOWN_KEYWORDS]
        keywords = {k.arg: k.value for k in node.keywords}
        if name in CHOOSERS and "format_func" not in keywords:
            shown += node.args[1:2] + ([keywords["options"]] if "options" in keywords else [])
        found += [f"{filename}:{node.lineno}: st.{name}: {text}"
                  for value in shown for text in _untranslated(value)]
    return found


def _app_sources() -> list:
    return [ROOT / "app.py", *sorted((ROOT / "ui").glob("*.py"))]


def test_every_shown_string_is_marked() -> None:
    """A literal English string (or f-string) given to a Streamlit call as what it shows
    (its label, message, help, placeholder, caption, options) reaches every player in
    English: mark it with _() or ngettext() (and .format() after, not an f-string)."""
    found = []
    for path in _app_sources():
        found += untranslated_in(path.read_text(), path.relative_to(ROOT).as_posix())
    assert found == [], "\n".join(found)


def test_the_check_finds_what_it_should() -> None:
    """The check above is not vacuous: it sees each shape of an unmarked string."""
    unmarked = (
        'st.button("Go")\n'
        'st.sidebar.caption(f"Deck {name} learned")\n'
        'sidebar.error("{problem}. Try again".format(problem=p))\n'
        'st.radio(_("From"), ["Upload", "Camera"])\n'
        'st.tabs([_("A"), "B"])\n'
        'st.image(picture, caption="Seats as read")\n'
        'st.text_input(_("Name"), placeholder="blue" + "-deck")\n'
        'st.markdown("- " + "every payment")\n'
    )
    lines = {int(f.split(":")[1]) for f in untranslated_in(unmarked, "example.py")}
    assert lines == set(range(1, unmarked.count("\n") + 1))
    marked = (
        'st.button(_("Go"))\n'
        'st.sidebar.caption(_("Deck {name} learned").format(name=name))\n'
        'st.radio(_("From"), ["upload", "camera"], format_func=label)\n'
        'st.markdown("**{}**".format(_("Royalties")))\n'
        'st.markdown(f"**{title}**: {text}")\n'
        'st.markdown(PAGE_STYLE, unsafe_allow_html=True)\n'
        'st.write(ngettext("{n} card", "{n} cards", n).format(n=n))\n'
        'st.text_input(_("Your 13 cards"), placeholder="As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s")\n'
        'st.image(picture, caption=_("Seats as read") if seats else "")\n'
        'st.session_state.get("Upload")\n'
    )
    assert untranslated_in(marked, "example.py") == []


def test_marked_strings_are_not_built() -> None:
    """The extractor reads only literal strings inside _(), ngettext() and N_(): an
    f-string, a sum or a .format() there is never in a catalog, so it is never translated
    (format after the call: ``_("{count} cards").format(count=n)``). A name is fine: a
    message kept in a table, marked where it is written with N_()."""
    found = []
    for path in _app_sources():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id in ("_", "N_", "ngettext"):
                texts = node.args[:2] if node.func.id == "ngettext" else node.args[:1]
                if any(isinstance(t, ast.JoinedStr | ast.BinOp | ast.Call) for t in texts):
                    found.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}")
    assert found == [], "\n".join(found)


def _table_warnings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every warning the table reader writes, from the constructed tables of
    tests/test_vision_table.py (each of its warning tests, its readings recorded)."""
    import test_vision_table as constructed

    from vision.table import group_table

    seen: list[str] = []

    def recording(*args, **kwargs):
        reading = group_table(*args, **kwargs)
        seen.extend([*reading.warnings, *(w for s in reading.seats for w in s.warnings)])
        return reading

    monkeypatch.setattr(constructed, "group_table", recording)
    for name in ("test_missing_card_names_the_seat", "test_extra_card_names_the_seat",
                 "test_card_seen_at_two_seats", "test_card_seen_twice_in_one_seat",
                 "test_seat_cut_off_by_the_edge", "test_cards_not_in_rows",
                 "test_front_row_laid_farthest_from_the_centre", "test_too_few_cards",
                 "test_a_seat_sets_aside_a_lone_corner_too_many"):
        getattr(constructed, name)()
    return seen


@pytest.mark.parametrize("language", CATALOG_LANGUAGES)
def test_table_photo_warnings_are_translated(language: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    warnings = sorted(set(_table_warnings(monkeypatch)))
    assert len(warnings) >= 9
    set_language(language)
    for text in warnings:
        assert terms.is_known_message(text), text
        shown = terms.message(text)
        assert shown != text and "{" not in shown, (text, shown)
        assert not re.search(r"\b(left|top|right|bottom)\b", shown), shown


@pytest.mark.parametrize("language", CATALOG_LANGUAGES)
def test_retake_hints_are_translated(language: str) -> None:
    from test_retake import in_a_line

    from vision.retake import SMALL_INDEX_PX, retake_hints

    hints = retake_hints(in_a_line(12, SMALL_INDEX_PX - 2, 0.5))
    assert len(hints) == 2
    set_language(language)
    for text in hints:
        assert terms.is_known_message(text), text
        shown = terms.message(text)
        assert shown != text and "{" not in shown, (text, shown)


@pytest.mark.parametrize("language", CATALOG_LANGUAGES)
def test_deck_learning_steps_are_translated(language: str) -> None:
    """Each step vision.decks.learn_deck reports (``tell(step, steps, what)``), with its
    formatted parts filled in, reads in the player's language under the progress bar."""
    tree = ast.parse((ROOT / "vision" / "decks.py").read_text())
    steps = [node.args[2] for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == "tell"]
    samples = ["".join(v.value if isinstance(v, ast.Constant) else "spades.jpg"
                       for v in step.values) if isinstance(step, ast.JoinedStr) else step.value
               for step in steps]
    assert len(samples) >= 4
    set_language(language)
    for text in samples:
        assert terms.deck_step(text) != text, text


# --- deck learning's errors (vision/decks.py), on the My deck page ---------------------------

class _Found:
    """A detector's answer with some corners in it (what understand_photo counts)."""

    xyxy = np.zeros((1, 4), np.float32)
    labels = ("As",)

    def __len__(self) -> int:
        return 1


class _Finds:
    def __init__(self, found: object) -> None:
        self.found = found

    def detect(self, image: np.ndarray, mode: str = "photo", complete: object = None
               ) -> object:
        return self.found


def _too_large_png(width: int = 20_000, height: int = 20_000) -> bytes:
    """A PNG whose header says it is ``width`` x ``height``: opened, never decoded."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2,
                                                               0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0")) + chunk(b"IEND", b""))


def _raised(call: Callable[[], object]) -> str:
    with pytest.raises(ValueError) as raised:  # DeckError and PhotoError are ValueErrors
        call()
    return str(raised.value)


def _deck_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                 ) -> list[tuple[str, str, list[str]]]:
    """Each kind of message learning, loading or correcting a deck raises, as the reader
    writes it: (kind, message, the variable parts its translation keeps). From the real
    functions given bad input, each cheap here (no model is run); the one that would need
    a broken model file is built with the code's own wording."""
    from vision import decks
    from vision.decks import (
        CLASS_OF,
        FEATURES_MODEL,
        RANK_ORDER,
        CornerFeatures,
        _check_order,
        _check_suits,
        check_name,
        forget_deck,
        learn_deck,
        load_deck,
        new_deck,
        understand_photo,
    )
    from vision.photo import load_photo

    monkeypatch.setenv("CPOKER_HOME", str(tmp_path / "home"))
    found = [("invalid name", _raised(lambda: check_name("bad name!")), ["bad name!"]),
             ("no deck, none learned", _raised(lambda: load_deck("blue")), ["blue"])]
    new_deck("red").save()
    found += [("no deck", _raised(lambda: load_deck("blue")), ["blue", "red"]),
              ("nothing to forget", _raised(lambda: forget_deck("blue")), ["blue"])]
    stored = tmp_path / "home" / "decks"
    new_deck("old").save()
    (stored / "old" / "deck.json").write_text(json.dumps({"name": "old", "format": 0}))
    new_deck("broken").save()
    (stored / "broken" / "deck.json").write_text("{")
    found += [("another format", _raised(lambda: load_deck("old")), ["old"]),
              ("unreadable deck", _raised(lambda: load_deck("broken")),
               ["broken", str(stored / "broken")])]
    absent = tmp_path / "absent.onnx"
    found.append(("no features model", _raised(lambda: CornerFeatures(absent)),
                  ["absent.onnx", str(tmp_path)]))
    # CornerFeatures' words when the file is there but made without the features output.
    found.append(("no features output", f"{FEATURES_MODEL.name} has no features output: "
                  "remake it with `python -m vision.training.deck_features`",
                  [FEATURES_MODEL.name]))
    image = np.zeros((64, 64, 3), np.uint8)
    found.append(("not a card", _raised(
        lambda: new_deck("red").add_correction(image, (0, 0, 9, 9), "Zz")), ["Zz"]))
    photos = []
    for n, suit in enumerate(("spades", "hearts", "diamonds", "clubs")):
        photos.append(tmp_path / f"{suit}.jpg")
        photos[-1].write_bytes(b"not a photo %d" % n)
    paths = [str(p) for p in photos]
    found += [("three photos", _raised(lambda: learn_deck("x", paths[:3])), ["3"]),
              ("suits", _raised(lambda: learn_deck("x", paths, suits="sshc")), ["sshc"])]
    # Past the checks of what was given, without loading a model.
    monkeypatch.setattr(decks, "shared_features", lambda: None)
    twice = [paths[0], paths[0], *paths[2:]]
    found += [("same photo", _raised(lambda: learn_deck("x", twice, detector=_Finds(None))),
               [paths[0]]),
              ("unreadable photo", _raised(lambda: learn_deck("x", paths,
                                                              detector=_Finds(None))),
               [paths[0]]),
              ("photo too large", _raised(lambda: load_photo(_too_large_png())),
               ["20000x20000", "400", "200"]),
              ("no cards", _raised(lambda: understand_photo("spades.jpg", "s", image,
                                                            _Finds([]))), ["spades.jpg"])]
    for count in (12, 14):
        monkeypatch.setattr(decks, "order_cards", lambda *args, count=count, **kwargs:
                            [None] * count)
        found.append((f"{count} cards", _raised(
            lambda: understand_photo("hearts.jpg", "h", image, _Finds(_Found()))),
            ["hearts.jpg", str(count)]))
    # The classifier sure of each card: the 2nd reads 8s and the 8th 2s.
    sure = np.zeros((13, 52))
    for k, rank in enumerate(RANK_ORDER):
        sure[k, CLASS_OF[rank + "s"]] = 1.0
    sure[[1, 7]] = sure[[7, 1]]
    found.append(("out of order", _raised(lambda: _check_order("spades.jpg", "s", sure)),
                  ["spades.jpg", "8s", "2s", "2", "8"]))
    reads = [("hearts.jpg", "s", ("h", 12, 13)), ("spades.jpg", "h", ("s", 11, 13)),
             ("diamonds.jpg", "d", ("d", 13, 13)), ("clubs.jpg", "c", ("c", 13, 13))]
    found.append(("wrong suit", _raised(lambda: _check_suits(reads)),
                  ["hearts.jpg", "12", "13"]))
    return found


DECK_ERROR_KINDS = 19
# English words of the reader's that a translated deck message must not keep.
READER_WORDS = re.compile(r"\b(spades|hearts|diamonds|clubs|\d+(st|nd|rd|th)|none yet)\b")
COMMAND_LINE = re.compile(r"--suits|`|\bcpoker deck\b|python -m")


@pytest.mark.parametrize("language", CATALOG_LANGUAGES)
def test_deck_errors_are_translated(language: str, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Every error of learning a deck reads in the player's language on the My deck page,
    with its photo, counts and cards as the reader named them and its suit words and
    ordinals translated."""
    errors = _deck_errors(tmp_path, monkeypatch)
    assert len({kind for kind, _text, _parts in errors}) == DECK_ERROR_KINDS
    set_language(language)
    for kind, text, parts in errors:
        assert terms.is_known_message(text), (kind, text)
        shown = terms.message(text)
        assert shown != text and "{" not in shown, (kind, shown)
        rest = shown
        for part in parts:
            assert part in shown, (kind, part, shown)
            rest = rest.replace(part, "")
        assert not READER_WORDS.search(rest), (kind, shown)
        assert not COMMAND_LINE.search(shown), (kind, shown)


def test_deck_errors_in_english_say_what_to_do_in_the_app(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The command line's advice (--suits, `cpoker deck ...`, `python -m ...`) means
    nothing in the browser: the app's English says what to do in the app instead, and
    keeps the rest of the reader's message."""
    errors = _deck_errors(tmp_path, monkeypatch)
    set_language("en")
    commands = 0
    for kind, text, parts in errors:
        shown = terms.message(text)
        assert all(part in shown for part in parts), (kind, shown)
        assert not COMMAND_LINE.search(shown), (kind, shown)
        commands += bool(COMMAND_LINE.search(text))
    assert commands >= 6
    out_of_order = dict((kind, text) for kind, text, _parts in errors)["out of order"]
    assert "the 2nd card reads 8s, the 8th card reads 2s" in terms.message(out_of_order)


def test_a_deck_photo_read_from_a_file_is_named() -> None:
    """A photo's error from learning a deck names its file (the app gives the uploaded
    file's name); one from an upload read whole names none."""
    set_language("zh_Hant")
    translated = translations("zh_Hant").gettext(
        "the photo is not an image we can read: use a JPEG or PNG photo")
    assert terms.message("IMG_7.jpg is not an image we can read: use a JPEG or PNG "
                         "photo") == f"IMG_7.jpg: {translated}"
    assert terms.message("the uploaded photo is not an image we can read: use a JPEG or "
                         "PNG photo") == translated


@pytest.mark.parametrize("language", list(LANGUAGES))
def test_an_unknown_deck_message_is_shown_as_it_is(language: str) -> None:
    """A message of a shape the app does not know (a new one in vision/decks.py) is shown
    in English rather than lost or garbled."""
    set_language(language)
    for text in ("spades.jpg: the cards are upside down: turn them and retake the photo",
                 "deck 'blue' is busy: try again later",
                 "no deck named 'blue' in the attic",
                 "hearts.jpg: cards out of order (the 2nd card is missing): lay them again"):
        assert terms.message(text) == text


@pytest.mark.parametrize("language", CATALOG_LANGUAGES)
def test_a_card_counted_because_it_completes_the_rows_is_said_in_every_language(
        language: str) -> None:
    from test_vision_reading import _one_unsure, _rows_layout

    from vision.pipeline import read_image

    reading = read_image(np.zeros((100, 100, 3), np.uint8), _one_unsure(_rows_layout(0)))
    [text] = reading.warnings
    set_language(language)
    assert terms.is_known_message(text), text
    shown = terms.message(text)
    assert shown != text and "{" not in shown and "As" in shown, (text, shown)
