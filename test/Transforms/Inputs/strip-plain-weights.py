"""Writes a model file without its plain_weights section, as sptune wrote
them before release mode scored without LibTorch (cost-model/lib/ModelFile.cpp
is the container: magic, u32 version, u64 spec hash, u64 payload length, u64
FNV-1a checksum over version, hash and payload; the payload holds the kind and
the named sections)."""
import struct
import sys

FNV_PRIME = 0x100000001b3
MASK = (1 << 64) - 1


def fnv1a64(data, h=0xcbf29ce484222325):
    for byte in data:
        h = ((h ^ byte) * FNV_PRIME) & MASK
    return h


def main(src, dst):
    data = open(src, "rb").read()
    assert data[:8] == b"SPTUNECM", "not a sptune model file"
    version, spec, _length, _checksum = struct.unpack_from("<IQQQ", data, 8)
    pos = 8 + 4 + 8 + 8 + 8
    (kind_len,) = struct.unpack_from("<I", data, pos)
    pos += 4
    kind = data[pos:pos + kind_len]
    pos += kind_len
    (count,) = struct.unpack_from("<I", data, pos)
    pos += 4
    sections = []
    for _ in range(count):
        (name_len,) = struct.unpack_from("<I", data, pos)
        pos += 4
        name = data[pos:pos + name_len]
        pos += name_len
        (size,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        sections.append((name, data[pos:pos + size]))
        pos += size
    kept = [(n, b) for n, b in sections if n != b"plain_weights"]
    assert len(kept) == len(sections) - 1, "no plain_weights section"
    payload = struct.pack("<I", len(kind)) + kind + struct.pack("<I", len(kept))
    for name, body in kept:
        payload += struct.pack("<I", len(name)) + name
        payload += struct.pack("<Q", len(body)) + body
    checked = struct.pack("<IQ", version, spec)
    out = (b"SPTUNECM" + checked + struct.pack("<QQ", len(payload),
           fnv1a64(payload, fnv1a64(checked))) + payload)
    open(dst, "wb").write(out)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
