"""State on a device other than the generators': a GPU stood in for by XLA's second simulated CPU device.

On a GPU machine the model lives on `cuda` while facade's generators keep their keys on the CPU; a compiled step
that draws dropout masks must run where its state is (the first GPU run of bench_compile failed every compiled
variant with JAX's "Received incompatible devices for jitted computation"). Here `facade.cuda` is pointed at the
second of two simulated CPU devices, in a child process, and the compiled steps on that "cuda" must give the bits
they give on the CPU.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap

from tests import _simulated

SCRIPT = textwrap.dedent('''
    import json
    import jax
    import facade._device as D
    import facade.cuda

    second = jax.devices("cpu")[1]

    def of_array(a):
        try:
            (d,) = a.devices()
        except Exception:
            return D.CPU
        return D.device("cuda", 0) if d == second else D.CPU

    D.gpus = facade.cuda.gpus = lambda: [second]
    D.of_array = of_array
    import facade as torch
    import facade.nn as nn

    def train(device, whole_step):
        torch.manual_seed(0)
        m = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 4)).to(device)
        opt = torch.optim.Adam(m.parameters(), lr=0.01)
        x = torch.randn(5, 8).to(device)
        fwd = m if whole_step else torch.compile(m)

        def step():
            opt.zero_grad()
            loss = fwd(x).square().mean()
            loss.backward()
            opt.step()
            return loss

        step = torch.compile(step) if whole_step else step
        losses = [step().item() for _ in range(4)]
        return {"losses": losses, "params": [p.tolist() for p in m.parameters()],
                "devices": sorted({str(p.device) for p in m.parameters()})}

    print(json.dumps({f"{d} {w}": train(d, w) for d in ("cpu", "cuda") for w in (False, True)}))
''')


def test_compiled_steps_with_dropout_run_where_the_state_is():
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2", "JAX_PLATFORMS": "cpu"}
    rc, out, err = _simulated.run([sys.executable, "-c", SCRIPT], env=env, timeout=300)
    assert rc == 0, err[-3000:]
    runs = json.loads(out.strip().splitlines()[-1])
    for whole_step in (False, True):
        cpu, cuda = runs[f"cpu {whole_step}"], runs[f"cuda {whole_step}"]
        assert cpu["devices"] == ["cpu"] and cuda["devices"] == ["cuda:0"]
        assert cuda["losses"] == cpu["losses"] and cuda["params"] == cpu["params"]
        assert len(set(cpu["losses"])) == 4
