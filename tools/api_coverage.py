"""How much of real torch's public API exists in facade, namespace by namespace.

    python tools/api_coverage.py                  counts and percentages, and names missing without a reason
    python tools/api_coverage.py --missing        also every missing name, with its reason from tests/api_missing.py
    python tools/api_coverage.py --write-missing  rewrite tests/api_missing.py to what is missing now: existing
                                                  reasons kept, names that exist now dropped, new names marked TODO

A namespace's names are its `__all__` where torch defines one, else its public `dir()` names (torch.Tensor:
`dir(torch.Tensor)`), read as tests/test_nn_api.py reads them. Real torch is the reference here only.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import re
import runpy
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
MISSING_FILE = ROOT / "tests" / "api_missing.py"
COMMAND = "python tools/api_coverage.py --write-missing"
NAMESPACES = ("torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.linalg", "torch.special",
              "torch.fft", "torch.cuda", "torch.utils.data")
TODO = "TODO(issue 10): being added"

# Reasons given to newly missing names by --write-missing, first match wins; anything else gets TODO.
_JIT_IR = ("AliasDb Argument ArgumentSpec Block CallStack Code CompilationUnit CompleteArgumentSpec ConcreteModuleType "
           "ConcreteModuleTypeBuilder DeepCopyMemoTable ErrorReport ExecutionPlan FileCheck FunctionSchema Gradient "
           "Graph GraphExecutorState IODescriptor InferredType JITException LiteScriptModule LockingLogger Node "
           "NoopLogger OperatorInfo StaticModule Type Capsule TracingState Use Value AggregationType AVG SUM "
           "import_ir_module "
           "import_ir_module_from_buffer merge_type_from_type_comment parse_ir parse_schema parse_type_comment "
           "unify_type_list PyTorchFileReader PyTorchFileWriter ScriptModuleSerializer SerializationStorageContext "
           "DeserializationStorageContext").split()
_ANY = r".*"
RULES = (  # (namespace pattern, name pattern, reason)
    (_ANY, "(" + "|".join(_JIT_IR) + ")$", "TorchScript IR / C++ JIT internals (no TorchScript here)"),
    (_ANY, r"[A-Z]\w*Type$|Script\w+$", "TorchScript type or object (C++ JIT internals; no TorchScript here)"),
    ("torch$", r"(ModuleDict|ParameterDict|BufferDict)$", "TorchScript module container (ScriptModule internals)"),
    ("torch$", r"(fork|wait|Future)$", "torch.jit.fork/wait futures (TorchScript; compile issue)"),
    (_ANY, r"(Sym[A-Z]\w*|sym_\w+)$", "symbolic shapes belong to torch.compile's tracing (compile issue)"),
    (_ANY, r"(DispatchKey\w*|ExcludeDispatchKeyGuard|Tag)$", "C++ dispatcher internals (no ATen dispatcher here)"),
    (_ANY, r"(ThroughputBenchmark|Benchmark\w+)$", "C++ ThroughputBenchmark binding (no C++ here)"),
    (_ANY, r"(q_\w+|\w*quantiz\w*|dequantize|int_repr|qscheme|choose_qparams\w*|fused_moving_avg_obs_fake_quant"
           r"|quint\w+|qint\w+)$", "quantized tensors are not supported"),
    (_ANY, r"(cudnn|miopen|mkldnn|fbgemm|nnpack)_\w*$", "cuDNN/MIOpen/MKLDNN/FBGEMM backend-specific kernel"),
    (_ANY, r"(sparse_(csr|csc|bsr|bsc|compressed)_tensor|(c?col|crow|row)_indices(_copy)?|to_sparse_(csr|csc|bsr|bsc)"
           r"|is_sparse_csr|[dh]?smm|saddmm|sspaddmm|hspmm|resize_as_sparse_|sparse_resize\w*)$",
     "sparse compressed layouts (CSR/CSC/BSR/BSC) are not supported, only COO basics"),
    (_ANY, r"(batch_norm_(backward_\w+|gather_stats\w*|stats|elemt|update_stats)|native_\w+)$",
     "ATen kernel behind an nn.functional op (SyncBatchNorm, autograd internals)"),
    ("torch.Tensor$", r"(eig|lstsq|symeig|solve)$", "removed from torch (raises there since 2.0); torch.linalg has it"),
    ("torch.Tensor$", r"(volatile|reinforce|output_nr)$", "legacy Variable / autograd-engine internals"),
    ("torch.Tensor$", r"to_padded_tensor$", "nested tensors are not supported"),
    ("torch.linalg$", r"common_notes$", "docstring fragments of torch.linalg, not API"),
    ("torch$", r"cpp$", "torch.cpp: bindings of the C++ frontend's nn modules (no C++ frontend here)"),
    ("torch.utils.data$", r"(\w*DataPipe|DataChunk|functional_datapipe|guaranteed_datapipes_determinism"
                          r"|non_deterministic|argument_validation|runtime_validation\w*)$",
     "DataPipes (deprecated in torch, dropped by torchdata); not supported"),
    ("torch.cuda$", r"\w+Storage$", "legacy typed storages are not modelled (Tensor.untyped_storage is)"),
    ("torch.cuda$", r"(CUDAGraph|graph|graphs|graph_pool_handle|make_graphed_callables|is_current_stream_capturing)$",
     "CUDA graphs: XLA compiles whole programs instead (torch.compile)"),
    ("torch.cuda$", r"(caching_allocator_\w+|CUDAPluggableAllocator|MemPool|use_mem_pool|change_current_allocator"
                    r"|get_allocator_backend|memory_snapshot|\w*host_memory_stats\w*|GreenContext)$",
     "CUDA caching-allocator internals; XLA's allocator is not torch's"),
    ("torch.cuda$", r"(nccl|nvtx|jiterator|tunable|cudart|cudaStatus|CudaError|DeferredCudaCallError|check_error"
                    r"|current_blas_handle|current_solver_handle|get_gencode_flags|has_magma|ExternalStream"
                    r"|get_stream_from_external|get_sync_debug_mode|set_sync_debug_mode)$",
     "CUDA runtime/library binding (cuBLAS, NCCL, NVTX, jiterator); JAX drives the GPU"),
    ("torch.cuda$", r"(power_draw|temperature|clock_rate|utilization|list_gpu_processes|device_memory_used)$",
     "NVML device query; not exposed by JAX"),
)


def reason_for(label, name):
    for where, pattern, reason in RULES:
        if re.match(where, label) and re.match(pattern, name):
            return reason
    return TODO


def _module(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _names(label):
    """torch's public names of one namespace."""
    import torch

    from tests.test_nn_api import _public  # (what test_nn_api counts as public, typing helpers left out)

    if label == "torch.Tensor":
        return sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    mod = _module(label)
    names = getattr(mod, "__all__", None)
    return sorted(set(names) if names is not None else _public(mod))


