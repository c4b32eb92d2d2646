"""Example programs bundled with execlens for the demo (written for this project).

Each entry: a function ``f`` and a few argument-list texts.  The demo computes the
reference outputs by running them in the sandbox, then asks a model about them
CRUXEval-style (predict the output / an input) and REval-style (coverage, path, state,
output).
"""

from __future__ import annotations

from typing import TypedDict


class Example(TypedDict):
    """One bundled program: its id, the source of ``f`` and its argument-list texts."""

    id: str
    code: str
    inputs: list[str]


EXAMPLES: list[Example] = [
    {
        "id": "example_0",
        "code": (
            "def f(words):\n"
            "    counts = {}\n"
            "    for word in words:\n"
            "        key = word[0]\n"
            "        counts[key] = counts.get(key, 0) + 1\n"
            "    return sorted(counts.items())\n"
        ),
        "inputs": ["['apple', 'avocado', 'banana']", "['kiwi']", "[]"],
    },
    {
        "id": "example_1",
        "code": (
            "def f(n):\n"
            "    steps = 0\n"
            "    while n != 1:\n"
            "        if n % 2 == 0:\n"
            "            n = n // 2\n"
            "        else:\n"
            "            n = 3 * n + 1\n"
            "        steps += 1\n"
            "    return steps\n"
        ),
        "inputs": ["6", "1", "7"],
    },
    {
        "id": "example_2",
        "code": (
            "def f(text, width):\n"
            "    lines = []\n"
            "    current = ''\n"
            "    for word in text.split():\n"
            "        if len(current) + len(word) + 1 > width and current:\n"
            "            lines.append(current)\n"
            "            current = word\n"
            "        else:\n"
            "            current = (current + ' ' + word).strip()\n"
            "    if current:\n"
            "        lines.append(current)\n"
            "    return lines\n"
        ),
        "inputs": ["'the quick brown fox', 9", "'hi', 10"],
    },
    {
        "id": "example_3",
        "code": (
            "def f(matrix):\n"
            "    total = 0\n"
            "    for i, row in enumerate(matrix):\n"
            "        total += row[i] if i < len(row) else 0\n"
            "    return total\n"
        ),
        "inputs": ["[[1, 2], [3, 4]]", "[[5], [6, 7, 8]]"],
    },
    {
        "id": "example_4",
        "code": (
            "def f(s):\n"
            "    stack = []\n"
            "    pairs = {')': '(', ']': '['}\n"
            "    for ch in s:\n"
            "        if ch in '([':\n"
            "            stack.append(ch)\n"
            "        elif ch in pairs:\n"
            "            if not stack or stack.pop() != pairs[ch]:\n"
            "                return False\n"
            "    return not stack\n"
        ),
        "inputs": ["'([])'", "'(]'", "'(('"],
    },
    {
        "id": "example_5",
        "code": (
            "def f(nums, k):\n"
            "    best = None\n"
            "    for i in range(len(nums) - k + 1):\n"
            "        window = sum(nums[i:i + k])\n"
            "        if best is None or window > best:\n"
            "            best = window\n"
            "    return best\n"
        ),
        "inputs": ["[1, 3, -2, 5, 1], 2", "[4], 2"],
    },
    {
        "id": "example_6",
        "code": (
            "def f(items):\n"
            "    seen = set()\n"
            "    out = []\n"
            "    for item in items:\n"
            "        if item not in seen:\n"
            "            seen.add(item)\n"
            "            out.append(item * 2)\n"
            "    return tuple(out)\n"
        ),
        "inputs": ["[3, 1, 3, 2, 1]", "'aba'"],
    },
    {
        "id": "example_7",
        "code": ("def f(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n"),
        "inputs": ["12, 18", "7, 0", "0, 5"],
    },
]
