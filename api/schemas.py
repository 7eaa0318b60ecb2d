"""Request and response bodies (pydantic); inputs and outputs are separate models."""
from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

# the database keeps naive UTC; the API says so
UtcTime = Annotated[dt.datetime, AfterValidator(lambda v: v.replace(tzinfo=dt.timezone.utc) if v.tzinfo is None else v)]
State = Literal["queued", "running", "succeeded", "failed", "cancelled"]
MAX_OFFSET = 2**31 - 1  # list offsets; larger ones overflow the databases' integers


def has_nul(value: Any) -> bool:
    """A NUL character anywhere in a string, a key or a nested value (PostgreSQL refuses to store one)."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(has_nul(k) or has_nul(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(has_nul(v) for v in value)
    return False


class ErrorOut(BaseModel):
    detail: str
    category: str | None = None


class TensorSig(BaseModel):
    name: str
    dtype: str
    shape: list[int | str] | None = Field(description="sizes; a dynamic dimension is its name ('?' when it has "
                                                      "none), an output's the input dimension it equals")


class OutputSig(TensorSig):
    runtime_axis: int | None = Field(None, description="an output's axis whose length is known only at run time "
                                     "(NonMaxSuppression's selection, what is computed from it): its size in "
                                     "`shape` is the most it can be, and a run returns it trimmed")


class DynamicDimOut(BaseModel):
    input: str
    axis: int
    name: str = Field(description="as declared ('?' for -1, unnamed and placeholder names)")
    symbol: str = Field(description="dimensions with one symbol have one size")


class ModelOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: str
    sha256: str
    size: int
    name: str
    inputs: list[TensorSig]
    outputs: list[OutputSig]
    op_histogram: dict[str, int]
    warnings: list[str]
    opset: int
    dynamic_dims: list[DynamicDimOut] = Field(default_factory=list,
                                              description="what options.input_shapes must fix to compile")
    example_input_shapes: dict[str, list[int | str]] = Field(
        default_factory=dict, description="a template for options.input_shapes: <...> marks a size to choose")
    parameters: int | None = Field(None, description="elements of the model's initializers")
    parameter_bytes: int | None = None
    producer: str = ""
    created_at: UtcTime


class ModelList(BaseModel):
    items: list[ModelOut]
    total: int
    limit: int
    offset: int


class TargetOut(BaseModel):
    name: str
    arch: str
    queue: str
    spec: dict[str, Any]


class CompileOptionsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input_shapes: dict[str, list[int]] = Field(default_factory=dict,
                                               description="sizes for the model's dynamic inputs")
    precision: str = "fp32"
    disable: list[str] = Field(default_factory=list,
                               description="techniques to switch off, to measure their effect: welder (all fusion), shared_level, split_rows, sink_reshapes, prologue, stitched_maps, float_epilogues and part_reads (parts of it), half_storage (fp16/bf16 values between kernels), roller, sparta, tune, rammer, grinder, "
                                           "grouped_experts (a MoE's token-expert pairs sorted by expert into "
                                           "batched GEMMs)")
    verify: Literal["host"] | None = Field(
        default=None,
        description="host: before packaging, run the compiled model on the host harness (the generated CUDA "
                    "built for the worker's CPU) against onnxruntime on seeded random inputs; report.json's "
                    "verification gives the max relative error and the outcome. It adds a run of the model on "
                    "the CPU to the compile time")
    max_trip_count: int | None = Field(
        default=None, ge=1, le=1 << 20,
        description="the most iterations of a Loop whose iteration count is only known at run time and that has "
                    "scan outputs (sized to it, returned trimmed)")
    kv_cache: Literal["copy", "in-place"] = Field(
        default="copy",
        description="copy: a KV-cache node's (GroupQueryAttention) present K/V is a new tensor, onnxruntime's "
                    "meaning; in-place: its new rows are written into the past's buffer, which the runtime "
                    "returns as the present (onnxruntime-genai's past_present_share_buffer)")


class CompilationCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model_id: str
    target: str | dict[str, Any] = Field(description="a preset name (GET /v1/targets) or a full target spec")
    options: CompileOptionsIn = Field(default_factory=CompileOptionsIn)

    @model_validator(mode="after")
    def _no_nul(self):
        if has_nul(self.model_dump()):
            raise ValueError("strings must not contain NUL characters")
        return self


class JobError(BaseModel):
    category: str
    message: str


class CompilationOut(BaseModel):
    id: str
    model_id: str | None
    model_sha256: str
    target: str
    arch: str
    queue: str
    options: dict[str, Any]
    state: State
    stage: str | None
    progress: float
    stage_seconds: dict[str, float]
    error: JobError | None
    attempts: int
    artifact_sha256: str | None
    artifact_size: int | None
    compile_seconds: float | None
    cache: dict[str, int]
    deduplicated_from: str | None
    created_at: UtcTime
    started_at: UtcTime | None
    finished_at: UtcTime | None

    @classmethod
    def of(cls, job) -> "CompilationOut":
        err = JobError(category=job.error_category, message=job.error_message or "") if job.error_category else None
        return cls(id=job.id, model_id=job.model_id, model_sha256=job.model_sha256, target=job.target_name,
                   arch=job.arch, queue=job.queue, options=job.options, state=job.state, stage=job.stage,
                   progress=job.progress, stage_seconds=job.stage_seconds or {}, error=err, attempts=job.attempts,
                   artifact_sha256=job.artifact_sha256, artifact_size=job.artifact_size,
                   compile_seconds=job.compile_seconds,
                   cache={"hits": job.kernel_hits, "misses": job.kernel_misses},
                   deduplicated_from=job.deduplicated_from, created_at=job.created_at, started_at=job.started_at,
                   finished_at=job.finished_at)


class CompilationList(BaseModel):
    items: list[CompilationOut]
    total: int
    limit: int
    offset: int


class KernelOut(BaseModel):
    digest: str
    arch: str
    archs: list[str]
    name: str
    ops: list[str]
    meta: dict[str, Any]
    source_sha256: str
    cubin_sha256: str | None


class CacheStats(BaseModel):
    kernel_hits: int
    kernel_misses: int
    artifact_hits: int
    objects: int
    bytes: int


# --- CI projects ---------------------------------------------------------------------------------

class ProjectModelIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9._-]+$")
    source: str = Field(min_length=1, max_length=2000,
                        description="an uploaded model id, or an https URL template containing {commit}")


class ProjectCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9._-]+$")
    targets: list[str] = Field(min_length=1, max_length=20)
    models: list[ProjectModelIn] = Field(min_length=1, max_length=50)
    regression_threshold: float = Field(0.10, ge=0, le=100,
                                        description="a latency increase above this fraction is a regression")
    callback_url: str | None = Field(None, max_length=2000,
                                     description="the verdict is POSTed here, signed like a webhook")

    @model_validator(mode="after")
    def _no_nul(self):
        if has_nul(self.model_dump()):
            raise ValueError("strings must not contain NUL characters")
        return self


class ProjectOut(BaseModel):
    id: str
    name: str
    targets: list[str]
    models: list[dict[str, str]]
    regression_threshold: float
    callback_url: str | None
    webhook_url: str
    webhook_secret: str | None = Field(None, description="shown only when created or rotated")
    created_at: UtcTime

    @classmethod
    def of(cls, p, *, secret: bool = False) -> "ProjectOut":
        return cls(id=p.id, name=p.name, targets=p.targets, models=p.models,
                   regression_threshold=p.regression_threshold, callback_url=p.callback_url,
                   webhook_url=f"/v1/hooks/ci/{p.id}", webhook_secret=p.webhook_secret if secret else None,
                   created_at=p.created_at)


class ProjectList(BaseModel):
    items: list[ProjectOut]
    total: int


class CommitRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    commit: str = Field(min_length=1, max_length=64, pattern=r"^[0-9A-Za-z._-]+$")
    ref: str = Field("", max_length=255)
    models: dict[str, str] | None = Field(None, description="model name -> model id or https URL, for this commit")

    @model_validator(mode="after")
    def _no_nul(self):
        if has_nul(self.model_dump()):
            raise ValueError("strings must not contain NUL characters")
        return self


class BuildStatus(BaseModel):
    model: str
    target: str
    state: str
    compilation_id: str | None
    model_id: str | None
    compile_seconds: float | None
    latency_us: float | None
    latency_kind: Literal["predicted", "measured"] | None
    previous_latency_us: float | None
    change: float | None
    regression: bool
    error: str | None


class CommitStatus(BaseModel):
    project: str
    project_id: str
    commit: str
    ref: str
    created_at: str
    previous_commit: str | None
    threshold: float
    verdict: Literal["pass", "fail", "pending"]
    failures: list[str]
    regressions: list[str]
    builds: list[BuildStatus]


class HookAnswer(BaseModel):
    project_id: str
    delivery: str | None
    commit: str | None
    ref: str | None
    started: bool = Field(description="false for a replay, a commit already built, or an event that builds nothing")
    replay: bool = False
    compilations: list[dict[str, Any]]
    status_url: str | None
