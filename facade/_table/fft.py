"""Table rows for torch.fft (the transforms and shifts) and the torch-level stft/istft.

torch names a transform's autograd node by its kind: complex-to-complex (FftC2CBackward0),
real-to-complex (FftR2CBackward0), complex-to-real (FftC2RBackward0); ihfft* conjugate last.
Integer inputs become the default float dtype, as torch's.
"""

import functional.fft as FFT

from .._dispatch import Op

MODULE = "torch.fft"
_KIND = {"fft": "C2C", "ifft": "C2C", "rfft": "R2C", "irfft": "C2R", "hfft": "C2R", "ihfft": None}


def _transform(name):
    kind = _KIND[name.rstrip("n2")]
    grad = f"Fft{kind}Backward0" if kind else "ConjBackward0"
    return Op(name, getattr(FFT, name), promote="all", to_float=True, method=False, module=MODULE, grad_name=grad)


OPS = [
    *(_transform(p + s) for p in _KIND for s in ("", "2", "n")),
    Op("fftshift", FFT.fftshift, method=False, module=MODULE, grad_name="RollBackward0"),
    Op("ifftshift", FFT.ifftshift, method=False, module=MODULE, grad_name="RollBackward0"),
    Op("stft", FFT.stft, arrays=("input", "window"), promote="all", to_float=True, grad_name="StftBackward0"),
    Op("istft", FFT.istft, arrays=("input", "window"), grad_name="IstftBackward0"),
]
