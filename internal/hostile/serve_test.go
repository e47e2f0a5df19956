package hostile

import (
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"testing"
)

// TestServe serves the hostile server for trying hitl by hand, when
// HITL_HOSTILE_SERVE names an address (HITL_HOSTILE_MODE: errors, notjson,
// redirect; HITL_HOSTILE_KEY: the key it echoes):
//
//	HITL_HOSTILE_SERVE=127.0.0.1:2654 go test ./internal/hostile -run TestServe -v -timeout 0 &
//	HITL_API_KEY=sk-try-me hitl --url http://127.0.0.1:2654
func TestServe(t *testing.T) {
	addr := os.Getenv("HITL_HOSTILE_SERVE")
	if addr == "" {
		t.Skip("set HITL_HOSTILE_SERVE=host:port to serve the hostile server")
	}
	s := New(Options{Key: os.Getenv("HITL_HOSTILE_KEY"), Deep: 100_000, Huge: 10 << 20, Broken: true})
	defer s.Close()
	if _, err := s.Agent(); err != nil {
		t.Fatal(err)
	}
	s.SetMode(map[string]Mode{"errors": Errors, "notjson": NotJSON, "redirect": Redirect}[strings.ToLower(os.Getenv("HITL_HOSTILE_MODE"))])
	srv := &http.Server{Addr: addr, Handler: http.HandlerFunc(s.serve)}
	go func() {
		c := make(chan os.Signal, 1)
		signal.Notify(c, os.Interrupt)
		<-c
		srv.Close()
	}()
	fmt.Printf("hostile server at http://%s (the demo's agents behind it)\n", addr)
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		t.Fatal(err)
	}
}
