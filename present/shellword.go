package present

import "strings"

// ShellWord is s as one word of a POSIX shell: as is when it is plain,
// else in single quotes. A command hitl suggests is printed with its words
// so, to be copied as it is.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
