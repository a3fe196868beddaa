"""torch.profiler.profiler: `profile` with torch's schedule state machine, over host events and jax.profiler."""

from __future__ import annotations

import enum
import os
import socket
import time
import warnings

import jax

from ._events import EventList, _Session, record_function


class ProfilerAction(enum.Enum):
    """What the profiler does in a step (torch's values)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3
    DEVICE_STOPPED = 4


class ProfilerActivity(enum.Enum):
    """Activity groups. CPU is timed on the host; a device group adds the `jax.profiler` device trace."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


def supported_activities():
    """CPU, plus CUDA when JAX sees a GPU."""
    acts = {ProfilerActivity.CPU}
    if any(d.platform == "gpu" for d in jax.devices()):
        acts.add(ProfilerActivity.CUDA)
    return acts


def kineto_available():
    """False: torch's Kineto library is not here (profiling runs on host timers and jax.profiler)."""
    return False


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """The step -> ProfilerAction function: skip `skip_first`, then cycles of wait, warmup, active steps."""

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait != 0:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} (need >= 0), "
            f"active={active} (need > 0), repeat={repeat} (need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)
    return schedule_fn


class _TraceHandler:
    """`on_trace_ready` that writes `<worker>.<ns>.pt.trace.json` (Chrome/Perfetto, torch-tb-profiler) into
    `dir_name`; the profiler also records a `jax.profiler` trace (TensorBoard's profile plugin) there."""

    def __init__(self, dir_name, worker_name=None, use_gzip=False):
        self.dir_name, self.worker_name, self.use_gzip = dir_name, worker_name, use_gzip

    def __call__(self, prof):
        try:
            os.makedirs(self.dir_name, exist_ok=True)
        except Exception as e:
            raise RuntimeError("Can't create directory: " + self.dir_name) from e
        worker = self.worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns()}.pt.trace.json" + (".gz" if self.use_gzip else "")
        prof.export_chrome_trace(os.path.join(self.dir_name, name))


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False,
                              use_python_export: bool = False):
    return _TraceHandler(dir_name, worker_name, use_gzip)


def _default_schedule_fn(_: int) -> ProfilerAction:
    return ProfilerAction.RECORD


class profile:
    """Profiler context manager: `record_function` regions and eager ops timed on the host.

    `schedule`, `step()` and `on_trace_ready` follow torch's state machine. `record_shapes` adds input
    shapes; `profile_memory`, `with_stack`, `with_flops`, `with_modules` are accepted and record nothing
    extra. With a `tensorboard_trace_handler`, each active cycle also runs `jax.profiler.start_trace`
    into the handler's directory (device kernels, XLA ops).
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None, post_processing_timeout_s=None):
        acts = set(activities) if activities is not None else supported_activities()
        if use_cuda:
            acts.add(ProfilerActivity.CUDA)
        for a in acts:
            if not isinstance(a, (ProfilerActivity, dict)):
                raise TypeError(f"torch.profiler.profile: activities must be ProfilerActivity values, got {a!r}")
        if not acts:
            raise AssertionError("No valid profiler activities found")
        self.activities = acts
        self.record_shapes = record_shapes
        self.profile_memory, self.with_stack, self.with_flops = profile_memory, with_stack, with_flops
        self.with_modules = with_modules
        self.schedule = schedule or _default_schedule_fn
        self.record_steps = schedule is not None
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.step_rec_fn = None
        self.current_action = self.schedule(self.step_num)
        self._session = None
        self._jax_tracing = False
        P = ProfilerAction
        prep, start, stop, ready = self.prepare_trace, self.start_trace, self.stop_trace, self._trace_ready

        def warn(msg):
            return lambda: warnings.warn(msg, stacklevel=3)

        self.action_map = {
            (P.NONE, P.WARMUP): [prep], (P.NONE, P.RECORD): [prep, start],
            (P.NONE, P.RECORD_AND_SAVE): [prep, start],
            (P.WARMUP, P.NONE): [warn("Incorrect schedule: WARMUP followed by NONE"), start, stop],
            (P.WARMUP, P.RECORD): [start], (P.WARMUP, P.RECORD_AND_SAVE): [start],
            (P.RECORD, P.NONE): [warn("Incorrect schedule: RECORD followed by NONE"), stop],
            (P.RECORD, P.WARMUP): [warn("Incorrect schedule: RECORD followed by WARMUP"), stop],
            (P.RECORD_AND_SAVE, P.NONE): [stop, ready], (P.RECORD_AND_SAVE, P.WARMUP): [stop, ready, prep],
            (P.RECORD_AND_SAVE, P.RECORD): [stop, ready, prep, start],
            (P.RECORD_AND_SAVE, P.RECORD_AND_SAVE): [stop, ready, prep, start],
            (P.WARMUP, None): [start, stop], (P.RECORD, None): [stop, ready],
            (P.RECORD_AND_SAVE, None): [stop, ready],
        }

    # ------------------------------------------------------------------ the state machine's actions
    def prepare_trace(self):
        self._session = _Session(self.record_shapes)

    def start_trace(self):
        if self._session is None:
            self.prepare_trace()
        self._session.start()
        trace_dir = getattr(self.on_trace_ready, "dir_name", None)
        if trace_dir is not None and not self._jax_tracing:
            try:
                jax.profiler.start_trace(trace_dir)
                self._jax_tracing = True
            except RuntimeError as e:  # another jax trace is running (only one at a time per process)
                warnings.warn(f"torch.profiler: no jax.profiler trace for this cycle: {e}", stacklevel=3)

    def stop_trace(self):
        if self._jax_tracing:
            self._jax_tracing = False
            jax.profiler.stop_trace()
        if self._session is not None:
            self._session.stop()

    def _trace_ready(self):
        if self.on_trace_ready:
            self.on_trace_ready(self)

    def _transit_action(self, prev_action, current_action):
        for action in self.action_map.get((prev_action, current_action), ()):
            action()

    # ------------------------------------------------------------------ public API
    def start(self):
        self._transit_action(ProfilerAction.NONE, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def stop(self):
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        self._transit_action(self.current_action, None)

    def step(self):
        """Signal that the next step starts (moves the schedule)."""
        if self.record_steps and self.step_rec_fn:
            self.step_rec_fn.__exit__(None, None, None)
            self.step_rec_fn = None
        prev_action = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit_action(prev_action, self.current_action)
        if self.record_steps:
            self.step_rec_fn = record_function(f"ProfilerStep#{self.step_num}")
            self.step_rec_fn.__enter__()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()

    def events(self):
        """The FunctionEvents of the last recorded cycle."""
        return EventList() if self._session is None else self._session.event_list()

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        self.events().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        raise NotImplementedError("torch.profiler.profile.export_stacks: stacks are not recorded by facade's "
                                  "profiler")

    def export_memory_timeline(self, path, device=None):
        raise NotImplementedError("torch.profiler.profile.export_memory_timeline: memory is not recorded by "
                                  "facade's profiler")
