"""One list of error codes: the protocol's, which the engine, the client and the GUI use."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import clients
import clients.client as client
import engine.errors
import engine.search.trace
from engine.errors import GameError, IllegalMoveError
from protocol.errors import (
    ERROR_CLASSES,
    Busy,
    ErrorCode,
    IllegalMove,
    Overloaded,
    ProtocolError,
    error_for,
    from_game_error,
)
from protocol.records import ErrorMessage

ROOT = Path(__file__).resolve().parents[2]
WEB_JS = ROOT / "clients" / "web" / "js"
PROTOCOL_MD = ROOT / "protocol.md"


def _subclasses(base: type) -> list[type]:
    found = []
    for cls in base.__subclasses__():
        found.append(cls)
        found.extend(_subclasses(cls))
    return found


def test_one_class_per_code_and_one_code_per_class() -> None:
    assert set(ERROR_CLASSES) == set(ErrorCode)
    assert len(set(ERROR_CLASSES.values())) == len(ErrorCode)
    for code, cls in ERROR_CLASSES.items():
        assert cls.code is ErrorCode(code) and issubclass(cls, ProtocolError)


def test_every_code_is_documented_in_protocol_md() -> None:
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    section = text[text.index("## 5. Error codes") : text.index("### Close codes")]
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", section, re.MULTILINE))
    assert documented == {code.value for code in ErrorCode}


def test_every_engine_error_code_is_a_wire_code() -> None:
    # every GameError the engine defines, in engine.errors and beside its searches
    assert engine.errors and engine.search.trace
    classes = [GameError, *_subclasses(GameError)]
    assert len(classes) >= 8
    for cls in classes:
        assert ErrorCode(cls.code), cls  # raises ValueError for a code the wire lacks
        error = from_game_error(cls("why"), 7)
        assert type(error) is ERROR_CLASSES[cls.code] and error.request_id == 7


def test_an_engine_illegal_move_keeps_its_legal_moves() -> None:
    error = from_game_error(IllegalMoveError("no", ["a1", "b2"]), "x")
    assert isinstance(error, IllegalMove) and error.legal_moves == ["a1", "b2"]
    assert error.to_record().to_wire() == {
        "type": "error",
        "code": "illegal_move",
        "message": "no",
        "legal_moves": ["a1", "b2"],
        "id": "x",
    }


def test_errors_cross_the_wire_and_come_back_as_the_same_class() -> None:
    for code in ErrorCode:
        sent = error_for(code, "why", 3, retry_after_ms=250 if code == "overloaded" else None)
        received = ErrorMessage.from_wire(sent.to_record().to_wire()).exception()
        assert type(received) is type(sent) and received.code == code
        assert received.message == "why" and received.request_id == 3
    overloaded = Overloaded("full", 1, retry_after_ms=250).to_record().to_wire()
    assert overloaded["retry_after_ms"] == 250 and "legal_moves" not in overloaded
    assert "legal_moves" not in Busy("busy").to_record().to_wire()


def test_the_client_names_are_the_protocol_classes() -> None:
    """The names users import from ``clients`` and ``clients.client`` keep working."""
    names = {
        "BadMessageError": ErrorCode.BAD_MESSAGE,
        "UnknownTypeError": ErrorCode.UNKNOWN_TYPE,
        "UnsupportedProtocolError": ErrorCode.UNSUPPORTED_PROTOCOL,
        "UnknownGameError": ErrorCode.UNKNOWN_GAME,
        "BadOptionsError": ErrorCode.BAD_OPTIONS,
        "BadPositionError": ErrorCode.BAD_POSITION,
        "IllegalMoveError": ErrorCode.ILLEGAL_MOVE,
        "GameOverError": ErrorCode.GAME_OVER,
        "NoGameError": ErrorCode.NO_GAME,
        "ChanceStateError": ErrorCode.CHANCE_STATE,
        "UnknownAlgorithmError": ErrorCode.UNKNOWN_ALGORITHM,
        "BusyError": ErrorCode.BUSY,
        "LimitExceededError": ErrorCode.LIMIT_EXCEEDED,
        "OverloadedError": ErrorCode.OVERLOADED,
        "InternalError": ErrorCode.INTERNAL,
    }
    for name, code in names.items():
        assert getattr(client, name) is ERROR_CLASSES[code]
    assert client.EngineError is ProtocolError
    for name in ("EngineTerminatedError", "EngineTimeoutError", "ProtocolViolationError"):
        assert issubclass(getattr(client, name), ProtocolError)
    assert issubclass(client.EngineTimeoutError, TimeoutError)
    for name in clients.__all__:
        assert getattr(clients, name) is getattr(client, name)


@pytest.mark.parametrize("script", sorted(WEB_JS.glob("*.js")), ids=lambda path: path.name)
def test_the_gui_tests_only_wire_codes(script: Path) -> None:
    """The browser client has no list of codes of its own: it reads ``error.code`` from
    the server and compares it with code names, which must be wire codes."""
    text = script.read_text(encoding="utf-8")
    compared = re.findall(r"error\.code\s*[!=]==?\s*\"([a-z_]+)\"", text)
    assert set(compared) <= {code.value for code in ErrorCode}
