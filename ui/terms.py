"""The engine's and the reader's words in the player's language.

The engine and the command line stay English: they name things by identifiers (rows,
hand categories, natural keys, rule keys) and explain payments, fouls and errors in
English sentences. This module is the app's edge: it maps each identifier to a message
of the catalogs, rebuilds hand descriptions from hand values, and turns the engine's
sentences back into messages by their fixed shapes (``PAYMENT_SHAPES``, ``ERROR_SHAPES``).
A sentence of no known shape is shown as the engine wrote it; tests/test_i18n.py settles
tables under every preset and checks that no reason is left in English.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from engine.hands import Category, Hand, category_of, tiebreak_ranks
from engine.rules import NATURAL_KEYS, ROYALTY_KEYS, Rules
from engine.scoring import PairResult, Payment, Settlement
from engine.setting import Row, Setting

from .i18n import N_, _

ROW_LABELS = {"front": N_("front"), "middle": N_("middle"), "back": N_("back")}

CATEGORY_LABELS = {
    Category.HIGH_CARD: N_("high card"),
    Category.PAIR: N_("pair"),
    Category.TWO_PAIR: N_("two pair"),
    Category.TRIPS: N_("three of a kind"),
    Category.STRAIGHT: N_("straight"),
    Category.FLUSH: N_("flush"),
    Category.FULL_HOUSE: N_("full house"),
    Category.QUADS: N_("four of a kind"),
    Category.STRAIGHT_FLUSH: N_("straight flush"),
}
ROYAL_FLUSH = N_("royal flush")

# Rank words as a hand description uses them: "jack-high", "pair of jacks". Chinese
# tables name a rank by its index (J), Vietnamese ones by its own word (Bồi).
RANK_WORDS = {
    2: N_("rank:two"), 3: N_("rank:three"), 4: N_("rank:four"), 5: N_("rank:five"),
    6: N_("rank:six"), 7: N_("rank:seven"), 8: N_("rank:eight"), 9: N_("rank:nine"),
    10: N_("rank:ten"), 11: N_("rank:jack"), 12: N_("rank:queen"), 13: N_("rank:king"),
    14: N_("rank:ace"),
}
RANK_PLURAL_WORDS = {
    2: N_("ranks:twos"), 3: N_("ranks:threes"), 4: N_("ranks:fours"), 5: N_("ranks:fives"),
    6: N_("ranks:sixes"), 7: N_("ranks:sevens"), 8: N_("ranks:eights"), 9: N_("ranks:nines"),
    10: N_("ranks:tens"), 11: N_("ranks:jacks"), 12: N_("ranks:queens"),
    13: N_("ranks:kings"), 14: N_("ranks:aces"),
}

# The names the tables use: Chinese from Shisanshui / Sap Sam Cheung, Vietnamese from
# Xap Xam / Mau Binh (in the catalogs).
NATURAL_LABELS = {
    "no_pictures": N_("no pictures"),
    "small_cards": N_("small cards"),
    "six_pairs": N_("six pairs"),
    "three_straights": N_("three straights"),
    "three_flushes": N_("three flushes"),
    "twelve_one_colour": N_("twelve of one colour"),
    "five_pairs_and_triple": N_("five pairs and a triple"),
    "four_triples": N_("four triples"),
    "one_colour": N_("one colour"),
    "all_small": N_("all small"),
    "all_big": N_("all big"),
    "three_quads": N_("three quads"),
    "three_straight_flushes": N_("three straight flushes"),
    "twelve_pictures_plus_one": N_("all twelve pictures plus one"),
    "twelve_royalties": N_("twelve royalties"),
    "dragon": N_("dragon"),
    "thirteen_one_suit": N_("thirteen of one suit"),
    "clean_dragon": N_("clean dragon"),
}
assert set(NATURAL_LABELS) == set(NATURAL_KEYS)


def row_label(row: str | Row) -> str:
    return _(ROW_LABELS[row.value if isinstance(row, Row) else row])


def _untag(message: str) -> str:
    """English rank words carry a tag in their msgid ("rank:two") so that they do not
    share a translation with another "two"; an untranslated one drops it."""
    tagged = message.startswith(("rank:", "ranks:", "edge:", "ordinal:", "separator:"))
    return message.split(":", 1)[1] if tagged else message


def rank_word(rank: int) -> str:
    return _untag(_(RANK_WORDS[rank]))


def rank_plural(rank: int) -> str:
    return _untag(_(RANK_PLURAL_WORDS[rank]))


def category_label(value: int) -> str:
    """A hand's category; the ace-high straight flush is a royal flush."""
    category = category_of(value)
    if category == Category.STRAIGHT_FLUSH and tiebreak_ranks(value)[0] == 14:
        return _(ROYAL_FLUSH)
    return _(CATEGORY_LABELS[category])


