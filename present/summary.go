package present

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
)

// Warnings collects the hidden content any string of the interrupt carries:
// the badge that tells a reviewer to look closer.
func Warnings(it client.Interrupt) inert.Warning {
	w := inert.Check(it.ID) | inert.Check(it.ThreadID) | inert.Check(it.GraphID) | inert.Check(it.Title) | inert.Check(it.Description)
	for _, q := range it.Questions {
		w |= inert.Check(q)
	}
	for _, a := range it.Actions {
		w |= inert.Check(a.Name) | inert.Check(a.Description)
	}
	// JSON escapes controls as \u001b: the decoded strings are what the
	// graph gets, so look at those.
	return w | jsonWarnings(it.Raw) | jsonWarnings(it.Context)
}

func jsonWarnings(raw json.RawMessage) inert.Warning {
	var w inert.Warning
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return w
		}
		if s, ok := tok.(string); ok {
			w |= inert.Check(s)
		}
	}
}

// Summary is the one-line gist of an interrupt: tool names and the key
// argument, or the first question, or the prompt's first line, or what a
// payload of no known shape holds. It is not yet inert.
func Summary(it client.Interrupt) string {
	switch {
	case len(it.Actions) > 0:
		parts := make([]string, 0, len(it.Actions))
		for _, a := range it.Actions {
			parts = append(parts, a.Name+keyArg(a.Args))
		}
		return strings.Join(parts, "; ")
	case len(it.Questions) > 0:
		return oneLine(it.Questions[0])
	case it.Schema == client.SchemaRaw:
		return rawGist(it.Raw)
	case it.Schema == client.SchemaPrompt:
		if s := firstLine(it.Title); s != "" {
			return s
		}
		return "(an empty prompt: the agent waits for a reply without saying what it asks)"
	}
	return oneLine(it.Title)
}

// textKeys are the fields that usually say what a payload asks, in order.
var textKeys = []string{"question", "message", "prompt", "text", "title", "description", "reason", "query", "kind", "type"}

// gistDepth is how many levels of lists in lists a gist names.
const gistDepth = 3

// rawGist says what a payload of no known shape holds, on one line.
func rawGist(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return "a payload that is not JSON"
	}
	return gist(v, 0)
}

