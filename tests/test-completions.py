#!/usr/bin/env python3
"""The bash and zsh completions of plandeck-agent, in a real bash and a real zsh.

usage: test-completions.py --agent PLANDECK_AGENT --bash FILE --zsh FILE
                           --zsh-driver complete-zsh.zsh --builddir DIR

Both files are laid out where the build installs them (meson's install plan)
under a temporary root.  bash: bash-completion loads the file on demand from
XDG_DATA_DIRS, as it does for an installed command, and the completion
function is called with COMP_WORDS split as bash splits them.  zsh: an
interactive zsh with compinit on a pseudo-terminal is sent each line and a
Tab (complete-zsh.zsh).  Each shell must offer: the commands of
`plandeck-agent --help`; for every command exactly the options of
`plandeck-agent COMMAND --help`; the subcommands of plan and sessions; the
values --help names for --provider and --approve; session ids from the
database the line names with --db (or the default one) where a session id
goes and nowhere else; folders for -C.  Prints TAP.
"""
import argparse
import json
import os
import re
import selectors
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clihelp  # noqa: E402

results = []

# How long one line may go without an answer before the shell counts as
# hung.  Not a measure of speed: an answer takes a fraction of a second,
# and the whole run's length grows with the cases and the machine's load,
# so no bound is put on it here (meson's timeout is the last resort).
STUCK_S = 90


def check(ok, name, detail=""):
    results.append(("ok" if ok else "not ok", name, detail))
    return ok


def skip(name, reason):
    results.append(("skip", name, reason))


def installed_path(builddir, source):
    """Where the build installs SOURCE, from meson's install plan."""
    with open(os.path.join(builddir, "meson-info", "intro-installed.json"), encoding="utf-8") as f:
        installed = json.load(f)
    for src, dest in installed.items():
        if os.path.realpath(src) == os.path.realpath(source):
            return dest
    return None


def lay_out(root, source, dest):
    """Copy SOURCE to DEST under ROOT; returns the copy's path."""
    path = os.path.join(root, dest.lstrip("/"))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copyfile(source, path)
    return path


def bash_words(line):
    """COMP_WORDS and COMP_CWORD as bash makes them: words split at blanks, and
    the word-break characters = and : as words of their own."""
    words = []
    for token in line.split():
        words.extend(re.findall(r"[=:]+|[^=:]+", token))
    if line == "" or line[-1].isspace():
        words.append("")
    return words, len(words) - 1


def bash_script(main_script, lines):
    quote = lambda s: "'" + s.replace("'", "'\\''") + "'"  # noqa: E731
    out = [
        "source %s" % quote(main_script),
        "__load_completion plandeck-agent || echo LOAD-FAILED",
        'echo "COMPLETE-SPEC: $(complete -p plandeck-agent 2>&1)"',
        'shopt -s extdebug; echo "DEFINED-IN: $(declare -F _plandeck_agent)"; shopt -u extdebug',
        "q() {",
        "  COMP_CWORD=$1; COMP_LINE=$2; COMP_POINT=${#COMP_LINE}; shift 2",
        "  COMP_WORDS=(\"$@\"); COMPREPLY=()",
        "  _plandeck_agent plandeck-agent \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"",
        "  printf 'R:%s\\n' \"${COMPREPLY[@]}\"; echo '--- end'",
        "}",
    ]
    for line in lines:
        words, cword = bash_words(line)
        out.append("q %d %s %s" % (cword, quote(line), " ".join(quote(w) for w in words)))
    return "\n".join(out) + "\n"


def parse_blocks(text, prefix=""):
    blocks, current = [], []
    for line in text.splitlines():
        if line == "--- end":
            blocks.append(current)
            current = []
        elif prefix and line.startswith(prefix):
            current.append(line[len(prefix):])
        elif not prefix and line.strip():
            current.append(line)
    return blocks


