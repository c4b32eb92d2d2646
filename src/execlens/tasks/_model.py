"""The task model: one question about code, with its ground truth.

Every part of execlens asks and judges the same record: the runtime benchmark's items,
``execlens tasks build``, synthesis' ``runtime-tasks`` records (their ``ground_truth``)
and CodeI/O verification, and the RL rewards' ground truths (TRL's ``ground_truth``
column, verl's ``reward_model.ground_truth``) are all :class:`Task`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from execlens.tasks._truth import pending_truth

if TYPE_CHECKING:
    from execlens.tasks.kinds import QuestionKind

__all__ = [
    "BUILD_KINDS",
    "COMPARISONS",
    "KINDS",
    "QUESTION_KINDS",
    "RuntimeTask",
    "Task",
    "TaskError",
    "task_id",
]

#: The built-in runtime kinds ``tasks`` builds from traces by default (REval's four
#: questions).  Plug-in kinds (``execlens.tasks.kinds``) add to what the registry lists.
KINDS = ("coverage", "path", "state", "output")
#: Every built-in kind ``build_tasks`` can build: the default ones and full-trace
#: prediction (asked only when named: one long answer per run).
BUILD_KINDS = (*KINDS, "trace")
#: Every built-in kind a task may have: the runtime kinds, input prediction and full
#: traces.
QUESTION_KINDS = ("coverage", "path", "state", "output", "input", "trace")
#: How a predicted value is compared with the reference: ``exact`` (type-strict, the
#: strict judges) or ``tolerant`` (CodeI/O's rule: JSON-equal or close floats).
COMPARISONS = ("exact", "tolerant")

# Kinds of ground truths written before the task model was one (rewards' REval-style
# output completion): read as the kind they are now.
_LEGACY_KINDS = {"output_completion": "output"}
# Fields added when the models merged: left out of to_dict() while unset, so task files
# written before read and write back unchanged.
_OPTIONAL = {"function": None, "input": None, "compare": "exact"}


def task_id(*parts: Any) -> str:
    """A stable id: a SHA-256 prefix of the parts' canonical JSON."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:20]


class TaskError(ValueError):
    """A record that is not a task (an unknown kind, a missing or ill-typed field)."""


