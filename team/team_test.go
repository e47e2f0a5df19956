package team_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/hitl-sh/hitl/config"
	"github.com/hitl-sh/hitl/team"
)

func newKey(t *testing.T) (gossh.PublicKey, string) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pk, strings.TrimSpace(string(gossh.MarshalAuthorizedKey(pk))) + " someone@laptop"
}

func TestFromConfigFile(t *testing.T) {
	alice, aliceLine := newKey(t)
	carol, carolLine := newKey(t)
	stranger, _ := newKey(t)
	yaml := `team:
  reviewers:
    alice: {keys: ["` + aliceLine + `"], role: approver}
    bob: {token_env: BOB_TOKEN, role: approver}
    carol: {keys: ["` + carolLine + `"], role: viewer}
  publishers:
    billing: {token: "0123456789abcdef-billing"}
  rules:
    - tools: ["transfer_funds", "delete_*"]
      approvals: 2
`
	f, err := config.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Team
	c.Getenv = func(k string) string {
		if k == "BOB_TOKEN" {
			return "bob-token-0123456789"
		}
		return ""
	}
	if errs := c.Check(); len(errs) != 0 {
		t.Fatalf("Check: %v", errs)
	}
	if name, r, ok := c.ByKey(alice); !ok || name != "alice" || r.Role != team.Approver {
		t.Errorf("ByKey(alice) = %q %v %v", name, r.Role, ok)
	}
	if name, r, ok := c.ByKey(carol); !ok || name != "carol" || r.Role.CanDecide() {
		t.Errorf("ByKey(carol) = %q %v %v", name, r.Role, ok)
	}
	if _, _, ok := c.ByKey(stranger); ok {
		t.Error("a stranger's key was taken")
	}
	if p, ok := c.ByToken("bob-token-0123456789"); !ok || p != (team.Principal{Name: "bob", Kind: team.KindReviewer, Role: team.Approver}) {
		t.Errorf("ByToken(bob) = %+v %v", p, ok)
	}
	if p, ok := c.ByToken("0123456789abcdef-billing"); !ok || p.Name != "billing" || p.Kind != team.KindPublisher {
		t.Errorf("ByToken(billing) = %+v %v", p, ok)
	}
	for _, tok := range []string{"", "bob-token-012345678", "bob-token-01234567890"} {
		if _, ok := c.ByToken(tok); ok {
			t.Errorf("ByToken(%q) matched", tok)
		}
	}
	for tool, want := range map[string]int{"transfer_funds": 2, "delete_user": 2, "delete_": 2, "send_email": 0, "xdelete_user": 0} {
		r, ok := c.RuleFor(tool)
		if got := map[bool]int{true: r.Approvals}[ok]; got != want {
			t.Errorf("RuleFor(%q) = %d, want %d", tool, got, want)
		}
	}
	if got := strings.Join(c.Secrets(), ","); !strings.Contains(got, "bob-token-0123456789") || !strings.Contains(got, "0123456789abcdef-billing") {
		t.Errorf("Secrets() misses a token")
	}
}

func TestCheckSaysEverythingAtOnce(t *testing.T) {
	_, k := newKey(t)
	c := &team.Config{
		Reviewers: map[string]team.Reviewer{
			"alice":     {Keys: []string{k}, Role: team.Approver},
			"bob":       {Keys: []string{k}, Role: "boss"},
			"dave":      {Keys: []string{"ssh-ed25519 notakey"}},
			"eve smith": {Token: "short", Role: team.Viewer},
			"..":        {Keys: []string{}, Role: team.Viewer, TokenEnv: "X"},
		},
		Publishers: map[string]team.Publisher{"agent": {TokenEnv: "UNSET_VAR"}},
		Rules:      []team.Rule{{Approvals: 2}, {Tools: []string{"x"}, Approvals: 3}},
		Getenv:     func(string) string { return "" },
	}
	var msgs []string
	for _, e := range c.Check() {
		msgs = append(msgs, e.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		`team reviewer bob: role "boss" is not known`,
		"team reviewer bob: key 1 (SHA256:",
		"is also alice's",
		"team reviewer dave: no role",
		"team reviewer dave: key 1 is not an SSH public key",
		"team reviewer eve smith: a name may hold only",
		"team reviewer ..: a name may not start with a dot",
		"team reviewer eve smith: the token is shorter than 16",
		"team publisher agent: token_env names UNSET_VAR, which is not set",
		"team rule 1: no tools",
		"team rule 2: asks for 3 approvals but the team has 1 approver(s)",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("Check misses %q; it says:\n%s", want, all)
		}
	}
	if strings.Contains(all, "short\"") || strings.Contains(all, ": short") {
		t.Errorf("Check quotes a token:\n%s", all)
	}
	if errs := (*team.Config)(nil).Check(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "no reviewers") {
		t.Errorf("an absent team: %v", errs)
	}
}

func TestUnknownTeamSetting(t *testing.T) {
	_, err := config.Parse("x.yaml", []byte("team:\n  reviewers:\n    alice: {keys: [], rol: viewer}\n"))
	if err == nil || !strings.Contains(err.Error(), `unknown setting "rol" in a team reviewer`) {
		t.Errorf("err = %v", err)
	}
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		p, n string
		ok   bool
	}{{"*", "", true}, {"a*b", "ab", true}, {"a*b", "axxb", true}, {"a*b", "axxbc", false}, {"a?c", "abc", true},
		{"delete_*", "delete_all/rows", true}, {"*_funds", "transfer_funds", true}, {"x", "X", false}} {
		if got := team.Glob(c.p, c.n); got != c.ok {
			t.Errorf("Glob(%q, %q) = %v", c.p, c.n, got)
		}
	}
}
