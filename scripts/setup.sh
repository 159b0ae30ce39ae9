#!/usr/bin/env bash
# Installs what nomadish's dev agent and tests need on a fresh Debian machine.
# Idempotent and quiet when everything is present. Go modules come by themselves.
set -euo pipefail

need=()
command -v protoc >/dev/null 2>&1 || need+=(protobuf-compiler)
[ -x /bin/busybox ] || need+=(busybox-static)
command -v qemu-system-x86_64 >/dev/null 2>&1 || need+=(qemu-system-x86)
compgen -G '/boot/vmlinuz-*' >/dev/null || need+=(linux-image-amd64)
# The partition test puts servers in network namespaces (ip netns, veth, iptables).
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v iptables >/dev/null 2>&1 || need+=(iptables)

if [ ${#need[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
	echo "==> installing ${need[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq >/dev/null
	$SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
