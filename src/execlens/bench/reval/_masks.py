"""The ``??`` masks of REval's output snippets, read with ``ast`` (nothing runs here).

An output question shows a snippet with masks (``assert f(x) == ??``; ClassEval:
``assertEqual(res, ??)``) and asks for the completed snippet.  This module

* aligns a template with another snippet of the same shape (the dataset's original test
  body, or a model's answer) and returns what stands where each mask is;
* describes each mask of a ClassEval template (the assertion it sits in, its tolerance,
  whether it hides a literal or the expression under test);
* builds the test-method sources that run in the engine: REval's own
  ``create_from_answer`` rewrite of an answer (official), and the original test body with
  each hidden expression wrapped in a recorder (strict ground truth).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TypeGuard

from execlens.values import AnswerParseError, parse_literal

__all__ = [
    "MASK",
    "MaskSite",
    "MaskError",
    "align_masks",
    "answer_mask_nodes",
    "instrumented_test_method",
    "mask_sites",
    "reval_answer_method",
]

MASK = "??"
_PLACEHOLDER = "__execlens_mask__"
RECORDER = "__execlens_record__"
METHOD = "__execlens_method__"
_EQUALITY = {
    "assertEqual",
    "assertEquals",
    "assertAlmostEqual",
    "assertAlmostEquals",
    "assertListEqual",
    "assertDictEqual",
    "assertTupleEqual",
    "assertSetEqual",
    "assertSequenceEqual",
    "assertMultiLineEqual",
    "assertCountEqual",
    "assertIs",
}
_IGNORED_FIELDS = frozenset(
    {"ctx", "type_comment", "kind", "lineno", "col_offset", "end_lineno", "end_col_offset"}
)


class MaskError(ValueError):
    """A snippet that does not have the template's shape (``reason`` says how)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


def _parse(text: str, what: str) -> ast.Module:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError) as exc:
        raise MaskError("syntax", f"the {what} is not valid Python: {exc}") from exc


def template_tree(template: str) -> ast.Module:
    """The template parsed, each ``??`` a placeholder name."""
    return _parse(template.replace(MASK, _PLACEHOLDER), "template")


def _is_mask(node: object) -> TypeGuard[ast.Name]:
    return isinstance(node, ast.Name) and node.id == _PLACEHOLDER


def _walk_pair(template: object, other: object, found: list[tuple[ast.expr, ast.expr]]) -> bool:
    if _is_mask(template):
        if not isinstance(other, ast.expr):
            return False
        found.append((template, other))
        return True
    if isinstance(template, ast.AST):
        if type(template) is not type(other):
            return False
        for name in template._fields:
            if name in _IGNORED_FIELDS:
                continue
            if not _walk_pair(getattr(template, name, None), getattr(other, name, None), found):
                return False
        return True
    if isinstance(template, list):
        if not isinstance(other, list) or len(template) != len(other):
            return False
        return all(_walk_pair(a, b, found) for a, b in zip(template, other))
    return type(template) is type(other) and template == other


def align_masks(template: str | ast.Module, other: str | ast.Module) -> list[ast.expr]:
    """The nodes of ``other`` standing where the template's masks are, in text order.

    Raises :class:`MaskError` (``syntax`` or ``shape``) when ``other`` does not parse or
    differs from the template anywhere but at the masks.
    """
    tree = template_tree(template) if isinstance(template, str) else template
    other_tree = _parse(other, "snippet") if isinstance(other, str) else other
    found: list[tuple[ast.expr, ast.expr]] = []
    if not _walk_pair(tree, other_tree, found):
        raise MaskError("shape", "the snippet differs from the question outside the ?? masks")
    found.sort(key=lambda pair: (pair[0].lineno, pair[0].col_offset))
    return [node for _, node in found]


_SELF_ASSERT = re.compile(r"\bself\.(assert\w*)")


def answer_mask_nodes(template: str, answer: str) -> list[ast.expr]:
    """What a model's completed snippet puts at the template's masks.

    ``self.assertX`` is read as ``assertX`` (the template's spelling).  A template with a
    single mask also accepts an answer that is just the value.  Raises
    :class:`MaskError`.
    """
    text = _SELF_ASSERT.sub(r"\1", answer)
    try:
        return align_masks(template, text)
    except MaskError as error:
        if template.count(MASK) != 1:
            raise
        try:
            node = ast.parse(text.strip(), mode="eval").body
        except (SyntaxError, ValueError):
            raise error from None
        return [node]


