#!/usr/bin/env python3
"""The libraries' lines of code: lines that are not blank, not comments and not inside an item
marked #[cfg(test)] (the unit tests' modules), over every .rs file below the folders given.

Usage: scripts/library-loc.py shared/src commands/src
(test_support.rs, the unit tests' scratch folders, is left out too.)"""
import sys, os, re
def counted_lines(text):
    """The numbers (from 1) of the lines of `text` that count."""
    lines = text.split('\n')
    counted = []; i = 0; in_block_comment = False
    while i < len(lines):
        s = lines[i].strip()
        if s.startswith('#[cfg(test)]'):
            # skip the next item: find its opening brace and match
            j = i + 1; depth = 0; started = False
            while j < len(lines):
                t = lines[j]
                # crude: strip strings/chars
                t2 = re.sub(r'"(\\.|[^"\\])*"', '""', t)
                t2 = re.sub(r"'(\\.|[^'\\])'", "''", t2)
                t2 = t2.split('//')[0]
                depth += t2.count('{') - t2.count('}')
                if '{' in t2: started = True
                if started and depth <= 0: break
                if not started and t2.rstrip().endswith(';'): break
                j += 1
            i = j + 1; continue
        if in_block_comment:
            if '*/' in s: in_block_comment = False
            i += 1; continue
        if s.startswith('/*'):
            if '*/' not in s: in_block_comment = True
            i += 1; continue
        if s == '' or s.startswith('//'):
            i += 1; continue
        counted.append(i + 1); i += 1
    return counted
def count(path):
    return len(counted_lines(open(path, encoding='utf-8').read()))
if __name__ == '__main__':
    total = 0
    for root in sys.argv[1:]:
        for d, _, fs in os.walk(root):
            for f in fs:
                if f.endswith('.rs') and f != 'test_support.rs':
                    total += count(os.path.join(d, f))
    print(total)
