package dom

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// storedCaptures reads the corpus captures stored beside the render
// goldens.
func storedCaptures(tb testing.TB) map[string][]byte {
	tb.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "render", "testdata", "*", "capture.json.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	out := make(map[string][]byte)
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			tb.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		data, err := io.ReadAll(zr)
		f.Close()
		if err != nil {
			tb.Fatalf("%s: %v", p, err)
		}
		out[filepath.Base(filepath.Dir(p))] = data
	}
	if len(out) == 0 {
		tb.Fatal("no stored captures under ../render/testdata")
	}
	return out
}

// slowDecode is the reference: encoding/json.
func slowDecode(data []byte) (*Capture, error) {
	var c Capture
	err := json.Unmarshal(data, &c)
	return &c, err
}

// TestDecodeFast_MatchesEncodingJSON: on every stored corpus capture, and
// on the same captures re-encoded by json.Marshal (how stitched records
// are written), the fast path decodes, and to what encoding/json gives.
func TestDecodeFast_MatchesEncodingJSON(t *testing.T) {
	for name, data := range storedCaptures(t) {
		want, err := slowDecode(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		remarshaled, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		for variant, in := range map[string][]byte{"script": data, "json.Marshal": remarshaled} {
			got, ok := decodeFast(in)
			if !ok {
				t.Errorf("%s (%s): fast path refused a capture record", name, variant)
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s (%s): fast path and encoding/json disagree", name, variant)
			}
		}
	}
}

func TestDecodeFast_EdgeCases(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		wantOK bool
	}{
		{"minimal", `{"version":1,"page":{},"nodes":[]}`, true},
		{"white space", " {\n\"version\" : 1 , \"page\" : { } , \"nodes\" : [ ] } \n", true},
		{"escapes", `{"version":1,"page":{"title":"a\"b\\c\/d\n\u00e9\ud83d\ude00 \ud800x"},"nodes":[{"k":3,"p":-1,"t":"\t\u2028","r":[0,0,0,0],"v":false}]}`, true},
		{"numbers", `{"version":1,"page":{"vw":1.5e3,"sx":-0.25,"time":1796066922409},"nodes":[{"k":1,"p":-1,"r":[-1,2E-2,3.5,4],"v":true,"o":0,"c":1,"si":[],"s":[],"a":[]}]}`, true},
		{"all node fields", `{"version":1,"page":{},"nodes":[{"k":1,"p":-1,"tag":"iframe","a":[["src","x"]],"r":[1,2,3,4],"cr":[1,2,3,0],"v":true,"h":1,"ah":1,"s":["tag","role"],"d":"inert","o":1,"f":2,"sh":1,"b":1,"lc":0,"m":1,"c":0,"val":"v","on":3,"os":["a","b"],"si":[1,2],"fx":1,"fb":[1,2,3,4],"fc":[1,2,3,4]}]}`, true},
		{"unknown key", `{"version":1,"page":{"new":1},"nodes":[]}`, false},
		{"other case", `{"Version":1,"page":{},"nodes":[]}`, false},
		{"null", `{"version":1,"page":{},"nodes":null}`, false},
		{"fraction in int", `{"version":1.0,"page":{},"nodes":[]}`, false},
		{"short rect", `{"version":1,"page":{},"nodes":[{"k":1,"p":-1,"r":[1,2,3],"v":true}]}`, false},
		{"long attr", `{"version":1,"page":{},"nodes":[{"k":1,"p":-1,"r":[1,2,3,4],"v":true,"a":[["a","b","c"]]}]}`, false},
		{"leading zero", `{"version":01,"page":{},"nodes":[]}`, false},
		{"trailing garbage", `{"version":1,"page":{},"nodes":[]}x`, false},
		{"raw control char", "{\"version\":1,\"page\":{\"title\":\"a\tb\"},\"nodes\":[]}", false},
		{"invalid UTF-8", "{\"version\":1,\"page\":{\"title\":\"a\xffb\"},\"nodes\":[]}", false},
		{"truncated", `{"version":1,"page":{},"nodes":[{"k":1`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := decodeFast([]byte(tt.in))
			if ok != tt.wantOK {
				t.Fatalf("decodeFast ok = %v, want %v", ok, tt.wantOK)
			}
			if !ok {
				return
			}
			want, err := slowDecode([]byte(tt.in))
			if err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("fast path %+v\nencoding/json %+v", got, want)
			}
		})
	}
}

// FuzzDecodeFast: whatever the fast path accepts, encoding/json decodes to
// the same capture.
func FuzzDecodeFast(f *testing.F) {
	f.Add([]byte(`{"version":1,"page":{"url":"u","vw":1280},"nodes":[{"k":1,"p":-1,"tag":"a","a":[["href","/x"]],"r":[1,2,3,4],"v":true,"s":["tag"],"o":1}]}`))
	f.Add([]byte(`{"version":1,"page":{"title":"\ud83d\ude00\u00e9"},"nodes":[{"k":3,"p":0,"t":"x\"y","r":[0,0,0,0],"v":false}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := decodeFast(data)
		if !ok {
			return
		}
		want, err := slowDecode(data)
		if err != nil {
			t.Fatalf("fast path accepted what encoding/json refuses (%v): %q", err, data)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("fast path and encoding/json disagree on %q", data)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	data := storedCaptures(b)["products"]
	b.SetBytes(int64(len(data)))
	for _, bc := range []struct {
		name   string
		decode func([]byte) (*Capture, error)
	}{
		{"fast", func(d []byte) (*Capture, error) { c, _ := decodeFast(d); return c, nil }},
		{"encoding/json", slowDecode},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := bc.decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDecodeFast_EveryField fills every field of the record (by reflection,
// so that a field added later is covered too) and requires the fast path
// to decode it, to what encoding/json gives.
func TestDecodeFast_EveryField(t *testing.T) {
	var fill func(v reflect.Value, seed int)
	fill = func(v reflect.Value, seed int) {
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i), seed+i)
			}
		case reflect.Int:
			v.SetInt(int64(seed%7 + 1))
		case reflect.Float64:
			v.SetFloat(float64(seed) + 0.25)
		case reflect.Bool:
			v.SetBool(true)
		case reflect.String:
			v.SetString("s" + string(rune('a'+seed%26)))
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), seed)
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := range 2 {
				fill(v.Index(i), seed+i)
			}
		case reflect.Array:
			for i := range v.Len() {
				fill(v.Index(i), seed+i)
			}
		}
	}
	var n Node
	fill(reflect.ValueOf(&n).Elem(), 1)
	var p PageInfo
	fill(reflect.ValueOf(&p).Elem(), 1)
	data, err := json.Marshal(map[string]any{"version": CaptureVersion, "page": p, "nodes": []Node{n}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := slowDecode(data)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := decodeFast(data)
	if !ok {
		t.Fatalf("fast path refused a record with every field set:\n%s", data)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("fast path and encoding/json disagree:\n got %+v\nwant %+v", got, want)
	}
}