@dataclass(frozen=True)
class MaskSite:
    """One mask of a template, read against the original snippet.

    ``hidden`` is the original expression at the mask (source text) and
    ``hidden_is_expected`` whether it is the expected value (a literal, a value built from
    literals and builtin names such as ``{'age': int}``, or the second argument of an
    equality assertion whose first is not a literal) rather than the expression under
    test; ``assertion`` the assertion call the
    mask is an argument of (``"=="`` for ``assert <call> == ??``), ``position`` its
    argument index; ``other`` the source of the other argument of a two-argument
    assertion; ``places``/``delta`` an ``assertAlmostEqual``'s tolerance.
    """

    index: int
    hidden: str
    hidden_is_expected: bool
    assertion: str
    position: int | None
    other: str | None
    places: int | None = None
    delta: float | None = None

    @property
    def records_other(self) -> bool:
        """Whether the other argument's value is an accepted answer too.

        True for an equality assertion whose hidden side is the expected literal: the
        mask then asks for the value of the expression under test.
        """
        return (
            self.hidden_is_expected
            and self.other is not None
            and (self.assertion in _EQUALITY or self.assertion == "==")
        )

    @property
    def leak(self) -> str:
        """``hides_expression``, ``literal_visible`` or ``""`` (see :class:`MaskTruth`)."""
        if self.hidden_is_expected:
            return ""
        if self.other is not None and _is_literal_text(self.other):
            return "literal_visible"
        return "hides_expression"


def _is_literal_text(text: str) -> bool:
    try:
        parse_literal(text, allow_json=False)
    except AnswerParseError:
        return False
    return True


_BUILTIN_NAMES = frozenset(
    {
        "int",
        "str",
        "float",
        "bool",
        "list",
        "dict",
        "set",
        "tuple",
        "frozenset",
        "bytes",
        "complex",
        "type",
        "object",
        "None",
    }
)


def _is_expected_value(node: ast.expr) -> bool:
    """A literal, or a container of literals and builtin names (an expected value)."""
    if _is_literal_text(ast.unparse(node)):
        return True
    for sub in ast.walk(node):
        if isinstance(
            sub,
            (
                ast.Attribute,
                ast.Call,
                ast.Subscript,
                ast.Lambda,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
            ),
        ):
            return False
        if isinstance(sub, ast.Name) and sub.id not in _BUILTIN_NAMES:
            return False
    return True


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return ast.unparse(func)


def _literal_keyword(call: ast.Call, name: str, position: int | None) -> object:
    for keyword in call.keywords:
        if keyword.arg == name:
            try:
                return parse_literal(ast.unparse(keyword.value), allow_json=False)
            except AnswerParseError:
                return None
    if position is not None and len(call.args) > position:
        try:
            return parse_literal(ast.unparse(call.args[position]), allow_json=False)
        except AnswerParseError:
            return None
    return None


_Aligned = tuple[ast.Module, list[tuple[ast.expr, ast.expr]], dict[int, ast.AST]]


def _align(template: str, original: str) -> _Aligned:
    """The original snippet's tree, each mask paired with the expression it hides (in
    source order), and the tree's parent map."""
    tree = template_tree(template)
    original_tree = _parse(original, "original snippet")
    found: list[tuple[ast.expr, ast.expr]] = []
    if not _walk_pair(tree, original_tree, found):
        raise MaskError("shape", "the template does not match the original snippet")
    found.sort(key=lambda pair: (pair[0].lineno, pair[0].col_offset))
    return original_tree, found, _parents(original_tree)


def mask_sites(template: str, original: str) -> list[MaskSite]:
    """Describe each mask of ``template`` by aligning it with the ``original`` snippet."""
    _, found, parents = _align(template, original)
    return _sites(found, parents)


