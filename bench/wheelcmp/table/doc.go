// Command table reads the output of the wheelcmp benchmarks (one or more
// runs of each) and prints the comparison as a Markdown table: per
// operation and N the median cpu-ns/op of the wheel, the runtime, the
// runtime's timers held in a map by key (where the benchmark has that
// column) and RussellLuo, the wheel's ratio to each (the median of the ratios of runs
// taken side by side, the k-th wheel run against the k-th baseline run,
// with their smallest and largest in parentheses),
// the target (against the runtime column) and whether it is met; then the flatness of each operation
// from 1k to 1M (the largest of the wheel's medians over the smallest).
//
//	go test -run '^$' -bench . -count 3 . | tee wheels.out; go run ./table < wheels.out
//
// What it owns: reading benchmark lines named
// Benchmark<Op>/<wheel|runtime|runtimemap|russellluo>/<N> with a cpu-ns/op metric from
// standard input, and the table and flatness it prints from them. Lines of
// any other shape are passed over.
//
// Invariants: a ratio is only taken between runs of the same operation and
// N; a cell without runs of both sides prints as missing, never as a
// guess; it writes nothing but standard output.
//
// Imports: the standard library only. It lives in the benchmark-only
// module bench/wheelcmp.
package main
