package gitenv

import (
	"os"
	"slices"
	"strings"
	"sync"
)

// Env returns the environment. The slice is shared and clipped: appending
// to it copies.
func Env() []string { return slices.Clip(env()) }

var env = sync.OnceValue(func() []string {
	drop := map[string]bool{
		"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
		"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
		"GIT_COMMON_DIR": true, "GIT_PREFIX": true, "GIT_NAMESPACE": true,
		"GIT_OPTIONAL_LOCKS": true, "GIT_CONFIG_PARAMETERS": true,
		"GIT_CONFIG_COUNT": true, "GIT_EXTERNAL_DIFF": true,
	}
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv)
		}
	}
	return append(out, "GIT_OPTIONAL_LOCKS=0")
})
