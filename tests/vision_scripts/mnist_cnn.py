"""An MNIST CNN as public examples write it: ToTensor/Normalize, DataLoader, SGD, one epoch, test accuracy."""
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torchvision import datasets, transforms

root = sys.argv[1]
torch.manual_seed(0)
transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
train = datasets.MNIST(root, train=True, download=False, transform=transform)
test = datasets.MNIST(root, train=False, transform=transform)
train_loader = torch.utils.data.DataLoader(train, batch_size=32, shuffle=True)
test_loader = torch.utils.data.DataLoader(test, batch_size=64)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(16 * 12 * 12, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(self.dropout(x), 1)
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
for epoch in range(2):
    model.train()
    total = 0.0
    for data, target in train_loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(data), target)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(data)
    print(f"epoch {epoch} train_loss {total / len(train):.4f}")
model.eval()
correct = 0
with torch.no_grad():
    for data, target in test_loader:
        correct += model(data).argmax(dim=1).eq(target).sum().item()
print(f"samples {len(train)} {len(test)} classes {len(train.classes)} accuracy {correct / len(test):.3f}")
