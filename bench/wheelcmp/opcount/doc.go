// Command opcount runs one wheel operation (or the runtime's Timer.Reset)
// a given number of times after the same set-up as the wheelcmp
// benchmarks, for counting the instructions an operation executes under
// valgrind's callgrind. An instruction count does not move with the load of
// a shared machine, where a cpu-ns cell swings by half; it is no time
// (cache misses cost nothing in it), so it shows only what a change did to
// the work in the caches. Two runs of different lengths, subtracted, leave
// the set-up out:
//
//	go build -o /tmp/opcount ./opcount
//	c() { GODEBUG=asyncpreemptoff=1 GOGC=off valgrind --tool=callgrind --callgrind-out-file=/dev/null /tmp/opcount -op extend -n $1 2>&1 | awk '/Collected/ {print $4}'; }
//	echo $(( ($(c 300000) - $(c 100000)) / 200000 ))
//
// (asyncpreemptoff: callgrind does not survive the runtime's preemption
// signals.)
//
// What it owns: the loops, each as the matching benchmark body with 1,000
// deadlines pending a month out (-pending, 1,000 unless told): extend (re-arm across -keys keys, in
// order, or with -shuffle in the fixed random order of the shuffled benchmarks, each named in an
// equal string of its own), pushcancel, pushfire,
// reset (Timer.Reset across -keys timers), resetmap (the same timers
// held in a map by key, each found by an equal string of its own, with
// the 1,000 pending ones in the map too). Imports: the standard library
// and the deadlines package only; it writes nothing but what the runtime
// prints.
package main
