#!/bin/bash
# check-screenshots.sh METAINFO DIR: every screenshot the metainfo lists is a
# file in DIR (the tree holds what the published URLs point at), and there is
# at least one, marked as the default.
set -eu
metainfo=$1 dir=$2
images=$(grep -o '<image>[^<]*</image>' "$metainfo" | sed 's|<image>||; s|</image>||')
if [ -z "$images" ]; then
  echo "$metainfo lists no screenshots" >&2
  exit 1
fi
grep -q '<screenshot type="default">' "$metainfo" || {
  echo "$metainfo marks no screenshot as the default" >&2
  exit 1
}
status=0
for url in $images; do
  name=${url##*/}
  if [ ! -f "$dir/$name" ]; then
    echo "screenshot $name is listed in $metainfo but not in $dir" >&2
    status=1
  fi
done
exit $status
