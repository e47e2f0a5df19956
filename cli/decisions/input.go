package decisions

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/hitl-sh/hitl/present"
	"github.com/hitl-sh/hitl/review"
)

// readFields reads --field NAME=VALUE flags (NAME=@FILE reads a file,
// @- standard input); a name given again adds an item (lists).
func readFields(o *Options, flags []string) (map[string][]string, error) {
	if len(flags) == 0 {
		return nil, nil
	}
	out := map[string][]string{}
	for _, fl := range flags {
		name, text, ok := strings.Cut(fl, "=")
		if !ok || strings.TrimSpace(name) == "" {
			return nil, review.Usagef("--field %q: give NAME=VALUE (hitl show ID lists the fields)", fl)
		}
		if file, isFile := strings.CutPrefix(text, "@"); isFile && file != "" {
			b, err := readArg(o, file)
			if err != nil {
				return nil, err
			}
			text = string(b)
		}
		name = strings.TrimSpace(name)
		out[name] = append(out[name], text)
	}
	return out, nil
}

// inlineJSON: a file name that is JSON typed in its place (no such file
// is there to read).
func inlineJSON(name string) bool {
	t := strings.TrimSpace(name)
	return strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")
}

// idWord is the one id given, as a shell word, for a command to copy; "ID"
// otherwise.
func idWord(args []string) string {
	if len(args) != 1 {
		return "ID"
	}
	return present.ShellWord(safe(args[0]))
}

// readArg reads a file, or standard input for "-", refusing more than
// maxInput bytes rather than cutting it.
func readArg(o *Options, name string) ([]byte, error) {
	var r io.Reader
	what := name
	if name == "-" {
		r, what = o.Stdin, "standard input"
	} else {
		f, err := os.Open(name)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // "no such file or directory", without Go's "open NAME:"
			}
			return nil, &review.Error{Kind: review.Usage, Err: fmt.Errorf("cannot read %s: %w", safe(name), err)}
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return nil, &review.Error{Kind: review.Usage, Err: fmt.Errorf("cannot read %s: %w", what, err)}
	}
	if len(b) > maxInput {
		return nil, review.Usagef("%s is larger than %d MiB: hitl reads at most that much", what, maxInput>>20)
	}
	return b, nil
}
