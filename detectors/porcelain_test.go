package detectors

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

const (
	hashA = "78981922613b2afb6025042ff6bd878ac1994e85"
	hashB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
)

// porcelainRecord is one entry for the generator of well-formed output.
type porcelainRecord struct {
	kind       byte // '1', '2', 'u', '?', '!', '#'
	path, orig string
}

// encodePorcelainV2Z writes records as `git status --porcelain=v2 -z` does.
func encodePorcelainV2Z(recs []porcelainRecord) []byte {
	var b bytes.Buffer
	for _, r := range recs {
		switch r.kind {
		case '#':
			b.WriteString("# " + r.path)
		case '1':
			b.WriteString("1 .M N... 100644 100644 100644 " + hashA + " " + hashA + " " + r.path)
		case '2':
			b.WriteString("2 R. N... 100644 100644 100644 " + hashA + " " + hashA + " R100 " + r.path)
			b.WriteByte(0)
			b.WriteString(r.orig)
		case 'u':
			b.WriteString("u UU N... 100644 100644 100644 100644 " + hashA + " " + hashB + " " + hashA + " " + r.path)
		case '?', '!':
			b.WriteString(string(r.kind) + " " + r.path)
		}
		b.WriteByte(0)
	}
	return b.Bytes()
}

func pathsOf(recs []porcelainRecord) []string {
	var out []string
	for _, r := range recs {
		switch r.kind {
		case '#':
		case '2':
			out = append(out, r.path, r.orig)
		default:
			out = append(out, r.path)
		}
	}
	return out
}

func TestParsePorcelainV2Z(t *testing.T) {
	recs := []porcelainRecord{
		{kind: '#', path: "branch.oid " + hashA},
		{kind: '#', path: "branch.head main"},
		{kind: '1', path: "plain.go"},
		{kind: '1', path: "with space/and  two spaces.txt"},
		{kind: '2', path: "new name\nwith newline", orig: "old \"quoted\" name"},
		{kind: 'u', path: "conflict\tтаб.txt"},
		{kind: '?', path: "untracked \\ back\\slash 日本.md"},
		{kind: '!', path: "ignored/\xff\xfe.bin"},
		{kind: '?', path: "R100 looks like a field"},
	}
	got, err := ParsePorcelainV2Z(encodePorcelainV2Z(recs))
	if err != nil {
		t.Fatal(err)
	}
	if want := pathsOf(recs); !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got, err := ParsePorcelainV2Z(nil); err != nil || got != nil {
		t.Fatalf("empty input: %q, %v", got, err)
	}
}

func TestParsePorcelainV2ZMalformed(t *testing.T) {
	for name, in := range map[string]string{
		"no NUL":          "? a",
		"empty record":    "\x00",
		"unknown type":    "X a\x00",
		"untracked empty": "? \x00",
		"untracked short": "?\x00",
		"header":          "#x\x00",
		"ordinary short":  "1 .M N... 100644 100644 100644 " + hashA + " " + hashA + "\x00",
		"ordinary empty":  "1 .M N... 100644 100644 100644 " + hashA + " " + hashA + " \x00",
		"bad XY":          "1 M N... 100644 100644 100644 " + hashA + " " + hashA + " p\x00",
		"double space":    "1 .M  N... 100644 100644 100644 " + hashA + " " + hashA + " p\x00",
		"rename no orig":  "2 R. N... 100644 100644 100644 " + hashA + " " + hashA + " R100 p\x00",
		"rename cut orig": "2 R. N... 100644 100644 100644 " + hashA + " " + hashA + " R100 p\x00orig",
		"unmerged short":  "u UU N... 100644 100644 100644 100644 " + hashA + " " + hashA + " p\x00",
	} {
		got, err := ParsePorcelainV2Z([]byte(in))
		if !errors.Is(err, ErrPorcelain) || got != nil {
			t.Errorf("%s: got %q, %v; want ErrPorcelain", name, got, err)
		}
	}
}

