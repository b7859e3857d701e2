#!/usr/bin/env python3
"""The libraries' lines of code for the features of before issue 18, the count that issue bounds
(23,883 before its refactor, at commit 7b42580): scripts/library-loc.py's count of shared/src and
commands/src without the files issues 19 (search, MCP), 20 (compaction ledger and note, cleanup
guard, bounded storage) and 21 (platform modules) added. Lines those issues added to files that
already existed still count, so this count is strict.

With --later, it also measures those lines, two ways, from the history: the net change those
issues' commits made to the counted files (each commit against its parent; their branches' merges
against main before them), and the counted lines `git blame` gives to those commits at HEAD. The
count without them is the same features' count: old features' lines only. The second is not
wholly independent of the first: the old lines issue 21 moved into platform/ are no longer in
these files for blame to see, and are counted back as the net change of its two merges, which
nets the few lines those merges added against those they took out: the moved lines are known
to within about a dozen.

Usage: scripts/library-loc-same-features.py [--files] [--later]   (from anywhere in the checkout)"""
import importlib.util
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = importlib.util.spec_from_file_location(
    "library_loc", os.path.join(REPO, "scripts", "library-loc.py")
)
library_loc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(library_loc)
count = library_loc.count  # as library-loc.py counts
counted_lines = library_loc.counted_lines

# Issues 20 and 21 landed as branches (their merges into main); issue 19 as commits on main itself.
# Issue 21's merges moved old code out of these files into platform/ (old features' lines still).
LATER_MERGES = ("2d135e4", "c42f625", "22e1367", "590336a")
MOVING_MERGES = ("22e1367", "590336a")
LATER_COMMITS_ON_MAIN = ("590336a..5e8aec4", "22546cd..4ec9dd5")

NEW_FEATURES = re.compile(
    r"commands/src/(search|mcp|compactions|retention)(/|\.rs)|search_binary"
    r"|shared/src/(compaction|platform)(/|\.rs)|mcp_registration|shell_word"
    r"|store/(storage|rotation|config)\.rs|doctor/storage|prune_kept|restore_deleted"
    r"|sessions/transcript"
)


def git(*arguments):
    return subprocess.run(
        ["git", "-C", REPO, *arguments], capture_output=True, text=True, check=True
    ).stdout


def is_counted(path):
    return (
        path.endswith(".rs")
        and path.startswith(("shared/src/", "commands/src/"))
        and not path.endswith("test_support.rs")
    )


def count_at(commit, path):
    shown = subprocess.run(
        ["git", "-C", REPO, "show", f"{commit}:{path}"], capture_output=True, text=True
    )
    return len(counted_lines(shown.stdout)) if shown.returncode == 0 else 0


def net_change(parent, commit):
    """The lines `commit` added to the same features' files against `parent` (less those it took)."""
    added = 0
    for path in git("diff", "--name-only", parent, commit).split():
        if is_counted(path) and not NEW_FEATURES.search(path):
            added += count_at(commit, path) - count_at(parent, path)
    return added


def later_commits():
    """(parent, commit) for every change of issues 19-21, and the set of their commits."""
    pairs, commits = [], set()
    for merge in LATER_MERGES:
        pairs.append((f"{merge}^1", merge))
        commits |= set(git("rev-list", f"{merge}^1..{merge}").split())
    for commit_range in LATER_COMMITS_ON_MAIN:
        for commit in git("rev-list", "--first-parent", commit_range).split():
            pairs.append((f"{commit}^1", commit))
            commits.add(commit)
    return pairs, commits


def blamed_on(path, commits):
    """How many of the counted lines of `path` `git blame` gives to one of `commits`."""
    # The committed text, as blame reads it (uncommitted edits would shift the line numbers).
    counted = set(counted_lines(git("show", f"HEAD:{path}")))
    blamed = 0
    for line in git("blame", "--porcelain", "HEAD", "--", path).split("\n"):
        found = re.match(r"^([0-9a-f]{40}) \d+ (\d+)", line)
        if found and int(found.group(2)) in counted and found.group(1) in commits:
            blamed += 1
    return blamed


later = "--later" in sys.argv[1:]
if later:
    pairs, commits = later_commits()
same = new = blamed = 0
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
                if later:
                    blamed += blamed_on(path, commits)
                if "--files" in sys.argv[1:]:
                    print(lines, path)
print(f"same features: {same} ({(same - 23883) / 23883:+.1%} against 23,883); "
      f"files of issues 19-21: {new}")
if later:
    net = sum(net_change(parent, commit) for parent, commit in pairs)
    moved = -sum(net_change(f"{merge}^1", merge) for merge in MOVING_MERGES)
    # The net change takes the moved lines back itself; blame sees only the lines still here.
    for label, old in (("net change", same - net), ("git blame", same - blamed + moved)):
        print(f"the old features alone, issues 19-21 taken out by {label}: {old} "
              f"({(old - 23883) / 23883:+.1%} against 23,883)")
    print(f"(net change of issues 19-21 in these files: {net:+}; counted lines blamed on them: "
          f"{blamed}; old lines issue 21 moved into platform/: {moved})")
