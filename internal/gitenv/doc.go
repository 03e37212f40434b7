// Package gitenv is the environment every git child of wakewheel runs in
// (and the commands a root runs, and the tests' git): the process
// environment without the variables that would point git at another
// repository, index or work tree — a daemon started from a git hook
// inherits GIT_DIR — plus GIT_OPTIONAL_LOCKS=0, so that no read ever takes
// .git/index.lock.
//
// Imports: the standard library only.
package gitenv
