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

var line = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)$`)

// pairs maps a subject's path element to its baseline's.
var pairs = [][2]string{
	{"PushCancelColdKeys/wheel/", "PushCancel/runtime/"},
	{"/wheel/", "/runtime/"},
	{"/store", "/raw"},
	{"/engine", "/raw-leveldb"},
	{"/grouped/", "/raw-nomerge/"},
	{"/gitchanged", "/baseline"},
}

func main() {
	samples := map[string][]float64{}
	extra := map[string][]string{}
	var order []string
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		ns, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		if _, seen := samples[m[1]]; !seen {
			order = append(order, m[1])
		}
		samples[m[1]] = append(samples[m[1]], ns)
		extra[m[1]] = append(extra[m[1]], strings.TrimSpace(m[4]))
	}
	fmt.Printf("%-58s %12s %12s %7s  %s\n", "benchmark (median of runs)", "ns/op", "baseline", "ratio", "runs")
	for _, name := range order {
		if strings.Contains(name, "Memory") { // its ns/op is not the point: see its bytes metric
			fmt.Printf("%-58s %s\n", name, extra[name][len(extra[name])/2])
			continue
		}
		for _, p := range pairs {
			if !strings.Contains(name, p[0]) {
				continue
			}
			base := strings.Replace(name, p[0], p[1], 1)
			if _, ok := samples[base]; !ok {
				continue
			}
			a, b := median(samples[name]), median(samples[base])
			fmt.Printf("%-58s %12.1f %12.1f %7.2f  %d\n", name, a, b, a/b, len(samples[name]))
			break
		}
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
