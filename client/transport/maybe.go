package transport

import "github.com/go-resty/resty/v2"

// MaybeTaken reports whether a write that failed may have been taken by the
// server anyway. Only a refused connection, or a refusal by the server
// itself (4xx), is certain to have left nothing behind: a reset, a timeout,
// a gateway's 5xx or an answer cut short may all come after the server
// acted on the request.
func MaybeTaken(resp *resty.Response, err error) bool {
	if err != nil {
		return !IsRefused(err)
	}
	if resp == nil {
		return true
	}
	code := resp.StatusCode()
	return code >= 500 || code < 400
}
