#!/usr/bin/env bash
# clock-step.sh BIN [OTHER_BIN]: what a daemon does when the wall clock
# jumps past a deadline, as it does when a host wakes from sleep (the
# sleep is added to the wall clock) or when NTP sets a clock that was
# behind. Each binary's daemon, on a store of its own, sets a reminder due
# in 60 s; 5 s later the system clock is stepped forward by 120 s, and the
# script prints how long after the step each reminder fired, by the
# kernel's uptime (which the step does not move). The clock is stepped
# back by 120 s at the end, or on any exit.
#
# It sets the clock of the whole machine: run it as root, by hand, on a
# machine where nothing else is timing anything (never under `make test`).
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "clock-step: skipped: setting the clock needs root"; exit 0; }
bins=()
for b in "$@"; do bins+=("$(realpath "$b")"); done
[ ${#bins[@]} -gt 0 ] || { echo "usage: clock-step.sh BIN [OTHER_BIN]"; exit 2; }
work=$(mktemp -d)
stepped=0
pids=()
cleanup() {
	if [ "$stepped" = 1 ]; then date -s "@$(( $(date +%s) - 120 ))" >/dev/null; fi
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
envof() { echo "XDG_CONFIG_HOME=$work/$1/config XDG_STATE_HOME=$work/$1/state WAKEWHEEL_ENGINE_STORE_DIR=$work/$1/store WAKEWHEEL_ENGINE_SOCKET_PATH=$work/$1/s.sock"; }
for i in "${!bins[@]}"; do
	mkdir -p "$work/$i"
	env $(envof "$i") "${bins[$i]}" daemon >"$work/$i/log" 2>&1 &
	pids+=($!)
done
for i in "${!bins[@]}"; do
	for _ in $(seq 100); do [ -S "$work/$i/s.sock" ] && break; sleep 0.1; done
	env $(envof "$i") "${bins[$i]}" remind step --in 60s >/dev/null
done
uptime_s() { cut -d' ' -f1 /proc/uptime; }
sleep 5
date -s "@$(( $(date +%s) + 120 ))" >/dev/null
stepped=1
t0=$(uptime_s)
declare -A fired=()
while [ ${#fired[@]} -lt ${#bins[@]} ]; do
	for i in "${!bins[@]}"; do
		[ -n "${fired[$i]:-}" ] && continue
		if env $(envof "$i") "${bins[$i]}" fires --key reminder/step 2>/dev/null | grep -q reminder/step; then
			fired[$i]=$(awk -v a="$(uptime_s)" -v b="$t0" 'BEGIN { printf "%.2f", a - b }')
			echo "${bins[$i]}: the reminder due 55 s after the step (by the clock before it, 65 s before it after) fired ${fired[$i]} s after the step"
		fi
	done
	if awk -v a="$(uptime_s)" -v b="$t0" 'BEGIN { exit !(a - b > 90) }'; then
		for i in "${!bins[@]}"; do [ -n "${fired[$i]:-}" ] || echo "${bins[$i]}: not fired 90 s after the step"; done
		break
	fi
	sleep 0.1
done
