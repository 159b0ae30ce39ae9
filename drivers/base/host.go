package base

// Host is what a driver's default rule sees of the client's machine.
type Host struct {
	OS   string // runtime.GOOS
	Root bool   // the client runs as root
}
