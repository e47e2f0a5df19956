package langgraph

import (
	"testing"

	"github.com/hitl-sh/hitl/internal/testrun"
)

// TestMain runs several tests at once (see testrun).
func TestMain(m *testing.M) { testrun.Main(m) }
