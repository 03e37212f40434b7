package configs

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite REFERENCE.md from the registry")

const referencePath = "REFERENCE.md"

// reference renders the registry as the markdown of REFERENCE.md.
func reference() []byte {
	var b bytes.Buffer
	b.WriteString(`# wakewheel configuration reference

<!-- Generated from configs/registry.go by ` + "`go test ./configs -update`" + `. Do not edit. -->

Every key is set by, highest precedence first: the flag ` + "`--<key>`" + `, the
environment variable in the table, the config file, the default. The file
is the one given to Load, else ` + "`config.yaml`, `config.toml` or `config.json`" + ` in
` + "`$XDG_CONFIG_HOME/wakewheel`" + ` (` + "`~/.config/wakewheel`" + `); a key it holds that
is not listed here is an error. Dotted keys are nested tables in the file:

` + "```yaml" + `
detect:
  burst_silence: 500ms
obligations:
  human:
    slo: 15m
` + "```" + `

Durations take a unit (` + "`500ms`, `5s`, `10m`, `1h30m`" + `); a bare number is
rejected. Paths must be absolute; a leading ` + "`~/`" + ` means ` + "`$HOME`" + `.

| key | type | default | allowed | env | why this default |
|---|---|---|---|---|---|
`)
	for _, s := range registry {
		def := "`" + s.Default + "`"
		switch {
		case s.Derived():
			def = s.Default
		case s.Default == "":
			def = `""`
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | `%s` | %s |\n",
			s.Key, s.Kind, cell(def), cell(s.Allowed()), s.Env(), cell(s.Reason))
	}
	return b.Bytes()
}

// cell escapes what would break a table row.
func cell(text string) string {
	return strings.ReplaceAll(text, "|", `\|`)
}

// TestReferenceIsFresh fails when REFERENCE.md no longer matches the
// registry; `go test ./configs -update` rewrites it.
func TestReferenceIsFresh(t *testing.T) {
	want := reference()
	if *update {
		if err := os.WriteFile(referencePath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("%v; run go test ./configs -update", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale; run go test ./configs -update", referencePath)
	}
}

// TestReferenceListsEveryKey checks the rendered table row by row.
func TestReferenceListsEveryKey(t *testing.T) {
	doc := string(reference())
	for _, s := range registry {
		row := "| `" + s.Key + "` | " + string(s.Kind) + " | "
		if !strings.Contains(doc, row) {
			t.Errorf("no row for %s", s.Key)
		}
		for _, part := range []string{s.Env(), s.Allowed(), s.Reason} {
			if !strings.Contains(doc, part) {
				t.Errorf("%s: %q missing from the reference", s.Key, part)
			}
		}
	}
	if n := strings.Count(doc, "\n| `"); n != len(registry) {
		t.Errorf("%d rows, want %d", n, len(registry))
	}
}
