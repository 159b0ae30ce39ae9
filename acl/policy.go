package acl

import "regexp"

// Policy levels: the values of `policy = "…"`. When policies are merged the
// most privileged level wins, except deny, which always wins.
const (
	PolicyDeny  = "deny"
	PolicyRead  = "read"
	PolicyList  = "list" // plugin rules only
	PolicyWrite = "write"
	PolicyScale = "scale" // namespace rules only
)

// Namespace capabilities, Nomad's names. `policy` is shorthand for a set of
// these (expandNamespacePolicy); capabilities of several rules are unioned,
// and deny replaces all others.
const (
	NamespaceCapabilityDeny                 = "deny"
	NamespaceCapabilityListJobs             = "list-jobs"
	NamespaceCapabilityParseJob             = "parse-job"
	NamespaceCapabilityReadJob              = "read-job"
	NamespaceCapabilitySubmitJob            = "submit-job"
	NamespaceCapabilityDispatchJob          = "dispatch-job"
	NamespaceCapabilityReadLogs             = "read-logs"
	NamespaceCapabilityReadFS               = "read-fs"
	NamespaceCapabilityAllocExec            = "alloc-exec"
	NamespaceCapabilityAllocNodeExec        = "alloc-node-exec"
	NamespaceCapabilityAllocLifecycle       = "alloc-lifecycle"
	NamespaceCapabilitySentinelOverride     = "sentinel-override"
	NamespaceCapabilityCSIRegisterPlugin    = "csi-register-plugin"
	NamespaceCapabilityCSIWriteVolume       = "csi-write-volume"
	NamespaceCapabilityCSIReadVolume        = "csi-read-volume"
	NamespaceCapabilityCSIListVolume        = "csi-list-volume"
	NamespaceCapabilityCSIMountVolume       = "csi-mount-volume"
	NamespaceCapabilityHostVolumeCreate     = "host-volume-create"
	NamespaceCapabilityHostVolumeRegister   = "host-volume-register"
	NamespaceCapabilityHostVolumeRead       = "host-volume-read"
	NamespaceCapabilityHostVolumeWrite      = "host-volume-write"
	NamespaceCapabilityHostVolumeDelete     = "host-volume-delete"
	NamespaceCapabilityListScalingPolicies  = "list-scaling-policies"
	NamespaceCapabilityReadScalingPolicy    = "read-scaling-policy"
	NamespaceCapabilityReadJobScaling       = "read-job-scaling"
	NamespaceCapabilityScaleJob             = "scale-job"
	NamespaceCapabilitySubmitRecommendation = "submit-recommendation"
)

// namespaceCapabilities lists every valid namespace capability.
var namespaceCapabilities = []string{
	NamespaceCapabilityDeny, NamespaceCapabilityListJobs, NamespaceCapabilityParseJob,
	NamespaceCapabilityReadJob, NamespaceCapabilitySubmitJob, NamespaceCapabilityDispatchJob,
	NamespaceCapabilityReadLogs, NamespaceCapabilityReadFS, NamespaceCapabilityAllocExec,
	NamespaceCapabilityAllocNodeExec, NamespaceCapabilityAllocLifecycle,
	NamespaceCapabilitySentinelOverride, NamespaceCapabilityCSIRegisterPlugin,
	NamespaceCapabilityCSIWriteVolume, NamespaceCapabilityCSIReadVolume,
	NamespaceCapabilityCSIListVolume, NamespaceCapabilityCSIMountVolume,
	NamespaceCapabilityHostVolumeCreate, NamespaceCapabilityHostVolumeRegister,
	NamespaceCapabilityHostVolumeRead, NamespaceCapabilityHostVolumeWrite,
	NamespaceCapabilityHostVolumeDelete, NamespaceCapabilityListScalingPolicies,
	NamespaceCapabilityReadScalingPolicy, NamespaceCapabilityReadJobScaling,
	NamespaceCapabilityScaleJob, NamespaceCapabilitySubmitRecommendation,
}

