"""/v1/targets: the GPU presets and their numbers."""
from __future__ import annotations

from fastapi import APIRouter

from compiler.targets import PRESETS

from ..deps import CurrentOwner
from ..schemas import ErrorOut, TargetOut

router = APIRouter(prefix="/targets", tags=["targets"])


@router.get("", response_model=list[TargetOut], responses={401: {"model": ErrorOut}})
def list_targets(_owner: CurrentOwner):
    """Every preset; a compilation may also send a full spec with these fields."""
    from service.celery_app import queue_for_arch
    return [TargetOut(name=t.name, arch=t.arch, queue=queue_for_arch(t.arch), spec=t.describe())
            for t in PRESETS.values()]