def run_answering(argv, script, env, cwd):
    """Runs ARGV with SCRIPT on its stdin, reading its output as it comes.
    Returns (stdout, stderr, returncode); a run that says nothing new for
    STUCK_S seconds is killed and its stderr says where it stopped."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, cwd=cwd)
    # The script is written by a thread of its own: a shell that answers
    # before it has read all of it must not block on a full pipe.
    def feed():
        try:
            proc.stdin.write(script.encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass  # the shell is gone; its answers say how far it got

    feeder = threading.Thread(target=feed)
    feeder.start()
    out, err = bytearray(), bytearray()
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ, out)
    selector.register(proc.stderr, selectors.EVENT_READ, err)
    last = time.monotonic()
    stuck = False
    while selector.get_map():
        ready = selector.select(timeout=1)
        for key, _ in ready:
            data = os.read(key.fd, 65536)
            if data:
                key.data.extend(data)
                last = time.monotonic()
            else:
                selector.unregister(key.fileobj)
        if not ready and time.monotonic() - last > STUCK_S:
            stuck = True
            proc.kill()
            break
    proc.wait()
    feeder.join()
    stdout, stderr = out.decode(errors="replace"), err.decode(errors="replace")
    if stuck:
        stderr += "\n%s said nothing for %d s after %d answers: stuck" % (
            argv[0], STUCK_S, stdout.count("--- end"))
    return stdout, stderr, proc.returncode


def run_bash(main_script, lines, env, cwd):
    stdout, stderr, _ = run_answering(["bash", "--norc", "--noprofile"], bash_script(main_script, lines), env, cwd)
    header = [l for l in stdout.splitlines() if l.startswith(("COMPLETE-SPEC:", "DEFINED-IN:", "LOAD-FAILED"))]
    blocks = parse_blocks(stdout, "R:")
    return header, [[w for w in b if w] for b in blocks], stderr


def run_zsh(driver, fpath_dir, lines, env, cwd):
    stdout, stderr, returncode = run_answering(["zsh", "-f", driver, fpath_dir], "\n".join(lines) + "\n", env, cwd)
    if returncode == 77:
        return None, stderr
    return parse_blocks(stdout), stderr


def make_sessions(agent, db, count, workdir, env):
    recording = os.path.join(workdir, "hello.json")
    with open(recording, "w") as f:
        json.dump({"label": "completion test", "turns": [{"content": "Hello."}]}, f)
    for i in range(count):
        subprocess.run([agent, "run", "--db", db, "--provider", "replay", "--replay", recording,
                        "-C", workdir, "task %d" % i],
                       check=True, capture_output=True, env=env, timeout=60)
    out = subprocess.run([agent, "sessions", "list", "--json", "--db", db],
                         check=True, capture_output=True, text=True, env=env, timeout=60).stdout
    return {s["id"] for s in json.loads(out)["sessions"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--agent", required=True)
    parser.add_argument("--bash", required=True)
    parser.add_argument("--zsh", required=True)
    parser.add_argument("--zsh-driver", required=True)
    parser.add_argument("--builddir", required=True)
    args = parser.parse_args()
    for name in ("agent", "bash", "zsh", "zsh_driver", "builddir"):
        setattr(args, name, os.path.abspath(getattr(args, name)))

    commands = clihelp.agent_commands(args.agent)
    helps = clihelp.agent_help(args.agent)
    check(len(commands) >= 8, "plandeck-agent --help lists its commands", "found %s" % commands)

    tmp = tempfile.mkdtemp(prefix="pd-completions-")
    try:
        root = os.path.join(tmp, "root")
        env = clihelp.help_env()
        env.update({
            "PATH": os.path.dirname(os.path.abspath(args.agent)) + os.pathsep + env.get("PATH", ""),
            "XDG_DATA_HOME": os.path.join(tmp, "data"),
            "XDG_CONFIG_HOME": os.path.join(tmp, "config"),
            "BASH_COMPLETION_USER_DIR": os.path.join(tmp, "no-user-completions"),
            "HOME": os.path.join(tmp, "home"),
        })
        for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "PLANDECK_MODEL", "PLANDECK_PLANNING"):
            env.pop(var, None)
        os.makedirs(env["HOME"])

        # Where the build installs the completions.
        bash_dest = installed_path(args.builddir, args.bash)
        zsh_dest = installed_path(args.builddir, args.zsh)
        check(bash_dest and bash_dest.endswith("/bash-completion/completions/plandeck-agent"),
              "bash: installed as bash-completion/completions/plandeck-agent", "install path: %s" % bash_dest)
        check(zsh_dest and zsh_dest.endswith("/zsh/site-functions/_plandeck-agent"),
              "zsh: installed as zsh/site-functions/_plandeck-agent", "install path: %s" % zsh_dest)

        # Sessions: two in the default database, one in another.
        files = os.path.join(tmp, "files")
        os.makedirs(os.path.join(files, "subfolder"))
        for name in ("notes.txt", "turns.json"):
            open(os.path.join(files, name), "w").close()
        default_db = os.path.join(env["XDG_DATA_HOME"], "plandeck", "sessions.db")
        os.makedirs(os.path.dirname(default_db))
        other_db = os.path.join(tmp, "other.db")
        default_ids = make_sessions(args.agent, default_db, 2, os.path.join(tmp, "home"), env)
        other_ids = make_sessions(args.agent, other_db, 1, os.path.join(tmp, "home"), env)
        check(len(default_ids) == 2 and len(other_ids) == 1 and not default_ids & other_ids,
              "two sessions in the default database, one in the other")
        some_id = sorted(default_ids)[0]

        # The cases: line → what must be offered (a set), or a function of
        # the offered set that says what is wrong.
        A = "plandeck-agent "
        cases = []
        cases.append((A, set(commands), "the commands of plandeck-agent --help"))
        cases.append((A + "-", {"-h", "--help", "--version"}, "the top-level options"))
        for command in commands:
            cases.append((A + command + " -", set(helps[command].options),
                          "exactly the options of %s --help" % command))
            cases.append((A + command + " --", {o for o in helps[command].options if o.startswith("--")},
                          "the long options of %s --help" % command))
            if helps[command].subcommands:
                cases.append((A + command + " ", set(helps[command].subcommands),
                              "the subcommands of the %s usage line" % command))
        for command in ("run", "continue", "serve"):
            for option in ("--provider", "--approve"):
                words = set(re.findall(r"[a-z]+", helps[command].descriptions.get(option, "")))
                cases.append((A + command + " %s " % option,
                              lambda got, words=words: (not got and "nothing offered") or
                              (not got <= words and "not named by --help: %s" % sorted(got - words)),
                              "the values --help names for %s" % option))
        cases.append((A + "run --provider=an", {"anthropic"}, "a value after ="))
        cases += [
            (A + "continue ", default_ids, "session ids of the default database"),
            (A + "continue --db %s " % other_db, other_ids, "session ids of the database --db names"),
            (A + "continue --db=%s " % other_db, other_ids, "session ids of the database --db= names"),
            (A + "continue " + some_id[:-6], {some_id}, "a session id from its beginning"),
            (A + "continue %s " % some_id, set(), "no session id for the message"),
            (A + "sessions show ", default_ids, "session ids for sessions show"),
            (A + "sessions --db %s rm " % other_db, other_ids, "session ids for sessions rm, --db first"),
            (A + "sessions export --db %s " % other_db, other_ids, "session ids for sessions export, --db after"),
            (A + "sessions list ", set(), "no session id for sessions list"),
            (A + "plan status ", default_ids, "session ids for plan status"),
            (A + "plan --db %s status " % other_db, other_ids, "session ids for plan status with --db"),
            (A + "plan apply ", set(), "nothing after plan apply"),
            (A + "events --session ", default_ids, "session ids for events --session"),
            (A + "events --db %s --session " % other_db, other_ids, "session ids for events --session with --db"),
            (A + "run ", set(), "no session id for a task"),
            (A + "run -C ", lambda got: ("subfolder" not in got and "the folder is not offered") or
             (got & {"notes.txt", "turns.json"} and "files offered for a folder: %s" % sorted(got)),
             "folders, and only folders, for -C"),
            (A + "run --replay ", lambda got: "turns.json" not in got and "the recording is not offered",
             "files for --replay"),
            (A + "import ", lambda got: "notes.txt" not in got and "files are not offered", "files for import"),
            (A + "bogus -", set(), "nothing for an unknown command"),
        ]
        lines = [c[0] for c in cases]

        def judge(shell, got):
            for (line, want, what), offered in zip(cases, got):
                offered = {o.rstrip("/") for o in offered}
                name = "%s: %s%s" % (shell, line.replace(tmp, "TMP"), "" if line.endswith(" ") else "<Tab>")
                if callable(want):
                    problem = want(offered)
                    check(not problem, "%s offers %s" % (name, what), problem or "")
                else:
                    check(offered == want, "%s offers %s" % (name, what),
                          "missing: %s; not wanted: %s" % (sorted(want - offered), sorted(offered - want)))

        # zsh works beside bash (each answers one line at a time, mostly
        # waiting on a process it started): both run at once.
        zsh_run = {}
        have_zsh = zsh_dest and shutil.which("zsh")
        if have_zsh:
            lay_out(root, args.zsh, zsh_dest)
            zsh_thread = threading.Thread(target=lambda: zsh_run.update(result=run_zsh(
                args.zsh_driver, os.path.dirname(root + zsh_dest), lines, env, files)))
            zsh_thread.start()

        # bash, through bash-completion's loader.
        bash_main = "/usr/share/bash-completion/bash_completion"
        if bash_dest and os.path.exists(bash_main) and shutil.which("bash"):
            lay_out(root, args.bash, bash_dest)
            bash_env = dict(env)
            bash_env["XDG_DATA_DIRS"] = os.path.join(root, os.path.dirname(os.path.dirname(
                os.path.dirname(bash_dest))).lstrip("/"))
            header, blocks, stderr = run_bash(bash_main, lines, bash_env, files)
            spec = [h for h in header if h.startswith("COMPLETE-SPEC:")]
            defined = [h for h in header if h.startswith("DEFINED-IN:")]
            check(spec and spec[0].endswith("complete -F _plandeck_agent plandeck-agent"),
                  "bash: bash-completion loads the installed file on demand (complete -p)", "%s" % header)
            check(defined and defined[0].endswith(root + bash_dest),
                  "bash: the function comes from the installed file", "%s" % defined)
            check(len(blocks) == len(cases), "bash: an answer for every line",
                  "%d answers for %d lines; stderr: %s" % (len(blocks), len(cases), stderr.strip()[-2000:]))
            if len(blocks) == len(cases):
                judge("bash", blocks)
        else:
            skip("bash completion", "bash or bash-completion is missing (build-aux/setup.sh installs them)")

        # zsh, from its site-functions folder.
        if have_zsh:
            parse = subprocess.run(["zsh", "-n", args.zsh], capture_output=True, text=True)
            check(parse.returncode == 0, "zsh: _plandeck-agent parses (zsh -n)", parse.stderr)
            zsh_thread.join()
            blocks, stderr = zsh_run["result"]
            if blocks is None:
                skip("zsh completion", "zsh has no zsh/zpty module: %s" % stderr.strip())
            else:
                check(len(blocks) == len(cases), "zsh: an answer for every line",
                      "%d answers for %d lines; stderr: %s" % (len(blocks), len(cases), stderr.strip()[-2000:]))
                if len(blocks) == len(cases):
                    judge("zsh", blocks)
        else:
            skip("zsh completion", "zsh is missing (build-aux/setup.sh installs it)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

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


if __name__ == "__main__":
    sys.exit(main())
