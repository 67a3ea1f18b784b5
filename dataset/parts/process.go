package parts

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// process identifies a running process well enough to tell, on the same
// machine, whether it is still there: the machine (host name and the
// kernel's boot ID) and the process (pid and start time, so that a pid
// reused by another process is not mistaken for it).
type process struct {
	host, boot string
	pid        int
	start      string
}

// self returns this process's identity; boot and start are empty where
// /proc does not tell them.
func self() process {
	host, _ := os.Hostname()
	pid := os.Getpid()
	return process{host: host, boot: bootID(), pid: pid, start: startTime(pid)}
}

// bootID returns the kernel's boot ID, "" when unknown.
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return string(bytes.TrimSpace(b))
}

// startTime returns when process pid started, in clock ticks since boot
// (field 22 of /proc/PID/stat), "" when unknown.
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// count the fields after its closing parenthesis, which is field 3.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}

// gone reports whether the holder of info is known to be dead: it ran on
// this machine since its last boot (same host name and boot ID) and its
// pid is not running, or runs a process that started at another time.
// Anything else — another machine, an unknown boot ID or start time — is
// not known, and the lease's expiry rules.
func (p process) gone(info LockInfo) bool {
	if p.boot == "" || info.Boot == "" || info.Start == "" || info.Host != p.host || info.Boot != p.boot {
		return false
	}
	if info.PID == p.pid && info.Start == p.start {
		return false // this very process
	}
	return startTime(info.PID) != info.Start
}
