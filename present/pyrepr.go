package present

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// pyRepr is how Python's str() writes a JSON value parsed by json.loads:
// the form LangChain's Python middleware puts in its default description
// ("Args: {'to': 'ann@x.org', 'cc': None}"). It is compared with that text
// to leave out what repeats the arguments; false when raw is not JSON.
func pyRepr(raw []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := pyValue(dec, &b); err != nil {
		return "", false
	}
	if _, err := dec.Token(); err != io.EOF {
		return "", false
	}
	return b.String(), true
}

func pyValue(dec *json.Decoder, b *strings.Builder) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := t.(type) {
	case json.Delim:
		open, end := "[", json.Delim(']')
		if t == '{' {
			open, end = "{", '}'
		}
		b.WriteString(open)
		for i := 0; dec.More(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				b.WriteString(pyString(k.(string)))
				b.WriteString(": ")
			}
			if err := pyValue(dec, b); err != nil {
				return err
			}
		}
		if c, err := dec.Token(); err != nil || c != end {
			return fmt.Errorf("unclosed %s", open)
		}
		b.WriteString(string(end))
	case string:
		b.WriteString(pyString(t))
	case json.Number:
		s, err := pyNumber(string(t))
		if err != nil {
			return err
		}
		b.WriteString(s)
	case bool:
		b.WriteString(map[bool]string{true: "True", false: "False"}[t])
	case nil:
		b.WriteString("None")
	}
	return nil
}

// pyNumber: an integer as written; anything with a fraction or exponent is
// a float, written as Python's repr writes it (shortest round trip, "1.0",
// "1e+16", "1.5e-05").
func pyNumber(s string) (string, error) {
	if !strings.ContainsAny(s, ".eE") {
		return strings.TrimPrefix(s, "+"), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return "", fmt.Errorf("number %s", s)
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0", nil
		}
		return "0.0", nil
	}
	if exp := math.Floor(math.Log10(math.Abs(f))); exp < -4 || exp >= 16 {
		m := strconv.FormatFloat(f, 'e', -1, 64) // 1e+16, 1.5e-05
		mant, e, _ := strings.Cut(m, "e")
		sign, digits := e[:1], strings.TrimLeft(e[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		return mant + "e" + sign + digits, nil
	}
	r := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(r, ".") {
		r += ".0"
	}
	return r, nil
}

// pyString is Python's repr of a str: single quotes unless the text has
// one and no double quote; backslash escapes for the quote, the backslash,
// \t \n \r, and what is not printable.
func pyString(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == utf8.RuneError || !unicode.IsPrint(r):
			switch {
			case r < 0x100:
				fmt.Fprintf(&b, `\x%02x`, r)
			case r < 0x10000:
				fmt.Fprintf(&b, `\u%04x`, r)
			default:
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
