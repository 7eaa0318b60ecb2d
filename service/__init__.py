"""What Brickyard's REST service (api/) and its Celery worker (worker/) share: settings, the database (engine,
models, migrations, crud), the blob store, the Celery app and its queues, enqueueing, jobs and CI projects.
Both import it; it imports neither (import-linter checks it: pyproject.toml's [tool.importlinter])."""
