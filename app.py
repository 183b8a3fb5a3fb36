"""The Streamlit app: advice from a photo of your hand, and the settlement of a real table.

`make run` starts it. This file only wires `vision/` (photo -> cards and rows) to
`engine/` (rules, solver, scoring) and lays out the page, one function per page; `ui/`
holds the translations (`ui.i18n`), the engine's words in the player's language
(`ui.terms`), the card faces and page style (`ui.style`) and the photo as shown
(`ui.photo`). Every string a player reads is marked with `_()`: see README, "Translations".
"""

from __future__ import annotations

import csv
import io
from dataclasses import fields
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from engine.cards import CARD_NAMES, CardError, parse_cards
from engine.naturals import find_naturals
from engine.rules import (
    DEFAULT_PRESET,
    NATURAL_KEYS,
    ROYALTY_KEYS,
    Rules,
    RulesError,
    preset,
    preset_names,
    rules_from_dict,
    rules_from_toml,
)
from engine.scoring import Settlement, TableError, settle
from engine.setting import Row, Setting
from engine.table import parse_player
from ui import terms
from ui.i18n import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    N_,
    _,
    in_this_language,
    ngettext,
    set_language,
)
from ui.photo import annotated_jpeg, legend_html, shrink
from ui.style import PAGE_STYLE, card_text, cards_html
from ui.timing import phase
from vision.photo import PHOTO_SUFFIXES

APP_ERRORS = (CardError, RulesError, TableError)
ROW_NAMES = ("front", "middle", "back")
MAX_PLAYERS = 4


# --- shared pieces ----------------------------------------------------------------------

@st.cache_resource(show_spinner=False)
def _load_detector(deck: str | None) -> Any:
    """Loaded once per server (and deck) and warmed up, so the first photo is answered
    quickly. onnxruntime runs one session from many threads at once, so every session
    shares it."""
    from vision.detector import CardDetector, ModelError

    learned = None
    if deck:
        from vision.decks import DeckError, load_deck

        try:
            learned = load_deck(deck)
        except DeckError as error:
            raise ModelError(str(error)) from None
    detector = CardDetector(deck=learned)
    detector.warm_up()
    return detector


def get_detector() -> Any:
    """The shared detector, reading with the deck chosen in the sidebar."""
    return _load_detector(st.session_state.get("deck_in_use") or None)


def error_text(error: Exception) -> str:
    return terms.message(str(error))


def read_upload(data: bytes, slot: str, expect: int | None = 13) -> Any:
    """A photo's reading, or None after showing why it could not be read. The photo is
    kept only as the page shows it, one per ``slot`` (your hand, each seat): a session
    that uploads sixty photos holds the last of each, not sixty."""
    from vision.detector import ModelError
    from vision.photo import PhotoError, load_photo
    from vision.pipeline import read_image

    try:
        with st.spinner(_("Reading the cards...")), phase("read"):
            image = load_photo(data)
            reading = read_image(image, get_detector(), slot, expect)
    except PhotoError as error:
        st.error(_("{problem}. Upload another photo or type the cards.").format(
            problem=error_text(error)))
        return None
    except ModelError as error:
        st.error(_("The card detector is not available ({problem}). Type the cards instead."
                   ).format(problem=error_text(error)))
        return None
    with phase("draw"):
        picture, scale = shrink(image)
        st.session_state[f"photo:{slot}"] = {"image": np.asarray(picture), "scale": scale,
                                             "jpeg": {}}
    if slot == "hand" and st.session_state.get("deck_in_use"):
        # A corrected card teaches the deck in use from its corners (learn_from_correction):
        # the last hand photo and its boxes are kept, one photo, replaced by the next.
        st.session_state["image:hand"] = image
    else:
        reading.detections = None  # the boxes live on in reading.cards
    return reading


def show_reading(reading: Any, slot: str, caption: str) -> None:
    """The photo with every card boxed (drawn once per language), and the reader's
    warnings."""
    shown = st.session_state.get(f"photo:{slot}")
    if shown is not None:
        from ui.i18n import get_language

        language = get_language()
        if language not in shown["jpeg"]:
            with phase("draw"):
                shown["jpeg"] = {language: annotated_jpeg(shown["image"], reading,
                                                          box_scale=shown["scale"])}
        st.image(shown["jpeg"][language], caption=caption, width="stretch")
        if reading.rows is not None:
            st.markdown(legend_html(), unsafe_allow_html=True)
    for warning in reading.warnings:
        st.warning(terms.message(warning))


def show_cards(cards: list[str], label: str = "", wrap: bool = False) -> None:
    st.markdown(cards_html(cards, label, wrap), unsafe_allow_html=True)


