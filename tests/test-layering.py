#!/usr/bin/env python3
"""The layers of core, as the build enforces them.

usage: test-layering.py BUILD_DIR SOURCE_DIR

shared/DESIGN.md ("Layers and folders"): dependencies point down only.  Each
folder of core/ is its own static library compiled with its own folder and
the folders of the layers it may use (core/meson.build).  For every layer
this compiles, with the exact flags the build uses for that layer's files
(compile_commands.json), a file that includes the main header of every
other layer: the include must compile for a layer below (the control: the
allowed paths work) and must fail with "no such file" for a layer above or
beside.  A build that let every layer see every folder (as before) fails
every forbidden case here.

It also checks the storage boundary (issue 14): only core/store sees SQLite
and writes SQL.  No file of core/, ui/ or app/ outside core/store includes
sqlite3.h, calls sqlite3_* or hands SQL to the store's connection
(pd_db_prepare, pd_db_exec), but for the OpenCode reader, which reads
OpenCode's own database file; the rest goes through PdSessionStore's typed
calls.

And the UI's boundary (issue 14): the UI reaches data only through PdSource,
so no file of ui/ includes pd-db.h, pd-session-store*.h, pd-import-index.h
or sqlite3.h.

Prints TAP, one case per (layer, other layer), then one per boundary rule.
"""
import re
import concurrent.futures
import json
import os
import shlex
import subprocess
import sys
import tempfile

# What each layer may include (the closure of DESIGN.md's arrows), and the
# header that stands for it.  "." is core's own folder: PdSource, the one
# interface the UI reads sessions through, the session reads every front end
# answers with, and the local source.
LAYERS = {
    "base":   ([], "pd-random.h"),
    "plan":   (["base"], "pd-plan-store.h"),
    "config": (["base"], "pd-config.h"),
    "events": (["base", "plan"], "pd-event-bus.h"),
    "store":  (["base", "plan"], "pd-session-store.h"),
    "engine": (["base", "plan", "config", "events", "store"], "pd-engine.h"),
    "import": (["base", "plan", "events", "store"], "pd-import-index.h"),
    ".":      (["base", "plan", "events", "store", "import"], "pd-source.h"),
    "serve":  (["base", "plan", "config", "events", "store", "engine", "import", "."], "pd-server.h"),
}
# Files that may see SQLite outside core/store, and why.
SQLITE_ALLOWED = {
    "core/import/pd-opencode-reader.c": "reads OpenCode's own database, not ours",
}
BOUNDARY_RULES = [
    ("includes sqlite3.h", re.compile(r'#\s*include\s*[<"]sqlite3\.h[>"]')),
    ("calls SQLite itself", re.compile(r'\bsqlite3_[a-z0-9_]+\s*\(')),
    ("hands SQL to the store's connection", re.compile(r'\bpd_db_(prepare|exec)\s*\(')),
]
# Headers no file of ui/ includes: it reads and imports through PdSource.
UI_FORBIDDEN = re.compile(r'#\s*include\s*[<"](pd-db\.h|pd-session-store[^">]*\.h|pd-import-index\.h|sqlite3\.h)[>"]')
DROP_WITH_ARGUMENT = {"-o", "-c", "-MQ", "-MF", "-MT"}
DROP = {"-MD", "-MMD"}


def layer_of(path, source_dir):
    relative = os.path.relpath(path, os.path.join(source_dir, "core"))
    if relative.startswith(".."):
        return None
    folder = os.path.dirname(relative)
    return folder if folder else "."


def shown(layer):
    return "core/" if layer == "." else "core/" + layer


def flags_of(entry):
    """The entry's compiler and flags, without its input, output and depfile."""
    words = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    out = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in DROP_WITH_ARGUMENT:
            skip = True
            continue
        if word in DROP or word == entry["file"] or word.endswith(".c"):
            continue
        out.append(word)
    return out


