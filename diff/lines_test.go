package diff

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// bigJSON is canonical JSON of at least size bytes: an array of records,
// their values drawn from seed.
func bigJSON(size int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, 0))
	word := func() string {
		const letters = "abcdefghijklmnopqrstuvwxyz"
		b := make([]byte, 8+r.IntN(16))
		for i := range b {
			b[i] = letters[r.IntN(len(letters))]
		}
		return string(b)
	}
	var recs []any
	n := 0
	for n < size {
		rec := map[string]any{
			"id":     json.Number(fmt.Sprint(r.IntN(1 << 30))),
			"name":   word() + " " + word(),
			"email":  word() + "@example.com",
			"active": r.IntN(2) == 0,
			"score":  json.Number(fmt.Sprintf("%d.%02d", r.IntN(100), r.IntN(100))),
			"tags":   []any{word(), word()},
			"note":   nil,
			"about":  strings.Join([]string{word(), word(), word(), word(), word()}, " "),
		}
		raw, _ := json.MarshalIndent(rec, "  ", "  ")
		n += len(raw) + 4
		recs = append(recs, rec)
	}
	raw, err := json.Marshal(recs)
	if err != nil {
		panic(err)
	}
	c, err := Canonical(raw)
	if err != nil {
		panic(err)
	}
	return c
}

// fewChanges edits n lines of a spread through it, and inserts and deletes
// one line each.
func fewChanges(a string, n int) string {
	ls := strings.Split(a, "\n")
	for i := 1; i <= n; i++ {
		j := i * len(ls) / (n + 1)
		ls[j] = strings.Replace(ls[j], `"`, `"changed `, 1)
	}
	k := len(ls) / 3
	ls = append(ls[:k], append([]string{`    "extra": true,`}, ls[k:]...)...)
	ls = append(ls[:2*k], ls[2*k+1:]...)
	return strings.Join(ls, "\n")
}

var (
	big1, big2 string // two unrelated documents of the same shape
	bigFew     string // big1 with a few changes
)

func bigInputs() (string, string, string) {
	if big1 == "" {
		big1 = bigJSON(1<<20, 1)
		big2 = bigJSON(1<<20, 2)
		bigFew = fewChanges(big1, 5)
	}
	return big1, big2, bigFew
}

func BenchmarkLinesSmall(b *testing.B) {
	x, _ := Canonical([]byte(`{"a":1,"b":"x"}`))
	y, _ := Canonical([]byte(`{"a":1,"b":"yz"}`))
	for b.Loop() {
		Lines(x, y)
	}
}

func BenchmarkLines1MBFewChanges(b *testing.B) {
	x, _, y := bigInputs()
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		Lines(x, y)
	}
}

func BenchmarkLines1MBAllChanged(b *testing.B) {
	x, y, _ := bigInputs()
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		Lines(x, y)
	}
}

func BenchmarkLines1MBSame(b *testing.B) {
	x, _, _ := bigInputs()
	y := strings.Clone(x)
	b.SetBytes(int64(len(x)))
	for b.Loop() {
		Lines(x, y)
	}
}
