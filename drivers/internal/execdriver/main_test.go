package execdriver

import (
	"os"
	"testing"
)

// TestMain lets the test binary be the exec task init, as the nomadish
// binary is in production (the driver starts os.Executable()).
func TestMain(m *testing.M) {
	if IsInit(os.Args) {
		os.Exit(RunInit())
	}
	os.Exit(m.Run())
}
