// Package loadavg reads the machine's load averages, which the benchmarks
// print beside every figure they measure.
package loadavg

import (
	"os"
	"strings"
)

// Read gives the first n of the load averages /proc/loadavg holds (over
// the last 1, 5 and 15 minutes), separated by spaces, or "?" where there
// are fewer (no /proc/loadavg on this system).
func Read(n int) string {
	b, err := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if err != nil || n < 1 || len(f) < n {
		return "?"
	}
	return strings.Join(f[:n], " ")
}
