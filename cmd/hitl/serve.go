package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hitl-sh/hitl/config"
)

func serveCmd(e *env) *cobra.Command {
	var httpAddr string
	cmd := &cobra.Command{
		Use:   "serve --http ADDR",
		Short: "Serve the team's inbox: the coordinator protocol for reviewers and agents' hooks",
		Long: `hitl serve --http ADDR serves hitl's coordinator protocol (the events backend's
endpoints) to the team the config file's team: section names: reviewers open it
with hitl --backend events --url http://ADDR (their token in HITL_BEARER_TOKEN),
agents' hooks (hitl hook claude|codex) put their permission requests up with a
publisher's token. Every call needs a token of the team. See docs/hooks.md.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if httpAddr == "" {
				return usageErr("serve: give --http ADDR (for example --http 127.0.0.1:8700)")
			}
			f, err := config.Load(config.Path())
			if err != nil {
				return err
			}
			e.warn(f)
			if f.Team != nil {
				f.Team.Getenv = e.getenv
			}
			if errs := f.Team.Check(); len(errs) > 0 {
				var lines []string
				for _, err := range errs {
					lines = append(lines, "  "+err.Error())
				}
				return &exitErr{exitUsage, errors.New("serve: the team in " + config.Path() + " cannot be served:\n" + strings.Join(lines, "\n"))}
			}
			return e.serveHTTP(cmd.Context(), httpAddr, f.Team, nil)
		},
	}
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve the coordinator protocol on this address (host:port)")
	return cmd
}
