package metrics

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite testdata/reference_tokens.txt with the reference tokenizers (needs node and npm)")

// referenceFile holds the reference tokenizers' answers for every text of
// referenceTexts, one line per text: the first 16 hex digits of the
// SHA-256 of the text (12 hex digits), then the fields count.cjs writes.
const referenceFile = "testdata/reference_tokens.txt"

// referenceDirs are the directories, from this package's, whose files and
// lines are compared: the corpus pages and their truth, the stored
// captures with every format's golden render (actionspace, the AI
// snapshot and the accessibility tree at each golden expansion; the
// captured HTML). The bench's baseline report is left out: no product
// counts its text, and each refresh of it would need the reference again.
var referenceDirs = []string{"../corpora", "../render/testdata", "../dom/testdata"}

// pieceModeBytes is the length from which an adversarial run is compared
// by its pieces only: tiktoken's byte-pair merging takes time quadratic in
// a piece's length (16 KiB of spaces: about 1.5 s; 1 MiB: hours).
const pieceModeBytes = 256 << 10

// refText is a text of the comparison.
type refText struct {
	name string // where it comes from
	text string
}

// pieces reports whether the text is compared by its pieces only.
func (r refText) pieces() bool { return len(r.text) >= pieceModeBytes }

func textKey(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:6])
}

// numbersHash is count.cjs's hash of a list of numbers.
func numbersHash(ns []uint32) string {
	buf := make([]byte, 4*len(ns))
	for k, n := range ns {
		binary.LittleEndian.PutUint32(buf[4*k:], n)
	}
	h := sha256.Sum256(buf)
	return hex.EncodeToString(h[:4])
}

// answer is what the Counter gives for a text, in count.cjs's format: the
// mode, then two fields per encoding, in the order of Encodings.
func answer(t testing.TB, c *Counter, r refText) []string {
	t.Helper()
	fields := []string{"t"}
	if r.pieces() {
		fields[0] = "p"
	}
	text := replaceInvalid(r.text)
	for _, enc := range Encodings() {
		e := c.codecs[enc]
		var ns []uint32
		if r.pieces() {
			for i := 0; i < len(text); {
				end := e.next(text, i)
				ns = append(ns, uint32(end-i))
				i = end
			}
			fields = append(fields, numbersHash(ns))
			continue
		}
		e.tokens(r.text, func(rank uint32) { ns = append(ns, rank) })
		if n, err := c.Count(enc, r.text); err != nil || n != int64(len(ns)) {
			t.Fatalf("%s: Count(%s) = %d, %v; %d tokens", r.name, enc, n, err, len(ns))
		}
		fields = append(fields, strconv.Itoa(len(ns))+" "+numbersHash(ns))
	}
	return fields
}

