#!/bin/bash
# follow-grow.sh BUILD DISPLAY: a window on a 30 MB Claude Code transcript
# (the fixture's lines, their ids made each copy's own) grown by 200 lines
# every 0.5 s, 20 rounds, its Transcript page shown; prints the window's
# RSS and CPU before, after and 15 s after (a measure, not a test).
# SCHEMAS: a folder of compiled GSettings schemas (default BUILD/data).
B=$1; D=$2; M=${TMPDIR:-/tmp}/follow-grow-$D
rm -rf $M; mkdir -p $M/home $M/claude/projects/-work $M/xdg/{data,config,cache,state,run}; chmod 700 $M/xdg/run
FIX="$(dirname "$0")"/../fixtures/claude-code/-home-dev-src-inkwell/b7e14c52-0d9a-4f3e-9c61-2a8f5d07e3b9.jsonl
T=$M/claude/projects/-work/s.jsonl
python3 "$(dirname "$0")"/follow-grow-gen.py $FIX $T init 31457280
export HOME=$M/home XDG_DATA_HOME=$M/xdg/data XDG_CONFIG_HOME=$M/xdg/config XDG_CACHE_HOME=$M/xdg/cache XDG_STATE_HOME=$M/xdg/state XDG_RUNTIME_DIR=$M/xdg/run
export CLAUDE_CONFIG_DIR=$M/claude GSETTINGS_SCHEMA_DIR=${SCHEMAS:-$B/data} GSETTINGS_BACKEND=memory NO_AT_BRIDGE=1
$B/app/plandeck-agent import --db $M/s.db --claude-dir $M/claude/projects >/dev/null 2>&1
Xvfb :$D -screen 0 1280x800x24 >/dev/null 2>&1 & XP=$!
sleep 2
export DISPLAY=:$D
dbus-run-session -- $B/app/plandeck --db $M/s.db >$M/app.log 2>&1 &
sleep 20
P=$(pgrep -n -f "app/plandeck --db $M/s.db")
W=$(xdotool search --name 'Plandeck' | head -1)
xdotool mousemove 507 28; sleep 0.3; xdotool click 1; sleep 15
import -display :$D -window root $M/shot-before.png
cpu() { awk '{print ($14+$15)/100}' /proc/$P/stat; }
rss() { awk '/VmRSS/{print $2/1024}' /proc/$P/status; }
echo "start rss_mb=$(rss) cpu_s=$(cpu)"
for i in $(seq 1 20); do python3 "$(dirname "$0")"/follow-grow-gen.py $FIX $T append; sleep 0.5; done
echo "after20 rss_mb=$(rss) cpu_s=$(cpu)"
sleep 15
echo "settled rss_mb=$(rss) cpu_s=$(cpu) peak=$(awk '/VmHWM/{print $2/1024}' /proc/$P/status)"
import -display :$D -window root $M/shot-after.png
kill $P; sleep 1; kill $XP
ls -la $T | awk '{print "file", $5}'
