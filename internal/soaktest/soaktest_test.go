package soaktest

import "testing"

// TestRequire checks both sides of the gate: without ACTIONSPACE_SOAK=1 the
// test skips, with it the test goes on past Require.
func TestRequire(t *testing.T) {
	for _, tt := range []struct {
		value string
		skip  bool
	}{{"", true}, {"0", true}, {"true", true}, {"1", false}} {
		t.Run("value="+tt.value, func(t *testing.T) {
			t.Setenv(Env, tt.value)
			var gate *testing.T
			passed := false
			t.Run("gate", func(t *testing.T) {
				gate = t
				Require(t, "a check of the gate")
				passed = true
			})
			if gate.Skipped() != tt.skip || passed == tt.skip {
				t.Errorf("%s=%q: skipped %v, went past Require %v; want skipped %v", Env, tt.value, gate.Skipped(), passed, tt.skip)
			}
		})
	}
}
