"""Self-contained HTML reports over one or more run directories.

A run directory holds ``results.json`` (what was run and the metrics per scoring mode)
and ``samples.jsonl`` (one line per sample: prompt, raw responses, extracted answers,
verdicts in both modes).  The report embeds everything (its charts are inline SVG, a few
kilobytes: no plotting script), so it opens offline, and lets a reader browse every
failed sample.

Each failed sample is an error-analysis view (:func:`failure_view`) rather than its JSON:
the prompt as text, per generation the reasoning (collapsed), the final text, the
extracted answer beside the expected one, each mode's verdict with its reason, the stop
reason and tokens; for a runtime question the program with the lines the ground-truth
run executed marked, the asked line highlighted and the true value beside the
prediction.  The summary states how often generations were cut off or gave no answer,
and warns when either is high.  Records from before any of these fields still render
(whatever a record lacks is left out).
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

from execlens.store import JsonlError, read_jsonl

from ._charts import BarChart, Series, render_bar_chart

__all__ = ["WARN_RATE", "ReportError", "RunView", "failure_view", "load_run", "write_report"]

_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=jinja2.select_autoescape(["html", "j2"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
_MAX_BROWSABLE = 500  # failed samples embedded per run (the JSONL keeps them all)
#: A truncation or no-answer rate at or above this is flagged in the summary: a score
#: then measures the token budget or the answer format more than execution reasoning.
WARN_RATE = 0.2
#: Keys of a sample record the failure view shows in its own way (the rest, if any, are
#: listed as JSON at the end, so nothing a record holds is hidden).
_SHOWN = frozenset(
    {
        "id",
        "task",
        "prompt",
        "responses",
        "answers",
        "extraction",
        "generations",
        "reasoning",
        "finals",
        "finish_reasons",
        "response_status",
        "completion_tokens",
        "question",
        "n",
        "missing",
        "sample_id",
    }
)


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
        perturbed = self.perturbation()
        suffix = f" · perturb {'+'.join(perturbed['kinds'])}" if perturbed else ""
        return "/".join(parts) + (f" · {model}" if model else "") + suffix or self.path.name

    def perturbation(self) -> dict[str, Any] | None:
        """``results["perturbation"]`` of a ``--perturb`` run (kinds, kept, dropped), else None."""
        block = self.results.get("perturbation")
        return block if isinstance(block, dict) and block.get("kinds") else None

    def metrics(self) -> dict[str, dict[str, float]]:
        """``{mode: {metric: value}}`` for numeric metrics only."""
        source = self.results.get("metrics")
        if not source:  # a score run: pass@k per mode under "modes"
            source = {
                mode: {k: v for k, v in values.items() if k.startswith("pass@")}
                for mode, values in (self.results.get("modes") or {}).items()
                if isinstance(values, dict)
            }
        return _numeric_groups(source or {})

    def failed(self) -> list[dict[str, Any]]:
        """Samples that failed in any mode (strict failures first)."""

        def failed_in(sample: dict[str, Any], mode: str) -> bool:
            verdicts = sample.get(mode)
            if isinstance(verdicts, dict):
                verdicts = verdicts.get("verdicts", verdicts.get("passed"))
            if isinstance(verdicts, list):
                return not any(
                    bool(v) if not isinstance(v, dict) else v.get("passed") for v in verdicts
                )
            if isinstance(verdicts, bool):
                return not verdicts
            return False

        return [s for s in self.samples if failed_in(s, "strict") or failed_in(s, "official")]

    def modes(self) -> list[str]:
        """The scoring modes of this run (``official``, ``strict``), as its results name them."""
        found = [
            str(mode)
            for mode in (self.results.get("modes") or {})
            if isinstance((self.results.get("modes") or {}).get(mode), dict)
        ]
        return found or ["official", "strict"]

    def responses(self) -> dict[str, Any] | None:
        """How the model answered: ``results["responses"]`` (reasoning, stop strings,
        truncation and no-answer counts), else counted from the samples (runs from before
        the runner wrote it); ``None`` when neither says anything."""
        block = self.results.get("responses")
        if isinstance(block, dict) and block.get("generations"):
            return dict(block)
        statuses: dict[str, int] = {}
        generations = no_answer = 0
        for sample in self.samples:
            extraction = sample.get("extraction")
            if isinstance(extraction, list):
                generations += len(extraction)
                no_answer += sum(1 for e in extraction if e not in ("ok", None))
            for status in sample.get("response_status") or ():
                statuses[str(status)] = statuses.get(str(status), 0) + 1
        if not generations:
            return None
        return {
            "generations": generations,
            "no_answer": no_answer,
            **{
                key: statuses.get(key, 0)
                for key in ("truncated", "truncated_in_reasoning", "reasoning_only")
            },
            "counted_from_samples": True,
        }

    def response_warnings(self) -> list[str]:
        """Warnings for a high truncation or no-answer rate (at least :data:`WARN_RATE`),
        for a run from before its runner flagged them itself: a run whose
        ``results.json`` has its ``responses`` block carries them in its flags (shown
        once, there)."""
        block = self.responses()
        if not block or not block.get("counted_from_samples"):
            return []
        total = int(block.get("generations") or 0)
        if not total:
            return []
        cut = int(block.get("truncated") or 0) + int(block.get("truncated_in_reasoning") or 0)
        no_answer = int(block.get("no_answer") or 0)
        warnings = []
        if cut / total >= WARN_RATE:
            warnings.append(
                f"{cut} of {total} generations ({cut / total:.0%}) were cut off by "
                "the token limit: raise --max-tokens, or read the scores as "
                "bounded by the budget"
            )
        if no_answer / total >= WARN_RATE:
            warnings.append(
                f"{no_answer} of {total} generations ({no_answer / total:.0%}) "
                "gave no answer the extraction could read: the scores measure the "
                "answer format as much as the reasoning"
            )
        return warnings

    def failure_views(self, limit: int = _MAX_BROWSABLE) -> list[dict[str, Any]]:
        """The failure view of the first ``limit`` failed samples (see :func:`failure_view`)."""
        modes = self.modes()
        return [failure_view(sample, modes) for sample in self.failed()[:limit]]


def _at(values: Any, index: int) -> Any:
    """``values[index]`` of a per-generation list, or None where the record has none."""
    if isinstance(values, list) and index < len(values):
        return values[index]
    return None


def _prompt_text(prompt: Any) -> str:
    """The prompt as the model read it: chat messages as labelled text, not JSON."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, dict):
        if "completion" in prompt and len(prompt) == 1:
            return str(prompt["completion"])
        parts = [f"[{role}]\n{text}" for role, text in prompt.items() if text]
        return "\n\n".join(parts)
    if isinstance(prompt, list):  # chat messages
        return "\n\n".join(
            f"[{m.get('role', '?')}]\n{m.get('content', '')}" if isinstance(m, dict) else str(m)
            for m in prompt
        )
    return _pretty(prompt)


