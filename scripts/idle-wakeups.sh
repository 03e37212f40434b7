#!/usr/bin/env bash
# idle-wakeups.sh BIN [SECONDS]: start the daemon BIN on an empty store with
# nothing due, let it settle, then count for SECONDS (default 60) with
# strace how often one of its threads came back from a blocking wait
# (epoll_pwait, a futex wait, nanosleep): the daemon's wake-ups. Also
# prints every syscall the daemon made in that time, and the kernel's count
# of voluntary context switches over a second window of the same length
# without strace attached. Also the wake episodes: how often the whole
# process left idle (a syscall after 100 ms in which no thread made one),
# which counts the Go runtime's short backoff sleeps after a wake as the
# one wake they follow, and the gaps between episodes (a source's period).
# Needs strace (Debian package strace); as root it installs it, otherwise
# it skips with a message. Last, the idle daemon's RSS and the binary's size.
# The daemon's settings come from the environment (WAKEWHEEL_METRICS_LISTEN=
# 127.0.0.1:9464 measures it with its metrics listener); IDLE_ROOT=DIR
# watches and arms DIR (ingest: true) before the count; IDLE_TRACE=FILE
# keeps the strace -f -tt trace there.
set -euo pipefail
bin=$(realpath "${1:?usage: idle-wakeups.sh BIN [SECONDS]}")
secs=${2:-60}
if ! command -v strace >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y -qq strace >/dev/null 2>&1 || true
	fi
	if ! command -v strace >/dev/null; then
		echo "idle-wakeups: skipped: strace is not installed (apt-get install strace)"
		exit 0
	fi
fi
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
home=(XDG_CONFIG_HOME="$dir/config" XDG_STATE_HOME="$dir/state"
	WAKEWHEEL_ENGINE_STORE_DIR="$dir/store" WAKEWHEEL_ENGINE_SOCKET_PATH="$dir/s.sock")
env "${home[@]}" "$bin" daemon >"$dir/log" 2>&1 &
pid=$!
for _ in $(seq 100); do [ -S "$dir/s.sock" ] && break; sleep 0.1; done
if [ -n "${IDLE_ROOT:-}" ]; then # an armed root: its watchers count too
	env "${home[@]}" "$bin" watch "$IDLE_ROOT" --arm --ingest true >/dev/null
	for _ in $(seq 300); do grep -q '^mode *notify' <(env "${home[@]}" "$bin" roots 2>/dev/null) && break; sleep 0.1; done
fi
sleep 3 # let the start-up settle

switches() { # voluntary context switches of every thread of $pid
	cat /proc/"$pid"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {n += $2} END {print n}'
}
before=$(switches)
sleep "$secs"
after=$(switches)

timeout "$secs" strace -f -tt -p "$pid" -o "$dir/trace" 2>/dev/null || true
rss=$(awk '/^VmRSS/ {print $2}' /proc/"$pid"/status)
[ -z "${IDLE_TRACE:-}" ] || cp "$dir/trace" "$IDLE_TRACE"
calls=$(wc -l <"$dir/trace")
# A wait that came back: a complete or resumed line of a blocking call.
wakeups=$(grep -E '(epoll_pwait|nanosleep|restart_syscall|FUTEX_WAIT)[^<]*\) = |<\.\.\. (epoll_pwait|nanosleep|restart_syscall|futex) resumed>' "$dir/trace" |
	grep -vc 'FUTEX_WAKE' || true)
awk -v w="$wakeups" -v c="$calls" -v s="$secs" -v x="$((after - before))" 'BEGIN {
	printf "idle daemon, %ds with strace: %d wake-ups (%.2f/s), %d syscalls\n", s, w, w / s, c
	printf "idle daemon, %ds without strace: %d voluntary context switches (%.2f/s)\n", s, x, x / s
}'
echo "idle daemon RSS after both windows: $((rss / 1024)) MiB ($rss KiB); binary $(stat -c %s "$bin") bytes"
# Episodes: a line >= 100 ms after the previous one (the lines of the first
# second are strace attaching to the threads' waits, one by one: not wakes).
awk -v s="$secs" '{
	split($2, t, ":"); now = t[1] * 3600 + t[2] * 60 + t[3]
	if (NR == 1) { first = now }
	if (now - first > 1 && now - last >= 0.1) { gap[++n] = now - last }
	last = now
} END {
	printf "idle daemon, %ds with strace: %d wake episodes (%.3f/s)", s, n, n / s
	if (n > 0) { printf "; seconds of silence before each:"; for (i = 1; i <= n; i++) printf " %.1f", gap[i] }
	printf "\n"
}' "$dir/trace"
