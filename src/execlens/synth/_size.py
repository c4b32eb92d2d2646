"""CodeI/O's size rule, measured on in-memory sizes (stdlib only).

This module is also shipped *as source* into the sandbox's children (the collect driver
measures generated inputs and outputs where they live), so it imports nothing but
``sys`` and defines nothing else at module level.

The reference measures with pympler's ``asizeof``.  Our ``deep_size`` follows the same
idea (``sys.getsizeof`` of an object plus, recursively, of everything a container
holds, each distinct object counted once) with two differences: no rounding of each
object to pympler's 8-byte alignment, and only builtin containers (dict, list, tuple,
set, frozenset) are walked; any other object counts as its own ``getsizeof``.  Sizes
can therefore be a few bytes smaller than asizeof's, never larger.
"""

import sys

SIZE_TOTAL_LIMIT = 1024  # bytes, whole value
SIZE_ITEMS_LIMIT = 20  # items of any dict / list / tuple / set
SIZE_STR_LIMIT = 100  # characters of any string
SIZE_SCALAR_LIMIT = 128  # bytes of any other object (int, float, bool, None, ...)


def deep_size(value, _seen=None):
    """In-memory size of ``value`` and everything it contains, in bytes."""
    seen = set() if _seen is None else _seen
    if id(value) in seen:
        return 0
    seen.add(id(value))
    total = sys.getsizeof(value)
    if isinstance(value, dict):
        for key, item in value.items():
            total += deep_size(key, seen) + deep_size(item, seen)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            total += deep_size(item, seen)
    return total


def size_ok(value):
    """CodeI/O's ``strict_check_size``: total < 1 KiB, containers < 20 items, strings
    < 100 characters, any other object < 128 bytes, applied recursively."""
    if deep_size(value) >= SIZE_TOTAL_LIMIT:
        return False
    if isinstance(value, dict):
        if len(value) >= SIZE_ITEMS_LIMIT:
            return False
        return all(size_ok(k) and size_ok(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        if len(value) >= SIZE_ITEMS_LIMIT:
            return False
        return all(size_ok(item) for item in value)
    if isinstance(value, str):
        return len(value) < SIZE_STR_LIMIT
    return deep_size(value) < SIZE_SCALAR_LIMIT