// Node pool capabilities.
const (
	NodePoolCapabilityDelete = "delete"
	NodePoolCapabilityDeny   = "deny"
	NodePoolCapabilityRead   = "read"
	NodePoolCapabilityWrite  = "write"
)

var nodePoolCapabilities = []string{NodePoolCapabilityDelete, NodePoolCapabilityDeny,
	NodePoolCapabilityRead, NodePoolCapabilityWrite}

// Host volume capabilities.
const (
	HostVolumeCapabilityDeny           = "deny"
	HostVolumeCapabilityMountReadOnly  = "mount-readonly"
	HostVolumeCapabilityMountReadWrite = "mount-readwrite"
)

var hostVolumeCapabilities = []string{HostVolumeCapabilityDeny,
	HostVolumeCapabilityMountReadOnly, HostVolumeCapabilityMountReadWrite}

// Variables path capabilities.
const (
	VariablesCapabilityList    = "list"
	VariablesCapabilityRead    = "read"
	VariablesCapabilityWrite   = "write"
	VariablesCapabilityDestroy = "destroy"
	VariablesCapabilityDeny    = "deny"
)

var variablesCapabilities = []string{VariablesCapabilityList, VariablesCapabilityRead,
	VariablesCapabilityWrite, VariablesCapabilityDestroy, VariablesCapabilityDeny}

// Operator capabilities.
const (
	OperatorCapabilityDeny         = "deny"
	OperatorCapabilitySnapshotSave = "snapshot-save"
	OperatorCapabilityLicenseRead  = "license-read"
)

var operatorCapabilities = []string{OperatorCapabilityDeny, OperatorCapabilitySnapshotSave,
	OperatorCapabilityLicenseRead}

var (
	validNamespace = regexp.MustCompile(`^[a-zA-Z0-9-*]{1,128}$`)
	validNodePool  = regexp.MustCompile(`^[a-zA-Z0-9-_*]{1,128}$`)
	validVolume    = regexp.MustCompile(`^[a-zA-Z0-9-*]{1,128}$`)
)

// Policy is one parsed policy document. Capabilities are already expanded:
// a rule's Capabilities hold its policy's shorthand too.
type Policy struct {
	Namespaces  []*NamespacePolicy
	NodePools   []*NodePoolPolicy
	HostVolumes []*HostVolumePolicy
	Agent       string // "" when the policy has no agent rule
	Node        string
	Operator    *OperatorPolicy
	Quota       string
	Plugin      string
	Raw         string
}

// IsEmpty is true when the policy has no rule at all.
func (p *Policy) IsEmpty() bool {
	return len(p.Namespaces) == 0 && len(p.NodePools) == 0 && len(p.HostVolumes) == 0 &&
		p.Agent == "" && p.Node == "" && p.Operator == nil && p.Quota == "" && p.Plugin == ""
}

// NamespacePolicy is a `namespace "name" { … }` rule; Name may hold `*` globs.
type NamespacePolicy struct {
	Name         string
	Policy       string
	Capabilities []string
	Variables    []*VariablesPathPolicy
}

// VariablesPathPolicy is a `path "spec" { capabilities = [...] }` rule
// inside a namespace's variables block.
type VariablesPathPolicy struct {
	PathSpec     string
	Capabilities []string
}

// NodePoolPolicy is a `node_pool "name" { … }` rule.
type NodePoolPolicy struct {
	Name         string
	Policy       string
	Capabilities []string
}

// HostVolumePolicy is a `host_volume "name" { … }` rule.
type HostVolumePolicy struct {
	Name         string
	Policy       string
	Capabilities []string
}

// OperatorPolicy is the `operator { … }` rule.
type OperatorPolicy struct {
	Policy       string
	Capabilities []string
}

