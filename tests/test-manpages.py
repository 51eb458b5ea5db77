#!/usr/bin/env python3
"""The man pages against the programs' own --help, so that they cannot drift.

usage: test-manpages.py --agent PLANDECK_AGENT --agent-page PLANDECK-AGENT.1
                        [--app PLANDECK --app-page PLANDECK.1] [--builddir DIR]

plandeck-agent(1): every command `plandeck-agent --help` lists has a section
(.SS) under COMMANDS and no section names a command that does not exist;
each section's options (the .TP tags, plus ENGINE OPTIONS where the section
names them) are exactly those of `plandeck-agent COMMAND --help`, each with
the same value name; the subcommands its usage line names are tags of the
section.  plandeck(1): the options of OPTIONS are exactly those of
`plandeck --help`.  Both: every option the text names anywhere exists, the
top-level options work, the pages format without a warning from groff, and
the build installs them in man1.  Prints TAP.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clihelp  # noqa: E402

FONT_MACROS = {"B": " ", "I": " ", "SM": " ", "SB": " ",
               "BI": "", "BR": "", "IB": "", "IR": "", "RB": "", "RI": ""}
OPTION_TOKEN = re.compile(r"(?<![\w/$-])(--?[A-Za-z][\w-]*)(?:=([^\s,;)\]]+))?")

results = []


def check(ok, name, detail=""):
    results.append((bool(ok), name, detail))
    return ok


def unescape(text):
    text = re.sub(r"\\f(\[[A-Z]*\]|[BIRP])", "", text)
    text = text.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
    text = text.replace("\\(em", "\u2014").replace("\\(en", "\u2013").replace("\\ ", " ")
    return text


def plain(line):
    """A troff line as the words a reader sees."""
    if line.startswith(".") or line.startswith("'"):
        parts = line[1:].split(None, 1)
        macro = parts[0] if parts else ""
        args = parts[1] if len(parts) > 1 else ""
        if macro in FONT_MACROS:
            try:
                words = shlex.split(args.replace("\\", "\\\\"), posix=True)
            except ValueError:
                words = args.split()
            return unescape(FONT_MACROS[macro].join(words))
        if macro in ("SH", "SS"):
            return unescape(args.strip().strip('"'))
        return ""
    return unescape(line)


class ManPage:
    """The sections (.SH) and subsections (.SS) of a page, with the text and
    the .TP tags of each."""

    def __init__(self, path):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.lines = [l.rstrip("\n") for l in f if not l.startswith('.\\"')]
        self.tags = {}      # (section, subsection) -> [tag text]
        self.text = {}      # (section, subsection) -> all the text
        self.subsections = {}  # section -> [subsection]
        section = subsection = None
        expect_tag = False
        for line in self.lines:
            if line.startswith(".SH"):
                section, subsection = plain(line), None
                self.subsections.setdefault(section, [])
                continue
            if line.startswith(".SS"):
                subsection = plain(line)
                self.subsections.setdefault(section, []).append(subsection)
                continue
            key = (section, subsection)
            if line.startswith(".TP") or line.startswith(".TQ"):
                expect_tag = True
                continue
            words = plain(line)
            self.text[key] = self.text.get(key, "") + " " + words
            if expect_tag and words.strip():
                self.tags.setdefault(key, []).append(words.strip())
                expect_tag = False

    def all_text(self):
        return " ".join(self.text.values())

    def options(self, section, subsection=None):
        """{option: value name or None} of the tags of a (sub)section."""
        found = {}
        for tag in self.tags.get((section, subsection), []):
            for m in OPTION_TOKEN.finditer(tag):
                found[m.group(1)] = m.group(2)
            # "-q, --query=Q": the short option takes the long one's value.
            names = [m.group(1) for m in OPTION_TOKEN.finditer(tag)]
            values = [m.group(2) for m in OPTION_TOKEN.finditer(tag) if m.group(2)]
            if values:
                for n in names:
                    found[n] = values[0]
        return found

    def word_tags(self, section, subsection):
        """The first word of tags that are not options (a command's subcommands)."""
        return [t.split()[0] for t in self.tags.get((section, subsection), []) if not t.startswith("-")]


def compare_options(name, expected, documented):
    missing = sorted(set(expected) - set(documented))
    stale = sorted(set(documented) - set(expected))
    check(not missing, "%s: every option of --help is in the man page" % name,
          "missing: %s" % ", ".join(missing))
    check(not stale, "%s: the man page names no option that --help lacks" % name,
          "not in --help: %s" % ", ".join(stale))
    wrong = ["%s=%s (--help says %s)" % (o, documented[o], expected[o])
             for o in sorted(set(expected) & set(documented)) if documented[o] != expected[o]]
    check(not wrong, "%s: each option's value is named as --help names it" % name,
          "; ".join(wrong))


def check_prose(page, known, label):
    """Every option the text names, in any section, exists."""
    text = page.all_text()
    unknown = set()
    for m in OPTION_TOKEN.finditer(text):
        option = m.group(1)
        if option.startswith("--") and option not in known:
            unknown.add(option)
    check(not unknown, "%s: every option the page names exists" % label,
          "unknown: %s" % ", ".join(sorted(unknown)))


def check_groff(path, label):
    groff = shutil.which("groff")
    if not groff:
        check(False, "%s: groff formats the page" % label, "groff is missing (build-aux/setup.sh installs groff-base)")
        return
    result = subprocess.run([groff, "-man", "-ww", "-z", "-rCHECKSTYLE=3", path],
                            capture_output=True, text=True, env=clihelp.help_env())
    check(result.returncode == 0 and result.stderr.strip() == "",
          "%s: groff -man -ww formats the page without a warning" % label, result.stderr.strip())


def check_version(page, argv, label):
    """The .TH line says "Plandeck VERSION" with the version the program prints."""
    result = subprocess.run(argv, capture_output=True, text=True, env=clihelp.help_env(), timeout=60)
    version = result.stdout.split()[-1] if result.stdout.split() else "?"
    th = [l for l in page.lines if l.startswith(".TH ")]
    check(result.returncode == 0 and th and ('"Plandeck %s"' % version) in th[0],
          "%s: its .TH names the version %s prints" % (label, " ".join(os.path.basename(a) for a in argv)),
          "%s prints %r; .TH: %s" % (argv[0], result.stdout.strip(), th))


def check_installed(builddir, page_name, label):
    intro = os.path.join(builddir, "meson-info", "intro-installed.json")
    with open(intro, encoding="utf-8") as f:
        installed = json.load(f)
    dests = [d for d in installed.values() if os.path.basename(d) == page_name]
    check(len(dests) == 1 and os.path.basename(os.path.dirname(dests[0])) == "man1",
          "%s: installed in man1" % label, "install paths: %s" % dests)


def check_agent(agent, page_path, builddir):
    page = ManPage(page_path)
    commands = clihelp.agent_commands(agent)
    helps = clihelp.agent_help(agent)
    check(len(commands) >= 8, "plandeck-agent --help lists its commands", "found %s" % commands)

    sections = page.subsections.get("COMMANDS", [])
    check(set(commands) <= set(sections), "plandeck-agent(1): every command has a section under COMMANDS",
          "missing: %s" % ", ".join(sorted(set(commands) - set(sections))))
    check(set(sections) <= set(commands), "plandeck-agent(1): every section under COMMANDS is a command",
          "not a command: %s" % ", ".join(sorted(set(sections) - set(commands))))

    engine = page.options("ENGINE OPTIONS")
    global_options = page.options("OPTIONS")
    check("--help" in global_options and "-h" in global_options,
          "plandeck-agent(1): -h, --help is under OPTIONS (every command takes it)")
    users_of_engine = 0
    for command in commands:
        if command not in sections:
            continue
        expected = {o: v for o, v in helps[command].options.items() if o not in ("-h", "--help")}
        documented = dict(page.options("COMMANDS", command))
        if "ENGINE OPTIONS" in page.text.get(("COMMANDS", command), ""):
            users_of_engine += 1
            for option, value in engine.items():
                documented.setdefault(option, value)
        compare_options("plandeck-agent %s" % command, expected, documented)
        check(helps[command].options.get("--help", "absent") is None,
              "plandeck-agent %s --help lists --help" % command)
        subs = helps[command].subcommands
        tags = page.word_tags("COMMANDS", command)
        check(set(subs) <= set(tags), "plandeck-agent(1) %s: every subcommand of the usage line is a tag" % command,
              "usage names %s, tags %s" % (subs, tags))
        check(set(tags) <= set(subs), "plandeck-agent(1) %s: every subcommand tag is in the usage line" % command,
              "tags %s, usage names %s" % (tags, subs))
    check(not engine or users_of_engine > 0, "plandeck-agent(1): ENGINE OPTIONS belong to some command")

    # The top-level options the page lists work.
    for option in sorted(global_options):
        result = subprocess.run([agent, option], capture_output=True, text=True, env=clihelp.help_env(), timeout=60)
        check(result.returncode == 0 and result.stdout.strip(),
              "plandeck-agent %s exits 0 with output, as plandeck-agent(1) says" % option,
              "exit %d, stderr %s" % (result.returncode, result.stderr.strip()))
    check_version(page, [agent, "--version"], "plandeck-agent(1)")

    known = set(global_options) | set(engine)
    for h in helps.values():
        known |= set(h.options)
    check_prose(page, known | KNOWN_APP_OPTIONS, "plandeck-agent(1)")
    check_groff(page_path, "plandeck-agent(1)")
    if builddir:
        check_installed(builddir, "plandeck-agent.1", "plandeck-agent(1)")
    return known


def check_app(app, page_path, builddir, agent_known):
    page = ManPage(page_path)
    help_ = clihelp.app_help(app)
    check("--db" in help_.options and "--version" in help_.options, "plandeck --help lists its options",
          "found %s" % sorted(help_.options))
    compare_options("plandeck", help_.options, page.options("OPTIONS"))
    check_version(page, [app, "--version"], "plandeck(1)")
    check_prose(page, set(help_.options) | agent_known, "plandeck(1)")
    check_groff(page_path, "plandeck(1)")
    if builddir:
        check_installed(builddir, "plandeck.1", "plandeck(1)")
    return set(help_.options)


KNOWN_APP_OPTIONS = set()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--agent", required=True)
    parser.add_argument("--agent-page", required=True)
    parser.add_argument("--app")
    parser.add_argument("--app-page")
    parser.add_argument("--builddir")
    args = parser.parse_args()

    # plandeck-agent(1) names plandeck's options (plandeck --remote) and the
    # other way round: each page's text may name the other program's.
    if args.app:
        KNOWN_APP_OPTIONS.update(clihelp.app_help(args.app).options)
    else:
        # A build without the GUI (-Dgui=false) has no plandeck to ask;
        # plandeck-agent(1) mentions these two of its options.
        KNOWN_APP_OPTIONS.update(["--remote", "--demo"])
    agent_known = check_agent(args.agent, args.agent_page, args.builddir)
    if args.app:
        check_app(args.app, args.app_page, args.builddir, agent_known)

    print("1..%d" % len(results))
    failed = 0
    for i, (ok, name, detail) in enumerate(results, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", i, name))
        if not ok:
            failed += 1
            for line in (detail or "").splitlines():
                print("# " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
