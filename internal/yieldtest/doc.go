// Package yieldtest measures whether a piece of work gives the processor
// back as it goes: the tests of the listings (store's page reads, api's page
// writes) share it. It is imported by tests only.
//
// Imports: the standard library only.
package yieldtest
