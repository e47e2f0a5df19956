package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command a user can reach has an example, each command of the root
// a group, and no help text names the specs hitl was built from.
func TestEveryCommandHasAnExampleAndAGroup(t *testing.T) {
	t.Parallel()
	root := newRoot(&env{stdin: strings.NewReader(""), stdout: newTermOut(&strings.Builder{}), stderr: newTermOut(&strings.Builder{}), getenv: envOf(t).getenv})
	seed := regexp.MustCompile(`(?i)\bseeds?\b`)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.IsAdditionalHelpTopicCommand() {
			return
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no example", c.CommandPath())
		}
		if c.Parent() == root && !c.Hidden && c.GroupID == "" {
			t.Errorf("%s is in no group of hitl --help", c.CommandPath())
		}
		text := c.Short + c.Long + c.Example + c.Flags().FlagUsages()
		if seed.MatchString(text) {
			t.Errorf("%s's help says %q", c.CommandPath(), seed.FindString(text))
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// hitl help TOPIC prints the topic; the man page has it too.
func TestHelpTopicsReachTheManPage(t *testing.T) {
	t.Parallel()
	r := hitl(t, "", "help", "exit-codes")
	must(t, r, 0, "4  refused, nothing sent, and nothing says it was handled: a well-formed")
	must(t, hitl(t, "", "help", "environment"), 0, "HITL_API_KEY")
	must(t, hitl(t, "", "help", "config"), 0, "default_profile: local")
	must(t, hitl(t, "", "--help"), 0, "Reading:")
	dir := t.TempDir()
	must(t, hitl(t, "", "man", dir), 0, "")
	page, err := os.ReadFile(filepath.Join(dir, "hitl.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"EXIT CODES", "ENVIRONMENT", "CONFIG FILE", "HITL_BEARER_TOKEN", "EXAMPLE"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("hitl.1 lacks %s", want)
		}
	}
}

// A misuse exits 2 whatever check caught it: hitl's own, cobra's argument
// counts, a flag's parser; told by the error's type, not its words.
func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{
		{"check", "a", "b"},         // cobra.MaximumNArgs
		{"lst"},                     // an unknown command
		{"list", "--no-such-flag"},  // an unknown flag
		{"list", "--limit", "many"}, // a flag's value
		{"approve"},                 // hitl's own count
	} {
		if r := hitl(t, "", args...); r.code != exitUsage {
			t.Errorf("hitl %v: exit %d, want %d (%s)", args, r.code, exitUsage, r.stderr)
		}
	}
}