def parse_card_text(text: str) -> list[str] | None:
    try:
        return [str(c) for c in parse_cards(text)]
    except CardError as error:
        st.error(_("{problem}. Fix it and try again: cards look like As, Td, 10d or A♠."
                   ).format(problem=error_text(error)))
        return None


# --- language and rules (the sidebar) ---------------------------------------------------

def language_sidebar() -> str:
    """The player's language, remembered for the session (the widget's key); a link may
    choose it with ?lang=vi."""
    if "language" not in st.session_state:
        asked = st.query_params.get("lang", DEFAULT_LANGUAGE)
        st.session_state["language"] = asked if asked in LANGUAGES else DEFAULT_LANGUAGE
    language = st.sidebar.selectbox("Language / 語言 / 语言 / Ngôn ngữ", list(LANGUAGES),
                                    format_func=LANGUAGES.__getitem__, key="language")
    set_language(language)
    return language


def _option_widget(rules: Rules, name: str) -> Any:
    value = getattr(rules, name)
    key = f"opt:{rules.name}:{name}"
    label = terms.option_label(name)
    choices = {"royalty_mode": ["none", "winner-instead", "winner-added", "always"],
               "row_scheme": ["per-row", "two-of-three"],
               "naturals_versus": ["higher-full", "difference"]}
    if name in choices:
        options = choices[name]
        return st.selectbox(label, options, index=options.index(value), key=key,
                            format_func=in_this_language(terms.choice_label))
    if name == "surrender":
        options = ["not allowed", "two-rows", "fixed units"]
        current = ("not allowed" if value is False else
                   "two-rows" if value == "two-rows" else "fixed units")
        choice = st.selectbox(label, options, index=options.index(current), key=key,
                              format_func=in_this_language(terms.choice_label))
        if choice == "fixed units":
            units = value if isinstance(value, int | float) and value is not False else 3
            return st.number_input(_("surrender units"), 0.0, 100.0, float(units),
                                   key=key + ":u")
        return False if choice == "not allowed" else "two-rows"
    if isinstance(value, bool):
        return st.checkbox(label, value, key=key)
    if name in INTEGER_OPTIONS:
        return st.number_input(label, value=int(value), step=1, key=key)
    if isinstance(value, int | float):
        return st.number_input(label, value=float(value), step=1.0, key=key)
    return value


INTEGER_OPTIONS = {f.name for f in fields(Rules) if f.type in ("int", int)}
EDITABLE = [f.name for f in fields(Rules)
            if f.name not in ("name", "title", "source", "description", "royalties",
                              "naturals", "aces_values")]


def load_rules_file(sidebar: Any) -> None:
    uploaded = sidebar.file_uploader(_("Load a rules file (TOML)"), type=["toml"],
                                     key="rules_file")
    if uploaded is None or st.session_state.get("rules_file_id") == uploaded.file_id:
        return
    try:
        loaded = rules_from_toml(uploaded.getvalue().decode("utf-8", "replace"),
                                 uploaded.name.removesuffix(".toml"))
    except RulesError as error:
        sidebar.error(_("{problem}. The rules in use are unchanged.").format(problem=error))
    else:
        st.session_state["custom_rules"] = loaded
        st.session_state["rules_file_id"] = uploaded.file_id


def rules_sidebar() -> Rules:
    """Choose a preset, read it in words, change any option, save or load it."""
    sidebar = st.sidebar
    sidebar.header(_("Table rules"))
    load_rules_file(sidebar)
    names = preset_names()
    custom = st.session_state.get("custom_rules")
    choices = names + ([custom.name] if custom and custom.name not in names else [])
    default = choices.index(custom.name) if custom else names.index(DEFAULT_PRESET)
    chosen = sidebar.selectbox(_("Preset"), choices, index=default, key="preset")
    base = custom if custom and chosen == custom.name else preset(chosen)
    sidebar.caption(f"**{terms.preset_title(base)}**: {terms.preset_description(base)}")
    with sidebar.expander(_("Change options")):
        changes = {name: _option_widget(base, name) for name in EDITABLE}
        st.markdown("**{}**".format(_("Royalties (units)")))
        royalties = {key: st.number_input(terms.royalty_label(key), 0.0, 200.0,
                                          float(base.royalties.get(key, 0)),
                                          key=f"roy:{base.name}:{key}")
                     for key in ROYALTY_KEYS}
        st.markdown("**{}**".format(_("Naturals (units; 0 = not played)")))
        naturals = {key: st.number_input(terms.natural_label(key), 0.0, 500.0,
                                         float(base.naturals.get(key, 0)),
                                         key=f"nat:{base.name}:{key}")
                    for key in NATURAL_KEYS}
    try:
        rules = rules_from_dict({
            **changes,
            "royalties": {k: v for k, v in royalties.items() if v},
            "naturals": {k: v for k, v in naturals.items() if v},
        }, base)
    except RulesError as error:
        sidebar.error(_("{problem}. Using {rules} as it is.").format(problem=error,
                                                                     rules=base.name))
        rules = base
    if rules != base:
        sidebar.info(_("Options changed from the preset."))
    sidebar.download_button(_("Save these rules"), rules.to_toml(),
                            file_name=f"{rules.name}.toml", mime="application/toml")
    return rules


