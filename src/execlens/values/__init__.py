"""Value envelopes, comparison rules and safe answer parsing (stdlib only).

Names are loaded on first use: the sandbox's fork servers import the encoder, and every
module a server holds makes each of its forks dearer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.values._compare import CompareMode, values_equal
    from execlens.values._decode import (
        EnvelopeError,
        ObjectRecord,
        OpaqueRecord,
        Truncated,
        decode,
    )
    from execlens.values._envelope import NIL, Caps, NilType, dumps, encode, type_name_of
    from execlens.values._fastliteral import texts_equal
    from execlens.values._parse import (
        AnswerParseError,
        ParsedCall,
        literal_text,
        parse_call,
        parse_literal,
        parse_state_value,
    )
    from execlens.values._types import (
        envelope_type_key,
        is_ndarray,
        literal_fingerprint,
        quick_literal_equal,
        strict_equal,
        type_names,
    )

_EXPORTS = {
    "NIL": "_envelope",
    "AnswerParseError": "_parse",
    "Caps": "_envelope",
    "CompareMode": "_compare",
    "EnvelopeError": "_decode",
    "NilType": "_envelope",
    "ObjectRecord": "_decode",
    "OpaqueRecord": "_decode",
    "ParsedCall": "_parse",
    "Truncated": "_decode",
    "decode": "_decode",
    "dumps": "_envelope",
    "encode": "_envelope",
    "envelope_type_key": "_types",
    "is_ndarray": "_types",
    "literal_text": "_parse",
    "parse_call": "_parse",
    "parse_literal": "_parse",
    "parse_state_value": "_parse",
    "strict_equal": "_types",
    "quick_literal_equal": "_types",
    "literal_fingerprint": "_types",
    "texts_equal": "_fastliteral",
    "type_name_of": "_envelope",
    "type_names": "_types",
    "values_equal": "_compare",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
