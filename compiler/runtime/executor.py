"""Runs a plan: intermediates in one arena, kernels through a device backend, regions on the host."""
from __future__ import annotations

import numpy as np

from ..errors import RuntimeFault
from ..ir.dtypes import DType
from ..ir.graph import TensorType
from ..ir.dataflow import all_plans, graph_obstacle
from ..ir.plan import AliasStep, IfStep, LaunchStep, LoopStep, Plan, ScanStep


def _contiguous(a) -> np.ndarray:
    """C-contiguous, keeping rank 0 (np.ascontiguousarray would make a scalar 1-D)."""
    return np.require(a, requirements="C")


class DeviceArray(np.ndarray):
    """An array in the host harness's device memory (the HostBackend's buffers), told apart from
    a caller's NumPy array as a CuPy array is on the GPU: `run(..., on_device=True)` returns these,
    and one passed back as an input is bound, not copied."""


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
    """Executes a plan on a backend (HostBackend or GpuBackend); arenas are allocated once per plan.

    With graph=True (the GPU default) the first run captures the whole plan into one graph over
    fixed buffers (the arena, the constants, one buffer per input) and every run copies its inputs
    into those buffers and replays it: one launch call per inference however many kernels. A plan
    the graph cannot hold (graph_obstacle), a backend without graphs, or a capture the driver
    refuses runs with plain launches instead; `graph_status` says which and why.

    `host_round_trips` counts the device-to-host reads the last run made for regions left on the
    host (predicates, trip counts, conditions, scan slices); the grinder stage predicts the same
    count (report.json control_flow.host_round_trips_per_inference), 0 when every region runs on
    the device."""

    def __init__(self, plan: Plan, backend, *, graph: bool = False):
        self.plan = plan
        self.backend = backend
        self._arenas: dict[int, object] = {}
        self._constants: dict[str, object] = {}
        backend.prepare(plan.kernels())
        self._load_constants(plan)
        self._graph = None
        self._graph_inputs: dict[str, object] = {}
        self._graph_scope: Scope | None = None
        self.graph_status = "plain launches"
        self.host_round_trips = 0
        self.launches = 0          # kernel launches the last run made (a replayed graph: those it holds)
        self._graph_launches = 0
        if graph:
            why = graph_obstacle(plan)
            if why is None and not hasattr(backend, "begin_capture"):
                why = f"the {backend.name} backend has no graphs"
            self.graph_status = "graph" if why is None else f"plain launches: {why}"

    def _load_constants(self, plan: Plan) -> None:
        for name, c in plan.constants:
            if name not in self._constants:
                self._constants[name] = self.backend.to_device(_contiguous(c.array()))
        for sub in all_plans(plan):
            if sub is not plan:
                for name, c in sub.constants:
                    if name not in self._constants:
                        self._constants[name] = self.backend.to_device(_contiguous(c.array()))

    def run(self, inputs: dict, *, on_device: bool = False) -> dict:
        """Runs the plan; returns its outputs by name.

        `inputs` are NumPy arrays, or arrays already on the backend's device (on the GPU: CuPy
        arrays or anything with `__cuda_array_interface__`, a PyTorch CUDA tensor say), which plain
        launches bind without a copy. With `on_device` the outputs stay there (backend arrays) and
        are the caller's: each a copy, except a donated output (Plan.donated, a KV cache updated in
        place), which is its input's buffer itself, so passing it back as that input the next run
        moves no bytes (under a graph too: it is the graph's own input buffer)."""
        checked = self._checked(inputs)
        self.host_round_trips = 0
        self.launches = 0
        if self.graph_status == "graph":
            return self._run_graph(checked, on_device)
        scope = Scope()
        for name, a in checked.items():
            scope[name] = a if self.backend.on_device(a) else self.backend.to_device(a)
        self._bind_donations(scope)
        self._run_plan(self.plan, scope)
        self.backend.synchronize()
        return self._outputs(scope, on_device)

    def _bind_donations(self, scope: Scope) -> None:
        """A donated output is written into its input's buffer (compiler/ir/plan.py Plan.donated)."""
        for out, src in self.plan.donated:
            scope[out] = scope[src]

    def _outputs(self, scope: Scope, on_device: bool = False) -> dict:
        """The plan's outputs, each bounded one trimmed to its real length: on the host, or on
        the device as the caller's arrays (a donated one its input's buffer)."""
        donated = {out for out, _ in self.plan.donated}
        values = {n: scope[n] for n in self.plan.outputs}
        for name, length, axis in self.plan.output_lengths:   # trimmed where it is, so only its rows move
            n = int(self.backend.to_host(scope[length]).reshape(-1)[0])
            extent = self.backend.shape(values[name])[axis]
            if n < 0:
                raise RuntimeFault(f"output '{name}' needs more rows than the {extent} its loop was "
                                   "compiled for (a Loop ran past its max_trip_count)",
                                   hint="compile with a larger --max-trip-count")
            # a value computed from the first rows of one with a run-time extent has at most its own
            values[name] = values[name][(slice(None),) * axis + (slice(0, min(n, extent)),)]
        if on_device:
            return {n: a if n in donated else self.backend.clone(a) for n, a in values.items()}
        return {n: np.array(self.backend.to_host(a), order="C") for n, a in values.items()}

    def _run_graph(self, checked: dict, on_device: bool) -> dict:
        if self._graph is None:
            self._capture(checked)
            if self._graph is None:      # the capture was refused: plain launches from now on
                return self.run(checked, on_device=on_device)
            self._graph_launches = self.launches
        else:
            self.launches = self._graph_launches
            for name, a in checked.items():
                buf = self._graph_inputs[name]
                if self.backend.on_device(a):
                    if not self.backend.same_buffer(a, buf):   # a donated output passed back: already there
                        self.backend.copy(buf, a)
                else:
                    self.backend.upload(buf, a)
        self.backend.replay(self._graph)
        self.backend.synchronize()
        return self._outputs(self._graph_scope, on_device)

    def _capture(self, checked: dict[str, np.ndarray]) -> None:
        """The plan's launches recorded (not run) over fixed buffers; allocation happens before."""
        self._graph_inputs = {name: self.backend.clone(a) if self.backend.on_device(a) else self.backend.to_device(a)
                              for name, a in checked.items()}
        scope = Scope()
        for name, buf in self._graph_inputs.items():
            scope[name] = buf
        self._bind_donations(scope)
        self._arena(self.plan)
        self.backend.synchronize()
        self.backend.begin_capture()
        try:
            self._run_plan(self.plan, scope)
        except Exception as e:   # noqa: BLE001 - the driver may refuse a launch kind in a capture
            why = f"plain launches: capture failed: {e}"
            try:
                self.backend.end_capture()     # leaves the stream usable for plain launches
            except Exception as end:   # noqa: BLE001 - an invalidated capture may refuse to end cleanly
                why += f" (ending the capture failed too: {end})"
            self.graph_status = why
            return
        self._graph = self.backend.end_capture()
        self._graph_scope = scope

    def _checked(self, inputs: dict) -> dict:
        """The inputs by name, of the plan's types: host ones as C-contiguous NumPy arrays (a float
        array converted to the input's float type), device ones as the backend's arrays, which
        must have the input's type already (converting would copy on the device)."""
        types = dict(self.plan.types)
        checked = {}
        for name in self.plan.inputs:
            if name not in inputs:
                raise RuntimeFault(f"missing input '{name}'", hint=f"the model's inputs are {list(self.plan.inputs)}")
            t = types[name]
            a = self.backend.device_array(inputs[name])
            if a is not None:
                if tuple(a.shape) != t.shape or a.dtype != t.dtype.np:
                    raise RuntimeFault(f"input '{name}' on the device is {a.dtype}{list(a.shape)}, the model "
                                       f"expects {t.dtype.name}{list(t.shape)}",
                                       hint="convert it on the device first (a runtime conversion would copy it)")
                checked[name] = a if a.flags.c_contiguous else self.backend.clone(a)   # kernels index C order
                continue
            a = np.asarray(inputs[name])
            if tuple(a.shape) != t.shape:
                raise RuntimeFault(f"input '{name}' has shape {list(a.shape)}, the model expects {list(t.shape)}")
            if a.dtype != t.dtype.np:
                if DType.from_numpy(a.dtype).is_float == t.dtype.is_float or t.dtype.is_float:
                    a = a.astype(t.dtype.np)
                else:
                    raise RuntimeFault(f"input '{name}' has dtype {a.dtype}, the model expects {t.dtype.name}")
            checked[name] = _contiguous(a)
        extra = set(inputs) - set(self.plan.inputs)
        if extra:
            raise RuntimeFault(f"unknown inputs {sorted(extra)}", hint=f"the model's inputs are {list(self.plan.inputs)}")
        return checked

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
                self.launches += 1
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

    def _read_back(self, a) -> np.ndarray:
        """A device value read by the host to decide what runs next: one round trip."""
        self.host_round_trips += 1
        return self.backend.to_host(a)

    def _run_if(self, step: IfStep, scope: Scope, types) -> None:
        cond = bool(self._read_back(scope[step.cond]).reshape(-1)[0])
        body = step.then_plan if cond else step.else_plan
        inner = Scope(scope)
        self._run_plan(body, inner)
        self._bind_outputs(step.outputs, [inner[n] for n in body.outputs], scope, types)

    def _run_loop(self, step: LoopStep, scope: Scope, types) -> None:
        body = step.body
        trip = int(self._read_back(scope[step.trip_count]).reshape(-1)[0]) if step.trip_count else None
        cond = bool(self._read_back(scope[step.cond]).reshape(-1)[0]) if step.cond else True
        carried = [self.backend.clone(scope[n]) for n in step.carried_in]
        scans: list[list] = [[] for _ in range(step.n_scan)]
        body_types = dict(body.types)
        it = 0
        while (trip is None or it < trip) and cond:
            if step.max_trips and it == step.max_trips:
                raise RuntimeFault(f"Loop {step.node} runs more than {step.max_trips} iterations, its max_trip_count",
                                   hint="compile with a larger --max-trip-count")
            inner = Scope(scope)
            inner[body.inputs[0]] = self.backend.to_device(np.array(it, dtype=body_types[body.inputs[0]].dtype.np))
            inner[body.inputs[1]] = self.backend.to_device(np.array(cond, dtype=np.bool_))
            for name, v in zip(body.inputs[2:], carried):
                inner[name] = v
            self._run_plan(body, inner)
            outs = [inner[n] for n in body.outputs]
            cond = bool(self._read_back(outs[0]).reshape(-1)[0])
            n_car = len(carried)
            carried = [self.backend.clone(v) for v in outs[1:1 + n_car]]
            for k, v in enumerate(outs[1 + n_car:]):
                scans[k].append(self.backend.clone(v))
            it += 1
        results = list(carried)
        n_car = len(carried)
        for k, parts in enumerate(scans):
            t = body_types[body.outputs[1 + n_car + k]]
            pad = step.max_trips - it if step.max_trips else 0   # a bounded Loop's rows past the count
            if pad:
                parts = parts + [self.backend.to_device(np.zeros(t.shape, dtype=t.dtype.np))] * pad
            if parts:
                results.append(self.backend.stack(parts))
            else:
                results.append(self.backend.to_device(np.zeros((0,) + t.shape, dtype=t.dtype.np)))
        if step.iterations:
            results_names = list(step.outputs) + [step.iterations]
            results.append(self.backend.to_device(np.array(it, dtype=np.int64)))
        else:
            results_names = list(step.outputs)
        self._bind_outputs(results_names, results, scope, types)

    def _run_scan(self, step: ScanStep, scope: Scope, types) -> None:
        body = step.body
        state = [self.backend.clone(scope[n]) for n in step.state_in]
        scan_arrays = [self._read_back(scope[n]) for n in step.scan_in]
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
                outs_per_iter[k].append(self._read_back(inner[n]).copy())
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
        return raw[off:off + nbytes].view(DeviceArray)

    def view(self, arena, offset: int, t: TensorType):
        return arena[offset:offset + t.nbytes].view(t.dtype.np).reshape(t.shape)

    def to_device(self, a: np.ndarray):
        return np.array(a, order="C", copy=True).view(DeviceArray)

    # the harness's device memory is host memory: a NumPy input is the caller's and is copied in
    # (kernels then run on the harness's own buffers); only the harness's own arrays, an output
    # of on_device run, are device arrays
    def device_array(self, a):
        return a if isinstance(a, DeviceArray) else None

    def on_device(self, a) -> bool:
        return isinstance(a, DeviceArray)

    def same_buffer(self, a, b) -> bool:
        return a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.nbytes == b.nbytes

    def to_host(self, a) -> np.ndarray:
        return np.asarray(a)      # the same bytes as a plain ndarray

    def reshape(self, a, t: TensorType):
        if a.nbytes != t.nbytes:
            raise RuntimeFault(f"alias of {a.nbytes} bytes as {t} ({t.nbytes} bytes)")
        return a.view(t.dtype.np).reshape(t.shape) if a.dtype == t.dtype.np else a.reshape(-1).view(t.dtype.np).reshape(t.shape)

    def shape(self, a):
        return tuple(a.shape)

    def copy(self, dst, src) -> None:
        np.copyto(dst, src.reshape(dst.shape) if src.shape != dst.shape else src)

    def clone(self, a):
        return np.array(a, copy=True).view(DeviceArray)

    def stack(self, parts):
        return np.stack(parts, axis=0).view(DeviceArray)

    def launch(self, kernel, args) -> None:
        if self._recording is not None:
            self._recording.append((kernel, list(args)))
        else:
            self.module.launch(kernel, args)

    def synchronize(self) -> None:
        pass

    # graphs on the host: the launches recorded with their buffers and replayed in order, as a
    # CUDA graph replays its kernel nodes (what the executor's graph path relies on is the same)
    _recording: list | None = None

    def begin_capture(self) -> None:
        self._recording = []

    def end_capture(self) -> "HostGraph":
        recorded, self._recording = self._recording or [], None
        return HostGraph(tuple(recorded))

    def replay(self, graph: "HostGraph") -> None:
        for kernel, args in graph.launches:
            self.module.launch(kernel, args)

    def upload(self, dst, a: np.ndarray) -> None:
        np.copyto(dst, a)


class HostGraph:
    """A captured host plan: its launches and the buffers each was bound to."""

    def __init__(self, launches: tuple):
        self.launches = launches


def make_backend(device: str, **kw):
    """'host' (CPU harness) or 'gpu' (CuPy)."""
    if device in ("host", "cpu", "CPU"):
        return HostBackend(**kw)
    if device in ("gpu", "cuda", "CUDA"):
        from .gpu import GpuBackend
        return GpuBackend(**kw)
    raise RuntimeFault(f"unknown device '{device}'", hint="use host or gpu")
