// Command benchratio reads `go test -bench` output on stdin and prints, for
// every benchmark that has a baseline measured in the same run, the median
// ns/op of both and their ratio. A baseline is the benchmark of the same
// name with the subject's part replaced: wheel→runtime, store→raw,
// engine→raw-leveldb, grouped→raw-nomerge, gitchanged→baseline.
//
//	go test ./deadlines -run '^$' -bench . -count 5 | go run ./internal/benchratio
//
// Imports: the standard library only; nothing imports it.
package main
