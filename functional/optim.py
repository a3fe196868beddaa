"""Per-tensor optimizer updates with torch.optim's exact semantics, where optax has none.

facade.optim takes the update math from optax wherever optax computes what torch computes
(Adam/AdamW without amsgrad: `optax.scale_by_adam`; RMSprop: `optax.scale_by_rms` /
`optax.scale_by_stddev` + `optax.trace`; Adadelta: `optax.scale_by_adadelta`). The functions here
cover the rest, each saying where optax differs. All are pure: arrays in, arrays out; the
hyper-parameters may be traced scalars (so changing a learning rate never recompiles), and the
step-dependent coefficients are computed in float64, like torch's Python-float arithmetic, then
rounded to the parameter's dtype. `step` is the already-incremented step count (float32 0-dim).
"""

import jax.numpy as jnp

__all__ = ["decayed", "sgd", "adam_amsgrad", "adamax", "nadam", "radam", "adagrad", "asgd", "rprop"]


def _f64(x):
    return jnp.asarray(x, jnp.float64)


def _c(x, like):
    """A scalar coefficient rounded to `like`'s dtype, as torch rounds a Python scalar in a kernel."""
    return jnp.asarray(x, like.dtype)


def _off(weight_decay):
    """A weight decay that is a Python zero (facade.optim passes 0.0 where a group's weight_decay is 0): torch
    skips the term then (`if weight_decay != 0`), and so does the program, instead of reading every parameter
    once more to add 0 * param (which would also turn an infinite parameter's gradient into NaN)."""
    return type(weight_decay) in (int, float) and weight_decay == 0


def _grad(param, grad, weight_decay, maximize):
    g = -grad if maximize else grad
    return g if _off(weight_decay) else g + _c(weight_decay, param) * param


def decayed(param, grad, lr, weight_decay, maximize, decoupled):
    """(param, gradient) after weight decay: AdamW-style shrinking of the parameter when `decoupled`,
    else L2 added to the gradient (torch's order: maximize negates first). `lr` is read only when `decoupled`."""
    if decoupled:
        g = -grad if maximize else grad
        return (param if _off(weight_decay) else param * _c(1 - lr * weight_decay, param)), g
    return param, _grad(param, grad, weight_decay, maximize)


def _moments(exp_avg, exp_avg_sq, g, beta1, beta2):
    """Adam's running first and second moments, with torch's lerp form of the first."""
    return exp_avg + _c(1 - beta1, g) * (g - exp_avg), exp_avg_sq * _c(beta2, g) + _c(1 - beta2, g) * g * g


def sgd(param, grad, momentum_buffer, *, lr, momentum, dampening, weight_decay, nesterov, maximize, use_momentum):
    """torch.optim.SGD for one tensor -> (param, momentum_buffer).

    g = grad + weight_decay * param; buf = g on the first step, else momentum * buf + (1 - dampening) * g;
    g = g + momentum * buf (nesterov) or buf; param -= lr * g. `momentum_buffer` is None before the
    first step (and stays None when `use_momentum` is False). optax.trace has no dampening.
    """
    g = _grad(param, grad, weight_decay, maximize)
    buf = None
    if use_momentum:
        if momentum_buffer is None:
            buf = g
        else:
            buf = momentum_buffer * _c(momentum, g) + _c(1 - dampening, g) * g
        g = g + _c(momentum, g) * buf if nesterov else buf
    return param + _c(-lr, param) * g, buf


def adam_amsgrad(param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq, step, *, lr, beta1, beta2, eps, weight_decay,
                 maximize, decoupled_weight_decay):
    """torch.optim.Adam / AdamW with amsgrad=True for one tensor -> (param, exp_avg, exp_avg_sq, max_exp_avg_sq).

    torch keeps the running maximum of the raw second moment and bias-corrects it with the current
    step; optax.scale_by_amsgrad takes the maximum of the bias-corrected moments instead.
    """
    s = _f64(step)
    param, g = decayed(param, grad, lr, weight_decay, maximize, decoupled_weight_decay)
    exp_avg, exp_avg_sq = _moments(exp_avg, exp_avg_sq, g, beta1, beta2)
    max_exp_avg_sq = jnp.maximum(max_exp_avg_sq, exp_avg_sq)
    step_size = lr / (1 - beta1 ** s)
    denom = jnp.sqrt(max_exp_avg_sq) / _c(jnp.sqrt(1 - beta2 ** s), g) + _c(eps, g)
    return param + _c(-step_size, param) * (exp_avg / denom), exp_avg, exp_avg_sq, max_exp_avg_sq


def adamax(param, grad, exp_avg, exp_inf, step, *, lr, beta1, beta2, eps, weight_decay, maximize):
    """torch.optim.Adamax for one tensor -> (param, exp_avg, exp_inf).

    exp_inf = max(beta2 * exp_inf, |g| + eps) and param -= lr / (1 - beta1^t) * exp_avg / exp_inf;
    optax.scale_by_adamax adds eps after the maximum instead.
    """
    g = _grad(param, grad, weight_decay, maximize)
    exp_avg = exp_avg + _c(1 - beta1, g) * (g - exp_avg)
    exp_inf = jnp.maximum(exp_inf * _c(beta2, g), jnp.abs(g) + _c(eps, g))
    clr = lr / (1 - beta1 ** _f64(step))
    return param + _c(-clr, param) * (exp_avg / exp_inf), exp_avg, exp_inf