def _sites(found: list[tuple[ast.expr, ast.expr]], parents: dict[int, ast.AST]) -> list[MaskSite]:
    sites = []
    for index, (_, hidden) in enumerate(found):
        parent = parents.get(id(hidden))
        assertion, position, other, places, delta = "", None, None, None, None
        if isinstance(parent, ast.Call) and hidden in parent.args:
            assertion = _call_name(parent)
            position = parent.args.index(hidden)
            if len(parent.args) >= 2 and position in (0, 1):
                other = ast.unparse(parent.args[1 - position])
            if assertion.startswith("assertAlmostEqual"):
                found_places = _literal_keyword(parent, "places", 2)
                found_delta = _literal_keyword(parent, "delta", None)
                places = found_places if isinstance(found_places, int) else None
                delta = float(found_delta) if isinstance(found_delta, (int, float)) else None
                if places is None and delta is None:
                    places = 7
        elif (
            isinstance(parent, ast.Compare)
            and len(parent.ops) == 1
            and isinstance(parent.ops[0], ast.Eq)
            and parent.comparators[0] is hidden
        ):
            assertion, position, other = "==", 1, ast.unparse(parent.left)
        # The expected side: a literal-like value, or the second argument of an equality
        # assertion whose first argument is not a literal (assertEqual(actual, expected)).
        expected = _is_expected_value(hidden) or (
            assertion in _EQUALITY
            and position == 1
            and other is not None
            and not _is_literal_text(other)
        )
        sites.append(
            MaskSite(
                index, ast.unparse(hidden), expected, assertion, position, other, places, delta
            )
        )
    return sites


class _Instrument(ast.NodeTransformer):
    """Wrap chosen nodes in ``__execlens_record__(key, node)``; ``assertX`` → ``self.assertX``."""

    def __init__(self, targets: dict[int, str]) -> None:
        self.targets = targets

    def visit(self, node: ast.AST) -> ast.AST:
        key = self.targets.get(id(node))
        new = super().visit(node)
        if key is not None:
            return ast.Call(
                func=ast.Name(RECORDER, ast.Load()), args=[ast.Constant(key), new], keywords=[]
            )
        return new

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id.startswith("assert"):
            node.func = ast.Attribute(ast.Name("self", ast.Load()), node.func.id, ast.Load())
        return node


def instrumented_test_method(template: str, original: str) -> str:
    """The original test body as a method recording each mask's values.

    Records ``"<k>"`` for the expression hidden by mask ``k`` and ``"<k>:other"`` for the
    other argument when :attr:`MaskSite.records_other`.  The method is named
    ``__execlens_method__`` and calls ``__execlens_record__(key, value)``.
    """
    original_tree, found, parents = _align(template, original)
    sites = _sites(found, parents)  # before _Instrument changes the tree
    targets: dict[int, str] = {}
    for site, (_, hidden) in zip(sites, found):
        targets[id(hidden)] = str(site.index)
        parent = parents.get(id(hidden))
        if site.records_other and isinstance(parent, ast.Call) and site.position is not None:
            targets[id(parent.args[1 - site.position])] = f"{site.index}:other"
        elif site.records_other and isinstance(parent, ast.Compare):
            targets[id(parent.left)] = f"{site.index}:other"
    body = _Instrument(targets).visit(original_tree)
    # Targets are expressions only, so the module itself comes back (never wrapped).
    assert isinstance(body, ast.Module)
    ast.fix_missing_locations(body)
    function = ast.FunctionDef(
        name=METHOD,
        args=ast.arguments(
            posonlyargs=[], args=[ast.arg("self")], kwonlyargs=[], kw_defaults=[], defaults=[]
        ),
        body=body.body or [ast.Pass()],
        decorator_list=[],
        returns=None,
    )
    module = ast.Module(body=[function], type_ignores=[])
    ast.fix_missing_locations(module)
    return ast.unparse(module)


def reval_answer_method(snippet: str) -> str:
    """REval's ``FunctionFactory.create_from_answer``: a snippet as a test method's source.

    Each line is indented with a tab, except lines inside a triple-quoted block; then every
    ``assert`` in the source becomes ``self.assert`` (so ``assertEqual`` → ``self.assertEqual``,
    and an answer already written with ``self.assertEqual`` breaks, as it does in REval).
    """
    source = "def dreval_output_pred(self):"
    in_string = False
    for line in snippet.split("\n"):
        source += f"\n{line}" if in_string else f"\n\t{line}"
        if "'''" in line or '"""' in line:
            in_string = not in_string
    return source.replace("assert", "self.assert")


def penalised(snippet: str, template: str) -> str | None:
    """REval's ``penalty_pattern``: why a completed snippet is rejected unrun, or None."""
    for pattern in ("assertTrue(True)", "assertFalse(False)", "assert True", "assert False"):
        if pattern in snippet:
            return f"contains {pattern!r}"
    given = template.count("assert")
    if snippet.count("assert") < given:
        return f"fewer asserts than the question ({snippet.count('assert')} < {given})"
    return None
