// Package logging captures a task's stdout/stderr inside the driver plugin:
// a FIFO the task writes to, a Pump that copies it, and a Rotator that
// writes <path>.0, <path>.1, ... with a size and count limit.
package logging