// TestCounter_Reference compares the Counter with the reference tokenizer,
// tiktoken's own Rust core (see testdata/reference/count.cjs), on every
// text of referenceTexts: the token count and the token IDs, in both
// encodings; for adversarial runs too long for tiktoken to merge, the
// pieces of the pre-splitting. `go test ./metrics -run
// TestCounter_Reference -update` asks the reference again (node and npm
// needed); without -update the test reads its answers from
// testdata/reference_tokens.txt.
func TestCounter_Reference(t *testing.T) {
	texts := referenceTexts(t)
	if *update {
		writeReference(t, texts)
	}
	want, _ := readReference(t)
	if len(want) == 0 {
		t.Fatalf("no answers in %s: run `go test ./metrics -run TestCounter_Reference -update`", referenceFile)
	}
	c := mustCounter(t)
	// Under -short (the race detector's pass of make test) every tenth
	// text: the full pass compares them all.
	stride := 1
	if testing.Short() {
		stride = 10
	}
	type tally struct{ texts, bytes, mismatches int }
	tallies := make(map[string]*tally) // by mode and encoding
	var missing []string
	shown := 0
	for i, r := range texts {
		if i%stride != 0 {
			continue
		}
		w, ok := want[textKey(r.text)]
		if !ok {
			missing = append(missing, r.name)
			continue
		}
		got := answer(t, c, r)
		if got[0] != w[0] || len(w) != len(got) {
			t.Fatalf("%s: compared by %q, the reference answered by %q", r.name, got[0], w[0])
		}
		for k, enc := range Encodings() {
			key := fmt.Sprintf("%s %s", got[0], enc)
			tl := tallies[key]
			if tl == nil {
				tl = &tally{}
				tallies[key] = tl
			}
			tl.texts++
			tl.bytes += len(r.text)
			if got[k+1] != w[k+1] {
				tl.mismatches++
				if shown++; shown <= 20 {
					t.Errorf("%s %s (%d bytes, %.60q): got %s, reference %s", r.name, enc, len(r.text), r.text, got[k+1], w[k+1])
				}
			}
		}
	}
	for _, enc := range Encodings() {
		for _, mode := range []struct{ key, what string }{{"t", "token count and IDs"}, {"p", "pieces of the pre-splitting"}} {
			tl := tallies[mode.key+" "+string(enc)]
			if tl == nil || tl.texts < map[string]int{"t": 10000, "p": 10}[mode.key]/stride {
				t.Errorf("%s, %s: too few texts compared (%v): the texts were not found", enc, mode.what, tl)
				continue
			}
			t.Logf("%s, %s: %d texts (%d bytes), %d mismatches", enc, mode.what, tl.texts, tl.bytes, tl.mismatches)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d texts have no reference answer (the first: %s); run `go test ./metrics -run TestCounter_Reference -update`",
			len(missing), strings.Join(missing[:min(5, len(missing))], ", "))
	}
}

// referenceID identifies the reference: a hash of the pinned packages
// and of the script that asks them. referenceFile's answers were given by
// the reference its header names.
func referenceID(t *testing.T) string {
	t.Helper()
	var both []byte
	for _, name := range []string{"package.json", "count.cjs"} {
		data, err := os.ReadFile(filepath.Join("testdata", "reference", name))
		if err != nil {
			t.Fatal(err)
		}
		both = append(both, data...)
	}
	return textKey(string(both))
}

const referenceIDPrefix = "# reference: "

