package tui

import (
	"strings"
	"testing"
)

// The bulk confirm shows what the rows warn of and every argument it
// approves, not the summary alone: a hidden escape and an argument the
// summary leaves out are on screen before y sends them.
func TestBulkConfirmShowsWarningsAndEveryArgument(t *testing.T) {
	sneaky := toolCall(idEmail, "thread-a", "run_command", `{"cmd":"echo cleaning up\u001b[2J","file":"report\u202egnp.exe"}`)
	plain := toolCall(idOps, "thread-b", "notify", `{"channel":"#ops"}`)
	h := newHarness(t, 80, 24, sneaky, plain)
	h.now = h.now.Add(GracePeriod * 2)
	h.msg(space())
	h.msg(space())
	h.keys("A")
	h.wantScreen("Approve 2 interrupts in bulk?", "⚠ the payload contains", `"file": "report\u202egnp.exe"`, `"cmd": "echo cleaning up\u001b[2J"`, `"channel": "#ops"`)
	if n := strings.Count(h.screen(), "⚠"); n != 1 {
		t.Fatalf("want one warning (the sneaky row alone), got %d:\n%s", n, h.screen())
	}
}