def describe(value: int) -> str:
    """A hand in words, as ``engine.hands.describe`` says it in English."""
    category = category_of(value)
    ranks = tiebreak_ranks(value)
    match category:
        case Category.HIGH_CARD:
            return _("{rank}-high").format(rank=rank_word(ranks[0]))
        case Category.PAIR:
            return _("pair of {ranks}").format(ranks=rank_plural(ranks[0]))
        case Category.TWO_PAIR:
            return _("two pair, {high} and {low}").format(high=rank_plural(ranks[0]),
                                                          low=rank_plural(ranks[1]))
        case Category.TRIPS:
            return _("three of a kind, {ranks}").format(ranks=rank_plural(ranks[0]))
        case Category.STRAIGHT:
            return _("straight, {rank}-high").format(rank=rank_word(ranks[0]))
        case Category.FLUSH:
            return _("flush, {rank}-high").format(rank=rank_word(ranks[0]))
        case Category.FULL_HOUSE:
            return _("full house, {three} full of {two}").format(
                three=rank_plural(ranks[0]), two=rank_plural(ranks[1]))
        case Category.QUADS:
            return _("four of a kind, {ranks}").format(ranks=rank_plural(ranks[0]))
        case _:
            if ranks[0] == 14:
                return _(ROYAL_FLUSH)
            return _("straight flush, {rank}-high").format(rank=rank_word(ranks[0]))


def natural_label(key: str) -> str:
    return _(NATURAL_LABELS[key])


def natural_key(english_name: str) -> str | None:
    """The key of a natural from the engine's English name of it."""
    from engine.naturals import NATURAL_NAMES

    return next((k for k, v in NATURAL_NAMES.items() if v == english_name), None)


def foul_reason(setting: Setting) -> str | None:
    """Why a setting is fouled, as ``Setting.foul_reason`` says it in English."""
    for upper, lower in ((Row.MIDDLE, Row.BACK), (Row.FRONT, Row.MIDDLE)):
        if setting.row(upper).value > setting.row(lower).value:
            return _("{upper}: {upper_hand}, beats {lower}: {lower_hand}").format(
                upper=row_label(upper), upper_hand=describe(setting.row(upper).value),
                lower=row_label(lower), lower_hand=describe(setting.row(lower).value))
    return None


# --- rules ------------------------------------------------------------------------------

OPTION_LABELS = {
    "row_scheme": N_("row scheme"),
    "row_points": N_("row points"),
    "two_of_three_units": N_("two of three rows: units"),
    "three_of_three_units": N_("three of three rows: units"),
    "three_of_three_all_units": N_("three of three against every opponent: units"),
    "royalty_mode": N_("royalty mode"),
    "overall_point": N_("overall point"),
    "overall_counts_royalties": N_("overall point counts royalties"),
    "sweep_bonus": N_("sweep bonus"),
    "scoop_multiplier": N_("scoop multiplier"),
    "all_scooped_multiplier": N_("home run multiplier (every opponent scooped)"),
    "all_scooped_min_opponents": N_("home run: fewest opponents"),
    "naturals_versus": N_("two naturals meet"),
    "naturals_equal_values_tie": N_("naturals of equal value tie"),
    "naturals_exempt_from_scoop": N_("naturals exempt from scoops"),
    "small_cards_max": N_("small cards: highest rank"),
    "front_straight_ace_high": N_("front straight may be ace-high"),
    "surrender": N_("surrender"),
    "exchange_payment": N_("exchange payment"),
    "bank_required": N_("played against a bank"),
    "bank_wins_ties": N_("bank wins ties"),
    "pool": N_("pool"),
    "pool_stake": N_("pool stake"),
    "pool_sweep_extra": N_("pool sweep extra"),
    "single_winner": N_("single winner"),
    "aces_side_bet": N_("aces side bet"),
}
CHOICE_LABELS = {
    "none": N_("none"),
    "winner-instead": N_("winner only, instead of the row point"),
    "winner-added": N_("winner only, added to the row point"),
    "always": N_("paid win or lose"),
    "per-row": N_("per row"),
    "two-of-three": N_("two of three rows"),
    "higher-full": N_("the higher takes its full value"),
    "difference": N_("the lower pays the difference"),
    "not allowed": N_("not allowed"),
    "two-rows": N_("as two rows lost"),
    "fixed units": N_("fixed units"),
}


def option_label(name: str) -> str:
    return _(OPTION_LABELS[name])


def choice_label(value: str) -> str:
    return _(CHOICE_LABELS[value])


