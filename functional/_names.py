"""torch's names of dtypes, as its error messages spell them: the scalar type (`Float`, `Long`) and the C++ type
(`float`, `long int`)."""

import jax.numpy as jnp
import numpy as np

__all__ = ["scalar_name", "cpp_name"]

_ROWS = [("bool", "Bool", "bool"), ("uint8", "Byte", "unsigned char"), ("int8", "Char", "signed char"),
         ("int16", "Short", "short int"), ("int32", "Int", "int"), ("int64", "Long", "long int"),
         ("float16", "Half", "c10::Half"), (jnp.bfloat16, "BFloat16", "c10::BFloat16"), ("float32", "Float", "float"),
         ("float64", "Double", "double"), ("complex64", "ComplexFloat", "c10::complex<float>"),
         ("complex128", "ComplexDouble", "c10::complex<double>")]
_SCALAR = {np.dtype(k): s for k, s, _ in _ROWS}
_CPP = {np.dtype(k): c for k, _, c in _ROWS}


def scalar_name(dtype):
    """`Float` for float32 (any dtype numpy understands)."""
    return _SCALAR[np.dtype(dtype)]


def cpp_name(dtype):
    """`float` for float32, `long int` for int64, `c10::Half` for float16."""
    return _CPP[np.dtype(dtype)]
