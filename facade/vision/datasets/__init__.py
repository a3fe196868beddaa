"""torchvision.datasets for facade: MNIST, FashionMNIST, KMNIST, CIFAR10, CIFAR100, DatasetFolder,
ImageFolder and FakeData, read from torchvision's on-disk layouts under `root`.

The other torchvision datasets are importable and raise NotImplementedError when constructed.
Dataset code uses numpy and PIL (and only host-mode facade ops), so it runs in DataLoader workers.
"""

from ..._unsupported import unsupported, unsupported_class
from .cifar import CIFAR10, CIFAR100
from .fakedata import FakeData
from .folder import DatasetFolder, ImageFolder
from .mnist import KMNIST, MNIST, FashionMNIST
from .vision import VisionDataset

_OWNER = "facade's torchvision.datasets provides MNIST, FashionMNIST, KMNIST, CIFAR10, CIFAR100, ImageFolder, " \
         "DatasetFolder and FakeData"

# torchvision 0.28's other datasets
_NOT_PROVIDED = (
    "LSUN", "LSUNClass", "CocoCaptions", "CocoDetection", "EMNIST", "QMNIST", "MovingMNIST", "StanfordCars", "STL10",
    "SUN397", "SVHN", "PhotoTour", "SEMEION", "Omniglot", "SBU", "Flickr8k", "Flickr30k", "Flowers102",
    "VOCSegmentation", "VOCDetection", "Cityscapes", "ImageNet", "Caltech101", "Caltech256", "CelebA", "WIDERFace",
    "SBDataset", "USPS", "Kinetics", "HMDB51", "UCF101", "Places365", "Kitti", "INaturalist", "LFWPeople",
    "LFWPairs", "KittiFlow", "Sintel", "FlyingChairs", "FlyingThings3D", "HD1K", "Food101", "DTD", "FER2013",
    "GTSRB", "CLEVRClassification", "OxfordIIITPet", "PCAM", "Country211", "FGVCAircraft", "EuroSAT",
    "RenderedSST2", "Kitti2012Stereo", "Kitti2015Stereo", "CarlaStereo", "Middlebury2014Stereo", "CREStereo",
    "FallingThingsStereo", "SceneFlowStereo", "SintelStereo", "InStereo2k", "ETH3DStereo", "Imagenette",
)
globals().update({name: unsupported_class(f"torchvision.datasets.{name}", _OWNER, (VisionDataset,))
                  for name in _NOT_PROVIDED})
wrap_dataset_for_transforms_v2 = unsupported("torchvision.datasets.wrap_dataset_for_transforms_v2", _OWNER)
for _name in (*_NOT_PROVIDED, "wrap_dataset_for_transforms_v2"):
    globals()[_name].__module__ = __name__  # (_unsupported names modules after torch, not torchvision)

__all__ = ["VisionDataset", "MNIST", "FashionMNIST", "KMNIST", "CIFAR10", "CIFAR100", "DatasetFolder",
           "ImageFolder", "FakeData", *_NOT_PROVIDED, "wrap_dataset_for_transforms_v2"]
