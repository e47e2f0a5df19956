package journal_test

import (
	"testing"

	"github.com/hitl-sh/hitl/client/journal"
)

// A decision of unknown outcome sent to one replica of a deployment is
// found from another (hitl check behind a load balancer, a moved server),
// and only within its deployment.
func TestUnresolvedByDeployment(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	j.SetDeployment("profile prod")
	if err := j.Intend([]journal.Entry{{DecisionID: "d1", Server: "http://replica-a:2024", ThreadID: "t1", InterruptID: "i1"}}); err != nil {
		t.Fatal(err)
	}
	open, err := j.Unresolved("http://replica-b:2024")
	if err != nil || len(open) != 1 || open[0].DecisionID != "d1" || open[0].Deployment != "profile prod" {
		t.Fatalf("from replica b, same deployment: %+v %v", open, err)
	}
	other, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	other.SetDeployment("profile staging")
	if open, _ := other.Unresolved("http://replica-b:2024"); len(open) != 0 {
		t.Fatalf("another deployment's decision: %+v", open)
	}
	bare, _ := journal.Open(dir)
	if open, _ := bare.Unresolved("http://replica-b:2024"); len(open) != 0 {
		t.Fatalf("no deployment, another URL: %+v", open)
	}
	if open, _ := bare.Unresolved("http://replica-a:2024"); len(open) != 1 {
		t.Fatalf("no deployment, the same URL: %+v", open)
	}
}