def royalty_label(key: str) -> str:
    row, category, royal = ROYALTY_KEYS[key]
    hand = _(ROYAL_FLUSH) if royal else _(CATEGORY_LABELS[category])
    return _("{row}: {hand}").format(row=row_label(row), hand=hand)


# Preset titles and descriptions are the engine's data (engine/presets/*.toml); their
# translations are keyed by preset name so that an edited English text shows until its
# translation is updated (tests/test_i18n.py fails when the two disagree).
PRESET_TEXTS = {
    "1-6": (N_("1-6 scoring"),
            N_("One unit a row, plus 3 for winning all three rows: 2-1 pays 1, 2-0 pays 2, "
               "3-0 pays 6.")),
    "2-4": (N_("2-4 scoring"),
            N_("One unit a row plus one overall unit to the net row winner: 2-1 pays 2, "
               "2-0 pays 3, 1-0 pays 2, 3-0 pays 4.")),
    "german": (N_("German Wikipedia"),
               N_("2-4 scoring. Royalties are paid by every opponent whether or not the row "
                  "wins. A natural wins its value from everyone and nothing else is counted "
                  "against it. Surrender loses 0-2 to every player (3 units under 2-4); "
                  "exchange (3 players) pays 2 to each other player.")),
    "hawaiian-gardens": (
        N_("Hawaiian Gardens Casino"),
        N_("Winning at least two of the three rows against an opponent pays 1 unit in all; "
           "all three pays 6, or 9 from each when every opponent (at least two) is swept. "
           "Strong rows won pay their bonus on top. When two naturals meet, the lower pays "
           "the difference. Surrender pays 3 to each opponent. Chips: nobody wins or loses "
           "more than the stack in front of them, settled dealer first. Option: the aces "
           "side bet (aces_side_bet = true).")),
    "malayan": (N_("Malayan Sap Sam Cheung (Dobree)"),
                N_("Up to three players against the bank, who wins tied rows. One unit a row; "
                   "extra payments count whether the row wins or loses. Naturals win their "
                   "value; when the bank and a player both hold one, the higher wins the "
                   "difference.")),
    "pagat": (N_("pagat.com typical scale"),
              N_("One unit a row. A row won with a strong hand pays its bonus instead of 1 "
                 "(winner only). Naturals win automatically; when two meet, the higher takes "
                 "its full value from the lower.")),
    "simple": (N_("Simplest system"),
               N_("One unit for each row won against each opponent; a tied row pays nothing. "
                  "No bonuses, no naturals.")),
    "singapore": (N_("Singapore (Alan Ho)"),
                  N_("One unit a row; a row won with a strong hand pays its bonus instead of "
                     "1. Claims (naturals): two claims of equal value pay each other nothing; "
                     "a dragon beats every other hand. Options: dragon 26 (naturals.dragon = "
                     "26), small cards up to 10 (small_cards_max = 10), winning all three rows "
                     "against every opponent pays double (all_scooped_multiplier = 2).")),
    "taiwanese": (N_("Taiwanese scoop and home run"),
                  N_("As wikipedia, and a scoop (all three rows won against one opponent) pays "
                     "double the base points (rows and overall unit; royalties are added "
                     "undoubled); scooping every opponent (at least two) is a home run and "
                     "doubles again. A natural is exempt from scoops.")),
    "vietnamese": (N_("Vietnamese Xap Xam (Phong Le)"),
                   N_("One unit a row; a row won with a strong hand pays its bonus instead of "
                      "1. Winning all three rows against one opponent pays double; against "
                      "every opponent (at least two), triple. When two naturals meet, the "
                      "higher takes its full value (the pagat rule).")),
    "wikipedia": (N_("Wikipedia royalty table"),
                  N_("2-4 scoring; a row won with a strong hand earns its royalty on top of "
                     "the row point (winner only); the overall unit goes to whoever wins two "
                     "of the three rows. Naturals win their value; when two meet, the "
                     "stronger takes its value. Surrender pays 3 to each opponent. Three-card "
                     "straights for 'three straights' exclude Q-K-A, as the article says.")),
}


def preset_title(rules: Rules) -> str:
    texts = PRESET_TEXTS.get(rules.name)
    if texts is None or texts[0] != rules.title:
        return rules.title or rules.name  # a table's own rules file: its own words
    return _(texts[0])


def preset_description(rules: Rules) -> str:
    texts = PRESET_TEXTS.get(rules.name)
    if texts is None or texts[1] != rules.description:
        return rules.description
    return _(texts[1])


# --- payment reasons --------------------------------------------------------------------

def _number(value: float) -> str:
    return f"{value:g}"


def _hand_of(result: Settlement, player: str, row: str) -> Hand | None:
    found = next((p for p in result.players if p.name == player), None)
    if found is None or found.setting is None:
        return None
    return found.setting.row(Row(row))


