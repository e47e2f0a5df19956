package coord

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// A body over the hub's limit is refused with 413, which says the limit.
func TestABodyOverTheLimitIs413(t *testing.T) {
	srv := httptest.NewServer(New(Options{Team: testTeam()}).Handler())
	defer srv.Close()
	big := `{"agent":"claude","data":{"blob":"` + strings.Repeat("x", MaxBody+1) + `"}}`
	req, _ := http.NewRequest("POST", srv.URL+"/hitl/requests", strings.NewReader(big))
	req.Header.Set("Authorization", "Bearer ci-token-0123456789abcd")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	if resp.StatusCode != 413 || !strings.Contains(b.String(), "over the hub's limit of 16 MiB") {
		t.Fatalf("HTTP %d %s", resp.StatusCode, b.String())
	}
	if _, list := callList(t, srv, "alice-token-0123456789"); len(list) != 0 {
		t.Fatalf("a request over the limit was taken: %v", list)
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// Refusals (401, 403) are logged, logfmt, with the caller's address and
// never the token.
func TestRefusalsAreLoggedWithTheAddress(t *testing.T) {
	var logs syncBuf
	srv := httptest.NewServer(New(Options{Team: testTeam(), Log: slog.New(slog.NewTextHandler(&logs, nil))}).Handler())
	defer srv.Close()
	if code, _ := call(t, srv, "not-a-token-of-the-team-42", "GET", "/hitl/pending", nil); code != 401 {
		t.Fatalf("HTTP %d", code)
	}
	if code, _ := call(t, srv, "ci-token-0123456789abcd", "GET", "/hitl/pending", nil); code != 403 {
		t.Fatalf("HTTP %d", code)
	}
	out := logs.String()
	for _, want := range []string{`msg="door refused a call"`, "addr=127.0.0.1:", "status=401", `why="a token not of the team"`, "status=403", "principal=ci", "path=/hitl/pending"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not-a-token-of-the-team-42") || strings.Contains(out, "ci-token-0123456789abcd") {
		t.Errorf("a token is in the log:\n%s", out)
	}
}
