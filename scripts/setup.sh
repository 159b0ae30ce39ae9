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
#                           UI's browser tests, headless).
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
	;;
*)
	echo "usage: $0 dev|test" >&2
	exit 2
	;;
esac

[ ${#need[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
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
