"""Reads the configuration recorded in a sptune cost-model file.

The file format is written and checked by cost-model/lib/ModelFile.cpp: an
8-byte magic "SPTUNECM", the format version (u32), the feature
specification's hash (u64), the payload's length and checksum (u64 each),
then the payload: the file's kind (u32 length, bytes) and its sections
(u32 count; each a u32-length name and a u64-length body), all little-endian.
The "config" section is JSON (cost-model/lib/ModelConfig.cpp). Only what a
Python driver needs to know of a model is read here; loading one is the C++
tools' business.
"""

import json
import struct

MAGIC = b"SPTUNECM"
VERSION = 1  # kModelFormatVersion (cost-model/include/sptune/CostModel/ModelFile.h)
_HEADER = struct.Struct("<IQQQ")  # version, spec hash, payload length, checksum


def read_sections(path, kind=b"model"):
    """The sections of the model file at `path`, by name (bytes). Raises
    ValueError for a file that is not a sptune file of `kind` (a training
    checkpoint is another kind) or is cut short."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(MAGIC):
        raise ValueError(f"'{path}' is not a sptune cost model file (bad magic)")
    pos = len(MAGIC)
    if len(data) < pos + _HEADER.size:
        raise ValueError(f"'{path}' is cut short (no header)")
    version, _, length, _ = _HEADER.unpack_from(data, pos)
    pos += _HEADER.size
    if version != VERSION:
        raise ValueError(f"'{path}' has model format version {version}; this "
                         f"reader reads version {VERSION}")
    if len(data) - pos != length:
        raise ValueError(f"'{path}' is cut short or has trailing bytes")

    def take(fmt):
        nonlocal pos
        size = struct.calcsize(fmt)
        if len(data) - pos < size:
            raise ValueError(f"'{path}' is cut short")
        value = struct.unpack_from(fmt, data, pos)[0]
        pos += size
        return value

    def take_bytes(n):
        nonlocal pos
        if len(data) - pos < n:
            raise ValueError(f"'{path}' is cut short")
        out = data[pos:pos + n]
        pos += n
        return out

    found = take_bytes(take("<I"))
    if found != kind:
        raise ValueError(f"'{path}' is a {found.decode('utf-8', 'replace')} file, "
                         f"expected a {kind.decode()} file")
    sections = {}
    for _ in range(take("<I")):
        name = take_bytes(take("<I")).decode("utf-8", "replace")
        sections[name] = take_bytes(take("<Q"))
    return sections


def read_config(path):
    """The JSON "config" section of the model file at `path`, as a dict."""
    sections = read_sections(path)
    if "config" not in sections:
        raise ValueError(f"'{path}' has no config section")
    try:
        return json.loads(sections["config"])
    except json.JSONDecodeError as e:
        raise ValueError(f"'{path}': its config section is not JSON ({e})") from None


def shared_knobs(path):
    """The knobs the model's common features share across targets
    (`sptune-train --shared-knobs`), [] for a model without any."""
    knobs = read_config(path).get("shared_knobs", [])
    if not isinstance(knobs, list) or not all(isinstance(k, str) for k in knobs):
        raise ValueError(f"'{path}': its shared_knobs is not a list of names")
    return knobs