def compile_include(flags, directory, header, scratch):
    fd, path = tempfile.mkstemp(suffix=".c", dir=scratch)
    with os.fdopen(fd, "w") as f:
        f.write('#include "config.h"\n#include "%s"\n' % header)
    proc = subprocess.run(flags + ["-fsyntax-only", "-fdiagnostics-color=never", path],
                          cwd=directory, capture_output=True, text=True)
    os.unlink(path)
    return proc.returncode, proc.stderr


def boundary_cases(source_dir):
    """(name, offenders) per rule, over core/, ui/ and app/ outside core/store."""
    files = []
    for top in ("core", "ui", "app"):
        for root, _, names in os.walk(os.path.join(source_dir, top)):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    path = os.path.join(root, name)
                    relative = os.path.relpath(path, source_dir)
                    if not relative.startswith("core/store/"):
                        files.append((relative, path))
    cases = []
    for what, pattern in BOUNDARY_RULES:
        offenders = []
        for relative, path in sorted(files):
            if relative in SQLITE_ALLOWED and what != "hands SQL to the store's connection":
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if pattern.search(line):
                        offenders.append("%s:%d: %s" % (relative, number, line.strip()))
        cases.append(("no file outside core/store %s" % what, offenders))
    return cases


def ui_cases(source_dir):
    """(name, offenders): the ui/ files that include the store's, the
    import's or SQLite's headers instead of reading through PdSource."""
    offenders = []
    read = 0
    for root, _, names in os.walk(os.path.join(source_dir, "ui")):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            read += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                for number, line in enumerate(f, 1):
                    if UI_FORBIDDEN.search(line):
                        offenders.append("%s:%d: %s" % (os.path.relpath(path, source_dir), number, line.strip()))
    if read == 0:
        offenders.append("no C file found under ui/: the rule checked nothing")
    return [("no file of ui/ includes pd-db.h, pd-session-store*.h, pd-import-index.h or sqlite3.h "
             "(the UI reads through PdSource)", offenders)]


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    build_dir, source_dir = (os.path.abspath(p) for p in sys.argv[1:])

    with open(os.path.join(build_dir, "compile_commands.json")) as f:
        entries = json.load(f)

    # One compile command of a source file of each layer.
    commands = {}
    for entry in entries:
        path = os.path.normpath(os.path.join(entry["directory"], entry["file"]))
        layer = layer_of(path, source_dir)
        if layer in LAYERS and layer not in commands:
            commands[layer] = entry

    cases = []
    for layer, (allowed, _) in LAYERS.items():
        for other, (_, header) in LAYERS.items():
            if other != layer:
                cases.append((layer, other, header, other in allowed))

    boundary = boundary_cases(source_dir) + ui_cases(source_dir)
    print("1..%d" % (len(cases) + len(boundary)))
    missing = [layer for layer in LAYERS if layer not in commands]
    scratch = tempfile.mkdtemp(prefix="pd-layering-")

    def run(case):
        layer, other, header, allowed = case
        if layer not in commands:
            return False, "no compile command for %s in compile_commands.json" % shown(layer)
        entry = commands[layer]
        status, stderr = compile_include(flags_of(entry), entry["directory"], header, scratch)
        not_found = header in stderr and ("No such file" in stderr or "not found" in stderr)
        if allowed:
            return status == 0, stderr
        return status != 0 and not_found, stderr or "it compiled"

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = list(pool.map(run, cases))
    for number, ((layer, other, header, allowed), (ok, detail)) in enumerate(zip(cases, results), 1):
        name = "%s %s %s (%s)" % (shown(layer), "includes" if allowed else "cannot include", header, shown(other))
        print("%s %d - %s" % ("ok" if ok else "not ok", number, name))
        if not ok:
            failed += 1
            for line in detail.strip().splitlines()[:6]:
                print("# " + line)
    os.rmdir(scratch)

    for number, (name, offenders) in enumerate(boundary, len(cases) + 1):
        print("%s %d - %s" % ("not ok" if offenders else "ok", number, name))
        if offenders:
            failed += 1
            for line in offenders[:10]:
                print("# " + line)

    if missing:
        print("# layers without a compile command: %s" % ", ".join(shown(layer) for layer in missing))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
