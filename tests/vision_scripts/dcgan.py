"""A small DCGAN (generator of transposed convolutions, discriminator of strided convolutions) trained a few
steps on FakeData; saves a grid of generated images with torchvision.utils.save_image."""
import sys

import torch
import torch.nn as nn
import torchvision.datasets as dset
import torchvision.transforms as transforms
import torchvision.utils as vutils

out = sys.argv[1]
torch.manual_seed(0)
nz, ngf, ndf = 16, 8, 8
normalize = transforms.Normalize((0.5,) * 3, (0.5,) * 3)
dataset = dset.FakeData(size=32, image_size=(3, 16, 16),
                        transform=transforms.Compose([transforms.ToTensor(), normalize]))
loader = torch.utils.data.DataLoader(dataset, batch_size=8, shuffle=True)


def weights_init(m):
    if m.__class__.__name__.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif m.__class__.__name__.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


netG = nn.Sequential(
    nn.ConvTranspose2d(nz, ngf * 2, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),  # 4x4
    nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),  # 8x8
    nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())  # 16x16
netD = nn.Sequential(
    nn.Conv2d(3, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),  # 8x8
    nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),  # 4x4
    nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False), nn.Sigmoid())
netG.apply(weights_init)
netD.apply(weights_init)
criterion = nn.BCELoss()
fixed_noise = torch.randn(16, nz, 1, 1)
optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
for i, (real, _) in enumerate(loader):
    netD.zero_grad()
    b = real.size(0)
    label = torch.full((b,), 1.0)
    errD_real = criterion(netD(real).view(-1), label)
    errD_real.backward()
    fake = netG(torch.randn(b, nz, 1, 1))
    label.fill_(0.0)
    errD_fake = criterion(netD(fake.detach()).view(-1), label)
    errD_fake.backward()
    optD.step()
    netG.zero_grad()
    label.fill_(1.0)
    errG = criterion(netD(fake).view(-1), label)
    errG.backward()
    optG.step()
    print(f"step {i} losses_finite {bool(torch.isfinite(errD_real + errD_fake + errG))}")
with torch.no_grad():
    fake = netG(fixed_noise).detach()
vutils.save_image(fake, out, normalize=True, nrow=4)
print("grid", tuple(vutils.make_grid(fake, nrow=4).shape))
