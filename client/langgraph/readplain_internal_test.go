package langgraph

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// plainAnswers are answers a look may get: the forms the real servers send,
// and the ones readPlain must leave to net/http.
var plainAnswers = map[string]string{
	"js dev server":         "HTTP/1.1 200 OK\r\naccess-control-allow-origin: *\r\ncontent-type: application/json\r\nx-pagination-total: 1000\r\ncontent-length: 2\r\nDate: Sat, 28 Nov 2026 04:11:01 GMT\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n[]",
	"python server":         "HTTP/1.1 200 OK\r\ndate: Sat, 28 Nov 2026 04:11:01 GMT\r\nserver: uvicorn\r\ncontent-length: 4\r\ncontent-type: application/json\r\n\r\n[{}]",
	"no reason":             "HTTP/1.1 200\r\nContent-Length: 2\r\n\r\n[]",
	"spaces around value":   "HTTP/1.1 200 OK\r\nContent-Length: \t2 \r\nX-Pagination-Total:7\r\n\r\n[]",
	"chunked":               "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n",
	"closes":                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]",
	"sets a cookie":         "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nSet-Cookie: s=1\r\n\r\n[]",
	"two lengths":           "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n[]x",
	"the same length twice": "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n[]",
	"signed length":         "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\n[]",
	"no length":             "HTTP/1.1 200 OK\r\n\r\n[]",
	"an error":              "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\noops",
	"http/1.0":              "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\n[]",
	"folded header":         "HTTP/1.1 200 OK\r\nX-Pagination-Total: 1\r\n 2\r\nContent-Length: 2\r\n\r\n[]",
	"no colon":              "HTTP/1.1 200 OK\r\nContent-Length 2\r\n\r\n[]",
	"space before colon":    "HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\n[]",
	"two totals":            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Pagination-Total: 1\r\nX-Pagination-Total: 9\r\n\r\n[]",
	"long headers":          "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("a", 5000) + "\r\nContent-Length: 2\r\n\r\n[]",
	"short body":            "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n[]",
	"ends in the headers":   "HTTP/1.1 200 OK\r\nContent-Len",
	"escape in a value":     "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nDate: \x1b[2J\r\n\r\n[]",
	"bare LF":               "HTTP/1.1 200 OK\nContent-Length: 2\n\n[]",
}

// readVia reads raw as a look's answer, with readPlain first (plain: it
// read it) or with net/http only.
func readVia(raw string, first bool) (resp *http.Response, body string, plain bool, err error) {
	c := &lookConn{}
	c.lr = io.LimitedReader{R: strings.NewReader(raw), N: lookMaxHeader}
	c.br = bufio.NewReader(&c.lr)
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/threads/search", nil)
	var out bytes.Buffer
	if first {
		resp, ok, err := c.readPlain(req, &out)
		if err != nil {
			return nil, "", false, err
		}
		if ok {
			return resp, out.String(), true, nil
		}
	}
	resp, err = http.ReadResponse(c.br, req)
	if err != nil {
		return nil, "", false, err
	}
	c.lr.N += lookMaxBody
	if err := readAnswer(resp, &out); err != nil {
		return nil, "", false, err
	}
	return resp, out.String(), false, nil
}

// checkPlain: an answer read with readPlain first is read as net/http reads
// it (the same status, body, Date, X-Pagination-Total and keep-alive), or
// fails where net/http fails.
func checkPlain(t *testing.T, raw string) (plain bool) {
	t.Helper()
	got, gotBody, plain, gotErr := readVia(raw, true)
	want, wantBody, _, wantErr := readVia(raw, false)
	switch {
	case wantErr != nil && gotErr == nil && plain:
		t.Fatalf("%q: net/http fails (%v), readPlain read %q", raw, wantErr, gotBody)
	case wantErr == nil && gotErr != nil:
		t.Fatalf("%q: net/http reads it, readPlain first fails: %v", raw, gotErr)
	case wantErr != nil:
		return plain
	}
	if got.StatusCode != want.StatusCode || gotBody != wantBody || got.Close != want.Close {
		t.Fatalf("%q: read as %d %q (close %v), net/http: %d %q (close %v)", raw, got.StatusCode, gotBody, got.Close, want.StatusCode, wantBody, want.Close)
	}
	for _, k := range []string{"Date", "X-Pagination-Total"} {
		if got.Header.Get(k) != want.Header.Get(k) {
			t.Fatalf("%q: %s %q, net/http: %q", raw, k, got.Header.Get(k), want.Header.Get(k))
		}
	}
	if a, b := answeredOf(got.Header), answeredOf(want.Header); !reflect.DeepEqual(a, b) {
		t.Fatalf("%q: answered %+v, net/http: %+v", raw, a, b)
	}
	return plain
}

// Every answer is read as net/http reads it; the plainest form, which both
// real servers send, without net/http's parsing, and the rest by net/http.
func TestReadPlainReadsAsNetHTTP(t *testing.T) {
	t.Parallel()
	plainOnes := map[string]bool{"js dev server": true, "python server": true, "no reason": true, "spaces around value": true}
	for name, raw := range plainAnswers {
		t.Run(name, func(t *testing.T) {
			if plain := checkPlain(t, raw); plain != plainOnes[name] {
				t.Errorf("read without net/http: %v, want %v", plain, plainOnes[name])
			}
		})
	}
}

// Answers that come a few bytes at a time, and answers back to back on one
// connection: each look reads its own, and leaves the next one's bytes.
func TestReadPlainInPiecesAndInTurn(t *testing.T) {
	t.Parallel()
	a := plainAnswers["js dev server"]
	b := strings.Replace(plainAnswers["python server"], "[{}]", "[{ }]", 1)
	b = strings.Replace(b, "content-length: 4", "content-length: 5", 1)
	c := &lookConn{}
	c.lr = io.LimitedReader{R: iotestOneByte(a + b + a), N: lookMaxHeader}
	c.br = bufio.NewReader(&c.lr)
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/threads/search", nil)
	for i, want := range []string{"[]", "[{ }]", "[]"} {
		c.lr.N = lookMaxHeader
		var out bytes.Buffer
		_, ok, err := c.readPlain(req, &out)
		if err != nil || !ok || out.String() != want {
			t.Fatalf("answer %d: %q, plain %v, %v; want %q", i, out.String(), ok, err, want)
		}
	}
}

// iotestOneByte reads s one byte at a time.
func iotestOneByte(s string) io.Reader { return &oneByte{s} }

type oneByte struct{ s string }

func (r *oneByte) Read(p []byte) (int, error) {
	if r.s == "" {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	p[0], r.s = r.s[0], r.s[1:]
	return 1, nil
}

// Whatever a server sends, readPlain reads it as net/http does or leaves
// it to net/http.
func FuzzReadPlain(f *testing.F) {
	for _, raw := range plainAnswers {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		checkPlain(t, raw)
	})
}
