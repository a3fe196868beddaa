"""torchvision.datasets.utils: integrity checks, downloads and archive extraction for the datasets.

A download that cannot reach its server fails with a RuntimeError that names the files to place
under `root` by hand, and where (see `_missing_files_message`); nothing half-written is left behind.
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import pathlib
import tarfile
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterable
from typing import Union

__all__ = ["calculate_md5", "check_md5", "check_integrity", "download_url", "download_and_extract_archive",
           "extract_archive", "list_dir", "list_files", "iterable_to_str", "verify_str_arg"]

USER_AGENT = "pytorch/vision"
_Path = Union[str, pathlib.Path]


def calculate_md5(fpath: _Path, chunk_size: int = 1024 * 1024) -> str:
    md5 = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        while chunk := f.read(chunk_size):
            md5.update(chunk)
    return md5.hexdigest()


def check_md5(fpath: _Path, md5: str, **kwargs) -> bool:
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath: _Path, md5: str | None = None) -> bool:
    """Whether `fpath` is a file and, when `md5` is given, has that checksum."""
    return os.path.isfile(fpath) and (md5 is None or check_md5(fpath, md5))


def _urlretrieve(url: str, fpath: str, chunk_size: int = 1024 * 32) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request, timeout=60) as response:
        partial = fpath + ".partial"
        with open(partial, "wb") as fh:
            while chunk := response.read(chunk_size):
                fh.write(chunk)
    os.replace(partial, fpath)


def download_url(url: str, root: _Path, filename: _Path | None = None, md5: str | None = None,
                 max_redirect_hops: int = 3) -> None:
    """Download `url` to root/filename unless a file with that md5 is there already. A network failure
    raises urllib's URLError (or OSError), as torchvision's does."""
    root = os.path.expanduser(root)
    fpath = os.fspath(os.path.join(root, filename or os.path.basename(url)))
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        return
    try:
        _urlretrieve(url, fpath)
    except (urllib.error.URLError, OSError):
        if not url.startswith("https:"):
            raise
        _urlretrieve(url.replace("https:", "http:", 1), fpath)
    if not check_integrity(fpath, md5):
        raise RuntimeError("File not found or corrupted.")


def _missing_files_message(dataset: str, folder: _Path, files: Iterable[str], note: str = "") -> str:
    """The hint of a failed download: which files to place where, so the dataset loads without a network."""
    names = ", ".join(files)
    return (f"{dataset}: the download failed (no network?). To use {dataset} without downloading, place "
            f"these files in '{os.fspath(folder)}'{note}: {names}; then pass download=False.")


_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
_ALIASES = {".tgz": (".tar", ".gz"), ".tbz": (".tar", ".bz2"), ".tbz2": (".tar", ".bz2")}


def _detect_file_type(file: _Path) -> tuple[str, str | None, str | None]:
    """(suffix, archive type, compression) of a file name, e.g. ('.tar.gz', '.tar', '.gz')."""
    suffixes = pathlib.Path(file).suffixes
    if not suffixes:
        raise RuntimeError(f"File '{file}' has no suffixes that could be used to detect the archive type and "
                           "compression.")
    suffix = suffixes[-1]
    if suffix in _ALIASES:
        return (suffix, *_ALIASES[suffix])
    if suffix in (".tar", ".zip"):
        return suffix, suffix, None
    if suffix in _OPENERS:
        if len(suffixes) > 1 and suffixes[-2] in (".tar", ".zip"):
            return suffixes[-2] + suffix, suffixes[-2], suffix
        return suffix, None, suffix
    valid = sorted({*_ALIASES, ".tar", ".zip", *_OPENERS})
    raise RuntimeError(f"Unknown compression or archive type: '{suffix}'.\nKnown suffixes are: '{valid}'.")


def extract_archive(from_path: _Path, to_path: _Path | None = None, remove_finished: bool = False) -> _Path:
    """Extract a .tar/.zip archive (possibly compressed) into `to_path`, or decompress a single
    .gz/.bz2/.xz file there; returns the folder (or, for a single file, the file) it wrote."""
    to_path = os.path.dirname(from_path) if to_path is None else to_path
    suffix, archive, compression = _detect_file_type(from_path)
    if archive is None:
        out = os.path.join(to_path, os.path.basename(from_path).replace(suffix, ""))
        with _OPENERS[compression](from_path, "rb") as rfh, open(out, "wb") as wfh:
            wfh.write(rfh.read())
    elif archive == ".tar":
        out = to_path
        with tarfile.open(from_path, f"r:{compression[1:]}" if compression else "r") as tar:
            tar.extractall(to_path, filter="data")
    else:
        out = to_path
        with zipfile.ZipFile(from_path) as archive_file:
            archive_file.extractall(to_path)
    if remove_finished:
        os.remove(from_path)
    return out if isinstance(from_path, str) else pathlib.Path(out)


def download_and_extract_archive(url: str, download_root: _Path, extract_root: _Path | None = None,
                                 filename: _Path | None = None, md5: str | None = None,
                                 remove_finished: bool = False) -> None:
    download_root = os.path.expanduser(download_root)
    filename = filename or os.path.basename(url)
    download_url(url, download_root, filename, md5)
    extract_archive(os.path.join(download_root, filename), extract_root or download_root, remove_finished)


def list_dir(root: _Path, prefix: bool = False) -> list[str]:
    root = os.path.expanduser(root)
    names = [p for p in os.listdir(root) if os.path.isdir(os.path.join(root, p))]
    return [os.path.join(root, p) for p in names] if prefix else names


def list_files(root: _Path, suffix, prefix: bool = False) -> list[str]:
    root = os.path.expanduser(root)
    names = [p for p in os.listdir(root) if os.path.isfile(os.path.join(root, p)) and p.endswith(suffix)]
    return [os.path.join(root, p) for p in names] if prefix else names


def iterable_to_str(iterable: Iterable) -> str:
    return "'" + "', '".join(str(item) for item in iterable) + "'"


def verify_str_arg(value, arg: str | None = None, valid_values: Iterable | None = None,
                   custom_msg: str | None = None):
    if not isinstance(value, str):
        where = "" if arg is None else f" for argument {arg}"
        raise ValueError(f"Expected type str{where}, but got type {type(value)}.")
    if valid_values is None or value in valid_values:
        return value
    raise ValueError(custom_msg or f"Unknown value '{value}' for argument {arg}. Valid values are "
                                   f"{{{iterable_to_str(valid_values)}}}.")
