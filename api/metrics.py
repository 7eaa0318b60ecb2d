"""Prometheus metrics. Request counts are this process's; job, compile-time and cache numbers are read from
the database at scrape time, so they are right whichever process (API, workers) did the work."""
from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily

from service import crud
from service.db import session_scope
from service.models import STATES

COMPILE_BUCKETS = (1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600)

registry = CollectorRegistry()
REQUESTS = Counter("brickyard_http_requests", "HTTP requests by method, route and status",
                   ["method", "route", "status"], registry=registry)


class JobCollector:
    """Jobs by state, the compile-seconds histogram, kernel cache hits and misses, from the database."""

    def collect(self):
        with session_scope() as session:
            counts = crud.job_counts(session=session)
            seconds = crud.compile_seconds(session=session)
            cache = crud.cache_totals(session=session)
        jobs = GaugeMetricFamily("brickyard_jobs", "Compilation jobs by state", labels=["state"])
        for st in STATES:
            jobs.add_metric([st], counts.get(st, 0))
        yield jobs
        buckets, acc = [], 0
        for b in COMPILE_BUCKETS:
            acc = sum(1 for x in seconds if x <= b)
            buckets.append((str(float(b)), acc))
        buckets.append(("+Inf", len(seconds)))
        yield HistogramMetricFamily("brickyard_compile_seconds", "Seconds per compile that ran (not deduplicated)",
                                    buckets=buckets, sum_value=sum(seconds))
        hits = CounterMetricFamily("brickyard_kernel_cache_hits", "Kernels found in the store")
        hits.add_metric([], cache["kernel_hits"])
        yield hits
        misses = CounterMetricFamily("brickyard_kernel_cache_misses", "Kernels built by NVRTC")
        misses.add_metric([], cache["kernel_misses"])
        yield misses
        answered = CounterMetricFamily("brickyard_artifact_cache_hits", "Compilations answered from the store")
        answered.add_metric([], cache["artifact_hits"])
        yield answered


registry.register(JobCollector())


def render() -> bytes:
    return generate_latest(registry)
