#!/usr/bin/env python3
"""What each module contributes to one or two Go binaries (built without
-s, so that they keep their symbol table): the sizes of their symbols as
`go tool nm -size` reports them (text and data, not .bss), summed by module,
and the number of functions. The section .gopclntab, which nm does not
attribute, grows with the number of functions.

Usage: bench/binsize.py BINARY [OTHER] [ROWS]   (ROWS: default 20)
Prints a markdown table: module | BINARY | OTHER.
"""
import collections
import subprocess
import sys

# Hosts whose modules are named by three path elements (host/owner/name).
THREE = ("github.com", "codeberg.org", "go.yaml.in", "golang.org", "charm.land", "go.opentelemetry.io")


def package(sym):
    for prefix in ("type:.eq.", "type:.hash.", "type:*", "type:", "go:itab.*", "go:itab."):
        if sym.startswith(prefix):
            sym = sym[len(prefix):]
            break
    if sym.startswith("go:") or sym.startswith("gclocals"):
        return "go:"
    slash = sym.rfind("/", 0, sym.find(".", sym.rfind("/") + 1) if "/" in sym else len(sym))
    dot = sym.find(".", slash + 1)
    return sym[:dot] if dot > 0 else sym


def module(pkg):
    parts = pkg.split("/")
    if pkg == "go:":
        return "runtime tables (go:func.*)"
    if "." not in parts[0]:
        return "standard library"
    return "/".join(parts[:3] if parts[0] in THREE else parts[:2])


def load(binary):
    size, funcs = collections.Counter(), collections.Counter()
    out = subprocess.run(["go", "tool", "nm", "-size", binary], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        fields = line.split(None, 3)
        if len(fields) < 4:
            continue
        n, kind, name = int(fields[1]), fields[2], fields[3].strip()
        if kind in "bB" or name == "crypto/internal/fips140/drbg.memory":  # .bss: no bytes in the file
            continue
        m = module(package(name))
        size[m] += n
        if kind in "tT":
            funcs[m] += 1
    return size, funcs


def main():
    args = sys.argv[1:]
    rows = 20
    if args and args[-1].isdigit():
        rows = int(args.pop())
    if not 1 <= len(args) <= 2:
        raise SystemExit(__doc__)
    loaded = [load(b) for b in args]
    first = loaded[0][0]
    print("| module | " + " | ".join(args) + " |")
    print("|---" * (len(args) + 1) + "|")
    print("| total | " + " | ".join(f"{sum(s.values()) / 1e6:.1f} MB, {sum(f.values())} functions" for s, f in loaded) + " |")
    for m, _ in first.most_common(rows):
        print(f"| {m} | " + " | ".join(f"{s[m] / 1e6:.2f} MB, {f[m]}" for s, f in loaded) + " |")


if __name__ == "__main__":
    main()
