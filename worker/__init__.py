"""Brickyard's Celery worker: thin, idempotent tasks around compiler.compile (DESIGN section 9)."""
