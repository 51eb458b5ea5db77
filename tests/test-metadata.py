#!/usr/bin/env python3
"""The metainfo and the DOAP file: valid, complete, and saying the same.

usage: test-metadata.py --metainfo BUILT.metainfo.xml --doap plandeck.doap
                        --version V --license SPDX --gettext-package NAME
                        [--appstreamcli PATH]

The metainfo passes `appstreamcli validate --pedantic --no-net` with no issue
but the two the app id and Debian 12's AppStream 0.16 bring (listed below,
with why); it carries <developer id>, <branding> colours for light and dark,
<translation type="gettext"> with the project's gettext domain, and the
homepage, bugtracker, vcs-browser, translate and contribute URLs of the
project; its release is the project's version.  The DOAP file says the same
name, summary, URLs, licence, release and maintainer.  Prints TAP.
"""
import argparse
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

PROJECT_URL = "https://github.com/plandeck/plandeck"

# Issues accepted, each with its reason.
ACCEPTED = {
    # The app id is io.github.plandeck.Plandeck, as GNOME app ids are
    # (org.gnome.TextEditor); changing it would lose every user's settings.
    ("P", "cid-contains-uppercase-letter", None),
    # <developer id> is AppStream 1.0's; Debian 12's 0.16 does not know the
    # tag yet (the file keeps <developer_name> for it).
    ("I", "unknown-tag", "developer"),
}
ISSUE = re.compile(r"^([EWIP]): (\S+?):(?:(\d+):)? (\S+)(?: (.*))?$")

RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
DOAP = "{http://usefulinc.com/ns/doap#}"
FOAF = "{http://xmlns.com/foaf/0.1/}"

results = []


def check(ok, name, detail=""):
    results.append((bool(ok), name, detail))
    return ok


def validate(appstreamcli, path):
    result = subprocess.run([appstreamcli, "validate", "--pedantic", "--no-net", path],
                            capture_output=True, text=True, timeout=120)
    check(result.returncode == 0, "appstreamcli validate --pedantic --no-net passes",
          result.stdout + result.stderr)
    unexpected = []
    for line in result.stdout.splitlines():
        m = ISSUE.match(line)
        if not m:
            if re.match(r"^[EWIP]: ", line):
                unexpected.append(line)
            continue
        severity, _, _, tag, arg = m.groups()
        if (severity, tag, None) in ACCEPTED or (severity, tag, arg) in ACCEPTED:
            continue
        unexpected.append(line)
    check(not unexpected, "the metainfo has no issue but the two accepted ones", "\n".join(unexpected))


def text(element):
    return (element.text or "").strip() if element is not None else None


def check_metainfo(root, args):
    facts = {}
    facts["name"] = text(root.find("name"))
    facts["summary"] = text(root.find("summary"))
    facts["license"] = text(root.find("project_license"))
    urls = {u.get("type"): text(u) for u in root.findall("url")}
    facts["urls"] = urls
    for kind in ("homepage", "bugtracker", "vcs-browser", "translate", "contribute"):
        check(urls.get(kind, "").startswith(PROJECT_URL), "metainfo: <url type=\"%s\"> on %s" % (kind, PROJECT_URL),
              "found %r" % urls.get(kind))
    check(urls.get("homepage") == PROJECT_URL and urls.get("vcs-browser") == PROJECT_URL,
          "metainfo: the homepage and vcs-browser are the repository", "%s" % urls)

    developer = root.find("developer")
    facts["developer"] = text(developer.find("name")) if developer is not None else None
    check(developer is not None and developer.get("id") and facts["developer"],
          "metainfo: <developer id> with a <name>")
    check(text(root.find("developer_name")) == facts["developer"],
          "metainfo: <developer_name> (for AppStream 0.16) says what <developer> says",
          "%r vs %r" % (text(root.find("developer_name")), facts["developer"]))

    colors = {(c.get("type"), c.get("scheme_preference")): text(c) for c in root.findall("branding/color")}
    for scheme in ("light", "dark"):
        value = colors.get(("primary", scheme))
        check(value and re.fullmatch(r"#[0-9a-fA-F]{6}", value),
              "metainfo: <branding> has a primary colour for the %s style" % scheme, "found %r" % value)

    translation = root.find("translation")
    check(translation is not None and translation.get("type") == "gettext"
          and text(translation) == args.gettext_package,
          "metainfo: <translation type=\"gettext\"> names the gettext domain %s" % args.gettext_package,
          "found %r" % (text(translation),))

    binaries = {text(b) for b in root.findall("provides/binary")}
    check({"plandeck", "plandeck-agent"} <= binaries, "metainfo: provides both binaries", "%s" % binaries)

    release = root.find("releases/release")
    facts["version"] = release.get("version") if release is not None else None
    facts["date"] = release.get("date") if release is not None else None
    check(facts["version"] == args.version, "metainfo: the newest release is the project's version %s" % args.version,
          "found %r" % facts["version"])
    check(facts["license"] == args.license, "metainfo: the project licence is the build's %s" % args.license,
          "found %r" % facts["license"])
    return facts


def resource(element):
    return element.get(RDF + "resource") if element is not None else None


def check_doap(path, facts, args):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        check(False, "plandeck.doap is well-formed XML", str(e))
        return
    check(root.tag == DOAP + "Project", "plandeck.doap is a doap:Project", root.tag)
    same = [
        ("name", text(root.find(DOAP + "name")), facts["name"]),
        ("shortdesc / summary", text(root.find(DOAP + "shortdesc")), facts["summary"]),
        ("homepage", resource(root.find(DOAP + "homepage")), facts["urls"].get("homepage")),
        ("bug-database / bugtracker", resource(root.find(DOAP + "bug-database")), facts["urls"].get("bugtracker")),
        ("repository browse / vcs-browser", resource(root.find(DOAP + "repository/" + DOAP + "GitRepository/" +
                                                               DOAP + "browse")), facts["urls"].get("vcs-browser")),
        ("repository location", resource(root.find(DOAP + "repository/" + DOAP + "GitRepository/" + DOAP + "location")),
         PROJECT_URL + ".git"),
        ("license", resource(root.find(DOAP + "license")), "https://spdx.org/licenses/" + args.license),
        ("release revision", text(root.find(DOAP + "release/" + DOAP + "Version/" + DOAP + "revision")), args.version),
        ("release date", text(root.find(DOAP + "release/" + DOAP + "Version/" + DOAP + "created")), facts["date"]),
        ("maintainer / developer", text(root.find(DOAP + "maintainer/" + FOAF + "Organization/" + FOAF + "name")),
         facts["developer"]),
        ("programming language", text(root.find(DOAP + "programming-language")), "C"),
    ]
    for what, doap, expected in same:
        check(doap is not None and doap == expected, "plandeck.doap: %s says what the project says" % what,
              "DOAP %r, expected %r" % (doap, expected))
    description = text(root.find(DOAP + "description")) or ""
    check(len(description) > 100, "plandeck.doap: a description")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--metainfo", required=True)
    parser.add_argument("--doap", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--license", required=True)
    parser.add_argument("--gettext-package", required=True)
    parser.add_argument("--appstreamcli", default="appstreamcli")
    args = parser.parse_args()

    validate(args.appstreamcli, args.metainfo)
    facts = check_metainfo(ET.parse(args.metainfo).getroot(), args)
    check_doap(args.doap, facts, args)

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
