package base

import (
	"context"
	"testing"
)

func TestExitFirstSetWinsAndWaitDelivers(t *testing.T) {
	e := NewExit()
	if res, _ := e.Result(); res != nil {
		t.Fatalf("result before Set: %+v", res)
	}
	ch := e.Wait(context.Background())
	e.Set(&ExitResult{ExitCode: 3})
	e.Set(&ExitResult{ExitCode: 9})
	if res := <-ch; res == nil || res.ExitCode != 3 {
		t.Fatalf("wait got %+v, want exit code 3", res)
	}
	if _, ok := <-ch; ok {
		t.Fatal("wait channel not closed after the result")
	}
}

func TestExitWaitEndsWithContext(t *testing.T) {
	e := NewExit()
	ctx, cancel := context.WithCancel(context.Background())
	ch := e.Wait(ctx)
	cancel()
	if res, ok := <-ch; ok {
		t.Fatalf("got %+v after cancel, want a closed channel", res)
	}
}
