#!/usr/bin/env bash
# Fails when a source file with translatable strings is missing from
# po/POTFILES.in, or when POTFILES.in names a file that does not exist.
#
# Usage: check-potfiles.sh [SOURCE_ROOT]
set -euo pipefail

root="${1:-$(dirname "$0")/..}"
cd "$root"

potfiles=po/POTFILES.in
if [ ! -f "$potfiles" ]; then
  echo "check-potfiles: $potfiles not found" >&2
  exit 1
fi

listed=$(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$potfiles" | sort -u)

status=0

# Files listed but gone.
while IFS= read -r f; do
  [ -n "$f" ] || continue
  if [ ! -f "$f" ]; then
    echo "check-potfiles: $potfiles lists $f, which does not exist" >&2
    status=1
  fi
done <<< "$listed"

# Files with translatable strings: C sources using the gettext macros,
# GtkBuilder files with translatable properties, and the data files whose
# strings msgfmt merges (desktop, metainfo, gschema).
candidates=$(
  {
    find app core ui -type f \( -name '*.c' -o -name '*.h' \) -print0 2>/dev/null |
      xargs -0 -r grep -lE '(^|[^[:alnum:]_])(_|N_|C_|NC_|Q_|ngettext|g_dngettext)[[:space:]]*\(' || true
    find app core ui data -type f -name '*.ui' -print0 2>/dev/null |
      xargs -0 -r grep -l 'translatable="yes"' || true
    find data -type f \( -name '*.desktop.in' -o -name '*.metainfo.xml.in' \
      -o -name '*.gschema.xml' \) 2>/dev/null || true
  } | sed 's|^\./||' | sort -u
)

while IFS= read -r f; do
  [ -n "$f" ] || continue
  if ! grep -qxF "$f" <<< "$listed"; then
    echo "check-potfiles: $f has translatable strings but is not in $potfiles" >&2
    status=1
  fi
done <<< "$candidates"

if [ "$status" -eq 0 ]; then
  echo "check-potfiles: $(grep -c . <<< "$listed") files listed, none missing"
fi
exit "$status"
