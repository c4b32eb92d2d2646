"""Long verbs' progress: bars on a terminal, plain throttled lines when piped, or nothing."""

from __future__ import annotations

import io

from execlens._progress import StageProgress


class _Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


def test_piped_output_gets_plain_lines_at_each_tenth_and_the_end() -> None:
    out, err = _Pipe(), _Pipe()
    with StageProgress(True, stdout=out, stderr=err) as display:
        update = display.stage("scoring", 100)
        for count in range(1, 101):
            update(count)
        update(100)  # a repeated final count prints nothing more
    lines = out.getvalue().splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        f"scoring: {n}/100" for n in range(10, 101, 10)
    ]
    assert err.getvalue() == ""  # stderr is kept for the error line of a failed run


def test_disabled_or_json_output_shows_nothing() -> None:
    for display in (
        StageProgress(False, stdout=_Pipe(), stderr=_Pipe()),
        StageProgress(True, plain=False, stdout=_Pipe(), stderr=_Pipe()),
    ):
        with display:
            display.stage("generating", 3)(3)
        assert display._stdout.getvalue() == ""  # noqa: SLF001 - the test's own stream


def test_a_resumed_stage_starts_from_its_done_count() -> None:
    out = _Pipe()
    with StageProgress(True, stdout=out, stderr=_Pipe()) as display:
        update = display.stage("tracing", 4, done=3)
        update(4)
    assert out.getvalue().startswith("tracing: 4/4")
