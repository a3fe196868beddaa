"""A compiled training step across processes: one SPMD program over the process group's mesh.

A whole step (it reaches an optimizer) that also reaches a DistributedDataParallel module whose group spans
several processes runs as ONE program over that group's mesh (`jax.shard_map`, mesh axis "p"). DDP's bucketed
gradient all_reduce and its buffer broadcast are then lax collectives inside the step's XLA program
(facade.distributed._collectives.spmd), where an eager step runs each as a program of its own.

Each process passes its own arrays (its parameters, gradients, optimizer state, batch): every array is this
process's shard of a global array whose rows are the ranks' arrays concatenated on dimension 0 (a 0-d array is
one row), the layout facade's eager collectives use. The body sees each rank's own arrays, and every output
comes back the same way, this process's shard being its result. Before a program first runs, the ranks agree on
its signature, so a rank with other shapes raises instead of hanging inside the program.
"""

from __future__ import annotations

import zlib

import jax
from jax.sharding import PartitionSpec as P

from .. import _xla

__all__ = ["group", "call"]


def group(state):
    """The process group a whole step reaching `state`'s modules runs over as one SPMD program, or None: the
    group of a DistributedDataParallel module there when it spans more than one process."""
    for m in state.modules:
        pg = getattr(m, "_spmd_group", None)
        if pg is not None:
            return pg
    return None


def _program(raw, pg, scalars, donate):
    from ..distributed import _collectives

    out_scalars = []

    def body(*blocks):
        arrays = [b.reshape(()) if s else b for b, s in zip(blocks, scalars)]
        with _collectives.spmd(pg):
            outs = raw(*arrays)
        out_scalars[:] = [o.ndim == 0 for o in outs]
        return tuple(o.reshape(1) if o.ndim == 0 else o for o in outs)

    spec = P("p")
    fn = jax.shard_map(body, mesh=pg.mesh, in_specs=spec, out_specs=spec, check_vma=False)
    return jax.jit(fn, donate_argnums=tuple(range(donate)), compiler_options=_xla.xla_defaults()), out_scalars


def call(entry, pg, arrays, owned):
    """Run `entry`'s program on this process's `arrays` as its shard of the SPMD program over `pg`: its outputs,
    this process's part. `owned`: the state buffers may be donated (see _function._arrays)."""
    from ..distributed import _collectives
    from ..distributed._faults import reraise

    scalars = tuple(getattr(a, "ndim", 0) == 0 for a in arrays)
    programs = entry.spmd_programs
    key = (owned, scalars)
    if key not in programs:
        if not programs:  # the first run of this signature: every rank must run the same program
            sig = repr([(tuple(getattr(a, "shape", ())), str(getattr(a, "dtype", type(a)))) for a in arrays])
            _collectives._agree(pg, "torch.compile", extra=zlib.crc32(sig.encode()),
                                what=lambda h: f"a compiled step whose inputs' shapes and dtypes hash to {h}")
        programs[key] = _program(entry.comp.raw, pg, scalars, entry.ndonate if owned else 0)
    fn, out_scalars = programs[key]
    try:
        outs = _collectives.launch(fn, *[_collectives._global(pg, a) for a in arrays])
    except Exception as e:  # noqa: BLE001 - a peer's death shows as XLA's gloo error: torch's RuntimeError then
        reraise(pg, "torch.compile", e)
    return [o.addressable_data(0).reshape(()) if s else o.addressable_data(0) for o, s in zip(outs, out_scalars)]
