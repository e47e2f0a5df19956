package decide

import (
	"fmt"
	"strings"

	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/inert"
	"github.com/hitl-sh/hitl/present"
)

// EndsAlone refuses a draft that ends the whole work of a thread (dismiss,
// reject and stop) while the thread also waits at other interrupts among
// waiting (fan-out branches): ending it would drop them too. The backend
// refuses it as well; refusing first, before anything is said, asked or
// sent, is what the CLI and the TUI both do, with these words.
func EndsAlone(drafts []Draft, waiting []client.Interrupt) error {
	for _, d := range drafts {
		end, _ := client.Ends(d.Decisions)
		if end == nil {
			continue
		}
		var others []string
		for _, it := range waiting {
			if it.ThreadID == d.Interrupt.ThreadID && it.ID != d.Interrupt.ID {
				others = append(others, present.ShortID(it.ID))
			}
		}
		if len(others) > 0 {
			n := "another interrupt"
			if len(others) > 1 {
				n = fmt.Sprintf("%d other interrupts", len(others))
			}
			return fmt.Errorf("%s ends the whole work of thread %s, which also waits at %s (%s): that would drop them too; answer them first",
				end.Doing(), inert.Line(present.ThreadName(d.Interrupt.ThreadID)), n, inert.Line(strings.Join(others, ", ")))
		}
	}
	return nil
}
