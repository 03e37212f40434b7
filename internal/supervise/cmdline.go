package supervise

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrBadCommand is wrapped when a command line names a program that does
// not exist or cannot be executed.
var ErrBadCommand = errors.New("supervise: bad command")

// Resolve checks the program a shell command line runs, before anything
// runs it, and makes the line independent of the directory it will run
// in. The program is the line's first word after any NAME=value
// assignments:
//
//   - a path (it holds a '/'): a relative one is taken against dir and
//     written back absolute (shell-quoted); it must exist, be a regular
//     file and be executable;
//   - a bare name: it must be found in PATH (the caller's);
//   - a shell keyword or builtin (if, cd, exit, ...), or a word the shell
//     would expand ($VAR, globs, ~, quotes with expansions): not checked,
//     the line is returned as it is.
//
// An empty line is returned as it is (it removes a command). The error
// wraps ErrBadCommand and says what was wrong and how to fix it.
func Resolve(line, dir string) (string, error) {
	start, end, word, ok := program(line)
	if !ok {
		return line, nil
	}
	if !strings.Contains(word, "/") {
		if _, err := exec.LookPath(word); err != nil {
			return "", fmt.Errorf("%w: %q is not a command found in PATH (give its path, or install it)", ErrBadCommand, word)
		}
		return line, nil
	}
	abs, ok := programPath(word, dir)
	if !ok {
		return line, nil
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%w: %s does not exist%s", ErrBadCommand, abs, against(word, dir))
	case err != nil:
		return "", fmt.Errorf("%w: %s: %w", ErrBadCommand, abs, err)
	case fi.IsDir():
		return "", fmt.Errorf("%w: %s is a directory, not a program", ErrBadCommand, abs)
	case fi.Mode()&0o111 == 0:
		return "", fmt.Errorf("%w: %s is not executable (chmod +x %s, or run it through a shell: 'sh %s')", ErrBadCommand, abs, abs, abs)
	}
	if abs == word {
		return line, nil
	}
	return line[:start] + shellQuote(abs) + line[end:], nil
}

// Program is the file a command line runs, found as Resolve finds it: the
// program word (after any NAME=value assignments) when it is a path, a
// relative one taken against dir. ok is false when there is no such file
// to name: a bare name (found in PATH), a shell word or expansion, or a
// relative path with no dir. The config's trust check reads the same
// file that Resolve checks and the runner runs.
func Program(line, dir string) (path string, ok bool) {
	_, _, word, ok := program(line)
	if !ok || !strings.Contains(word, "/") {
		return "", false
	}
	return programPath(word, dir)
}

// programPath is the absolute path of a program word that holds a '/':
// a relative one taken against dir (none without a dir).
func programPath(word, dir string) (string, bool) {
	if filepath.IsAbs(word) {
		return word, true
	}
	if dir == "" {
		return "", false
	}
	return filepath.Join(dir, word), true
}

// against says where a relative program was looked for.
func against(word, dir string) string {
	if filepath.IsAbs(word) {
		return ""
	}
	return fmt.Sprintf(" (%s taken from %s)", word, dir)
}

// shellWords are the keywords and builtins a line may start with: no
// program file to check.
var shellWords = map[string]bool{
	"if": true, "then": true, "for": true, "while": true, "until": true, "case": true, "{": true, "(": true,
	"!": true, "cd": true, "exit": true, "export": true, "set": true, "unset": true, ".": true, "source": true,
	"eval": true, "exec": true, "read": true, "trap": true, "wait": true, "shift": true, "local": true,
	"return": true, ":": true, "command": true, "builtin": true, "alias": true, "umask": true, "ulimit": true,
	"echo": true, "printf": true, "test": true, "[": true, "true": true, "false": true, "kill": true,
}

// program finds the program word of line: its byte span and text, and
// whether it is worth checking.
func program(line string) (start, end int, word string, ok bool) {
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			return 0, 0, "", false
		}
		j := i
		for j < len(line) && !strings.ContainsRune(" \t\n;&|<>()", rune(line[j])) {
			j++
		}
		tok := line[i:j]
		if isAssignment(tok) {
			i = j
			continue
		}
		if tok == "" || shellWords[tok] || strings.ContainsAny(tok, "$`*?[]{}~\\'\"#=") {
			return 0, 0, "", false
		}
		return i, j, tok, true
	}
}

// isAssignment reports whether tok is NAME=value.
func isAssignment(tok string) bool {
	name, _, ok := strings.Cut(tok, "=")
	if !ok || name == "" {
		return false
	}
	for k, c := range name {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (k == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// shellQuote quotes s for sh when it needs it.
func shellQuote(s string) string {
	safe := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_/.,:@%+-", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
