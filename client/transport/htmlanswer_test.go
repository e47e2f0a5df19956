package transport_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client/transport"
)

// A server that is not the API answers with a web page: the error gives
// its words, not its markup written as \n and runs of spaces.
func TestAnHTMLAnswerIsReadAsText(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotImplemented)
		w.Write([]byte("<!DOCTYPE HTML>\n<html lang=\"en\">\n    <head>\n        <title>Error response</title>\n<style>p { color: red }</style>    </head>\n    <body>\n        <p>Message: Unsupported method (&#x27;POST&#x27;).</p>\n    </body>\n</html>\n"))
	}))
	defer srv.Close()
	c, err := transport.New(transport.Options{URL: srv.URL, ReadRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Reads.R().Post("/threads/search")
	err = c.Check(resp, err, "list", nil)
	if err == nil {
		t.Fatal("no error")
	}
	got := err.Error()
	for _, bad := range []string{"<", `\n`, "  ", "color"} {
		if strings.Contains(got, bad) {
			t.Fatalf("the error holds %q: %s", bad, got)
		}
	}
	if !strings.Contains(got, "a web page, not the API's JSON") || !strings.Contains(got, "Message: Unsupported method ('POST').") {
		t.Fatalf("the error: %s", got)
	}
}
