"""Line maps: each kind says where every original line went (read from the statements).

Hand-made programs in the layout ``ast.unparse`` writes (so a kind that only inserts
lines moves nothing else), every kind, and the lines that cannot survive as lines of
their own: split statements, blank and comment lines, ``else:``, continuation lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from execlens.tasks.perturb import (
    KINDS,
    PerturbError,
    compose_lines,
    order_problem,
    perturb_program,
)

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

STATEMENT_LINES = sorted(
    {node.lineno for node in ast.walk(ast.parse(CANONICAL)) if isinstance(node, ast.stmt)}
)


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
    inserted = [text for index, text in enumerate(new, 1) if index not in done.lines.values()]
    kept_text = [text for index, text in enumerate(new, 1) if index in done.lines.values()]
    assert kept_text == [old[line - 1] for line in STATEMENT_LINES]
    if kind == "comments":
        assert all(not t.strip() or t.strip().startswith("#") or t in old for t in inserted)
    if kind == "prints":
        assert any(t.strip().startswith("print(") for t in inserted)


def test_reformat_maps_a_split_statement_to_its_first_line() -> None:
    source = "def f(a, b):\n    x = g(a, b)\n    if x:\n        return [a, b]\n    return x\n"
    done = perturb_program(source, "reformat", 0)
    assert done.source == (
        "def f(a,\n    b):\n    x = g(a,\n        b)\n    if x:\n"
        "        return [a,\n            b]\n\n    return x\n"
    )
    assert done.lines == {1: 1, 2: 3, 3: 5, 4: 6, 5: 9}


def test_lines_that_are_no_statement_of_their_own_map_to_nothing() -> None:
    source = (
        "def f(x):\n"  # 1
        "    # a comment\n"  # 2
        "\n"  # 3
        "    a = 1; b = 2\n"  # 4: two statements, split apart
        "    if x: a = 3\n"  # 5: an if and its body, split apart
        "    else:\n"  # 6: no statement
        "        b = 4\n"  # 7
        "    y = (a +\n"  # 8
        "         b)\n"  # 9: a continuation line
        "    return y\n"
    )  # 10
    for kind in KINDS:
        if kind == "loops":  # no for loop here
            with pytest.raises(PerturbError):
                perturb_program(source, kind, 0)
            continue
        done = perturb_program(source, kind, 0)
        # Comments edit the text as it is: a line's statements stay together on it.
        assert set(done.lines) == ({1, 4, 5, 7, 8, 10} if kind == "comments" else {1, 7, 8, 10}), (
            kind
        )
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


def test_comments_keep_the_layout_and_never_enter_a_string() -> None:
    source = 'def f(x):\n    s = """a\n    b"""; y = x\n    return (s,\n            y)\n'
    done = perturb_program(source, "comments", 3)
    assert [
        line for line in done.source.split("\n") if not line.lstrip().startswith("#")
    ] == source.split("\n")  # only comment lines added, the layout kept
    assert done.source.count('"""a\n    b"""') == 1  # nothing inserted inside the string
    assert done.lines[2] == done.source.split("\n").index('    s = """a') + 1


def test_an_order_that_erases_a_kind_is_named() -> None:
    assert order_problem(KINDS) is None
    assert order_problem(["garbage", "comments"]) is None
    problem = order_problem(["comments", "garbage"])
    assert problem is not None and "garbage,comments" in problem
    assert order_problem(["reformat", "rename"]) is not None
    assert order_problem(["reformat", "comments"]) is None


def test_a_kind_with_nothing_to_do_is_refused_not_mapped() -> None:
    with pytest.raises(PerturbError):
        perturb_program("x = 1\n", "rename", 0)


def _starts(code: str) -> dict[int, list[str]]:
    """The types of the statements starting on each line."""
    starts: dict[int, list[str]] = {}
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.stmt):
            starts.setdefault(node.lineno, []).append(type(node).__name__)
    return starts


def test_every_cruxeval_line_of_its_own_maps_to_the_same_statements(data_dir: Path) -> None:
    from execlens.bench import get_benchmark

    programs = [(item.code, _starts(item.code)) for item in get_benchmark("cruxeval").load(None)]
    assert len(programs) == 800
    for kind in KINDS:
        for code, before in programs:
            try:
                done = perturb_program(code, kind, 0)
            except PerturbError:
                continue
            after = _starts(done.source)
            # A line starting exactly one statement must survive as a line of its own --
            # but a for header, which loops replaces by other statements.
            own = {
                line
                for line, types in before.items()
                if len(types) == 1 and not (kind == "loops" and types == ["For"])
            }
            assert own <= set(done.lines), (kind, code)
            for line, moved in done.lines.items():
                assert before[line] == after[moved], (kind, code, line)


def test_spelled_names_protect_what_a_question_expression_names() -> None:
    from execlens.tasks.perturb import spelled_names

    names = spelled_names(["(self.total, counts[key])", "x"])
    assert names == {"self", "total", "counts", "key", "x"}
    code = (
        "class C:\n    def f(self, key, other):\n        counts = {key: other}\n"
        "        return counts\n"
    )
    renamed = perturb_program(code, "rename", 0, protect=names).source
    assert "def f(self, key, " in renamed and "counts = {key: " in renamed
    assert "other" not in renamed  # the name no question spells is renamed
