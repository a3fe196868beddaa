"""What stopped twenty public PyTorch training scripts (issue 10's list), each in one script run
unchanged under real torch and under `python -m facade`; both must print the same."""

from .test_runner import _both, assert_same_numbers

BLOCKERS = """
import io, pickle
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.parallel
import torch.onnx
from torch.hub import tqdm
from torch.nn.parallel import DistributedDataParallel

torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = True
print("tf32", torch.get_float32_matmul_precision() == "high")
torch.backends.cuda.matmul.allow_tf32 = False
print("threads", torch.get_num_threads() >= 1, torch.backends.mps.is_available())
print("dist", dist.is_initialized(), mp.get_start_method(allow_none=True) in (None, "fork", "spawn", "forkserver"))
print("xpu", torch.ones(2).is_xpu, torch.ones(2).is_cuda)
print("tqdm", sum(1 for _ in tqdm(range(3), disable=True)))

x = torch.arange(10.0)
print("range", x[range(3)].tolist(), x[range(1, 8, 3)].tolist())
x[range(2)] = -1.0
print("range write", x.tolist())

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.act = F.relu
        self.squash = torch.tanh

    def forward(self, x):
        return self.squash(self.act(self.fc(x)))

torch.manual_seed(0)
net = Net()
with torch.no_grad():
    net.fc.weight.copy_(torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]]))
    net.fc.bias.copy_(torch.tensor([0.1, -0.2]))
buf = io.BytesIO()
torch.save(net, buf)
buf.seek(0)
again = torch.load(buf, weights_only=False)
inp = torch.tensor([[1.0, 2.0, 3.0]])
print("saved module", again(inp).tolist(), again.act is F.relu)

model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=False):
    loss = model(inp).sum()
scaler.scale(loss).backward()
scaler.step(opt)
scaler.update()
print("scaler", scaler.is_enabled(), torch.lgamma(torch.tensor(4.5)).item())
"""


def test_blockers_of_public_scripts(tmp_path):
    ref, got = _both(tmp_path, BLOCKERS)
    assert_same_numbers(ref, got)
    assert got.count("\n") == 9  # every line printed
