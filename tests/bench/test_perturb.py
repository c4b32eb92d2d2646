"""``--perturb``: each kind on tricky programs, proved by re-execution in the real engine;
behaviour-changing rewrites are dropped and named; an eval end to end (stand-in server)
records the counts and the report shows the drop against the unperturbed run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from execlens.bench import EvalConfig, PerturbTarget, perturb_programs, run_eval, write_report
from execlens.tasks.perturb import KINDS, PerturbError, perturb_source

#: (program, calls): scoping traps for rename, docstrings/generators for inserted code.
TRICKY: dict[str, tuple[str, tuple[str, ...]]] = {
    "keyword_call": (
        ("def g(a, b=2):\n    return a - b\n\ndef f(x):\n    return g(b=x, a=1)\n"),
        ("f(5)",),
    ),
    "keyword_input": (
        "def f(nums, k):\n    out = [n * k for n in nums]\n    return out\n",
        ("f(nums=[1, 2], k=3)",),
    ),
    "global": (
        "N = 3\n\ndef f(x):\n    global N\n    N += x\n    total = N\n    return total\n",
        ("f(2)",),
    ),
    "nonlocal": (
        (
            "def f(x):\n    c = 0\n    def inc():\n        nonlocal c\n        c += x\n"
            "    inc()\n    inc()\n    return c\n"
        ),
        ("f(4)",),
    ),
    "comprehension_shadows_global": (
        ("i = 10\n\ndef f(xs):\n    ys = [i * 2 for i in xs]\n    return (ys, i)\n"),
        ("f([1, 2])",),
    ),
    "attributes_and_class": (
        (
            "class A:\n    def __init__(self, v):\n        self.v = v\n\n"
            "def f(v):\n    a = A(v)\n    return a.v + 1\n"
        ),
        ("f(1)",),
    ),
    # ``{name=}`` is parsed into the text 'name=' and the value: a rename keeps the text.
    "fstring": (
        "def f(name, n):\n    width = n\n    return f'{name!r:>{width}}|{name=}'\n",
        ("f('ab', 6)",),
    ),
    "docstring": (
        'def f(x):\n    "Adds one."\n    y = x + 1\n    return (y, f.__doc__)\n',
        ("f(1)",),
    ),
    "generator": (
        (
            "def g(n):\n    for k in range(n):\n        yield k * k\n\n"
            "def f(n):\n    return list(g(n))\n"
        ),
        ("f(4)",),
    ),
    "exception": ("def f(xs):\n    first = xs[0]\n    return first\n", ("f([])",)),
    "lambda_default": ("def f(x):\n    add = lambda y, z=x: y + z\n    return add(1)\n", ("f(2)",)),
    "except_as": (
        (
            "def f(s):\n    try:\n        n = int(s)\n    except ValueError as err:\n"
            "        n = len(str(err))\n    return n\n"
        ),
        ("f('x')", "f('3')"),
    ),
}


def _targets(programs: dict[str, tuple[str, tuple[str, ...]]]) -> list[PerturbTarget]:
    return [PerturbTarget(code, calls, lambda source: source) for code, calls in programs.values()]


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_keeps_the_behaviour_of_tricky_programs(kind: str, engine: Any) -> None:
    sources, summary = perturb_programs(_targets(TRICKY), [kind], 0, engine)
    assert summary["dropped"] == 0, summary
    assert summary["kept"] == len(TRICKY)
    applied = summary["per_kind"][kind]["applied"]
    assert applied + summary["per_kind"][kind]["not_applicable"] == len(TRICKY)
    # Only reformat may find a program already in its layout (three of these are).
    assert applied >= (len(TRICKY) - 3 if kind == "reformat" else len(TRICKY))
    changed = [
        name
        for (name, (code, _)), source in zip(TRICKY.items(), sources)
        if source is not None and source != code
    ]
    assert len(changed) == applied


def test_rename_keeps_keyword_names_globals_and_attributes() -> None:
    code, calls = TRICKY["keyword_input"]
    from execlens.tasks.perturb import protected_names

    renamed = perturb_source(code, "rename", 0, protect=protected_names(calls))
    assert "def f(nums, k):" in renamed and "out" not in renamed.split("\n", 1)[1]
    renamed = perturb_source(TRICKY["global"][0], "rename", 0)
    assert "global N" in renamed and "N += " in renamed and "total" not in renamed
    renamed = perturb_source(TRICKY["attributes_and_class"][0], "rename", 0)
    assert ".v" in renamed and "self.v = " not in renamed  # the attribute stays, self moves
    assert "g(b=" in perturb_source(TRICKY["keyword_call"][0], "rename", 0)


def test_a_rewrite_that_changes_behaviour_is_dropped_and_named(engine: Any) -> None:
    # A function returning its own variable names: renaming them changes the value.
    self_documenting = PerturbTarget(
        "def f(a):\n    b = a\n    return f.__code__.co_varnames\n",
        ("f(1)",),
        lambda source: source,
    )
    # A print captured into the return value: the prints kind changes what f returns.
    captured = PerturbTarget(
        "import io, contextlib\n\ndef g(x):\n    return x + 1\n\ndef f(x):\n"
        "    buf = io.StringIO()\n    with contextlib.redirect_stdout(buf):\n"
        "        g(x)\n    return buf.getvalue()\n",
        ("f(1)",),
        lambda source: source,
    )
    sources, summary = perturb_programs([self_documenting], ["rename"], 0, engine)
    assert sources == [None]
    assert summary["per_kind"]["rename"]["dropped_reasons"] == {"value_changed": 1}
    sources, summary = perturb_programs([captured], ["prints"], 0, engine)
    assert sources == [None]
    assert summary["per_kind"]["prints"]["dropped_reasons"] == {"value_changed": 1}


def test_kinds_compose_in_order_and_a_kind_with_nothing_to_do_passes_through(engine: Any) -> None:
    no_locals = PerturbTarget("def f():\n    return 1\n", ("f()",), lambda s: s)
    sources, summary = perturb_programs([no_locals], ["rename", "comments"], 0, engine)
    assert summary["per_kind"]["rename"]["not_applicable"] == 1
    assert summary["per_kind"]["comments"]["applied"] == 1
    assert sources[0] is not None and "# " in sources[0]


def test_perturbations_are_deterministic_per_seed() -> None:
    code = TRICKY["except_as"][0]
    for kind in KINDS:
        assert perturb_source(code, kind, 7) == perturb_source(code, kind, 7)
    assert len({perturb_source(code, "rename", seed) for seed in range(5)}) > 1


def test_an_unparseable_program_or_unknown_kind_is_refused() -> None:
    with pytest.raises(PerturbError, match="does not parse"):
        perturb_source("def f(:\n", "rename")
    with pytest.raises(ValueError, match="unknown perturbation"):
        perturb_source("x = 1\n", "shuffle")


def _config(data_dir: Path, base_url: str, perturb: tuple[str, ...] = ()) -> EvalConfig:
    return EvalConfig(
        benchmark="cruxeval",
        task="output",
        model="fake-model",
        base_url=base_url,
        n=1,
        temperature=0.0,
        max_tokens=32,
        limit=5,
        data=str(data_dir / "cruxeval"),
        retries=0,
        perturb=perturb,
    )


def test_eval_with_perturb_records_counts_and_the_report_shows_the_drop(
    tmp_path: Path, data_dir: Path, fake_model: Any, request_cache: Path
) -> None:
    plain = run_eval(
        _config(data_dir, fake_model.base_url), tmp_path / "plain", show_progress=False
    )
    perturbed = run_eval(
        _config(data_dir, fake_model.base_url, ("rename", "garbage")),
        tmp_path / "perturbed",
        show_progress=False,
    )
    block = perturbed.results["perturbation"]
    assert block["kinds"] == ["rename", "garbage"] and block["kept"] == 5
    assert block["per_kind"]["rename"]["applied"] == 5 and block["dropped"] == 0
    assert "perturbation" not in plain.results
    identity = (
        json.loads((tmp_path / "perturbed" / "manifest.json").read_text())
        if (tmp_path / "perturbed" / "manifest.json").exists()
        else None
    )
    if identity is not None:
        assert "perturb" in json.dumps(identity)
    samples = [
        json.loads(line)
        for line in (tmp_path / "perturbed" / "samples.jsonl").read_text().splitlines()
    ]
    shown = samples[3]["prompt"]["user"]
    assert "text_list" not in shown  # sample_3's local, renamed in what the model saw
    assert samples[3]["question"]["program"] in shown
    report = write_report([tmp_path / "plain", tmp_path / "perturbed"], tmp_path / "report.html")
    page = report.read_text()
    assert 'id="robustness"' in page and "rename+garbage" in page
    kinds_table = page.split('id="perturbation-kinds"', 1)[1].split("</table>", 1)[0]
    applied = {kind: block["per_kind"][kind]["applied"] for kind in ("rename", "garbage")}
    for kind, count in applied.items():
        assert f'<td>{kind}</td><td class="num">{count}</td>' in kinds_table
    # A rerun resumes (same identity), asks nothing, and writes the same results.
    again = run_eval(
        _config(data_dir, fake_model.base_url, ("rename", "garbage")),
        tmp_path / "perturbed",
        show_progress=False,
    )
    assert again.requests == 0 and again.results == perturbed.results


@pytest.mark.slow
def test_cruxeval_800_every_kind_keeps_every_program(engine: Any) -> None:
    # ~30-70 s on two shared cores: each of the 800 programs, each kind alone and all five composed,
    # re-executed on its input; none may change behaviour (perf/perturb_cruxeval.py
    # prints the same counts).
    from execlens.bench import get_benchmark

    bench = get_benchmark("cruxeval")
    targets = [bench.perturb_target(item, "output") for item in bench.load(None)]
    assert len(targets) == 800
    for kinds in [[kind] for kind in KINDS] + [list(KINDS)]:
        sources, summary = perturb_programs(targets, kinds, 0, engine)
        assert (summary["kept"], summary["dropped"]) == (800, 0), (kinds, summary)
        # Composed, a later kind may find nothing left to change (reformat after rename's
        # unparse): such a program passes through, counted as not applicable.
        assert all(
            summary["per_kind"][k]["applied"] + summary["per_kind"][k]["not_applicable"] == 800
            for k in kinds
        ), summary
        assert all(summary["per_kind"][k]["applied"] for k in kinds), summary


def test_an_order_that_would_erase_a_kind_is_a_cli_error_naming_the_fix(tmp_path: Path) -> None:
    import subprocess
    import sys

    from execlens.bench import PerturbUnsupported, parse_perturb_kinds

    assert parse_perturb_kinds(["garbage", "comments"]) == ("garbage", "comments")
    with pytest.raises(PerturbUnsupported, match="garbage,comments"):
        parse_perturb_kinds(["comments,garbage"])  # garbage's unparse drops the comments
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "execlens",
            "eval",
            "--benchmark",
            "cruxeval",
            "--task",
            "output",
            "--model",
            "fake-model",
            "--base-url",
            "http://127.0.0.1:9",
            "--perturb",
            "reformat,rename",
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "rename,reformat" in lines[0]
    assert not (tmp_path / "run").exists()


def test_the_runners_refuse_an_unknown_kind_or_an_erasing_order_too(engine: Any) -> None:
    """Callers of the API get the CLI's refusal, not counts for a kind whose effect a
    later kind erased (both runners check before perturbing anything)."""
    from execlens.bench import PerturbUnsupported, perturb_traced

    target = PerturbTarget("def f(x):\n    return x + 1\n", ("f(1)",), lambda source: source)
    for runner, targets in ((perturb_programs, [target]), (perturb_traced, [])):
        with pytest.raises(PerturbUnsupported, match="garbage,comments"):
            runner(targets, ["comments", "garbage"], 0, engine)  # type: ignore[operator]
        with pytest.raises(PerturbUnsupported, match="unknown perturbation 'shuffle'"):
            runner(targets, ["shuffle"], 0, engine)  # type: ignore[operator]
    kept, summary = perturb_programs([target], ["garbage", "comments"], 0, engine)
    assert kept[0] is not None and summary["kept"] == 1
