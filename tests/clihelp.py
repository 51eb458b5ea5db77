"""What `plandeck-agent --help`, `plandeck-agent COMMAND --help` and
`plandeck --help` say: the commands, each command's options with the name of
their value, and the subcommands its usage line names.  The man page and
completion tests compare their files with this, so that neither can drift
from the programs.

GOption prints options as "  -q, --query=Q     text" under headings that end
in a colon; anything else in the output is ignored.
"""
import os
import re
import subprocess

OPTION_LINE = re.compile(r"^ {2,}(?:(-[A-Za-z0-9]), )?(--[A-Za-z0-9][\w-]*)(?:=(\S+))?(?: {2,}(.*))?$")
COMMAND_LINE = re.compile(r"^ {2}([a-z][a-z0-9-]*) {2,}\S")


def help_env():
    """The programs' help in English, whatever the caller's locale."""
    env = dict(os.environ)
    env["LC_ALL"] = "C.UTF-8"
    env.pop("LANGUAGE", None)
    return env


def run_help(argv):
    result = subprocess.run(argv, capture_output=True, text=True, env=help_env(), timeout=60)
    if result.returncode != 0:
        raise RuntimeError("%s exited with %d: %s" % (" ".join(argv), result.returncode, result.stderr.strip()))
    return result.stdout


class Help:
    """One --help output: options (name → value name or None, with the short
    option as its own entry), each option's description, and the lowercase
    words of the usage line after [OPTION…] (a command's subcommands)."""

    def __init__(self, text):
        self.text = text
        self.options = {}
        self.descriptions = {}
        self.subcommands = []
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.strip() == "Usage:" and i + 1 < len(lines):
                self.subcommands = usage_subcommands(lines[i + 1])
            m = OPTION_LINE.match(line)
            if m:
                short, long_, value, description = m.groups()
                self.options[long_] = value
                self.descriptions[long_] = description or ""
                if short:
                    self.options[short] = value
                    self.descriptions[short] = description or ""


def usage_subcommands(usage):
    """`plan [OPTION…] apply|parse|status SESSION_ID` → apply, parse, status."""
    if "]" not in usage:
        return []
    rest = usage.split("]", 1)[1].split(" \u2014 ")[0]
    words = re.split(r"[\s|]+", rest)
    return [w for w in words if re.fullmatch(r"[a-z][a-z-]*", w)]


def agent_commands(agent):
    """The commands `plandeck-agent --help` lists, in order."""
    text = run_help([agent, "--help"])
    commands = []
    in_commands = False
    for line in text.splitlines():
        if line.strip() == "Commands:":
            in_commands = True
            continue
        if in_commands:
            m = COMMAND_LINE.match(line)
            if m:
                commands.append(m.group(1))
            elif line.strip() == "":
                if commands:
                    in_commands = False
    return commands


def agent_help(agent):
    """{command: Help} for every command of plandeck-agent."""
    return {c: Help(run_help([agent, c, "--help"])) for c in agent_commands(agent)}


def app_help(app):
    """plandeck --help (the application's options and GApplication's help options)."""
    return Help(run_help([app, "--help"]))
