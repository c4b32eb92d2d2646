"""Self-contained HTML reports over one or more run directories.

A run directory holds ``results.json`` (what was run and the metrics per scoring mode)
and ``samples.jsonl`` (one line per sample: prompt, raw responses, extracted answers,
verdicts in both modes).  The report embeds everything (plotly's JavaScript included),
so it opens offline, and lets a reader browse every failed sample.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2

__all__ = ["ReportError", "RunView", "load_run", "write_report"]

_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=jinja2.select_autoescape(["html", "j2"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
_MAX_BROWSABLE = 500  # failed samples embedded per run (the JSONL keeps them all)


@dataclass
class RunView:
    """What the report needs from one run directory."""

    path: Path
    results: dict[str, Any]
    samples: list[dict[str, Any]] = field(default_factory=list)

    @property
    def label(self) -> str:
        """A short name: benchmark/task/prompt · model."""
        r = self.results
        parts = [str(r.get(key)) for key in ("benchmark", "task", "prompt") if r.get(key)]
        model = r.get("model")
        return "/".join(parts) + (f" · {model}" if model else "") or self.path.name

    def metrics(self) -> dict[str, dict[str, float]]:
        """``{mode: {metric: value}}`` for numeric metrics only."""
        source = self.results.get("metrics")
        if not source:  # a score run: pass@k per mode under "modes"
            source = {mode: {k: v for k, v in values.items() if k.startswith("pass@")}
                      for mode, values in (self.results.get("modes") or {}).items()
                      if isinstance(values, dict)}
        return _numeric_groups(source or {})

    def failed(self) -> list[dict[str, Any]]:
        """Samples that failed in any mode (strict failures first)."""
        def failed_in(sample: dict[str, Any], mode: str) -> bool:
            verdicts = sample.get(mode)
            if isinstance(verdicts, dict):
                verdicts = verdicts.get("verdicts", verdicts.get("passed"))
            if isinstance(verdicts, list):
                return not any(bool(v) if not isinstance(v, dict) else v.get("passed")
                               for v in verdicts)
            if isinstance(verdicts, bool):
                return not verdicts
            return False

        return [s for s in self.samples if failed_in(s, "strict") or failed_in(s, "official")]


class ReportError(ValueError):
    """A run directory that cannot be reported on (the message names the file and fix)."""


def load_run(path: Path) -> RunView:
    """Read a run directory; a clear error when it is not one."""
    results_file = path / "results.json"
    if not results_file.is_file():
        raise ReportError(f"{path} is not a run directory (no results.json); name a directory "
                          "an eval or score run wrote")
    try:
        results = json.loads(results_file.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReportError(f"{results_file} is not valid JSON ({exc}); rerun the command that "
                          "wrote it to rebuild it") from None
    if not isinstance(results, dict):
        raise ReportError(f"{results_file} holds a {type(results).__name__}, not a run's "
                          "results object; rerun the command that wrote it")
    samples: list[dict[str, Any]] = []
    samples_file = path / "samples.jsonl"
    if samples_file.is_file():
        with samples_file.open(encoding="utf-8") as handle:
            for line in handle:
                line = line.strip()
                if line:
                    try:
                        samples.append(json.loads(line))
                    except json.JSONDecodeError:
                        continue  # a torn last line from a killed run
    return RunView(path, results, samples)


def _bar_figure(runs: Sequence[RunView]) -> dict[str, Any]:
    """Grouped bars: every numeric metric per mode, one group per run."""
    traces = []
    for run in runs:
        for mode, values in run.metrics().items():
            keys = sorted(k for k in values if not k.endswith("_count"))
            traces.append({
                "type": "bar",
                "name": f"{run.label} — {mode}" if len(runs) > 1 else mode,
                "x": keys,
                "y": [round(values[k], 3) for k in keys],
            })
    for run in runs:
        shown = {k for values in run.metrics().values() for k in values}
        reference = run.results.get("reference_numbers") or {}
        if reference:
            keys = sorted(k for k in reference if k in shown)
            traces.append({"type": "scatter", "mode": "markers",
                           "name": f"reference: {run.results.get('reference_source', 'published')}",
                           "x": keys, "y": [reference[k] for k in keys],
                           "marker": {"symbol": "diamond", "size": 12}})
        for name, values in _baselines(run).items():
            keys = sorted(k for k in values if k in shown)
            traces.append({"type": "scatter", "mode": "markers", "name": f"baseline: {name}",
                           "x": keys, "y": [round(values[k], 3) for k in keys],
                           "marker": {"symbol": "x", "size": 10}})
    return {"data": traces, "layout": {"barmode": "group", "title": {"text": "Scores by mode"},
                                       "yaxis": {"title": {"text": "%"}}, "height": 420}}


def _baselines(run: RunView) -> dict[str, dict[str, float]]:
    """Constant-answer baselines as ``{name: {metric: value}}`` (flat ones under one name)."""
    baselines = run.results.get("baselines") or {}
    if not isinstance(baselines, dict):
        return {}
    flat = _numeric(baselines)
    found = {"constant answer": flat} if flat else {}
    found.update(_numeric_groups(baselines))
    return found


def _numeric(values: dict[str, Any]) -> dict[str, float]:
    """The numeric entries of ``values`` (a bool is not a score)."""
    return {k: float(v) for k, v in values.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool)}


def _numeric_groups(groups: dict[str, Any]) -> dict[str, dict[str, float]]:
    """``{name: numeric entries}`` for every mapping in ``groups`` that has any."""
    found: dict[str, dict[str, float]] = {}
    for name, values in groups.items():
        if isinstance(values, dict) and (numeric := _numeric(values)):
            found[str(name)] = numeric
    return found


def _difference_reasons(run: RunView) -> dict[str, int]:
    differences = run.results.get("differences") or {}
    if not isinstance(differences, dict):
        return {}
    reasons: dict[str, int] = dict(differences.get("by_reason") or {})
    for key in ("official_pass_strict_fail", "official_fail_strict_pass"):
        for reason, count in (differences.get(key) or {}).items():
            reasons[reason] = reasons.get(reason, 0) + int(count)
    return reasons


def _differences_figure(run: RunView) -> dict[str, Any] | None:
    reasons = _difference_reasons(run)
    if not reasons:
        return None
    keys = sorted(reasons, key=lambda k: -reasons[k])
    return {"data": [{"type": "bar", "x": keys, "y": [reasons[k] for k in keys],
                      "name": "generations"}],
            "layout": {"title": {"text": "Where official and strict verdicts differ"},
                       "yaxis": {"title": {"text": "generations"}}, "height": 360}}


def _pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _plotly_js() -> str:
    from plotly.offline import get_plotlyjs

    return get_plotlyjs()


def write_report(run_dirs: Iterable[Path], out: Path,
                 links: Sequence[tuple[str, Path]] = ()) -> Path:
    """Render one self-contained HTML report for the given run directories.

    ``links`` are ``(label, path)`` pairs listed under the summary (the demo links its
    synthesis dataset card); paths are written relative to the report.
    """
    runs = [load_run(Path(p)) for p in run_dirs]
    if not runs:
        raise ValueError("no run directories given")
    figures = [{"id": "scores", "spec": _bar_figure(runs)}]
    for index, run in enumerate(runs):
        figure = _differences_figure(run)
        if figure is not None:
            figures.append({"id": f"differences-{index}", "spec": figure})
    template = _TEMPLATES.get_template("report.html.j2")
    page = template.render(
        runs=runs,
        figures=[{"id": f["id"], "json": json.dumps(f["spec"])} for f in figures],
        plotly_js=_plotly_js(),
        pretty=_pretty,
        max_browsable=_MAX_BROWSABLE,
        escape=html.escape,
        links=[(label, os.path.relpath(Path(target).resolve(), out.parent.resolve()))
               for label, target in links],
    )
    from execlens.store import write_text_atomic

    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, page)
    return out
