package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// op is one benchmark of the comparison: its name, its row label, and the
// target ratio of the wheel to the runtime.
type op struct {
	name, label string
	target      float64
}

var ops = []op{
	{"PushCancelWarm", "push+cancel, warm (4,096 keys)", 0.5},
	{"PushCancelCold", "push+cancel, cold (65,536 keys)", 0.5},
	{"ReArm4096", "re-arm across 4,096 keys, in order", 1.0},
	{"ReArm65536", "re-arm across 65,536 keys, in order", 1.0},
	{"ReArmShuffled4096", "re-arm across 4,096 keys, shuffled", 1.0},
	{"ReArmShuffled65536", "re-arm across 65,536 keys, shuffled", 1.0},
	{"PushFireWarm", "push+fire, warm (4,096 keys)", 0.5},
	{"PushFireCold", "push+fire, cold (65,536 keys)", 0.5},
	{"PushFireRealWarm", "push+fire, warm, the wheel in real time", 0.5},
	{"PushFireRealCold", "push+fire, cold, the wheel in real time", 0.5},
	{"PushFireLoopWarm", "push+fire, warm, the wheel on the daemon's loop clock", 0.5},
	{"PushFireLoopCold", "push+fire, cold, the wheel on the daemon's loop clock", 0.5},
}

var sizes = []string{"1000", "100000", "1000000"}

var (
	line  = regexp.MustCompile(`^Benchmark(\w+)/(wheel|runtime|runtimemap|russellluo)/(\d+)(-\d+)?\s.*?([\d.]+) cpu-ns/op`)
	wakes = regexp.MustCompile(`^Benchmark(\w+)/wheel/(\d+)(-\d+)?\s.*?([\d.]+) wakes/batch`)
	// BenchmarkPushFireLateness/<column>: its late-p50-µs and late-p99-µs,
	// and wakes/batch for the wheel's columns.
	lateness = regexp.MustCompile(`^BenchmarkPushFireLateness/([\w-]+?)(-\d+)?\s`)
	metric   = regexp.MustCompile(`([\d.]+) (late-p50-µs|late-p99-µs|wakes/batch)`)
)

func main() {
	runs := map[[3]string][]float64{}         // op, impl, N -> cpu-ns of each run
	wakeRuns := map[[2]string][]float64{}     // op, N -> wakes/batch of each run
	late := map[string]map[string][]float64{} // lateness column -> metric -> runs
	var lateCols []string
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if m := lateness.FindStringSubmatch(sc.Text()); m != nil {
			if late[m[1]] == nil {
				late[m[1]] = map[string][]float64{}
				lateCols = append(lateCols, m[1])
			}
			for _, mm := range metric.FindAllStringSubmatch(sc.Text(), -1) {
				if v, err := strconv.ParseFloat(mm[1], 64); err == nil {
					late[m[1]][mm[2]] = append(late[m[1]][mm[2]], v)
				}
			}
			continue
		}
		if m := wakes.FindStringSubmatch(sc.Text()); m != nil {
			if v, err := strconv.ParseFloat(m[4], 64); err == nil {
				wakeRuns[[2]string{m[1], m[2]}] = append(wakeRuns[[2]string{m[1], m[2]}], v)
			}
		}
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[5], 64)
		if err != nil {
			continue
		}
		k := [3]string{m[1], m[2], m[3]}
		runs[k] = append(runs[k], v)
	}
	fmt.Println("| operation | N | wheel cpu-ns | runtime | runtime+map | RussellLuo | wheel / runtime | wheel / runtime+map | wheel / RussellLuo | target (/ runtime) |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	var flat []string
	for _, o := range ops {
		var meds []float64
		for j, n := range sizes {
			w, s, r := runs[[3]string{o.name, "wheel", n}], runs[[3]string{o.name, "runtime", n}], runs[[3]string{o.name, "russellluo", n}]
			km := runs[[3]string{o.name, "runtimemap", n}]
			if len(w) == 0 {
				continue
			}
			meds = append(meds, median(w))
			label := ""
			if j == 0 {
				label = o.label
			}
			ws, wk, wr := ratios(w, s), ratios(w, km), ratios(w, r)
			verdict := fmt.Sprintf("≤ %.1f: met", o.target)
			switch {
			case len(ws) == 0:
				verdict = "no runtime runs: not judged"
			case median(ws) > o.target:
				verdict = fmt.Sprintf("≤ %.1f: **missed** by %.2f", o.target, median(ws)-o.target)
			}
			fmt.Printf("| %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s |\n", label, short(n), median(w), cell(s, "%.0f", median), cell(km, "%.0f", median),
				cell(r, "%.0f", median), spread(ws), spread(wk), spread(wr), verdict)
		}
		if len(meds) > 1 {
			f := slices.Max(meds) / slices.Min(meds)
			verdict := "met"
			if f > 1.5 {
				verdict = "**missed**"
			}
			flat = append(flat, fmt.Sprintf("%s %.2f× (%s)", o.label, f, verdict))
		}
	}
	fmt.Println()
	fmt.Println("Flatness 1k → 1M (the wheel's largest median over its smallest; target ≤ 1.5×):")
	for _, f := range flat {
		fmt.Println("-", f)
	}
	printWakes(wakeRuns)
	printLateness(lateCols, late)
}

