"""torch names facade deliberately lacks, by namespace (tools/api_coverage.py labels), each group with its one-line
reason. tests/test_api_coverage.py fails on a missing name not listed here and on a listed name that
exists now. Regenerate with `python tools/api_coverage.py --write-missing` (reasons kept, new names TODO).
torch.nn and torch.nn.functional list only what tests/test_nn_api.py does not."""

MISSING = {
    "torch": {
        **dict.fromkeys([
            "BenchmarkConfig", "BenchmarkExecutionStats", "ThroughputBenchmark",
        ], "C++ ThroughputBenchmark binding (torch.utils.throughput_benchmark)"),
        **dict.fromkeys([
            "DispatchKey", "DispatchKeySet", "ExcludeDispatchKeyGuard", "Tag",
        ], "C++ dispatcher internals; there is no ATen dispatcher here"),
        **dict.fromkeys([
            "Capsule", "Type",
        ], "TorchScript IR / C++ JIT internals (no TorchScript here)"),
        **dict.fromkeys([
            "AVG", "AggregationType", "AliasDb", "Argument", "ArgumentSpec", "Block", "CallStack", "Code",
            "CompilationUnit", "CompleteArgumentSpec", "ConcreteModuleType", "ConcreteModuleTypeBuilder",
            "DeepCopyMemoTable", "DeserializationStorageContext", "ErrorReport", "ExecutionPlan", "FileCheck",
            "FunctionSchema", "Gradient", "Graph", "GraphExecutorState", "IODescriptor", "InferredType",
            "JITException", "LiteScriptModule", "LockingLogger", "Node", "NoopLogger", "OperatorInfo",
            "PyTorchFileReader", "PyTorchFileWriter", "SUM", "ScriptModuleSerializer", "SerializationStorageContext",
            "StaticModule", "TracingState", "Use", "Value", "import_ir_module", "import_ir_module_from_buffer",
            "merge_type_from_type_comment", "parse_ir", "parse_schema", "parse_type_comment", "unify_type_list",
        ], "TorchScript IR / C++ JIT internals (torch._C binding; no TorchScript here)"),
        **dict.fromkeys([
            "BufferDict", "ModuleDict", "ParameterDict",
        ], "TorchScript module container (torch._C ScriptModule internals)"),
        **dict.fromkeys([
            "AnyType", "AwaitType", "BoolType", "ClassType", "ComplexType", "DeviceObjType", "DictType", "EnumType",
            "FloatType", "FutureType", "IntType", "InterfaceType", "ListType", "NoneType", "NumberType",
            "OptionalType", "PyObjectType", "RRefType", "ScriptClass", "ScriptClassFunction", "ScriptDict",
            "ScriptDictIterator", "ScriptDictKeyIterator", "ScriptFunction", "ScriptList", "ScriptListIterator",
            "ScriptMethod", "ScriptModule", "ScriptObject", "ScriptObjectProperty", "StreamObjType", "StringType",
            "SymBoolType", "SymIntType", "TensorType", "TupleType", "UnionType",
        ], "TorchScript type or object (C++ JIT internals; no TorchScript here)"),
        **dict.fromkeys([
            "FatalError",
        ], "TorchScript's C++ exception type (no TorchScript here)"),
        **dict.fromkeys([
            "cudnn_affine_grid_generator", "cudnn_batch_norm", "cudnn_convolution", "cudnn_convolution_add_relu",
            "cudnn_convolution_relu", "cudnn_convolution_transpose", "cudnn_grid_sampler",
            "fbgemm_linear_fp16_weight", "fbgemm_linear_fp16_weight_fp32_activation", "fbgemm_linear_int8_weight",
            "fbgemm_linear_int8_weight_fp32_activation", "fbgemm_pack_gemm_matrix_fp16", "miopen_batch_norm",
            "miopen_convolution", "miopen_convolution_add_relu", "miopen_convolution_relu",
            "miopen_convolution_transpose", "miopen_ctc_loss", "miopen_depthwise_convolution", "miopen_rnn",
            "mkldnn_adaptive_avg_pool2d", "mkldnn_convolution", "mkldnn_linear_backward_weights", "mkldnn_max_pool2d",
            "mkldnn_max_pool3d", "mkldnn_rnn_layer",
        ], "cuDNN/MIOpen/MKLDNN/FBGEMM/vendor backend-specific kernel or flag"),
        **dict.fromkeys([
            "lobpcg",
        ], "not yet: a sparse iterative eigensolver, rarely used by scripts"),
        **dict.fromkeys([
            "fbgemm_linear_quantize_weight", "fbgemm_pack_quantized_matrix", "fused_moving_avg_obs_fake_quant",
            "quantized_gru_cell", "quantized_lstm_cell", "quantized_rnn_relu_cell", "quantized_rnn_tanh_cell",
        ], "quantized tensors are not supported"),
        **dict.fromkeys([
            "embedding_bag",
        ], "the ATen 4-tuple (offset2bag, bag_size, max_indices) differs by backend in torch; F.embedding_bag works"),
        **dict.fromkeys([
            "cpp",
        ], "torch.cpp: bindings of the C++ frontend's nn modules (no C++ frontend here)"),
        **dict.fromkeys([
            "resize_as_sparse_",
        ], "torch.resize_as_sparse_ (function form) is not provided; Tensor.resize_as_sparse_ is"),
    },
    "torch.Tensor": {
        **dict.fromkeys([
            "chalf",
        ], "JAX has no complex32 arrays (the torch.chalf dtype object exists)"),
        **dict.fromkeys([
            "index",
        ], "first-class dimensions (functorch.dim) are not supported"),
        **dict.fromkeys([
            "to_padded_tensor",
        ], "nested tensors are not supported"),
        **dict.fromkeys([
            "to_mkldnn",
        ], "the MKLDNN tensor layout is not modelled (XLA picks layouts itself)"),
    },
    "torch.nn": {
    },
    "torch.nn.functional": {
    },
    "torch.linalg": {
        **dict.fromkeys([
            "ldl_factor", "ldl_factor_ex", "ldl_solve",
        ], "LAPACK's Bunch-Kaufman pivoting (sytrf) has no JAX counterpart yet"),
        **dict.fromkeys([
            "common_notes",
        ], "docstring fragments of torch.linalg, not API"),
    },
    "torch.special": {
    },
    "torch.fft": {
    },
    "torch.cuda": {
        **dict.fromkeys([
            "CUDAPluggableAllocator", "GreenContext", "MemPool", "caching_allocator_alloc",
            "caching_allocator_delete", "caching_allocator_disabled", "caching_allocator_enable",
            "change_current_allocator", "get_allocator_backend", "host_memory_stats",
            "host_memory_stats_as_nested_dict", "memory_snapshot", "reset_accumulated_host_memory_stats",
            "reset_peak_host_memory_stats", "use_mem_pool",
        ], "CUDA caching-allocator internals; XLA's allocator is not torch's"),
        **dict.fromkeys([
            "can_device_access_peer", "default_generators", "get_per_process_memory_fraction", "has_half", "memory",
            "memory_stats_as_nested_dict", "memory_usage", "profiler", "random", "reset_max_memory_cached",
            "set_per_process_memory_fraction", "sparse",
        ], "CUDA runtime internals with no JAX counterpart (XLA sets memory fraction at start-up; one generator)"),
        **dict.fromkeys([
            "CudaError", "DeferredCudaCallError", "ExternalStream", "check_error", "cudaStatus", "cudart",
            "current_blas_handle", "current_solver_handle", "get_gencode_flags", "get_stream_from_external",
            "get_sync_debug_mode", "has_magma", "jiterator", "nccl", "nvtx", "set_sync_debug_mode", "tunable",
        ], "CUDA runtime/library binding (cuBLAS, NCCL, NVTX, jiterator); JAX drives the GPU"),
        **dict.fromkeys([
            "clock_rate", "device_memory_used", "list_gpu_processes", "power_draw", "temperature", "utilization",
        ], "NVML device query; not exposed by JAX"),
        **dict.fromkeys([
            "BFloat16Storage", "BoolStorage", "ByteStorage", "CharStorage", "ComplexDoubleStorage",
            "ComplexFloatStorage", "DoubleStorage", "FloatStorage", "HalfStorage", "IntStorage", "LongStorage",
            "ShortStorage",
        ], "legacy typed storages are not modelled (Tensor.untyped_storage is)"),
    },
    "torch.utils.data": {
        **dict.fromkeys([
            "DFIterDataPipe", "DataChunk", "IterDataPipe", "MapDataPipe", "argument_validation",
            "functional_datapipe", "guaranteed_datapipes_determinism", "non_deterministic", "runtime_validation",
            "runtime_validation_disabled",
        ], "DataPipes (deprecated in torch, dropped by torchdata); not supported"),
    },
}
