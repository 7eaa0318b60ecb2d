"""Creating a compilation job: its dedup key (model bytes, target, options, toolchain) and its row,
answered at once from a twin that already succeeded. Used by POST /v1/compilations and by CI commits."""
from __future__ import annotations

import functools
import hashlib

from sqlalchemy.orm import Session

from compiler import __version__
from compiler.pipeline import CompileOptions
from compiler.targets import Target

from . import crud
from .models import Compilation, Model


@functools.lru_cache(maxsize=None)
def toolchain(arch: str) -> str:
    """The compiler and NVRTC versions and the arch: part of a compilation's dedup key."""
    try:
        from compiler.build import toolchain_key
        return toolchain_key(arch)
    except Exception:  # noqa: BLE001 - no NVRTC in this process: the compiler key alone still separates builds
        from compiler.version import compiler_key
        return f"brickyard-{__version__}/{compiler_key()[:20]}/nvrtc-unknown/{arch}"


def compilation_dedup_key(model_sha256: str, target: Target, opts: CompileOptions, tool: str) -> str:
    """Two compilations with this key give the same artifact: same bytes, target, options and compiler."""
    return hashlib.sha256(f"{model_sha256}|{target.key}|{opts.key}|{tool}".encode()).hexdigest()


def new_job(*, session: Session, owner_id: str, model: Model, target: Target,
            opts: CompileOptions) -> tuple[Compilation, bool]:
    """The job row (created already succeeded when a twin did); returns (job, whether it needs a message)."""
    from .celery_app import queue_for_arch
    dedup_key = compilation_dedup_key(model.sha256, target, opts, toolchain(target.arch))
    answer = crud.find_succeeded(session=session, dedup_key=dedup_key)
    job = crud.create_compilation(
        session=session, owner_id=owner_id, model=model, target_name=target.name, target_spec=target.describe(),
        arch=target.arch, queue=queue_for_arch(target.arch),
        options={"input_shapes": {n: list(d) for n, d in opts.input_shapes}, "precision": opts.precision,
                 "disable": list(opts.disable), "max_trip_count": opts.max_trip_count, "verify": opts.verify,
                 "kv_cache": opts.kv_cache},
        dedup_key=dedup_key, compiler_version=__version__, answer=answer)
    return job, answer is None
