"""The Streamlit app: advice from a photo of your hand, and the settlement of a real table.

`make run` starts it. This file only wires `vision/` (photo -> cards and rows) to
`engine/` (rules, solver, scoring) and lays out the page; it holds no game logic.
"""

from __future__ import annotations

import csv
import io
import threading
from dataclasses import fields
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from engine.cards import CARD_NAMES, SUIT_SYMBOLS, CardError, parse_cards
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
from engine.setting import Setting
from engine.table import parse_player

APP_ERRORS = (CardError, RulesError, TableError)
ROW_NAMES = ("front", "middle", "back")
MAX_PLAYERS = 4


# --- shared pieces ----------------------------------------------------------------------

@st.cache_resource(show_spinner="Loading the card detector...")
def get_detector() -> Any:
    """Loaded once per server and warmed up, so the first photo is answered quickly."""
    from vision.detector import CardDetector

    detector = CardDetector()
    detector.warm_up()
    return detector


def read_upload(data: bytes, name: str, expect: int | None = 13) -> Any:
    """A photo's reading, or None after showing why it could not be read."""
    from vision.detector import ModelError
    from vision.photo import PhotoError, load_photo
    from vision.pipeline import read_image

    try:
        image = load_photo(data)
        reading = read_image(image, get_detector(), name, expect)
    except PhotoError as error:
        st.error(f"{error}. Upload another photo or type the cards.")
        return None
    except ModelError as error:
        st.error(f"The card detector is not available ({error}). Type the cards instead.")
        return None
    st.session_state[f"image:{name}"] = image
    return reading


def show_reading(reading: Any, caption: str) -> None:
    from vision.draw import annotate

    image = st.session_state.get(f"image:{reading.image}")
    if image is not None:
        st.image(annotate(image, reading.cards, reading.rows), caption=caption,
                 use_container_width=True)
    for warning in reading.warnings:
        st.warning(warning)


CARD_STYLE = """<style>
.cp-card {display:inline-block; min-width:2.4em; padding:0.35em 0.4em; margin:0.15em;
  border:1px solid #999; border-radius:0.35em; background:#fff; color:#111; font-weight:700;
  font-size:1.25em; text-align:center; box-shadow:1px 1px 2px #0002}
.cp-card.cp-red {color:#c8102e}
</style>"""


def card_face(card: str) -> str:
    red = " cp-red" if card[1] in "hd" else ""
    return f'<span class="cp-card{red}">{card_option(card)}</span>'


def show_cards(cards: list[str], label: str = "") -> None:
    faces = "".join(card_face(c) for c in cards)
    st.markdown(f"{label}{faces}", unsafe_allow_html=True)


def card_option(card: str) -> str:
    return ("10" if card[0] == "T" else card[0]) + SUIT_SYMBOLS[card[1]]


def parse_card_text(text: str) -> list[str] | None:
    try:
        return [str(c) for c in parse_cards(text)]
    except CardError as error:
        st.error(f"{error}. Fix it and try again: cards look like As, Td, 10d or A♠.")
        return None


# --- rules ------------------------------------------------------------------------------

def _option_widget(rules: Rules, name: str) -> Any:
    value = getattr(rules, name)
    key = f"opt:{rules.name}:{name}"
    label = name.replace("_", " ")
    if name == "royalty_mode":
        options = ["none", "winner-instead", "winner-added", "always"]
        return st.selectbox(label, options, index=options.index(value), key=key)
    if name == "row_scheme":
        options = ["per-row", "two-of-three"]
        return st.selectbox(label, options, index=options.index(value), key=key)
    if name == "naturals_versus":
        options = ["higher-full", "difference"]
        return st.selectbox(label, options, index=options.index(value), key=key)
    if name == "surrender":
        options = ["not allowed", "two-rows", "fixed units"]
        current = ("not allowed" if value is False else
                   "two-rows" if value == "two-rows" else "fixed units")
        choice = st.selectbox(label, options, index=options.index(current), key=key)
        if choice == "fixed units":
            units = value if isinstance(value, int | float) and value is not False else 3
            return st.number_input("surrender units", 0.0, 100.0, float(units), key=key + ":u")
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


