package main

import (
	"context"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/present"
)

// Shell completion (hitl completion bash|zsh|fish|powershell): interrupt
// ids and thread ids from the server, with what they are about, and the
// profiles of the config file.

// completeIDs completes interrupt ids pending on the server.
func (e *env) completeIDs(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return e.completePending(cmd, prefix, func(id, thread, about string) (string, string) { return id, about })
}

// completeThreads completes the ids of threads with pending interrupts.
func (e *env) completeThreads(cmd *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return e.completePending(cmd, prefix, func(id, thread, about string) (string, string) { return thread, about })
}

func (e *env) completePending(cmd *cobra.Command, prefix string, pick func(id, thread, about string) (string, string)) ([]cobra.Completion, cobra.ShellCompDirective) {
	a, err := e.open(0)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
	defer cancel()
	its, err := a.Pending(ctx)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	seen := map[string]bool{}
	var out []cobra.Completion
	for _, it := range its {
		v, about := pick(it.ID, it.ThreadID, safe(it.GraphID)+": "+oneLine(present.Summary(it), 60))
		if seen[v] || !strings.HasPrefix(v, prefix) {
			continue
		}
		seen[v] = true
		out = append(out, cobra.CompletionWithDesc(v, about))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeProfiles completes the config file's profile names.
func (e *env) completeProfiles(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	f, err := config.Load(config.Path(e.getenv))
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for n := range f.Profiles {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, cobra.ShellCompDirectiveNoFileComp
}

// withCompletion wires completion into the command tree.
func (e *env) withCompletion(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("profile", e.completeProfiles)
	_ = root.RegisterFlagCompletionFunc("backend", cobra.FixedCompletions([]string{"langgraph", "rest", "events", "a2a", "opencode"}, cobra.ShellCompDirectiveNoFileComp))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		switch c.Name() {
		case "show", "approve", "reject", "respond", "ignore", "edit", "decide", "resume", "check", "pause", "cancel":
			c.ValidArgsFunction = e.completeIDs
		case "conversation":
			c.ValidArgsFunction = e.completeThreads
		}
		if c.Flags().Lookup("thread") != nil {
			_ = c.RegisterFlagCompletionFunc("thread", e.completeThreads)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
