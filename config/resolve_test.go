package config

import (
	"strings"
	"testing"
)

// Every wrong setting is named at once.
func TestResolveNamesEveryProblem(t *testing.T) {
	env := map[string]string{"HITL_THEME": "sepia", "HITL_NOTIFY": "pager"}
	_, err := Resolve(&File{}, Overrides{Backend: "grpc", Headers: []string{"nocolon"}}, func(k string) string { return env[k] })
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"4 settings are wrong", `backend "grpc"`, `notify "pager"`, `theme "sepia"`, `--header "nocolon"`} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("the error does not say %q:\n%v", want, err)
		}
	}
}
