package checks

import (
	"context"
	"fmt"
	"net"

	"github.com/nomadish/nomadish/structs"
)

// tcpCheck is a tcp check: passing when a connection opens.
type tcpCheck struct{ addr string }

func (c *tcpCheck) Check(ctx context.Context) Result {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return Result{Status: structs.CheckCritical, Output: fmt.Sprintf("TCP connect %s: %v", c.addr, err)}
	}
	conn.Close()
	return Result{Status: structs.CheckPassing, Output: fmt.Sprintf("TCP connect %s: Success", c.addr)}
}
