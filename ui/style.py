"""Card faces and the page's style: phone first (390 px wide), and the desktop keeps
Streamlit's wide layout."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from engine.cards import SUIT_SYMBOLS

# A 5-card row fits on one line beside nothing, under its label, at 390 px: each face is
# at most ~3.3em wide at 16 px, and the row never wraps (it shrinks instead).
PAGE_STYLE = """<style>
.cp-row {margin:0.1rem 0 0.35rem 0}
.cp-label {font-size:0.95rem; line-height:1.3; overflow-wrap:anywhere}
.cp-cards {display:flex; flex-wrap:nowrap; gap:0.25rem; max-width:100%}
.cp-card {flex:0 1 3.2em; min-width:0; padding:0.25em 0.1em; border:1px solid #999;
  border-radius:0.35em; background:#fff; color:#111; font-weight:700; font-size:1.15rem;
  text-align:center; white-space:nowrap; box-shadow:1px 1px 2px #0002}
.cp-hand .cp-cards {flex-wrap:wrap}
.cp-card.cp-red {color:#c8102e}
.cp-legend span {display:inline-block; margin-right:0.8em; white-space:nowrap}
.cp-legend i {display:inline-block; width:0.9em; height:0.9em; margin-right:0.3em;
  vertical-align:-0.1em; border-radius:0.15em}
/* A phone: less padding around the page, a smaller title, no sideways scroll. */
@media (max-width: 640px) {
  .block-container {padding:3.8rem 0.7rem 3rem 0.7rem}
  h1 {font-size:1.45rem !important; padding:0.2rem 0 !important}
  .cp-card {font-size:1.05rem}
}
[data-testid="stAppViewContainer"] {overflow-x:hidden}
/* Streamlit cuts the uploader's limits line with an ellipsis in a narrow seat: wrap it. */
[data-testid="stFileUploaderDropzoneInstructions"] * {white-space:normal !important;
  overflow:visible !important; text-overflow:clip !important}
</style>"""


def card_text(card: str) -> str:
    """A card as players read it: 10♦, A♠."""
    return ("10" if card[0] == "T" else card[0]) + SUIT_SYMBOLS[card[1]]


def card_face(card: str) -> str:
    red = " cp-red" if card[1] in "hd" else ""
    return f'<span class="cp-card{red}">{card_text(card)}</span>'


def cards_html(cards: Sequence[str], label: str = "", wrap: bool = False) -> str:
    """A row of card faces under its label (HTML; ``label`` is escaped here)."""
    head = f'<div class="cp-label">{escape(label)}</div>' if label else ""
    faces = "".join(card_face(c) for c in cards)
    kind = "cp-row cp-hand" if wrap else "cp-row"
    return f'<div class="{kind}">{head}<div class="cp-cards">{faces}</div></div>'
