// Package schema declares the shape of a driver's task `config` block: its
// keys, their types, which are required and which nest further blocks. Each
// driver declares its Schema once (drivers/<name>/schema.go), checks its
// task config against it before reading it, and hands it to the catalog
// (drivers.Entry.Schema); jobspec (with file:line:col), the CLI and the
// server check jobs against it at submission through a Lookup, so an
// unknown driver or an unknown or mistyped key is refused before anything is
// stored.
//
// The package imports only the standard library and internal/suggest, so
// jobspec, jobcheck and the server use it without linking any driver.
package schema
