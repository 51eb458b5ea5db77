#!/bin/bash
# take-screenshots.sh BUILDDIR OUTDIR: the metainfo screenshots, under Xvfb.
#
# Writes a sample database with make-showcase-db, adds one real replayed run
# through plandeck-agent, then runs plandeck on it at 1280x800 and 360x720,
# light and dark, and captures the window with ImageMagick's import.  Then
# the demo mid-run, and the new session dialog, an approval prompt and the
# plan review dialog (brought up by shot-scenario).  Xvfb has no window
# manager to place dialogs: a dialog is captured on its own and laid over
# its window, centred, as GNOME Shell shows an attached modal dialog.
# Needs xvfb-run, xwininfo and ImageMagick (import, convert).
set -euo pipefail

build=$(realpath "${1:?usage: $0 BUILDDIR OUTDIR}")
out=$(realpath "${2:?usage: $0 BUILDDIR OUTDIR}")
src=$(dirname "$(realpath "$0")")/../..
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

db="$work/sessions.db"
"$build/tests/ui/make-showcase-db" "$db"

mkdir -p "$work/project"
echo "A small project." > "$work/project/README.md"
cat > "$work/replay.json" <<'JSON'
{"label": "Demo: a checked plan, mid-way",
 "turns": [
  {"content": "I will plan first.",
   "tool_calls": [{"name": "plan", "arguments": {"verb": "create", "steps": [
      {"id": "look", "title": "Look at the project files", "checks": [{"id": "ls", "description": "files listed", "tool": "list_dir", "arguments": {"path": "."}}]},
      {"id": "read", "title": "Read the README", "checks": [{"id": "readme", "description": "README read", "tool": "read_file", "arguments": {"path": "README.md"}}]},
      {"id": "write", "title": "Write a summary to NOTES.md"},
      {"id": "verify", "title": "Verify the summary exists"}]}}]},
  {"content": "Listing.", "tool_calls": [{"name": "list_dir", "arguments": {"path": "."}}]},
  {"content": "Listed.", "tool_calls": [{"name": "plan", "arguments": {"verb": "update", "updates": [{"id": "look", "status": "done"}, {"id": "read", "status": "in_progress", "note": "Reading the README next"}]}}]},
  {"content": "Stopping here for the demo."}]}
JSON
# The recording runs out before the plan is finished: a failed run.
"$build/app/plandeck-agent" run --db "$db" --provider replay --replay "$work/replay.json" \
  --approve auto --planning -C "$work/project" "Summarise the project (replay demo)" >/dev/null 2>&1 || true

# capture NAME W H SCHEME DELAY DIALOG-TITLE COMMAND…
# DIALOG-TITLE is the title of a dialog to lay over the window, or "".
capture () {
  local name=$1 w=$2 h=$3 scheme=$4 delay=$5 dialog=$6
  shift 6
  local cfg="$work/cfg"

  rm -rf "$cfg" "$work/raw.png" "$work/dialog.png"; mkdir -p "$cfg/glib-2.0/settings"
  # Client-side decorations without a compositor add a 5 px frame, cut below.
  printf '[io/github/plandeck/Plandeck]\nwindow-width=%s\nwindow-height=%s\n' $((w + 10)) $((h + 10)) \
    > "$cfg/glib-2.0/settings/keyfile"

  env GSETTINGS_BACKEND=keyfile XDG_CONFIG_HOME="$cfg" GSETTINGS_SCHEMA_DIR="$build/data" \
      GTK_A11Y=none NO_AT_BRIDGE=1 GSK_RENDERER=cairo XDG_DATA_HOME="$work/data" LC_ALL=C.UTF-8 \
      ADW_DEBUG_COLOR_SCHEME="$scheme" \
    xvfb-run -a -s "-screen 0 $((w + 100))x$((h + 100))x24" bash -c '
      "$@" &
      pid=$!
      sleep '"$delay"'
      id=$(xwininfo -root -tree | grep "Plandeck\"" | awk "{print \$1}" | head -1)
      import -window "$id" "'"$work"'/raw.png"
      if [ -n "'"$dialog"'" ]; then
        did=$(xwininfo -root -tree | grep "\"'"$dialog"'\"" | awk "{print \$1}" | head -1)
        import -window "$did" "'"$work"'/dialog.png"
      fi
      kill $pid' _ "$@"
  convert "$work/raw.png" -shave 5x5 +repage "$out/$name.png"
  if [ -n "$dialog" ]; then
    convert "$work/dialog.png" -shave 5x5 +repage "$work/dialog.png"
    # The window behind a modal dialog, dimmed a little as GNOME Shell does.
    convert "$out/$name.png" -fill black -colorize 25% "$work/dialog.png" \
      -gravity center -composite "$out/$name.png"
  fi
  echo "$out/$name.png"
}

shot () {
  capture "$1" "$2" "$3" "$4" 4 "" "$build/app/plandeck" --db "$5"
}

mkdir -p "$out"
shot now-1280x800-light 1280 800 prefer-light "$db"
shot now-1280x800-dark 1280 800 prefer-dark "$db"
shot now-360x720-light 360 720 prefer-light "$db"
shot now-360x720-dark 360 720 prefer-dark "$db"

"$build/tests/ui/make-showcase-db" --empty "$work/empty.db"
shot empty-1280x800-light 1280 800 prefer-light "$work/empty.db"

# The demo at its recorded pace, mid-run.
for size in 1280x800 360x720; do
  for scheme in light dark; do
    capture "demo-$size-$scheme" "${size%x*}" "${size#*x}" "prefer-$scheme" 5 "" \
      "$build/app/plandeck" --demo
  done
done

# Dialogs over a window on the sample database; runs in a copy of the demo project.
for size in 1280x800 360x720; do
  w=${size%x*} h=${size#*x}
  rm -rf "$work/runs"; cp -r "$src/data/demo/project" "$work/runs"
  capture "new-session-$size-light" "$w" "$h" prefer-light 3 "New Session" \
    "$build/tests/ui/shot-scenario" new-session "$work/runs" --db "$db"
  capture "approval-$size-light" "$w" "$h" prefer-light 4 "Allow This Change?" \
    "$build/tests/ui/shot-scenario" approval "$work/runs" --db "$db"
  capture "review-$size-light" "$w" "$h" prefer-light 4 "Review the Plan" \
    "$build/tests/ui/shot-scenario" review "$work/runs" --db "$db"
done
