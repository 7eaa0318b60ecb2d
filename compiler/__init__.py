"""Brickyard's compiler: ONNX models to CUDA kernels (see DESIGN.md)."""
from .version import package_version

__version__ = package_version()


def compile(model, target="h100", options=None, **kw):
    """ONNX model -> Artifact; see compiler.pipeline.compile."""
    from .pipeline import compile as _compile
    return _compile(model, target, options, **kw)
