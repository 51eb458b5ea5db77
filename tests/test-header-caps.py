#!/usr/bin/env python3
"""Titles and buttons use header capitalisation (GNOME HIG).

usage: test-header-caps.py SOURCE_DIR

Reads every .ui file of ui/ and checks the translatable texts a person reads
as a title or a control's label: window, page, group, row and status-page
titles, dialog headings, button and toggle labels, menu items, and
tooltips of icon buttons (they name the button).  Each word after the first
starts with a capital letter, except short words (a, the, of, to, …), as
the HIG's header capitalisation says.  Sentences (ending with a full stop)
and accessible descriptions are sentence-capitalised by the same rules and
are left out.  Prints TAP, one case per file.
"""
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

MINOR = set("a an the and but or nor for on at to by of in as with from into over via vs is are be it its per up off out".split())
TITLE_PROPERTIES = {"title", "heading", "label", "tooltip-text", "button-label"}


def offenders(text):
    """Words after the first that should start with a capital."""
    words = re.findall(r"[\w’'-]+", text.replace("_", ""))
    bad = []
    for i, word in enumerate(words):
        if i == 0 or word.lower() in MINOR and word.islower():
            continue
        if word[0].islower() and not word.startswith(("-", "--")):
            bad.append(word)
    return bad


def texts(path):
    """(where, text) of each title or control label in a .ui file."""
    tree = ET.parse(path)
    for parent in tree.iter():
        for child in parent:
            translatable = child.get("translatable") == "yes"
            if not translatable or child.text is None:
                continue
            name = child.get("name")
            if child.tag == "attribute" and name == "label":
                yield ("menu item", child.text)
            elif child.tag == "property" and name in TITLE_PROPERTIES:
                if parent.tag == "accessibility":
                    continue
                klass = parent.get("class", "")
                # A plain GtkLabel's text is content, not a title; the
                # shortcuts window describes actions in sentences.
                if name == "label" and klass in ("GtkLabel", ""):
                    continue
                if klass == "GtkShortcutsShortcut":
                    continue
                # A tooltip that explains (a clause, a list) is a sentence.
                if name == "tooltip-text" and (re.search(r"[:,;]", child.text) or len(child.text.split()) > 7):
                    continue
                yield (f"{klass} {name}", child.text)


def main():
    source = Path(sys.argv[1])
    files = sorted((source / "ui").rglob("*.ui"))
    print(f"1..{len(files)}")
    failed = 0
    for n, path in enumerate(files, 1):
        problems = []
        for where, text in texts(path):
            if text.rstrip().endswith((".", "?", "!")) and len(text.split()) > 4:
                continue
            bad = offenders(text)
            if bad:
                problems.append(f"{where} “{text}”: {', '.join(bad)}")
        name = path.relative_to(source)
        if problems:
            failed += 1
            print(f"not ok {n} {name}")
            for problem in problems:
                print(f"# {problem}")
        else:
            print(f"ok {n} {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
