package allocmigrate

import "syscall"

const syscallNoFollow = syscall.O_NOFOLLOW