# --- advice: my hand --------------------------------------------------------------------

HAND_SOURCES = ("upload", "camera", "live", "type")


def hand_source_label(source: str) -> str:
    return {"upload": _("Upload a photo"), "camera": _("Camera"),
            "live": _("Live camera"), "type": _("Type them")}[source]


def hand_input() -> None:
    """Camera, upload or typing; every source ends in st.session_state['hand_cards']."""
    source = st.radio(_("Cards from"), list(HAND_SOURCES), horizontal=True, key="hand_source",
                      format_func=in_this_language(hand_source_label))
    photo = None
    if source == "live":
        live_camera()
    elif source == "camera":
        # The camera's best: a 13-card spread's corner indices need the pixels.
        photo = st.camera_input(_("Photograph your 13 cards, face up"), key="hand_camera",
                                resolution="1080p")
    elif source == "upload":
        photo = st.file_uploader(_("A photo of your 13 cards (or of your three set rows)"),
                                 type=list(PHOTO_SUFFIXES),
                                 key="hand_upload")
    else:
        text = st.text_input(_("Your 13 cards"), key="hand_text",
                             placeholder="As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s")
        if st.button(_("Use these cards"), key="hand_use_text"):
            cards = parse_card_text(text)
            if cards is not None:
                st.session_state["hand_cards"] = cards
                st.session_state["hand_reading"] = None
                st.session_state.pop("photo:hand", None)
    if photo is not None and st.session_state.get("hand_photo_done") != photo.file_id:
        st.session_state["hand_photo"] = (photo.file_id, photo.name, photo.getvalue())
    pending = st.session_state.pop("hand_photo", None)
    if pending and st.session_state.get("hand_photo_done") != pending[0]:
        # The bytes are read once and dropped: nothing is kept per upload.
        st.session_state["hand_photo_done"] = pending[0]
        reading = read_upload(pending[2], "hand")
        if reading is not None:
            st.session_state["hand_reading"] = reading
            st.session_state["hand_cards"] = list(dict.fromkeys(reading.card_names))


def live_camera() -> None:
    """A continuous webcam view with the cards boxed as they are read. Peer-to-peer on the
    same machine or network, so no STUN/TURN server is configured."""
    from streamlit_webrtc import WebRtcMode, webrtc_streamer

    from ui.i18n import get_language
    from vision.detector import ModelError

    try:
        detector = get_detector()
    except ModelError as error:
        st.error(_("The card detector is not available ({problem}). Type the cards instead."
                   ).format(problem=error_text(error)))
        return
    from ui.live import LiveReader

    if "live_reader" not in st.session_state:
        st.session_state["live_reader"] = LiveReader(detector, get_language())
    reader = st.session_state["live_reader"]
    reader.use(detector)
    reader.language = get_language()
    st.caption(_("Hold the cards still for a moment: the camera then reads them as "
                 "carefully as a photo."))
    webrtc_streamer(
        key="live",
        mode=WebRtcMode.SENDRECV,
        video_frame_callback=reader,
        rtc_configuration={"iceServers": []},
        media_stream_constraints={"video": {"width": {"ideal": 1920},
                                            "height": {"ideal": 1080}}, "audio": False},
        async_processing=True,
    )
    if st.button(_("Use the cards in view"), key="live_take"):
        with reader.lock:
            seen = list(reader.latest)
        if seen:
            st.session_state["hand_cards"] = seen
            st.session_state["hand_reading"] = None
            st.session_state.pop("photo:hand", None)
        else:
            st.warning(_("No cards in view yet: start the camera and show the cards."))


