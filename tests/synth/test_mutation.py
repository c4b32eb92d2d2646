"""The static check for functions that change their arguments in place."""

from __future__ import annotations

import pytest

from execlens.synth import mutated_parameters

MUTATES = {
    "subscript": "def main_solution(grid):\n    grid[0][0] = 1\n    return 0\n",
    "method": "def main_solution(xs, n):\n    xs.sort()\n    return xs[n]\n",
    "heapq": (
        "import heapq\ndef main_solution(ropes):\n    heapq.heapify(ropes)\n"
        "    return heapq.heappop(ropes)\n"
    ),
    "alias": (
        "def main_solution(lists):\n    current = lists\n    while len(current) > 1:\n"
        "        current.pop()\n    return current[0]\n"
    ),
    "loop item": (
        "def main_solution(rows):\n    for row in rows:\n        row.append(0)\n"
        "    return len(rows)\n"
    ),
    "helper": (
        "def sink(g, i):\n    g[i] = 0\n\ndef walk(g):\n    sink(g, 0)\n\n"
        "def main_solution(grid):\n    walk(grid)\n    return sum(grid)\n"
    ),
    "method of a class": (
        "class S:\n    def run(self, q):\n        q.pop()\n        return q\n\n"
        "def main_solution(queue):\n    return S().run(queue)\n"
    ),
    "stored on self": (
        "class S:\n    def count(self, grid):\n        self.grid = grid\n"
        "        self.sink(0)\n        return 1\n"
        "    def sink(self, i):\n        self.grid[i] = '0'\n\n"
        "def main_solution(grid):\n    return S().count(grid)\n"
    ),
    "rebound by a call that returns it": (
        "def swap(b, i, j):\n    b[i], b[j] = b[j], b[i]\n    return b\n\n"
        "def main_solution(a):\n    a = swap(a, 0, 1)\n    return a[0]\n"
    ),
}

KEEPS = {
    "reads only": "def main_solution(xs):\n    return sorted(xs)[0] + len(xs)\n",
    "copies first": "def main_solution(xs):\n    xs = list(xs)\n    xs.sort()\n    return xs[0]\n",
    "slice copy": "def main_solution(xs):\n    ys = xs[:]\n    ys.append(1)\n    return ys\n",
    "local list": "def main_solution(n):\n    out = []\n    out.append(n)\n    return out\n",
    "not python": "def main_solution(:\n",
}


@pytest.mark.parametrize("name", sorted(MUTATES))
def test_finds_in_place_changes(name: str) -> None:
    assert mutated_parameters(MUTATES[name]), name


@pytest.mark.parametrize("name", sorted(KEEPS))
def test_leaves_functions_that_do_not(name: str) -> None:
    assert mutated_parameters(KEEPS[name]) == [], name


def test_names_only_the_changed_parameter() -> None:
    assert mutated_parameters(MUTATES["method"]) == ["xs"]
