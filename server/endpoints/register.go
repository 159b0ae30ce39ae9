package endpoints

// Endpoint is one RPC receiver: Receiver's methods of the form
// func(args *A, reply *R) error are served as Name + "." + method
// ("Job.Register").
type Endpoint struct {
	Name     string
	Receiver any
}

// Set is the server's endpoints, built once over one Deps.
type Set struct {
	// Endpoints is the registration list the server's RPC dispatch (and
	// its net/rpc server) is built from. A new domain is its files plus
	// one line here.
	Endpoints []Endpoint
	batcher   *allocBatcher
}

// New builds every endpoint over d. The caller keeps d's function fields
// valid for the set's life and calls Stop on shutdown.
func New(d Deps) (*Set, error) {
	if err := d.validate(); err != nil {
		return nil, err
	}
	dp := &d
	b := newAllocBatcher(dp, d.Limits.AllocUpdateBatch)
	return &Set{batcher: b, Endpoints: []Endpoint{
		{"Job", &Job{d: dp}},
		{"Node", &Node{d: dp, allocUpdates: b}},
		{"Alloc", &Alloc{d: dp}},
		{"Eval", &Eval{d: dp}},
		{"Deployment", &Deployment{d: dp}},
		{"Operator", &Operator{d: dp}},
		{"Status", &Status{d: dp}},
		{"Namespace", &Namespace{d: dp}},
		{"NodePool", &NodePool{d: dp}},
		{"ACL", &ACL{d: dp}},
		{"Variables", &Variables{d: dp}}, {"Keyring", &Keyring{d: dp}},
		{"Scaling", &Scaling{d: dp}},
		{"ServiceRegistration", &ServiceRegistration{d: dp}},
		{"Search", &Search{d: dp}},
		{"System", &System{d: dp}},
	}}, nil
}

// Stop fails the open alloc-update batch (shutdown): its callers get
// structs.ErrNoLeader.
func (s *Set) Stop() { s.batcher.stop() }
