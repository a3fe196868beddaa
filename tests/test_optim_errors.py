"""torch.optim bad input: the error type and message are torch's (checked against real torch)."""

import pytest
import torch

import facade

P = object()  # stands for "a fresh parameter list" in the cases below

CASES = [
    ("SGD", dict(lr=-0.1)),
    ("SGD", dict(momentum=-0.5)),
    ("SGD", dict(weight_decay=-1e-3)),
    ("SGD", dict(nesterov=True)),
    ("SGD", dict(momentum=0.9, dampening=0.1, nesterov=True)),
    ("SGD", dict(fused=True, foreach=True)),
    ("Adam", dict(lr=-1.0)),
    ("Adam", dict(eps=-1e-8)),
    ("Adam", dict(betas=(1.0, 0.999))),
    ("Adam", dict(betas=(0.9, -0.1))),
    ("Adam", dict(weight_decay=-0.1)),
    ("Adam", dict(betas=(0, 0.999))),
    ("AdamW", dict(betas=(0.9, 1.5))),
    ("Adamax", dict(eps=-1.0)),
    ("NAdam", dict(momentum_decay=-0.1)),
    ("RAdam", dict(betas=(-0.1, 0.9))),
    ("RMSprop", dict(alpha=-0.5)),
    ("RMSprop", dict(momentum=-0.5)),
    ("Adagrad", dict(lr_decay=-0.5)),
    ("Adagrad", dict(initial_accumulator_value=-1.0)),
    ("Adadelta", dict(rho=1.5)),
    ("ASGD", dict(weight_decay=-0.5)),
    ("Rprop", dict(etas=(1.5, 1.2))),
    ("LBFGS", dict(lr=-1)),
]


def _raise(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the oracle's exception is what we compare to
        return e
    raise AssertionError("no error")


def _check(tfn, ffn):
    te, fe = _raise(tfn), _raise(ffn)
    assert type(fe) is type(te) and str(fe) == str(te), (fe, te)


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{'-'.join(k)}" for n, k in CASES])
def test_invalid_hyperparameters(name, kw):
    _check(lambda: getattr(torch.optim, name)([torch.zeros(2, requires_grad=True)], **kw),
           lambda: getattr(facade.optim, name)([facade.zeros(2, requires_grad=True)], **kw))


def _both(make):
    _check(lambda: make(torch), lambda: make(facade))


def test_param_list_errors():
    _both(lambda m: m.optim.SGD([], lr=0.1))
    _both(lambda m: m.optim.Adam(m.zeros(2, requires_grad=True)))

    def twice(m):
        p = m.zeros(2, requires_grad=True)
        return m.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)

    _both(twice)

    def non_leaf(m):
        p = m.zeros(2, requires_grad=True)
        return m.optim.Adam([p * 2])

    _both(non_leaf)
    _both(lambda m: m.optim.SGD([1.0], lr=0.1))
    _both(lambda m: m.optim.SGD([m.zeros(1, requires_grad=True)], lr=0.1).add_param_group(
        {"params": {m.zeros(1, requires_grad=True)}}))
    _both(lambda m: m.optim.SGD([{"params": [m.zeros(1, requires_grad=True)]}, "x"], lr=0.1))
    _both(lambda m: m.optim.LBFGS([{"params": [m.zeros(1, requires_grad=True)]},
                                   {"params": [m.zeros(1, requires_grad=True)]}]))
    with pytest.warns(UserWarning, match="optimizer contains a parameter group with duplicate parameters"):
        p = facade.zeros(2, requires_grad=True)
        facade.optim.SGD([p, p], lr=0.1)


def test_load_state_dict_mismatch():
    def groups(m):
        a, b = m.zeros(2, requires_grad=True), m.zeros(2, requires_grad=True)
        sd = m.optim.SGD([a, b], lr=0.1).state_dict()
        return m.optim.SGD([{"params": [a]}, {"params": [b]}], lr=0.1).load_state_dict(sd)

    def sizes(m):
        a, b = m.zeros(2, requires_grad=True), m.zeros(2, requires_grad=True)
        sd = m.optim.SGD([a, b], lr=0.1).state_dict()
        return m.optim.SGD([a], lr=0.1).load_state_dict(sd)

    _both(groups)
    _both(sizes)


def test_lbfgs_line_search_name():
    def run(m):
        x = m.ones(2, requires_grad=True)
        opt = m.optim.LBFGS([x], line_search_fn="backtracking")

        def closure():
            opt.zero_grad()
            loss = (x * x).sum()
            loss.backward()
            return loss

        opt.step(closure)

    _both(run)


def test_hook_bad_return():
    def run(m):
        p = m.zeros(2, requires_grad=True)
        opt = m.optim.SGD([p], lr=0.1)
        opt.register_step_pre_hook(lambda o, a, k: 5)
        opt.step()

    te, fe = _raise(lambda: run(torch)), _raise(lambda: run(facade))
    assert type(fe) is type(te) is RuntimeError
    assert "must return None or a tuple of (new_args, new_kwargs), but got 5." in str(fe)
