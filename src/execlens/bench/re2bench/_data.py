"""RE2-Bench data from a user's checkout of Intelligent-CAT-Lab/RE2Bench (nothing ships:
the repository has no licence).

``--data`` names the checkout's root (the folder holding ``dataset/re2-bench/`` and
``prompts/``) or its ``dataset/re2-bench`` folder.  What is read, as upstream's
validators read it:

* ``dataset/re2-bench/sampled_problems.json``: ``{"easy"|"difficult": {problem_id:
  {"benchmark", "input-output": <line index>}}}`` -- the I/O problems;
* ``dataset/re2-bench/input-output/<benchmark>/<case>.jsonl``: the recorded call on that
  line, ``{"name", "types", "values": {"inputs": {"self", "args", "kwargs"}, "return"}}``;
  the case file is named by ``get_case_info.read_case_name``, quirk included (SWE-bench
  module names go through ``.rstrip(".py")``, a character set);
* ``dataset/re2-bench/code/<id>.py`` (ClassEval: ``dataset/original_datasets/ClassEval/
  code/<Class>.py``): the code input-prediction misses are re-executed with (optional:
  without it no re-execution happens, and the report says so);
* ``dataset/re2-bench/loop|branch/<difficulty>/<id>.json``: loop and branch truths;
* ``prompts/<task>_prediction/<difficulty>/<id>.txt``: the prompts exactly as upstream
  rendered them (their few-shot examples included).  A task is loaded iff its prompt
  folder exists; every problem of a loaded task needs its prompt file.

Malformed or missing pieces become :class:`~execlens.bench.RecordError`\\ s naming the file,
line (for JSONL) and field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execlens.bench import DatasetError, DatasetUnavailableError, LoadResult, RecordError

from ._compare import branch_truth, loop_truth

__all__ = ["DIFFICULTIES", "TASKS", "RE2Item", "case_file_name", "load_re2bench"]

TASKS = ("output", "input", "loop", "branch")
DIFFICULTIES = ("easy", "difficult")
_HINT = (
    "nothing ships (the upstream repository has no licence): clone "
    "github.com/Intelligent-CAT-Lab/RE2Bench and pass a local copy with --data PATH "
    "(the checkout's root)"
)

#: Upstream subsets whose files rename ``sample_<n>`` to ``<subset>_<n>`` (the CRUXEval
#: one; written as a keyword so the registry name of execlens's own CRUXEval folder is
#: not spelled here).
_SAMPLE_RENAMED = frozenset(dict(cruxeval=None))  # noqa: C408 - see above


@dataclass(frozen=True)
class RE2Item:
    """One RE2-Bench problem of one task.

    I/O: ``name`` is the called function, ``inputs`` the recorded ``{self, args,
    kwargs}`` -- or, for a stdin program (Avatar), what was fed to it, which its
    records hold as a plain JSON value (a string, a number) --, ``output`` the recorded
    return (JSON values); ``code`` the program input misses are re-executed with
    (``None`` when the checkout lacks it) and ``class_name`` the class of a method
    (ClassEval).  Loop: ``truth`` is ``{line: {variable: [values]}}``; branch: ``{line:
    [taken, ...]}``.
    """

    task: str
    difficulty: str
    problem_id: str
    benchmark: str
    prompt: str
    name: str | None = None
    inputs: Any = None
    output: Any = None
    code: str | None = None
    class_name: str | None = None
    truth: Any = None

    @property
    def sample_id(self) -> str:
        """``<difficulty>/<problem id>``: unique within a task."""
        return f"{self.difficulty}/{self.problem_id}"


def case_file_name(problem_id: str, benchmark: str) -> str:
    """``get_case_info.read_case_name``: the case's ``.jsonl`` name (quirks kept)."""
    if benchmark == "Swebench":
        parts = problem_id.split("@@")
        if len(parts) < 3:
            raise ValueError("a Swebench problem id has three '@@'-separated parts")
        # .rstrip(".py") strips any trailing '.', 'p', 'y' characters, as upstream does
        return parts[0] + "@@" + parts[1].rstrip(".py") + "." + parts[2] + ".jsonl"
    if benchmark in _SAMPLE_RENAMED:
        return problem_id.replace("sample", benchmark) + ".jsonl"
    if benchmark == "Classeval":
        return problem_id.split("@")[-1].replace(".", "@") + ".jsonl"
    return problem_id + ".jsonl"


