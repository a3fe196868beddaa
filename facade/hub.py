"""torch.hub's checkpoint cache: `load_state_dict_from_url`, `download_url_to_file`, `get_dir` / `set_dir`.

Any URL urllib opens works (`file://` included); a file already in the cache is loaded without a download.
(`torch.hub.load` of GitHub repositories, which runs a repo's hubconf.py, is not provided.)
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import uuid
import warnings
import zipfile

from tqdm import tqdm  # torch.hub re-exports it; scripts do `from torch.hub import tqdm`

__all__ = ["get_dir", "set_dir", "download_url_to_file", "load_state_dict_from_url", "tqdm"]

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
READ_DATA_CHUNK = 128 * 1024
_hub_dir: str | None = None


def _get_torch_home() -> str:
    return os.path.expanduser(os.getenv(ENV_TORCH_HOME, os.path.join(
        os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")))


def get_dir() -> str:
    """The hub cache directory: set_dir's, else $TORCH_HOME/hub ($TORCH_HOME defaults to $XDG_CACHE_HOME/torch,
    $XDG_CACHE_HOME to ~/.cache)."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d: str | os.PathLike) -> None:
    """Use `d` as the hub cache directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Copy the object at `url` to `dst` via a temporary file beside it (a broken download never replaces a
    good file); with `hash_prefix`, the SHA-256 of the bytes must start with it."""
    from urllib.request import Request, urlopen

    dst = os.path.expanduser(dst)
    tmp = f"{dst}.{uuid.uuid4().hex}.partial"
    sha256 = hashlib.sha256() if hash_prefix is not None else None
    try:
        with open(tmp, "w+b") as f, urlopen(Request(url, headers={"User-Agent": "torch.hub"})) as u:
            while True:
                buffer = u.read(READ_DATA_CHUNK)
                if not buffer:
                    break
                f.write(buffer)
                if sha256 is not None:
                    sha256.update(buffer)
        if sha256 is not None:
            digest = sha256.hexdigest()
            if digest[:len(hash_prefix)] != hash_prefix:
                raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(tmp, dst)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _is_legacy_zip_format(filename: str) -> bool:
    if zipfile.is_zipfile(filename):
        with zipfile.ZipFile(filename) as zf:
            infolist = zf.infolist()
        return len(infolist) == 1 and not infolist[0].is_dir()
    return False


def _legacy_zip_load(filename, model_dir, map_location, weights_only):
    warnings.warn("Falling back to the old format < 1.6. This support will be deprecated in favor of default zipfile "
                  "format introduced in 1.6. Please redo torch.save() to save it in the new zipfile format.",
                  FutureWarning, stacklevel=3)
    with zipfile.ZipFile(filename) as f:
        (member,) = f.infolist()
        target = os.path.realpath(model_dir)
        out = os.path.realpath(os.path.join(target, member.filename))
        if os.path.isabs(member.filename) or not out.startswith(target + os.sep):
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
        f.extract(member, target)
    from .serialization import load

    return load(out, map_location=map_location, weights_only=weights_only)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None, progress: bool = True,
                             check_hash: bool = False, file_name: str | None = None, weights_only: bool = False):
    """torch.load of the object at `url`, cached in `model_dir` (default `<hub_dir>/checkpoints`) under the URL's
    file name (or `file_name`). check_hash: the name's `-<sha256 prefix>.` part must match the bytes."""
    from urllib.parse import urlparse

    from .serialization import load

    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name if file_name is not None else os.path.basename(urlparse(url).path)
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    if _is_legacy_zip_format(cached_file):
        return _legacy_zip_load(cached_file, model_dir, map_location, weights_only)
    return load(cached_file, map_location=map_location, weights_only=weights_only)