def _natural(english_name: str) -> str:
    key = natural_key(english_name)
    return natural_label(key) if key else english_name


def _row_reason(match: re.Match[str], payment: Payment, pair: PairResult,
                result: Settlement) -> str:
    row, winner, versus, extra = match["row"], match["name"], match["versus"], match["extra"]
    loser = pair.b if winner == pair.a else pair.a
    hand, other = _hand_of(result, winner, row), _hand_of(result, loser, row)
    if versus == "opponent fouled":
        against = _("opponent fouled")
    elif hand is not None and versus.endswith(" ties, the bank wins ties"):
        against = _("{hand} ties, the bank wins ties").format(hand=describe(hand.value))
    elif hand is not None and other is not None:
        against = _("{hand} beats {other}").format(hand=describe(hand.value),
                                                   other=describe(other.value))
    else:
        return payment.reason
    reason = _("{row}: {player} wins, {versus}").format(row=row_label(row), player=winner,
                                                        versus=against)
    if extra:
        royalty, points = extra.split(" instead of ")
        reason = _("{reason} ({royalty} instead of {points})").format(
            reason=reason, royalty=royalty, points=points)
    return reason


def _royalty_reason(match: re.Match[str], payment: Payment, _pair: PairResult,
                    result: Settlement) -> str:
    hand = _hand_of(result, payment.to, match["row"])
    if hand is None:
        return payment.reason
    text = _("{row} royalty: {hand}").format(row=row_label(match["row"]),
                                              hand=describe(hand.value))
    if match["always"]:
        text = _("{reason} (paid win or lose)").format(reason=text)
    return text


def _simple(message: str, **renames: str) -> Callable[..., str]:
    """A reason whose parts are copied as they are (names, numbers) or, for natural
    names, translated."""

    def build(match: re.Match[str], *_args: Any) -> str:
        values = {key: (_natural(v) if key.startswith("natural") else v)
                  for key, v in match.groupdict().items() if v is not None}
        return _(message).format(**{renames.get(k, k): v for k, v in values.items()})

    return build


NAME = "(?P<name>{names})"
# Each English reason the engine writes (engine/scoring.py), most specific first.
PAYMENT_SHAPES: list[tuple[str, Callable[..., str]]] = [
    (r"natural: (?P<natural>.+) beats (?P<natural_other>.+)",
     _simple(N_("natural: {natural} beats {natural_other}"))),
    (r"natural: (?P<natural>.+)", _simple(N_("natural: {natural}"))),
    (rf"surrender: {NAME} surrenders", _simple(N_("surrender: {name} surrenders"))),
    (rf"(?P<row>front|middle|back): {NAME} wins, (?P<versus>.+?)"
     r"(?: \((?P<extra>\S+ instead of \S+)\))?", _row_reason),
    (r"(?P<row>front|middle|back) royalty: .+?(?P<always> \(paid win or lose\))?",
     _royalty_reason),
    (rf"{NAME} wins all three rows against every opponent",
     _simple(N_("{name} wins all three rows against every opponent"))),
    (rf"{NAME} wins all three rows", _simple(N_("{name} wins all three rows"))),
    (rf"{NAME} wins two of three rows", _simple(N_("{name} wins two of three rows"))),
    (rf"overall point: {NAME} wins on balance",
     _simple(N_("overall point: {name} wins on balance"))),
    (rf"sweep: {NAME} wins all three rows", _simple(N_("sweep: {name} wins all three rows"))),
    (r"home run: every opponent scooped, base points x(?P<times>\S+)",
     _simple(N_("home run: every opponent scooped, base points x{times}"))),
    (rf"scoop: {NAME} wins all three rows, base points x(?P<times>\S+)",
     _simple(N_("scoop: {name} wins all three rows, base points x{times}"))),
    (r"pool: (?P<name>{names}) collects from (?P<other>{names})",
     _simple(N_("pool: {name} collects from {other}"))),
    (rf"single winner: {NAME} beats every player on two rows or more",
     _simple(N_("single winner: {name} beats every player on two rows or more"))),
    (r"aces side bet: (?P<mine>\d+) aces against (?P<theirs>\d+)",
     _simple(N_("aces side bet: {mine} aces against {theirs}"))),
    (rf"exchange: {NAME} exchanged cards", _simple(N_("exchange: {name} exchanged cards"))),
    (rf"stack limit: {NAME}'s chips cover (?P<paid>\S+) of (?P<owed>\S+)",
     _simple(N_("stack limit: {name}'s chips cover {paid} of {owed}"))),
]


