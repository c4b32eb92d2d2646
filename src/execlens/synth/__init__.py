"""CodeI/O and CodeI/O++ synthesis: raw code → verified prediction data, resumable.

A pipeline of stages (``synth/stages/``, one file each) over shards of plain records;
an executor (``local`` or ``ray``) owns sharding, completion markers and resume through
:mod:`execlens.store`.  Names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execlens._lazy import lazy_exports

if TYPE_CHECKING:
    from execlens.synth._classify import PAIR_CLASSES
    from execlens.synth._collect import CollectSettings, code_flags, collect_functions
    from execlens.synth._config import ConfigError, SourceConfig, SynthConfig, load_config
    from execlens.synth._demo import run_demo_synthesis
    from execlens.synth._extract import Extracted, extract_answer, last_json_object
    from execlens.synth._mutation import mutated_parameters
    from execlens.synth._pipeline import run_pipeline, synth_status
    from execlens.synth._programs import (
        IMPORT_PREFIX,
        NUMPY_PREFIX,
        PROGRAM_REQUIREMENTS,
        SYNTH_PRELOAD,
        codeio_program,
        collect_program,
        needs_numpy,
        probe_program,
        replay_program,
    )
    from execlens.synth._prompts import render_prediction_prompt, render_transform_prompt
    from execlens.synth._size import deep_size, size_ok
    from execlens.synth._sources import load_function_records, load_source
    from execlens.synth._stage import (
        STAGES,
        ModelRequestsFailed,
        ModelStage,
        Stage,
        StageContext,
        add_stage_path,
        load_stages,
        register_stage,
    )
    from execlens.synth._unified import UnifiedParse, parse_unified
    from execlens.synth._verify import feedback, prediction_task, verify_predictions

_EXPORTS = {
    "PAIR_CLASSES": "_classify",
    "mutated_parameters": "_mutation",
    "CollectSettings": "_collect",
    "code_flags": "_collect",
    "collect_functions": "_collect",
    "load_function_records": "_sources",
    "load_source": "_sources",
    "feedback": "_verify",
    "prediction_task": "_verify",
    "verify_predictions": "_verify",
    "ConfigError": "_config",
    "ModelRequestsFailed": "_stage",
    "SourceConfig": "_config",
    "SynthConfig": "_config",
    "load_config": "_config",
    "run_demo_synthesis": "_demo",
    "Extracted": "_extract",
    "extract_answer": "_extract",
    "last_json_object": "_extract",
    "run_pipeline": "_pipeline",
    "synth_status": "_pipeline",
    "IMPORT_PREFIX": "_programs",
    "NUMPY_PREFIX": "_programs",
    "PROGRAM_REQUIREMENTS": "_programs",
    "SYNTH_PRELOAD": "_programs",
    "codeio_program": "_programs",
    "collect_program": "_programs",
    "needs_numpy": "_programs",
    "probe_program": "_programs",
    "replay_program": "_programs",
    "render_prediction_prompt": "_prompts",
    "render_transform_prompt": "_prompts",
    "deep_size": "_size",
    "size_ok": "_size",
    "STAGES": "_stage",
    "ModelStage": "_stage",
    "add_stage_path": "_stage",
    "load_stages": "_stage",
    "Stage": "_stage",
    "StageContext": "_stage",
    "register_stage": "_stage",
    "UnifiedParse": "_unified",
    "parse_unified": "_unified",
}

__all__, __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
