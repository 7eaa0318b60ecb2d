"""Service settings from the environment (prefix BRICKYARD_), e.g. BRICKYARD_HOME=/srv/brickyard."""
from __future__ import annotations

import functools
from pathlib import Path

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

EMBEDDED_BROKER = "embedded"  # kombu's filesystem transport in folders under home (service/fs_transport.py)


class Settings(BaseSettings):
    """Every knob of the API and the worker; defaults give the embedded single-machine service."""

    model_config = SettingsConfigDict(env_prefix="BRICKYARD_", extra="ignore")

    home: Path = Path("./var")
    database_url: str = ""                  # default: sqlite:///<home>/brickyard.db
    broker: str = EMBEDDED_BROKER           # or a Celery broker URL (redis://...)
    store_dir: Path | None = None           # default: <home>/store
    host: str = "127.0.0.1"
    port: int = Field(8000, ge=1, le=65535)
    max_upload_bytes: int = Field(32 * 1024**3, ge=1)   # a 13B model's fp16 weights in a model archive
    gpu_archs: str = ""                     # archs served by GPU workers ("sm_90,sm_80"): jobs go there
    max_attempts: int = Field(3, ge=1)
    soft_time_limit: float = Field(3600, gt=0)  # seconds; the job fails with category "timeout"
    hard_time_limit: float = Field(3900, gt=0)  # seconds; the worker child is killed (counts an attempt)
    heartbeat_interval: float = Field(5.0, gt=0)
    heartbeat_timeout: float = Field(30.0, gt=0)   # a running job silent this long is re-enqueued
    reconcile_interval: float = Field(10.0, gt=0)
    queued_grace: float = Field(15.0, ge=0)       # a queued job without a message this long is re-enqueued
    requeue_queued_after: float = Field(900.0, gt=0)  # brokers we cannot inspect: re-enqueue after this
    retry_backoff: float = Field(2.0, gt=0)       # infrastructure faults: backoff * 2**(attempt-1) seconds
    worker_shutdown_grace: float = Field(10.0, ge=0)  # seconds a stopping worker may finish its job
    poll_interval: float = Field(0.25, gt=0)      # embedded queue and SSE polling
    token_cache_seconds: float = Field(5.0, ge=0)  # an API process remembers a valid token this long
    presence_interval: float = Field(5.0, gt=0)   # a worker process writes its presence row this often
    worker_seen_within: float = Field(30.0, gt=0)  # ... and counts as live (dashboard, worker.health) this long
    fetch_timeout: float = Field(120.0, gt=0)     # a CI project's model download, in all
    fetch_max_bytes: int = Field(512 * 1024**2, ge=1)  # ... and its size (never above max_upload_bytes)
    fetch_lease: float | None = Field(None, gt=0)  # a fetch silent this long lost its worker (default: timeout + 90)
    fetch_max_attempts: int = Field(3, ge=1)
    fetch_ca_file: Path | None = None             # extra CA bundle for model URLs (an internal model registry)
    callback_max_attempts: int = Field(5, ge=1)   # rounds of up to 3 verdict POSTs to a callback URL
    callback_lease: float = Field(60.0, gt=0)     # a claimed delivery not confirmed this long is tried again

    @field_validator("home", mode="after")
    @classmethod
    def _absolute_home(cls, v: Path) -> Path:
        return v.expanduser().resolve()

    @model_validator(mode="after")
    def _check(self):
        if self.hard_time_limit <= self.soft_time_limit:
            raise ValueError("BRICKYARD_HARD_TIME_LIMIT must exceed BRICKYARD_SOFT_TIME_LIMIT")
        if self.heartbeat_timeout <= 2 * self.heartbeat_interval:
            raise ValueError("BRICKYARD_HEARTBEAT_TIMEOUT must exceed twice BRICKYARD_HEARTBEAT_INTERVAL")
        return self

    @property
    def fetch_lease_seconds(self) -> float:
        return self.fetch_lease or self.fetch_timeout + 90.0

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{self.home / 'brickyard.db'}"

    @property
    def store_root(self) -> Path:
        return (self.store_dir or self.home / "store").resolve()

    @property
    def tmp_dir(self) -> Path:
        return self.home / "tmp"

    @property
    def queue_dir(self) -> Path:
        return self.home / "queue"

    @property
    def admin_token_file(self) -> Path:
        return self.home / "admin-token"

    @property
    def embedded_broker(self) -> bool:
        return self.broker == EMBEDDED_BROKER

    @property
    def gpu_arch_set(self) -> frozenset[str]:
        return frozenset(a.strip() for a in self.gpu_archs.split(",") if a.strip())

    def ensure_dirs(self) -> None:
        """Creates home and the folders under it that the service writes."""
        for d in (self.home, self.tmp_dir, self.store_root, self.queue_dir / "messages",
                  self.queue_dir / "claimed", self.queue_dir / "control", self.home / "run"):
            d.mkdir(parents=True, exist_ok=True)


@functools.lru_cache
def get_settings() -> Settings:
    """The process's settings, read once from the environment."""
    return Settings()