// printWakes lists the wheel's wakes per batch of 1,024 (median, range)
// for the operations that report them.
func printWakes(runs map[[2]string][]float64) {
	var lines []string
	for _, o := range ops {
		var cells []string
		for _, n := range sizes {
			if w := runs[[2]string{o.name, n}]; len(w) > 0 {
				cells = append(cells, short(n)+" "+spreadOf(w, "%.1f"))
			}
		}
		if len(cells) > 0 {
			lines = append(lines, fmt.Sprintf("- %s: %s", o.label, strings.Join(cells, ", ")))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Println()
	fmt.Println("The wheel's wakes per batch of 1,024 deadlines (median, range):")
	for _, l := range lines {
		fmt.Println(l)
	}
}

// printLateness prints BenchmarkPushFireLateness's columns: the median p50
// and p99 lateness over the runs (each run's value in parentheses) and the
// wheel's wakes per batch.
func printLateness(cols []string, late map[string]map[string][]float64) {
	if len(cols) == 0 {
		return
	}
	fmt.Println()
	fmt.Println("| lateness (fired − due), 1,000 pending | p50 µs | p99 µs | wakes / batch |")
	fmt.Println("|---|---|---|---|")
	for _, c := range cols {
		m := late[c]
		fmt.Printf("| %s | %s | %s | %s |\n", c, runsOf(m["late-p50-µs"]), runsOf(m["late-p99-µs"]), runsOf(m["wakes/batch"]))
	}
}

// runsOf is the median of xs and every run's value, in run order.
func runsOf(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	each := make([]string, len(xs))
	for i, x := range xs {
		each[i] = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return fmt.Sprintf("%.0f (%s)", median(xs), strings.Join(each, " / "))
}

// spreadOf is the median of xs and, for several, their range, in format.
func spreadOf(xs []float64, format string) string {
	if len(xs) == 1 {
		return fmt.Sprintf(format, xs[0])
	}
	return fmt.Sprintf(format+" ("+format+"–"+format+")", median(xs), slices.Min(xs), slices.Max(xs))
}

// cell formats f of a baseline's runs, or a dash when it has none (a
// missing baseline is said, never printed as a number).
func cell(runs []float64, format string, f func([]float64) float64) string {
	if len(runs) == 0 {
		return "—"
	}
	return fmt.Sprintf(format, f(runs))
}

// ratios are a[k]/b[k] for the runs taken side by side, pairing them in
// order.
func ratios(a, b []float64) []float64 {
	var rs []float64
	for k := range min(len(a), len(b)) {
		rs = append(rs, a[k]/b[k])
	}
	return rs
}

// spread prints the median of rs and, for several, their range: on a loaded
// machine one median hides how far a cell swings from run to run.
func spread(rs []float64) string {
	switch len(rs) {
	case 0:
		return "—"
	case 1:
		return fmt.Sprintf("%.2f", rs[0])
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", median(rs), slices.Min(rs), slices.Max(rs))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func short(n string) string {
	switch n {
	case "1000":
		return "1k"
	case "100000":
		return "100k"
	case "1000000":
		return "1M"
	}
	return n
}