@dataclass(frozen=True)
class Task:
    """A question about how ``program`` runs, and its answer.

    ``reference`` by kind (lines are 1-indexed, as in REval's questions):

    * ``coverage``: ``true``/``false`` -- is ``line`` executed when ``call`` runs?
    * ``path``: the sorted lines that may run right after ``line`` (any is correct;
      ``-1`` = none);
    * ``state``: the acceptable value envelopes of ``var`` after ``line``
      (``[{"__type__": "Nil"}]`` when it has none);
    * ``output``: what ``call`` returns -- a runtime output reference ``{"status",
      "value", "exception"}`` (a run that raised is answered with the exception's name),
      a value envelope, the output literal's text (CRUXEval: ``"[1, 2]"``), or, with
      ``compare="tolerant"``, the JSON value (CodeI/O);
    * ``input``: the output an answer's call must return, in the same shapes; the
      answer is one call of ``function`` (keyword arguments for CodeI/O: ``input``
      then holds the reference keyword dict);
    * ``trace``: the 1-indexed lines ``call`` executes, in order (CoCoNUT's question;
      see ``execlens.tasks._fulltrace`` for what a step is).

    ``function`` is the entry point (default: the name ``call`` calls); ``mode`` the
    tracer mode the truth came from; ``selection`` how the question was picked;
    ``test``/``test_class`` a unittest driver instead of ``call``.
    """

    kind: str
    program: str
    reference: Any
    function: str | None = None
    call: str | None = None
    line: int | None = None
    var: str | None = None
    id: str = ""
    source: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    input: Any = None
    compare: str = "exact"
    problem_id: str = ""
    input_index: int = 0
    mode: str = ""
    selection: str = ""
    code_line: str | None = None
    test: str | None = None
    test_class: str | None = None

    def __post_init__(self) -> None:
        if self.kind in _LEGACY_KINDS:
            object.__setattr__(self, "kind", _LEGACY_KINDS[self.kind])
        self.check_kind()
        if not isinstance(self.program, str):
            raise TaskError("a task needs its program's source")
        if self.compare not in COMPARISONS:
            raise TaskError(f"unknown comparison {self.compare!r}; one of {COMPARISONS}")
        if not pending_truth(self.reference):  # validated once it is built (_truth)
            _kind_of(self.kind).validate(self)

    def check_kind(self) -> Task:
        """The task itself, or :class:`TaskError` when its kind is not a registered
        question kind (``execlens.tasks.kinds``)."""
        _kind_of(self.kind)
        return self

    @property
    def entry(self) -> str:
        """The function an answer calls (input) or the call calls: ``function``, else the
        name ``call`` calls, else ``"f"``."""
        if self.function:
            return self.function
        meta = self.meta or {}
        name = meta.get("entry_point") or meta.get("function_name")
        if name:
            return str(name)
        if self.call:
            from execlens.values import AnswerParseError, parse_call

            try:
                return parse_call(self.call).name
            except AnswerParseError:
                pass
        return "f"  # CRUXEval's name, the default of prediction tasks

    @property
    def question_call(self) -> str:
        """The call the question is about (``f(<input>)``), or ``""`` when there is none."""
        return self.call or ""

    def to_dict(self) -> dict[str, Any]:
        """Every field, JSON-ready (``reference`` stays JSON data); the fields added when
        the task models merged only when set."""
        data = asdict(self)
        for key, default in _OPTIONAL.items():
            if data[key] == default:
                del data[key]
        return data

    def to_json(self) -> str:
        """The ground-truth string trainers carry: canonical (sorted keys), empty fields
        left out."""
        data = {
            k: v
            for k, v in asdict(self).items()
            if v not in (None, "", {})
            and not (k in _OPTIONAL and v == _OPTIONAL[k])
            and not (k == "input_index" and v == 0)
        }
        return json.dumps(data, sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Task:
        """Rebuild from :meth:`to_dict` / :meth:`to_json`'s data; raises
        :class:`TaskError` when malformed."""
        if not isinstance(data, Mapping):
            raise TaskError(f"a task is a JSON object, got {type(data).__name__}")
        for key in ("kind", "program", "reference"):
            if key not in data:
                raise TaskError(f"the task lacks {key!r}: {sorted(data)[:8]}")
        unknown = sorted(set(data) - _FIELDS)
        if unknown:
            raise TaskError(f"unknown task field(s) {unknown}")
        if not isinstance(data["program"], str) or not data["program"].strip():
            raise TaskError("a task needs its program's source")
        try:
            return cls(**dict(data))
        except TypeError as exc:
            raise TaskError(str(exc)) from None

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any] | Task) -> Task:
        """Read a ground truth: a JSON string (cached: rows repeat over generations), a
        mapping, or a task already."""
        if isinstance(text, Task):
            return text
        if isinstance(text, Mapping):
            return cls.from_dict(text)
        if not isinstance(text, str):
            raise TaskError(f"ground truth must be a JSON string, got {type(text).__name__}")
        return _from_json_cached(text)


_FIELDS = frozenset(f.name for f in fields(Task))


def _kind_of(name: str) -> QuestionKind:
    """The registered kind ``name``, or :class:`TaskError` naming the kinds."""
    from execlens.tasks.kinds import get_kind

    try:
        return get_kind(name)
    except KeyError as exc:
        raise TaskError(exc.args[0].replace("question kind", "task kind")) from None


#: The name runtime tasks had before the task models merged: the same class.
RuntimeTask = Task


@lru_cache(maxsize=65536)
def _from_json_cached(text: str) -> Task:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskError(f"ground truth is not JSON: {exc}") from None
    return Task.from_dict(data)