def _code_path(base: Path, problem_id: str, benchmark: str) -> Path:
    """``load_original_code.get_code_path``."""
    if benchmark == "Classeval":
        name = problem_id.split("@")[1].split(".")[0] + ".py"
        return base.parent / "original_datasets" / "ClassEval" / "code" / name
    if benchmark in _SAMPLE_RENAMED:
        return base / "code" / (problem_id.replace("sample", benchmark) + ".py")
    return base / "code" / (problem_id + ".py")


def _roots(data: str | Path | None) -> tuple[Path, Path]:
    """(checkout root, its ``dataset/re2-bench``)."""
    if data is None:
        raise DatasetUnavailableError(f"cannot load RE2-Bench: it has no default source; {_HINT}")
    root = Path(data).expanduser()
    if (root / "dataset" / "re2-bench").is_dir():
        return root, root / "dataset" / "re2-bench"
    if root.name == "re2-bench" and root.parent.name == "dataset" and root.is_dir():
        return root.parent.parent, root
    raise DatasetUnavailableError(
        f"{root}: not an RE2-Bench checkout (no dataset/re2-bench/ in it); {_HINT}"
    )


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(f"cannot read {path}: {exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise DatasetError(f"{path}: not valid JSON ({exc})") from exc


def _prompt(root: Path, task: str, difficulty: str, problem_id: str) -> tuple[Path, str | None]:
    path = root / "prompts" / f"{task}_prediction" / difficulty / f"{problem_id}.txt"
    try:
        return path, path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return path, None


def _sampled(base: Path, errors: list[RecordError]) -> list[tuple[str, str, str, int]]:
    path = base / "sampled_problems.json"
    if not path.is_file():
        errors.append(RecordError(str(path), None, None, "missing (the I/O problem list)"))
        return []
    try:
        data = _read_json(path)
    except DatasetError as exc:
        errors.append(RecordError(str(path), None, None, str(exc)))
        return []
    if not isinstance(data, dict):
        errors.append(RecordError(str(path), None, None, "expected an object keyed by difficulty"))
        return []
    out = []
    for difficulty in DIFFICULTIES:
        problems = data.get(difficulty, {})
        if not isinstance(problems, dict):
            errors.append(RecordError(str(path), None, difficulty, "expected an object"))
            continue
        for problem_id, entry in problems.items():
            where = f"{difficulty}.{problem_id}"
            if not isinstance(entry, dict) or not isinstance(entry.get("benchmark"), str):
                errors.append(
                    RecordError(str(path), None, f"{where}.benchmark", "missing or not a string")
                )
                continue
            index = entry.get("input-output")
            if isinstance(index, bool) or not isinstance(index, int) or index < 0:
                errors.append(
                    RecordError(
                        str(path),
                        None,
                        f"{where}.input-output",
                        "expected a line index (an integer >= 0)",
                    )
                )
                continue
            out.append((difficulty, problem_id, entry["benchmark"], index))
    return out


def _case(
    base: Path, benchmark: str, problem_id: str, index: int
) -> tuple[dict[str, Any] | None, RecordError | None]:
    """The recorded call on line ``index`` of the case file, checked."""
    try:
        name = case_file_name(problem_id, benchmark)
    except ValueError as exc:
        return None, RecordError(str(base / "sampled_problems.json"), None, problem_id, str(exc))
    path = base / "input-output" / benchmark / name
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        return None, RecordError(str(path), None, None, f"cannot read the case file ({exc})")
    if index >= len(lines):
        return None, RecordError(
            str(path), index + 1, None, f"no line {index + 1} (the file has {len(lines)})"
        )
    try:
        record = json.loads(lines[index])
    except (json.JSONDecodeError, RecursionError) as exc:
        return None, RecordError(str(path), index + 1, None, f"invalid JSON ({exc})")
    if not isinstance(record, dict):
        return None, RecordError(str(path), index + 1, None, "expected a JSON object")
    values = record.get("values")
    if not isinstance(values, dict):
        return None, RecordError(str(path), index + 1, "values", "missing or not an object")
    # validate_reasoning_results.load_ground_truths: "inputs", else "input" -- which the
    # Avatar records (stdin programs) hold as whatever was fed to the program: its text,
    # or a number (JSON), read as it is.
    if "inputs" not in values and "input" not in values:
        return None, RecordError(str(path), index + 1, "values.inputs", "missing")
    inputs = values["inputs"] if "inputs" in values else values["input"]
    if "return" not in values and "output" not in values:
        return None, RecordError(str(path), index + 1, "values.return", "missing")
    name_field = record.get("name")
    if name_field is not None and not isinstance(name_field, str):
        return None, RecordError(str(path), index + 1, "name", "not a string")
    return {
        "name": name_field,
        "inputs": inputs,
        "output": values["return"] if "return" in values else values["output"],
    }, None


def _io_items(
    root: Path,
    base: Path,
    task: str,
    problems: list[tuple[str, str, str, int]],
    errors: list[RecordError],
) -> list[RE2Item]:
    items = []
    for difficulty, problem_id, benchmark, index in problems:
        path, prompt = _prompt(root, task, difficulty, problem_id)
        if prompt is None:
            errors.append(RecordError(str(path), None, None, "missing prompt file"))
            continue
        case, error = _case(base, benchmark, problem_id, index)
        if error is not None:
            errors.append(error)
            continue
        assert case is not None  # ``_case`` gives the case or its error
        code_path = _code_path(base, problem_id, benchmark)
        try:
            code: str | None = code_path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            code = None
        class_name = (
            case_file_name(problem_id, benchmark).split("@")[0]
            if benchmark == "Classeval"
            else None
        )
        items.append(
            RE2Item(
                task,
                difficulty,
                problem_id,
                benchmark,
                prompt,
                case["name"],
                case["inputs"],
                case["output"],
                code,
                class_name,
            )
        )
    return items


def _trace_items(root: Path, base: Path, task: str, errors: list[RecordError]) -> list[RE2Item]:
    items = []
    for difficulty in DIFFICULTIES:
        folder = base / task / difficulty
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.json")):
            problem_id = path.name[: -len(".json")]
            try:
                record = _read_json(path)
            except DatasetError as exc:
                errors.append(RecordError(str(path), None, None, str(exc)))
                continue
            try:
                truth = _trace_truth(task, record)
            except _Bad as exc:
                errors.append(RecordError(str(path), None, exc.field, exc.message))
                continue
            prompt_path, prompt = _prompt(root, task, difficulty, problem_id)
            if prompt is None:
                errors.append(RecordError(str(prompt_path), None, None, "missing prompt file"))
                continue
            items.append(
                RE2Item(
                    task,
                    difficulty,
                    problem_id,
                    "",
                    prompt,
                    inputs=record.get("input"),
                    truth=truth,
                )
            )
    return items


class _Bad(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def _trace_truth(task: str, record: Any) -> Any:
    if not isinstance(record, dict):
        raise _Bad("", "expected a JSON object")
    if task == "loop":
        loops = record.get("loops")
        if not isinstance(loops, dict):
            raise _Bad("loops", "missing or not an object")
        for key, loop in loops.items():
            if not isinstance(loop, dict) or "line" not in loop:
                raise _Bad(f"loops.{key}.line", "missing")
            iterations = loop.get("iterations", [])
            if not isinstance(iterations, list) or not all(
                isinstance(i, dict)
                and isinstance(i.get("loop_variables", {}), dict)
                and isinstance(i.get("control_variable", {}) or {}, dict)
                for i in iterations
            ):
                raise _Bad(f"loops.{key}.iterations", "expected a list of objects")
        return loop_truth(record)
    branches = record.get("branches")
    if not isinstance(branches, dict) or not isinstance(branches.get("decisions"), list):
        raise _Bad("branches.decisions", "missing or not a list")
    for number, decision in enumerate(branches["decisions"]):
        if not isinstance(decision, dict) or "line" not in decision:
            raise _Bad(f"branches.decisions[{number}].line", "missing")
        if not isinstance(decision.get("taken"), bool):
            raise _Bad(f"branches.decisions[{number}].taken", "expected true or false")
    return branch_truth(record)


def load_re2bench(data: str | Path | None) -> LoadResult[RE2Item]:
    """Every problem of every task whose prompt folder the checkout has, tasks in order.

    ``data`` is required (a :class:`DatasetUnavailableError` says what to pass).
    """
    root, base = _roots(data)
    tasks = [t for t in TASKS if (root / "prompts" / f"{t}_prediction").is_dir()]
    if not tasks:
        raise DatasetUnavailableError(
            f"{root}: no prompts/<task>_prediction/ folder (expected one of "
            f"{', '.join(t + '_prediction' for t in TASKS)}); {_HINT}"
        )
    errors: list[RecordError] = []
    items: list[RE2Item] = []
    problems = _sampled(base, errors) if {"input", "output"} & set(tasks) else []
    for task in tasks:
        if task in ("input", "output"):
            items.extend(_io_items(root, base, task, problems, errors))
        else:
            items.extend(_trace_items(root, base, task, errors))
    return LoadResult(items, errors, str(root))
