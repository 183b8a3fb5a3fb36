"""The app's translation catalogs: extract, update, compile, check (``make catalogs``).

    python tools/catalogs.py            # extract the marked strings, update every .po, compile .mo
    python tools/catalogs.py --check    # fail when a catalog is stale or a message untranslated
    python tools/catalogs.py --add fil  # start a catalog for a new language

Strings are marked in app.py and ui/ with ``_()``, ``ngettext()`` or ``N_()``
(``ui/i18n.py``). The template is ``ui/locale/cpoker.pot``; each language has
``ui/locale/<code>/LC_MESSAGES/cpoker.po`` (translated by a person) and the compiled
``cpoker.mo`` beside it, committed so that the app needs Babel only to change catalogs.
Written without line numbers and with fixed dates, so that a catalog changes only when a
message does (no merge conflicts from a moved line).
"""

from __future__ import annotations

import argparse
import io
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ui.i18n import CATALOG_LANGUAGES, DOMAIN, LOCALE_DIR  # noqa: E402

SOURCES = [("app.py", "python"), ("ui/**.py", "python")]
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)  # no churn: the date is not information here
PLACEHOLDER = re.compile(r"\{[a-z_]*\}")
# The header line naming the Babel that wrote a catalog: a new Babel release changes it and
# nothing else, so freshness is judged without it.
GENERATED_BY = re.compile(rb'"Generated-By: [^"]*"')


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def extract() -> Catalog:
    template = Catalog(project="cpoker", version="0.1", creation_date=FIXED_DATE,
                       revision_date=FIXED_DATE, fuzzy=False)
    for filename, lineno, message, comments, context in extract_from_dir(
            ROOT, SOURCES, keywords=DEFAULT_KEYWORDS):
        if not (message[0] if isinstance(message, tuple) else message):
            continue
        template.add(message, None, [(filename, lineno)], auto_comments=comments,
                     context=context)
    return template


def _po_text(catalog: Catalog, template: bool = False) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=96, no_location=True, omit_header=False, sort_output=True,
             ignore_obsolete=True, include_previous=False)
    return out.getvalue()


def _mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def _same_po(written: bytes, wanted: bytes) -> bool:
    """Whether a .po or .pot file says what ``wanted`` says, whichever Babel wrote it."""
    return GENERATED_BY.sub(b"", written) == GENERATED_BY.sub(b"", wanted)


def _translations(mo: bytes) -> dict[object, object]:
    """A compiled catalog's messages, id -> string (plurals as tuples), without its header
    (which names the Babel that compiled it)."""
    def plain(value: object) -> object:
        return tuple(value) if isinstance(value, list) else value

    return {(message.context, plain(message.id)): plain(message.string)
            for message in read_mo(io.BytesIO(mo)) if message.id}


def _same_mo(written: bytes, catalog: Catalog) -> bool:
    """Whether a .mo file holds ``catalog``'s translations, whichever Babel compiled it."""
    return _translations(written) == _translations(_mo_bytes(catalog))


def updated(language: str, template: Catalog) -> Catalog:
    with po_path(language).open("rb") as handle:
        catalog = read_po(handle, locale=language)
    catalog.update(template, no_fuzzy_matching=True, update_creation_date=True)
    catalog.revision_date = FIXED_DATE
    return catalog


def problems(language: str, catalog: Catalog) -> list[str]:
    """Untranslated or fuzzy messages, and translations that lost or added a placeholder."""
    found = []
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            found.append(f"{language}: untranslated: {ids[0]!r}")
            continue
        wanted = set(PLACEHOLDER.findall(ids[-1]))
        for string in strings:
            if set(PLACEHOLDER.findall(string)) != wanted:
                found.append(f"{language}: placeholders differ: {ids[0]!r} -> {string!r}")
    return found


def check() -> list[str]:
    """Everything that is out of date or missing, in words (empty when all is well)."""
    template = extract()
    found = []
    if not TEMPLATE.exists() or not _same_po(TEMPLATE.read_bytes(), _po_text(template)):
        found.append(f"{TEMPLATE.relative_to(ROOT)} is stale: run `make catalogs`")
    for language in CATALOG_LANGUAGES:
        po = po_path(language)
        if not po.exists():
            found.append(f"{language}: no catalog ({po.relative_to(ROOT)})")
            continue
        catalog = updated(language, template)
        if not _same_po(po.read_bytes(), _po_text(catalog)):
            found.append(f"{po.relative_to(ROOT)} is stale against the sources: run "
                         "`make catalogs` and translate what it adds")
        mo = po.with_suffix(".mo")
        if not mo.exists() or not _same_mo(mo.read_bytes(), catalog):
            found.append(f"{mo.relative_to(ROOT)} is not compiled from its .po: run "
                         "`make catalogs`")
        found += problems(language, catalog)
    return found


def update() -> list[str]:
    template = extract()
    TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_bytes(_po_text(template))
    found = []
    for language in CATALOG_LANGUAGES:
        catalog = updated(language, template)
        po_path(language).write_bytes(_po_text(catalog))
        po_path(language).with_suffix(".mo").write_bytes(_mo_bytes(catalog))
        found += problems(language, catalog)
    return found


def add(language: str) -> None:
    """A new, empty catalog; add the language to ui.i18n.LANGUAGES too."""
    path = po_path(language)
    if path.exists():
        raise SystemExit(f"{path} exists already")
    catalog = Catalog(locale=language, project="cpoker", version="0.1",
                      creation_date=FIXED_DATE, revision_date=FIXED_DATE, fuzzy=False)
    catalog.update(extract(), no_fuzzy_matching=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_po_text(catalog))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing, report")
    parser.add_argument("--add", metavar="LANGUAGE", help="start a catalog (e.g. fil)")
    args = parser.parse_args()
    if args.add:
        add(args.add)
        print(f"created {po_path(args.add).relative_to(ROOT)}: translate it, add the language "
              "to ui/i18n.py LANGUAGES, then `make catalogs`")
        return 0
    found = check() if args.check else update()
    for line in found:
        print(line)
    if not args.check:
        print(f"catalogs updated and compiled in {LOCALE_DIR.relative_to(ROOT)}"
              + (f"; {len(found)} messages to translate" if found else ""))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
