"""The zip container of torch.save files, laid out byte for byte as PyTorch's writer (miniz) lays it.

Records are stored uncompressed, each payload starts at a multiple of 64 bytes (the padding is an
"FB" extra field of Z bytes), non-empty records carry a data descriptor after the payload, and the
archive always ends with a zip64 end-of-central-directory record. Real torch's mmap loader computes
storage offsets from exactly this layout, so it matters beyond being readable by any zip tool.
"""

from __future__ import annotations

import struct
import threading
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor

import numpy as np

ALIGNMENT = 64
_PARALLEL_CRC = 1 << 20
_LIM = 0xFFFFFFFF  # from this on a size or offset goes in zip64 fields (miniz's MZ_UINT32_MAX test)
_MARK = 0xFFFFFFFF  # what the 32-bit field then holds


def _field(v):
    return v if v < _LIM else _MARK
_CORRUPT = (". This is an internal miniz error. If you are seeing this error, there is a high likelihood that your "
            "checkpoint file is corrupted. This can happen if the checkpoint was not saved properly, was transferred "
            "incorrectly, or the file was modified after saving.")


class ZipWriter:
    """Appends records to a binary stream; `close()` writes the central directory."""

    def __init__(self, f, prefix: str):
        self.f, self.prefix, self.pos, self.entries = f, prefix, 0, []

    def _write(self, b):
        self.f.write(b)
        self.pos += len(b)

    def write_record(self, name: str, data) -> None:
        data = memoryview(data.encode() if isinstance(data, str) else data).cast("B")
        n = data.nbytes
        fname = f"{self.prefix}/{name}".encode()
        offset = self.pos
        big_size, big_offset = n >= _LIM, offset >= _LIM
        z64 = b""
        if big_size or big_offset:
            fields = ((n, n) if big_size else ()) + ((offset,) if big_offset else ())
            z64 = struct.pack(f"<HH{len(fields)}Q", 1, 8 * len(fields), *fields)
        start = offset + 30 + len(fname) + 4 + len(z64)
        pad = -start % ALIGNMENT
        extra = z64 + b"FB" + struct.pack("<H", pad) + b"Z" * pad
        flags = 0x0808 if n else 0x0800  # UTF-8 names; sizes and CRC in a data descriptor after the payload
        local_size = _MARK if z64 else 0
        self._write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 0, flags, 0, 0, 0, 0, local_size, local_size,
                                len(fname), len(extra)) + fname + extra)
        if n >= _PARALLEL_CRC:  # zlib and the write both release the GIL: checksum while the bytes go out
            box = []
            th = threading.Thread(target=lambda: box.append(zlib.crc32(data)))
            th.start()
            self._write(data)
            th.join()
            crc = box[0]
        else:
            crc = zlib.crc32(data)
            if n:
                self._write(data)
        if n:
            self._write(struct.pack("<IIQQ", 0x08074B50, crc, n, n) if z64 else
                        struct.pack("<IIII", 0x08074B50, crc, n, n))
        self.entries.append((fname, flags, crc, n, offset))

    def close(self) -> None:
        cd_offset = self.pos
        for fname, flags, crc, n, offset in self.entries:
            big_size, big_offset = n >= _LIM, offset >= _LIM
            fields = ((n, n) if big_size else ()) + ((offset,) if big_offset else ())
            extra = struct.pack(f"<HH{len(fields)}Q", 1, 8 * len(fields), *fields) if fields else b""
            version = 45 if fields else 0
            self._write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, version, version, flags, 0, 0, 0, crc,
                                    _field(n), _field(n), len(fname), len(extra), 0, 0, 0, 0,
                                    _field(offset)) + fname + extra)
        cd_size, count = self.pos - cd_offset, len(self.entries)
        eocd64 = self.pos
        self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, count, count, cd_size, cd_offset))
        self._write(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, 0xFFFF), min(count, 0xFFFF),
                                _field(cd_size), _field(cd_offset), 0))


def aligned_empty(nbytes: int) -> np.ndarray:
    """A uint8 buffer whose data starts on a 64-byte boundary (JAX's CPU client then aliases it, no copy)."""
    raw = np.empty(nbytes + ALIGNMENT, np.uint8)
    off = -raw.ctypes.data % ALIGNMENT
    return raw[off:off + nbytes]


