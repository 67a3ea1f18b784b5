package render

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseTagging(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    tagReply
		wantErr bool
	}{
		{
			name: "plain JSON",
			in:   `{"summary":"A page.","actions":[{"id":"B1","description":"Submit","category":"Form","params":""}]}`,
			want: tagReply{Summary: "A page.", Format: "json", Entries: []tagEntry{{"B1", "Submit", "Form", ""}}},
		},
		{
			name: "fenced with prose around",
			in:   "Sure!\n```json\n{\"summary\":\"S\",\"actions\":[{\"id\":\"L1\",\"description\":\"Go\",\"category\":\"Nav\",\"params\":\"\"}]}\n```\nAnything else?",
			want: tagReply{Summary: "S", Format: "json", Entries: []tagEntry{{"L1", "Go", "Nav", ""}}},
		},
		{
			name: "trailing text without fences",
			in:   `{"summary":"S","actions":[]} I hope this helps {"x":1}`,
			want: tagReply{Summary: "S", Format: "json"},
		},
		{
			name: "cut off: complete entries kept",
			in:   `{"summary":"S","actions":[{"id":"B1","description":"One","category":"C","params":""},{"id":"B2","descr`,
			want: tagReply{Summary: "S", Format: "json", Truncated: true, Entries: []tagEntry{{"B1", "One", "C", ""}}},
		},
		{
			name: "lenient fields",
			in: `{"Summary":" Two\n lines ","actions":[{"ID":"[i1]","Description":"Type  it","category":"Search","params":["value: string","submit: bool"]},` +
				`{"id":"O3","description":"Pick","params":{"size":"S | M","colour":null}},` +
				`{"id":"B1","description":7,"category":"X"}]}`,
			want: tagReply{Summary: "Two lines", Format: "json", Entries: []tagEntry{
				{"I1", "Type it", "Search", "value: string, submit: bool"},
				{"O3", "Pick", "", "colour, size: S | M"},
				{"B1", "7", "X", ""},
			}},
		},
		{
			name: "actions keyed by ID",
			in:   `{"summary":"S","actions":{"B1":{"description":"Go","category":"Nav"},"L2":"Open"}}`,
			want: tagReply{Summary: "S", Format: "json", Entries: []tagEntry{{"B1", "Go", "Nav", ""}, {"L2", "Open", "", ""}}},
		},
		{
			name: "dropped: no id, bad id, no description, repeat",
			in: `{"summary":"S","actions":[{"description":"x"},{"id":"B1x","description":"x"},{"id":"B2","description":" "},` +
				`{"id":"B3","description":"first"},{"id":"b3","description":"again"},"junk"]}`,
			want: tagReply{Summary: "S", Format: "json", Dropped: 5, Entries: []tagEntry{{"B3", "first", "", ""}}},
		},
		{
			name: "tagged text",
			in: "Here it is.\nSUMMARY: A login page\nwith two fields.\n\n- I1 | Authentication | Enter the email | value: string\n" +
				"* [B1] | Authentication | Submit the form |\nL1 | Open sign-up\nL2: Go home\nB9 |  | \nnot an entry | x | y",
			want: tagReply{Summary: "A login page with two fields.", Format: "text", Dropped: 1, Entries: []tagEntry{
				{"I1", "Enter the email", "Authentication", "value: string"},
				{"B1", "Submit the form", "Authentication", ""},
				{"L1", "Open sign-up", "", ""},
				{"L2", "Go home", "", ""},
			}},
		},
		{
			name: "params with pipes in tagged text",
			in:   "SUMMARY: S\nI2 | Form | Choose a size | option: S | M | L",
			want: tagReply{Summary: "S", Format: "text", Entries: []tagEntry{{"I2", "Choose a size", "Form", "option: S | M | L"}}},
		},
		{
			name: "broken JSON falls back to tagged lines",
			in:   "{oops\nSUMMARY: S\nB1 | C | D |",
			want: tagReply{Summary: "S", Format: "text", Entries: []tagEntry{{"B1", "D", "C", ""}}},
		},
		{
			name: "reasoning block skipped",
			in:   "<think>The user wants {json}. B1 | is | a button</think>\n{\"summary\":\"S\",\"actions\":[]}",
			want: tagReply{Summary: "S", Format: "json"},
		},
		{name: "empty", in: "  ", wantErr: true},
		{name: "prose", in: "I'm sorry, I can't do that.", wantErr: true},
		{name: "unrelated JSON", in: `{"answer": 42}`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseTagging(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrUnparseable) {
					t.Fatalf("err = %v, want ErrUnparseable", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseTagging_Caps(t *testing.T) {
	long := strings.Repeat("word ", 100)
	got, err := parseTagging(`{"summary":"s","actions":[{"id":"B1","description":"` + long + `","category":"` + long + `","params":""}]}`)
	if err != nil {
		t.Fatal(err)
	}
	e := got.Entries[0]
	if n := len([]rune(e.Description)); n > maxDescription+3 {
		t.Errorf("description has %d characters", n)
	}
	if n := len([]rune(e.Category)); n > maxCategory+3 {
		t.Errorf("category has %d characters", n)
	}
}

func TestParseCategory(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{`{"category":"login"}`, "login"},
		{"```json\n{\"category\": \"Search Results\"}\n```", "search results"},
		{"CATEGORY: Cookie banner.", "cookie banner"},
		{"product detail", "product detail"},
		{`{"category":"spaceship"}`, ""},
		{"I think it is a login page", ""},
	}
	for _, tt := range tests {
		got, err := parseCategory(tt.in)
		if got != tt.want || (tt.want == "") != errors.Is(err, ErrUnparseable) {
			t.Errorf("parseCategory(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestNormID(t *testing.T) {
	for in, want := range map[string]string{
		"B1": "B1", " [l12] ": "L12", `"I3"`: "I3", "B01": "", "B": "", "1B": "", "BB1": "", "B1.": "", "M123456": "M123456",
	} {
		if got := normID(in); got != want {
			t.Errorf("normID(%q) = %q, want %q", in, got, want)
		}
	}
}
