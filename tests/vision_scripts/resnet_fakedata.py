"""ResNet-18 trained a few steps on FakeData, as a smoke test of a vision training setup."""
import torch
import torchvision
import torchvision.transforms as T

torch.manual_seed(0)
data = torchvision.datasets.FakeData(size=24, image_size=(3, 32, 32), num_classes=10,
                                     transform=T.Compose([T.RandomHorizontalFlip(), T.ToTensor(),
                                                          T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))]))
loader = torch.utils.data.DataLoader(data, batch_size=8, shuffle=True)
model = torchvision.models.resnet18(num_classes=10)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-4)
criterion = torch.nn.CrossEntropyLoss()
print("parameters", sum(p.numel() for p in model.parameters()))
for step, (images, labels) in enumerate(loader):
    optimizer.zero_grad()
    loss = criterion(model(images), labels)
    loss.backward()
    optimizer.step()
    print(f"step {step} loss_finite {bool(torch.isfinite(loss))} batch {tuple(images.shape)}")
model.eval()
with torch.no_grad():
    print("eval logits", tuple(model(images).shape))
