// Package e2e holds the end-to-end tests of the real nomadish binary: they
// build it, start agents on free ports with their own data dirs, drive them
// with the CLI and the HTTP API, and kill them. It has no non-test code.
package e2e
