package redact

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://127.0.0.1:2024", "http://127.0.0.1:2024"},
		{"https://alice:s3cret@host.example/api", "https://[redacted]@host.example/api"},
		{"https://tok3n@host.example", "https://[redacted]@host.example"},
		{"https://user:p@ss@host.example/x", "https://[redacted]@host.example/x"},
		{"https://host.example/users/@me", "https://host.example/users/@me"},
		{"https://host.example/?token=abc&tenant=acme", "https://host.example/?token=[redacted]&tenant=acme"},
		{"https://h/?Access_Token=a&API-KEY=b&apikey=c&key=d&Password=e&secret=f&sig=g&Signature=h&X-Amz-Security-Token=i&page=2",
			"https://h/?Access_Token=[redacted]&API-KEY=[redacted]&apikey=[redacted]&key=[redacted]&Password=[redacted]&secret=[redacted]&sig=[redacted]&Signature=[redacted]&X-Amz-Security-Token=[redacted]&page=2"},
		{"https://h/cb#access_token=abc&state=1", "https://h/cb#access_token=[redacted]&state=1"},
		{"https://h/?q=1#frag", "https://h/?q=1#frag"},
		// Not URLs hitl could use, but they may still carry a password.
		{"alice:s3cret@host:2024", "[redacted]@host:2024"},
		{"http://alice:pa/ss@host", "http://[redacted]@host"},
		{"http://al ice:pw@host?token=x", "http://[redacted]@host?token=[redacted]"},
		{"", ""},
	} {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestRedactorHidesSecretsAndURLsInText(t *testing.T) {
	r := New("sk-live-123456", "abc", "", "to/ken+1")
	in := `Get "https://bob:pw@h.example/x?token=t1": the key sk-live-123456 is wrong (see https://h.example/?sig=zz). ` +
		`echo: to%2Fken%2B1 and to/ken+1; abc stays`
	got := r.String(in)
	for _, leak := range []string{"pw", "t1", "sk-live-123456", "zz", "to%2Fken%2B1", "to/ken+1"} {
		if strings.Contains(got, leak) {
			t.Errorf("%q survived: %s", leak, got)
		}
	}
	for _, keep := range []string{"https://[redacted]@h.example/x?token=[redacted]", "?sig=[redacted]).", "abc stays"} {
		if !strings.Contains(got, keep) {
			t.Errorf("%q missing: %s", keep, got)
		}
	}
	if got := Text("GET /threads?api_key=k1&page=2 (fragment #access_token=k2)"); got != "GET /threads?api_key=[redacted]&page=2 (fragment #access_token=[redacted])" {
		t.Errorf("a path's parameters: %q", got)
	}
	if again := r.String(got); again != got {
		t.Errorf("hiding twice changed the text:\n%s\n%s", got, again)
	}
	if Text("no secrets here") != "no secrets here" || (*Redactor)(nil).String("x") != "x" {
		t.Error("plain text changed")
	}
}

func TestLongestSecretFirst(t *testing.T) {
	// A short secret inside a longer one must not leave the longer one's tail.
	if got := New("abcd", "abcdefgh").String("abcdefgh"); got != Mark {
		t.Errorf("got %q", got)
	}
}
