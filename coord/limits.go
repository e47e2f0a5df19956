package coord

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
)

// tooLarge answers 413 for a body over the hub's limit, saying the limit;
// it reports whether it did.
func tooLarge(w http.ResponseWriter, err error) bool {
	var mb *http.MaxBytesError
	if !errors.As(err, &mb) {
		return false
	}
	writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is over the hub's limit of %d MiB (%d bytes): nothing was taken", mb.Limit>>20, mb.Limit))
	return true
}

// refused logs a call the door refused (401, 403) with the address it came
// from, and who the token was when it was one of the team's: one logfmt
// line through the hub's logger (Options.Logger), else a line of Log.
func (s *Server) refused(r *http.Request, code int, who, why string) {
	args := []any{"door", "http", "addr", r.RemoteAddr, "status", code, "method", r.Method, "path", r.URL.Path, "why", why}
	if who != "" {
		args = append(args, "who", who)
	}
	if s.opts.Logger != nil {
		s.opts.Logger.Warn("request refused", args...)
		return
	}
	if s.opts.Log != nil {
		s.opts.Log(slogLine("request refused", args...))
	}
}

// slogLine is one logfmt line without a time, for Options.Log.
func slogLine(msg string, args ...any) string {
	var b lineBuf
	l := slog.New(slog.NewTextHandler(&b, &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			return slog.Attr{}
		}
		return a
	}}))
	l.Warn(msg, args...)
	return string(b.trimmed())
}

type lineBuf struct{ b []byte }

func (l *lineBuf) Write(p []byte) (int, error) { l.b = append(l.b, p...); return len(p), nil }
func (l *lineBuf) trimmed() []byte {
	for len(l.b) > 0 && (l.b[len(l.b)-1] == '\n') {
		l.b = l.b[:len(l.b)-1]
	}
	return l.b
}

// SetLogger gives the door a logger for its refusals (Options.Logger), for
// a hub that builds its logger after the coordinator.
func (s *Server) SetLogger(l *slog.Logger) { s.opts.Logger = l }