def page_hand(rules: Rules) -> None:
    """Phone first: the cards read, then the advice, then the photo and the corrections
    (open by themselves when the count is wrong), so the best setting shows without
    scrolling past the photo."""
    st.subheader(_("My hand: what should I set?"))
    hand_input()
    reading = st.session_state.get("hand_reading")
    if "hand_cards" not in st.session_state:
        st.info(_("Photograph, upload or type your 13 cards to get advice."))
        return
    cards = list(st.session_state["hand_cards"])
    learn_from_correction(reading, cards)
    complete = len(cards) == 13
    show_cards(cards, ngettext("Your card ({count})", "Your cards ({count})",
                               len(cards)).format(count=len(cards)), wrap=True)
    if complete:
        # Three buttons, not a slider: one tap on a phone, and nothing past the edge.
        players = st.radio(_("Players at the table"), list(range(2, MAX_PLAYERS + 1)),
                           index=MAX_PLAYERS - 2, horizontal=True, key="hand_players")
        show_advice(cards, rules, players, reading)
    else:
        verb = (_("add {count} in the list below") if len(cards) < 13
                else _("remove {count} in the list below")).format(count=abs(13 - len(cards)))
        st.warning(_("{count} cards: a hand has 13, {fix}.").format(count=len(cards), fix=verb))
        offer_doubtful_cards(reading, cards)
    if reading is not None:
        with st.expander(_("The photo as read"), expanded=not complete):
            show_reading(reading, "hand", ngettext("{count} card read", "{count} cards read",
                                                   len(reading.cards)
                                                   ).format(count=len(reading.cards)))
    with st.expander(_("Correct the cards"), expanded=not complete):
        st.multiselect(_("Cards (remove a wrong one, add a missed one)"), CARD_NAMES,
                       format_func=card_text, key="hand_cards")


def offer_doubtful_cards(reading: Any, cards: list[str]) -> None:
    """A hand short of 13: the cards the reader saw in one unsure corner ("maybe 5h: ...")
    are one tap away, not a search through 52 names on a phone."""
    if reading is None or len(cards) >= 13:
        return
    offered = [card.card for card in reading.doubtful if card.card not in cards]
    if not offered:
        return
    st.caption(_("Seen, but too unsure to count: check the photo, and tap a card that is "
                 "there."))
    for column, card in zip(st.columns(len(offered)), offered, strict=True):
        column.button(_("Add {card}").format(card=card_text(card)), key=f"hand_maybe:{card}",
                      on_click=add_hand_card, args=(card,))


def add_hand_card(card: str) -> None:
    # A callback: it runs before the page is drawn again, when the card list's widget
    # state may still change.
    cards = list(st.session_state.get("hand_cards", []))
    if card not in cards:
        st.session_state["hand_cards"] = [*cards, card]


def show_advice(cards: list[str], rules: Rules, players: int, reading: Any) -> None:
    from engine.solver import solve

    hand = parse_cards(" ".join(cards))
    try:
        with phase("solve"):
            advice = solve(hand, rules, players=players, top=3)
            naturals = find_naturals(hand, rules)
    except APP_ERRORS as error:
        st.error(error_text(error))
        return
    if naturals:
        best = naturals[0]
        verb = (_("Declare it.") if advice.declare
                else _("Play it as an ordinary setting instead."))
        st.success(_("Natural: **{natural}** ({points} units from each opponent). {advice}"
                     ).format(natural=terms.natural_label(best.key),
                              points=f"{best.points:g}", advice=verb))
    if advice.surrender:
        st.warning(_("Surrendering costs less than playing the best setting with these cards."))
    st.markdown(_("**Best settings** under *{rules}* with {players} players (expected units "
                  "per deal):").format(rules=rules.name, players=players))
    for i, rated in enumerate(advice.settings):
        show_setting(i + 1, rated)
    if reading is not None and reading.rows is not None:
        show_own_setting(reading, rules, players)


def show_setting(number: int, rated: Any) -> None:
    with st.container(border=True):
        st.markdown(_("**#{number}: {ev} units**, royalties {royalties}").format(
            number=number, ev=f"{rated.ev:+.2f}", royalties=f"{rated.royalties:g}"))
        html = "".join(
            cards_html([str(c) for c in rated.setting.row(Row(row)).cards],
                       _("{row}: {hand}, wins {chance}").format(
                           row=terms.row_label(row),
                           hand=terms.describe(rated.setting.row(Row(row)).value),
                           chance=f"{rated.win[row]:.0%}"))
            for row in ROW_NAMES)
        st.markdown(html, unsafe_allow_html=True)


def show_own_setting(reading: Any, rules: Rules, players: int) -> None:
    from engine.solver import compare

    own = reading.rows.to_dict()
    try:
        mine = Setting.parse(*(" ".join(own[r]) for r in ROW_NAMES))
        verdict = compare(mine, rules, players=players)
    except APP_ERRORS as error:
        st.error(_("Your rows as read: {problem}").format(problem=error_text(error)))
        return
    if not verdict.legal:
        st.error(_("Your setting in the photo is fouled: {reason}.").format(
            reason=terms.foul_reason(mine)))
    else:
        st.info(_("Your setting in the photo is legal; it gives up {units} units per deal "
                  "against the best one.").format(units=f"{verdict.gives_up:.2f}"))


# --- showdown ---------------------------------------------------------------------------

