package present

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// --json output is json.Indent's, up to maxIndent levels; past them it is
// compact, so that a value nested 9,000 deep is written in linear size.
func TestIndentJSON(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"a":1,"b":[1,2,{"c":"x,\"y\":[z]"}],"e":{},"f":[],"g":{"h":null}}`,
		`[]`, `"s"`, `[[[[1]]],{"k":[{}]}]`, `{"a\\":"\":\",[{","b":"é\u202e"}`,
	} {
		var want bytes.Buffer
		json.Indent(&want, []byte(in), "", "  ")
		if got := string(indentTo([]byte(in), maxIndent)); got != want.String() {
			t.Errorf("%s:\n%s\nwant\n%s", in, got, want.String())
		}
	}
	deep := strings.Repeat(`{"a":[`, 4500) + "1" + strings.Repeat("]}", 4500)
	got := indentTo([]byte(deep), maxIndent)
	if !json.Valid(got) || len(got) > 2*len(deep)+maxIndent*maxIndent*4 {
		t.Fatalf("9,000 levels: valid %v, %d bytes for %d", json.Valid(got), len(got), len(deep))
	}
	var v any
	if err := json.Unmarshal(indentTo([]byte(`{"x":[1,{"y":"z"}]}`), 1), &v); err != nil {
		t.Fatalf("compact past the depth is not JSON: %v", err)
	}
}
