"""Brickyard's REST service (FastAPI): models, targets, compilations, artifacts, kernels, health."""
