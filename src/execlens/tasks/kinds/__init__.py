"""Question kinds as plug-ins: one module per kind, one registry.

A kind (:class:`QuestionKind`, with :class:`KindBase`'s defaults) owns how its truth is
built from a traced run, how the program is shown and the question worded
(:func:`task_prompt`: the user turn synthesis trains on and the rewards' exports carry;
the runtime benchmark frames the same question), the answer form and its reader, the
judge rule, partial credit and the report's ``explain`` text.  The built-in kinds are
``coverage``, ``path``, ``state``, ``output``, ``input`` and ``trace``; a new kind is a
module that calls :func:`register_kind`, found through the ``execlens.question_kinds``
entry-point group or ``$EXECLENS_PLUGINS``.  Names are loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.tasks.kinds._base import KindBase, envelope_literal
    from execlens.tasks.kinds._protocol import (
        Example,
        JudgeRule,
        NoAnswerForm,
        Numbering,
        QuestionKind,
        Scope,
    )
    from execlens.tasks.kinds._readers import assertion_side, first_line, line_list, prediction
    from execlens.tasks.kinds._registry import (
        PLUGINS_ENV,
        PluginError,
        get_kind,
        kind_names,
        kinds,
        load_plugins,
        plugin_modules,
        register_kind,
    )
    from execlens.tasks.kinds._wording import LINE_NOTE, numbered_lines, run_phrase, task_prompt

_EXPORTS = {
    "KindBase": "_base",
    "envelope_literal": "_base",
    "Example": "_protocol",
    "JudgeRule": "_protocol",
    "NoAnswerForm": "_protocol",
    "Numbering": "_protocol",
    "QuestionKind": "_protocol",
    "Scope": "_protocol",
    "assertion_side": "_readers",
    "first_line": "_readers",
    "line_list": "_readers",
    "prediction": "_readers",
    "PLUGINS_ENV": "_registry",
    "PluginError": "_registry",
    "get_kind": "_registry",
    "kind_names": "_registry",
    "kinds": "_registry",
    "load_plugins": "_registry",
    "plugin_modules": "_registry",
    "register_kind": "_registry",
    "LINE_NOTE": "_wording",
    "numbered_lines": "_wording",
    "run_phrase": "_wording",
    "task_prompt": "_wording",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
