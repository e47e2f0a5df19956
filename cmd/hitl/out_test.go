package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hitl-sh/hitl/internal/hostile"
	"github.com/hitl-sh/hitl/redact"
)

// Nothing in cmd/hitl may write to the terminal but through env.stdout and
// env.stderr (termOut), which make every byte inert: os.Stdout and
// os.Stderr appear in main() only, and nothing prints through fmt.Print*,
// print/println or the log package (which write to them behind one's back).
func TestNoDirectTerminalWrites(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, decl := range f.Decls {
			inMain := false
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Name.Name == "main" && fd.Recv == nil {
				inMain = true
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					pkg, ok := x.X.(*ast.Ident)
					if !ok {
						return true
					}
					bad := ""
					switch {
					case pkg.Name == "os" && (x.Sel.Name == "Stdout" || x.Sel.Name == "Stderr" || x.Sel.Name == "NewFile") && !inMain:
						bad = "os." + x.Sel.Name + " outside main()"
					case pkg.Name == "fmt" && (x.Sel.Name == "Print" || x.Sel.Name == "Printf" || x.Sel.Name == "Println"):
						bad = "fmt." + x.Sel.Name + " (writes to os.Stdout)"
					case pkg.Name == "log" || pkg.Name == "slog":
						bad = pkg.Name + "." + x.Sel.Name + " (writes to os.Stderr)"
					}
					if bad != "" {
						t.Errorf("%s: %s: write through e.stdout / e.stderr instead", fset.Position(x.Pos()), bad)
					}
				case *ast.CallExpr:
					if id, ok := x.Fun.(*ast.Ident); ok && (id.Name == "print" || id.Name == "println") {
						t.Errorf("%s: builtin %s writes to the terminal raw", fset.Position(x.Pos()), id.Name)
					}
				}
				return true
			})
		}
	}
	if checked < 5 {
		t.Fatalf("only %d files checked: run from cmd/hitl", checked)
	}
}

func TestTermOutMakesEverythingInert(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	o := newTermOut(&buf)
	o.hide = redact.New("sk-live-123456").Values
	if _, err := o.Write([]byte("line 1\n\tindented " + hostile.Text + " key sk-live-123456\n")); err != nil {
		t.Fatal(err)
	}
	out := buf.Bytes()
	if what, bad := hostile.Dangerous(out); bad {
		t.Fatalf("termOut let through %s:\n%q", what, out)
	}
	for _, want := range []string{"line 1\n\tindented A", `\u001b]0;pwned title\u0007B`, `\u009b31m`, "E<U+202E>gnp.exe", "F<U+200B>G", `\x9bM`, "key [redacted]\n"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if bytes.Contains(out, []byte("sk-live")) {
		t.Errorf("the key is shown: %s", out)
	}
	// Not a terminal: exact bytes are possible; a terminal: never.
	if o.exact() == nil {
		t.Error("no exact writer for a pipe")
	}
	if newTermOut(ttyBuffer{&buf}).exact() != nil {
		t.Error("an exact writer on a terminal")
	}
}

// ttyBuffer stands for a terminal in tests.
type ttyBuffer struct{ *bytes.Buffer }

func (ttyBuffer) IsTerminal() bool { return true }

// hitl's own output passes through termOut unchanged: the completion
// scripts (which hold every odd character hitl prints) come out as cobra
// writes them.
func TestTermOutKeepsHitlsOwnOutput(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		r := hitl(t, "", "completion", shell)
		if r.code != 0 {
			t.Fatalf("%s: %s", shell, r.stderr)
		}
		var direct bytes.Buffer
		root := newRoot(&env{stdin: strings.NewReader(""), stdout: newTermOut(&direct), stderr: newTermOut(&direct), getenv: envOf(t).getenv})
		var raw bytes.Buffer
		var err error
		switch shell {
		case "bash":
			err = root.GenBashCompletionV2(&raw, true)
		case "zsh":
			err = root.GenZshCompletion(&raw)
		case "fish":
			err = root.GenFishCompletion(&raw, true)
		case "powershell":
			err = root.GenPowerShellCompletionWithDesc(&raw)
		}
		if err != nil {
			t.Fatal(err)
		}
		if r.stdout != raw.String() {
			t.Errorf("%s: the completion script changed on its way out", shell)
		}
	}
}