def _program_lines(question: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The program's lines, each with whether the ground-truth run executed it (None:
    not known) and whether it is the asked line."""
    program = question.get("program")
    if not isinstance(program, str) or not program:
        return None
    executed = question.get("executed_lines")
    ran = {int(n) for n in executed} if isinstance(executed, list) else None
    asked = question.get("asked_line")
    return [
        {
            "number": number,
            "text": text,
            "executed": None if ran is None else number in ran,
            "asked": number == asked,
        }
        for number, text in enumerate(program.split("\n"), start=1)
    ]


def _verdict(label: Any) -> dict[str, Any]:
    """A stored verdict label (``status`` or ``status:reason``) split for display."""
    text = "" if label is None else str(label)
    status, _, reason = text.partition(":")
    return {"label": text, "status": status or "—", "reason": reason, "passed": status == "passed"}


def _shown_answer(answer: Any, extraction: Any, final: Any) -> str:
    """How an extracted answer is shown: as the model's when the model wrote it; ``no
    answer (read as NO)`` when the extraction found none and the official rule put a
    default in its place (REval's NO, -2, ERROR: text the model never wrote)."""
    if answer is None or answer == "":
        return "(nothing)"
    text = str(answer)
    failed = extraction not in (None, "ok", "as_given")
    if failed and text.strip() not in str(final or ""):
        return f"no answer (read as {text})"
    return text


def _generation_count(sample: dict[str, Any], entries: Any) -> int:
    """How many generations a record holds: the longest of its per-generation lists."""
    lists = (sample.get("responses"), sample.get("answers"), entries, sample.get("finals"))
    return max((len(v) for v in lists if isinstance(v, list)), default=0)


def _generation_verdicts(
    sample: dict[str, Any], entry: dict[str, Any], index: int, modes: Sequence[str]
) -> list[dict[str, Any]]:
    """One generation's verdict per mode the record scored: the stored label, or where
    none is stored, the mode's boolean (older records)."""
    verdicts = []
    for mode in modes:
        if mode not in entry and not isinstance(sample.get(mode), list):
            continue
        label = entry.get(mode)
        if label is None:  # no label stored: the mode's boolean, if any
            flag = _at(sample.get(mode), index)
            label = None if flag is None else ("passed" if flag else "wrong")
        verdict = _verdict(label)
        verdict.update(mode=mode, detail=entry.get(f"{mode}_detail"))
        verdicts.append(verdict)
    return verdicts


def _generation_view(
    sample: dict[str, Any], entries: Any, index: int, modes: Sequence[str]
) -> dict[str, Any]:
    """What the report shows of the ``index``-th generation of one sample."""
    entry = _at(entries, index) or {}
    response = _at(sample.get("responses"), index)
    final = _at(sample.get("finals"), index)
    if final is None:  # an older record: the whole response was the answer's text
        final = response if response is not None else entry.get("generation")
    verdicts = _generation_verdicts(sample, entry, index, modes)
    answer = _at(sample.get("answers"), index)
    extraction = _at(sample.get("extraction"), index)
    return {
        "index": index + 1,
        "reasoning": _at(sample.get("reasoning"), index),
        "final": final,
        "shown": _shown_answer(answer, extraction, final),
        # The raw text is shown too only where it says more than the final part.
        "raw": response if response not in (None, final) else None,
        "answer": _at(sample.get("answers"), index),
        "extraction": _at(sample.get("extraction"), index),
        "finish_reason": _at(sample.get("finish_reasons"), index),
        "status": _at(sample.get("response_status"), index),
        "tokens": _at(sample.get("completion_tokens"), index),
        "differs": entry.get("differs"),
        "verdicts": verdicts,
    }


def _extra_fields(sample: dict[str, Any], modes: Sequence[str]) -> dict[str, Any]:
    """The record's fields the view shows nowhere else (neither a mode nor an accuracy)."""
    return {
        key: value
        for key, value in sample.items()
        if key not in _SHOWN
        and key not in modes
        and not key.endswith("_accuracy")
        and value is not None
    }


def _search_text(sample: dict[str, Any], question: dict[str, Any], answers: list[Any]) -> str:
    """The lower-cased text the report's search box matches a sample against."""
    return " ".join(
        str(x)
        for x in (
            sample.get("id", ""),
            sample.get("task") or "",
            question.get("expected") or "",
            *answers,
        )
    ).lower()


def failure_view(sample: dict[str, Any], modes: Sequence[str]) -> dict[str, Any]:
    """What the report shows of one sample: everything a reader needs to see why it failed.

    Works on any ``samples.jsonl`` record: fields a record lacks (runs from before
    reasoning, stop reasons or ``question`` were recorded) are None and not shown.
    """
    stored = sample.get("question")
    question: dict[str, Any] = stored if isinstance(stored, dict) else {}
    entries = sample.get("generations") if isinstance(sample.get("generations"), list) else []
    generations = [
        _generation_view(sample, entries, index, modes)
        for index in range(_generation_count(sample, entries))
    ]
    answers = [g["answer"] for g in generations if g["answer"] is not None]
    shown = [g["shown"] for g in generations if g["answer"] is not None]
    return {
        "id": str(sample.get("id", "")),
        "task": sample.get("task"),
        "question": question,
        "expected": question.get("expected"),
        "expected_by_mode": question.get("expected_by_mode") or {},
        "lines": _program_lines(question),
        "prompt": _prompt_text(sample["prompt"]) if sample.get("prompt") else None,
        "generations": generations,
        "passed": {
            mode: any(v["passed"] for g in generations for v in g["verdicts"] if v["mode"] == mode)
            for mode in modes
        },
        "first_answer": answers[0] if answers else None,
        "first_shown": shown[0] if shown else None,
        "extra": _extra_fields(sample, modes),
        "search": _search_text(sample, question, answers),
    }


class ReportError(ValueError):
    """A run directory that cannot be reported on (the message names the file and fix)."""


def load_run(path: Path) -> RunView:
    """Read a run directory; a clear error when it is not one."""
    results_file = path / "results.json"
    if not results_file.is_file():
        raise ReportError(
            f"{path} is not a run directory (no results.json); name a directory "
            "an eval or score run wrote"
        )
    try:
        results = json.loads(results_file.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReportError(
            f"{results_file} is not valid JSON ({exc}); rerun the command that "
            "wrote it to rebuild it"
        ) from None
    if not isinstance(results, dict):
        raise ReportError(
            f"{results_file} holds a {type(results).__name__}, not a run's "
            "results object; rerun the command that wrote it"
        )
    samples_file = path / "samples.jsonl"
    samples: list[dict[str, Any]] = []
    if samples_file.is_file():
        try:
            # A torn last line is what a killed run leaves: the run's other samples stand.
            samples = read_jsonl(samples_file, skip_torn_tail=True)
        except JsonlError as exc:
            raise ReportError(
                f"{exc}; rerun the command that wrote it to rebuild {samples_file.name}"
            ) from None
    return RunView(path, results, samples)


def _bar_figure(runs: Sequence[RunView]) -> BarChart:
    """Grouped bars: every numeric metric per mode, one group per run; the published
    reference and constant-answer baselines as markers on the same axis."""
    rows: list[tuple[str, dict[str, float], str | None]] = []
    for run in runs:
        for mode, values in run.metrics().items():
            kept = {k: round(v, 3) for k, v in values.items() if not k.endswith("_count")}
            rows.append((f"{run.label} — {mode}" if len(runs) > 1 else mode, kept, None))
    for run in runs:
        shown = {k for values in run.metrics().values() for k in values}
        reference = run.results.get("reference_numbers") or {}
        if reference:
            name = f"reference: {run.results.get('reference_source', 'published')}"
            rows.append((name, {k: v for k, v in reference.items() if k in shown}, "diamond"))
        for name, values in _baselines(run).items():
            kept = {k: round(v, 3) for k, v in values.items() if k in shown}
            rows.append((f"baseline: {name}", kept, "x"))
    categories = sorted({k for _, values, marker in rows if marker is None for k in values})
    return BarChart(
        "Scores by mode",
        categories,
        [
            Series(name, [values.get(k) for k in categories], marker)
            for name, values, marker in rows
        ],
        y_title="%",
    )


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
    return {
        k: float(v)
        for k, v in values.items()
        if isinstance(v, (int, float)) and not isinstance(v, bool)
    }


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


def _differences_figure(run: RunView) -> BarChart | None:
    reasons = _difference_reasons(run)
    if not reasons:
        return None
    keys = sorted(reasons, key=lambda k: -reasons[k])
    return BarChart(
        f"Where official and strict verdicts differ — {run.label}",
        keys,
        [Series("generations", [float(reasons[k]) for k in keys])],
        y_title="generations",
    )


def _robustness(runs: Sequence[RunView]) -> list[dict[str, Any]]:
    """The score drop of each ``--perturb`` run against the unperturbed run of the same
    benchmark, task, prompt and model among ``runs``: one row per mode and metric."""

    def key(run: RunView) -> tuple[Any, ...]:
        return tuple(run.results.get(k) for k in ("benchmark", "task", "prompt", "model"))

    originals = {key(run): run for run in runs if run.perturbation() is None}
    rows: list[dict[str, Any]] = []
    for run in runs:
        block = run.perturbation()
        original = originals.get(key(run)) if block else None
        if block is None or original is None:
            continue
        before = original.metrics()
        for mode, values in run.metrics().items():
            for metric in sorted(values):
                if metric in before.get(mode, {}) and not metric.endswith("_count"):
                    rows.append(
                        {
                            "perturbation": "+".join(block["kinds"]),
                            "mode": mode,
                            "metric": metric,
                            "original": before[mode][metric],
                            "perturbed": values[metric],
                            "delta": values[metric] - before[mode][metric],
                            "kept": block.get("kept"),
                            "dropped": block.get("dropped"),
                            "original_samples": original.results.get("samples"),
                        }
                    )
    return rows


def _perturbation_kinds(runs: Sequence[RunView]) -> list[dict[str, Any]]:
    """What each kind of each ``--perturb`` run did: applied, had nothing to change, and
    the items it dropped (by reason); the run's layout-bound facts taken from the
    perturbed program (``recomputed``: next lines that moved) on its first row."""
    rows: list[dict[str, Any]] = []
    for run in runs:
        block = run.perturbation()
        if block is None:
            continue
        recomputed = block.get("recomputed") or {}
        for index, kind in enumerate(block["kinds"]):
            counts = (block.get("per_kind") or {}).get(kind, {})
            reasons = counts.get("dropped_reasons") or {}
            rows.append(
                {
                    "run": run.label,
                    "kind": kind,
                    "applied": counts.get("applied", 0),
                    "not_applicable": counts.get("not_applicable", 0),
                    "dropped": counts.get("dropped", 0),
                    "reasons": ", ".join(f"{r}: {n}" for r, n in sorted(reasons.items())),
                    "recomputed": (
                        ", ".join(f"{fact}: {n}" for fact, n in sorted(recomputed.items()))
                        if index == 0
                        else ""
                    ),
                }
            )
    return rows


def _pretty(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def write_report(
    run_dirs: Iterable[Path], out: Path, links: Sequence[tuple[str, Path]] = ()
) -> Path:
    """Render one self-contained HTML report for the given run directories.

    ``links`` are ``(label, path)`` pairs listed under the summary (the demo links its
    synthesis dataset card); paths are written relative to the report.
    """
    runs = [load_run(Path(p)) for p in run_dirs]
    if not runs:
        raise ValueError("no run directories given")
    figures: list[dict[str, Any]] = [{"id": "scores", "chart": _bar_figure(runs)}]
    for index, run in enumerate(runs):
        figure = _differences_figure(run)
        if figure is not None:
            figures.append({"id": f"differences-{index}", "chart": figure})
    template = _TEMPLATES.get_template("report.html.j2")
    page = template.render(
        runs=runs,
        robustness=_robustness(runs),
        perturbation_kinds=_perturbation_kinds(runs),
        figures=[{"id": f["id"], "svg": render_bar_chart(f["chart"])} for f in figures],
        pretty=_pretty,
        max_browsable=_MAX_BROWSABLE,
        warn_rate=WARN_RATE,
        escape=html.escape,
        links=[
            (label, os.path.relpath(Path(target).resolve(), out.parent.resolve()))
            for label, target in links
        ],
    )
    from execlens.store import write_text_atomic

    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out, page)
    return out
