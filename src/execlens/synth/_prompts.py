"""The CodeI/O prompt texts: the transform prompt's four parts, the prediction prompts,
the reference-code tip and the revision suffix (the paper's wording)."""

from __future__ import annotations

import re
from typing import Any

__all__ = [
    "INPUT_PRED_TEMPLATE",
    "OUTPUT_PRED_TEMPLATE",
    "REDO_SUFFIX",
    "REFCODE_TIP",
    "TRANSFORM_TEMPLATE",
    "render_prediction_prompt",
    "fill",
    "render_transform_prompt",
]

TRANSFORM_TEMPLATE = """Task Overview:

Given a code file (which may not be Python), organise a main function in Python and build a problem around it. Your answer has four parts.

1. Main Function:
  - Build the solution function from the code file; it keeps the file's main logic.
  - Keep imports of self-defined modules as they are instead of writing placeholders.
  - Name the function `main_solution`: rename a function of the file, or call several of them from a new main function.
  - `main_solution` must take and return JSON-serialisable values only.
      If the code needs no inputs, generalise it so that input variables always exist.
      Convert JSON-serialisable inputs to any non-serialisable originals (set, tuple, np.array, functions, objects) at the start of `main_solution`.
      Convert non-serialisable results to JSON-serialisable outputs before returning.
      Keep inputs and outputs small (under 1KB): no deep nesting, huge numbers or floats with many decimals.
  - `main_solution` returns its result; it does not print it.
  - Remove plotting, print statements and file writes.
  - Define `main_solution` at the end of this part, after everything it needs.

2. Input Output Description:
  - Describe every input and output variable of `main_solution`: its type and meaning.
  - For a dictionary, name its keys and the type and meaning of each value; for a string, its exact format. No open-ended strings.

3. Input Generator:
  - Write a function `input_generator` with no arguments that returns one set of input arguments for `main_solution` each time it is called.
  - It always returns a dictionary, because `main_solution` is called with `**kwargs`.
  - Use randomness so that calls give different inputs; keep them reasonable and small (under 1KB).

4. Problem Statement:
  - Write a problem related to the code. Do not say "implement a function" or "write a function"; describe the background as a non-programming problem that ends with a wh-question.
  - Name the input variables (not their values) and ask for the returned value, consistent with `main_solution`.
  - Do not repeat the input/output requirements or give examples.

---------

Your final output should be like this:
## Main Function
```python
# import necessary packages
import ...

# all class and function definitions in the code file, if any
def ...

# main function
def main_solution(arg1, arg2, ...):
  # inputs are JSON serialisable; convert them if the code needs other types
  ...
  # the returned value must be JSON serialisable
  return ...
```
## Input Output Description
Input:
  `arg1` (type): description
  `arg2` (type): description
Output:
  `return` (type): description
## Input Generator
```python
def input_generator():
  # generate input arguments for the main_solution function
  ...
  return {"arg1": ..., "arg2": ...}
```
## Problem Statement
... (a wh-question naming the input variables) ...

---------

Here is the code file you need to process:
[Code Start]
{code}
[Code End]"""

OUTPUT_PRED_TEMPLATE = """You are given a question that requires some input and output variables as follows:

{query}

The input and output requirements are as follows:

{io_req}

Given the following input:

{given}

Can you predict the output without writing any code? Please reason and put your final answer in the following json format: {"output": <your output>}, where <your output> should strictly match the the output requirement as specified."""

INPUT_PRED_TEMPLATE = """You are given a question that requires some input and output variables as follows:

{query}

The input and output requirements are as follows:

{io_req}

Given the following output:

{given}

Can you predict a feasible input without writing any code? Please reason and put your final answer in the following json format: {"input": <your input>}, where <your input> should be a dictionary, even if the there is only one input variable, with keys strictly match the input variables' names as specified."""

REFCODE_TIP = """Tip: Here is a reference code snippet for this question. You can refer to this code to guide your reasoning but not copy spans of code directly.

{refcode}"""

REDO_SUFFIX = ("\n\nPlease redo it, and your prediction should no longer be any of the wrong "
               "ones you have made before!")


_PLACEHOLDER = re.compile(r"\{(code|query|io_req|given|refcode)\}")


def fill(template: str, **values: str) -> str:
    """Replace ``{name}`` placeholders in one pass (inserted text is never re-scanned,
    so a problem statement containing ``{given}`` stays as written)."""
    return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def render_transform_prompt(code: str, template: str = TRANSFORM_TEMPLATE) -> str:
    """The transform request for one raw code file."""
    return fill(template, code=code)


def render_prediction_prompt(kind: str, *, query: str, io_req: str, given: Any, refcode: str,
                             templates: dict[str, str] | None = None) -> str:
    """An input- (``kind="i"``) or output- (``"o"``) prediction prompt.

    ``given`` is the input (a kwargs dict) or the output, shown as its Python ``repr``
    as the reference does; the reference-code tip follows, unfenced.  ``templates``
    may replace ``"i"``, ``"o"`` or ``"tip"``.
    """
    chosen = {"o": OUTPUT_PRED_TEMPLATE, "i": INPUT_PRED_TEMPLATE, "tip": REFCODE_TIP}
    chosen.update(templates or {})
    if kind not in ("i", "o"):
        raise ValueError(f"prediction kind must be 'i' or 'o', not {kind!r}")
    body = fill(chosen[kind], query=query, io_req=io_req, given=repr(given))
    return body + "\n\n" + fill(chosen["tip"], refcode=refcode)
