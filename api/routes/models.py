"""/v1/models: streamed upload with a size limit and sha256 dedup, list, get, delete."""
from __future__ import annotations

import logging
from pathlib import Path

from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from compiler.errors import CompilerError
from service import crud
from service.blobs import adopt_file, remove_blob
from service.db import session_scope
from service.model_info import describe_model

from ..deps import CurrentOwner, SessionDep, SettingsDep
from ..errors import ApiError
from ..schemas import MAX_OFFSET, ErrorOut, ModelList, ModelOut
from ..uploads import UploadRejected, discard, receive_upload

log = logging.getLogger("brickyard.api")
router = APIRouter(prefix="/models", tags=["models"])
ERRORS = {401: {"model": ErrorOut}, 404: {"model": ErrorOut}}


def _existing(owner_id: str, sha256: str) -> ModelOut | None:
    with session_scope() as session:
        m = crud.get_model_by_sha256(session=session, owner_id=owner_id, sha256=sha256)
        return ModelOut.model_validate(m) if m else None


def _save(owner_id: str, sha256: str, size: int, name: str, info: dict, tmp: Path, store_root: Path) -> ModelOut:
    adopt_file(store_root, tmp, sha256)
    with session_scope() as session:
        m = crud.get_or_create_model(session=session, owner_id=owner_id, sha256=sha256, size=size, name=name,
                                     info=info)
        return ModelOut.model_validate(m)


@router.post("", status_code=201, response_model=ModelOut,
             responses={**ERRORS, 200: {"model": ModelOut, "description": "the same bytes were uploaded before"},
                        400: {"model": ErrorOut}, 413: {"model": ErrorOut}, 415: {"model": ErrorOut}, 422: {"model": ErrorOut}},
             openapi_extra={"requestBody": {"content": {"multipart/form-data": {"schema": {
                 "type": "object", "required": ["file"],
                 "properties": {"file": {"type": "string", "format": "binary"}, "name": {"type": "string"}}}}},
                 "required": True}})
async def upload_model(request: Request, response: Response, owner: CurrentOwner, settings: SettingsDep):
    """Uploads an ONNX model (multipart field `file`, optional `name`); the import stage checks it.

    A model over 2 GiB, whose weights live in external data files, is uploaded as one uncompressed
    tar of its .onnx and those files (`tar cf model.tar model.onnx model.onnx.data`): its tensors
    are read from the archive's own members, in place.

    A form without a `file` part (the model sent under another name) is 422, naming `file`; a model over
    the upload limit, or a `name` over 65536 bytes, is 413 naming the limit."""
    try:
        up = await receive_upload(request, tmp_dir=settings.tmp_dir, max_bytes=settings.max_upload_bytes)
    except UploadRejected as e:
        if e.status == 400:
            log.info("upload from %s: %s", request.client.host if request.client else "?", e.message)
        # a 413 may come before the body ended: the connection cannot carry another request
        raise ApiError(e.status, e.message, headers={"Connection": "close"} if e.status == 413 else None) from None
    try:
        found = await run_in_threadpool(_existing, owner.id, up.sha256)
        if found is not None:
            response.status_code = 200
            return found
        if up.size == 0:
            raise ApiError(422, "the file is empty", category="invalid_model")
        try:
            info = await run_in_threadpool(describe_model, up.path, max_bytes=settings.max_upload_bytes)
        except CompilerError as e:
            raise ApiError(422, e.one_line(), category=e.category) from None
        filename = (up.filename or "").replace("\x00", "")
        name = (up.fields.get("name") or "").replace("\x00", "").strip() or (Path(filename).stem if filename else "") \
            or info["name"]
        return await run_in_threadpool(_save, owner.id, up.sha256, up.size, name[:300], info, up.path,
                                       settings.store_root)
    finally:
        discard(up.path)


@router.get("", response_model=ModelList, responses=ERRORS)
def list_models(owner: CurrentOwner, session: SessionDep, limit: int = Query(50, ge=1, le=500),
                offset: int = Query(0, ge=0, le=MAX_OFFSET)):
    """The caller's models, newest first."""
    rows, total = crud.list_models(session=session, owner_id=owner.id, limit=limit, offset=offset)
    return ModelList(items=[ModelOut.model_validate(m) for m in rows], total=total, limit=limit, offset=offset)


@router.get("/{model_id}", response_model=ModelOut, responses=ERRORS)
def get_model(model_id: str, owner: CurrentOwner, session: SessionDep):
    """One of the caller's models."""
    m = crud.get_model(session=session, owner_id=owner.id, model_id=model_id)
    if m is None:
        raise ApiError(404, f"model {model_id} not found")
    return ModelOut.model_validate(m)


@router.delete("/{model_id}", status_code=204, responses={**ERRORS, 409: {"model": ErrorOut}})
def delete_model(model_id: str, owner: CurrentOwner, session: SessionDep, settings: SettingsDep):
    """Deletes a model (not while a compilation of it is queued or running); its jobs stay."""
    m = crud.get_model(session=session, owner_id=owner.id, model_id=model_id)
    if m is None:
        raise ApiError(404, f"model {model_id} not found")
    if crud.model_has_active_jobs(session=session, model_id=m.id):
        raise ApiError(409, f"model {model_id} has queued or running compilations: cancel them first")
    sha = m.sha256
    if crud.delete_model(session=session, model=m):
        session.commit()
        remove_blob(settings.store_root, sha)
    return Response(status_code=204)
