"""The server's checks of result frames: every honest envelope passes, forged ones do not,
and no frame makes the reader itself fail with anything but ``FrameError``."""

from __future__ import annotations

import collections
import datetime
import decimal
import fractions
import json
import socket
import struct
import threading

import pytest

from execlens.engine._frames import check_depth, check_envelope, check_result
from execlens.engine._process import _recv_frame
from execlens.engine._protocol import MAX_FRAME, FrameError, FrameReader, encode_frame
from execlens.values import Caps, encode


class Node:
    def __init__(self, child: object = None) -> None:
        self.child = child
        self.name = "n" * 30_000


def _deep(levels: int) -> object:
    value: object = 0
    for _ in range(levels):
        value = [value, {"k": (value,)}]
    return value


HONEST = [
    0,
    -(10**3999),
    10**5000,  # truncated by the encoder
    1.5,
    float("nan"),
    "x" * 50_000,  # truncated
    b"\x00\xff" * 30_000,
    list(range(5_000)),  # items truncated
    {str(i): [i, (i,)] for i in range(3_000)},
    {frozenset({1, 2}), (1, "a")},
    collections.OrderedDict(a=1),
    collections.deque([1, 2], maxlen=3),
    datetime.datetime(2024, 1, 2, 3, 4, 5),
    decimal.Decimal("1.10"),
    fractions.Fraction(1, 3),
    complex(1, -2),
    range(3),
    Node(Node(Node())),
    _deep(40),  # depth truncated
    [[list(range(2000))] * 60] * 2,  # the node budget runs out
    len,
    Node,
]


@pytest.mark.parametrize("value", HONEST, ids=range(len(HONEST)))
def test_every_honest_envelope_passes(value: object) -> None:
    envelope = encode(value)
    check_envelope(json.loads(json.dumps(envelope)))  # as the server decodes it


@pytest.mark.parametrize(
    "forged",
    [
        {"__type__": "list", "__value__": [0] * 5_000_000},
        {"__type__": "str", "__value__": "x" * 200_000},
        {"__type__": "int", "__value__": 10**20_000},
        json.loads("[" * 500 + "]" * 500),
        {"__type__": "float", "__value__": float("inf")},
        {"__type__": "list", "__value__": [[{"a": 1}] * 1500] * 1500},
    ],
    ids=["5M items", "long string", "huge int", "deep", "inf", "too many nodes"],
)
def test_forged_envelopes_are_refused(forged: object) -> None:
    with pytest.raises(FrameError):
        check_envelope(forged)


def _result(**fields: object) -> dict[str, object]:
    return {"i": 0, "n": "00", "status": "ok", "stdout": "", "stderr": "", **fields}


@pytest.mark.parametrize(
    "fields",
    [
        {"status": "fine"},
        {"stdout": "x" * 600, "stderr": "y" * 600},
        {"stdout": 5},
        {"duration": -1},
        {"stdout_truncated": "yes"},
        {"exception": {"type": "E", "message": "m", "traceback": ["x"] * 100}},
        {"exception": {"type": "E", "message": "m", "traceback": [], "extra": 1}},
        {"extra": json.loads("{" + '"a":{' * 400 + "}" * 400 + "}")},
        {"extra": [1]},
        {"token": "forged"},
        {"message": "x" * 200_000},
    ],
)
def test_records_past_a_bound_are_refused(fields: dict[str, object]) -> None:
    with pytest.raises(FrameError):
        check_result(_result(**fields), output_cap=1000)


def test_an_honest_record_passes_untouched() -> None:
    record = _result(
        value=encode([1, "a"]),
        duration=0.5,
        peak_memory_mb=12.5,
        stdout="out",
        exception={"type": "ValueError", "message": "m", "traceback": ["<program>:1 in f"]},
        extra={"events": [{"line": 1, "locals": {"x": encode(3)}}] * 100},
        retire="a thread",
    )
    assert check_result(dict(record), output_cap=1000) == record
    check_depth({"a": [{"b": []}]}, 4)


def test_the_reader_survives_any_frame() -> None:
    nested = b"[" * 100_000 + b"]" * 100_000
    for body in (nested, b"\xff\xfe", b"{", b'{"a":'):
        reader = FrameReader()
        with pytest.raises(FrameError):
            reader.feed(struct.pack(">I", len(body)) + body)
    with pytest.raises(FrameError):
        FrameReader(max_frame=10).feed(struct.pack(">I", 11))


def test_the_host_bounds_what_it_accepts() -> None:
    host, server = socket.socketpair()
    with host, server:
        server.sendall(struct.pack(">I", MAX_FRAME + 1))
        with pytest.raises(FrameError):
            _recv_frame(host, 5.0)
        body = b"[" * 100_000 + b"]" * 100_000
        sender = threading.Thread(
            target=server.sendall, args=(struct.pack(">I", len(body)) + body,)
        )
        sender.start()
        with pytest.raises(FrameError):
            _recv_frame(host, 5.0)
        sender.join()
        server.sendall(encode_frame({"ok": 1}))
        assert _recv_frame(host, 5.0) == {"ok": 1}


def test_the_default_caps_are_what_the_checks_assume() -> None:
    # The checks derive their bounds from these; a change must revisit them.
    caps = Caps()
    assert (caps.max_depth, caps.max_items, caps.max_str, caps.max_nodes) == (
        24,
        2_000,
        20_000,
        100_000,
    )