def payment_reason(payment: Payment, pair: PairResult, result: Settlement) -> str | None:
    """A payment's reason in the current language, or None when the engine wrote it in
    a shape this module does not know (the caller shows the English one)."""
    names = "|".join(re.escape(p.name) for p in sorted(result.players,
                                                        key=lambda p: -len(p.name)))
    for shape, build in PAYMENT_SHAPES:
        match = re.fullmatch(shape.replace("{names}", names), payment.reason)
        if match:
            return build(match, payment, pair, result)
    return None


# --- messages from the engine and the reader --------------------------------------------

ERROR_SHAPES: list[tuple[str, str]] = [
    (r'unknown card "(?P<card>.*)": no suit \(use s, h, d, c or ♠ ♥ ♦ ♣\)',
     N_('unknown card "{card}": no suit (use s, h, d, c or ♠ ♥ ♦ ♣)')),
    (r'unknown card "(?P<card>.*)": rank must be one of 2-9, T or 10, J, Q, K, A',
     N_('unknown card "{card}": rank must be one of 2-9, T or 10, J, Q, K, A')),
    (r"empty card", N_("empty card")),
    (r"(?P<card>\S+) appears twice", N_("{card} appears twice")),
    (r"expected (?P<count>\d+) cards, got (?P<got>\d+)",
     N_("expected {count} cards, got {got}")),
    (r"a row has 3 or 5 cards, got (?P<got>\d+)", N_("a row has 3 or 5 cards, got {got}")),
    (r"the (?P<row>front|middle|back) row needs (?P<count>\d+) cards, got (?P<got>\d+)",
     N_("the {row} row needs {count} cards, got {got}")),
    (r"(?P<card>\S+) is used twice at the table: (?P<first>.+) and (?P<second>.+)",
     N_("{card} is used twice at the table: {first} and {second}")),
    (r"(?P<name>.+) has (?P<count>\d+) cards, needs 13", N_("{name} has {count} cards, needs 13")),
    (r"(?P<name>.+) gives 13 cards but no rows: set front, middle and back, or declare a "
     r"natural or surrender",
     N_("{name} gives 13 cards but no rows: set front, middle and back, or declare a natural "
        "or surrender")),
    (r"(?P<name>.+): missing the (?P<rows>.+) row", N_("{name}: missing the {rows} row")),
    (r'(?P<name>.+): give "front", "middle" and "back", or all 13 "cards"',
     N_('{name}: give the front, middle and back rows, or all 13 cards')),
    (r"two players are called \"(?P<name>.+)\": give each a different name",
     N_('two players are called "{name}": give each a different name')),
    (r"every player needs a name", N_("every player needs a name")),
    (r'player (?P<seat>\d+) needs a "name"', N_("player {seat} needs a name")),
    (r"only one player can be the bank, got (?P<names>.+)",
     N_("only one player can be the bank, got {names}")),
    (r"the (?P<scheme>pool|single winner) is played without a bank: unmark (?P<name>.+) as "
     r"bank", N_("this rule set is played without a bank: unmark {name} as bank")),
    (r'rules "(?P<rules>.+)" play against a bank: mark one player "bank"',
     N_('rules "{rules}" play against a bank: mark one player as bank')),
    (r'(?P<name>.+) surrenders, but rules "(?P<rules>.+)" do not allow surrender',
     N_('{name} surrenders, but rules "{rules}" do not allow surrender')),
    (r"(?P<name>.+) both declares a natural and surrenders: pick one",
     N_("{name} both declares a natural and surrenders: pick one")),
    (r'(?P<name>.+) declares a natural, but rules "(?P<rules>.+)" play none',
     N_('{name} declares a natural, but rules "{rules}" play none')),
    (r'(?P<name>.+) declares a natural, but the 13 cards make none under rules '
     r'"(?P<rules>.+)" \((?P<playable>.+)\)',
     N_('{name} declares a natural, but the 13 cards make none under rules "{rules}"')),
    # The reader's warnings (vision/).
    (r"no cards found: lay the cards face up, corners visible, and retake the photo",
     N_("no cards found: lay the cards face up, corners visible, and retake the photo")),
    (r"found (?P<count>\d+) cards, expected (?P<expect>\d+): add the missing cards? or retake "
     r"the photo", N_("found {count} cards, expected {expect}: add the missing cards in the "
                      "list or retake the photo")),
    (r"found (?P<count>\d+) cards, expected (?P<expect>\d+): remove the extra cards? or "
     r"retake the photo", N_("found {count} cards, expected {expect}: remove the extra cards "
                             "from the list or retake the photo")),
    (r"(?P<card>\S+) seen (?P<count>\d+) times: remove the duplicate card or correct the "
     r"reading", N_("{card} seen {count} times: remove the duplicate card or correct the "
                    "reading")),
    (r"maybe (?P<card>\S+): one corner near \((?P<x>\d+), (?P<y>\d+)\) reads \S+ at "
     r"(?P<confidence>\S+), too unsure to count; check it and add the card if it is there",
     N_("maybe {card}: one corner near ({x}, {y}) reads {card} at {confidence}, too unsure "
        "to count; check it and add the card if it is there")),
    (r"(?P<card>\S+) was read in one unsure corner \((?P<confidence>\S+)\) and counted "
     r"because it completes the three rows: check it",
     N_("{card} was read in one unsure corner ({confidence}) and counted because it "
        "completes the three rows: check it")),
    # What to change in the retake, when a hand reads short (vision/retake.py).
    (r"the card corners are small in this photo: move closer, so the cards fill most of it",
     N_("the card corners are small in this photo: move closer, so the cards fill most of "
        "it")),
    (r"the card corners lie on top of each other: fan the cards wider, so each corner shows "
     r"whole", N_("the card corners lie on top of each other: fan the cards wider, so each "
                  "corner shows whole")),
    (r"(?P<card>\S+), seen in one corner, was set aside as a card too many: check it",
     N_("{card}, seen in one corner, was set aside as a card too many: check it")),
    (r"(?P<photo>.+) is not an image we can read: use a JPEG or PNG photo",
     N_("the photo is not an image we can read: use a JPEG or PNG photo")),
    (r"(?P<photo>.+) cannot be read \((?P<why>.+)\): use a JPEG or PNG photo",
     N_("the photo cannot be read ({why}): use a JPEG or PNG photo")),
    (r"(?P<photo>.+) is too small \((?P<size>\d+x\d+) pixels\) to show cards",
     N_("the photo is too small ({size} pixels) to show cards")),
    # The table reader's warnings (vision/table.py), one photo of the whole table.
    (r"found (?P<count>\d+) cards, a table holds 26 to 52: lay every player's three rows "
     r"face up and retake the photo from above",
     N_("found {count} cards, a table holds 26 to 52: lay every player's three rows face up "
        "and retake the photo from above")),
    (r"seat (?P<seat>\d+): (?P<count>\d+) cards?, a hand has 13: find the missing cards? or "
     r"retake the photo", N_("seat {seat}: {count} cards, a hand has 13: find the missing "
                             "cards or retake the photo")),
    (r"seat (?P<seat>\d+): (?P<count>\d+) cards?, a hand has 13: remove the extra cards? or "
     r"retake the photo", N_("seat {seat}: {count} cards, a hand has 13: remove the extra "
                             "cards or retake the photo")),
    (r"seat (?P<seat>\d+): (?P<card>\S+), seen in one corner, was set aside as a card too "
     r"many: check it", N_("seat {seat}: {card}, seen in one corner, was set aside as a card "
                           "too many: check it")),
    (r"seat (?P<seat>\d+): the row of 3 lies farthest from the table's centre, where the "
     r"back row goes: check which row is which",
     N_("seat {seat}: the row of 3 lies farthest from the table's centre, where the back row "
        "goes: check which row is which")),
    (r"seat (?P<seat>\d+): the cards do not lie in three rows of 3, 5 and 5: straighten the "
     r"rows, or correct them by hand",
     N_("seat {seat}: the cards do not lie in three rows of 3, 5 and 5: straighten the rows, "
        "or correct them by hand")),
    (r"seat (?P<seat>\d+): (?P<card>\S+) seen twice in this seat: one of them is misread; "
     r"correct it", N_("seat {seat}: {card} seen twice in this seat: one of them is misread; "
                       "correct it")),
    (r"seat (?P<seat>\d+): (?P<card>\S+) is also seen at seat (?P<seats>.+): a deck holds it "
     r"once; correct the misread one",
     N_("seat {seat}: {card} is also seen at seat {seats}: a deck holds it once; correct the "
        "misread one")),
    (r"seat (?P<seat>\d+): cards at the photo's (?P<edges>.+?) edges?: the seat may be cut "
     r"off; retake the photo with the whole table in view",
     N_("seat {seat}: cards at the photo's edge ({edges}): the seat may be cut off; retake "
        "the photo with the whole table in view")),
    (r"(?P<photo>.+) is too large \((?P<size>\d+x\d+) pixels, (?P<megapixels>\d+) megapixels\): "
     r"use a photo of at most (?P<most>\d+) megapixels",
     N_("the photo is too large ({size} pixels, {megapixels} megapixels): use a photo of at "
        "most {most} megapixels")),
    # Learning, loading and correcting a deck (vision/decks.py), on the My deck page. A
    # deck's name and a typed card come quoted (repr); a photo is named by its file. Where
    # the reader says what to type on the command line (--suits, `cpoker deck ...`,
    # `python -m ...`), the app says what to do in the app instead.
    (r"deck name (?P<deck>.+): use 1 to 40 letters, digits, '-', '_' or '\.', starting with "
     r"a letter or digit",
     N_("deck name '{deck}': use 1 to 40 letters, digits, '-', '_' or '.', starting with a "
        "letter or digit")),
    (r"no deck named (?P<deck>.+) \(stored decks: (?P<known>.*)\); learn it with "
     r"`cpoker deck learn`",
     N_("no deck named '{deck}' (learned decks: {known}): learn it on the My deck page")),
    (r"no deck named (?P<deck>.+); `cpoker deck list` shows the stored decks",
     N_("no deck named '{deck}': choose a learned deck in the sidebar")),
    (r"deck (?P<deck>.+) in (?P<path>.+) cannot be read \((?P<why>.+)\): forget it and learn "
     r"it again",
     N_("deck '{deck}' in {path} cannot be read ({why}): learn it again on the My deck page, "
        "under the same name")),
    (r"deck (?P<deck>.+) was stored in another format: learn it again",
     N_("deck '{deck}' was stored in another format: learn it again on the My deck page, "
        "under the same name")),
    (r"(?P<model>\S+) is missing from (?P<folder>.+): make it with "
     r"`python -m vision\.training\.deck_features`",
     N_("the features model {model} is missing from {folder}: decks cannot be learned or "
        "used until whoever runs this app makes it")),
    (r"(?P<model>\S+) has no features output: remake it with "
     r"`python -m vision\.training\.deck_features`",
     N_("the features model {model} has no features output: decks cannot be learned or used "
        "until whoever runs this app remakes it")),
    (r"(?P<given>.+) is not a card name \(e\.g\. As, Td, 9h\)",
     N_('"{given}" is not a card name (e.g. As, Td, 9h)')),
    (r"--suits (?P<given>.+): give the four suits s h d c once each, in the order of the "
     r"photos \(e\.g\. shdc\)",
     N_("the photos' suits \"{given}\" are not the four suits once each: upload each suit's "
        "photo under that suit's title")),
    (r"(?P<count>\d+) photos given: give four, one a suit, in the order (?P<order>.+)",
     N_("{count} photos given: give four, one a suit, in the order {order}")),
    (r"(?P<photo>.+) and (?P<other>.+) are the same photo: give one photo a suit",
     N_("{photo} and {other} are the same photo: give one photo a suit")),
    (r"(?P<photo>.+): no cards found: lay the 13 (?P<suit>\w+) face up, corners visible, and "
     r"retake the photo",
     N_("{photo}: no cards found: lay the 13 {suit} face up, corners visible, and retake the "
        "photo")),
    (r"(?P<photo>.+): found (?P<count>\d+) cards, fewer than the 13 (?P<suit>\w+): lay out all "
     r"13, apart from each other, and retake the photo",
     N_("{photo}: found {count} cards, fewer than the 13 {suit}: lay out all 13, apart from "
        "each other, and retake the photo")),
    (r"(?P<photo>.+): found (?P<count>\d+) cards, more than the 13 (?P<suit>\w+): lay out all "
     r"13, apart from each other, and retake the photo",
     N_("{photo}: found {count} cards, more than the 13 {suit}: lay out all 13, apart from "
        "each other, and retake the photo")),
    (r"(?P<photo>.+): cards out of order \((?P<described>.+)\): lay the (?P<suit>\w+) "
     r"A 2 3 4 5 6 7 8 9 10 J Q K, left to right, then the next row down, and retake the photo",
     N_("{photo}: cards out of order ({described}): lay the {suit} A 2 3 4 5 6 7 8 9 10 J Q K, "
        "left to right, then the next row down, and retake the photo")),
    (r"(?P<photo>.+): its cards read as (?P<read>\w+), not (?P<suit>\w+) \((?P<count>\d+) of "
     r"(?P<sure>\d+) cards read surely\): give one photo a suit, in the order of --suits "
     r"\(by default spades, hearts, diamonds, clubs\)",
     N_("{photo}: its cards read as {read}, not {suit} ({count} of {sure} cards read surely): "
        "upload each suit's photo under that suit's title")),
]
# The photo's edges, as the table reader names them ("cards at the photo's top edge").
EDGE_LABELS = {"left": N_("edge:left"), "top": N_("edge:top"), "right": N_("edge:right"),
               "bottom": N_("edge:bottom")}
