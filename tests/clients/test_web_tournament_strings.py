"""The live tournament page's texts (``clients/web/js/tournament-strings.js``): both
languages complete, and every key the page uses in them.

No browser needed: the tables, the script and the page are read as text.
"""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
TABLES = WEB / "js" / "tournament-strings.js"
LANGUAGES = ("en", "pt")
KEY = re.compile(r'^\s*"([^"]+)":', re.MULTILINE)
USED_IN_SCRIPT = re.compile(r'\btr\(\s*"([^"]+)"')
USED_IN_PAGE = re.compile(r'data-text(?:-title)?="([^"]+)"')


def tables() -> dict[str, set[str]]:
    text = TABLES.read_text(encoding="utf-8")
    found = {}
    for lang in LANGUAGES:
        start = text.index(f"const {lang} = {{")
        end = text.index("\n};", start)
        found[lang] = set(KEY.findall(text[start:end]))
    return found


def test_both_languages_have_every_text() -> None:
    found = tables()
    assert len(found["en"]) > 40
    assert sorted(found["en"] - found["pt"]) == [], "missing in Portuguese"
    assert sorted(found["pt"] - found["en"]) == [], "missing in English"


def test_every_text_the_page_uses_is_in_the_tables() -> None:
    used: set[str] = set()
    for script in ("tournament.js", "tournament-reasons.js"):
        used |= set(USED_IN_SCRIPT.findall((WEB / "js" / script).read_text(encoding="utf-8")))
    used |= set(USED_IN_PAGE.findall((WEB / "tournament.html").read_text(encoding="utf-8")))
    assert len(used) > 40
    assert sorted(used - tables()["en"]) == []
