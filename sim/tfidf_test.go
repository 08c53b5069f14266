package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"Fix the parseHTTPRequest2 bug", "fix parsehttprequest2 parse http request bug"},
		{"see src/main.go", "see src main go src/main.go"},
		{"rename user_id", "rename user_id user id"},
		{"修复这个错误", "修复 复这 这个 个错 错误"},
		{"日本 語", "日本 語"},
		{"Привет, мир", "привет мир"},
		{"café déjà-vu", "café déjà vu déjà-vu"},
		{"a I x", ""},
		{"it is the end", "end"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := strings.Join(Tokenize(tt.in), " "); got != tt.want {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"parseHTTPRequest2", "src/main.go", "修复这个错误", "a..b//c", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range Tokenize(s) {
			if tok == "" || strings.ContainsAny(tok, " \t\n") {
				t.Fatalf("bad token %q from %q", tok, s)
			}
		}
	})
}

// TestCosineByHand: three documents, the scores worked out from the
// formulas of tfidfIndex.
func TestCosineByHand(t *testing.T) {
	ix := newTFIDFIndex([]string{"apple banana", "apple cherry cherry", "durian"})
	// D = 3; df: apple 2, banana 1, cherry 1, durian 1.
	ia := math.Log(4.0/3) + 1 // idf(apple)
	ib := math.Log(4.0/2) + 1 // idf(banana) = idf(cherry)
	// Query "banana cherry": both tf 1, same idf: unit vector (1/sqrt2, 1/sqrt2).
	// d0 = (apple ia, banana ib) / norm; d1 = (apple ia, cherry (1 + ln 2) ib) / norm.
	s0 := ib / math.Sqrt(ia*ia+ib*ib) / math.Sqrt2
	c := (1 + math.Log(2)) * ib
	s1 := c / math.Sqrt(ia*ia+c*c) / math.Sqrt2
	got := ix.search("banana cherry", 3)
	if len(got) != 2 || got[0].Doc != 1 || got[1].Doc != 0 {
		t.Fatalf("matches = %+v, want d1 then d0 (d2 shares no term)", got)
	}
	if math.Abs(got[0].Score-s1) > 1e-12 || math.Abs(got[1].Score-s0) > 1e-12 {
		t.Errorf("scores %v, %v; want %v, %v", got[0].Score, got[1].Score, s1, s0)
	}
	if one := ix.search("banana cherry", 1); !reflect.DeepEqual(one, got[:1]) {
		t.Errorf("top 1 = %+v, want %+v", one, got[:1])
	}
	// An identical document scores 1.
	if m := ix.search("apple cherry cherry", 1); m[0].Doc != 1 || math.Abs(m[0].Score-1) > 1e-12 {
		t.Errorf("self match = %+v", m)
	}
	if m := ix.search("nothing shared", 5); m != nil {
		t.Errorf("no shared term: %+v", m)
	}
	// Ties go to the earlier document.
	tie := newTFIDFIndex([]string{"zeta", "alpha beta", "alpha beta"})
	if m := tie.search("alpha", 2); m[0].Doc != 1 || m[1].Doc != 2 || m[0].Score != m[1].Score {
		t.Errorf("tie = %+v", m)
	}
}

func TestSearchConcurrent(t *testing.T) {
	docs := synthDocs(500, 1)
	ix := newTFIDFIndex(docs)
	want := make([][]Match, 50)
	for i := range want {
		want[i] = ix.search(docs[i*7], 3)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range want {
				if got := ix.search(docs[i*7], 3); !reflect.DeepEqual(got, want[i]) {
					t.Errorf("query %d: concurrent result differs", i)
				}
			}
		}()
	}
	wg.Wait()
}

var synthWords = strings.Fields(`the agent updated parser tests failing null pointer database schema migration
	config loader retry timeout handler router middleware cache eviction index query plan
	build docker image ci pipeline lint format refactor rename function variable module package
	search box unicode render layout css button modal form validation error message log`)

// synthDocs makes n agent-turn-like documents of 20-60 words.
func synthDocs(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 0))
	docs := make([]string, n)
	for i := range docs {
		k := 20 + r.IntN(40)
		ws := make([]string, k)
		for j := range ws {
			ws[j] = synthWords[r.IntN(len(synthWords))]
			if r.IntN(10) == 0 {
				ws[j] = fmt.Sprintf("file%d.go", r.IntN(1000))
			}
		}
		docs[i] = strings.Join(ws, " ")
	}
	return docs
}

// BenchmarkRetrieve: building the index of a pool and one query against it,
// by pool size (the training pool of a large study is ~100k pairs).
func BenchmarkRetrieve(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		docs := synthDocs(n, 2)
		b.Run(fmt.Sprintf("index/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				newTFIDFIndex(docs)
			}
		})
		ix := newTFIDFIndex(docs)
		b.Run(fmt.Sprintf("query/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				ix.search(docs[i%n], 1)
			}
		})
	}
}
