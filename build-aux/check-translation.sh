#!/bin/bash
# check-translation.sh SRCROOT LANG: the LANG translation covers every string
# the sources mark for translation, with nothing untranslated or fuzzy.  The
# template is extracted afresh from POTFILES.in, so a new string without a
# translation fails here rather than shipping in English.
set -eu
srcroot=$1 lang=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

grep -v '^[[:space:]]*\(#\|$\)' "$srcroot/po/POTFILES.in" > "$tmp/files"
xgettext --directory="$srcroot" --files-from="$tmp/files" --from-code=UTF-8 \
  --keyword=_ --keyword=N_ --keyword=C_:1c,2 --keyword=NC_:1c,2 \
  --keyword=g_dcgettext:2 --keyword=g_dngettext:2,3 --keyword=g_dpgettext2:2c,3 \
  --output="$tmp/template.pot" 2> "$tmp/xgettext.log" || {
  cat "$tmp/xgettext.log" >&2
  exit 1
}
# msgcmp fails on any message of the template that the translation lacks or
# holds only untranslated or fuzzy.
msgcmp "$srcroot/po/$lang.po" "$tmp/template.pot"
