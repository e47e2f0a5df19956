package main

// What the README and the docs say hitl does, against what it does.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Exit 3 is "it no longer waits": this machine's own earlier decision
// exits 3 as well as someone else's (decide.txtar), so no page that sums
// the exit codes up may say 3 is someone else's decision alone.
func TestDocsSayWhatExit3Means(t *testing.T) {
	t.Parallel()
	for _, page := range []string{"README.md", filepath.Join("docs", "commands.md")} {
		b, err := os.ReadFile(filepath.Join("..", "..", page))
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(strings.Fields(string(b)), " ")
		if strings.Contains(text, "someone else already decided") {
			t.Errorf("%s says exit 3 means someone else already decided; it also means this machine decided already", page)
		}
		if !strings.Contains(text, "already decided, from this machine or elsewhere") {
			t.Errorf("%s does not say exit 3 covers a decision of this machine", page)
		}
	}
}
