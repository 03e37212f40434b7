// Package clock is the only place in the engine's libraries that reads the
// wall clock. The runner holds a Clock; pure packages take now as a value.
//
// Why an interface: simulation tests replay days in milliseconds with Fake,
// and the runner's sleep-until-Next loop is the same code under both.
//
// Imports: the standard library only.
package clock
