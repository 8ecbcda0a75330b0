#!/usr/bin/env python3
"""The startup baseline of issue 9: a plain Python 3 script doing the work of `strata-setup --print`.

It parses the flags, reads the host JSON, reads every shard's GGUF header (key/values and tensor infos,
never tensor data: the Java command reads them all to check the split set) and prints a YAML config —
the work issue 17 names ("parse the flags, read the host JSON, read every shard's GGUF header, print the
YAML"). bench/startup/run.sh times it against the Java command.
"""
import argparse
import json
import re
import struct
import sys

# GGUF value types -> struct format (scalars); 8 = string, 9 = array
SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}


def read_str(f):
    (n,) = struct.unpack("<Q", f.read(8))
    return f.read(n).decode("utf-8")


def read_value(f, t):
    if t in SCALARS:
        fmt = "<" + SCALARS[t]
        return struct.unpack(fmt, f.read(struct.calcsize(fmt)))[0]
    if t == 8:
        return read_str(f)
    if t == 9:
        (et,) = struct.unpack("<I", f.read(4))
        (n,) = struct.unpack("<Q", f.read(8))
        return [read_value(f, et) for _ in range(n)]
    raise ValueError(f"bad GGUF value type {t}")


def gguf_metadata(path):
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file")
        (version,) = struct.unpack("<I", f.read(4))
        n_tensors, n_kv = struct.unpack("<QQ", f.read(16))
        kv = {}
        for _ in range(n_kv):
            key = read_str(f)
            (t,) = struct.unpack("<I", f.read(4))
            kv[key] = read_value(f, t)
        tensors = []
        for _ in range(n_tensors):
            name = read_str(f)
            (n_dims,) = struct.unpack("<I", f.read(4))
            dims = struct.unpack("<" + "Q" * n_dims, f.read(8 * n_dims))
            ggml_type, offset = struct.unpack("<IQ", f.read(12))
            tensors.append((name, dims, ggml_type, offset))
        return version, tensors, kv


SHARD = re.compile(r"^(.*)-(\d{5})-of-(\d{5})\.gguf$")


def shards(first):
    """Every shard of a split set named NAME-00001-of-0000N.gguf, first shard first."""
    m = SHARD.match(first)
    if not m:
        return [first]
    n = int(m.group(3))
    return [f"{m.group(1)}-{i:05d}-of-{n:05d}.gguf" for i in range(1, n + 1)]


def main():
    p = argparse.ArgumentParser(prog="baseline")
    p.add_argument("--model", required=True)
    p.add_argument("--host-file", required=True)
    p.add_argument("--ctx", type=int, default=32768)
    p.add_argument("--experts", choices=["stream", "resident"], default="stream")
    p.add_argument("--kv")
    p.add_argument("--print", action="store_true")
    a = p.parse_args()
    with open(a.host_file) as f:
        host = json.load(f)
    paths = shards(a.model)
    _, _, kv = gguf_metadata(paths[0])
    for other in paths[1:]:
        gguf_metadata(other)
    arch = kv["general.architecture"]
    out = ["schema: strata.engine/v1", "engine:", "  backend: metal", "  library: /usr/local/lib/libstrata.dylib",
           "model:", "  shards:"] + [f"  - {x}" for x in paths] + ["host:"]
    out += [f"  {k}: {json.dumps(v)}" for k, v in host.items()]
    args = ["--model", a.model, "--ctx", str(a.ctx), "--experts", a.experts,
            "--threads", str(host["perf_cores"]), "--spec", "2", "--suffix-draft", "0"]
    if a.kv:
        args += ["--kv", a.kv]
    out.append("args:")
    out += [f"- '{x}'" if x.isdigit() else f"- {x}" for x in args]
    out.append(f"# {arch}: {kv.get(arch + '.block_count')} blocks")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
