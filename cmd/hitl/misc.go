package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/hitl-sh/hitl/cli/teamhistory"
	"github.com/hitl-sh/hitl/client"
	"github.com/hitl-sh/hitl/client/journal"
	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/store"
)

func configCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Where the config file is, and the settings in force"}
	cmd.AddCommand(&cobra.Command{
		Use:   "path",
		Short: "Print the config file's path",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(e.stdout, config.Path(e.getenv))
			return nil
		},
	}, &cobra.Command{
		Use:   "show",
		Short: "Print the settings in force, secrets hidden",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			f, err := config.Load(config.Path(e.getenv))
			if err != nil {
				return err
			}
			e.warn(f)
			s, err := config.Resolve(f, e.flags, e.getenv)
			if err != nil {
				return &exitErr{exitUsage, err}
			}
			e.hideSecrets(s)
			return writeJSON(e.stdout, s.Redacted(), true)
		},
	}, &cobra.Command{
		Use:   "init",
		Short: "Write a starter config file (one profile, every setting explained); never overwrites",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			path := config.Path(e.getenv)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				return err
			}
			// O_EXCL: a config already there is never replaced.
			fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if errors.Is(err, fs.ErrExist) {
				return &exitErr{exitUsage, fmt.Errorf("%s exists already; nothing written (hitl config show prints what it sets)", path)}
			}
			if err != nil {
				return err
			}
			if _, err := fh.WriteString(config.Starter); err != nil {
				fh.Close()
				return err
			}
			if err := fh.Close(); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "Wrote %s: edit its url (and api_key_env), then run hitl config show.\n", path)
			return nil
		},
	})
	return cmd
}

// settings are the settings in force, with their credentials hidden in
// everything printed from now on (the config file's warnings not said).
func (e *env) settings() (*config.Settings, error) {
	f, err := config.Load(config.Path(e.getenv))
	if err != nil {
		return nil, err
	}
	s, err := config.Resolve(f, e.flags, e.getenv)
	if err != nil {
		return nil, err
	}
	e.hideSecrets(s)
	return s, nil
}

// warn prints the config file's warnings (a secret others can read) on
// stderr, where they do not spoil output meant for scripts.
func (e *env) warn(f *config.File) {
	for _, w := range f.Warnings {
		fmt.Fprintln(e.stderr, "hitl: warning:", w)
	}
}

func historyCmd(e *env) *cobra.Command {
	var asJSON, fromTeam bool
	var limit int
	var tf teamhistory.Filter
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Decisions sent from this machine, newest first (the audit log); --team: the hub's, of the whole team",
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if fromTeam {
				s, err := e.settings()
				if err != nil {
					return err
				}
				return teamhistory.Run(cmd.Context(), &teamhistory.Options{Stdout: e.stdout, Settings: s, Filter: tf, Limit: limit, JSON: asJSON})
			}
			if tf != (teamhistory.Filter{}) {
				return usageErr("history: --by, --source, --tool, --outcome, --request and --since filter the team's audit log: add --team (with --url http://HUB)")
			}
			j, err := journal.Open(config.StateDir(e.getenv))
			if err != nil {
				return err
			}
			h, err := j.History()
			if err != nil {
				return err
			}
			if limit > 0 && len(h) > limit {
				h = h[:limit]
			}
			if asJSON {
				// JSON Lines: one object per decision (per action).
				for _, x := range h {
					for _, line := range present.Exports(x) {
						if err := writeJSON(e.stdout, line, false); err != nil {
							return err
						}
					}
				}
				return nil
			}
			if len(h) == 0 {
				fmt.Fprintln(e.stdout, "No decisions sent from this machine yet.")
			}
			for _, row := range present.HistoryRows(h, 0) {
				fmt.Fprintln(e.stdout, row)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON Lines: one object per decision (tool, proposed and edited args, decision, message, reviewer, time, outcome)")
	cmd.Flags().IntVarP(&limit, "limit", "n", 50, "at most this many entries (0: all)")
	cmd.Flags().BoolVar(&fromTeam, "team", false, "the team's audit log, read from the hub at --url (hitl serve --http) with your token: every reviewer, every door")
	cmd.Flags().StringVar(&tf.Reviewer, "by", "", "with --team: only this reviewer's decisions")
	cmd.Flags().StringVar(&tf.Source, "source", "", "with --team: only decisions on this source's requests (hook, publisher, langgraph)")
	cmd.Flags().StringVar(&tf.Tool, "tool", "", "with --team: only decisions on this tool")
	cmd.Flags().StringVar(&tf.Outcome, "outcome", "", "with --team: only this outcome ("+strings.Join(store.Outcomes, ", ")+")")
	cmd.Flags().StringVar(&tf.Request, "request", "", "with --team: only decisions on this request (its id, or the short id the screens show)")
	cmd.Flags().StringVar(&tf.Since, "since", "", "with --team: only decisions since a duration ago (24h) or a time (RFC 3339)")
	return cmd
}

func versionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  exactArgs(0, "no arguments"),
		Run: func(*cobra.Command, []string) {
			fmt.Fprintln(e.stdout, versionLine())
		},
	}
}

