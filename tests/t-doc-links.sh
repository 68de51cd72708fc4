#!/bin/sh
# Every relative link of every Markdown file of the source tree resolves:
# the file (or directory) it names exists, and its #anchor, if any, is a
# heading of the Markdown file it points to (anchors as GitHub makes them:
# lower case, punctuation dropped, spaces to '-', -1, -2 ... for repeats).
# Links to other sites (scheme:...) are not followed.  Code spans and
# fenced code blocks are skipped.  Needs python3; SKIPs without it.
srcdir=${KC_TEST_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
command -v python3 >/dev/null 2>&1 || {
  echo "SKIP: python3 is not installed (needed to parse Markdown links)"
  exit 77
}
exec python3 - "$srcdir" <<'EOF'
import os, re, sys

top = os.path.abspath(sys.argv[1])
skip_dirs = {'.git', 'autom4te.cache', 'node_modules'}

def md_files():
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x not in skip_dirs
                         and not x.startswith('.'))
        for f in sorted(files):
            if f.endswith('.md'):
                yield os.path.join(d, f)

def strip_code(text):
    """Lines with fenced blocks blanked and code spans removed."""
    out, fence = [], None
    for line in text.split('\n'):
        m = re.match(r'^\s*(```+|~~~+)', line)
        if m:
            if fence is None:
                fence = m.group(1)[0] * 3
            elif m.group(1).startswith(fence):
                fence = None
            out.append('')
            continue
        if fence:
            out.append('')
            continue
        out.append(re.sub(r'(`+)(?:(?!\1).)+?\1', '', line))
    return out

def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r'<[^>]+>', '', s)
    s = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', s)   # links: their text
    s = re.sub(r'[^\w\- ]', '', s)                   # punctuation
    return s.replace(' ', '-')

anchor_cache = {}
def anchors(path):
    if path not in anchor_cache:
        seen, found = {}, set()
        fence = None
        for line in open(path, encoding='utf-8').read().split('\n'):
            m = re.match(r'^\s*(```+|~~~+)', line)
            if m:
                if fence is None:
                    fence = m.group(1)[0] * 3
                elif m.group(1).startswith(fence):
                    fence = None
                continue
            if fence:
                continue
            h = re.match(r'^#{1,6}\s+(.*?)\s*#*\s*$', line)
            if not h:
                continue
            base = slug(h.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else '%s-%d' % (base, n))
        anchor_cache[path] = found
    return anchor_cache[path]

link_re = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
bad = checked = 0
files = list(md_files())
for path in files:
    rel = os.path.relpath(path, top)
    for lineno, line in enumerate(strip_code(open(path, encoding='utf-8').read()), 1):
        for m in link_re.finditer(line):
            target = m.group(1)
            if re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target):
                continue                                  # http:, mailto: ...
            checked += 1
            name, _, frag = target.partition('#')
            dest = path if name == '' else os.path.normpath(
                os.path.join(os.path.dirname(path), name))
            why = None
            if not os.path.abspath(dest).startswith(top + os.sep) and \
                    os.path.abspath(dest) != top:
                why = 'points outside the source tree'
            elif not os.path.exists(dest):
                why = 'no such file'
            elif frag:
                if not dest.endswith('.md'):
                    why = 'an anchor into a file that is not Markdown'
                elif frag not in anchors(dest):
                    why = 'no heading makes the anchor #' + frag
            if why:
                bad += 1
                print('%s:%d: %s: %s' % (rel, lineno, target, why))
print('%d Markdown files, %d relative links checked, %d broken'
      % (len(files), checked, bad))
sys.exit(1 if bad or checked == 0 else 0)
EOF
