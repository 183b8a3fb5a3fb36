"""Translations: every catalog complete and fresh, every engine word and reason mapped."""

from __future__ import annotations

import ast
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
                 "test_front_row_laid_farthest_from_the_centre", "test_too_few_cards"):
        getattr(constructed, name)()
    return seen


@pytest.mark.parametrize("language", CATALOG_LANGUAGES)
def test_table_photo_warnings_are_translated(language: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    warnings = sorted(set(_table_warnings(monkeypatch)))
    assert len(warnings) >= 8
    set_language(language)
    for text in warnings:
        assert terms.is_known_message(text), text
        shown = terms.message(text)
        assert shown != text and "{" not in shown, (text, shown)
        assert not re.search(r"\b(left|top|right|bottom)\b", shown), shown


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
