package pipeline

import (
	"slices"
	"strings"
	"testing"
	"time"

	"actionspace/axtree"
)

// TestParseSteps: a comma list of the step actions, "" and "none" for
// none; an unknown action, or more than MaxSteps, is refused.
func TestParseSteps(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []string
		err  string
	}{
		{"", nil, ""},
		{"none", nil, ""},
		{"scroll, expand,type,wait,back", []string{"scroll", "expand", "type", "wait", "back"}, ""},
		{"wait,wait", []string{"wait", "wait"}, ""},
		{"scroll,click", nil, `unknown step "click"`},
		{strings.Repeat("wait,", MaxSteps) + "wait", nil, "at most"},
	} {
		got, err := ParseSteps(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseSteps(%q): %v, want an error with %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseSteps(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
}

// TestPageConfig_validateSteps: steps validate with the default probe;
// an unknown action, a negative step limit and the probe that scrolls the
// page (axtree.ProbeAll) are refused.
func TestPageConfig_validateSteps(t *testing.T) {
	t.Parallel()
	ok := DefaultPageConfig()
	ok.Steps, ok.StepTimeout = []string{StepScroll, StepBack}, time.Second
	if err := ok.Validate(); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	for name, change := range map[string]func(*PageConfig){
		"unknown":   func(c *PageConfig) { c.Steps = []string{"jump"} },
		"negative":  func(c *PageConfig) { c.StepTimeout = -time.Second },
		"probe all": func(c *PageConfig) { c.Extras.ActionableProbe = axtree.ProbeAll },
		"too many":  func(c *PageConfig) { c.Steps = slices.Repeat([]string{StepWait}, MaxSteps+1) },
	} {
		c := ok
		change(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: validates", name)
		}
	}
	all := DefaultPageConfig()
	all.Extras.ActionableProbe = axtree.ProbeAll
	if err := all.Validate(); err != nil {
		t.Errorf("the probe that scrolls, without steps: %v", err)
	}
}