// expandNamespacePolicy is the capability set a namespace policy level
// stands for, as in Nomad.
func expandNamespacePolicy(policy string) []string {
	read := []string{
		NamespaceCapabilityListJobs, NamespaceCapabilityParseJob, NamespaceCapabilityReadJob,
		NamespaceCapabilityCSIListVolume, NamespaceCapabilityCSIReadVolume,
		NamespaceCapabilityReadJobScaling, NamespaceCapabilityListScalingPolicies,
		NamespaceCapabilityReadScalingPolicy, NamespaceCapabilityHostVolumeRead,
	}
	switch policy {
	case PolicyDeny:
		return []string{NamespaceCapabilityDeny}
	case PolicyRead:
		return read
	case PolicyWrite:
		return append(read,
			NamespaceCapabilityScaleJob, NamespaceCapabilitySubmitJob,
			NamespaceCapabilityDispatchJob, NamespaceCapabilityReadLogs, NamespaceCapabilityReadFS,
			NamespaceCapabilityAllocExec, NamespaceCapabilityAllocLifecycle,
			NamespaceCapabilityCSIMountVolume, NamespaceCapabilityCSIWriteVolume,
			NamespaceCapabilitySubmitRecommendation, NamespaceCapabilityHostVolumeCreate)
	case PolicyScale:
		return []string{
			NamespaceCapabilityListScalingPolicies, NamespaceCapabilityReadScalingPolicy,
			NamespaceCapabilityReadJobScaling, NamespaceCapabilityScaleJob,
			NamespaceCapabilityReadJob, NamespaceCapabilitySubmitRecommendation,
		}
	}
	return nil
}

// expandNamespaceCapabilities adds what fine-grained host volume
// capabilities imply, as in Nomad.
func expandNamespaceCapabilities(caps []string) []string {
	var extra []string
	for _, c := range caps {
		switch c {
		case NamespaceCapabilityHostVolumeWrite:
			extra = append(extra, NamespaceCapabilityHostVolumeRegister,
				NamespaceCapabilityHostVolumeCreate, NamespaceCapabilityHostVolumeDelete,
				NamespaceCapabilityHostVolumeRead)
		case NamespaceCapabilityHostVolumeRegister:
			extra = append(extra, NamespaceCapabilityHostVolumeCreate, NamespaceCapabilityHostVolumeRead)
		case NamespaceCapabilityHostVolumeCreate:
			extra = append(extra, NamespaceCapabilityHostVolumeRead)
		}
	}
	return append(caps, extra...)
}

func expandNodePoolPolicy(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{NodePoolCapabilityDeny}
	case PolicyRead:
		return []string{NodePoolCapabilityRead}
	case PolicyWrite:
		return []string{NodePoolCapabilityDelete, NodePoolCapabilityRead, NodePoolCapabilityWrite}
	}
	return nil
}

func expandHostVolumePolicy(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{HostVolumeCapabilityDeny}
	case PolicyRead:
		return []string{HostVolumeCapabilityMountReadOnly}
	case PolicyWrite:
		return []string{HostVolumeCapabilityMountReadOnly, HostVolumeCapabilityMountReadWrite}
	}
	return nil
}

func expandOperatorPolicy(policy string) []string {
	switch policy {
	case PolicyDeny:
		return []string{OperatorCapabilityDeny}
	case PolicyRead:
		return []string{OperatorCapabilityLicenseRead}
	case PolicyWrite:
		return []string{OperatorCapabilitySnapshotSave, OperatorCapabilityLicenseRead}
	}
	return nil
}

// expandVariablesCapabilities: deny alone stays alone; read implies list.
func expandVariablesCapabilities(caps []string) []string {
	var read, list bool
	for _, c := range caps {
		switch c {
		case VariablesCapabilityDeny:
			return []string{VariablesCapabilityDeny}
		case VariablesCapabilityRead:
			read = true
		case VariablesCapabilityList:
			list = true
		}
	}
	if read && !list {
		caps = append(caps, VariablesCapabilityList)
	}
	return caps
}
