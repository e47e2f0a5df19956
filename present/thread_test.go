package present

import (
	"testing"
	"unicode/utf8"
)

// The Python server's thread ids are UUIDv7: their first 8 characters are
// a clock that threads made within a minute share, so lists show their
// random end. Messages name a thread by its start, which commands take as
// a prefix: for a UUIDv7 down to the millisecond.
func TestShortThreadID(t *testing.T) {
	v7a, v7b := "01a20d11-7695-732d-a709-22ab104192a4", "01a20d11-c25b-70e7-bd46-1051554b774f"
	v4 := "3f0c2a9e-1b7d-4c8e-9a2b-5d6e7f8a9b0c"
	if ShortThreadID(v7a) != "104192a4" || ShortThreadID(v7b) != "554b774f" || ShortThreadID(v4) != "3f0c2a9e" || ShortThreadID("thread-1") != "thread-1" ||
		ThreadName(v7a) != "01a20d11-7695" || ThreadName(v4) != "3f0c2a9e" ||
		ThreadName("session-2") != "session-2" || ThreadName("session-for-the-nightly-run") != "session-for-the…" {
		t.Fatalf("short: %s %s %s", ShortThreadID(v7a), ShortThreadID(v7b), ShortThreadID(v4))
	}
	for _, tt := range []struct {
		id, ref string
		want    bool
	}{
		{v7a, "104192A4", true}, {v7a, "01a20d11", true}, {v7b, "104192a4", false},
		{v4, "3f0c", true}, {v4, "7f8a9b0c", false}, {"01a20d11-7695-432d-a709-22ab104192a4", "104192a4", false},
	} {
		if got := ThreadMatches(tt.id, tt.ref); got != tt.want {
			t.Errorf("ThreadMatches(%s, %s) = %v", tt.id, tt.ref, got)
		}
	}
}

// An id is cut between characters, to 8 cells: never inside a character
// (bytes would leave half of one: invalid UTF-8 on the screen).
func TestShortIDCutsBetweenCharacters(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{"7bc96fdc23ff27baec12270e4eeb7233", "7bc96fdc"},
		{"short", "short"},
		{"tâche-éé-42", "tâche-éé"},              // 2-byte letters: 8 of them, not 8 bytes
		{"日本語のタスク番号", "日本語の"},                    // wide: 2 cells each
		{"cafe\u0301-au-lait", "cafe\u0301-au-"}, // the accent stays with its e
	} {
		got := ShortID(c.id)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("ShortID(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}
