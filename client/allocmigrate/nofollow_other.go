//go:build !linux

package allocmigrate

const syscallNoFollow = 0
