"""SQLAlchemy tables: owners and their tokens, models, compilations and their events, kernels."""
from __future__ import annotations

import datetime as dt
import uuid

from sqlalchemy import JSON, BigInteger, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text, \
    UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

TERMINAL_STATES = ("succeeded", "failed", "cancelled")
STATES = ("queued", "running") + TERMINAL_STATES


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def new_id() -> str:
    return uuid.uuid4().hex


class Base(DeclarativeBase):
    pass


class Owner(Base):
    """Who owns models and jobs; every API token belongs to one."""

    __tablename__ = "owners"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    is_admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class Token(Base):
    """An API token, stored as the sha256 of its value (tokens are 256-bit random, so no slow hash)."""

    __tablename__ = "tokens"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(ForeignKey("owners.id", ondelete="CASCADE"), index=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)


class Model(Base):
    """An uploaded ONNX model; its bytes are a blob in the store named by sha256."""

    __tablename__ = "models"
    __table_args__ = (UniqueConstraint("owner_id", "sha256", name="uq_model_owner_sha256"),)
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(ForeignKey("owners.id", ondelete="CASCADE"), index=True)
    sha256: Mapped[str] = mapped_column(String(64), index=True)
    size: Mapped[int] = mapped_column(BigInteger)
    name: Mapped[str] = mapped_column(String(300))
    inputs: Mapped[list] = mapped_column(JSON)          # [{name, dtype, shape}], shape items int or str
    outputs: Mapped[list] = mapped_column(JSON)
    op_histogram: Mapped[dict] = mapped_column(JSON)
    warnings: Mapped[list] = mapped_column(JSON)
    opset: Mapped[int] = mapped_column(Integer, default=0)
    # {dynamic_dims, example_input_shapes, parameters, parameter_bytes, producer, ir_version, nodes};
    # NULL for models uploaded before it existed
    summary: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)

    def _summary(self, key: str, default):
        return (self.summary or {}).get(key, default)

    @property
    def dynamic_dims(self) -> list:
        return self._summary("dynamic_dims", [])

    @property
    def example_input_shapes(self) -> dict:
        return self._summary("example_input_shapes", {})

    @property
    def parameters(self) -> int | None:
        return self._summary("parameters", None)

    @property
    def parameter_bytes(self) -> int | None:
        return self._summary("parameter_bytes", None)

    @property
    def producer(self) -> str:
        return self._summary("producer", "")


class Compilation(Base):
    """A compile job; the authoritative state (Celery only carries the job id)."""

    __tablename__ = "compilations"
    __table_args__ = (Index("ix_compilations_owner_state", "owner_id", "state"),)
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(ForeignKey("owners.id", ondelete="CASCADE"), index=True)
    model_id: Mapped[str | None] = mapped_column(ForeignKey("models.id", ondelete="SET NULL"), index=True,
                                                 nullable=True)
    model_sha256: Mapped[str] = mapped_column(String(64))
    target_name: Mapped[str] = mapped_column(String(100))
    target_spec: Mapped[dict] = mapped_column(JSON)     # the full Target fields, so the job is reproducible
    arch: Mapped[str] = mapped_column(String(20))
    queue: Mapped[str] = mapped_column(String(20))
    options: Mapped[dict] = mapped_column(JSON)         # {input_shapes: {name: [dims]}, precision, disable}
    dedup_key: Mapped[str] = mapped_column(String(64), index=True)
    compiler_version: Mapped[str] = mapped_column(String(40))
    state: Mapped[str] = mapped_column(String(12), index=True, default="queued")
    stage: Mapped[str | None] = mapped_column(String(40), nullable=True)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    stage_seconds: Mapped[dict] = mapped_column(JSON, default=dict)
    error_category: Mapped[str | None] = mapped_column(String(40), nullable=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    enqueues: Mapped[int] = mapped_column(Integer, default=0)
    task_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    artifact_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    artifact_size: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    report_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    report_html_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    compile_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    kernel_hits: Mapped[int] = mapped_column(Integer, default=0)
    kernel_misses: Mapped[int] = mapped_column(Integer, default=0)
    deduplicated_from: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    queued_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    started_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    heartbeat_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class CompilationEvent(Base):
    """One row per state or stage change of a job; the SSE stream replays them in id order."""

    __tablename__ = "compilation_events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    compilation_id: Mapped[str] = mapped_column(ForeignKey("compilations.id", ondelete="CASCADE"), index=True)
    at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    state: Mapped[str] = mapped_column(String(12))
    stage: Mapped[str | None] = mapped_column(String(40), nullable=True)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    message: Mapped[str | None] = mapped_column(Text, nullable=True)


class Kernel(Base):
    """A built kernel: its digest (of the CUDA source) and arch, with blobs for source and cubin."""

    __tablename__ = "kernels"
    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    arch: Mapped[str] = mapped_column(String(20), primary_key=True)
    name: Mapped[str] = mapped_column(String(300))
    ops: Mapped[list] = mapped_column(JSON)
    meta: Mapped[dict] = mapped_column(JSON)            # grid, block, shared_bytes, registers, spills, config
    source_sha256: Mapped[str] = mapped_column(String(64))
    cubin_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class CompilationKernel(Base):
    """Which job produced (or reused) which kernel; an owner sees the kernels of its own jobs."""

    __tablename__ = "compilation_kernels"
    compilation_id: Mapped[str] = mapped_column(ForeignKey("compilations.id", ondelete="CASCADE"),
                                                primary_key=True)
    digest: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)


