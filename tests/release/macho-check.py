#!/usr/bin/env python3
"""Checks a macOS executable made on Linux, where no macOS can run it.

For each FILE: a 64-bit Mach-O executable of the CPU asked for (`arm64` or `x86_64`) whose
embedded code signature, required on arm64, is valid: macOS on Apple silicon kills an arm64
program whose signature is missing or does not match its bytes (an x86_64 program needs none,
and Zig signs only arm64 ones), and the release build signs at link time (Zig) and then strips
(rustc's `rust-objcopy`), which must sign again. Valid here means: an
`LC_CODE_SIGNATURE` whose SuperBlob holds a CodeDirectory whose page hashes (SHA-256 or SHA-1)
are those of the file's pages up to its code limit. It also requires that the program loads only
libraries under /usr/lib (macOS's own: no framework, nothing from a build machine), and prints
them with the minimum macOS version.

    macho-check.py arm64 FILE...
"""

import hashlib
import struct
import sys

LC_CODE_SIGNATURE = 0x1D
LC_LOAD_DYLIB = 0xC
LC_BUILD_VERSION = 0x32
CPU = {"arm64": 0x0100000C, "x86_64": 0x01000007}
CSMAGIC_EMBEDDED_SIGNATURE = 0xFADE0CC0
CSMAGIC_CODEDIRECTORY = 0xFADE0C02
HASHES = {1: hashlib.sha1, 2: hashlib.sha256}


def check(path, cpu):
    data = open(path, "rb").read()
    magic, cputype, _, filetype, ncmds = struct.unpack_from("<IiiII", data, 0)
    if magic != 0xFEEDFACF:
        return f"not a 64-bit Mach-O file (magic {magic:#x})"
    if cputype != CPU[cpu]:
        return f"CPU type {cputype:#x}, not {cpu}"
    if filetype != 2:
        return f"file type {filetype}, not an executable"
    offset, signature, dylibs, minos = 32, None, [], "?"
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", data, offset)
        if cmd == LC_CODE_SIGNATURE:
            signature = struct.unpack_from("<II", data, offset + 8)
        elif cmd == LC_LOAD_DYLIB:
            name_offset = struct.unpack_from("<I", data, offset + 8)[0]
            dylibs.append(data[offset + name_offset : offset + size].split(b"\0")[0].decode())
        elif cmd == LC_BUILD_VERSION:
            version = struct.unpack_from("<I", data, offset + 12)[0]
            minos = f"{version >> 16}.{(version >> 8) & 0xFF}"
        offset += size
    outside = [dylib for dylib in dylibs if not dylib.startswith("/usr/lib/")]
    if outside:
        return f"loads libraries outside /usr/lib: {outside}"
    if signature is None:
        if cpu == "arm64":
            return "no code signature (LC_CODE_SIGNATURE), which macOS requires on arm64"
        print(f"   {path}: {cpu} executable, not signed (none needed), macOS {minos}+, loads {' '.join(dylibs)}")
        return None
    sig_offset, sig_size = signature
    blob = data[sig_offset : sig_offset + sig_size]
    magic, _, count = struct.unpack_from(">III", blob, 0)
    if magic != CSMAGIC_EMBEDDED_SIGNATURE:
        return f"the signature is not an embedded SuperBlob (magic {magic:#x})"
    for index in range(count):
        _, blob_offset = struct.unpack_from(">II", blob, 12 + 8 * index)
        if struct.unpack_from(">I", blob, blob_offset)[0] != CSMAGIC_CODEDIRECTORY:
            continue
        (hash_offset, _, _, slots, code_limit, hash_size, hash_type, _, page_size) = struct.unpack_from(
            ">IIIIIBBBB", blob, blob_offset + 16
        )
        if hash_type not in HASHES:
            return f"unknown hash type {hash_type}"
        if code_limit != sig_offset:
            return f"the signature covers {code_limit} bytes, not the {sig_offset} before it"
        page = 1 << page_size
        if slots != (code_limit + page - 1) // page:
            return f"{slots} page hashes for {code_limit} bytes"
        for slot in range(slots):
            start = blob_offset + hash_offset + slot * hash_size
            expected = blob[start : start + hash_size]
            chunk = data[slot * page : min((slot + 1) * page, code_limit)]
            if HASHES[hash_type](chunk).digest()[:hash_size] != expected:
                return f"page {slot} does not match its hash in the signature (changed after signing)"
        print(f"   {path}: {cpu} executable, signature valid ({slots} pages), macOS {minos}+, loads {' '.join(dylibs)}")
        return None
    return "no CodeDirectory in the signature"


def main():
    cpu, files = sys.argv[1], sys.argv[2:]
    failed = False
    for path in files:
        problem = check(path, cpu)
        if problem:
            print(f"macho-check: {path}: {problem}", file=sys.stderr)
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
