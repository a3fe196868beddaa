"""facade.distributed.run (torchrun for facade) against real torchrun: the workers' environment, a failing rank,
a forwarded signal, restarts, and the command line. Every launch is bounded in time and leaves no process behind."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest
import tomllib
import torch.distributed.launch as torch_launch
import torch.distributed.run as torch_run

import facade.distributed.launch as facade_launch
import facade.distributed.run as facade_run

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 60

# Each worker writes its pid under argv[1] (so the test can check that none is left), then does its part.
_PIDFILE = """
import os, signal, sys, time
piddir = sys.argv[1]
os.makedirs(piddir, exist_ok=True)
open(os.path.join(piddir, "tmp" + os.environ["RANK"]), "w").write(str(os.getpid()))
os.replace(os.path.join(piddir, "tmp" + os.environ["RANK"]), os.path.join(piddir, os.environ["RANK"]))
def out(text):  # one write (atomic on a pipe): print's separate "\\n" would let the ranks' lines interleave
    os.write(1, f"OUT {text}\\n".encode())
"""
SCRIPTS = {
    "env.py": """
        import json
        base = json.load(open(sys.argv[2]))
        env = {k: v for k, v in os.environ.items() if base.get(k) != v}
        out(json.dumps({"argv": sys.argv, "env": env}))
    """,
    "fail.py": """
        if os.environ["RANK"] == "1":
            deadline = time.time() + 30
            while not os.path.exists(os.path.join(piddir, "0")) and time.time() < deadline:
                time.sleep(0.05)
            raise ValueError("boom on rank 1")
        time.sleep(120)
    """,
    "sig.py": """
        def handler(signum, frame):
            out(f"rank {os.environ['RANK']} got {signal.Signals(signum).name}")
            sys.exit(3)
        signal.signal(signal.SIGINT, handler)
        signal.signal(signal.SIGTERM, handler)
        open(os.path.join(piddir, "ready" + os.environ["RANK"]), "w").close()
        time.sleep(120)
    """,
    "exit3.py": """
        out(f"restart {os.environ['TORCHELASTIC_RESTART_COUNT']}")
        sys.exit(3)
    """,
}


@pytest.fixture
def workdir(tmp_path):
    """tmp_path holding the scripts; afterwards every worker pid recorded there is checked dead (and killed)."""
    for name, body in SCRIPTS.items():
        (tmp_path / name).write_text(_PIDFILE + textwrap.dedent(body))
    yield tmp_path
    left = [pid for pid in _worker_pids(tmp_path) if _alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"worker processes left behind: {left}"


def _worker_pids(root):
    return [int(p.read_text()) for p in root.rglob("*") if p.parent.name.startswith("pids") and p.name.isdigit()]


def _alive(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _start(module, args, cwd):
    # env: exactly os.environ (C-level additions such as readline's LINES/COLUMNS would differ from it)
    return subprocess.Popen([sys.executable, "-m", module, *args], cwd=cwd, env=dict(os.environ),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def _finish(procs, timeout=TIMEOUT):
    """(returncode, stdout, stderr) of each launcher; a launcher still running at the deadline is killed."""
    deadline, results = time.monotonic() + timeout, []
    try:
        for p in procs:
            out, err = p.communicate(timeout=max(1, deadline - time.monotonic()))
            results.append((p.returncode, out, err))
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.communicate()
    return results


def _main_in_thread(args, cwd, timeout=TIMEOUT):
    """Call facade.distributed.run.main(args) in this process (the console script's entry), bounded in time.

    The workers start in `cwd`: torchrun has no option for it, so the launcher's working directory is changed.
    """
    outcome = {}

    def target():
        try:
            facade_run.main(args)
        except BaseException as e:  # noqa: B036 - handed to the test
            outcome["error"] = e

    thread = threading.Thread(target=target, daemon=True)
    old = os.getcwd()
    os.chdir(cwd)
    try:
        thread.start()
        thread.join(timeout)
    finally:
        os.chdir(old)
    assert not thread.is_alive(), f"facade.distributed.run.main({args}) did not finish in {timeout} s"
    return outcome.get("error")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _outputs(stdout):
    return [line[4:] for line in stdout.splitlines() if line.startswith("OUT ")]


def _by_rank(stdout):
    payloads = [json.loads(line) for line in _outputs(stdout)]
    return {int(p["env"]["RANK"]): p for p in payloads}


def _normalised(payload, port):
    """A worker's argv and launcher variables, with what differs per run checked and left out."""
    argv, env = payload["argv"], dict(payload["env"])
    assert Path(argv[1]).name.startswith("pids")
    assert env.pop("MASTER_PORT") == str(port)
    assert re.fullmatch(r".*/attempt_0/\d+/error\.json", env.pop("TORCHELASTIC_ERROR_FILE"))
    # deliberate: torchrun's agent holds a TCPStore at MASTER_PORT; here rank 0's init_process_group serves it
    env.pop("TORCHELASTIC_USE_AGENT_STORE")
    return [argv[0], *argv[2:]], env


def test_environment_matches_torchrun(workdir, capfd):
    base = workdir / "base.json"
    base.write_text(json.dumps(dict(os.environ)))
    # a single node, torchrun's defaults: a fresh run id and a free port
    (rc, out, _), = _finish([_start("torch.distributed.run", ["--nproc-per-node", "2", "env.py", "pids_t", base],
                                    workdir)])
    assert rc == 0
    theirs = _by_rank(out)
    # the console script's entry, called in this process
    assert _main_in_thread(["--nproc-per-node", "2", "env.py", str(workdir / "pids_f"), str(base)],
                           cwd=workdir) is None
    ours = _by_rank(capfd.readouterr().out)
    assert sorted(ours) == sorted(theirs) == [0, 1]
    for rank in (0, 1):
        run_ids = ours[rank]["env"].pop("TORCHELASTIC_RUN_ID"), theirs[rank]["env"].pop("TORCHELASTIC_RUN_ID")
        assert all(uuid.UUID(r) for r in run_ids)
        assert _normalised(ours[rank], ours[0]["env"]["MASTER_PORT"]) == \
            _normalised(theirs[rank], theirs[0]["env"]["MASTER_PORT"])

    # two nodes with the static rendezvous, options spelled with underscores, a role, restarts and a run id
    def two_nodes(module, port, pids):
        return _finish([_start(module, ["--nnodes", "2", f"--node_rank={node}", "--nproc_per_node", "1",
                                        "--master_addr", "127.0.0.1", "--master_port", str(port), "--role", "trainer",
                                        "--max_restarts", "1", "--rdzv_id", "job7", "env.py", pids, base], workdir)
                        for node in (0, 1)])

    port_t, port_f = _free_port(), _free_port()
    results = two_nodes("torch.distributed.run", port_t, "pids_t2") + two_nodes("facade.distributed.run", port_f,
                                                                                "pids_f2")
    assert [rc for rc, _, _ in results] == [0, 0, 0, 0], results
    theirs = {**_by_rank(results[0][1]), **_by_rank(results[1][1])}
    ours = {**_by_rank(results[2][1]), **_by_rank(results[3][1])}
    assert sorted(ours) == sorted(theirs) == [0, 1]
    for rank in (0, 1):
        assert _normalised(ours[rank], port_f) == _normalised(theirs[rank], port_t)


def _summary(stderr):
    """(rank, exitcode) of each failure in a ChildFailedError summary, and the root cause section."""
    summary = stderr[stderr.index("FAILED\n---"):]
    failures = re.findall(r"rank +: (\d+) \(local_rank: \d+\)\n +exitcode +: (-?\d+)", summary)
    return sorted(failures), summary[summary.index("Root Cause (first observed failure):"):]


def test_failing_rank_stops_the_others(workdir):
    start = time.monotonic()
    ours, theirs = _finish([_start(m, ["--nproc-per-node", "2", "fail.py", pids], workdir)
                            for m, pids in (("facade.distributed.run", "pids_f"), ("torch.distributed.run", "pids_t"))])
    assert time.monotonic() - start < 40  # rank 0 would sleep 120 s: it was stopped
    assert ours[0] == theirs[0] != 0
    failures, root = _summary(ours[2])
    assert failures == _summary(theirs[2])[0] == [("0", str(-signal.SIGTERM)), ("1", "1")]
    assert "ChildFailedError" in ours[2] and "fail.py FAILED" in ours[2]
    assert re.search(r"rank +: 1 \(local_rank: 1\)\n +exitcode +: 1 ", root)
    # the root cause carries rank 1's traceback, read from its stderr (torchrun needs @record for that)
    assert 'raise ValueError("boom on rank 1")' in root and root.rstrip("=\n").endswith("ValueError: boom on rank 1")
    assert len(_worker_pids(workdir / "pids_f")) == 2


def test_signal_is_forwarded(workdir):
    launchers = [_start(m, ["--nproc-per-node", "2", "sig.py", pids], workdir)
                 for m, pids in (("facade.distributed.run", "pids_f"), ("torch.distributed.run", "pids_t"))]
    try:
        ready = [workdir / d / f"ready{r}" for d in ("pids_f", "pids_t") for r in (0, 1)]
        deadline = time.monotonic() + TIMEOUT
        while not all(p.exists() for p in ready) and time.monotonic() < deadline:
            assert all(p.poll() is None for p in launchers)
            time.sleep(0.1)
        assert all(p.exists() for p in ready)
    finally:
        for p in launchers:
            p.send_signal(signal.SIGINT)
        ours, theirs = _finish(launchers)
    assert ours[0] == theirs[0] != 0
    assert sorted(_outputs(ours[1])) == sorted(_outputs(theirs[1])) == ["rank 0 got SIGINT", "rank 1 got SIGINT"]


def test_restarts_then_child_failed_error(workdir, capfd):
    (rc, out, _), = _finish([_start("torch.distributed.run", ["--max-restarts", "1", "exit3.py", "pids_t"], workdir)])
    error = _main_in_thread(["--max-restarts", "1", "exit3.py", str(workdir / "pids_f")], cwd=workdir)
    assert _outputs(capfd.readouterr().out) == _outputs(out) == ["restart 0", "restart 1"]
    assert rc != 0 and isinstance(error, facade_run.ChildFailedError)
    assert [(rank, f.exitcode) for rank, f in error.failures.items()] == [(0, 3)]
    assert error.name == "exit3.py" and "exit3.py FAILED" in str(error)


_BAD_COMMAND_LINES = [["--nnodes", "1:2:3", "s.py"], ["--nnodes", "2:1", "s.py"], ["--max-restarts", "-1", "s.py"],
                      ["--nproc-per-node", "bogus", "s.py"], ["-m", "--no-python", "s.py"]]


@pytest.mark.parametrize("argv", _BAD_COMMAND_LINES, ids=" ".join)
def test_bad_command_line_raises_like_torchrun(argv):
    with pytest.raises(Exception) as theirs:
        torch_run.config_from_args(torch_run.parse_args(argv))
    with pytest.raises(type(theirs.value), match=re.escape(str(theirs.value))):
        facade_run.config_from_args(facade_run.parse_args(argv))


def test_not_supported_options_say_so():
    for argv in (["--nnodes", "1:4", "s.py"], ["--tee", "3", "s.py"],
                 ["--nnodes", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint", "h:1", "s.py"]):
        with pytest.raises(NotImplementedError, match="torchrun"):
            facade_run.config_from_args(facade_run.parse_args(argv))


def test_command_line_parses_like_torchrun(monkeypatch):
    argv = ["--nproc_per_node", "3", "--master_port", "1234", "--max_restarts", "2", "--rdzv_endpoint", "h:5",
            "--standalone", "-m", "--run_path", "--no_python", "--monitor_interval", "0.5", "--node_rank", "1",
            "s.py", "a", "--b"]
    monkeypatch.setenv("PET_ROLE", "trainer")  # torchrun's PET_<OPTION> defaults
    ours, theirs = vars(facade_run.parse_args(argv)), vars(torch_run.parse_args(argv))
    assert ours["role"] == "trainer"
    assert ours == {k: theirs[k] for k in ours}
    # torch.distributed.launch passes --local-rank=<local rank> to each worker unless --use-env
    launch_argv = ["--nproc-per-node", "1", "s.py", "x"]
    _, _, their_args = torch_run.config_from_args(torch_launch.parse_args(launch_argv))
    cmd = facade_run.config_from_args(facade_launch.parse_args(launch_argv)).cmd
    assert cmd[cmd.index("facade") + 1:] == their_args[their_args.index("s.py"):]


def test_console_script_is_main():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, _, name = scripts["facade-torchrun"].partition(":")
    assert getattr(__import__(module, fromlist=[name]), name) is facade_run.main