# The words deck learning's messages are made of (vision.decks.SUIT_WORDS, its ordinals).
SUIT_LABELS = {"spades": N_("spades"), "hearts": N_("hearts"), "diamonds": N_("diamonds"),
               "clubs": N_("clubs")}
ORDINAL_LABELS = {
    1: N_("ordinal:1st"), 2: N_("ordinal:2nd"), 3: N_("ordinal:3rd"), 4: N_("ordinal:4th"),
    5: N_("ordinal:5th"), 6: N_("ordinal:6th"), 7: N_("ordinal:7th"), 8: N_("ordinal:8th"),
    9: N_("ordinal:9th"), 10: N_("ordinal:10th"), 11: N_("ordinal:11th"),
    12: N_("ordinal:12th"), 13: N_("ordinal:13th"),
}
LIST_SEPARATOR = N_("separator:, ")
NO_DECKS = N_("none yet")
# One card of "cards out of order (the 2nd card reads 8s, the 8th card reads 2s)".
_MISREAD = re.compile(r"the (?P<place>\d+)(?:st|nd|rd|th) card reads (?P<card>\S+)")
# The photo named in a photo's error when it was read from a file, not from the upload.
UPLOADED_PHOTO = "the uploaded photo"


def suit_word(word: str) -> str:
    """An English suit word of the reader's ("spades") in the current language."""
    return _(SUIT_LABELS[word]) if word in SUIT_LABELS else word


