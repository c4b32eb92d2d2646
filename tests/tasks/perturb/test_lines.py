"""Line maps: each kind says where every original line went (read from the statements).

Hand-made programs in the layout ``ast.unparse`` writes (so a kind that only inserts
lines moves nothing else), every kind, and the lines that cannot survive as lines of
their own: split statements, blank and comment lines, ``else:``, continuation lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from execlens.tasks.perturb import KINDS, PerturbError, compose_lines, perturb_program

#: Already in unparse's layout: renaming, dead code, comments and prints move no
#: statement of it except by the lines they insert.
CANONICAL = '''def g(y):
    return y * 2

def f(xs, k):
    """Sums what passes."""
    total = 0
    for x in xs:
        if x > k:
            total += g(x)
        else:
            total -= 1
    while total > 100:
        total //= 2
    try:
        ratio = total / len(xs)
    except ZeroDivisionError:
        ratio = 0
    return (total, ratio)
'''

STATEMENT_LINES = sorted({node.lineno for node in ast.walk(ast.parse(CANONICAL))
                          if isinstance(node, ast.stmt)})


def _lines(text: str) -> list[str]:
    return text.split("\n")


def test_rename_keeps_every_line_of_a_canonical_program() -> None:
    done = perturb_program(CANONICAL, "rename", 0)
    assert done.lines == {line: line for line in STATEMENT_LINES}
    assert len(_lines(done.source)) == len(_lines(CANONICAL))


@pytest.mark.parametrize("kind", ["garbage", "comments", "prints"])
def test_inserting_kinds_shift_the_lines_after_what_they_insert(kind: str) -> None:
    done = perturb_program(CANONICAL, kind, 0)
    old, new = _lines(CANONICAL), _lines(done.source)
    assert sorted(done.lines) == STATEMENT_LINES  # every statement line survives
    for line, moved in done.lines.items():
        assert new[moved - 1] == old[line - 1]  # the same text, further down
    shifts = [done.lines[line] - line for line in STATEMENT_LINES]
    assert shifts == sorted(shifts) and shifts[-1] > 0  # monotone: only insertions
    # The lines in between are exactly the inserted ones (and unparse's blank lines).
    inserted = [text for index, text in enumerate(new, 1)
                if index not in done.lines.values()]
    kept_text = [text for index, text in enumerate(new, 1) if index in done.lines.values()]
    assert kept_text == [old[line - 1] for line in STATEMENT_LINES]
    if kind == "comments":
        assert all(not t.strip() or t.strip().startswith("#") or t in old for t in inserted)
    if kind == "prints":
        assert any(t.strip().startswith("print(") for t in inserted)


def test_reformat_maps_a_split_statement_to_its_first_line() -> None:
    source = "def f(a, b):\n    x = g(a, b)\n    if x:\n        return [a, b]\n    return x\n"
    done = perturb_program(source, "reformat", 0)
    assert done.source == ("def f(a,\n    b):\n    x = g(a,\n        b)\n    if x:\n"
                           "        return [a,\n            b]\n\n    return x\n")
    assert done.lines == {1: 1, 2: 3, 3: 5, 4: 6, 5: 9}


def test_lines_that_are_no_statement_of_their_own_map_to_nothing() -> None:
    source = ("def f(x):\n"          # 1
              "    # a comment\n"     # 2
              "\n"                    # 3
              "    a = 1; b = 2\n"    # 4: two statements, split apart
              "    if x: a = 3\n"     # 5: an if and its body, split apart
              "    else:\n"           # 6: no statement
              "        b = 4\n"       # 7
              "    y = (a +\n"        # 8
              "         b)\n"         # 9: a continuation line
              "    return y\n")       # 10
    for kind in KINDS:
        done = perturb_program(source, kind, 0)
        assert set(done.lines) == {1, 7, 8, 10}, kind
        new = _lines(done.source)
        assert new[done.lines[10] - 1].strip().startswith("return ")
        assert new[done.lines[1] - 1].startswith("def f(")


def test_composed_maps_follow_each_kind_in_turn() -> None:
    renamed = perturb_program(CANONICAL, "rename", 0)
    printed = perturb_program(renamed.source, "prints", 0)
    both = compose_lines(renamed.lines, printed.lines)
    assert both == {line: printed.lines[line] for line in STATEMENT_LINES}
    assert compose_lines(None, printed.lines) == printed.lines
    assert compose_lines({1: 2, 3: 4}, {2: 5}) == {1: 5}  # a line lost in the second


def test_a_kind_with_nothing_to_do_is_refused_not_mapped() -> None:
    with pytest.raises(PerturbError):
        perturb_program("x = 1\n", "rename", 0)


def _own_lines(code: str) -> dict[int, type]:
    """Lines starting exactly one statement, whose body (if any) starts on a later line:
    each must survive every kind as a line of its own.  With each its statement's type."""
    starts: dict[int, list[ast.stmt]] = {}
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.stmt):
            starts.setdefault(node.lineno, []).append(node)
    return {line: type(nodes[0]) for line, nodes in starts.items() if len(nodes) == 1}


def test_every_cruxeval_line_of_its_own_maps_to_the_same_kind_of_statement(
        data_dir: Path) -> None:
    from execlens.bench import get_benchmark

    programs = [(item.code, _own_lines(item.code))
                for item in get_benchmark("cruxeval").load(None)]
    assert len(programs) == 800
    for kind in KINDS:
        for code, own in programs:
            try:
                done = perturb_program(code, kind, 0)
            except PerturbError:
                continue
            after = {n.lineno: type(n) for n in ast.walk(ast.parse(done.source))
                     if isinstance(n, ast.stmt)}
            assert set(own) <= set(done.lines), (kind, code)
            for line, moved in done.lines.items():
                assert own[line] is after[moved], (kind, code, line)
