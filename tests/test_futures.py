"""torch.futures.Future, collect_all and wait_all, side by side with real torch."""

import threading

import pytest
import torch

import facade


def _both(fn):
    out = []
    for m in (torch, facade):
        try:
            out.append(("ok", fn(m)))
        except Exception as e:
            out.append((type(e).__name__, str(e).split("\n")[0]))
    assert out[1] == out[0], out
    return out[0]


def test_then_and_values():
    def run(m):
        f = m.futures.Future()
        g = f.then(lambda fut: fut.wait() + 1)
        before = (f.done(), g.done())
        f.set_result(3)
        return before, f.done(), f.wait(), f.value(), g.wait()
    _both(run)
    assert facade.Future is facade.futures.Future


def test_completed_twice_and_exceptions():
    def twice(m):
        f = m.futures.Future()
        f.set_result(1)
        f.set_result(2)
    _both(twice)

    def error(m):
        f = m.futures.Future()
        f.set_exception(ValueError("boom"))
        return f.done(), f.wait()
    _both(error)
    _both(lambda m: m.futures.Future().set_exception("not an exception"))

    def callback_raises(m):
        f = m.futures.Future()
        g = f.then(lambda fut: 1 / 0)
        f.set_result(1)
        return g.wait()
    assert _both(callback_raises)[0] == "RuntimeError"


def test_done_callbacks_and_collect():
    def run(m):
        seen = []
        f = m.futures.Future()
        f.add_done_callback(lambda fut: seen.append(fut.value()))
        f.set_result(5)
        f.add_done_callback(lambda fut: seen.append(fut.value() * 2))
        a, b = m.futures.Future(), m.futures.Future()
        c = m.futures.collect_all([a, b])
        a.set_result(1)
        partial = c.done()
        b.set_result(2)
        return seen, partial, c.done(), [x.wait() for x in c.wait()], m.futures.wait_all([a, b])
    _both(run)

    def failing(m):
        a, e = m.futures.Future(), m.futures.Future()
        a.set_result(1)
        e.set_exception(RuntimeError("x"))
        return m.futures.wait_all([a, e])
    _both(failing)


def test_wait_blocks_until_another_thread_completes():
    f = facade.futures.Future()
    threading.Timer(0.05, lambda: f.set_result("late")).start()
    assert f.wait() == "late"
    with pytest.raises(RuntimeError, match="not completed"):
        facade.futures.Future().value()
