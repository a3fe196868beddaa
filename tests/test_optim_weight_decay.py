"""weight_decay == 0 is a static branch, as torch's `if weight_decay != 0`: the update leaves the decay term out
(no 0 * param, which turns an infinite parameter into NaN), eagerly and compiled; switching it on recompiles."""

import numpy as np
import pytest
import torch

import facade

# every optimizer whose update adds weight_decay * param to the gradient (or shrinks the parameter)
OPTIMIZERS = ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta", "ASGD"]


def _step_with_inf(lib, name, **kw):
    p = lib.nn.Parameter(lib.tensor([float("inf"), 1.0, -2.0]))
    opt = getattr(lib.optim, name)([p], lr=0.1, **kw)
    for _ in range(3):
        p.grad = lib.tensor([0.5, -0.25, 1.0])
        opt.step()
    return p.detach().numpy().copy(), {k: v.numpy().copy() for k, v in opt.state[p].items() if k != "step"}


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_zero_weight_decay_leaves_an_infinite_parameter_as_torch(name):
    kw = {"weight_decay": 0.0}
    want_p, want_state = _step_with_inf(torch, name, **kw)
    got_p, got_state = _step_with_inf(facade, name, **kw)
    np.testing.assert_allclose(got_p, want_p, rtol=1e-6)  # inf stays inf, no NaN
    assert want_state.keys() == got_state.keys()
    for k in want_state:
        np.testing.assert_allclose(got_state[k], want_state[k], rtol=1e-6, err_msg=k)


def _trajectory(lib, compiled):
    lib.manual_seed(0)
    model = lib.nn.Linear(4, 3)
    with lib.no_grad():
        model.weight.copy_(lib.tensor(np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)))
        model.bias.zero_()
    opt = lib.optim.Adam(model.parameters(), lr=0.05)
    x = lib.tensor(np.linspace(-2, 2, 20, dtype=np.float32).reshape(5, 4))

    def step():
        opt.zero_grad()
        loss = (model(x) ** 2).mean()
        loss.backward()
        opt.step()
        return loss

    run = lib.compile(step) if compiled else step
    losses = []
    for i in range(8):
        if i == 4:
            opt.param_groups[0]["weight_decay"] = 0.5  # the decay term joins the update from here on
        losses.append(float(run()))
    return losses, model.weight.detach().numpy().copy()


def test_switching_weight_decay_on_recompiles_and_matches_torch():
    want, want_w = _trajectory(torch, False)
    eager, eager_w = _trajectory(facade, False)
    got, got_w = _trajectory(facade, True)
    np.testing.assert_allclose(eager, want, rtol=1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    np.testing.assert_allclose(got_w, want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(eager_w, want_w, rtol=1e-5, atol=1e-6)


def test_switching_weight_decay_on_compiles_one_new_program():
    model = facade.nn.Linear(2, 1)
    opt = facade.optim.SGD(model.parameters(), lr=0.1)
    x = facade.ones(3, 2)

    @facade.compile
    def step():
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()

    for _ in range(3):
        step()
    n = facade._dynamo.utils.counters["stats"]["unique_graphs"]
    opt.param_groups[0]["weight_decay"] = 0.1
    step()
    step()
    assert facade._dynamo.utils.counters["stats"]["unique_graphs"] == n + 1  # one new program, then reused
