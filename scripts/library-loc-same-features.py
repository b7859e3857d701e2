#!/usr/bin/env python3
"""The libraries' lines of code for the features of before issue 18, the count that issue bounds
(23,883 before its refactor, at commit 7b42580): scripts/library-loc.py's count of shared/src and
commands/src without the files issues 19 (search, MCP), 20 (compaction ledger and note, cleanup
guard, bounded storage) and 21 (platform modules) added. Lines those issues added to files that
already existed still count (about +820, measured on their merges), so this count is strict.

Usage: scripts/library-loc-same-features.py [--files]   (from anywhere in the checkout)"""
import importlib.util
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    "library_loc", os.path.join(REPO, "scripts", "library-loc.py")
)
library_loc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(library_loc)
count = library_loc.count  # as library-loc.py counts

NEW_FEATURES = re.compile(
    r"commands/src/(search|mcp|compactions|retention)(/|\.rs)|search_binary"
    r"|shared/src/(compaction|platform)(/|\.rs)|mcp_registration|shell_word"
    r"|store/(storage|rotation|config)\.rs|doctor/storage|prune_kept|restore_deleted"
    r"|sessions/transcript"
)

same = new = 0
for top in ("shared/src", "commands/src"):
    for folder, _, names in sorted(os.walk(os.path.join(REPO, top))):
        for name in sorted(names):
            if not name.endswith(".rs") or name == "test_support.rs":
                continue
            path = os.path.relpath(os.path.join(folder, name), REPO)
            lines = count(os.path.join(REPO, path))
            if NEW_FEATURES.search(path):
                new += lines
            else:
                same += lines
                if "--files" in sys.argv[1:]:
                    print(lines, path)
print(f"same features: {same} ({(same - 23883) / 23883:+.1%} against 23,883); "
      f"files of issues 19-21: {new}")