def seat_photo(seat: int, name: str) -> None:
    """A photo of the three rows fills the typed rows, for correction."""
    photo = st.file_uploader(_("Photo of the three rows"), type=list(PHOTO_SUFFIXES),
                             key=f"seat{seat}_photo")
    if photo is not None and st.session_state.get(f"seat{seat}_done") != photo.file_id:
        st.session_state[f"seat{seat}_done"] = photo.file_id
        st.session_state[f"seat{seat}_bytes"] = (photo.name, photo.getvalue())
    pending = st.session_state.pop(f"seat{seat}_bytes", None)
    if pending is not None:
        reading = read_upload(pending[1], f"seat{seat}")
        if reading is not None:
            st.session_state[f"seat{seat}_reading"] = reading
            if reading.rows is not None:
                for row, cards in reading.rows.to_dict().items():
                    st.session_state[f"seat{seat}_{row}"] = " ".join(cards)
            else:
                st.session_state[f"seat{seat}_cards"] = " ".join(reading.card_names)
    reading = st.session_state.get(f"seat{seat}_reading")
    if reading is not None:
        show_reading(reading, f"seat{seat}", ngettext(
            "{name}: {count} card read", "{name}: {count} cards read", len(reading.cards)
        ).format(name=name, count=len(reading.cards)))


def seat_form(seat: int) -> dict[str, Any]:
    """One player's seat: name, photo or typed rows, natural, surrender, bank."""
    with st.container(border=True):
        if f"seat{seat}_name" not in st.session_state:
            st.session_state[f"seat{seat}_name"] = _("Player {number}").format(number=seat + 1)
        name = st.text_input(_("Name"), key=f"seat{seat}_name")
        seat_photo(seat, name)
        rows = {row: st.text_input(terms.row_label(row), key=f"seat{seat}_{row}",
                                   placeholder=_("3 cards") if row == "front" else _("5 cards"))
                for row in ROW_NAMES}
        # One under another: side by side, four seats cut these labels short.
        natural = st.checkbox(_("Natural"), key=f"seat{seat}_natural")
        surrender = st.checkbox(_("Surrender"), key=f"seat{seat}_surrender")
        bank = st.checkbox(_("Bank"), key=f"seat{seat}_bank")
        cards = ""
        if (natural or surrender) and not all(rows.values()):
            cards = st.text_input(_("All 13 cards"), key=f"seat{seat}_cards")
    entry: dict[str, Any] = {"name": name, "natural": natural, "surrender": surrender,
                             "bank": bank}
    if all(rows.values()) or not cards:
        entry.update(rows)
    else:
        entry["cards"] = cards
    return entry


def table_photo_source() -> None:
    """One photo of the whole table: its seats and rows fill the seat forms below for
    correction (seat 1 is the form on the left), and the photo comes back with each seat's
    rows boxed in its own colour and numbered."""
    from vision.detector import ModelError
    from vision.draw import annotate_table
    from vision.photo import PhotoError, load_photo
    from vision.pipeline import TABLE_PHOTO_MODE, read_image
    from vision.table import group_table

    photo = st.file_uploader(_("One photo of the whole table (optional)"),
                             type=list(PHOTO_SUFFIXES), key="table_photo")
    if photo is not None and st.session_state.get("table_photo_done") != photo.file_id:
        st.session_state["table_photo_done"] = photo.file_id
        try:
            image = load_photo(photo.getvalue())
            reading = read_image(image, get_detector(), photo.name, expect=None,
                                 mode=TABLE_PHOTO_MODE)
        except PhotoError as error:
            st.error(_("{problem}. Upload another photo, or fill in each seat below.").format(
                problem=error_text(error)))
            return
        except ModelError as error:
            st.error(_("The card detector is not available ({problem}). Fill in each seat "
                       "below.").format(problem=error_text(error)))
            return
        table = group_table(reading.cards, reading.size, doubtful=reading.doubtful)
        if 2 <= len(table.seats) <= MAX_PLAYERS:
            st.session_state["table_players"] = len(table.seats)
        for seat in table.seats[:MAX_PLAYERS]:
            key = f"seat{seat.number - 1}"
            st.session_state.pop(f"{key}_reading", None)
            rows = seat.rows.to_dict() if seat.rows else {"front": [], "middle": [], "back": []}
            for row, cards in rows.items():
                st.session_state[f"{key}_{row}"] = " ".join(cards)
            if seat.rows is None:  # the cards read so far, to set into rows by hand
                st.session_state[f"{key}_cards"] = " ".join(seat.card_names)
        unsure = [f"{seat.number}: {' '.join(seat.unsure)}" for seat in table.seats
                  if seat.unsure]
        st.session_state["table_photo_view"] = (annotate_table(image, table), [
            *reading.warnings, *table.warnings,
            *(w for seat in table.seats for w in seat.warnings)], unsure)
        st.session_state.pop("settlement", None)
    view = st.session_state.get("table_photo_view")
    if view is not None:
        picture, warnings, unsure = view
        st.image(picture, caption=_("Seats as read: seat 1 is the first form below; correct "
                                    "any card there"), use_container_width=True)
        if unsure:
            # A seat short of a card took it from a corner read unsure (vision.table): the
            # settlement does not wait for it, so the players are asked to look.
            st.info(_("Cards marked ? were each read from one unsure corner: check them "
                      "(seat: cards) {seats}").format(seats="; ".join(unsure)))
        for warning in warnings:
            st.warning(terms.message(warning))


