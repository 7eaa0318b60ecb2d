"""The dashboard: GET /dashboard (a page that asks for a token and draws its own SVG charts, no CDN) and
GET /v1/dashboard (its data, for the token's owner only)."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

from service import crud
from service import projects as logic
from service.models import utcnow
from service.settings import get_settings

from ..deps import CurrentOwner, SessionDep, SettingsDep
from ..errors import ApiError

STATIC = Path(__file__).resolve().parent.parent / "static"
ASSETS = {"dashboard.js": "text/javascript", "charts.js": "text/javascript", "dashboard.css": "text/css"}

page_router = APIRouter(tags=["dashboard"], include_in_schema=False)
router = APIRouter(prefix="/dashboard", tags=["dashboard"])


@page_router.get("/dashboard", response_class=HTMLResponse)
def dashboard_page():
    """The page itself; it holds no data until a token is entered."""
    return FileResponse(STATIC / "dashboard.html", media_type="text/html; charset=utf-8",
                        headers={"Cache-Control": "no-cache"})


@page_router.get("/dashboard/static/{name}")
def dashboard_asset(name: str):
    if name not in ASSETS:
        raise ApiError(404, f"no asset {name}")
    return FileResponse(STATIC / name, media_type=ASSETS[name], headers={"Cache-Control": "no-cache"})


def _iso(t: dt.datetime | None) -> str | None:
    return None if t is None else t.isoformat() + "Z"


@router.get("")
def dashboard_data(owner: CurrentOwner, session: SessionDep, settings: SettingsDep):
    """Compile seconds per model x target over time, the split across stages, cache hit rate, queue depth,
    live workers, recent jobs and failures, and the owner's projects with their latest verdict."""
    jobs = crud.dashboard_jobs(session=session, owner_id=owner.id)
    series: dict[str, dict] = {}
    stages: dict[str, float] = {}
    for job, model_name in sorted(jobs, key=lambda jm: jm[0].finished_at or jm[0].created_at):
        if job.state != "succeeded" or job.deduplicated_from or job.compile_seconds is None:
            continue
        model = model_name or job.model_sha256[:12]
        key = f"{model} @ {job.target_name}"
        s = series.setdefault(key, {"name": key, "model": model, "target": job.target_name, "points": []})
        s["points"].append({"t": _iso(job.finished_at), "seconds": round(job.compile_seconds, 4), "job": job.id})
        for stage, secs in (job.stage_seconds or {}).items():
            stages[stage] = round(stages.get(stage, 0.0) + float(secs), 4)
    cache = crud.owner_cache_totals(session=session, owner_id=owner.id)
    looked = cache["kernel_hits"] + cache["kernel_misses"]
    counts = crud.job_counts(session=session)  # service-wide: how busy the queue is, no one's details

    def brief(job, model_name):
        return {"id": job.id, "model": model_name or job.model_sha256[:12], "target": job.target_name,
                "state": job.state, "stage": job.stage, "compile_seconds": job.compile_seconds,
                "created_at": _iso(job.created_at), "finished_at": _iso(job.finished_at),
                "from_store": bool(job.deduplicated_from),
                "error": f"{job.error_category}: {job.error_message}" if job.error_category else None,
                "report": f"/v1/compilations/{job.id}/report?format=html" if job.state == "succeeded" else None}
    projects = []
    for p in logic.list_projects(session=session, owner_id=owner.id):
        latest = logic.latest_commits(session=session, project=p, limit=1)
        verdict = None
        if latest:
            st = logic.commit_status(session=session, store_root=settings.store_root, project=p, commit=latest[0])
            verdict = {k: st[k] for k in ("commit", "ref", "verdict", "failures", "regressions")}
        projects.append({"id": p.id, "name": p.name, "targets": p.targets,
                         "models": [m["name"] for m in p.models], "latest": verdict})
    seen_after = utcnow() - dt.timedelta(seconds=get_settings().worker_seen_within)
    return {"owner": owner.name, "now": _iso(utcnow()),
            "compile_times": sorted(series.values(), key=lambda s: s["name"]),
            "stages": [{"stage": k, "seconds": v} for k, v in stages.items()],
            "cache": dict(cache, hit_rate=round(cache["kernel_hits"] / looked, 4) if looked else None),
            "queue": {"queued": counts.get("queued", 0), "running": counts.get("running", 0)},
            "workers": crud.live_workers(session=session, seen_after=seen_after),
            "recent": [brief(j, n) for j, n in jobs[:20]],
            "failures": [brief(j, n) for j, n in jobs if j.state == "failed"][:10],
            "projects": projects}
