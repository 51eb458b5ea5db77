#!/usr/bin/env python3
"""The Flatpak manifest, checked without the network.

usage: test-flatpak-manifest.py --manifest FILE --source-root DIR
                                --builddir DIR --app-id ID

CI cannot fetch the GNOME runtime, so the manifest is not built here; what can
be known offline is checked instead.  It is strict JSON (no comments, no
duplicate keys) whose fields are the ones this schema allows, with their
types; the app id is the build's; the runtime is the GNOME Platform and SDK
of a version that ships GTK >= 4.8 and libadwaita >= 1.2; the command is a
program the build installs; every finish-arg is one of the permissions
listed here, each with the reason the app needs it, and every folder of the
host is read-only; the one module is this project, built with meson from the
source tree, with -D options that meson_options.txt declares;
`flatpak-builder --show-manifest` reads it with no unknown property and
keeps every field; and what Flatpak exports (desktop file, metainfo, icons)
is named after the app id.  Prints TAP.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

results = []

# Every permission the app may ask for, and why.  A new one needs its reason
# here (and in build-aux/flatpak/README.md) or the test fails.
PERMISSIONS = {
    "--share=network": "providers (OpenAI-compatible servers, Anthropic) and remote plandeck-agent serve endpoints",
    "--share=ipc": "shared memory for X11, with the X11 fallback",
    "--socket=wayland": "the window",
    "--socket=fallback-x11": "the window where there is no Wayland",
    "--device=dri": "GTK 4 draws with the GPU",
    "--talk-name=org.freedesktop.secrets": "the keyring: endpoint tokens and provider keys (ui/pd-secrets.c speaks the Secret Service, not the secret portal)",
    "--filesystem=~/.claude:ro": "Claude Code's transcripts, read and never written",
    "--filesystem=~/.codex:ro": "Codex's transcripts, read and never written",
    "--filesystem=~/.local/share/opencode:ro": "OpenCode's sessions, read and never written",
    "--filesystem=~/.qwen:ro": "Qwen Code's transcripts, read and never written",
    "--filesystem=~/.gemini:ro": "Gemini CLI's transcripts, read and never written",
    "--filesystem=xdg-data/kilo:ro": "Kilo Code CLI's sessions, read and never written",
    "--filesystem=xdg-config/Code/User/globalStorage/saoudrizwan.claude-dev:ro": "Cline's task folders in Code, read and never written",
    "--filesystem=xdg-config/Code/User/globalStorage/rooveterinaryinc.roo-cline:ro": "Roo Code's task folders in Code, read and never written",
    "--filesystem=xdg-config/Code/User/globalStorage/kilocode.kilo-code:ro": "Kilo Code's task folders in Code, read and never written",
    "--filesystem=xdg-config/Code - OSS/User/globalStorage/saoudrizwan.claude-dev:ro": "Cline's task folders in Code - OSS, read and never written",
    "--filesystem=xdg-config/Code - OSS/User/globalStorage/rooveterinaryinc.roo-cline:ro": "Roo Code's task folders in Code - OSS, read and never written",
    "--filesystem=xdg-config/Code - OSS/User/globalStorage/kilocode.kilo-code:ro": "Kilo Code's task folders in Code - OSS, read and never written",
    "--filesystem=xdg-config/Code - Insiders/User/globalStorage/saoudrizwan.claude-dev:ro": "Cline's task folders in Code - Insiders, read and never written",
    "--filesystem=xdg-config/Code - Insiders/User/globalStorage/rooveterinaryinc.roo-cline:ro": "Roo Code's task folders in Code - Insiders, read and never written",
    "--filesystem=xdg-config/Code - Insiders/User/globalStorage/kilocode.kilo-code:ro": "Kilo Code's task folders in Code - Insiders, read and never written",
    "--filesystem=xdg-config/VSCodium/User/globalStorage/saoudrizwan.claude-dev:ro": "Cline's task folders in VSCodium, read and never written",
    "--filesystem=xdg-config/VSCodium/User/globalStorage/rooveterinaryinc.roo-cline:ro": "Roo Code's task folders in VSCodium, read and never written",
    "--filesystem=xdg-config/VSCodium/User/globalStorage/kilocode.kilo-code:ro": "Kilo Code's task folders in VSCodium, read and never written",
    "--filesystem=xdg-config/Cursor/User/globalStorage/saoudrizwan.claude-dev:ro": "Cline's task folders in Cursor, read and never written",
    "--filesystem=xdg-config/Cursor/User/globalStorage/rooveterinaryinc.roo-cline:ro": "Roo Code's task folders in Cursor, read and never written",
    "--filesystem=xdg-config/Cursor/User/globalStorage/kilocode.kilo-code:ro": "Kilo Code's task folders in Cursor, read and never written",
    "--filesystem=xdg-config/Windsurf/User/globalStorage/saoudrizwan.claude-dev:ro": "Cline's task folders in Windsurf, read and never written",
    "--filesystem=xdg-config/Windsurf/User/globalStorage/rooveterinaryinc.roo-cline:ro": "Roo Code's task folders in Windsurf, read and never written",
    "--filesystem=xdg-config/Windsurf/User/globalStorage/kilocode.kilo-code:ro": "Kilo Code's task folders in Windsurf, read and never written",
}
REQUIRED_PERMISSIONS = {"--share=network", "--socket=wayland", "--socket=fallback-x11"}

# The fields the manifest may use, with their types (a schema of what this
# project needs from flatpak-builder's manifest format).
TOP_LEVEL = {"id": str, "runtime": str, "runtime-version": str, "sdk": str, "command": str,
             "finish-args": list, "cleanup": list, "modules": list}
TOP_REQUIRED = {"id", "runtime", "runtime-version", "sdk", "command", "finish-args", "modules"}
MODULE = {"name": str, "buildsystem": str, "builddir": bool, "config-opts": list, "sources": list,
          "cleanup": list}
SOURCE = {"type": str, "path": str}

# GNOME 43 was the first runtime with GTK 4.8 and libadwaita 1.2, the oldest
# versions the code is pinned to (GDK_VERSION_MAX_ALLOWED, ADW_VERSION_MAX_ALLOWED).
OLDEST_RUNTIME = 43


def check(ok, name, detail=""):
    results.append(("ok" if ok else "not ok", name, detail))
    return ok


def skip(name, reason):
    results.append(("skip", name, reason))


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    duplicates = sorted({k for k in keys if keys.count(k) > 1})
    if duplicates:
        raise ValueError("duplicate keys: %s" % ", ".join(duplicates))
    return dict(pairs)


def check_fields(obj, schema, where):
    if not isinstance(obj, dict):
        return check(False, "%s is an object" % where, repr(obj))
    unknown = sorted(set(obj) - set(schema))
    wrong = ["%s is %s, not %s" % (k, type(obj[k]).__name__, schema[k].__name__)
             for k in obj if k in schema and not isinstance(obj[k], schema[k])]
    check(not unknown, "%s: only the fields the schema knows" % where, "unknown: %s" % unknown)
    check(not wrong, "%s: each field has its type" % where, "; ".join(wrong))
    for k, v in obj.items():
        if isinstance(v, list) and k in ("finish-args", "cleanup", "config-opts"):
            check(all(isinstance(x, str) for x in v), "%s: %s holds strings" % (where, k))


def meson_options(source_root):
    with open(os.path.join(source_root, "meson_options.txt"), encoding="utf-8") as f:
        return set(re.findall(r"option\(\s*'([^']+)'", f.read()))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--manifest", required=True)
    parser.add_argument("--source-root", required=True)
    parser.add_argument("--builddir", required=True)
    parser.add_argument("--app-id", required=True)
    args = parser.parse_args()
    args.manifest = os.path.abspath(args.manifest)

    with open(args.manifest, encoding="utf-8") as f:
        text = f.read()
    try:
        manifest = json.loads(text, object_pairs_hook=no_duplicates)
    except ValueError as e:
        check(False, "the manifest is strict JSON", str(e))
        manifest = None
    if manifest is not None:
        check(True, "the manifest is strict JSON")
        check_manifest(manifest, args)
        check_flatpak_builder(manifest, args)

    print("1..%d" % len(results))
    failed = 0
    for i, (status, name, detail) in enumerate(results, 1):
        if status == "skip":
            print("ok %d - %s # SKIP %s" % (i, name, detail))
            continue
        print("%s %d - %s" % (status, i, name))
        if status != "ok":
            failed += 1
            for line in (detail or "").splitlines():
                print("# " + line)
    return 1 if failed else 0


def check_manifest(manifest, args):
    check_fields(manifest, TOP_LEVEL, "the manifest")
    missing = sorted(TOP_REQUIRED - set(manifest))
    check(not missing, "the manifest has id, runtime, runtime-version, sdk, command, finish-args and modules",
          "missing: %s" % missing)
    check(manifest.get("id") == args.app_id, "the manifest's id is the build's app id %s" % args.app_id,
          "found %r" % manifest.get("id"))
    check(manifest.get("runtime") == "org.gnome.Platform" and manifest.get("sdk") == "org.gnome.Sdk",
          "the runtime is the GNOME Platform, the SDK the GNOME SDK",
          "%r / %r" % (manifest.get("runtime"), manifest.get("sdk")))
    version = str(manifest.get("runtime-version", ""))
    check(version.isdigit() and int(version) >= OLDEST_RUNTIME,
          "the GNOME runtime version has GTK >= 4.8 and libadwaita >= 1.2 (GNOME %d or later)" % OLDEST_RUNTIME,
          "found %r" % version)

    with open(os.path.join(args.builddir, "meson-info", "intro-installed.json"), encoding="utf-8") as f:
        installed = list(json.load(f).values())
    binaries = {os.path.basename(d) for d in installed if os.path.basename(os.path.dirname(d)) == "bin"}
    check(manifest.get("command") in binaries, "the command is a program the build installs",
          "%r not in %s" % (manifest.get("command"), sorted(binaries)))

    finish = manifest.get("finish-args", [])
    unknown = [a for a in finish if a not in PERMISSIONS]
    check(not unknown, "every finish-arg is a permission with a reason (tests/test-flatpak-manifest.py)",
          "no reason given for: %s" % ", ".join(unknown))
    check(REQUIRED_PERMISSIONS <= set(finish), "the app asks for the network, Wayland and the X11 fallback",
          "missing: %s" % sorted(REQUIRED_PERMISSIONS - set(finish)))
    writable = [a for a in finish if a.startswith("--filesystem=") and not a.endswith(":ro")]
    check(not writable, "every host folder is read-only", "writable: %s" % writable)
    check(len(finish) == len(set(finish)), "no finish-arg twice")
    # The keyring alone: the code reaches it through the Secret Service's
    # name (tried as an attacker would: without it every token and key was
    # kept for the session only in the sandbox).
    names = [a for a in finish if a.startswith(("--talk-name=", "--system-talk-name=", "--own-name="))]
    check(names == ["--talk-name=org.freedesktop.secrets"],
          "one D-Bus name, the Secret Service's, which the keyring code speaks to", names)

    modules = manifest.get("modules", [])
    check(len(modules) == 1, "one module: the project itself (json-glib, libsoup and SQLite come with the runtime)",
          "modules: %s" % [m.get("name") if isinstance(m, dict) else m for m in modules])
    if not modules:
        return
    module = modules[-1]
    check_fields(module, MODULE, "the module")
    check(module.get("name") == "plandeck" and module.get("buildsystem") == "meson",
          "the module is plandeck, built with meson", "%r, %r" % (module.get("name"), module.get("buildsystem")))
    options = meson_options(args.source_root)
    for opt in module.get("config-opts", []):
        m = re.fullmatch(r"-D([\w-]+)=(.*)", opt)
        check(m and m.group(1) in options, "config-opts %s is an option meson_options.txt declares" % opt)
    sources = module.get("sources", [])
    check(len(sources) == 1, "the module has one source", "%s" % sources)
    for source in sources:
        check_fields(source, SOURCE, "the source")
        path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(args.manifest)), source.get("path", "")))
        check(source.get("type") == "dir" and os.path.samefile(path, args.source_root),
              "the source is this project's tree", "%r resolves to %s" % (source, path))

    # What Flatpak exports from /app/share must carry the app id.
    exported = [d for d in installed
                if re.search(r"/share/(applications|metainfo|icons|dbus-1/services)/", d)]
    stray = [d for d in exported if not os.path.basename(d).startswith(args.app_id)]
    check(exported and not stray, "the desktop file, metainfo and icons are named after the app id",
          "not exported by Flatpak: %s" % stray)


def check_flatpak_builder(manifest, args):
    builder = shutil.which("flatpak-builder")
    if not builder:
        skip("flatpak-builder --show-manifest", "flatpak-builder is missing (build-aux/setup.sh installs it)")
        return
    # flatpak-builder makes its state folder (.flatpak-builder) in the
    # folder it runs in (--show-manifest takes no --state-dir): a temporary
    # one, not the source tree.
    states = [os.path.join(d, ".flatpak-builder") for d in (args.source_root, os.path.dirname(args.manifest))]
    before = {s for s in states if os.path.exists(s)}
    with tempfile.TemporaryDirectory(prefix="pd-flatpak-") as tmp:
        result = subprocess.run([builder, "--show-manifest", args.manifest], capture_output=True, text=True,
                                timeout=60, cwd=tmp)
    made = {s for s in states if os.path.exists(s)} - before
    check(not made, "the check leaves nothing in the source tree", "made: %s" % sorted(made))
    check(result.returncode == 0, "flatpak-builder --show-manifest reads the manifest", result.stderr)
    check("Unknown property" not in result.stderr and "WARNING" not in result.stderr,
          "flatpak-builder knows every property", result.stderr)
    if result.returncode != 0:
        return
    shown = json.loads(result.stdout)

    def kept(ours, theirs, where):
        if isinstance(ours, dict):
            for k, v in ours.items():
                if not isinstance(theirs, dict) or k not in theirs:
                    return "%s.%s was dropped" % (where, k)
                problem = kept(v, theirs[k], "%s.%s" % (where, k))
                if problem:
                    return problem
        elif isinstance(ours, list):
            if not isinstance(theirs, list) or len(theirs) != len(ours):
                return "%s differs" % where
            for i, (a, b) in enumerate(zip(ours, theirs)):
                problem = kept(a, b, "%s[%d]" % (where, i))
                if problem:
                    return problem
        elif ours != theirs:
            return "%s: %r became %r" % (where, ours, theirs)
        return None

    problem = kept(manifest, shown, "manifest")
    check(not problem, "flatpak-builder keeps every field as written", problem or "")


if __name__ == "__main__":
    sys.exit(main())
