package configs

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
	yaml "go.yaml.in/yaml/v3"
)

// Names in the file keep their case. viper folds every key to lower case,
// which is right for settings (detect.burst_silence) but wrong for the
// names a user gives to things: a lane "Reviewer" would become "reviewer",
// its wake hook would be configured for a lane nobody waits on, and the
// daemon would log a name the user never wrote. So the names of the
// name-keyed tables (lanes, the one such table) are read again from the file as written.

// fileNames maps each name of table (folded to lower case, as viper gives
// it) to the name as the file writes it. Two names that differ only in
// case are an error: viper has merged them into one.
func fileNames(path, table string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var top map[string]any
	switch strings.TrimPrefix(filepath.Ext(path), ".") {
	case "yaml", "yml":
		err = yaml.Unmarshal(b, &top)
	case "toml":
		err = toml.Unmarshal(b, &top)
	case "json":
		err = json.Unmarshal(b, &top)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var t map[string]any
	for k, v := range top {
		if strings.EqualFold(k, table) {
			t, _ = v.(map[string]any)
		}
	}
	names := map[string]string{}
	for name := range t {
		folded := strings.ToLower(name)
		if other, ok := names[folded]; ok {
			return nil, fmt.Errorf("%s names %q and %q differ only in case: give them different names", table, other, name)
		}
		names[folded] = name
	}
	return names, nil
}
