"""Translations through gettext catalogs (ui/locale/<language>/LC_MESSAGES/cpoker.po).

Mark a string for translation with ``_("...")`` where it is shown, or with ``N_("...")``
where it is only stored (a table of names) and translated later by ``_``. Placeholders are
named (``_("{count} cards read").format(count=n)``) so that a translation can move them.
``make catalogs`` extracts the marked strings, updates every catalog and compiles them;
README.md ("Translations") says how to add one.

The language is per session and per script run: Streamlit runs each session's script in
its own thread, so the current language lives in a thread-local set at the top of every
run (``set_language``). Compiled catalogs are read once per process and shared.
"""

from __future__ import annotations

import gettext
import threading
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

DOMAIN = "cpoker"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
DEFAULT_LANGUAGE = "en"
# Shown in the language chooser in their own script, so a player can find theirs.
LANGUAGES: dict[str, str] = {
    "en": "English",
    "zh_Hant": "繁體中文",
    "zh_Hans": "简体中文",
    "vi": "Tiếng Việt",
}
# The catalogs translated from English (English is the msgids themselves).
CATALOG_LANGUAGES = tuple(code for code in LANGUAGES if code != DEFAULT_LANGUAGE)
# Languages whose script needs a CJK font where the server draws text (the photo).
CJK_LANGUAGES = frozenset({"zh_Hant", "zh_Hans"})

_current = threading.local()
T = TypeVar("T")


@lru_cache(maxsize=len(LANGUAGES))
def translations(language: str) -> gettext.NullTranslations:
    """The compiled catalog of ``language``; English (and a missing catalog) translate
    each message to itself."""
    # Read by path: gettext.translation() would "normalise" zh_Hant into another name.
    compiled = LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
    if language == DEFAULT_LANGUAGE or not compiled.exists():
        return gettext.NullTranslations()
    with compiled.open("rb") as handle:
        return gettext.GNUTranslations(handle)


def set_language(language: str) -> None:
    """The language of this thread's messages (one script run of one session)."""
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}: one of {', '.join(LANGUAGES)}")
    _current.language = language


def get_language() -> str:
    return getattr(_current, "language", DEFAULT_LANGUAGE)


def _(message: str) -> str:
    return translations(get_language()).gettext(message)


def ngettext(singular: str, plural: str, count: int) -> str:
    return translations(get_language()).ngettext(singular, plural, count)


def N_(message: str) -> str:
    """Marks a message for extraction without translating it now."""
    return message


def in_this_language(label: Callable[[T], str]) -> Callable[[T], str]:
    """``label`` bound to the current language: a widget's ``format_func`` may be called
    outside the script run that made it (Streamlit's AppTest formats values in the test's
    thread), and must give the labels the page shows."""
    language = get_language()

    def call(value: T) -> str:
        previous = get_language()
        _current.language = language
        try:
            return label(value)
        finally:
            _current.language = previous

    return call