# --- CI projects (docs/ci-webhook.md) -------------------------------------------------------------

class Project(Base):
    """A set of models compiled for a set of targets on every commit a CI webhook reports."""

    __tablename__ = "projects"
    __table_args__ = (UniqueConstraint("owner_id", "name", name="uq_project_owner_name"),)
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    owner_id: Mapped[str] = mapped_column(ForeignKey("owners.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    targets: Mapped[list] = mapped_column(JSON)           # preset names
    models: Mapped[list] = mapped_column(JSON)            # [{name, source}]: a model id or an https URL template
    # kept in clear: an HMAC needs the key itself (as GitHub keeps it); shown to the owner once
    webhook_secret: Mapped[str] = mapped_column(String(100))
    regression_threshold: Mapped[float] = mapped_column(Float, default=0.10)
    callback_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    secret_rotated_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class ProjectCommit(Base):
    """One commit of a project that a webhook (or `brickyard ci`) asked to build."""

    __tablename__ = "project_commits"
    __table_args__ = (UniqueConstraint("project_id", "sha", name="uq_project_commit_sha"),
                      Index("ix_project_commits_ref", "project_id", "ref", "created_at"))
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    sha: Mapped[str] = mapped_column(String(64))
    ref: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    notified_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)   # callback posted
    notify_attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    notify_claimed_until: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)  # a poster's lease


class ProjectBuild(Base):
    """One model x target of a commit: its compilation, or the fetch that precedes it."""

    __tablename__ = "project_builds"
    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    commit_id: Mapped[str] = mapped_column(ForeignKey("project_commits.id", ondelete="CASCADE"), index=True)
    model_name: Mapped[str] = mapped_column(String(100))
    target: Mapped[str] = mapped_column(String(100))
    model_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    source_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    compilation_id: Mapped[str | None] = mapped_column(ForeignKey("compilations.id", ondelete="SET NULL"),
                                                       nullable=True, index=True)
    state: Mapped[str | None] = mapped_column(String(12), nullable=True)  # fetching / failed; else the job's
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    predicted_us: Mapped[float | None] = mapped_column(Float, nullable=True)  # from the job's report
    measured_us: Mapped[float | None] = mapped_column(Float, nullable=True)
    fetch_attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    fetch_queued_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)  # its message published
    # a fetch in progress holds the build until then; a lapsed lease means its worker was lost
    fetch_lease_until: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)


class WebhookDelivery(Base):
    """A delivery id seen once per project, with the answer it got (a replay gets the same answer)."""

    __tablename__ = "webhook_deliveries"
    __table_args__ = (UniqueConstraint("project_id", "delivery_id", name="uq_webhook_delivery"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    project_id: Mapped[str] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    delivery_id: Mapped[str] = mapped_column(String(200))
    status_code: Mapped[int] = mapped_column(Integer)
    response: Mapped[dict] = mapped_column(JSON)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)


class WorkerPresence(Base):
    """A worker process's last sign of life (the dashboard's live workers)."""

    __tablename__ = "worker_presence"
    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    queues: Mapped[list] = mapped_column(JSON)
    started_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    last_seen: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow, index=True)