def nadam(param, grad, exp_avg, exp_avg_sq, mu_product, step, *, lr, beta1, beta2, eps, weight_decay, momentum_decay,
          maximize, decoupled_weight_decay):
    """torch.optim.NAdam for one tensor -> (param, exp_avg, exp_avg_sq, mu_product).

    Uses Dozat's momentum schedule mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay)) and its
    running product, which optax.nadam does not have.
    """
    s = _f64(step)
    param, g = decayed(param, grad, lr, weight_decay, maximize, decoupled_weight_decay)
    mu = beta1 * (1.0 - 0.5 * 0.96 ** (s * momentum_decay))
    mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((s + 1) * momentum_decay))
    mu_product = (mu_product * _c(mu, mu_product)).astype(mu_product.dtype)
    mu_product_next = _f64(mu_product) * mu_next
    exp_avg, exp_avg_sq = _moments(exp_avg, exp_avg_sq, g, beta1, beta2)
    denom = jnp.sqrt(exp_avg_sq / _c(1 - beta2 ** s, g)) + _c(eps, g)
    param = param + _c(-lr * (1.0 - mu) / (1.0 - _f64(mu_product)), param) * (g / denom)
    param = param + _c(-lr * mu_next / (1.0 - mu_product_next), param) * (exp_avg / denom)
    return param, exp_avg, exp_avg_sq, mu_product


def radam(param, grad, exp_avg, exp_avg_sq, step, *, lr, beta1, beta2, eps, weight_decay, maximize,
          decoupled_weight_decay):
    """torch.optim.RAdam for one tensor -> (param, exp_avg, exp_avg_sq).

    The rectified step is lr * r_t * m_hat * sqrt(1 - beta2^t) / (sqrt(v) + eps) when rho_t > 5, else
    lr * m_hat; optax.scale_by_radam puts eps on the bias-corrected sqrt(v_hat) instead.
    """
    s = _f64(step)
    param, g = decayed(param, grad, lr, weight_decay, maximize, decoupled_weight_decay)
    exp_avg, exp_avg_sq = _moments(exp_avg, exp_avg_sq, g, beta1, beta2)
    bc1, bc2 = 1 - beta1 ** s, 1 - beta2 ** s
    m_hat = exp_avg / _c(bc1, g)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * s * (beta2 ** s) / bc2
    rect = jnp.sqrt(jnp.abs((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)))
    adaptive = _c(bc2 ** 0.5, g) / (jnp.sqrt(exp_avg_sq) + _c(eps, g))
    update = jnp.where(rho_t > 5.0, m_hat * _c(lr, g) * adaptive * _c(rect, g), m_hat * _c(lr, g))
    return param - update, exp_avg, exp_avg_sq


def adagrad(param, grad, state_sum, step, *, lr, lr_decay, weight_decay, eps, maximize):
    """torch.optim.Adagrad for one tensor -> (param, sum).

    param -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum) + eps); optax.scale_by_rss puts eps inside
    the square root and has no lr_decay.
    """
    g = _grad(param, grad, weight_decay, maximize)
    clr = lr / (1 + (_f64(step) - 1) * lr_decay)
    state_sum = state_sum + g * g
    return param + _c(-clr, param) * (g / (jnp.sqrt(state_sum) + _c(eps, g))), state_sum


def asgd(param, grad, ax, eta, mu, step, *, lr, lambd, alpha, t0, weight_decay, maximize):
    """torch.optim.ASGD for one tensor -> (param, ax, eta, mu); optax has no averaged SGD."""
    g = _grad(param, grad, weight_decay, maximize)
    e = _f64(eta)
    param = param * _c(1 - lambd * e, param)
    param = param + _c(-e, param) * g
    ax = jnp.where(mu != 1, ax + (param - ax) * _c(mu, ax), param)
    s = _f64(step)
    eta = _c(lr / ((1 + lambd * lr * s) ** alpha), eta)
    mu = _c(1 / jnp.maximum(1.0, s - t0), mu)
    return param, ax, eta, mu


def rprop(param, grad, prev, step_size, *, etaminus, etaplus, step_size_min, step_size_max, maximize):
    """torch.optim.Rprop for one tensor -> (param, prev, step_size); optax has no Rprop."""
    g = -grad if maximize else grad
    sign = jnp.sign(g * prev)
    factor = jnp.where(sign > 0, _c(etaplus, g), jnp.where(sign < 0, _c(etaminus, g), jnp.ones((), g.dtype)))
    step_size = jnp.clip(step_size * factor, _c(step_size_min, g), _c(step_size_max, g))
    g = jnp.where(sign < 0, jnp.zeros((), g.dtype), g)
    return param - jnp.sign(g) * step_size, g, step_size