def page_showdown(rules: Rules) -> None:
    st.subheader(_("Score the table"))
    table_photo_source()
    count = st.radio(_("Players"), [2, 3, 4], index=2, horizontal=True, key="table_players")
    columns = st.columns(count)
    entries = []
    for seat in range(count):
        with columns[seat]:
            entries.append(seat_form(seat))
    if st.button(_("Settle the showdown"), type="primary", key="settle"):
        try:
            players = [parse_player(e, i + 1) for i, e in enumerate(entries)]
            st.session_state["settlement"] = settle(players, rules)
        except APP_ERRORS as error:
            st.session_state.pop("settlement", None)
            st.error(_("{problem}. Correct it above; nothing you typed was lost.").format(
                problem=error_text(error)))
    result: Settlement | None = st.session_state.get("settlement")
    if result is not None:
        show_settlement(result)


def _units(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 2)


def totals_table(result: Settlement) -> pd.DataFrame:
    """Each player's total: one narrow table that fits a phone."""
    totals = result.totals
    return pd.DataFrame({_("Total"): [_units(totals[p.name]) for p in result.players]},
                        index=pd.Index([p.name for p in result.players], name=_("Player")))


def pair_line(pair: Any) -> str:
    """A pair's rows and net in one line that wraps: 'North v East: front North, ...'."""
    def winner(row: str) -> str:
        won = pair.rows[row]
        return "-" if won is None else _("tie") if won == "tie" else won

    rows = ", ".join(f"{terms.row_label(r)} {winner(r)}" for r in ROW_NAMES)
    return _("**{a} v {b}**: {rows}; net {net} to {a}").format(
        a=pair.a, b=pair.b, rows=rows, net=f"{pair.net:+g}")


def show_settlement(result: Settlement) -> None:
    st.markdown(_("**Settlement** under *{rules}*").format(rules=result.rules.name))
    if result.fouls:
        st.error(_("Fouled (back >= middle >= front broken): {players}").format(
            players=", ".join(result.fouls)))
    for name, natural in result.naturals.items():
        st.success(_("{name} declares {natural} ({points})").format(
            name=name, natural=terms.natural_label(natural.key), points=f"{natural.points:g}"))
    st.table(totals_table(result))
    for pair in result.pairs:
        st.markdown(pair_line(pair))
    with st.expander(_("Every payment with its reason")):
        for pair in result.pairs:
            st.markdown(_("**{a} v {b}**: net {net} to {a}").format(
                a=pair.a, b=pair.b, net=f"{pair.net:+g}"))
            for p in pair.payments:
                reason = terms.payment_reason(p, pair, result) or p.reason
                st.markdown("- " + _("{payer} pays {to} {units}: {reason}").format(
                    payer=p.payer, to=p.to, units=f"{p.units:g}", reason=reason))
    if st.button(_("Add this deal to the session score"), key="add_deal"):
        deals = st.session_state.setdefault("session_deals", [])
        deals.append({"deal": len(deals) + 1, "rules": result.rules.name, **result.totals})
        st.toast(_("Deal {number} added to the session score").format(number=len(deals)))


# --- session score ----------------------------------------------------------------------

def session_csv(deals: list[dict[str, Any]]) -> str:
    players: list[str] = []
    for deal in deals:
        players += [k for k in deal if k not in ("deal", "rules") and k not in players]
    out = io.StringIO()
    writer = csv.DictWriter(out, ["deal", "rules", *players])
    writer.writeheader()
    for deal in deals:
        writer.writerow(deal)
    totals = {p: sum(d.get(p, 0) for d in deals) for p in players}
    writer.writerow({"deal": "total", "rules": "", **totals})
    return out.getvalue()


def page_session() -> None:
    st.subheader(_("Session score"))
    deals = st.session_state.get("session_deals", [])
    if not deals:
        st.info(_("Settle a showdown and add it to the session to keep a running score."))
        return
    frame = pd.DataFrame(deals).fillna(0)
    players = [c for c in frame.columns if c not in ("deal", "rules")]
    shown = frame.rename(columns={"deal": _("deal"), "rules": _("rules")})
    st.dataframe(shown, hide_index=True, width="stretch")
    st.markdown(_("**Running totals**: {totals}").format(totals=", ".join(
        f"{p} {frame[p].sum():+g}" for p in players)))
    st.download_button(_("Download as CSV"), session_csv(deals), file_name="session.csv",
                       mime="text/csv")
    if st.button(_("Clear the session"), key="clear_session"):
        st.session_state["session_deals"] = []
        st.rerun()