// readReference reads referenceFile: by a text's key, the mode and the
// answer in each encoding, as answer gives them; and the ID of the
// reference that gave them ("" when the file is missing).
func readReference(t *testing.T) (map[string][]string, string) {
	t.Helper()
	want := make(map[string][]string)
	f, err := os.Open(referenceFile)
	if os.IsNotExist(err) {
		return want, ""
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	id := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, referenceIDPrefix); ok {
			id = rest
		}
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 6 && f[1] == "t":
			want[f[0]] = []string{"t", f[2] + " " + f[3], f[4] + " " + f[5]}
		case len(f) == 4 && f[1] == "p":
			want[f[0]] = []string{"p", f[2], f[3]}
		default:
			t.Fatalf("%s: bad line %q", referenceFile, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return want, id
}

// writeReference rewrites referenceFile with the answers for texts: those
// it holds from the same reference are kept, the others asked of
// count.cjs. The reference packages are installed, at the versions
// package.json pins, into a directory of the user's cache named by a hash
// of package.json.
func writeReference(t *testing.T, texts []refText) {
	t.Helper()
	id := referenceID(t)
	known, knownID := readReference(t)
	if knownID != id {
		known = map[string][]string{} // another reference: ask it all again
	}
	var ask []refText
	for _, r := range texts {
		if _, ok := known[textKey(r.text)]; !ok {
			ask = append(ask, r)
		}
	}
	answers := askReference(t, ask)
	for k, r := range ask {
		known[textKey(r.text)] = strings.Fields(answers[k])
	}
	t.Logf("%d texts: %d answers kept, %d asked", len(texts), len(texts)-len(ask), len(ask))
	lines := make([]string, 0, len(texts))
	for _, r := range texts {
		key := textKey(r.text)
		lines = append(lines, key+" "+strings.Join(known[key], " ")+"\n")
	}
	slices.Sort(lines)
	head := "# The reference tokenizers' answers for the texts of TestCounter_Reference, written by\n" +
		"# `go test ./metrics -run TestCounter_Reference -update` (see testdata/reference/count.cjs):\n" +
		"# <SHA-256 of the text, 12 hex digits> t <cl100k_base count> <IDs hash> <o200k_base count> <IDs hash>\n" +
		"# <SHA-256 of the text, 12 hex digits> p <cl100k_base pieces hash> <o200k_base pieces hash>\n" +
		referenceIDPrefix + id + "\n"
	if err := os.WriteFile(referenceFile, []byte(head+strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// askReference returns count.cjs's answer line for each text.
func askReference(t *testing.T, texts []refText) []string {
	t.Helper()
	if len(texts) == 0 {
		return nil
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("-update needs %s: %v", tool, err)
		}
	}
	pkg, err := os.ReadFile("testdata/reference/package.json")
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "actionspace", "token-reference-"+textKey(string(pkg)))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "tiktoken")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "package.json"), pkg, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm install in %s: %v\n%s", dir, err, out)
		}
	}
	tmp := t.TempDir()
	in, out := filepath.Join(tmp, "texts.jsonl"), filepath.Join(tmp, "answers.txt")
	var b strings.Builder
	for _, r := range texts {
		mode := "tokens"
		if r.pieces() {
			mode = "pieces"
		}
		line, err := json.Marshal(struct {
			Text string `json:"text"`
			Mode string `json:"mode"`
		}{replaceInvalid(r.text), mode})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/reference/count.cjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "--max-old-space-size=4096", script, in, out)
	cmd.Env = append(os.Environ(), "NODE_PATH="+filepath.Join(dir, "node_modules"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node count.cjs: %v\n%s", err, stderr.String())
	}
	t.Logf("count.cjs:\n%s", stderr.String())
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	answers := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(answers) != len(texts) {
		t.Fatalf("count.cjs answered %d of %d texts", len(answers), len(texts))
	}
	return answers
}

// referenceTexts returns the texts of the comparison, each once: every
// file under referenceDirs (gzipped ones unpacked; not Go source), whole
// and line by line, and adversarialTexts.
func referenceTexts(t testing.TB) []refText {
	t.Helper()
	var texts []refText
	seen := make(map[string]bool)
	add := func(name, text string) {
		if text == "" || seen[text] {
			return
		}
		seen[text] = true
		texts = append(texts, refText{name, text})
	}
	files := 0
	for _, root := range referenceDirs {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, ".go") {
				return err
			}
			data, err := readMaybeGzip(path)
			if err != nil {
				return err
			}
			files++
			add(path, string(data))
			for k, line := range strings.SplitAfter(string(data), "\n") {
				add(fmt.Sprintf("%s:%d", path, k+1), line)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("read %s: %v", root, err)
		}
	}
	if files < 100 {
		t.Fatalf("found %d files under %v", files, referenceDirs)
	}
	for _, r := range adversarialTexts() {
		add(r.name, r.text)
	}
	return texts
}

func readMaybeGzip(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = zr
	}
	return io.ReadAll(r)
}

