package logs

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestJSONAtTheNamedLevel(t *testing.T) {
	var b bytes.Buffer
	log := New(&b, "warn", "json")
	log.Info().Msg("dropped")
	log.Warn().Str("root", "/r").Msg("kept")
	var line map[string]any
	if err := json.Unmarshal(b.Bytes(), &line); err != nil {
		t.Fatalf("want one JSON line, got %q: %v", b.String(), err)
	}
	if line["level"] != "warn" || line["message"] != "kept" || line["root"] != "/r" || line["time"] == nil {
		t.Errorf("line %v: want a timestamped warn line with its field", line)
	}
	stamp, _ := line["time"].(string)
	if _, err := time.Parse(TimeFormat, stamp); err != nil {
		t.Errorf("time %q: want RFC 3339 with milliseconds: %v", stamp, err)
	}
}

func TestAnUnknownLevelIsInfoAndConsoleIsText(t *testing.T) {
	var b bytes.Buffer
	log := New(&b, "loud", "console")
	log.Debug().Msg("dropped")
	log.Info().Msg("kept")
	out := b.String()
	if strings.Contains(out, "dropped") || !strings.Contains(out, "kept") || strings.HasPrefix(out, "{") {
		t.Errorf("console output %q: want the info line as text and no debug line", out)
	}
}
