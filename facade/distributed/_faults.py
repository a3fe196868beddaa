"""A rank that dies or stops answering becomes a RuntimeError on the others, within the group's timeout.

Three things turn a hang or an abort into a Python error:

- The runtime is started recoverable (`jax_enable_recoverability`, set in _pg): a task that stops sending
  heartbeats is then marked dead in JAX's coordination service instead of making the service abort every
  other task, and the shutdown barrier at exit waits only for the live ones (so a survivor exits with its own
  exit code, not SIGABRT).
- Every collective starts with a blocking metadata exchange (_collectives._agree). It runs on one waiter
  thread while the caller waits at most the group's `timeout` (init_process_group(timeout=...)): gloo on a
  connection whose peer is alive but absent waits for ever, and the call that launches the program does not
  return until it ran. On the timeout the group is marked broken, as torch's gloo closes its pairs, and every
  later collective on it raises at once.
- A gloo error (a peer's socket closed: it crashed or was killed) comes out of XLA as a ValueError
  "UNKNOWN: Gloo AllGather failed: ..."; it is re-raised as the RuntimeError torch's gloo raises. A timeout
  names the ranks that did not reach the collective: those that wait say so in JAX's key-value store after
  a short grace (only slow collectives pay for it). The service's list of live tasks cannot serve here:
  get_live_nodes returns only once every live task has called it.

Limit: when rank 0, which hosts JAX's coordination service, dies, JAX's client terminates the other processes
itself (its missed-heartbeat callback cannot be replaced from Python in jaxlib 0.10: it is called with an
absl::Status that has no Python conversion).
"""

from __future__ import annotations

import queue
import threading
import time

__all__ = ["guarded", "reraise", "at_exit"]

_GRACE = 0.5  # seconds a metadata exchange may take before this rank says in the key-value store it is waiting


class _Waiter:
    """One daemon thread that runs the blocking calls handed to it (a daemon, so a call stuck on an absent peer
    never holds the interpreter's exit)."""

    def __init__(self):
        self.jobs = queue.SimpleQueue()
        threading.Thread(target=self._loop, name="facade-distributed-waiter", daemon=True).start()

    def _loop(self):
        while True:
            fn, box, done = self.jobs.get()
            try:
                box.append((True, fn()))
            except BaseException as e:  # noqa: BLE001 - handed back to the caller, raised there
                box.append((False, e))
            done.set()


_FAILED: list = []  # the collectives that failed in this process (its exit then waits for no one)
_WAITER: list = []  # the current _Waiter; replaced when one is stuck behind a timed-out call


def _waiter() -> _Waiter:
    if not _WAITER:
        _WAITER.append(_Waiter())
    return _WAITER[0]


def _client():
    from jax._src import distributed  # the runtime's client: live tasks and the key-value store

    return distributed.global_state.client


def _ranks(rs) -> str:
    return ("rank " if len(rs) == 1 else "ranks ") + ", ".join(map(str, rs))


def reraise(pg, kind, e):
    """Raise XLA's gloo error `e` of collective `kind` as torch's RuntimeError (`e` itself if it is another)."""
    text = str(e)
    if "Gloo" not in text:
        raise e
    _FAILED.append(kind)
    detail = text.split("failed: ", 1)[-1]
    raise RuntimeError(f"{kind}: {detail}. This is typically caused by a remote worker crashing. Check the logs "
                       f"of the remote worker (a rank of {list(pg.ranks)}).") from None


def guarded(pg, kind, fn):
    """fn() (a blocking collective of group `pg`), waited for at most `pg.timeout`; torch's errors for a dead
    or absent peer."""
    if pg.broken:
        raise RuntimeError(f"{kind}: {pg.broken}")
    box, done = [], threading.Event()
    _waiter().jobs.put((fn, box, done))
    seconds = pg.timeout.total_seconds()
    if not done.wait(min(_GRACE, seconds)):
        key = _mark_waiting(pg)
        if not done.wait(max(0.0, seconds - _GRACE)):
            _WAITER.clear()  # that thread stays inside the call; later groups get a fresh one
            _timed_out(pg, kind, seconds, key)
        _unmark(key + str(pg.ranks[pg.rank()]) if key else None)
    ok, value = box[0]
    if ok:
        return value
    reraise(pg, kind, value)


def _mark_waiting(pg):
    """Say in the key-value store that this rank waits at the group's current collective; the key's folder."""
    key = f"facade/waiting/{'_'.join(map(str, pg.ranks))}/{pg.serial}/"
    client = _client()
    if client is not None:
        try:
            client.key_value_set(key + str(pg.ranks[pg.rank()]), str(time.time()))
        except Exception:  # noqa: BLE001 - a diagnosis only: the timeout still applies
            return None
    return key


def _unmark(key):
    """Take this rank's waiting mark back once the collective completed (a later diagnosis must not see it)."""
    if key is not None:
        try:
            _client().key_value_delete(key)
        except Exception:  # noqa: BLE001 - a diagnosis only
            pass


def _timed_out(pg, kind, seconds, key):
    waiting = set()
    if key is not None:
        try:
            waiting = {int(k.rsplit("/", 1)[-1]) for k, _ in _client().key_value_dir_get(key)}
        except Exception:  # noqa: BLE001 - the service is gone: the dead ranks below still say something
            pass
    waiting.add(pg.ranks[pg.rank()])
    absent = [r for r in pg.ranks if r not in waiting]
    why = f": {_ranks(absent)} of the group {list(pg.ranks)} did not reach it" if absent and key is not None else ""
    ms = int(seconds * 1000)
    _FAILED.append(kind)
    pg.broken = (f"the process group {list(pg.ranks)} is unusable after a collective timed out (torch's gloo "
                 f"closes its connections then): Application timeout caused pair closure")
    raise RuntimeError(f"{kind}: Timed out waiting {ms}ms for the collective to complete (the process group's "
                       f"timeout, init_process_group(timeout=...)){why}")


def at_exit(world_size, rank, seconds, heartbeat):
    """Before JAX's own exit handler: the ranks leave together. In a recoverable runtime the coordination
    service's shutdown no longer waits for every task, so rank 0 (the service's host) could stop it while
    another rank still disconnects, and JAX aborts that rank. So every rank meets at a barrier (skipped
    after a failure: the peers may be gone), the others disconnect, and rank 0 waits until they did
    (get_live_nodes returns once every live task called it or left), each step bounded by `seconds`.

    The wait for get_live_nodes outlasts the heartbeat timeout, after which a dead rank counts as gone: a call
    that returned on its daemon thread while the interpreter finalizes would abort the process (the thread
    exits through C++ frames). A rank that hangs alive keeps it pending; that one case stays a race."""
    from jax._src import distributed

    client = distributed.global_state.client
    if client is None:
        return
    try:
        if not _FAILED:
            client.wait_at_barrier("facade/exit", int(seconds * 1000))
    except Exception:  # noqa: BLE001 - a peer is gone or late: leave anyway, as torch's processes do
        pass
    if rank != 0:
        try:
            client.shutdown()
        except Exception:  # noqa: BLE001 - the service is gone already
            pass
        distributed.global_state.client = None
        return
    gone = threading.Thread(target=client.get_live_nodes, args=(list(range(world_size)),), daemon=True)
    gone.start()
    gone.join(max(seconds, heartbeat + 2))
