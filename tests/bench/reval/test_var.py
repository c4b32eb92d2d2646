"""REval's reading of question variables over the after-states (dynamics.VarInterpreter)."""

from __future__ import annotations

import numpy as np

from execlens.bench.reval import reval_interpret
from execlens.values import decode, encode


def states(*snapshots: dict[str, object]) -> list[dict[str, dict]]:
    return [{name: encode(value) for name, value in snap.items()} for snap in snapshots]


def values(var: str, snaps: list[dict[str, dict]], covered: bool = True) -> list | None:
    found = reval_interpret(var, snaps, covered)
    return None if found is None else [decode(e) for e in found]


def test_uncovered_line_is_nil_even_if_the_variable_exists() -> None:
    assert values("x", states({"x": 1}), covered=False) is None


def test_name_collects_every_after_state_and_drops_duplicates() -> None:
    assert values("x", states({"x": 1}, {"y": 2}, {"x": 3}, {"x": 1})) == [1, 3]
    assert values("z", states({"x": 1})) is None


def test_tuple_is_a_cross_product_across_states() -> None:
    snaps = states({"a": 1, "b": "p"}, {"a": 2, "b": "q"})
    # REval accepts (1, 'q') although no single state had it.
    assert values("(a, b)", snaps) == [(1, "p"), (1, "q"), (2, "p"), (2, "q")]
    assert values("(a, c)", snaps) is None


def test_subscript_pairs_every_base_with_every_index() -> None:
    snaps = states({"d": {"k": 1, "j": 2}, "key": "k"}, {"d": {"k": 5}, "key": "j"})
    assert values("d[key]", snaps) == [1, 2, 5]
    assert values("d['k']", snaps) == [1, 5]
    assert values("d['zz']", snaps) is None


def test_sequence_indexing_follows_python() -> None:
    snaps = states({"xs": [10, 20, 30], "i": 1, "t": True, "s": "abc"})
    assert values("xs[i]", snaps) == [20]
    assert values("xs[t]", snaps) == [20]  # True is 1
    assert values("s[i]", snaps) == ["b"]
    assert values("xs[5]", snaps) is None  # IndexError: skipped


def test_unsupported_nodes_make_the_whole_expression_nil() -> None:
    snaps = states({"xs": [10, 20, 30], "i": 1})
    assert values("xs[i - 1]", snaps) is None  # BinOp: REval returns, not raises, an error
    assert values("xs[-1]", snaps) is None  # -1 is a UnaryOp
    assert values("xs[0:2]", snaps) is None
    assert values("(xs[0], xs[i + 1])", snaps) is None
    assert values("len(xs)", snaps) is None


def test_attributes_of_objects() -> None:
    class Thing:
        def __init__(self) -> None:
            self.items = [1]

    snaps = states({"self": Thing()})
    assert values("self.items", snaps) == [[1]]
    assert values("self.missing", snaps) is None
    assert values("self.items[0]", snaps) == [1]


def test_numpy_subscripts() -> None:
    snaps = states({"m": np.array([[1.0, 2.0], [3.0, 4.0]]), "i": 1})
    assert values("m[0, i]", snaps) == [2.0]
    assert values("m[i]", snaps)[0].tolist() == [3.0, 4.0]
