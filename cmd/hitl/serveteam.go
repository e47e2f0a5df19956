package main

// The team a hub serves, as its config file gives it.

import (
	"fmt"
	"strings"

	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/team"
)

// teamOf is the file's team, reading token_env through getenv.
func teamOf(f *config.File, getenv func(string) string) *team.Config {
	t := f.Team
	if t == nil {
		t = &team.Config{}
	}
	t.Getenv = getenv
	return t
}

func teamSummary(t *team.Config) string {
	approvers := len(t.Approvers())
	s := fmt.Sprintf("team: OK: %d reviewer(s) (%d approver(s), %d viewer(s)), %d publisher(s), %d rule(s)",
		len(t.Reviewers), approvers, len(t.Reviewers)-approvers, len(t.Publishers), len(t.Rules))
	for _, r := range t.Rules {
		s += fmt.Sprintf("\n  %d approvals: %s", r.Approvals, strings.Join(r.Tools, ", "))
	}
	return s
}
