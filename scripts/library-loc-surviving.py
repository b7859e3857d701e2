#!/usr/bin/env python3
"""The libraries' counted lines (scripts/library-loc.py) that `git blame` gives to REV or to the
commits before it: the code of REV that survives at HEAD. Two ways, since a line moved to
another place or file is either: `-w` (a moved line counts as written where it is now) and
`-w -M -C` (a moved line counts as the old line it is). With --commits, the commits after REV
that wrote the most counted lines, with their subjects.

Issue 31 asks for 10 % fewer lines "for the same features" than at its start (f31b2a0): that
count is the start's surviving code plus what the refactor itself added; the rest of the growth
is later features. This gives the first term, and the commits for the rest.

Usage: scripts/library-loc-surviving.py REV [--commits N]   (from anywhere in the checkout)"""
import collections
import importlib.util
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    "library_loc", os.path.join(REPO, "scripts", "library-loc.py")
)
library_loc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(library_loc)


def git(*arguments):
    return subprocess.run(
        ["git", "-C", REPO, *arguments], capture_output=True, text=True, check=True
    ).stdout


def counted_files():
    for path in git("ls-files", "shared/src", "commands/src").split():
        if path.endswith(".rs") and not path.endswith("test_support.rs"):
            yield path


def blame(options, old):
    """(counted lines, those given to `old` commits, lines per newer commit)."""
    total, surviving, newer = 0, 0, collections.Counter()
    for path in counted_files():
        counted = set(library_loc.counted_lines(git("show", f"HEAD:{path}")))
        commit, line = None, 0
        for row in git("blame", "--line-porcelain", *options, "HEAD", "--", path).split("\n"):
            fields = row.split()
            if fields and len(fields[0]) == 40 and len(fields) >= 3 and not row.startswith("\t"):
                commit, line = fields[0], int(fields[2])
            elif row.startswith("\t") and line in counted:
                total += 1
                if commit in old:
                    surviving += 1
                else:
                    newer[commit] += 1
    return total, surviving, newer


def main():
    arguments = sys.argv[1:]
    if not arguments or arguments[0].startswith("-"):
        sys.exit(__doc__)
    rev = arguments[0]
    shown = int(arguments[arguments.index("--commits") + 1]) if "--commits" in arguments else 0
    old = set(git("rev-list", rev).split())
    for name, options in (("-w", ["-w"]), ("-w -M -C", ["-w", "-M", "-C"])):
        total, surviving, newer = blame(options, old)
        print(f"blame {name}: {surviving:,} of {total:,} counted lines at HEAD are {rev}'s or older")
    for commit, lines in newer.most_common(shown):
        subject = git("log", "-1", "--format=%h %s", commit).strip()
        print(f"  {lines:6,}  {subject[:110]}")


if __name__ == "__main__":
    main()
