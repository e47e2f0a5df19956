package realserver

import (
	"net/http"
	"time"
)

// Client is the tests' HTTP client for the real servers: a connection
// left idle for 2 s is closed, not reused. The servers close an idle
// keep-alive connection after 5 s (Node's keepAliveTimeout on langgraphjs
// dev, uvicorn's timeout_keep_alive on the Python ones), and a request
// sent on a connection the server is closing fails with "connection reset
// by peer" (seen on langgraphjs dev under load, on a POST /threads): Go
// sends again only requests it knows to be idempotent.
var Client = &http.Client{Transport: func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.IdleConnTimeout = 2 * time.Second
	t.MaxIdleConnsPerHost = 16
	return t
}()}