class ZipReader:
    """Records of a torch.save archive, found by their name below the archive's one top-level folder."""

    def __init__(self, f, name: str):
        self.f, self.name = f, name
        try:
            self.zf = zipfile.ZipFile(f)
            infos = self.zf.infolist()
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, struct.error) as e:
            reason = "failed finding central directory" if "not a zip file" in str(e) else str(e)
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: {reason} ({name} is truncated or "
                               f"not a complete torch.save archive){_CORRUPT}") from None
        if not infos:
            raise RuntimeError(f"PytorchStreamReader failed reading zip archive: the archive {name} is empty{_CORRUPT}")
        self.prefix = infos[0].filename.split("/")[0] + "/"
        self.records = {i.filename[len(self.prefix):]: i for i in infos if i.filename.startswith(self.prefix)}

    def has_record(self, name: str) -> bool:
        return name in self.records

    def _info(self, name):
        info = self.records.get(name)
        if info is None:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found{_CORRUPT}")
        return info

    def get_record(self, name: str) -> bytes:
        info = self._info(name)
        try:
            return self.zf.read(info)
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, struct.error) as e:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: {e}{_CORRUPT}") from None

    def record_size(self, name: str) -> int:
        return self._info(name).file_size

    def data_offset(self, name: str) -> int | None:
        """Where the stored bytes of `name` start in the file (None for a compressed record)."""
        info = self._info(name)
        if info.compress_type != zipfile.ZIP_STORED:
            return None
        self.f.seek(info.header_offset)
        h = self.f.read(30)
        if len(h) != 30 or h[:4] != b"PK\x03\x04":
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: invalid header or archive is "
                               f"corrupted{_CORRUPT}")
        nlen, elen = struct.unpack("<HH", h[26:30])
        return info.header_offset + 30 + nlen + elen

    def read_into(self, name: str, out: np.ndarray, crc: CrcCheck | None = None) -> None:
        """Fill the uint8 buffer `out` with record `name` (same size), and have `crc` check its CRC-32."""
        info = self._info(name)
        off = self.data_offset(name)
        if off is None:
            out[:] = np.frombuffer(self.get_record(name), np.uint8)
            return
        self.f.seek(off)
        got = _readinto(self.f, memoryview(out))
        if got != out.nbytes:
            raise RuntimeError(f"PytorchStreamReader failed reading file {name}: the file ends {out.nbytes - got} "
                               f"bytes into the record (truncated checkpoint){_CORRUPT}")
        if crc is not None:
            crc.submit(name, info.CRC, out)


class CrcCheck:
    """Checks records' CRC-32 on a worker thread (zlib releases the GIL) while the load goes on; `verify()`
    raises for the first mismatch. A CRC of 0 is not checked: torch writes 0 when told not to compute it."""

    def __init__(self):
        self.pool, self.pending = None, []

    def submit(self, name, want, buf):
        if not want:
            return
        if buf.nbytes < _PARALLEL_CRC:  # not worth a hand-over to the thread
            if zlib.crc32(buf) != want:
                raise RuntimeError(self.message(name))
            return
        if self.pool is None:
            self.pool = ThreadPoolExecutor(1)
        self.pending.append((name, want, self.pool.submit(zlib.crc32, buf)))

    def verify(self):
        try:
            for name, want, got in self.pending:
                if got.result() != want:
                    raise RuntimeError(self.message(name))
        finally:
            self.close()

    @staticmethod
    def message(name):
        return (f"PytorchStreamReader failed reading file {name}: CRC-32 mismatch, the stored bytes were modified "
                f"after saving{_CORRUPT}")

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def _readinto(f, mv) -> int:
    if hasattr(f, "readinto"):
        done = 0
        while done < mv.nbytes:
            k = f.readinto(mv[done:])
            if not k:
                break
            done += k
        return done
    b = f.read(mv.nbytes)
    mv[:len(b)] = b
    return len(b)


def is_zipfile(f) -> bool:
    """torch's test: the stream starts with a local file header."""
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    return head == b"PK\x03\x04"
