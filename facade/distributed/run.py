"""torchrun for facade: `python -m facade.distributed.run [options] script.py [args]`, or the `facade-torchrun`
console script (real torch owns the name `torchrun`).

Options are torchrun's, spelled either way (`--nproc-per-node` / `--nproc_per_node`), with torchrun's defaults
and `PET_<OPTION>` environment variables. Each of the N workers runs `python -u -m facade script.py args`
(`-m module` with `-m`; the script itself with `--no-python`), so `import torch` in it is facade, with
torchrun's environment: RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, GROUP_WORLD_SIZE,
ROLE_RANK, ROLE_WORLD_SIZE, ROLE_NAME, MASTER_ADDR, MASTER_PORT, TORCHELASTIC_RUN_ID, TORCHELASTIC_RESTART_COUNT,
TORCHELASTIC_MAX_RESTARTS, TORCHELASTIC_ERROR_FILE, TORCHELASTIC_SIGNALS_TO_HANDLE, OMP_NUM_THREADS=1 when N > 1
and it is unset. `init_process_group("env://")` in rank 0 serves MASTER_ADDR:MASTER_PORT itself (JAX's
coordinator), so the launcher holds no store there and says so: TORCHELASTIC_USE_AGENT_STORE=False.

Signals (SIGTERM, SIGINT, SIGHUP, SIGQUIT by default) are forwarded to every worker. When a worker fails the
others get SIGTERM (SIGKILL after --shutdown-timeout), the group restarts up to --max-restarts times, and then
`ChildFailedError` is raised with torchelastic's summary naming each failed rank, its exit code and traceback.

Several nodes work with the static rendezvous (`--nnodes N --node-rank R --master-addr A --master-port P`
on each node, the same --nproc-per-node everywhere); elastic ranges (`--nnodes 1:4`) and the c10d/etcd
rendezvous across nodes need a rendezvous store and raise NotImplementedError.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import uuid

from ._launcher import LOCAL_RANK_MACRO, ChildFailedError, LaunchSpec, SignalException, launch, logger

__all__ = ["get_args_parser", "parse_args", "config_from_args", "run", "main", "ChildFailedError", "SignalException"]

_OMP_WARNING = ("\n*****************************************\n"
                "Setting OMP_NUM_THREADS environment variable for each process to be %s in default, to avoid your "
                "system being overloaded, please further tune the variable for optimal performance in your "
                "application as needed. \n*****************************************")


class _Env(argparse.Action):
    """torch.distributed.argparse_util.env: `PET_<DEST>` supplies the default."""

    def __init__(self, dest, default=None, required=False, **kwargs):
        default = os.environ.get(f"PET_{dest.upper()}", default)
        super().__init__(dest=dest, default=default, required=required and not default, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)


class _CheckEnv(argparse.Action):
    """torch.distributed.argparse_util.check_env: a flag that `PET_<DEST>=1` also sets."""

    def __init__(self, dest, default=False, **kwargs):
        default = bool(int(os.environ.get(f"PET_{dest.upper()}", "1" if default else "0")))
        super().__init__(dest=dest, const=True, default=default, nargs=0, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, self.const)


def _names(name: str) -> list[str]:
    return [f"--{name}", f"--{name.replace('-', '_')}"] if "-" in name else [f"--{name}"]


def _comma_list(value: str) -> list[str]:
    return value.split(",")


# (option, argparse keywords); every option is torchrun's, with its default
_VALUE_OPTIONS = (
    ("nnodes", dict(default="1:1", help="Number of nodes, or MIN:MAX (only MIN == MAX here).")),
    ("nproc-per-node", dict(default="1", help="Workers per node: an int, cpu, gpu or auto.")),
    ("rdzv-backend", dict(default="static", help="static, or c10d on a single node.")),
    ("rdzv-endpoint", dict(default="", help="<host>:<port>; MASTER_ADDR and MASTER_PORT of the workers.")),
    ("rdzv-id", dict(default="none", help="User-defined group id (TORCHELASTIC_RUN_ID).")),
    ("rdzv-conf", dict(default="", help="Rendezvous configuration (<key1>=<value1>,...); no store, no effect.")),
    ("max-restarts", dict(type=int, default=0, help="Maximum number of worker group restarts before failing.")),
    ("monitor-interval", dict(type=float, default=0.1, help="Seconds between checks of the workers.")),
    ("start-method", dict(default="spawn", choices=["spawn", "fork", "forkserver"],
                          help="Accepted; workers are always new processes.")),
    ("event-log-handler", dict(default="null", help="Not supported.")),
    ("role", dict(default="default", help="User-defined role for the workers (ROLE_NAME).")),
    ("log-dir", dict(default=None, help="Not supported.")),
    ("redirects", dict(default="0", help="Not supported.")),
    ("tee", dict(default="0", help="Not supported.")),
    ("local-ranks-filter", dict(default="", help="Not supported.")),
    ("duplicate-stdout-filters", dict(default=[], type=_comma_list, help="Not supported.")),
    ("duplicate-stderr-filters", dict(default=[], type=_comma_list, help="Not supported.")),
    ("node-rank", dict(type=int, default=0, help="Rank of this node (static rendezvous).")),
    ("master-addr", dict(default="127.0.0.1", help="Address of the node of rank 0 (static rendezvous).")),
    ("master-port", dict(type=int, default=None, help="Port on the node of rank 0; default 29500, or a free port "
                                                      "on a single node.")),
    ("local-addr", dict(default=None, help="Not supported.")),
    ("signals-to-handle", dict(default="SIGTERM,SIGINT,SIGHUP,SIGQUIT", help="Signals forwarded to the workers.")),
    ("shutdown-timeout", dict(type=int, default=None, help="Seconds before SIGKILL (TORCH_ELASTIC_SHUTDOWN_TIMEOUT, "
                                                           "default 30).")),
)
_FLAG_OPTIONS = (
    ("standalone", "A single node on a free port (a fresh TORCHELASTIC_RUN_ID)."),
    ("module", "Run the script as a module, as `python -m` does."),
    ("no-python", "Run the script itself as the command, not under `python -m facade`."),
    ("run-path", "Run the script by path (runpy.run_path under facade)."),
    ("virtual-local-rank", "Not supported."),
)
# options torchrun has that need its log redirection, NUMA binding or event machinery: (dest, default)
_UNSUPPORTED = (("event_log_handler", "null"), ("log_dir", None), ("redirects", "0"), ("tee", "0"),
                ("local_ranks_filter", ""), ("duplicate_stdout_filters", []), ("duplicate_stderr_filters", []),
                ("local_addr", None), ("logs_specs", None), ("numa_binding", None), ("virtual_local_rank", False))


def get_args_parser() -> argparse.ArgumentParser:
    """torchrun's command line."""
    parser = argparse.ArgumentParser(prog="facade-torchrun", description="torchrun for facade: start N workers, "
                                     "each running the script under facade with torchrun's environment.")
    for name, kwargs in _VALUE_OPTIONS:
        parser.add_argument(*_names(name), action=_Env, **kwargs)
    for name, help_ in _FLAG_OPTIONS:
        names = ["-m", "--module"] if name == "module" else _names(name)
        parser.add_argument(*names, action=_CheckEnv, help=help_)
    parser.add_argument("--logs-specs", "--logs_specs", default=None, help="Not supported.")
    parser.add_argument("--numa-binding", "--numa_binding", default=None, help="Not supported.")
    parser.add_argument("training_script", help="The script (or module with -m) every worker runs.")
    parser.add_argument("training_script_args", nargs=argparse.REMAINDER)
    return parser


