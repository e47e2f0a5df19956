package langgraph

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/hitl-sh/hitl/client"
)

// Conversation reads the thread's messages (the `messages` key of its state,
// as LangChain agents keep it). A graph without messages has none.
func (b *Backend) Conversation(ctx context.Context, threadID string) ([]client.Message, error) {
	var st struct {
		Values struct {
			Messages []struct {
				Type      string          `json:"type"`
				Role      string          `json:"role"`
				Name      string          `json:"name"`
				Content   json.RawMessage `json:"content"`
				ToolCalls []struct {
					Name string          `json:"name"`
					Args json.RawMessage `json:"args"`
				} `json:"tool_calls"`
			} `json:"messages"`
		} `json:"values"`
	}
	resp, err := b.Reads.R().SetContext(ctx).Get("/threads/" + url.PathEscape(threadID) + "/state")
	if err := b.Check(resp, err, "read the conversation of thread "+threadID, &st); err != nil {
		if resp != nil && noThreadStatus(resp.StatusCode()) {
			return nil, fmt.Errorf("%w: %w", err, client.ErrNoThread)
		}
		return nil, err
	}
	var out []client.Message
	for _, m := range st.Values.Messages {
		role := m.Type
		if role == "" {
			role = m.Role
		}
		if m.Name != "" && role == "tool" {
			role = "tool " + m.Name
		}
		msg := client.Message{Role: role, Content: contentText(m.Content)}
		for _, tc := range m.ToolCalls {
			args := []byte(tc.Args)
			var c bytes.Buffer
			if json.Compact(&c, args) == nil {
				args = c.Bytes() // one line: indent would show as \n and spaces
			}
			msg.ToolCalls = append(msg.ToolCalls, tc.Name+" "+string(args))
		}
		out = append(out, msg)
	}
	return out, nil
}

// contentText flattens message content: a string, or a list of blocks whose
// text parts are joined.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			if b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

// lastAIMessage is the text of the last AI message of a messages list.
func lastAIMessage(raw json.RawMessage) string {
	var msgs []struct {
		Type    string          `json:"type"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &msgs) != nil {
		return ""
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Type == "ai" {
			if text := contentText(msgs[i].Content); strings.TrimSpace(text) != "" {
				return text
			}
		}
	}
	return ""
}

// noThreadStatus reports whether an answer to a read of a thread's state
// says there is no thread of that id: 404, or the id refused (400 on the
// JS server, 422 on the Python one: not a UUID, which every thread id is).
func noThreadStatus(code int) bool {
	return code == http.StatusNotFound || code == http.StatusBadRequest || code == http.StatusUnprocessableEntity
}
