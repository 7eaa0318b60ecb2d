# Brickyard service image: the API (`python -m api.serve --no-worker`) and the workers (`python -m worker`).
#   docker build -t brickyard .                                       # CPU: API and cross-compiling workers
#   docker build -t brickyard-gpu --build-arg EXTRAS=nvrtc,service,gpu .   # + CuPy for GPU workers
# The `brickyard` command (brickyard/cli.py) is installed too, e.g. `brickyard token create alice`.
# The CUDA driver comes from the host (NVIDIA Container Toolkit); NVRTC and cuda-bindings come from PyPI.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    BRICKYARD_HOME=/var/lib/brickyard \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility

# g++: the host harness (verification on the CPU); curl: the health check
RUN apt-get update \
 && apt-get install -y --no-install-recommends g++ curl \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
ARG EXTRAS=nvrtc,service
# dependencies first (a layer that survives source edits), then the source, installed editable in place
COPY pyproject.toml README.md ./
RUN mkdir -p brickyard compiler kernel_cache service api worker \
 && touch brickyard/__init__.py compiler/__init__.py kernel_cache/__init__.py service/__init__.py \
          api/__init__.py worker/__init__.py \
 && pip install ".[${EXTRAS}]" \
 && pip uninstall -y brickyard
COPY compiler ./compiler
COPY kernel_cache ./kernel_cache
COPY service ./service
COPY api ./api
COPY worker ./worker
COPY brickyard ./brickyard
COPY alembic.ini ./
RUN pip install --no-deps -e . \
 && useradd --system --uid 10001 --home-dir /var/lib/brickyard --shell /usr/sbin/nologin brickyard \
 && mkdir -p /var/lib/brickyard \
 && chown brickyard:brickyard /var/lib/brickyard

USER brickyard
VOLUME ["/var/lib/brickyard"]
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
    CMD curl -fsS http://127.0.0.1:8000/readyz || exit 1
# the API; its start runs the schema migrations (alembic upgrade head, under a lock) and the reconciler
CMD ["python", "-m", "api.serve", "--no-worker", "--host", "0.0.0.0", "--port", "8000"]
