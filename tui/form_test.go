package tui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/hitl-sh/hitl/client"
)

// schemaFixture is an interrupt as the real server lists one with a
// response_schema: client/testdata/form-* and percall-* hold its value and
// its schema.
func schemaFixture(t *testing.T, name, id string, age time.Duration) client.Interrupt {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "client", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Value          json.RawMessage `json:"value"`
		ResponseSchema json.RawMessage `json:"response_schema"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	return client.Interrupt{ID: id, ThreadID: "thread-" + id[:4], GraphID: "form", AssistantID: "asst-1",
		CreatedAt: t0.Add(-age), UpdatedAt: t0.Add(-age), Payload: client.ParseWithSchema(w.Value, w.ResponseSchema), Raw: w.Value}
}

const idForm = "ffff0000ffff0000ffff0000ffff0000"

func space() tea.KeyPressMsg     { return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "} }
func backspace() tea.KeyPressMsg { return tea.KeyPressMsg{Code: tea.KeyBackspace} }

func TestFormAnswersTheSchema(t *testing.T) {
	h := newHarness(t, 80, 24, schemaFixture(t, "form-zod", idForm, time.Minute))
	h.keys("enter", "f")
	h.wantScreen("Pick a framework", "▸ framework *  one of: react, vue, svelte", "( ) 1 react", "tests *", "[?] not chosen yet", "budget *  number from 0 to 100")
	h.keys("2", "tab")
	h.msg(space())
	h.keys("tab")
	h.typeText("150")
	h.keys("ctrl+s")
	h.wantScreen("(•) 2 vue", "[x] true", "✗ must be at most 100 (got 150)")
	if !onTop[*formScreen](h.m) {
		t.Fatal("a refused answer left the form")
	}
	for range 3 {
		h.msg(backspace())
	}
	h.typeText("50")
	h.keys("ctrl+s")
	// The answer is on the confirm screen, not only behind v.
	h.wantScreen("Send this?", "decision: respond", `"framework": "vue"`, `"tests": true`, `"budget": 50`)
	h.keys("v")
	h.wantScreen("Resume value, exactly as sent:")
	h.keys("y")
	if got := h.sent(idForm); got != `{"framework":"vue","tests":true,"budget":50}` {
		t.Fatalf("sent %s", got)
	}
}

// esc keeps what was typed; ctrl+j shows it as JSON, and a required field
// left empty is named.
func TestFormDraftAndJSON(t *testing.T) {
	h := newHarness(t, 140, 40, schemaFixture(t, "form-zod", idForm, time.Minute))
	h.keys("f", "tab", "tab")
	h.typeText("7")
	h.keys("ctrl+s")
	h.wantScreen("▸ framework *", "✗ required", "[?] not chosen yet")
	h.keys("esc")
	if onTop[*formScreen](h.m) {
		t.Fatal("esc did not leave the form")
	}
	h.wantScreen("✎")
	h.keys("f")
	h.wantScreen("( ) 2 vue", "[?] not chosen yet", "│ 7")
	h.keys("ctrl+j")
	h.wantScreen("Your answer, as JSON", `"budget": 7`)
	if strings.Contains(h.screen(), `"tests"`) {
		t.Fatal("a flag nobody chose is in the answer")
	}
	h.keys("ctrl+s")
	h.wantScreen("missing properties 'framework', 'tests'")
}

// A schema with no form is answered as JSON, from a skeleton of it.
func TestSchemaWithoutFormOpensJSON(t *testing.T) {
	it := schemaFixture(t, "form-zod", idForm, time.Minute)
	it.Payload = client.ParseWithSchema(json.RawMessage(`{"question":"Which?"}`), json.RawMessage(`{"anyOf":[{"type":"object","properties":{"pick":{"type":"string"}},"required":["pick"]},{"type":"string"}]}`))
	h := newHarness(t, 100, 30, it)
	h.keys("f")
	h.wantScreen("Your answer, as JSON (it offers alternatives (anyOf/oneOf))", `"pick": ""`)
}

// Golden screens of the form at 80x24 (scrolled: the form is taller than
// the screen) and 140x40, with an error next to its field.
func TestGoldenForm(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {140, 40}} {
		for _, s := range []struct {
			name, fixture string
			keys          func(h *harness)
		}{
			{"form", "form-zod", func(h *harness) {
				h.keys("2", "tab")
				h.msg(space())
				h.keys("tab")
				h.typeText("150")
				h.keys("ctrl+s")
			}},
			{"form-nested", "form-nested", func(h *harness) {
				h.typeText("Bro")
				h.keys("tab")
				h.typeText("Ana")
				h.keys("tab", "tab")
				h.typeText("auth\nurgent")
			}},
		} {
			t.Run(s.name+"-"+strconv.Itoa(size.w)+"x"+strconv.Itoa(size.h), func(t *testing.T) {
				h := newHarness(t, size.w, size.h, schemaFixture(t, s.fixture, idForm, time.Minute))
				h.open()
				h.keys("f")
				s.keys(h)
				out := h.screen()
				for i, line := range strings.Split(out, "\n") {
					if w := len([]rune(line)); w > size.w {
						t.Errorf("line %d is %d wide: %q", i, w, line)
					}
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}

// At 80x24 a form taller than the screen scrolls to the field in focus.
func TestFormScrollsToTheFocusedField(t *testing.T) {
	h := newHarness(t, 80, 20, schemaFixture(t, "form-nested", idForm, time.Minute))
	h.keys("enter", "f", "shift+tab")
	h.wantScreen("▸ priority  whole number from 1 to 5, default 3", "│ 3", "↑ ")
	if strings.Contains(h.screen(), "File the ticket") {
		t.Fatal("the top of the form is still shown")
	}
	h.keys("tab")
	h.wantScreen("File the ticket", "▸ title *")
	// The default is sent unless changed; a nested object needs its
	// required field.
	h.typeText("Broken login")
	h.keys("ctrl+s")
	h.wantScreen("▸ name *", "✗ required") // the focus goes to the first problem
	h.typeText("Ana")
	h.keys("ctrl+s")
	h.wantScreen("Send this?")
	h.keys("y")
	if got := h.sent(idForm); got != `{"title":"Broken login","owner":{"name":"Ana"},"priority":3}` {
		t.Fatalf("sent %s", got)
	}
}
