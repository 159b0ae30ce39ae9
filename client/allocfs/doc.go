// Package allocfs reads an allocation's directory for the fs endpoints
// (`nomadish alloc fs`; GET /v1/client/fs/ls|stat|cat|readat). Paths are
// relative to the allocation directory and confined to it: a path that
// climbs out with ".." is refused (400); one whose symlinks lead outside,
// or into a task's secrets directory (as Nomad), is refused (403); files
// are opened through an os.Root of the directory, so a symlink swapped in
// after the check cannot escape either.
package allocfs