// gist says what a decoded value holds. It walks down the first element of
// lists, gistDepth levels at most: a 9,000-deep list is said in constant
// time, not re-encoded at every level.
func gist(v any, level int) string {
	switch x := v.(type) {
	case nil:
		return "null (the interrupt carries no value)"
	case bool, json.Number:
		return fmt.Sprintf("the value %v", x)
	case string:
		if s := firstLine(x); s != "" {
			return s
		}
		return "an empty string"
	case []any:
		if len(x) == 0 {
			return "an empty list"
		}
		if level >= gistDepth {
			return fmt.Sprintf("a list of %d: …", len(x))
		}
		return fmt.Sprintf("a list of %d: %s", len(x), gist(x[0], level+1))
	case map[string]any:
		for _, k := range textKeys {
			if s, ok := x[k].(string); ok && strings.TrimSpace(s) != "" {
				return k + ": " + firstLine(s)
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) > 5 {
			keys = append(keys[:5], "…")
		}
		return "{" + strings.Join(keys, ", ") + "}"
	}
	return "a payload of no known shape"
}

// firstLine is the first line of text that says something, without the
// markdown marks that open a line (#, >, -, *), and the rest said to follow.
func firstLine(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r", ""), "\n")
	for i, l := range lines {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#>-* "))
		l = strings.ReplaceAll(strings.ReplaceAll(l, "**", ""), "__", "")
		if l == "" {
			continue
		}
		if rest := strings.Join(lines[i+1:], " "); strings.TrimSpace(rest) != "" {
			return l + " …"
		}
		return l
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// keyArg is the first scalar argument, as "(key=value)".
func keyArg(args json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	list := "" // the first list of texts, when no text or number comes
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		switch x := v.(type) {
		case string:
			return fmt.Sprintf("(%v=%s)", k, quote(x))
		case json.Number, bool:
			return fmt.Sprintf("(%v=%v)", k, x)
		case []any:
			if s, ok := texts(x); ok && list == "" {
				list = fmt.Sprintf("(%v=%s)", k, s)
			}
		}
	}
	return list
}

// texts is a list of texts as a summary names it: the first, and how many
// more.
func texts(l []any) (string, bool) {
	if len(l) == 0 {
		return "", false
	}
	first, ok := l[0].(string)
	if !ok {
		return "", false
	}
	for _, v := range l[1:] {
		if _, ok := v.(string); !ok {
			return "", false
		}
	}
	if len(l) == 1 {
		return quote(first), true
	}
	return fmt.Sprintf("%s +%d", quote(first), len(l)-1), true
}

// quote writes s in double quotes, its hidden characters spelled as inert
// spells them everywhere else (\u0007, \u001b, <U+202E>), not as Go would (\a).
func quote(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`)
	return `"` + inert.Line(s) + `"`
}

// Age says how long ago t was, in one short word: 12s, 3m, 5h, 2d.
func Age(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// ShortID is an id's start as a column of 8 shows it: its first 8 cells,
// cut between characters (whole graphemes: a wide character takes 2, an
// accent stays with its letter), never inside one.
func ShortID(id string) string {
	if len(id) <= 8 {
		return id
	}
	var b strings.Builder
	w := 0
	for g := uniseg.NewGraphemes(id); g.Next(); {
		if w += g.Width(); w > 8 {
			break
		}
		b.WriteString(g.Str())
	}
	return b.String()
}

// ShortThreadID is a thread id as lists show it, in a column of 8: its
// first 8 characters, or for a UUIDv7 (the Python Agent Server's thread
// ids) its last 8. A UUIDv7 begins with a millisecond clock, so the threads
// made within a minute or so share their first 8 characters; its end is
// random.
func ShortThreadID(id string) string {
	if uuidV7(id) {
		return id[len(id)-8:]
	}
	return ShortID(id)
}

// ThreadName is a thread id as messages name it ("Sent approve for …
// (thread …)"): its start, which every command that takes a thread
// accepts (hitl conversation 3f0c2a9e). A UUID is cut to its first 8
// characters; a UUIDv7 (the Python Agent Server's) to its first 13, the
// millisecond it was made, as threads made within a minute share the
// first 8. Any other id (a session name, "session-2") is shown whole up to
// 16 characters, and past that cut to 15 with the cut marked (…): cutting
// "session-2" to "session-" would hide which session it is.
func ThreadName(id string) string {
	switch {
	case uuidV7(id):
		return id[:13]
	case uuidLike(id):
		return ShortID(id)
	case utf8.RuneCountInString(id) <= 16:
		return id
	}
	return string([]rune(id)[:15]) + "…"
}

// uuidLike reports whether id has the form of a UUID (any version).
func uuidLike(id string) bool {
	if len(id) != 36 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'):
			return false
		}
	}
	return true
}

// ThreadMatches reports whether ref (4+ characters, any case) names thread
// id: a prefix of it, or for a UUIDv7 also the end that ShortThreadID shows.
func ThreadMatches(id, ref string) bool {
	id, ref = strings.ToLower(id), strings.ToLower(ref)
	return strings.HasPrefix(id, ref) || (uuidV7(id) && strings.HasSuffix(id, ref))
}

// uuidV7 reports whether id is a UUID of version 7 (RFC 9562).
func uuidV7(id string) bool {
	if len(id) != 36 || id[8] != '-' || id[13] != '-' || id[18] != '-' || id[23] != '-' || id[14] != '7' {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c != '-' && !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// Badge is the short name of a payload shape for the inbox.
func Badge(s client.Schema) string {
	switch s {
	case client.SchemaMiddleware:
		return "tool"
	case client.SchemaAgentInbox:
		return "inbox"
	case client.SchemaQuestions:
		return "questions"
	case client.SchemaPrompt:
		return "prompt"
	case client.SchemaBreakpoint:
		return "break"
	case client.SchemaForm:
		return "form"
	case client.SchemaInformationReview:
		return "info"
	case client.SchemaPayloadReview:
		return "payload"
	case client.SchemaResponseReview:
		return "response"
	case client.SchemaUnreadable:
		return "unreadable"
	}
	return "raw"
}

// Editing says who else holds a draft for an interrupt, from their claims
// (client.Interrupt.Others): "alice is editing (2m)", "alice and bob are
// editing (<1m)"; "" for nobody. The time is the longest held, in whole
// minutes (a screen that shows it changes once a minute). Names are the
// server's text: make the result inert before printing it.
func Editing(others []client.Claim, now time.Time) string {
	who, n := Claimants(others)
	if n == 0 {
		return ""
	}
	verb := "is"
	if n > 1 {
		verb = "are"
	}
	return who + " " + verb + " editing (" + HeldFor(others[0].Since, now) + ")"
}

// Claimants names the reviewers of claims ("alice", "alice and bob"), each
// once and cut to 24 cells, and counts them.
func Claimants(cs []client.Claim) (string, int) {
	var names []string
	seen := map[string]bool{}
	for _, c := range cs {
		name := ansi.Truncate(strings.Join(strings.Fields(c.Reviewer), " "), 24, "…")
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	switch len(names) {
	case 0:
		return "", 0
	case 1:
		return names[0], 1
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1], len(names)
}

// HeldFor is how long a claim has been held, in whole minutes ("<1m").
func HeldFor(since, now time.Time) string {
	if now.Sub(since) < time.Minute {
		return "<1m"
	}
	return Age(since, now)
}
