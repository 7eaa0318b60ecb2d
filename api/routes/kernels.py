"""/v1/kernels/{digest} (metadata, source, cubin) and /v1/cache/stats."""
from __future__ import annotations

import time

from fastapi import APIRouter, Response

from service import crud
from service.blobs import get_bytes, store_stats

from ..deps import CurrentOwner, SessionDep, SettingsDep
from ..errors import ApiError
from ..schemas import CacheStats, ErrorOut, KernelOut

router = APIRouter(tags=["kernels"])
ERRORS = {401: {"model": ErrorOut}, 404: {"model": ErrorOut}}
_STATS_CACHE: dict = {"at": 0.0, "value": None}


def _kernel(session, owner, digest: str, arch: str | None):
    k = crud.get_kernel(session=session, owner_id=owner.id, digest=digest, arch=arch)
    if k is None:
        raise ApiError(404, f"kernel {digest}" + (f" for {arch}" if arch else "") + " not found among your compilations")
    return k


@router.get("/kernels/{digest}", response_model=KernelOut, responses=ERRORS)
def get_kernel(digest: str, owner: CurrentOwner, session: SessionDep, arch: str | None = None):
    """A kernel one of your compilations produced: name, ops, launch shape, ptxas's numbers, blobs."""
    k = _kernel(session, owner, digest, arch)
    return KernelOut(digest=k.digest, arch=k.arch, archs=crud.kernel_archs(session=session, digest=digest),
                     name=k.name, ops=k.ops, meta=k.meta, source_sha256=k.source_sha256, cubin_sha256=k.cubin_sha256)


def _blob(settings, digest: str | None, what: str) -> bytes:
    data = get_bytes(settings.store_root, digest) if digest else None
    if data is None:
        raise ApiError(410 if digest else 404, f"the {what} is not in the store")
    return data


@router.get("/kernels/{digest}/source", responses={**ERRORS, 200: {"content": {"text/plain": {}}}})
def get_kernel_source(digest: str, owner: CurrentOwner, session: SessionDep, settings: SettingsDep,
                      arch: str | None = None):
    """The kernel's CUDA C source."""
    k = _kernel(session, owner, digest, arch)
    return Response(_blob(settings, k.source_sha256, "kernel source"), media_type="text/plain; charset=utf-8",
                    headers={"ETag": f'"{k.source_sha256}"'})


@router.get("/kernels/{digest}/cubin", responses={**ERRORS, 200: {"content": {"application/octet-stream": {}}}})
def get_kernel_cubin(digest: str, owner: CurrentOwner, session: SessionDep, settings: SettingsDep,
                     arch: str | None = None):
    """The kernel's cubin for `arch` (default: the newest built)."""
    k = _kernel(session, owner, digest, arch)
    if not k.cubin_sha256:
        raise ApiError(404, f"kernel {digest} has no cubin for {k.arch}")
    return Response(_blob(settings, k.cubin_sha256, "cubin"), media_type="application/octet-stream",
                    headers={"ETag": f'"{k.cubin_sha256}"',
                             "Content-Disposition": f'attachment; filename="{digest}.{k.arch}.cubin"'})


@router.get("/cache/stats", response_model=CacheStats, responses={401: {"model": ErrorOut}})
def cache_stats(_owner: CurrentOwner, session: SessionDep, settings: SettingsDep):
    """Kernel hits/misses over the compiles that ran, compilations answered from the store, store size."""
    totals = crud.cache_totals(session=session)
    now = time.monotonic()
    if _STATS_CACHE["value"] is None or now - _STATS_CACHE["at"] > 5:
        _STATS_CACHE.update(at=now, value=store_stats(settings.store_root))
    return CacheStats(**totals, **_STATS_CACHE["value"])
