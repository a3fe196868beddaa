"""torch.export.graph_signature: what each input and output of an exported program is (a parameter, a buffer, a
user input ...), printed as torch prints it."""

from __future__ import annotations

import dataclasses
import enum

__all__ = ["InputKind", "OutputKind", "TensorArgument", "ConstantArgument", "InputSpec", "OutputSpec",
           "ExportGraphSignature", "ExportBackwardSignature"]


class InputKind(enum.Enum):
    USER_INPUT = enum.auto()
    PARAMETER = enum.auto()
    BUFFER = enum.auto()
    CONSTANT_TENSOR = enum.auto()
    CUSTOM_OBJ = enum.auto()
    TOKEN = enum.auto()


class OutputKind(enum.Enum):
    USER_OUTPUT = enum.auto()
    LOSS_OUTPUT = enum.auto()
    BUFFER_MUTATION = enum.auto()
    PARAMETER_MUTATION = enum.auto()
    GRADIENT_TO_PARAMETER = enum.auto()
    GRADIENT_TO_USER_INPUT = enum.auto()
    USER_INPUT_MUTATION = enum.auto()
    TOKEN = enum.auto()


@dataclasses.dataclass
class TensorArgument:
    name: str


@dataclasses.dataclass
class ConstantArgument:
    name: str
    value: object


@dataclasses.dataclass
class InputSpec:
    kind: InputKind
    arg: TensorArgument | ConstantArgument
    target: str | None
    persistent: bool | None = None

    def __str__(self):
        target = "" if self.target is None else f" target='{self.target}'"
        persistent = "" if self.persistent is None else f" persistent={self.persistent}"
        return f"{self.arg.name}: {self.kind.name}{target}{persistent}"


@dataclasses.dataclass
class OutputSpec:
    kind: OutputKind
    arg: TensorArgument | ConstantArgument
    target: str | None

    def __str__(self):
        target = "" if self.target is None else f" target='{self.target}'"
        return f"{self.arg.name}: {self.kind.name}{target}"


@dataclasses.dataclass
class ExportBackwardSignature:
    gradients_to_parameters: dict
    gradients_to_user_inputs: dict
    loss_output: str


@dataclasses.dataclass
class ExportGraphSignature:
    """The program's inputs (parameters, buffers, user inputs, in that order) and outputs."""

    input_specs: list
    output_specs: list

    def _names(self, kinds, specs):
        return tuple(s.target if s.target is not None else s.arg.name for s in specs if s.kind in kinds)

    @property
    def parameters(self):
        return self._names((InputKind.PARAMETER,), self.input_specs)

    @property
    def buffers(self):
        return self._names((InputKind.BUFFER,), self.input_specs)

    @property
    def non_persistent_buffers(self):
        return tuple(s.target for s in self.input_specs if s.kind is InputKind.BUFFER and s.persistent is False)

    @property
    def user_inputs(self):
        return tuple(s.arg.name for s in self.input_specs if s.kind is InputKind.USER_INPUT)

    @property
    def user_outputs(self):
        return tuple(s.arg.name for s in self.output_specs if s.kind is OutputKind.USER_OUTPUT)

    @property
    def inputs_to_parameters(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.PARAMETER}

    @property
    def inputs_to_buffers(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind is InputKind.BUFFER}

    @property
    def buffers_to_mutate(self):
        return {s.arg.name: s.target for s in self.output_specs if s.kind is OutputKind.BUFFER_MUTATION}

    @property
    def backward_signature(self):
        return None

    def __str__(self):
        ins, outs = "\n".join(map(str, self.input_specs)), "\n".join(map(str, self.output_specs))
        return f"\n# inputs\n{ins}\n\n# outputs\n{outs}\n"


def make(params, buffers, persistent, user_inputs, n_outputs, mutated):
    """The signature of a program over (params, buffers, user inputs) returning n_outputs, then `mutated`."""
    def arg(prefix, name):
        return TensorArgument(prefix + name.replace(".", "_"))

    ins = [InputSpec(InputKind.PARAMETER, arg("p_", n), n) for n in params]
    ins += [InputSpec(InputKind.BUFFER, arg("b_", n), n, n in persistent) for n in buffers]
    ins += [InputSpec(InputKind.USER_INPUT, TensorArgument(n), None) for n in user_inputs]
    outs = [OutputSpec(OutputKind.BUFFER_MUTATION, arg("b_", n), n) for n in mutated]
    outs += [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(f"output_{i}" if n_outputs > 1 else "output"), None)
             for i in range(n_outputs)]
    return ExportGraphSignature(ins, outs)