# --- my deck: learn the table's deck, choose it, learn from corrections -------------------

DECK_SUITS = (("s", N_("Spades")), ("h", N_("Hearts")), ("d", N_("Diamonds")),
              ("c", N_("Clubs")))
DECK_SOURCES = {"upload": N_("Upload"), "camera": N_("Camera")}
# The deck chooser's value for the base reader: no deck can be named so (a deck's name is
# letters, digits, '-', '_' and '.'); shown in the player's language.
ANY_DECK = N_("Any deck (not learned)")


def deck_label(choice: str) -> str:
    return _(ANY_DECK) if choice == ANY_DECK else choice


def deck_sidebar() -> None:
    """The deck in use: the base reader, or a deck learned on the My deck page."""
    from vision.decks import list_decks

    names = [str(d["name"]) for d in list_decks() if "error" not in d]
    current = st.session_state.get("deck_in_use")
    choices = [ANY_DECK, *names]
    index = choices.index(current) if current in names else 0
    chosen = st.sidebar.selectbox(_("Deck in use"), choices, index=index, key="deck_choice",
                                  format_func=in_this_language(deck_label))
    st.session_state["deck_in_use"] = None if chosen == ANY_DECK else chosen
    if chosen != ANY_DECK:
        # Measured 2026-11-23 (models/README.md, "Learned decks"): a learned deck reads a
        # few more photos right, and only where the corners look like its four photos'.
        st.sidebar.caption(_("A learned deck corrects the reader only on corners that look "
                             "like those in its four photos: if the cards read worse with it, "
                             "choose \"{any_deck}\".").format(any_deck=_(ANY_DECK)))


def page_deck() -> None:
    """Four photos, one a suit, each showing its 13 cards in order A 2 ... 10 J Q K, left
    to right and then the next row down; each is shown boxed and named as understood."""
    from vision.decks import (
        SUIT_WORDS,
        DeckError,
        card_reader,
        learn_deck,
        load_deck,
        understand_photo,
    )
    from vision.detector import ModelError
    from vision.draw import annotate
    from vision.photo import PhotoError, load_photo
    from vision.reading import CardReading

    st.subheader(_("My deck: teach the reader your table's cards"))
    st.markdown(_("Lay out one suit at a time, face up, in the order **A 2 3 4 5 6 7 8 9 10 J "
                  "Q K**, left to right and then the next row down, the cards apart from each "
                  "other. Take one photo a suit."))
    # The example stays as it is: a deck's name is Latin letters, digits, '-', '_' or '.'.
    name = st.text_input(_("Name of the deck"), key="deck_name", placeholder="blue-bicycle")
    source = st.radio(_("Photos from"), list(DECK_SOURCES), horizontal=True, key="deck_source",
                      format_func=in_this_language(lambda s: _(DECK_SOURCES[s])))
    photos: list[tuple[str, bytes] | None] = []
    for suit, title in DECK_SUITS:
        label = _("{suit}: the 13 cards in order, A to K").format(suit=_(title))
        if source == "camera":
            photo = st.camera_input(label, key=f"deck_camera_{suit}", resolution="1080p")
        else:
            photo = st.file_uploader(label, type=list(PHOTO_SUFFIXES),
                                     key=f"deck_upload_{suit}")
        # The file's name, for the reader's messages only: in English, as on the disk.
        filename = (photo.name or f"{SUIT_WORDS[suit]}.jpg") if photo else ""
        photos.append((filename, photo.getvalue()) if photo else None)
        if photo is None:
            continue
        try:
            image = load_photo(photo.getvalue())
            # The base reader boxes the cards: the photo is what teaches the deck. Read as
            # learning reads it: a photo taken from across the table is shown turned.
            understood = understand_photo(filename, suit, image, _load_detector(None),
                                          card_reader())
        except (PhotoError, DeckError, ModelError) as error:
            st.error(error_text(error))
            continue
        cards = [CardReading(card, 1.0, tuple(map(float, np.concatenate(
            [np.min(boxes, axis=0)[:2], np.max(boxes, axis=0)[2:]]))), len(boxes))
            for card, boxes in ((c, np.array(b)) for c, b in understood.card_boxes())]
        caption = _("{suit}: the cards as understood, in order").format(suit=_(title))
        if understood.turn:
            caption += " " + _("(the photo read turned {degrees} degrees, as if taken from "
                               "another side of the cards)").format(degrees=90 * understood.turn)
        st.image(annotate(understood.image, cards, None), use_container_width=True,
                 caption=caption)
    ready = all(photos) and bool(name)
    if st.button(_("Learn this deck"), key="deck_learn", disabled=not ready):
        import tempfile
        from pathlib import Path

        bar = st.progress(0.0, text=_("Learning the deck..."))
        with tempfile.TemporaryDirectory() as folder:
            # Each photo's file on the server -> its name as the player uploaded it.
            uploaded: dict[str, str] = {}
            given = [photo for photo in photos if photo is not None]
            for (filename, data), (suit, _title) in zip(given, DECK_SUITS, strict=True):
                path = Path(folder) / f"{suit}-{Path(filename).name}"
                path.write_bytes(data)
                uploaded[str(path)] = filename
            try:
                deck = learn_deck(name, list(uploaded), detector=_load_detector(None),
                                  progress=lambda step, steps, what: bar.progress(
                                      step / steps, text=terms.deck_step(what)))
            except (DeckError, ModelError) as error:
                # The reader names a photo by its file: the player's name for it, not the
                # server's temporary one.
                problem = str(error)
                for path, filename in uploaded.items():
                    problem = problem.replace(path, filename)
                st.error(_("{problem}. Nothing was saved.").format(
                    problem=terms.message(problem)))
                deck = None
        if deck is not None:
            st.success(_("Deck '{name}' learned. Choose it under '{chooser}' in the sidebar to "
                         "read photos with it.").format(name=deck.name, chooser=_("Deck in use")))
    in_use = st.session_state.get("deck_in_use")
    if not in_use:
        st.info(_("Corrections teach the deck in use: choose a learned deck in the sidebar."))
        return
    try:
        deck = load_deck(in_use)
    except DeckError as error:
        st.error(error_text(error))
        return
    st.markdown(_("**Learning from corrections** (deck '{name}'): when you replace a misread "
                  "card on the My hand page, its corners are kept with the right name and "
                  "later photos read better. Kept so far: {count}.").format(
                      name=in_use, count=deck.correction_count))
    if deck.prints_light_on_dark:
        st.caption(_("This deck prints its indices light on dark (gold or silver on black): "
                     "every photo read with it is also read in its negative."))
    enabled = st.toggle(_("Learn from my corrections"), value=deck.corrections_enabled,
                        key="deck_corrections_on")
    if enabled != deck.corrections_enabled:
        deck.set_corrections(enabled)
        deck.save()
        _load_detector.clear()
    if st.button(_("Clear the corrections"), key="deck_corrections_clear"):
        deck.clear_corrections()
        deck.save()
        _load_detector.clear()
        st.success(_("Corrections cleared."))


