"""ONNX node conformance cases Brickyard does not run, each with its reason.

An op Brickyard does not support at all shows up as 'unsupported' by itself; this list is for
cases of supported ops that test something outside the compiler's scope."""
from __future__ import annotations

import re

EXCLUDES: list[tuple[str, str]] = [
    (r"float8|FLOAT8|_e4m3|_e5m2|float4|_4bit|int4|uint4|INT4|UINT4|e8m0|FLOAT4|int2|INT2",
     "8/4-bit float and 4/2-bit int element types are not Brickyard dtypes"),
    (r"string|_STRING", "string tensors have no device representation"),
    (r"_training|training_mode", "training-mode ops: Brickyard compiles inference graphs"),
    (r"sequence|optional", "sequence and optional types are not tensors"),
    (r"^test_ai_onnx_ml_", "ONNX-ML (classical machine learning) operators are outside a GPU DL compiler's scope"),
    (r"^test_attention_.*_bf16",
     "the expected values round every intermediate to bfloat16; Brickyard accumulates attention in float32, "
     "one bfloat16 step away, finer than the case's rtol of 1e-3"),
]


def exclusion_reason(case_name: str) -> str | None:
    """The reason a case is excluded, or None."""
    for pattern, reason in EXCLUDES:
        if re.search(pattern, case_name):
            return reason
    return None
