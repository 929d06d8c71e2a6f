"""The web pages' translation tables (``clients/web/js/strings.js``): both languages complete.

No browser needed: the tables are read as text. Every key of one language
must be in the other, and every key the pages use (``t("key")`` in the
scripts, ``data-i18n*="key"`` in the pages) must be in the tables.
"""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "clients" / "web"
STRINGS = WEB / "js" / "strings.js"
LANGUAGES = ("en", "pt")

#: A key at the start of a table line: `  "key": ...`.
KEY = re.compile(r'^\s*"([^"]+)":', re.MULTILINE)
#: Keys the scripts look up with a literal: t("key" or t(cond ? "a" : "b").
DOTTED = r'"([a-z]+(?:\.[a-z0-9_-]+)+)"'
USED = re.compile(rf'\bt\(\s*"([^"]+)"|\?\s*{DOTTED}\s*:\s*{DOTTED}')
DATA = re.compile(r'data-i18n(?:-[a-z-]+)?="([^"]+)"')


def tables() -> dict[str, set[str]]:
    text = STRINGS.read_text(encoding="utf-8")
    found: dict[str, set[str]] = {}
    for lang in LANGUAGES:
        start = text.index(f"const {lang} = {{")
        end = text.index("\n};", start)
        found[lang] = set(KEY.findall(text[start:end]))
    return found


def test_no_key_is_written_twice_in_a_table() -> None:
    """A JavaScript object keeps the last of two equal keys, silently: the review of
    2026-11-29 saw the option names' entries overwritten by the options' help."""
    text = STRINGS.read_text(encoding="utf-8")
    for lang in LANGUAGES:
        start = text.index(f"const {lang} = {{")
        end = text.index("\n};", start)
        keys = KEY.findall(text[start:end])
        twice = sorted({key for key in keys if keys.count(key) > 1})
        assert twice == [], f"written twice in the {lang} table"


def test_every_key_is_in_both_languages() -> None:
    found = tables()
    assert found["en"], "no English table found"
    assert sorted(found["en"] - found["pt"]) == [], "missing in Portuguese"
    assert sorted(found["pt"] - found["en"]) == [], "missing in English"


def test_every_key_the_pages_use_is_in_the_tables() -> None:
    known = tables()["en"]
    used: set[str] = set()
    for script in (WEB / "js").rglob("*.js"):
        text = script.read_text(encoding="utf-8")
        if script.name == "learn-code.js":
            # The pseudocode's lines: quoted keys looked up as "code.<key>"
            # (the file's own t("key") look-ups are direct).
            direct = set(re.findall(r'\bt\(\s*"([^"]+)"', text))
            used.update(direct)
            quoted = set(re.findall(DOTTED, text)) - direct
            used.update(f"code.{key}" for key in quoted)
            continue
        for match in USED.finditer(text):
            used.update(key for key in match.groups() if key)
    for page in WEB.glob("*.html"):
        used.update(DATA.findall(page.read_text(encoding="utf-8")))
    # Keys made at run time have their stems in the tables.
    assert sorted(key for key in used if key not in known and "." in key) == []


def test_every_error_code_is_explained_in_both_languages() -> None:
    # The pages show a server error by its code's explanation (connection.js
    # errorText), so a code added to the protocol needs its two texts here.
    from protocol.errors import ErrorCode

    found = tables()
    wanted = {f"error.code.{code.value}" for code in ErrorCode} | {"error.server"}
    for lang in LANGUAGES:
        assert sorted(wanted - found[lang]) == [], f"error codes without a {lang} text"


def test_the_translated_units_are_the_games_own_words() -> None:
    # score.js translates a game's eval_unit only when it is word for word the
    # one the translation was written for; a unit that changed would silently
    # fall back to English, so the two are compared here.
    from engine.registry import GAMES

    named = table_keys(WEB / "js" / "score.js", "NAMED_UNITS")
    units = {game.eval_unit for game in GAMES.values()}
    assert named and sorted(named - units) == []


def test_the_translated_option_help_is_the_games_own_words() -> None:
    from engine.registry import GAMES

    named = table_keys(WEB / "js" / "server-words.js", "OPTION_HELP")
    helps = {option.description for game in GAMES.values() for option in game.OPTIONS}
    assert named and sorted(named - helps) == [], "a translated help no game option has"
    # A new game's options need their help in the page's languages: each
    # description word for word as a key of OPTION_HELP in
    # clients/web/js/server-words.js, with its English and Portuguese texts
    # in clients/web/js/strings.js (README, "Adding a game").
    missing = sorted(helps - named)
    assert missing == [], (
        "option help with no translation: add each, word for word, to OPTION_HELP in "
        f"clients/web/js/server-words.js and its texts to clients/web/js/strings.js: {missing}"
    )


def table_keys(script: Path, name: str) -> set[str]:
    """The quoted keys of the object literal ``const <name> = {...}`` in ``script``."""
    text = script.read_text(encoding="utf-8")
    start = text.index(f"const {name} = {{")
    block = text[start : text.index("};", start)]
    return set(re.findall(r'^\s*"((?:[^"\\]|\\.)*)":', block, re.MULTILINE))


def test_the_page_knows_which_games_have_a_board_of_their_own() -> None:
    """Every board module in clients/web/js/boards/ is in main.js's
    DRAWN_BOARDS, and nothing else: a game without one gets the generic
    board without a request for a missing file."""
    text = (WEB / "js" / "main.js").read_text(encoding="utf-8")
    listed = re.search(r"const DRAWN_BOARDS = new Set\(\[([^\]]*)\]\)", text)
    assert listed is not None
    named = set(re.findall(r'"([a-z0-9_]+)"', listed.group(1)))
    helpers = {"generic", "squares", "describe"}
    files = {path.stem for path in (WEB / "js" / "boards").glob("*.js")} - helpers
    assert named == files