def learn_from_correction(reading: Any, cards: list[str]) -> None:
    """A card read wrong and replaced in the list (one removed, one added): its corners
    are kept with the right name for the deck in use, when that deck learns from
    corrections."""
    if reading is None or reading.detections is None or not st.session_state.get(
            "deck_in_use"):
        return
    removed = [r for r in reading.cards if r.card not in cards]
    added = [c for c in cards if c not in reading.card_names]
    if len(removed) != 1 or len(added) != 1:
        return
    key = (reading.image, removed[0].card, added[0])
    if st.session_state.get("deck_last_correction") == key:
        return
    deck = get_detector().deck
    image = st.session_state.get(f"image:{reading.image}")
    if deck is None or image is None or not deck.corrections_enabled:
        return
    x1, y1, x2, y2 = removed[0].box
    for box, name in zip(reading.detections.xyxy, reading.detections.labels, strict=True):
        if name == removed[0].card and x1 - 1 <= box[0] and box[2] <= x2 + 1 and \
                y1 - 1 <= box[1] and box[3] <= y2 + 1:
            deck.add_correction(image, box, added[0])
    deck.save()
    st.session_state["deck_last_correction"] = key
    st.caption(_("Learned: the card read as {read} is {card} in deck '{deck}' (turn this off "
                 "on the My deck page).").format(read=removed[0].card, card=added[0],
                                                 deck=deck.name))


# --- the page ---------------------------------------------------------------------------

def main() -> None:
    # The tab's title in the language chosen so far (the chooser itself comes after).
    set_language(st.session_state.get("language", DEFAULT_LANGUAGE))
    st.set_page_config(page_title=_("Chinese Poker table assistant"), page_icon="🂡",
                       layout="wide")
    with phase("page"):
        language_sidebar()
        st.title(_("Chinese Poker table assistant"))
        st.markdown(PAGE_STYLE, unsafe_allow_html=True)
        rules = rules_sidebar()
        deck_sidebar()
        hand, table, session, deck = st.tabs([_("My hand"), _("Score the table"),
                                              _("Session"), _("My deck")])
        with hand:
            page_hand(rules)
        with table:
            page_showdown(rules)
        with session:
            page_session()
        with deck:
            page_deck()


main()
