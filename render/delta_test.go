package render

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDelta(t *testing.T) {
	tests := []struct {
		name, prev, next, want string
	}{
		{"unchanged", "B1[:]<button>A</button>\n", "B1[:]<button>A</button>\n", ""},
		{"both empty", "", "", ""},
		{"from empty", "", "B1[:]<button>A</button>\n", "+B1[:]<button>A</button>\n"},
		{"to empty", "B1[:]<button>A</button>\n", "", "-1 B1\n"},
		{"insert before",
			"B1[:]<button>A</button>\nB2[:]<button>B</button>\n",
			"B3[:]<button>N</button>\nB1[:]<button>A</button>\nB2[:]<button>B</button>\n",
			"+B3[:]<button>N</button>\n"},
		{"remove from a list",
			"_[:]Items\nB1[:]<button>A</button>\nB2[:]<button>B</button>\nB3[:]<button>C</button>\n",
			"_[:]Items\nB1[:]<button>A</button>\nB3[:]<button>C</button>\n",
			"=2\n-1 B2\n"},
		{"rename",
			"B1[:]<button>A</button>\nB2[:]<button>B</button>\n",
			"B1[:]<button>A</button>\nB2[:]<button>Bee</button>\n",
			"=1\n-1 B2\n+B2[:]<button>Bee</button>\n"},
		{"context lines name no handle",
			"_[:]one\n_[:]two\nB1[:]<button>A</button>\n",
			"B1[:]<button>A</button>\n",
			"-2\n"},
		{"newline at the end goes",
			"a\nb\n", "a\nb", "=2\n-1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Delta(tt.prev, tt.next, ActionSpaceHandle)
			if got != tt.want {
				t.Errorf("Delta = %q, want %q", got, tt.want)
			}
			back, err := ApplyDelta(tt.prev, got)
			if err != nil || back != tt.next {
				t.Errorf("ApplyDelta = %q, %v; want %q", back, err, tt.next)
			}
		})
	}
}

// checkDelta checks that the delta from prev to next round-trips and
// names, on each removal, exactly the handles of the lines it removes.
func checkDelta(t *testing.T, prev, next string, handle func(string) string, maxEdits int) string {
	t.Helper()
	d := delta(prev, next, handle, maxEdits)
	got, err := ApplyDelta(prev, d)
	if err != nil {
		t.Fatalf("ApplyDelta(%q, %q): %v", prev, d, err)
	}
	if got != next {
		t.Fatalf("ApplyDelta(%q, Delta) = %q, want %q (delta %q)", prev, got, next, d)
	}
	if d == "" {
		return d
	}
	old := strings.Split(prev, "\n")
	pos := 0
	for _, op := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
		if op[0] == '+' {
			continue
		}
		fields := strings.Fields(op[1:])
		n := 0
		for _, c := range fields[0] {
			n = n*10 + int(c-'0')
		}
		if op[0] == '-' {
			var want []string
			for _, l := range old[pos : pos+n] {
				if h := handle(l); plainHandle(h) {
					want = append(want, h)
				}
			}
			if !slices.Equal(fields[1:], want) {
				t.Fatalf("removal %q names %v, its lines hold %v", op, fields[1:], want)
			}
		}
		pos += n
	}
	return d
}

// TestDelta_RoundTripsRandomEdits applies random edits (inserts, removals,
// renames, moves) to random action spaces: every delta round-trips, and
// with a small edit bound the fallback (replace the middle) does too.
func TestDelta_RoundTripsRandomEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	line := func() string {
		if r.IntN(3) == 0 {
			return "_[:]text " + string(rune('a'+r.IntN(5)))
		}
		return string("LBI"[r.IntN(3)]) + string(rune('1'+r.IntN(9))) + "[:]<button>" + string(rune('a'+r.IntN(4))) + "</button>"
	}
	for range 500 {
		var a []string
		for range r.IntN(30) {
			a = append(a, line())
		}
		b := slices.Clone(a)
		for range r.IntN(8) {
			switch op := r.IntN(4); {
			case op == 0 || len(b) == 0:
				b = slices.Insert(b, r.IntN(len(b)+1), line())
			case op == 1:
				i := r.IntN(len(b))
				b = slices.Delete(b, i, i+1)
			case op == 2:
				b[r.IntN(len(b))] = line()
			default:
				i := r.IntN(len(b))
				l := b[i]
				b = slices.Delete(b, i, i+1)
				b = slices.Insert(b, r.IntN(len(b)+1), l)
			}
		}
		prev, next := strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n"
		if r.IntN(5) == 0 {
			next = strings.TrimSuffix(next, "\n")
		}
		full := checkDelta(t, prev, next, ActionSpaceHandle, MaxDeltaEdits)
		short := checkDelta(t, prev, next, ActionSpaceHandle, 2)
		if len(full) > len(short) {
			t.Fatalf("the shortest delta (%d bytes) is longer than the replacement (%d bytes):\n%q\n%q", len(full), len(short), full, short)
		}
	}
}

