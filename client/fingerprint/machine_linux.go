package fingerprint

import "syscall"

// machine returns uname's machine field ("x86_64") for the real root only.
func machine(cfg *Config) string {
	if cfg.Root != "" && cfg.Root != "/" {
		return readTrim(cfg.path("/proc/sys/kernel/arch"))
	}
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return ""
	}
	b := make([]byte, 0, len(u.Machine))
	for _, c := range u.Machine {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}