def _ours(label):
    import facade

    if label == "torch.Tensor":
        return facade.Tensor
    return _module("facade" + label[len("torch"):])


def missing(label):
    """(torch's names, those facade lacks) for one namespace."""
    theirs, ours = _names(label), _ours(label)
    return theirs, [n for n in theirs if ours is None or not hasattr(ours, n)]


def _listed():
    """tests/api_missing.py's MISSING, read afresh (--write-missing rewrites it)."""
    return runpy.run_path(str(MISSING_FILE))["MISSING"] if MISSING_FILE.exists() else {}


def table():
    """The MISSING table: tests/api_missing.py, plus tests/test_nn_api.py's own for torch.nn and its functional."""
    from tests.test_nn_api import MISSING as NN

    ours = _listed()
    out = {label: dict(ours.get(label, {})) for label in NAMESPACES}
    for label in ("torch.nn", "torch.nn.functional"):
        out[label].update(NN.get(label[len("torch."):], {}))
    return out


def report(show_missing=False):
    listed = table()
    lines = [f"{'namespace':<22}{'here':>6} /{'torch':>6}{'':>9}  missing (not in MISSING)", "-" * 70]
    extra = []
    for label in NAMESPACES:
        theirs, lack = missing(label)
        unlisted = [n for n in lack if n not in listed[label]]
        have = len(theirs) - len(lack)
        pct = 100.0 * have / len(theirs) if theirs else 100.0
        lines.append(f"{label:<22}{have:>6} /{len(theirs):>6}{pct:>8.1f}%  {len(lack):>7} ({len(unlisted)})")
        if unlisted:
            extra.append(f"{label}: missing without a reason in tests/api_missing.py: {' '.join(unlisted)}")
        if show_missing and lack:
            extra.append(f"\n{label} missing ({len(lack)}):")
            extra += [f"  {n:<40} {listed[label].get(n, '(no reason listed)')}" for n in lack]
    todo = sum(r.startswith("TODO") for t in listed.values() for r in t.values())
    lines.append(f"\nMISSING entries still marked TODO: {todo}")
    return "\n".join(lines + extra)


def write_missing():
    """Rewrite tests/api_missing.py to what is missing now (test_nn_api's names stay in test_nn_api)."""
    from tests.test_nn_api import MISSING as NN

    listed, out = _listed(), {}
    for label in NAMESPACES:
        old = listed.get(label, {})
        nn = NN.get(label[len("torch."):], {}) if label in ("torch.nn", "torch.nn.functional") else {}
        _, lack = missing(label)
        keep = {n: r for n, r in old.items() if not r.startswith("TODO")}  # a TODO may now match a rule
        out[label] = {n: keep.get(n) or reason_for(label, n) for n in lack if n not in nn}
    MISSING_FILE.write_text(_render(out))
    return out


def _render(tables):
    """api_missing.py's text: per namespace, its names grouped by reason, one `dict.fromkeys` per reason."""
    head = ('"""torch names facade deliberately lacks, by namespace (tools/api_coverage.py labels), each group with '
            'its one-line\nreason. tests/test_api_coverage.py fails on a missing name not listed here and on a '
            'listed name that\nexists now. Regenerate with `python tools/api_coverage.py --write-missing` '
            '(reasons kept, new names TODO).\ntorch.nn and torch.nn.functional list only what tests/test_nn_api.py '
            'does not."""\n\nMISSING = {\n')
    body = []
    for label, names in tables.items():
        body.append(f"    {json.dumps(label)}: {{\n")
        by_reason = {}
        for n in sorted(names):
            by_reason.setdefault(names[n], []).append(n)
        for reason in sorted(by_reason, key=lambda r: (r.startswith("TODO"), r)):
            body += ["        **dict.fromkeys([\n", *_rows(by_reason[reason]), f"        ], {json.dumps(reason)}),\n"]
        body.append("    },\n")
    return head + "".join(body) + "}\n"


def _rows(names, indent=" " * 12, width=118):
    rows, row = [], []
    for item in map(json.dumps, names):
        if row and len(indent + ", ".join([*row, item]) + ",") > width:
            rows.append(row)
            row = []
        row.append(item)
    return [f"{indent}{', '.join(r)},\n" for r in rows + [row] if r]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--missing", action="store_true", help="list every missing name with its reason")
    ap.add_argument("--write-missing", action="store_true", help="rewrite tests/api_missing.py")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.write_missing:
        out = write_missing()
        print(f"wrote {MISSING_FILE.relative_to(ROOT)}: {sum(map(len, out.values()))} names")
    print(report(args.missing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