// FuzzParsePorcelainV2Z checks two properties: arbitrary input never panics
// and yields either an error or non-empty, NUL-free paths; and output
// generated from the input (read as NUL-separated paths and record kinds)
// parses back to exactly the paths it was made of.
func FuzzParsePorcelainV2Z(f *testing.F) {
	f.Add([]byte("? a\x00"))
	f.Add([]byte("# branch.oid (initial)\x00? x y\x00! z\x00"))
	f.Add(encodePorcelainV2Z([]porcelainRecord{{kind: '2', path: "a b", orig: "c\nd"}, {kind: 'u', path: "u"}}))
	f.Add([]byte("1 .M N... 100644 100644 100644 a b p\x00"))
	f.Add([]byte("a\x00b c\x00\xff\n\"\x00\\\t\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		paths, err := ParsePorcelainV2Z(data)
		if err == nil {
			for _, p := range paths {
				if p == "" || strings.IndexByte(p, 0) >= 0 {
					t.Fatalf("bad path %q", p)
				}
			}
		} else if !errors.Is(err, ErrPorcelain) || paths != nil {
			t.Fatalf("error %v with paths %q", err, paths)
		}

		kinds := []byte{'1', '2', 'u', '?', '!', '#'}
		var recs []porcelainRecord
		names := strings.Split(string(data), "\x00")
		for i := 0; i < len(names); i++ {
			if names[i] == "" {
				continue
			}
			r := porcelainRecord{kind: kinds[int(names[i][0])%len(kinds)], path: names[i]}
			if r.kind == '2' {
				r.orig = "orig"
				if i+1 < len(names) && names[i+1] != "" {
					r.orig = names[i+1]
					i++
				}
			}
			recs = append(recs, r)
		}
		got, err := ParsePorcelainV2Z(encodePorcelainV2Z(recs))
		if err != nil {
			t.Fatalf("generated output: %v", err)
		}
		if want := pathsOf(recs); !slices.Equal(got, want) {
			t.Fatalf("round trip: got %q want %q", got, want)
		}
	})
}

// Real git output, every record type, names git would quote without -z.
func TestParsePorcelainV2ZRealGit(t *testing.T) {
	dir := t.TempDir()
	genRepo(t, dir, 2)
	writeFile(t, dir, "rename me \"now\"\n.txt", "same content for a rename, long enough to be detected\n")
	writeFile(t, dir, "conflict.txt", "base\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	git(t, dir, "checkout", "-q", "-b", "other")
	writeFile(t, dir, "conflict.txt", "theirs\n")
	git(t, dir, "commit", "-q", "-am", "theirs")
	git(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "conflict.txt", "ours\n")
	git(t, dir, "commit", "-q", "-am", "ours")
	_ = runQuiet("git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", dir, "merge", "-q", "other")
	git(t, dir, "mv", "rename me \"now\"\n.txt", "renamed\tété.txt")
	writeFile(t, dir, "d000/e00/f00000.txt", "modified")
	writeFile(t, dir, "untracked\\ 日本.txt", "x")
	writeFile(t, dir, ".gitignore", "*.log\n")
	writeFile(t, dir, "ignored \xff.log", "x")

	out := git(t, dir, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignored", "--branch")
	for _, kind := range []string{"\x002 ", "\x00u ", "\x001 ", "\x00? ", "\x00! "} {
		if !bytes.Contains(append([]byte{0}, out...), []byte(kind)) {
			t.Fatalf("git output lacks a %q record: %q", kind[1:], out)
		}
	}
	got, err := ParsePorcelainV2Z(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "conflict.txt", "d000/e00/f00000.txt", "ignored \xff.log",
		"rename me \"now\"\n.txt", "renamed\tété.txt", "untracked\\ 日本.txt"}
	if g := sortedUnique(got); !slices.Equal(g, want) {
		t.Fatalf("got %q\nwant %q", g, want)
	}
}