// TestDelta_StoredFormats round-trips every pair of the stored render
// goldens of one format and page (E0 to E500 to E-1 and back: windows that
// grow and shrink, as steps scroll), naming the handles of each format.
func TestDelta_StoredFormats(t *testing.T) {
	handles := map[string]func(string) string{
		"fast": ActionSpaceHandle, "playwright-ai": AISnapshotHandle, "axtree": AXTreeHandle, "browser-use": BrowserUseHandle,
	}
	dirs, err := filepath.Glob(filepath.Join("testdata", "*"))
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for _, dir := range dirs {
		for format, handle := range handles {
			var texts []string
			for _, e := range []string{"E0", "E500", "E-1"} {
				b, err := os.ReadFile(filepath.Join(dir, format+"_"+e+".txt"))
				if err != nil {
					continue
				}
				texts = append(texts, string(b))
			}
			for _, a := range texts {
				for _, b := range texts {
					checkDelta(t, a, b, handle, MaxDeltaEdits)
					pairs++
				}
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no stored texts under testdata")
	}
	t.Logf("%d pairs round-tripped", pairs)
}

// FuzzDelta: any two texts round-trip.
func FuzzDelta(f *testing.F) {
	f.Add("B1[:]<button>A</button>\n_[:]x\n", "_[:]x\nB2[:]<button>B</button>\n")
	f.Add("", "\n")
	f.Add("a\r\nb", "a\nb\r\n")
	f.Fuzz(func(t *testing.T, prev, next string) {
		checkDelta(t, prev, next, ActionSpaceHandle, MaxDeltaEdits)
		checkDelta(t, prev, next, ActionSpaceHandle, 1)
	})
}

func TestApplyDelta_Errors(t *testing.T) {
	for _, d := range []string{"=4\n", "-1\n=1\n-5\n", "?x\n", "=1", "\n", "=0\n", "=x\n"} {
		if _, err := ApplyDelta("a\nb\n", d); !errors.Is(err, ErrBadDelta) {
			t.Errorf("ApplyDelta(%q): %v, want ErrBadDelta", d, err)
		}
	}
}

func TestLineHandles(t *testing.T) {
	tests := []struct {
		f          func(string) string
		line, want string
	}{
		{ActionSpaceHandle, "B3[:]<button>Go</button>", "B3"},
		{ActionSpaceHandle, "_[:]B3[:] text", ""},
		{ActionSpaceHandle, "plain", ""},
		{AISnapshotHandle, `  - button "Submit" [ref=e12] [cursor=pointer]`, "e12"},
		{AISnapshotHandle, `- button "[ref=e99]"`, ""},
		{AISnapshotHandle, `- text: [ref=e1]`, ""},
		{AXTreeHandle, "\t\t[123] button 'Go'", "123"},
		{AXTreeHandle, "StaticText 'x'", ""},
		{AXTreeHandle, "[x] y", ""},
		{BrowserUseHandle, "\t\t[12]<button type=submit />", "12"},
		{BrowserUseHandle, "|SHADOW(open)|[7]<input />", "7"},
		{BrowserUseHandle, "|IFRAME|<iframe />", ""},
	}
	for _, tt := range tests {
		if got := tt.f(tt.line); got != tt.want {
			t.Errorf("%q: %q, want %q", tt.line, got, tt.want)
		}
	}
}
