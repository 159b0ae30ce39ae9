package endpoints

import (
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/nomadish/nomadish/structs"
)

var uuidRe = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// Bootstrap creates the first management token, once. Again after that
// only when the data dir's reset file (ACLConfig.BootstrapResetFile, Nomad's
// acl-bootstrap-reset) holds the index the refusal named. args.BootstrapSecret,
// when set, must be a UUID and becomes the token's secret.
func (e *ACL) Bootstrap(args *structs.ACLTokenBootstrapRequest, reply *structs.ACLTokenUpsertResponse) error {
	if !e.d.ACL.Enabled {
		return structs.ErrACLDisabled
	}
	args.ResetIndex = 0
	ok, resetIdx, err := e.d.State().Snapshot().CanBootstrapACLToken()
	if err != nil {
		return err
	}
	if !ok {
		specified := e.resetFileIndex()
		switch {
		case specified == 0:
			return structs.NewCodedError(structs.ErrCodeBadRequest, "ACL bootstrap already done (reset index: %d)", resetIdx)
		case specified != resetIdx:
			return structs.NewCodedError(structs.ErrCodeBadRequest, "Invalid bootstrap reset index (specified %d, reset index: %d)", specified, resetIdx)
		}
		args.ResetIndex = resetIdx
	}
	secret := structs.GenerateUUID()
	if args.BootstrapSecret != "" {
		if !uuidRe.MatchString(args.BootstrapSecret) {
			return structs.NewCodedError(structs.ErrCodeBadRequest, "invalid acl token: the bootstrap secret must be a UUID")
		}
		secret = args.BootstrapSecret
	}
	args.Token = &structs.ACLToken{
		AccessorID: structs.GenerateUUID(), SecretID: secret, Name: "Bootstrap Token",
		Type: structs.ACLManagementToken, Global: true, CreateTime: e.d.Clock.Now().UTC(),
	}
	args.Token.SetHash()
	index, _, err := e.d.Apply(structs.ACLTokenBootstrapRequestType, args)
	if err != nil {
		return err
	}
	out, err := e.d.State().Snapshot().ACLTokenByAccessorID(nil, args.Token.AccessorID)
	if err != nil {
		return err
	}
	if out == nil {
		return fmt.Errorf("bootstrap token %s missing after commit", args.Token.AccessorID)
	}
	reply.Tokens = []*structs.ACLToken{out.Copy()}
	reply.Index = index
	e.d.Logger.Info("ACL bootstrap done", "accessor", out.AccessorID, "index", index)
	return nil
}

// resetFileIndex is the index in the reset file, 0 when there is none or
// it does not parse (logged).
func (e *ACL) resetFileIndex() uint64 {
	path := e.d.ACL.BootstrapResetFile
	if path == "" {
		return 0
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			e.d.Logger.Error("reading the ACL bootstrap reset file", "path", path, "error", err)
		}
		return 0
	}
	var idx uint64
	if _, err := fmt.Sscanf(string(raw), "%d", &idx); err != nil {
		e.d.Logger.Error("parsing the ACL bootstrap reset file", "path", path, "error", err)
		return 0
	}
	e.d.Logger.Warn("ACL bootstrap reset file read", "path", path, "reset_index", idx)
	return idx
}