def parse_args(args):
    return get_args_parser().parse_args(args)


def _min_max_nnodes(nnodes: str) -> tuple[int, int]:
    parts = nnodes.split(":")
    if len(parts) not in (1, 2):
        raise RuntimeError(f'nnodes={nnodes} is not in "MIN:MAX" format')
    return int(parts[0]), int(parts[-1])


def _local_world_size(nproc_per_node: str) -> int:
    try:
        return int(nproc_per_node)
    except ValueError as e:
        if nproc_per_node not in ("cpu", "gpu", "auto"):
            raise ValueError(f"Unsupported nproc_per_node value: {nproc_per_node}") from e
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if nproc_per_node == "cpu":
        return cpus
    import jax  # only here: counting accelerators initialises JAX's backends in the launcher

    gpus = len([d for d in jax.local_devices() if d.platform == "gpu"])
    if nproc_per_node == "gpu" and not gpus:
        raise ValueError("Cuda is not available.")
    return gpus or cpus


def _endpoint(endpoint: str, default_port: int | None) -> tuple[str, int | None]:
    host, _, port = endpoint.rpartition(":") if ":" in endpoint else (endpoint, "", "")
    port = int(port) if port else default_port
    return host.strip("[]") or "localhost", port or None  # port 0: a free one


def config_from_args(args) -> LaunchSpec:
    """What the options mean for this node (torchrun's `config_from_args`); validates them as torchrun does."""
    for dest, default in _UNSUPPORTED:
        if getattr(args, dest) != default:
            option = "--" + dest.replace("_", "-")
            raise NotImplementedError(f"torchrun option {option} is not supported by facade.distributed.run")
    min_nodes, max_nodes = _min_max_nnodes(args.nnodes)
    if not 0 < min_nodes <= max_nodes:
        raise AssertionError(f"min_nodes must be > 0 and <= max_nodes, got min_nodes={min_nodes}, "
                             f"max_nodes={max_nodes}")
    if args.max_restarts < 0:
        raise AssertionError("max_restarts must be >= 0")
    if args.module and args.no_python:
        raise ValueError("Don't use both the '--no-python' flag and the '--module' flag at the same time.")
    if min_nodes != max_nodes:
        raise NotImplementedError(f"torchrun --nnodes {args.nnodes} (an elastic range) is not supported by "
                                  "facade.distributed.run: give one node count with the static rendezvous")
    backend, endpoint, run_id = args.rdzv_backend, args.rdzv_endpoint, args.rdzv_id
    if args.standalone or (backend == "static" and not endpoint and args.master_port is None and max_nodes == 1):
        backend, endpoint, run_id = "c10d", "localhost:0", str(uuid.uuid4())  # torchrun's single-node default
    if backend not in ("static", "c10d") or (backend == "c10d" and max_nodes > 1):
        raise NotImplementedError(f"torchrun --rdzv-backend {backend} with --nnodes {args.nnodes} is not supported "
                                  "by facade.distributed.run: several nodes use the static rendezvous "
                                  "(--node-rank, --master-addr, --master-port)")
    if not 0 <= args.node_rank < max_nodes:
        raise ValueError(f"--node-rank must be in [0, {max_nodes}) for --nnodes {args.nnodes}, got {args.node_rank}")
    if endpoint:
        master_addr, master_port = _endpoint(endpoint, 29500 if backend == "static" else 29400)
    else:
        master_addr, master_port = args.master_addr, args.master_port or 29500
    nproc = _local_world_size(args.nproc_per_node)
    env = dict(os.environ)
    if "OMP_NUM_THREADS" not in env and nproc > 1:
        logger.warning(_OMP_WARNING, 1)
        env["OMP_NUM_THREADS"] = "1"
    if args.no_python and not args.run_path:  # as torchrun: --run-path wins
        cmd = [args.training_script]
    else:
        cmd = [os.getenv("PYTHON_EXEC", sys.executable), "-u", "-m", "facade", *(["-m"] if args.module else []),
               args.training_script]
    if not getattr(args, "use_env", True):  # torch.distributed.launch passes the local rank as an argument
        cmd.append(f"--local-rank={LOCAL_RANK_MACRO}")
    signals = tuple(s.strip() for s in args.signals_to_handle.split(",") if s.strip())
    unknown = [s for s in signals if s not in signal.Signals.__members__]
    if unknown:
        raise ValueError(f"--signals-to-handle names unknown signals: {unknown}")
    shutdown = args.shutdown_timeout or float(os.environ.get("TORCH_ELASTIC_SHUTDOWN_TIMEOUT", 30))
    return LaunchSpec(cmd=[*cmd, *args.training_script_args], name=args.training_script, nproc_per_node=nproc,
                      nnodes=max_nodes, node_rank=args.node_rank, master_addr=master_addr, master_port=master_port,
                      run_id=run_id, role=args.role, max_restarts=args.max_restarts,
                      monitor_interval=args.monitor_interval, shutdown_timeout=shutdown, env=env,
                      signals=signals)


def run(args) -> None:
    """Launch the workers for parsed `args`; raises ChildFailedError when a worker fails."""
    launch(config_from_args(args))


def main(args=None) -> None:
    """The `facade-torchrun` entry point; `args` defaults to sys.argv[1:]."""
    run(parse_args(args))


if __name__ == "__main__":
    main()
