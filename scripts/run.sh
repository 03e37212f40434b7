#!/usr/bin/env bash
# Starts the daemon with zero configuration, sets a reminder two seconds out
# so there is something to see, lists the pending deadlines, and keeps the
# daemon in the foreground until Ctrl-C.
set -euo pipefail
bin=${1:-bin/wakewheel}

# A daemon already running is left alone: say so, and touch nothing.
if running=$("$bin" status 2>/dev/null); then
  echo "wakewheel: a daemon is already running; make run leaves it alone:" >&2
  echo "$running" | grep -E '^(daemon|store|socket) ' >&2
  echo "stop it first (Ctrl-C in its terminal, or systemctl --user stop wakewheel), or use it: $bin status" >&2
  exit 1
fi

"$bin" daemon &
daemon=$!
trap 'kill -INT $daemon 2>/dev/null; wait $daemon; exit 0' INT TERM

for _ in $(seq 1 50); do
  "$bin" status >/dev/null 2>&1 && break
  kill -0 $daemon 2>/dev/null || { wait $daemon; exit 1; }
  sleep 0.1
done

"$bin" remind hello --in 2s --message "wakewheel is running: this reminder was a deadline in the wheel"
"$bin" deadlines
echo
echo "The daemon logs the reminder when it fires. In another terminal try:"
echo "  $bin status      $bin remind tea --in 3m      $bin deadlines"
echo "Ctrl-C stops the daemon (it flushes its store first)."
wait $daemon