// versionLine says which hitl this is. A release build is stamped by
// GoReleaser; a `go install …@v1.2.3` or a build from a clone reads what Go
// recorded in the binary (module version, commit, whether the tree had
// changes).
func versionLine() string {
	v, c, d := version, commit, date
	if bi, ok := debug.ReadBuildInfo(); ok && v == "dev" {
		if mv := bi.Main.Version; mv != "" && mv != "(devel)" {
			v = mv
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				c = s.Value[:min(12, len(s.Value))]
			case "vcs.time":
				d = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					c += "-modified"
				}
			}
		}
	}
	// What is not known is left out, not written "none" or "unknown".
	var parts []string
	if c != "" && c != "none" {
		parts = append(parts, "commit "+c)
	}
	if d != "" && d != "unknown" {
		parts = append(parts, "built "+d)
	}
	if len(parts) == 0 {
		parts = append(parts, "built from source without version control information")
	}
	return fmt.Sprintf("hitl %s (%s, %s)", v, strings.Join(parts, ", "), runtime.Version())
}

// manCmd writes the man pages (GoReleaser ships them in the archives).
func manCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:    "man DIR",
		Short:  "Write hitl's man pages into DIR",
		Hidden: true,
		Args:   exactArgs(1, "a directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := os.MkdirAll(args[0], 0o755); err != nil {
				return err
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			root.Long += manSections()
			return doc.GenManTree(root, &doc.GenManHeader{Title: "HITL", Section: "1", Source: "hitl " + version}, args[0])
		},
	}
}

func runCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{Use: "run", Short: "Pause, resume or cancel the run behind an interrupt (REST backend)"}
	for _, a := range []struct {
		action client.RunAction
		short  string
	}{{client.PauseRun, "Pause the run"}, {client.ResumeRun, "Resume a paused run"}, {client.CancelRun, "Cancel the run (it cannot be undone)"}} {
		var yes bool
		c := &cobra.Command{
			Use:   string(a.action) + " ID",
			Short: a.short,
			Args:  exactArgs(1, "an interrupt (approval) id"),
			RunE: func(cmd *cobra.Command, args []string) error {
				ap, err := e.open(0)
				if err != nil {
					return err
				}
				rc := ap.Features.RunController
				if rc == nil {
					return refusedErr("the %s backend has no run controls", ap.settings.Backend)
				}
				it, err := ap.Find(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				if !yes {
					return usageErr("this would %s run %s (%s); add --yes to do it", a.action, safe(it.ThreadID), safe(it.Title))
				}
				status, err := rc.ControlRun(cmd.Context(), it, a.action)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "Run %s: %s (status %s)\n", safe(it.ThreadID), a.action, safe(status))
				return nil
			},
		}
		c.Flags().BoolVarP(&yes, "yes", "y", false, "confirm: without it nothing is done")
		cmd.AddCommand(c)
	}
	return cmd
}
