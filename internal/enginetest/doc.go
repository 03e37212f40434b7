// Package enginetest is the engine fixture the packages' tests share: a
// store on memory and a scheduler engine over it, closed when the test
// ends. It is imported by tests only.
//
// Imports: store, scheduler, goleveldb's memory storage, zerolog.
package enginetest
