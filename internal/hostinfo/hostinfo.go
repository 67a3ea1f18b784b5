// Package hostinfo describes the machine a measurement ran on: the CPU
// model, the core count and the load average, which every timing the
// tools write gives beside its figures (a shared machine's load changes
// them).
package hostinfo

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// CPUModel is the processor's model name as Linux reports it, or
// "unknown CPU".
func CPUModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return "unknown CPU"
}

// LoadAverage is the one-minute load average as Linux reports it ("" when
// it does not).
func LoadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	if f := strings.Fields(string(data)); len(f) > 0 {
		return f[0]
	}
	return ""
}

// Describe is the CPU model, the core count, the load average now (when
// known) and today's date, in one phrase.
func Describe() string {
	load := ""
	if l := LoadAverage(); l != "" {
		load = ", load average " + l + " at the start"
	}
	return fmt.Sprintf("%s, %d CPUs%s, %s", CPUModel(), runtime.NumCPU(), load, time.Now().UTC().Format("2006-01-02"))
}
