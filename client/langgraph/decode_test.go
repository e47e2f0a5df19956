package langgraph

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/client"
)

// goodThread is a thread with one readable interrupt.
func goodThread(thread, id string) string {
	return `{"thread_id":"` + thread + `","status":"interrupted","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z",` +
		`"metadata":{"graph_id":"g"},"interrupts":{"task":[{"id":"` + id + `","value":{"action_requests":[{"name":"send","args":{"a":1}}],` +
		`"review_configs":[{"action_name":"send","allowed_decisions":["approve"]}]}}]}}`
}

// page is a search answer: a readable thread, a thread whose one interrupt
// has value, another readable thread.
func page(value string) string {
	return `[` + goodThread("t1", "i1") + `,{"thread_id":"tx","status":"interrupted","interrupts":{"k":[{"id":"ix","value":` + value + `}]}},` +
		goodThread("t2", "i2") + `]`
}

func decodePage(t *testing.T, b string) ([]client.Interrupt, error) {
	t.Helper()
	var p threadPage
	if err := p.DecodeJSON([]byte(b)); err != nil {
		return nil, err
	}
	var out []client.Interrupt
	for i := range p {
		out = append(out, p[i].interrupts("http://s", nil)...)
	}
	return out, nil
}

func TestOnePoisonedInterruptHidesNothing(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, 100_000) + "1" + strings.Repeat("}", 100_000)
	for name, doc := range map[string]string{
		"deep value":         page(deep),
		"huge value":         page(`"` + strings.Repeat("x", client.MaxValueSize) + `"`),
		"value not JSON":     page(`tru`),
		"interrupt not obj":  strings.Replace(page(`1`), `{"id":"ix","value":1}`, `"nope"`, 1),
		"id of a wrong type": strings.Replace(page(`1`), `"id":"ix"`, `"id":{"x":1}`, 1),
		"tasks not a map":    strings.Replace(page(`1`), `{"k":[{"id":"ix","value":1}]}`, `[1,2]`, 1),
		"task not a list":    strings.Replace(page(`1`), `[{"id":"ix","value":1}]`, `{"x":1}`, 1),
		"thread not obj":     `[` + goodThread("t1", "i1") + `,"` + strings.Repeat("\\\\", 10) + `",` + goodThread("t2", "i2") + `]`,
		"thread id a number": strings.Replace(page(`1`), `"thread_id":"tx"`, `"thread_id":12`, 1),
	} {
		its, err := decodePage(t, doc)
		if err != nil {
			t.Errorf("%s: the whole answer refused: %v", name, err)
			continue
		}
		var got []string
		bad := 0
		for _, it := range its {
			if it.Schema == client.SchemaUnreadable {
				bad++
				if it.Problem == "" || string(it.Raw) != "null" || len(it.Bytes) == 0 {
					t.Errorf("%s: unreadable item %+v", name, it.Payload)
				}
				continue
			}
			got = append(got, it.ThreadID+"/"+it.ID)
			if _, err := json.Marshal(it); err != nil {
				t.Errorf("%s: %s cannot be written as JSON: %v", name, it.ID, err)
			}
		}
		if strings.Join(got, " ") != "t1/i1 t2/i2" || bad != 1 {
			t.Errorf("%s: readable %v, %d unreadable (want t1/i1 t2/i2 and 1)", name, got, bad)
		}
	}
	its, _ := decodePage(t, page(deep))
	if its[1].ID != "ix" || !strings.Contains(its[1].Title, "nested 100,000 levels deep") {
		t.Errorf("the deep one: %s %q", its[1].ID, its[1].Title)
	}
}

// Any bytes as an interrupt's value, between two readable threads: never a
// panic, the neighbours always listed and readable, every interrupt
// writable as JSON (list --json); any bytes as the whole answer: never a
// panic.
func FuzzDecodeSearchAnswer(f *testing.F) {
	for _, s := range []string{`1`, `"x"`, `{"action_requests":[]}`, `[[[[[[]]]]]]`, `tru`, `{"a":`, `"\u001b]0;x\u0007"`,
		`1}]}},{"thread_id":"t2","interrupts":{"k":[{"id":"i2","value":1}]}},{"x":[{"y":{"z":1`, "\"\xff\x9b\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, value []byte) {
		var whole threadPage
		_ = whole.DecodeJSON(value)
		for i := range whole {
			_ = whole[i].interrupts("http://s", nil)
		}

		doc := page(string(value))
		its, err := decodePage(t, doc)
		if err != nil {
			// Only a value that is not one JSON value may break the
			// answer's structure.
			if e, serr := client.Elements([]byte("[" + string(value) + "]")); serr == nil && len(e) == 1 {
				t.Fatalf("a value that is one JSON value broke the answer: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, it := range its {
			if it.Schema != client.SchemaUnreadable {
				seen[it.ThreadID+"/"+it.ID] = true
			}
			if !json.Valid(it.Raw) {
				t.Fatalf("%q: Raw is not JSON: %.100q", it.ID, it.Raw)
			}
			if _, err := json.Marshal(it); err != nil {
				t.Fatalf("%q cannot be written as JSON: %v", it.ID, err)
			}
		}
		if !seen["t1/i1"] || !seen["t2/i2"] {
			t.Fatalf("a neighbour is hidden: %v", seen)
		}
	})
}
