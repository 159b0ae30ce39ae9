#!/usr/bin/env bash
# Installs what is missing on a Debian machine for one purpose:
#
#   scripts/setup.sh dev    what `make dev` needs: building and running `agent -dev`
#                           with its default drivers. That is Go alone: raw_exec and
#                           exec need nothing else, qemu and docker are enabled only
#                           when their binaries are already there. Bridge networking
#                           needs the CNI plugins (containernetworking-plugins, in
#                           /usr/lib/cni) and iptables: installed when missing.
#   scripts/setup.sh test   what `make test` needs on top: busybox (static task
#                           images of the qemu and docker tests), qemu and a kernel
#                           image (qemu driver tests), iproute2 and iptables (the
#                           partition test), protoc (`make proto`), and the CNI
#                           plugins (bridge networking tests), chromium (the web
#                           UI's browser tests, headless), libvirt's daemon and
#                           virsh, qemu-img and qemu-guest-agent (the virt driver's
#                           tests; qemu-ga goes into the test guest). It then
#                           starts virtlogd and libvirtd (-d: there is no systemd)
#                           unless they are running, with qemu.conf's user/group
#                           set to root first, so qemu can read task files under
#                           0700 directories.
#   scripts/setup.sh libvirt  only that last step: what the virt tests run when
#                           libvirtd does not answer (a daemon that died, or a
#                           stale socket file left on a machine's image).
#
# Idempotent: when everything is present it prints nothing. apt's progress is
# shown, and a held apt/dpkg lock (unattended-upgrades on a fresh machine) is
# waited for instead of failing at once. Go modules come by themselves.
set -euo pipefail

target=${1:-test}

need_go() {
	if ! command -v go >/dev/null 2>&1; then
		echo "setup: Go is not in PATH; install Go 1.26 from https://go.dev/dl/ (Debian's golang-go is older)" >&2
		exit 1
	fi
}

need=()
case "$target" in
dev)
	need_go
	[ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
	command -v iptables >/dev/null 2>&1 || need+=(iptables)
	;;
test)
	need_go
	command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
	[ -x /bin/busybox ] || need+=(busybox-static)
	command -v qemu-system-x86_64 >/dev/null 2>&1 || need+=(qemu-system-x86)
	compgen -G '/boot/vmlinuz-*' >/dev/null || need+=(linux-image-amd64)
	# The partition test puts servers in network namespaces (ip netns, veth, iptables).
	command -v ip >/dev/null 2>&1 || need+=(iproute2)
	command -v iptables >/dev/null 2>&1 || need+=(iptables)
	# Bridge networking: the CNI plugins in /usr/lib/cni.
	[ -x /usr/lib/cni/bridge ] || need+=(containernetworking-plugins)
	# The web UI's browser tests drive headless Chromium (chromedp).
	command -v chromium >/dev/null 2>&1 || need+=(chromium)
	# The virt driver: libvirtd (and virtlogd), virsh, qemu-img.
	command -v libvirtd >/dev/null 2>&1 || need+=(libvirt-daemon-system)
	command -v virsh >/dev/null 2>&1 || need+=(libvirt-clients)
	command -v qemu-img >/dev/null 2>&1 || need+=(qemu-utils)
	# qemu-ga goes into the test guest's initramfs (alloc exec's guest agent).
	[ -x /usr/sbin/qemu-ga ] || need+=(qemu-guest-agent)
	;;
libvirt) ;;
*)
	echo "usage: $0 dev|test|libvirt" >&2
	exit 2
	;;
esac

if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi

# start_libvirt starts virtlogd and libvirtd unless they are running (no
# systemd here), after making qemu run as root: libvirt's default user
# libvirt-qemu cannot reach task files under 0700 directories. A user set in
# qemu.conf already is left alone. A socket file alone proves nothing: a
# machine restored from an image can hold a stale one, which refuses every
# connection. So a daemon counts as running only when its process is there,
# and libvirtd only once virsh gets an answer from it. Each daemon logs its
# warnings and errors to /var/log/libvirt/<daemon>.log. Silent when both run.
start_libvirt() {
	local conf=/etc/libvirt/qemu.conf
	if [ -f "$conf" ] && ! grep -Eq '^[[:space:]]*user[[:space:]]*=' "$conf"; then
		printf '# Set by nomadish scripts/setup.sh: qemu runs as root.\nuser = "root"\ngroup = "root"\n' |
			$SUDO tee -a "$conf" >/dev/null
		alive libvirtd &&
			echo "setup: set user/group root in $conf; restart libvirtd for it to apply" >&2
	fi
	$SUDO mkdir -p /var/log/libvirt
	local try
	for try in 1 2; do
		start_daemons
		local end=$((SECONDS + 20))
		while [ "$SECONDS" -lt "$end" ]; do
			# A stopped or hung daemon accepts and never answers: bound each ask.
			timeout 5 virsh -q -c qemu:///system version >/dev/null 2>&1 && return 0
			sleep 0.2
		done
		[ "$try" -eq 2 ] && break
		# A libvirtd process that does not answer (hung, or a zombie
		# nobody reaps) is stopped, and started again once.
		echo "==> setup: libvirtd does not answer after 20s; restarting it" >&2
		$SUDO pkill -x libvirtd || true
		for _ in $(seq 50); do
			alive libvirtd || break
			sleep 0.1
		done
		$SUDO pkill -9 -x libvirtd || true
		for _ in $(seq 50); do
			alive libvirtd || break
			sleep 0.1
		done
	done
	echo "setup: libvirtd does not answer on qemu:///system; its log:" >&2
	tail -n 20 /var/log/libvirt/libvirtd.log >&2 2>/dev/null || true
	exit 1
}

# alive says whether a process of that name exists and is not a zombie
# (a killed daemon stays one until something reaps it).
alive() {
	ps -C "$1" -o stat= | grep -qv '^Z'
}

# start_daemons starts virtlogd and libvirtd where no such process runs,
# after clearing what a dead one left behind (sockets, pid file).
start_daemons() {
	local daemon socks s
	for daemon in virtlogd libvirtd; do
		alive "$daemon" && continue
		echo "==> setup: starting $daemon -d" >&2
		case $daemon in
		virtlogd) socks="virtlogd-sock virtlogd-admin-sock" ;;
		libvirtd) socks="libvirt-sock libvirt-sock-ro libvirt-admin-sock" ;;
		esac
		for s in $socks; do $SUDO rm -f "/run/libvirt/$s"; done
		$SUDO rm -f "/run/$daemon.pid"
		$SUDO env LIBVIRT_LOG_OUTPUTS="3:file:/var/log/libvirt/$daemon.log" "$daemon" -d
	done
}

if [ ${#need[@]} -eq 0 ]; then
	[ "$target" = dev ] || start_libvirt
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
# Wait up to 5 minutes for another apt/dpkg to release its lock.
apt=($SUDO apt-get -o DPkg::Lock::Timeout=300)
echo "==> setup ($target): installing ${need[*]}" >&2
# apt-get update also fails on a held lists lock or a flaky mirror: retry.
for try in 1 2 3 4 5; do
	"${apt[@]}" update && break
	[ "$try" -eq 5 ] && { echo "setup: apt-get update failed 5 times" >&2; exit 1; }
	echo "==> setup: apt-get update failed, retrying in 10s ($try/5)" >&2
	sleep 10
done
"${apt[@]}" install -y "${need[@]}"
[ "$target" = test ] && start_libvirt
exit 0
