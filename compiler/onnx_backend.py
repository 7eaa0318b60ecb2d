"""ONNX backend interface: `BrickyardBackend.prepare(model, device)` compiles, the rep runs."""
from __future__ import annotations

import numpy as np
from onnx.backend.base import Backend, BackendRep

from .pipeline import CompileOptions, compile as compile_model
from .runtime.executor import Executor, make_backend


class BrickyardRep(BackendRep):
    """A compiled model bound to a device; run(inputs) returns outputs in the graph's order."""

    def __init__(self, artifact, device: str):
        self.artifact = artifact
        kw = {"cubins": artifact.cubins, "arch": artifact.header["target"]["arch"]} if device == "gpu" else {}
        self.executor = Executor(artifact.plan, make_backend(device, **kw))
        self.inputs = artifact.plan.inputs
        self.outputs = artifact.plan.outputs

    def run(self, inputs, **kwargs):
        if isinstance(inputs, dict):
            feed = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            feed = dict(zip(self.inputs, inputs))
        out = self.executor.run(feed)
        return [out[n] for n in self.outputs]


class BrickyardBackend(Backend):
    """device 'CPU' runs the kernels on the host harness, 'CUDA' on the GPU through CuPy."""

    @classmethod
    def prepare(cls, model, device: str = "CPU", target: str = "h100", **kwargs):
        dev = "gpu" if device.upper().startswith("CUDA") else "host"
        # Host runs need no cubins; the GPU path builds them for the local GPU's arch.
        opts = CompileOptions(build=dev == "gpu")
        if dev == "gpu":
            from .runtime.gpu import device_arch
            from .targets import get_target
            import dataclasses
            target = dataclasses.replace(get_target(target), arch=device_arch())
        artifact = compile_model(model, target, opts)
        return BrickyardRep(artifact, dev)

    @classmethod
    def run_model(cls, model, inputs, device: str = "CPU", **kwargs):
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        d = device.upper()
        if d.startswith("CPU"):
            return True
        if d.startswith("CUDA"):
            try:
                from .runtime.gpu import device_arch
                device_arch()
                return True
            except Exception:
                return False
        return False


prepare = BrickyardBackend.prepare
run_model = BrickyardBackend.run_model
supports_device = BrickyardBackend.supports_device