// adversarialTexts returns texts made to find where a pre-splitter could
// part from tiktoken's expressions: white-space runs of every shape between
// every kind of neighbour, apostrophes and contractions in both cases,
// letters of every case class with combining marks, numbers of many
// lengths and scripts, emoji, special-token text, invalid UTF-8, long
// runs (compared by tokens up to 16 KiB, by pieces at 1 MiB), and random
// mixes of all of these.
func adversarialTexts() []refText {
	var out []refText
	add := func(name, text string) { out = append(out, refText{name, text}) }

	// White space: every sequence of up to three characters of spaceAtoms,
	// after and before every kind of neighbour.
	spaceAtoms := []string{" ", "\t", "\n", "\r", "\r\n", "\u00a0", "\u3000", "\v"}
	before, after := []string{"", "x", "."}, []string{"", "x", ".", "1", "\u0301"}
	var seqs []string
	for _, a := range spaceAtoms {
		seqs = append(seqs, a)
		for _, b := range spaceAtoms {
			seqs = append(seqs, a+b)
			for _, c := range spaceAtoms {
				seqs = append(seqs, a+b+c)
			}
		}
	}
	for _, s := range seqs {
		for _, b := range before {
			for _, a := range after {
				add(fmt.Sprintf("white space %q between %q and %q", s, b, a), b+s+a)
			}
		}
	}
	// Every other white space and near-white space, alone, doubled, in runs.
	for _, r := range []rune{'\f', 0x85, 0x1680, 0x2000, 0x2007, 0x200a, 0x200b, 0x2028, 0x2029, 0x202f, 0x205f, 0xfeff, 0x1c, 0x1f} {
		s := string(r)
		for _, text := range []string{s, s + s, "a" + s + "b", "a" + s + s + "b", "a " + s + " b", "a\n" + s + "\nb", s + "\n", "x" + s + s + s} {
			add(fmt.Sprintf("white space U+%04X: %q", r, text), text)
		}
	}
	add("the HTML row that was off", "Test\n    \n</body>")
	add("CRLF page", "<html>\r\n<body>\r\n  <p>Hi</p>\r\n\r\n  \r\n\t<a href=\"/x\">Link</a>\r\n</body>\r\n</html>\r\n")

	// Apostrophes and contractions: every suffix in every case after
	// every kind of word, and followed by every kind of neighbour.
	suffixes := []string{"s", "S", "t", "T", "m", "M", "d", "D", "re", "RE", "Re", "rE", "ve", "VE", "Ve", "vE", "ll", "LL", "Ll", "lL",
		"ſ", "x", "", "'", "r", "v", "l", "res", "lls", "1"}
	words := []string{"", "don", "DON", "Don", "ǅ", "ʰ", "日本", "a\u0301", "1", " ", ".", "x "}
	for _, w := range words {
		for _, s := range suffixes {
			for _, after := range []string{"", " ", "X", "'"} {
				for _, q := range []string{"'", "’"} {
					add(fmt.Sprintf("contraction %q %q %q %q", w, q, s, after), w+q+s+after)
				}
			}
		}
	}

	// Letters of every case class, marks, numbers, symbols: every sequence
	// of up to three atoms, and random longer ones.
	atoms := []string{"A", "a", "ǅ", "ʰ", "日", "\u0301", "1", "²", " ", "'", ".", "\n", "/", "😀", "ſ",
		"ª", "\u0903", "\u20dd", "٣", "Ⅻ", "ß", "İ"} // the first 15 in every sequence of three
	for _, a := range atoms[:15] {
		add("atoms "+a, a)
		for _, b := range atoms[:15] {
			add("atoms "+a+b, a+b)
			for _, c := range atoms[:15] {
				add("atoms "+a+b+c, a+b+c)
			}
		}
	}
	rng := rand.New(rand.NewPCG(20, 1))
	for k := range 3000 {
		var b strings.Builder
		for range 4 + rng.IntN(12) {
			b.WriteString(atoms[rng.IntN(len(atoms))])
		}
		add(fmt.Sprintf("random atoms %d", k), b.String())
	}

	// Numbers of many lengths and scripts.
	for n := 1; n <= 40; n++ {
		digits := strings.Repeat("1234567890", 4)[:n]
		for _, f := range []string{"%s", " %s", "x%s", "%s.5", "-%s", "$%s,000", "%s%%", "v%s.0", "٣%s", "%s²"} {
			add(fmt.Sprintf("number %d %q", n, f), fmt.Sprintf(f, digits))
		}
	}

	// Emoji, scripts, symbols, special-token text, controls.
	for _, s := range []string{
		"😀", "😀😀😀", "👍🏽", "👨‍👩‍👧", "🇫🇷🇩🇪", "1️⃣", "❤️", "a😀b", " 😀", "😀 ", "\u200d", "x\u200dy",
		"Ελληνικά κείμενα", "Русский ТЕКСТ", "עברית", "العربية ١٢٣", "हिन्दी", "ไทย", "한국어", "日本語のテキスト", "中文，标点。",
		"ǅungla ǈ ǋ", "ᾈᾉ", "ꙮ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ℌ", "Ⅻ ⅻ", "①②③", "½ ¾", "x²+y³",
		"<|endoftext|>", "<|fim_prefix|>x<|fim_middle|>y<|fim_suffix|>", "<|endofprompt|>", "<|im_start|>",
		"\x00", "a\x00b", "\x1b[31mred\x1b[0m", "\x7f",
		"\xff", "\xe8\xaa", "a\xc0\xafb", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "ok\xe2\x82\xacok\xe2",
	} {
		add(fmt.Sprintf("text %q", s), s)
	}

	// Long runs: by tokens up to 16 KiB (tiktoken merges a run of this
	// length in about a second and a half), by pieces at 1 MiB.
	runs := []struct {
		name string
		unit func(k int) string
	}{
		{"spaces", func(int) string { return " " }},
		{"newlines", func(int) string { return "\n" }},
		{"space-newline", func(k int) string { return [2]string{" ", "\n"}[k%2] }},
		{"crlf", func(int) string { return "\r\n" }},
		{"tabs", func(int) string { return "\t" }},
		{"mixed white space", func(k int) string { return spaceAtoms[(k*7+k/3)%len(spaceAtoms)] }},
		{"letters", func(int) string { return "a" }},
		{"capitals", func(int) string { return "A" }},
		{"caseless then capitals", func(k int) string { return [2]string{"ª", "A"}[min(k, 1)] }},
		{"marks and capitals", func(k int) string { return [2]string{"\u0301", "B"}[k%2] }},
		{"digits", func(k int) string { return strconv.Itoa(k % 10) }},
		{"symbols", func(int) string { return "!" }},
		{"cjk", func(int) string { return "日" }},
	}
	for _, r := range runs {
		for _, size := range []int{1000, 4097, 16 << 10, 1 << 20} {
			var b strings.Builder
			for k := 0; b.Len() < size; k++ {
				b.WriteString(r.unit(k))
			}
			run := b.String()
			for _, ctx := range [][2]string{{"", ""}, {"x", "y"}, {"<p>", "</p>\n"}} {
				add(fmt.Sprintf("%s run of %d bytes in %q", r.name, len(run), ctx), ctx[0]+run+ctx[1])
			}
		}
	}
	return out
}

// TestReplaceInvalid checks the replacement of invalid UTF-8 against
// Python's bytes.decode(errors="replace") (each maximal ill-formed
// subsequence one U+FFFD), whose results are written out here.
func TestReplaceInvalid(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"abc", "abc"},
		{"\xff", "\ufffd"},
		{"\xe8\xaa", "\ufffd"},           // a truncated sequence is one
		{"a\xc0\xafb", "a\ufffd\ufffdb"}, // C0 is never valid: two
		{"\xed\xa0\x80", "\ufffd\ufffd\ufffd"},
		{"\xf4\x90\x80\x80", "\ufffd\ufffd\ufffd\ufffd"},
		{"\xf0\x9f\x98", "\ufffd"},
		{"\xf0\x9f\x98x", "\ufffdx"},
		{"\xe2\x82\xac\xe2", "€\ufffd"},
	} {
		if got := replaceInvalid(tt.in); got != tt.want || !utf8.ValidString(got) {
			t.Errorf("replaceInvalid(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
