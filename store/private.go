package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/syndtr/goleveldb/leveldb/storage"
)

// privateMode is the mode of every file of an on-disk store: messages for
// agents and the operator's commands are nobody else's to read.
const privateMode = 0o600

// privateStorage is goleveldb's file storage with every file it creates
// made 0600: goleveldb v1.0.0 creates them 0644 and has no option for it.
// New tables, journals and manifests are fixed by Create as they are
// created, the CURRENT pointer after each SetMeta; the files present at
// open (LOCK, LOG, and those of a store written before) by makePrivate.
type privateStorage struct {
	storage.Storage
	dir string
}

// openPrivate opens the file storage of dir (created 0700 when missing)
// and makes the files already in it private.
func openPrivate(dir string) (privateStorage, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return privateStorage{}, err
	}
	s, err := storage.OpenFile(dir, false)
	if err != nil {
		return privateStorage{}, err
	}
	if err := makePrivate(dir); err != nil {
		s.Close()
		return privateStorage{}, err
	}
	return privateStorage{Storage: s, dir: dir}, nil
}

// Create creates the file of fd and makes it private before anything is
// written to it.
func (p privateStorage) Create(fd storage.FileDesc) (storage.Writer, error) {
	w, err := p.Storage.Create(fd)
	if err != nil {
		return nil, err
	}
	if f, ok := w.(interface{ Chmod(fs.FileMode) error }); ok {
		if err := f.Chmod(privateMode); err != nil {
			w.Close()
			return nil, fmt.Errorf("make %s private: %w", fd, err)
		}
	}
	return w, nil
}

// SetMeta points CURRENT at fd; goleveldb writes CURRENT anew each time
// and keeps the previous one as CURRENT.bak.
func (p privateStorage) SetMeta(fd storage.FileDesc) error {
	if err := p.Storage.SetMeta(fd); err != nil {
		return err
	}
	for _, name := range []string{"CURRENT", "CURRENT.bak"} {
		if err := os.Chmod(filepath.Join(p.dir, name), privateMode); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// makePrivate sets mode 0600 on every regular file of dir whose mode is
// wider.
func makePrivate(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if fi.Mode().Perm()&^privateMode == 0 {
			continue
		}
		if err := os.Chmod(filepath.Join(dir, e.Name()), privateMode); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("make %s private: %w", e.Name(), err)
		}
	}
	return nil
}
