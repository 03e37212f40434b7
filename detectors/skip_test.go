package detectors

import (
	"slices"
	"testing"
)

func TestSkipPolicy(t *testing.T) {
	p := MustSkipPolicy("build", "web/dist", "/top", "./vendor/x/")
	cases := []struct {
		rel   string
		isDir bool
		want  bool
	}{
		{"", true, false},
		{".", true, false},
		{"main.go", false, false},
		{"node_modules", true, true},
		{"node_modules/a/b.js", false, true},
		{"pkg/node_modules", true, true},
		{"pkg/node_modules/x.js", false, true},
		{"node_modules_x/a.js", false, false},
		{".git", true, false},
		{".git", false, true}, // a linked work tree's .git file
		{".git/index.lock", false, false},
		{".git/HEAD", false, false},
		{".git/index", false, true},
		{".git/ORIG_HEAD", false, true},
		{".git/objects", true, true},
		{".git/objects/ab/cdef", false, true},
		{".git/refs/heads/HEAD", false, true},
		{".git/HEAD", true, true},
		{"sub/.git", true, true},
		{"sub/.git/HEAD", false, true},
		{".gitignore", false, false},
		{"build", true, true},
		{"a/build/x.o", false, true},
		{"builder/x", false, false},
		{"web/dist", true, true},
		{"web/dist/app.js", false, true},
		{"other/web/dist/app.js", false, false},
		{"web/distx", true, false},
		{"top", true, true},
		{"a/top", true, false},
		{"vendor/x", true, true},
		{"vendor/x/y.go", false, true},
		{"vendor/y.go", false, false},
	}
	for _, c := range cases {
		if got := p.Skips(c.rel, c.isDir); got != c.want {
			t.Errorf("Skips(%q, %v) = %v, want %v", c.rel, c.isDir, got, c.want)
		}
	}
	var zero SkipPolicy
	if !zero.Skips("node_modules", true) || zero.Skips("build", true) {
		t.Error("zero policy: want defaults only")
	}
	if got, want := p.Entries(), []string{"build", "top", "vendor/x", "web/dist"}; !slices.Equal(got, want) {
		t.Errorf("Entries = %q, want %q", got, want)
	}
}

func TestSkipPolicyRejectsBadEntries(t *testing.T) {
	for _, e := range []string{"", "/", "..", "../x", "a/../b", "a//b"} {
		if _, err := NewSkipPolicy(e); err == nil {
			t.Errorf("NewSkipPolicy(%q): want an error", e)
		}
	}
}

func TestIsGitControl(t *testing.T) {
	for rel, want := range map[string]bool{
		IndexLockPath: true, HeadPath: true, ".git/index": false, "HEAD": false, "x/.git/HEAD": false,
	} {
		if IsGitControl(rel) != want {
			t.Errorf("IsGitControl(%q) = %v", rel, !want)
		}
	}
}

func BenchmarkSkips(b *testing.B) {
	p := MustSkipPolicy("build", "web/dist")
	b.ReportAllocs()
	for b.Loop() {
		p.Skips("src/internal/pkg/deep/file_name.go", false)
	}
}
