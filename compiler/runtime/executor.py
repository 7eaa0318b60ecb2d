"""Runs a plan: intermediates in one arena, kernels through a device backend, regions on the host."""
from __future__ import annotations

import numpy as np

from ..errors import RuntimeFault
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.dataflow import all_plans
from ..ir.plan import AliasStep, IfStep, LaunchStep, LoopStep, Plan, ScanStep


def _contiguous(a) -> np.ndarray:
    """C-contiguous, keeping rank 0 (np.ascontiguousarray would make a scalar 1-D)."""
    return np.require(a, requirements="C")


class Scope:
    """Value name -> device array, with lookup falling back to the enclosing scope (region bodies)."""

    def __init__(self, parent: "Scope | None" = None):
        self.values: dict = {}
        self.parent = parent

    def __getitem__(self, name: str):
        s = self
        while s is not None:
            if name in s.values:
                return s.values[name]
            s = s.parent
        raise KeyError(name)

    def __setitem__(self, name: str, v) -> None:
        self.values[name] = v

    def __contains__(self, name: str) -> bool:
        try:
            self[name]
            return True
        except KeyError:
            return False


class Executor:
    """Executes a plan on a backend (HostBackend or GpuBackend); arenas are allocated once per plan."""

    def __init__(self, plan: Plan, backend):
        self.plan = plan
        self.backend = backend
        self._arenas: dict[int, object] = {}
        self._constants: dict[str, object] = {}
        backend.prepare(plan.kernels())
        self._load_constants(plan)

    def _load_constants(self, plan: Plan) -> None:
        for name, c in plan.constants:
            if name not in self._constants:
                self._constants[name] = self.backend.to_device(_contiguous(c.array()))
        for sub in all_plans(plan):
            if sub is not plan:
                for name, c in sub.constants:
                    if name not in self._constants:
                        self._constants[name] = self.backend.to_device(_contiguous(c.array()))

    def run(self, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """Runs the plan on NumPy inputs (checked against the signature); returns NumPy outputs."""
        types = dict(self.plan.types)
        scope = Scope()
        for name in self.plan.inputs:
            if name not in inputs:
                raise RuntimeFault(f"missing input '{name}'", hint=f"the model's inputs are {list(self.plan.inputs)}")
            a = np.asarray(inputs[name])
            t = types[name]
            if tuple(a.shape) != t.shape:
                raise RuntimeFault(f"input '{name}' has shape {list(a.shape)}, the model expects {list(t.shape)}")
            if a.dtype != t.dtype.np:
                if DType.from_numpy(a.dtype).is_float == t.dtype.is_float or t.dtype.is_float:
                    a = a.astype(t.dtype.np)
                else:
                    raise RuntimeFault(f"input '{name}' has dtype {a.dtype}, the model expects {t.dtype.name}")
            scope[name] = self.backend.to_device(_contiguous(a))
        extra = set(inputs) - set(self.plan.inputs)
        if extra:
            raise RuntimeFault(f"unknown inputs {sorted(extra)}", hint=f"the model's inputs are {list(self.plan.inputs)}")
        self._run_plan(self.plan, scope)
        self.backend.synchronize()
        return {n: self.backend.to_host(scope[n]).copy() for n in self.plan.outputs}

    def _arena(self, plan: Plan):
        a = self._arenas.get(id(plan))
        if a is None:
            a = self.backend.alloc(max(plan.arena_bytes, 1))
            self._arenas[id(plan)] = a
        return a

    def _run_plan(self, plan: Plan, scope: Scope) -> None:
        types = dict(plan.types)
        arena = self._arena(plan)
        for name, off in plan.arena:
            scope[name] = self.backend.view(arena, off, types[name])
        for name, _ in plan.constants:
            scope[name] = self._constants[name]
        for step in plan.steps:
            if isinstance(step, LaunchStep):
                k = step.kernel
                try:
                    args = [scope[p.value] for p in k.params]
                except KeyError as e:
                    raise RuntimeFault(f"kernel {k.entry} reads '{e.args[0]}', which has no buffer") from None
                self.backend.launch(k, args)
            elif isinstance(step, AliasStep):
                t = types[step.dst]
                scope[step.dst] = self.backend.reshape(scope[step.src], t)
            elif isinstance(step, IfStep):
                self._run_if(step, scope, types)
            elif isinstance(step, LoopStep):
                self._run_loop(step, scope, types)
            elif isinstance(step, ScanStep):
                self._run_scan(step, scope, types)
            else:
                raise RuntimeFault(f"unknown step {type(step).__name__}")

    def _bind_outputs(self, names, results, scope: Scope, types) -> None:
        """Copies region results into the enclosing plan's buffers (or binds fresh ones)."""
        for name, val in zip(names, results):
            if not name:
                continue
            if name in scope.values and self.backend.shape(scope.values[name]) == self.backend.shape(val):
                self.backend.copy(scope.values[name], val)
            else:
                scope[name] = self.backend.clone(val)

    def _run_if(self, step: IfStep, scope: Scope, types) -> None:
        cond = bool(self.backend.to_host(scope[step.cond]).reshape(-1)[0])
        body = step.then_plan if cond else step.else_plan
        inner = Scope(scope)
        self._run_plan(body, inner)
        self._bind_outputs(step.outputs, [inner[n] for n in body.outputs], scope, types)

    def _run_loop(self, step: LoopStep, scope: Scope, types) -> None:
        body = step.body
        trip = int(self.backend.to_host(scope[step.trip_count]).reshape(-1)[0]) if step.trip_count else None
        cond = bool(self.backend.to_host(scope[step.cond]).reshape(-1)[0]) if step.cond else True
        carried = [self.backend.clone(scope[n]) for n in step.carried_in]
        scans: list[list] = [[] for _ in range(step.n_scan)]
        body_types = dict(body.types)
        it = 0
        while (trip is None or it < trip) and cond:
            inner = Scope(scope)
            inner[body.inputs[0]] = self.backend.to_device(np.array(it, dtype=body_types[body.inputs[0]].dtype.np))
            inner[body.inputs[1]] = self.backend.to_device(np.array(cond, dtype=np.bool_))
            for name, v in zip(body.inputs[2:], carried):
                inner[name] = v
            self._run_plan(body, inner)
            outs = [inner[n] for n in body.outputs]
            cond = bool(self.backend.to_host(outs[0]).reshape(-1)[0])
            n_car = len(carried)
            carried = [self.backend.clone(v) for v in outs[1:1 + n_car]]
            for k, v in enumerate(outs[1 + n_car:]):
                scans[k].append(self.backend.clone(v))
            it += 1
        results = list(carried)
        n_car = len(carried)
        for k, parts in enumerate(scans):
            if parts:
                results.append(self.backend.stack(parts))
            else:
                t = body_types[body.outputs[1 + n_car + k]]
                results.append(self.backend.to_device(np.zeros((0,) + t.shape, dtype=t.dtype.np)))
        self._bind_outputs(step.outputs, results, scope, types)

    def _run_scan(self, step: ScanStep, scope: Scope, types) -> None:
        body = step.body
        state = [self.backend.clone(scope[n]) for n in step.state_in]
        scan_arrays = [self.backend.to_host(scope[n]) for n in step.scan_in]
        if not scan_arrays:
            raise RuntimeFault(f"Scan {step.node} has no scan inputs")
        length = scan_arrays[0].shape[step.scan_input_axes[0]]
        n_out = len(body.outputs) - step.n_state
        outs_per_iter: list[list] = [[] for _ in range(n_out)]
        for t in range(length):
            inner = Scope(scope)
            for name, v in zip(body.inputs, state):
                inner[name] = v
            for k, (name, arr) in enumerate(zip(body.inputs[step.n_state:], scan_arrays)):
                ax = step.scan_input_axes[k] % arr.ndim
                idx = length - 1 - t if step.scan_input_reverse[k] else t
                inner[name] = self.backend.to_device(_contiguous(np.take(arr, idx, axis=ax)))
            self._run_plan(body, inner)
            state = [self.backend.clone(inner[n]) for n in body.outputs[:step.n_state]]
            for k, n in enumerate(body.outputs[step.n_state:]):
                outs_per_iter[k].append(self.backend.to_host(inner[n]).copy())
        results = list(state)
        for k, parts in enumerate(outs_per_iter):
            if step.scan_output_reverse[k]:
                parts = parts[::-1]
            stacked = np.stack(parts, axis=0)
            ax = step.scan_output_axes[k] % stacked.ndim
            results.append(self.backend.to_device(_contiguous(np.moveaxis(stacked, 0, ax))))
        self._bind_outputs(step.outputs, results, scope, types)


class HostBackend:
    """Runs kernels on the CPU through the host harness (the same CUDA source, built with g++)."""

    name = "host"

    def __init__(self, mode: str = "default", seed: int = 0):
        self.mode = mode
        self.seed = seed
        self.module = None

    def prepare(self, kernels) -> None:
        from .host_harness import build_host_module
        uniq = {k.entry: k for k in kernels}
        self.module = build_host_module(list(uniq.values()), mode=self.mode, seed=self.seed) if uniq else None

    def alloc(self, nbytes: int):
        # 256-byte aligned like cudaMalloc, so vector loads behave the same.
        raw = np.empty(nbytes + 256, dtype=np.uint8)
        off = (-raw.ctypes.data) % 256
        return raw[off:off + nbytes]

    def view(self, arena, offset: int, t: TensorType):
        return arena[offset:offset + t.nbytes].view(t.dtype.np).reshape(t.shape)

    def to_device(self, a: np.ndarray):
        return np.array(a, order="C", copy=True)

    def to_host(self, a) -> np.ndarray:
        return a

    def reshape(self, a, t: TensorType):
        if a.nbytes != t.nbytes:
            raise RuntimeFault(f"alias of {a.nbytes} bytes as {t} ({t.nbytes} bytes)")
        return a.view(t.dtype.np).reshape(t.shape) if a.dtype == t.dtype.np else a.reshape(-1).view(t.dtype.np).reshape(t.shape)

    def shape(self, a):
        return tuple(a.shape)

    def copy(self, dst, src) -> None:
        np.copyto(dst, src.reshape(dst.shape) if src.shape != dst.shape else src)

    def clone(self, a):
        return np.array(a, copy=True)

    def stack(self, parts):
        return np.stack(parts, axis=0)

    def launch(self, kernel, args) -> None:
        self.module.launch(kernel, args)

    def synchronize(self) -> None:
        pass


def make_backend(device: str, **kw):
    """'host' (CPU harness) or 'gpu' (CuPy)."""
    if device in ("host", "cpu", "CPU"):
        return HostBackend(**kw)
    if device in ("gpu", "cuda", "CUDA"):
        from .gpu import GpuBackend
        return GpuBackend(**kw)
    raise RuntimeFault(f"unknown device '{device}'", hint="use host or gpu")
