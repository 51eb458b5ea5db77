# follow-grow-gen.py FIXTURE OUT init BYTES | FIXTURE OUT append: a Claude
# Code transcript of copies of FIXTURE's lines (ids made each copy's own),
# or 200 more of them appended (follow-grow.sh).
import sys, re, os
fix = sys.argv[1]; out = sys.argv[2]; mode = sys.argv[3]
lines = open(fix).read().splitlines()
def copy(n):
    res = []
    for l in lines:
        for m in ('"id":"', '"tool_use_id":"', '"uuid":"', '"parentUuid":"'):
            l = l.replace(m, m + 'r%d-' % n)
        res.append(l)
    return res
if mode == 'init':
    size = int(sys.argv[4]); n = 0
    with open(out, 'w') as f:
        total = 0
        while total < size:
            t = '\n'.join(copy(n)) + '\n'; f.write(t); total += len(t); n += 1
    open(out + '.n', 'w').write(str(n))
else:
    # append 200 lines, continuing copies
    n = int(open(out + '.n').read()); k = int(open(out + '.k').read()) if os.path.exists(out + '.k') else 0
    buf = []
    while len(buf) < 200:
        c = copy(n)
        take = c[k:k + 200 - len(buf)]; buf += take; k += len(take)
        if k >= len(c): n += 1; k = 0
    with open(out, 'a') as f: f.write('\n'.join(buf) + '\n')
    open(out + '.n', 'w').write(str(n)); open(out + '.k', 'w').write(str(k))