def _listed(items: list[str]) -> str:
    return _untag(_(LIST_SEPARATOR)).join(items)


def _misread(text: str) -> str:
    match = _MISREAD.fullmatch(text)
    place = int(match["place"]) if match else 0
    if place not in ORDINAL_LABELS:
        return text
    return _("the {ordinal} card reads {card}").format(
        ordinal=_untag(_(ORDINAL_LABELS[place])), card=match["card"])


def _unquoted(text: str) -> str:
    """A name the reader quoted (``repr``), without its quotes: the message quotes it."""
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text


# How each variable part of a message is shown, by its name in ERROR_SHAPES.
_VALUES: dict[str, Callable[[str], str]] = {
    "deck": _unquoted,
    "given": _unquoted,
    "suit": suit_word,
    "read": suit_word,
    "order": lambda order: _listed([suit_word(w) for w in order.split()]),  # "spades hearts"
    "described": lambda described: _listed([_misread(d) for d in described.split(", ")]),
    "known": lambda known: _(NO_DECKS) if known == "none yet" else known,
}
# An engine message prefixed with where it happened: "North: front: As appears twice".
_PREFIXED = re.compile(r"(?P<where>[^:]+): (?P<rest>.+)")


def message(text: str) -> str:
    """An engine or reader message in the current language; one of no known shape is
    returned as it is."""
    for shape, msgid in ERROR_SHAPES:
        match = re.fullmatch(shape, text)
        if match:
            values = match.groupdict()
            if "row" in values:
                values["row"] = row_label(values["row"])
            if "rows" in values:  # "front and back"
                values["rows"] = " & ".join(row_label(r) for r in values["rows"].split(" and "))
            if "seats" in values:  # "2 and 3"
                values["seats"] = " & ".join(values["seats"].split(" and "))
            if "edges" in values:  # "left and bottom"
                values["edges"] = " & ".join(_untag(_(EDGE_LABELS[e])) if e in EDGE_LABELS
                                             else e for e in values["edges"].split(" and "))
            for key, shown in _VALUES.items():
                if key in values:
                    values[key] = shown(values[key])
            text = _(msgid).format(**values)
            photo = values.get("photo")
            if photo and photo != UPLOADED_PHOTO and "{photo}" not in msgid:
                # A photo read from a file (a deck's photo): say which one.
                return f"{photo}: {text}"
            return text
    prefixed = _PREFIXED.fullmatch(text)
    if prefixed:
        where, rest = prefixed["where"], prefixed["rest"]
        inner = message(rest)
        if inner != rest:
            return f"{row_label(where) if where in ROW_LABELS else where}: {inner}"
    return text


def is_known_message(text: str) -> bool:
    """Whether ``message`` knows the shape of ``text`` (tests use it)."""
    if any(re.fullmatch(shape, text) for shape, _msgid in ERROR_SHAPES):
        return True
    prefixed = _PREFIXED.fullmatch(text)
    return bool(prefixed) and is_known_message(prefixed["rest"])


# What vision.decks.learn_deck says it is doing, under the progress bar of the My deck page.
DECK_STEPS: list[tuple[str, str]] = [
    (r"reading (?P<photo>.+)", N_("reading {photo}")),
    (r"cutting corner crops", N_("cutting corner crops")),
    (r"fitting the deck", N_("fitting the deck")),
    (r"saved", N_("saved")),
]


def deck_step(text: str) -> str:
    """A step of learning a deck in the current language; an unknown one as it is."""
    for shape, msgid in DECK_STEPS:
        match = re.fullmatch(shape, text)
        if match:
            return _(msgid).format(**match.groupdict())
    return text
