package inert

import (
	"encoding/json"
	"testing"
)

func TestText(t *testing.T) {
	tests := []struct {
		in, want string
		keep     bool
		warn     Warning
	}{
		{"plain text", "plain text", false, 0},
		{"héllo, 世界", "héllo, 世界", false, 0},
		{"a\nb\tc", "a\nb\tc", true, 0},
		{"a\nb", `a\nb`, false, 0},
		{"\x1b[2Jclear", `\u001b[2Jclear`, true, Control},
		{"\x1b]0;title\x07", `\u001b]0;title\u0007`, true, Control},
		{"csi\u009b31m", `csi\u009b31m`, true, Control},
		{"del\x7f", `del\u007f`, true, Control},
		{"safe\u202etxt.exe", "safe<U+202E>txt.exe", true, Bidi},
		{"a\u2066b\u2069", "a<U+2066>b<U+2069>", true, Bidi},
		{"zero\u200bwidth\ufeff", "zero<U+200B>width<U+FEFF>", true, Invisible},
		{"tag\U000E0041", "tag<U+E0041>", true, Invisible},
		{"bad\xffutf8", `bad\xffutf8`, true, BadUTF8},
		{"\r\x00", `\r\u0000`, true, Control},
	}
	for _, tt := range tests {
		got, w := Text(tt.in, tt.keep)
		if got != tt.want || w != tt.warn {
			t.Errorf("Text(%q) = %q, %v; want %q, %v", tt.in, got, w, tt.want, tt.warn)
		}
		if Check(tt.in) != tt.warn && tt.keep {
			t.Errorf("Check(%q) = %v", tt.in, Check(tt.in))
		}
	}
}

func TestJSONKeepsMeaning(t *testing.T) {
	in := []byte("{\"a\":\"x\u202ey\u200b\u009bz\x7f\",\"t\":\"\U000E0041\"}")
	out := JSON(in)
	want := `{"a":"x\u202ey\u200b\u009bz\u007f","t":"\udb40\udc41"}`
	if string(out) != want {
		t.Fatalf("JSON = %s\nwant   %s", out, want)
	}
	var a, b map[string]string
	if err := json.Unmarshal(in, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatal(err)
	}
	if a["a"] != b["a"] || a["t"] != b["t"] {
		t.Fatalf("meaning changed: %q vs %q", a, b)
	}
}
