package pipelinetest

import (
	"fmt"
	"net/http"
	"time"
)

// FaultKind names a scripted failure of a load.
type FaultKind string

// The faults a Browser can script (see the package doc).
const (
	// Timeout fails the load at once with pipeline.KindTimeout, as the
	// browser reports a navigation that ran out of time.
	Timeout FaultKind = "timeout"
	// Hang blocks the load until its context ends, then fails it with the
	// context's kind: pipeline.KindTimeout at the deadline,
	// pipeline.KindCanceled when the run stops.
	Hang FaultKind = "hang"
	// Crash fails the load with pipeline.KindBrowser and leaves the page
	// dead, as a renderer crash does: every later Load of the page fails
	// the same way.
	Crash FaultKind = "crash"
	// Status fails the load with pipeline.KindHTTP: the main response had
	// Fault.Status (500 when 0).
	Status FaultKind = "status"
	// Slow replays the page after Fault.Delay, or fails the load as Hang
	// does when its context ends first: a page slower than the crawl, to
	// have loads in flight when a test stops it.
	Slow FaultKind = "slow"
	// StepFail replays the page but fails its step Fault.Step
	// (pipeline.KindCapture), which ends its steps: the states before it
	// stand (see PageConfig.Steps).
	StepFail FaultKind = "step"
)

// Fault is a scripted failure of the loads of a URL.
type Fault struct {
	// Kind is the failure; the zero Fault is none.
	Kind FaultKind `json:"kind"`
	// Status is the HTTP status of a Status fault, 400 to 599; 0 means
	// 500.
	Status int `json:"status,omitempty"`
	// Delay is how long a Slow fault's load takes; only Slow has one.
	Delay time.Duration `json:"delay,omitempty"`
	// Step is the step a StepFail fault fails, from 1; only StepFail has
	// one.
	Step int `json:"step,omitempty"`
	// Times is how many loads the fault fails (or slows), counted from
	// when it was set; the loads after them replay the page at once. 0
	// means every load.
	Times int `json:"times,omitempty"`
}

// Validate reports a fault that cannot be scripted.
func (f Fault) Validate() error {
	switch {
	case f.Kind != "" && f.Kind != Timeout && f.Kind != Hang && f.Kind != Crash && f.Kind != Status && f.Kind != Slow && f.Kind != StepFail:
		return fmt.Errorf("unknown fault kind %q (want timeout, hang, crash, status, slow or step)", f.Kind)
	case (f.Kind == StepFail) != (f.Step > 0):
		return fmt.Errorf("step %d: a step fault has one, > 0, and only it", f.Step)
	case (f.Kind == Slow) != (f.Delay > 0):
		return fmt.Errorf("delay %v: a slow fault has one, > 0, and only it", f.Delay)
	case f.Status != 0 && (f.Kind != Status || f.Status < 400 || f.Status > 599):
		return fmt.Errorf("status %d: only a status fault has one, 400 to 599", f.Status)
	case f.Times < 0:
		return fmt.Errorf("times %d: want >= 0", f.Times)
	}
	return nil
}

// status is the HTTP status of a Status fault.
func (f Fault) status() int {
	if f.Status == 0 {
		return http.StatusInternalServerError
	}
	return f.Status
}
