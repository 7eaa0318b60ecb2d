"""Content-addressed store of kernels and artifacts (DESIGN section 8)."""
from .store import KernelStore, default_store

__all__ = ["KernelStore", "default_store"]
