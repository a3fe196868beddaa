"""Real torchvision as the oracle of the torchvision tests.

The torchvision wheel that matches torch 2.13 (0.28.0) is a CUDA build whose C++ extension does not load
over the CPU build of torch installed here; its import then stops at registering fake kernels for the
missing C++ operators (`torchvision::nms`). Everything the tests compare against (transforms, datasets,
models, utils, io's Python side) is Python over torch, so the import skips those registrations.
"""

from __future__ import annotations

import torch.library

_register_fake = torch.library.register_fake
torch.library.register_fake = lambda *args, **kwargs: (lambda fn: fn)
try:
    import torchvision  # noqa: F401
    import torchvision.datasets  # noqa: F401
    import torchvision.models  # noqa: F401
    import torchvision.transforms  # noqa: F401
    import torchvision.transforms.v2  # noqa: F401
    import torchvision.utils  # noqa: F401
finally:
    torch.library.register_fake = _register_fake

tv = torchvision
