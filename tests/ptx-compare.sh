#!/bin/sh
# ptx-compare.sh OLD.ptx NEW.ptx: compares two PTX modules kernel by kernel
# (.entry and .func): "identical" (same text), "same opcodes" (the same
# multiset of instructions, opcode and operand types, in another order) or
# "DIFFERENT" (with the opcode counts that differ).  Used to check that the
# _ARGS form of a kernel compiles to the PTX of its functor form:
#   tests/ptx-compare.sh build/tests/kernels/md.kc.ptx \
#       build/tests/kernels/md-args.kc.ptx
# Exit 0 when no kernel is DIFFERENT and both have the same kernels.
test $# -eq 2 || {
  echo "usage: $0 OLD.ptx NEW.ptx" >&2
  exit 2
}
exec python3 - "$1" "$2" <<'PY'
import re, sys
from collections import Counter

def kernels(path):
    out, name, body = {}, None, []
    for line in open(path):
        m = re.match(r'\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\w+)', line)
        if m:
            name, body = m.group(1), []
            out[name] = body
            continue
        if name is None or line.startswith('//'):
            continue
        body.append(line.rstrip())
    return out

def opcodes(lines):
    c = Counter()
    for l in lines:
        l = l.strip()
        if not l or l.startswith(('.', '{', '}', '$', '//', ')', '(')):
            continue
        if l.startswith('@'):
            l = l.split(None, 1)[1] if ' ' in l else l
        c[l.split()[0].rstrip(';')] += 1
    return c

old, new = kernels(sys.argv[1]), kernels(sys.argv[2])
bad = 0
for k in sorted(set(old) | set(new)):
    if k not in old or k not in new:
        print('%-40s only in %s' % (k, 'new' if k in new else 'old'))
        bad = 1
        continue
    norm = lambda ls: [re.sub(r'\w+__param_\d+|%r[a-z]*\d+', 'X', l) for l in ls]
    if old[k] == new[k]:
        print('%-40s identical' % k)
    elif opcodes(old[k]) == opcodes(new[k]):
        print('%-40s same opcodes (%d instructions), other order' % (k, sum(opcodes(old[k]).values())))
    else:
        a, b = opcodes(old[k]), opcodes(new[k])
        diff = {o: (a[o], b[o]) for o in set(a) | set(b) if a[o] != b[o]}
        print('%-40s DIFFERENT %s' % (k, diff))
        bad = 1
sys.exit(bad)
PY
