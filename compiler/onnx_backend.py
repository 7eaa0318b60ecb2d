"""ONNX backend interface: `BrickyardBackend.prepare(model, device)` compiles, the rep runs."""
from __future__ import annotations

import numpy as np
from onnx.backend.base import Backend, BackendRep

from .pipeline import CompileOptions, compile as compile_model
from .runtime.executor import Executor, make_backend


class BrickyardRep(BackendRep):
    """A compiled model bound to a device; run(inputs) returns outputs in the graph's order.

    A model whose shapes depend on integer inputs (axes, k, a target shape fed as a graph input)
    cannot be compiled ahead of time; such a rep compiles on first run with those inputs bound as
    constants, once per distinct value."""

    def __init__(self, model, device: str, target, artifact=None, bind: tuple[str, ...] = (),
                 max_trip_count: int | None = None):
        self.model = model
        self.max_trip_count = max_trip_count
        self.device = device
        self.target = target
        self.bind = bind
        self.input_names = [i.name for i in model.graph.input
                            if i.name not in {t.name for t in model.graph.initializer}]
        self._executors: dict = {}
        if artifact is not None:
            self._executors[()] = self._executor(artifact)

    def _executor(self, artifact):
        kw = {"cubins": artifact.cubins, "arch": artifact.header["target"]["arch"]} if self.device == "gpu" else {}
        return Executor(artifact.plan, make_backend(self.device, **kw)), artifact.plan

    def run(self, inputs, **kwargs):
        if isinstance(inputs, dict):
            feed = dict(inputs)
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            feed = dict(zip(self.input_names, inputs))
        values = {n: np.asarray(feed[n]) for n in self.bind}
        key = tuple((n, v.dtype.str, v.shape, v.tobytes()) for n, v in values.items())
        if key not in self._executors:
            bound = bind_inputs(self.model, values)
            self._executors[key] = self._executor(_compile(bound, self.device, self.target, self.max_trip_count))
        executor, plan = self._executors[key]
        out = executor.run({n: v for n, v in feed.items() if n in plan.inputs})
        return [out[n] for n in plan.outputs]


def bind_inputs(model, values: dict[str, np.ndarray]):
    """A copy of the model with the given graph inputs turned into initializers."""
    import onnx
    from onnx import numpy_helper
    m = onnx.ModelProto()
    m.CopyFrom(model)
    if m.ir_version >= 4:  # before IR 4 every initializer must also be listed as a graph input
        keep = [i for i in m.graph.input if i.name not in values]
        del m.graph.input[:]
        m.graph.input.extend(keep)
    for n, v in values.items():
        m.graph.initializer.append(numpy_helper.from_array(v, n))
    return m


def _compile(model, device: str, target, max_trip_count: int | None = None):
    # Host runs need no cubins; the GPU path builds them for the local GPU's arch.
    opts = CompileOptions(build=device == "gpu", max_trip_count=max_trip_count)
    if device == "gpu":
        import dataclasses
        from .runtime.gpu import device_arch
        from .targets import get_target
        target = dataclasses.replace(get_target(target), arch=device_arch())
    return compile_model(model, target, opts)


def _shape_inputs(model, any_dtype: bool = False) -> tuple[str, ...]:
    """Small graph inputs, the candidates for values that decide shapes: integer ones (axes, k,
    shapes) or, when those are not enough, any (Resize scales, Range bounds)."""
    inits = {t.name for t in model.graph.initializer}
    out = []
    for i in model.graph.input:
        tt = i.type.tensor_type
        if i.name in inits or not (any_dtype or tt.elem_type in (6, 7)):  # int32, int64
            continue
        dims = [d.dim_value if d.HasField("dim_value") else -1 for d in tt.shape.dim]
        if all(d >= 0 for d in dims) and int(np.prod(dims, dtype=np.int64)) <= 64:
            out.append(i.name)
    return tuple(out)


def _bound_still_fails(model, bind) -> bool:
    """Whether binding `bind` (to ones of their type) still leaves shapes unknown."""
    from onnx import helper
    from .errors import ShapeError, UnsupportedOp
    from .frontend.onnx_import import import_model
    values = {}
    for i in model.graph.input:
        if i.name in bind:
            tt = i.type.tensor_type
            shape = [d.dim_value for d in tt.shape.dim]
            values[i.name] = np.ones(shape, dtype=helper.tensor_dtype_to_np_dtype(tt.elem_type))
    try:
        import_model(bind_inputs(model, values))
        return False
    except (ShapeError, UnsupportedOp):
        return True
    except Exception:  # other errors (values of 1 may be invalid): decided at run time
        return False


class BrickyardBackend(Backend):
    """device 'CPU' runs the kernels on the host harness, 'CUDA' on the GPU through CuPy."""

    @classmethod
    def prepare(cls, model, device: str = "CPU", target: str = "h100", max_trip_count: int | None = None,
                **kwargs):
        """`max_trip_count`: the bound for Loops with scan outputs whose iteration count is dynamic
        (CompileOptions.max_trip_count)."""
        import onnx
        from .errors import NeedsConstant, ShapeError, UnsupportedOp
        dev = "gpu" if device.upper().startswith("CUDA") else "host"
        if not isinstance(model, onnx.ModelProto):
            model = onnx.load_model_from_string(model) if isinstance(model, bytes) else onnx.load(model)
        try:
            return BrickyardRep(model, dev, target, artifact=_compile(model, dev, target, max_trip_count),
                                max_trip_count=max_trip_count)
        except (ShapeError, UnsupportedOp) as e:
            if isinstance(e, UnsupportedOp) and not isinstance(e, NeedsConstant):
                raise
            bind = _shape_inputs(model)
            if not bind or _bound_still_fails(model, bind):
                bind = _shape_inputs(model, any_dtype=True)
            if not bind:
                raise e
            return BrickyardRep(model, dev, target, bind=bind, max_trip_count=max_trip_count)

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
