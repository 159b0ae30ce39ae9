// Package network gives a group of an allocation its own network namespace
// and sets it up with the CNI plugins (bridge, none and cni/<name> modes):
// named namespaces under /var/run/netns (netns_linux.go), the conflists the
// client writes or reads (conflist.go), CNI ADD and DEL through libcni
// (cni.go), the hosts and resolv.conf files of a group (files.go), the
// Manager the alloc runner drives (manager.go) and the fingerprint helpers
// that say which modes this host supports (fingerprint.go).
package network
