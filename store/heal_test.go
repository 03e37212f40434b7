package store

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/syndtr/goleveldb/leveldb/storage"

	wakewheel "github.com/wakewheel/wakewheel"
)

// fullStorage is a memory storage whose writes fail with ENOSPC while full
// is set, as a full disk's do.
type fullStorage struct {
	storage.Storage
	full atomic.Bool
}

func (s *fullStorage) Create(fd storage.FileDesc) (storage.Writer, error) {
	if s.full.Load() {
		return nil, syscall.ENOSPC
	}
	w, err := s.Storage.Create(fd)
	if err != nil {
		return nil, err
	}
	return &fullWriter{Writer: w, s: s}, nil
}

type fullWriter struct {
	storage.Writer
	s *fullStorage
}

func (w *fullWriter) Write(p []byte) (int, error) {
	if w.s.full.Load() {
		return 0, syscall.ENOSPC
	}
	return w.Writer.Write(p)
}

// A full disk fails writes clearly, keeps reads and alerts going, and once
// it has room the store heals by itself — goleveldb's sticky journal error
// included — and writes the episode into the alert log. Readers and
// writers run throughout, so the race detector checks the handle swap.
func TestHealAfterFullDisk(t *testing.T) {
	s := &fullStorage{Storage: storage.NewMemStorage()}
	open := func(o Options) (*DB, error) { return OpenStorage(s, o) }
	db := mustOpen(t, open, Options{HealInterval: 10 * time.Millisecond})
	for i := range 50 {
		if err := db.Put("ob", fmt.Sprint("before-", i), []byte("v"), true); err != nil {
			t.Fatal(err)
		}
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var reads, readErrs atomic.Int64
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				err := db.Scan("ob", "before-", func(string, []byte) error { return nil })
				if _, _, gerr := db.Get("ob", "before-1"); gerr != nil {
					err = gerr
				}
				if err != nil {
					readErrs.Add(1)
				}
				reads.Add(1)
				db.PutDeadline(dl("wb", time.Duration(reads.Load())*time.Second)) // write-behind churn
			}
		}()
	}

	s.full.Store(true)
	err := db.Put("ob", "during", []byte("v"), true)
	if !errors.Is(err, ErrUnwritable) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("a write on a full disk: %v, want ErrUnwritable wrapping ENOSPC", err)
	}
	t.Logf("the error a caller sees: %v", err)
	if db.Health() == nil {
		t.Fatal("Health is nil while the store cannot write")
	}
	if a, err := db.AddAlert(wakewheel.Alert{Time: time.Now(), Code: "during_episode"}); err != nil || a.Seq != 0 {
		t.Fatalf("an alert during the episode: %+v %v, want held in memory (Seq 0)", a, err)
	}
	held, err := db.Alerts(0)
	if err != nil || len(held) < 2 || held[0].Code != "store_write_failed" || held[1].Code != "during_episode" {
		t.Fatalf("Alerts during the episode = %+v, %v; want store_write_failed then during_episode", held, err)
	}
	time.Sleep(50 * time.Millisecond) // heal attempts fail while full
	if err := db.Put("ob", "during", []byte("v"), true); !errors.Is(err, ErrUnwritable) {
		t.Fatalf("a write while still full: %v", err)
	}

	s.full.Store(false)
	deadline := time.Now().Add(5 * time.Second)
	for db.Health() != nil {
		if time.Now().After(deadline) {
			db.fault.mu.Lock()
			last := db.fault.last
			db.fault.mu.Unlock()
			t.Fatalf("the store did not heal within 5s of the disk having room: %v (last attempt: %v)", db.Health(), last)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := db.Put("ob", "after", []byte("v"), true); err != nil {
		t.Fatalf("a write after healing: %v", err)
	}
	close(stop)
	wg.Wait()
	if reads.Load() == 0 {
		t.Fatal("no read ran")
	}
	t.Logf("%d scans, %d failed (while the handle was being reopened)", reads.Load(), readErrs.Load())

	alerts, err := db.Alerts(0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]uint64{}
	for _, a := range alerts {
		codes[a.Code] = a.Seq
	}
	for _, c := range []string{"store_write_failed", "during_episode", "store_healed"} {
		if codes[c] == 0 {
			t.Errorf("alert %s not persisted with a Seq after healing: %+v", c, alerts)
		}
	}

	mustClose(t, db)
	db = mustOpen(t, open, Options{})
	for _, k := range []string{"before-0", "before-49", "after"} {
		if _, ok := mustGet(t, db, "ob", k); !ok {
			t.Errorf("%s lost", k)
		}
	}
	if _, ok := mustGet(t, db, "ob", "during"); ok {
		t.Error("a refused write was stored")
	}
}
