package api

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
)

// Backuper makes an online backup; *store.DB satisfies it.
type Backuper interface {
	Backup(dir string) (int, error)
}

// BackupRequest is the body of POST /v1/backup: the new directory (an
// absolute path, which must not exist) to write the snapshot into.
type BackupRequest struct {
	Path string `json:"path"`
}

// BackupResult answers a backup.
type BackupResult struct {
	Path    string `json:"path"`
	Records int    `json:"records"`
}

// RegisterBackup adds the backup route:
//
//	POST /v1/backup    BackupRequest → BackupResult
//
// The daemon writes a consistent snapshot of its store (one point of its
// history) into a new directory, as the daemon's user, while it keeps
// serving; the result opens as a store (--store) or is put back with
// `wakewheel restore`.
func RegisterBackup(s *Server, b Backuper) {
	s.Handle("POST /v1/backup", "backup", func(w http.ResponseWriter, r *http.Request) error {
		var req BackupRequest
		if err := decode(r, &req); err != nil {
			return err
		}
		if !filepath.IsAbs(req.Path) {
			return badf("backup path %q: give an absolute path of a directory that does not exist yet", req.Path)
		}
		if _, err := os.Lstat(req.Path); err == nil {
			return badf("backup path %s already exists: give a new name (a backup never overwrites)", req.Path)
		}
		n, err := b.Backup(req.Path)
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, BackupResult{Path: req.Path, Records: n})
	})
}

// Backup asks the daemon for a backup of its store into the new directory
// path (absolute).
func (c *Client) Backup(ctx context.Context, path string) (BackupResult, error) {
	var out BackupResult
	return out, c.Do(ctx, http.MethodPost, "/v1/backup", BackupRequest{Path: path}, &out)
}
