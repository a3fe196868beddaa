"""OpInfo entries for pointwise math."""

from . import OpInfo, binary, register, unary

register(
    OpInfo("add", binary()),
    OpInfo("add", binary(alpha=2)),
    OpInfo("sub", binary()),
    OpInfo("mul", binary()),
    OpInfo("div", binary(low=0.5, high=3.0)),
    OpInfo("__add__", binary()),
    OpInfo("__radd__", binary()),
    OpInfo("exp", unary()),
    OpInfo("tanh", unary()),
    OpInfo("sigmoid", unary()),
)