def rules_sidebar() -> Rules:
    """Choose a preset, read it in words, change any option, save or load it."""
    sidebar = st.sidebar
    sidebar.header("Table rules")
    uploaded = sidebar.file_uploader("Load a rules file (TOML)", type=["toml"], key="rules_file")
    if uploaded is not None and st.session_state.get("rules_file_id") != uploaded.file_id:
        try:
            loaded = rules_from_toml(uploaded.getvalue().decode("utf-8", "replace"),
                                     uploaded.name.removesuffix(".toml"))
        except RulesError as error:
            sidebar.error(f"{error}. The rules in use are unchanged.")
        else:
            st.session_state["custom_rules"] = loaded
            st.session_state["rules_file_id"] = uploaded.file_id
    names = preset_names()
    custom = st.session_state.get("custom_rules")
    choices = names + ([custom.name] if custom and custom.name not in names else [])
    default = choices.index(custom.name) if custom else names.index(DEFAULT_PRESET)
    chosen = sidebar.selectbox("Preset", choices, index=default, key="preset")
    base = custom if custom and chosen == custom.name else preset(chosen)
    sidebar.caption(f"**{base.title or base.name}**: {base.description}")
    with sidebar.expander("Change options"):
        changes = {name: _option_widget(base, name) for name in EDITABLE}
        st.markdown("**Royalties** (units)")
        royalties = {key: st.number_input(key.replace("_", " "), 0.0, 200.0,
                                          float(base.royalties.get(key, 0)),
                                          key=f"roy:{base.name}:{key}")
                     for key in ROYALTY_KEYS}
        st.markdown("**Naturals** (units; 0 = not played)")
        naturals = {key: st.number_input(key.replace("_", " "), 0.0, 500.0,
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
        sidebar.error(f"{error}. Using {base.name} as it is.")
        rules = base
    if rules != base:
        sidebar.info("Options changed from the preset.")
    sidebar.download_button("Save these rules", rules.to_toml(), file_name=f"{rules.name}.toml",
                            mime="application/toml")
    return rules


# --- advice: my hand --------------------------------------------------------------------

def hand_input() -> None:
    """Camera, upload or typing; every source ends in st.session_state['hand_cards']."""
    source = st.radio("Cards from", ["Upload a photo", "Camera", "Live camera", "Type them"],
                      horizontal=True, key="hand_source")
    photo = None
    if source == "Live camera":
        live_camera()
    elif source == "Camera":
        # The camera's best: a 13-card spread's corner indices need the pixels.
        photo = st.camera_input("Photograph your 13 cards, face up", key="hand_camera",
                                resolution="1080p")
    elif source == "Upload a photo":
        photo = st.file_uploader("A photo of your 13 cards (or of your three set rows)",
                                 type=["jpg", "jpeg", "png", "webp", "heic", "bmp"],
                                 key="hand_upload")
    else:
        text = st.text_input("Your 13 cards", key="hand_text",
                             placeholder="As Kd Qh Jc Ts 9d 8h 7c 6s 5d 4h 3c 2s")
        if st.button("Use these cards", key="hand_use_text"):
            cards = parse_card_text(text)
            if cards is not None:
                st.session_state["hand_cards"] = cards
                st.session_state["hand_reading"] = None
    if photo is not None:
        st.session_state["hand_photo"] = (photo.file_id, photo.name, photo.getvalue())
    pending = st.session_state.get("hand_photo")
    if pending and st.session_state.get("hand_photo_done") != pending[0]:
        st.session_state["hand_photo_done"] = pending[0]
        reading = read_upload(pending[2], pending[1] or "photo")
        if reading is not None:
            st.session_state["hand_reading"] = reading
            st.session_state["hand_cards"] = list(dict.fromkeys(reading.card_names))


class LiveReader:
    """Reads every frame of the live video (in streamlit-webrtc's worker thread) and keeps
    the latest reading for the page to take."""

    def __init__(self, detector: Any) -> None:
        self.detector = detector
        self.lock = threading.Lock()
        self.latest: list[str] = []

    def __call__(self, frame: Any) -> Any:
        import av

        from vision.draw import annotate
        from vision.pipeline import read_image

        image = frame.to_ndarray(format="rgb24")
        reading = read_image(image, self.detector, "live", expect=13)
        with self.lock:
            self.latest = list(dict.fromkeys(reading.card_names))
        boxed = np.asarray(annotate(image, reading.cards, reading.rows))
        return av.VideoFrame.from_ndarray(boxed, format="rgb24")


def live_camera() -> None:
    """A continuous webcam view with the cards boxed as they are read. Peer-to-peer on the
    same machine or network, so no STUN/TURN server is configured."""
    from streamlit_webrtc import WebRtcMode, webrtc_streamer

    from vision.detector import ModelError

    try:
        detector = get_detector()
    except ModelError as error:
        st.error(f"The card detector is not available ({error}). Type the cards instead.")
        return
    reader = st.session_state.setdefault("live_reader", LiveReader(detector))
    webrtc_streamer(
        key="live",
        mode=WebRtcMode.SENDRECV,
        video_frame_callback=reader,
        rtc_configuration={"iceServers": []},
        media_stream_constraints={"video": {"width": {"ideal": 1920},
                                            "height": {"ideal": 1080}}, "audio": False},
        async_processing=True,
    )
    if st.button("Use the cards in view", key="live_take"):
        with reader.lock:
            seen = list(reader.latest)
        if seen:
            st.session_state["hand_cards"] = seen
            st.session_state["hand_reading"] = None
        else:
            st.warning("No cards in view yet: start the camera and show the cards.")


def page_hand(rules: Rules) -> None:
    st.subheader("My hand: what should I set?")
    hand_input()
    reading = st.session_state.get("hand_reading")
    if reading is not None:
        show_reading(reading, f"{len(reading.cards)} cards read")
    if "hand_cards" not in st.session_state:
        st.info("Photograph, upload or type your 13 cards to get advice.")
        return
    st.multiselect("Cards (remove a wrong one, add a missed one)", CARD_NAMES,
                   format_func=card_option, key="hand_cards")
    cards = list(st.session_state["hand_cards"])
    show_cards(cards)
    if len(cards) != 13:
        verb = "add" if len(cards) < 13 else "remove"
        st.warning(f"{len(cards)} cards: a hand has 13, {verb} {abs(13 - len(cards))} "
                   "in the list above.")
        return
    players = st.slider("Players at the table", 2, MAX_PLAYERS, 4, key="hand_players")
    show_advice(cards, rules, players, reading)


def show_advice(cards: list[str], rules: Rules, players: int, reading: Any) -> None:
    from engine.solver import compare, solve

    hand = parse_cards(" ".join(cards))
    try:
        advice = solve(hand, rules, players=players, top=3)
    except APP_ERRORS as error:
        st.error(str(error))
        return
    naturals = find_naturals(hand, rules)
    if naturals:
        best = naturals[0]
        verb = "Declare it" if advice.declare else "Play it as an ordinary setting instead"
        st.success(f"Natural: **{best.name}** ({best.points:g} units from each opponent). "
                   f"{verb}.")
    if advice.surrender:
        st.warning("Surrendering costs less than playing the best setting with these cards.")
    st.markdown(f"**Best settings** under *{rules.name}* with {players} players "
                "(expected units per deal):")
    chart = pd.DataFrame({"setting": [f"#{i + 1}" for i in range(len(advice.settings))],
                          "expected value": [s.ev for s in advice.settings]})
    for i, rated in enumerate(advice.settings):
        with st.container(border=True):
            st.markdown(f"**#{i + 1}: {rated.ev:+.2f} units**, royalties {rated.royalties:g}")
            for row in ROW_NAMES:
                hand_row = rated.setting.row(_row(row))
                show_cards([str(c) for c in hand_row.cards],
                           f"<b>{row}</b> ({hand_row.description}, wins "
                           f"{rated.win[row]:.0%}) &nbsp;")
    st.bar_chart(chart, x="setting", y="expected value")
    if reading is not None and reading.rows is not None:
        own = reading.rows.to_dict()
        try:
            mine = Setting.parse(*(" ".join(own[r]) for r in ROW_NAMES))
            verdict = compare(mine, rules, players=players)
        except APP_ERRORS as error:
            st.error(f"Your rows as read: {error}")
            return
        if not verdict.legal:
            st.error(f"Your setting in the photo is fouled: {verdict.foul_reason}.")
        else:
            st.info(f"Your setting in the photo is legal; it gives up "
                    f"{verdict.gives_up:.2f} units per deal against the best one.")


def _row(name: str) -> Any:
    from engine.setting import Row

    return Row(name)


# --- showdown ---------------------------------------------------------------------------

def seat_form(seat: int) -> dict[str, Any]:
    """One player's seat; a photo of the three rows fills the typed rows for correction."""
    with st.container(border=True):
        name = st.text_input("Name", value=f"Player {seat + 1}", key=f"seat{seat}_name")
        photo = st.file_uploader("Photo of the three rows", type=["jpg", "jpeg", "png", "webp"],
                                 key=f"seat{seat}_photo")
        if photo is not None and st.session_state.get(f"seat{seat}_done") != photo.file_id:
            st.session_state[f"seat{seat}_done"] = photo.file_id
            st.session_state[f"seat{seat}_bytes"] = (photo.name, photo.getvalue())
        pending = st.session_state.pop(f"seat{seat}_bytes", None)
        if pending is not None:
            reading = read_upload(pending[1], pending[0])
            if reading is not None:
                st.session_state[f"seat{seat}_reading"] = reading
                if reading.rows is not None:
                    for row, cards in reading.rows.to_dict().items():
                        st.session_state[f"seat{seat}_{row}"] = " ".join(cards)
                else:
                    st.session_state[f"seat{seat}_cards"] = " ".join(reading.card_names)
        reading = st.session_state.get(f"seat{seat}_reading")
        if reading is not None:
            show_reading(reading, f"{name}: {len(reading.cards)} cards read")
        rows = {row: st.text_input(row, key=f"seat{seat}_{row}",
                                   placeholder="3 cards" if row == "front" else "5 cards")
                for row in ROW_NAMES}
        flags = st.columns(3)
        natural = flags[0].checkbox("Natural", key=f"seat{seat}_natural")
        surrender = flags[1].checkbox("Surrender", key=f"seat{seat}_surrender")
        bank = flags[2].checkbox("Bank", key=f"seat{seat}_bank")
        cards = ""
        if (natural or surrender) and not all(rows.values()):
            cards = st.text_input("All 13 cards", key=f"seat{seat}_cards")
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
    from vision.pipeline import read_image
    from vision.table import group_table

    photo = st.file_uploader("One photo of the whole table (optional)",
                             type=["jpg", "jpeg", "png", "webp"], key="table_photo")
    if photo is not None and st.session_state.get("table_photo_done") != photo.file_id:
        st.session_state["table_photo_done"] = photo.file_id
        try:
            image = load_photo(photo.getvalue())
            reading = read_image(image, get_detector(), photo.name, expect=None)
        except PhotoError as error:
            st.error(f"{error}. Upload another photo, or fill in each seat below.")
            return
        except ModelError as error:
            st.error(f"The card detector is not available ({error}). Fill in each seat below.")
            return
        table = group_table(reading.cards, reading.size)
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
        st.session_state["table_photo_view"] = (annotate_table(image, table), [
            *reading.warnings, *table.warnings,
            *(w for seat in table.seats for w in seat.warnings)])
        st.session_state.pop("settlement", None)
    view = st.session_state.get("table_photo_view")
    if view is not None:
        picture, warnings = view
        st.image(picture, caption="Seats as read: seat 1 is the first form below; correct "
                 "any card there", use_container_width=True)
        for warning in warnings:
            st.warning(warning)


def page_showdown(rules: Rules) -> None:
    st.subheader("Score the table")
    table_photo_source()
    count = st.radio("Players", [2, 3, 4], index=2, horizontal=True, key="table_players")
    columns = st.columns(count)
    entries = []
    for seat in range(count):
        with columns[seat]:
            entries.append(seat_form(seat))
    if st.button("Settle the showdown", type="primary", key="settle"):
        try:
            players = [parse_player(e, i + 1) for i, e in enumerate(entries)]
            st.session_state["settlement"] = settle(players, rules)
        except APP_ERRORS as error:
            st.session_state.pop("settlement", None)
            st.error(f"{error}. Correct it above; nothing you typed was lost.")
    result: Settlement | None = st.session_state.get("settlement")
    if result is not None:
        show_settlement(result)


def _units(value: float) -> int | float:
    return int(value) if float(value).is_integer() else round(value, 2)


def settlement_table(result: Settlement) -> pd.DataFrame:
    names = [p.name for p in result.players]
    rows = []
    for pair in result.pairs:
        row: dict[str, Any] = {"pair": f"{pair.a} v {pair.b}"}
        for r in ROW_NAMES:
            row[f"{r} winner"] = pair.rows[r] or "-"
        for n in names:
            row[n] = (_units(pair.net) if n == pair.a else
                      _units(-pair.net) if n == pair.b else "")
        rows.append(row)
    totals = result.totals
    rows.append({"pair": "Total", **{f"{r} winner": "" for r in ROW_NAMES},
                 **{n: _units(totals[n]) for n in names}})
    return pd.DataFrame(rows)


def show_settlement(result: Settlement) -> None:
    st.markdown(f"**Settlement** under *{result.rules.name}*")
    if result.fouls:
        st.error("Fouled (back >= middle >= front broken): " + ", ".join(result.fouls))
    for name, natural in result.naturals.items():
        st.success(f"{name} declares {natural.name} ({natural.points:g})")
    st.table(settlement_table(result).set_index("pair"))
    with st.expander("Every payment with its reason"):
        for pair in result.pairs:
            st.markdown(f"**{pair.a} v {pair.b}**: net {pair.net:+g} to {pair.a}")
            for p in pair.payments:
                st.markdown(f"- {p.payer} pays {p.to} {p.units:g}: {p.reason}")
    if st.button("Add this deal to the session score", key="add_deal"):
        deals = st.session_state.setdefault("session_deals", [])
        deals.append({"deal": len(deals) + 1, "rules": result.rules.name, **result.totals})
        st.toast(f"Deal {len(deals)} added to the session score")


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
    st.subheader("Session score")
    deals = st.session_state.get("session_deals", [])
    if not deals:
        st.info("Settle a showdown and add it to the session to keep a running score.")
        return
    frame = pd.DataFrame(deals).fillna(0)
    st.dataframe(frame, hide_index=True, use_container_width=True)
    players = [c for c in frame.columns if c not in ("deal", "rules")]
    st.markdown("**Running totals**: " + ", ".join(
        f"{p} {frame[p].sum():+g}" for p in players))
    st.download_button("Download as CSV", session_csv(deals), file_name="session.csv",
                       mime="text/csv")
    if st.button("Clear the session", key="clear_session"):
        st.session_state["session_deals"] = []
        st.rerun()


# --- the page ---------------------------------------------------------------------------

def main() -> None:
    st.set_page_config(page_title="Chinese Poker table assistant", page_icon="🂡",
                       layout="wide")
    st.title("Chinese Poker table assistant")
    st.markdown(CARD_STYLE, unsafe_allow_html=True)
    rules = rules_sidebar()
    hand, table, session = st.tabs(["My hand", "Score the table", "Session"])
    with hand:
        page_hand(rules)
    with table:
        page_showdown(rules)
    with session:
        page_session()


main()
