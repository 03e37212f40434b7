// Package enginetest is the engine fixture the packages' tests share: a
// store on memory and a scheduler engine over it, closed when the test
// ends; and the obligations service opened on a store with its engine,
// as the daemon starts them. It is imported by tests only.
//
// Imports: store, scheduler, wakes, obligations, internal/clock,
// goleveldb's memory storage, zerolog.
package enginetest
