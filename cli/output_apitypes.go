package cli

// As Nomad's, the -t template sees the official client's decoded value
// (github.com/hashicorp/nomad/api), not nomadish's structs: the API's JSON
// of v is decoded into the api type registered for v's type.

import (
	"encoding/json"
	"reflect"

	"github.com/hashicorp/nomad/api"

	"github.com/nomadish/nomadish/structs"
)

// apiTypes maps a structs type the read commands print to a constructor
// of its api counterpart.
var apiTypes = map[reflect.Type]func() any{}

func registerAPIType[S, A any]() {
	apiTypes[reflect.TypeFor[S]()] = func() any { return new(A) }
}

func init() {
	registerAPIType[*structs.Job, api.Job]()
	registerAPIType[[]*structs.Job, []*api.Job]()
	registerAPIType[[]*structs.JobListStub, []*api.JobListStub]()
	registerAPIType[*structs.Allocation, api.Allocation]()
	registerAPIType[[]*structs.AllocListStub, []*api.AllocationListStub]()
	registerAPIType[*structs.Node, api.Node]()
	registerAPIType[[]*structs.NodeListStub, []*api.NodeListStub]()
	registerAPIType[*structs.Evaluation, api.Evaluation]()
	registerAPIType[[]*structs.Evaluation, []*api.Evaluation]()
	registerAPIType[*structs.Deployment, api.Deployment]()
	registerAPIType[[]*structs.Deployment, []*api.Deployment]()
	registerAPIType[*structs.Namespace, api.Namespace]()
	registerAPIType[[]*structs.Namespace, []*api.Namespace]()
	registerAPIType[*structs.NodePool, api.NodePool]()
	registerAPIType[[]*structs.NodePool, []*api.NodePool]()
	registerAPIType[[]*structs.VariableMetadata, []*api.VariableMetadata]()
	registerAPIType[[]*structs.ServiceRegistrationListStub, []*api.ServiceRegistrationListStub]()
	registerAPIType[[]*structs.ServiceRegistration, []*api.ServiceRegistration]()
	registerAPIType[[]*structs.ScalingPolicyListStub, []*api.ScalingPolicyListStub]()
	registerAPIType[*structs.ACLToken, api.ACLToken]()
	registerAPIType[[]*structs.ACLToken, []*api.ACLTokenListStub]()
	registerAPIType[[]*structs.ACLPolicyListStub, []*api.ACLPolicyListStub]()
	registerAPIType[*structs.ACLRole, api.ACLRole]()
}

// asAPIValue returns v decoded into its api type (dereferenced one level:
// the template sees a *api.Job as Nomad's does), or v itself when no api
// type is registered or the JSON does not fit it.
func asAPIValue(v any) any {
	mk, ok := apiTypes[reflect.TypeOf(v)]
	if !ok || reflect.ValueOf(v).IsNil() {
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	out := mk()
	if err := json.Unmarshal(b, out); err != nil {
		return v
	}
	rv := reflect.ValueOf(out).Elem()
	if rv.Kind() == reflect.Slice {
		return rv.Interface()
	}
	return out
}
