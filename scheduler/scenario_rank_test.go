package scheduler_test

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nomadish/nomadish/structs"
)

// Scenario arguments for ranking (rank_*.go):
//
//	node add … [meta=rack:r1,zone:a]
//	job add … [affinity=<attr>:<op>:<value>:<weight>[;…]]   (group level)
//	          [spread=<attr>[:<weight>[:<value>=<percent>,…]][;…]]   (group level; weight 50)
//	print metrics shows each top node's final score and its non-zero scorer scores.

// nodeRankArgs sets the node's meta from meta=k:v,….
func (sc *scenario) nodeRankArgs(n *structs.Node, args map[string]string) {
	for _, kv := range list(args["meta"]) {
		k, v, _ := strings.Cut(kv, ":")
		if n.Meta == nil {
			n.Meta = map[string]string{}
		}
		n.Meta[k] = v
	}
}

// jobRankArgs sets the group's affinities and spreads.
func (sc *scenario) jobRankArgs(j *structs.Job, args map[string]string) {
	tg := j.TaskGroups[0]
	for _, spec := range splitNonEmpty(args["affinity"], ";") {
		f := strings.Split(spec, ":")
		if len(f) != 4 {
			sc.t.Fatalf("affinity %q: want attr:op:value:weight", spec)
		}
		w, err := strconv.Atoi(f[3])
		if err != nil {
			sc.t.Fatalf("affinity %q: %v", spec, err)
		}
		tg.Affinities = append(tg.Affinities, &structs.Affinity{LTarget: f[0], Operand: f[1], RTarget: f[2], Weight: int8(w)})
	}
	for _, spec := range splitNonEmpty(args["spread"], ";") {
		f := strings.SplitN(spec, ":", 3)
		s := &structs.Spread{Attribute: f[0], Weight: structs.DefaultSpreadWeight}
		if len(f) > 1 {
			w, err := strconv.Atoi(f[1])
			if err != nil {
				sc.t.Fatalf("spread %q: %v", spec, err)
			}
			s.Weight = int8(w)
		}
		if len(f) > 2 {
			for _, t := range list(f[2]) {
				v, pct, _ := strings.Cut(t, "=")
				p, err := strconv.Atoi(pct)
				if err != nil {
					sc.t.Fatalf("spread target %q: %v", t, err)
				}
				s.SpreadTarget = append(s.SpreadTarget, &structs.SpreadTarget{Value: v, Percent: uint8(p)})
			}
		}
		tg.Spreads = append(tg.Spreads, s)
	}
}

func splitNonEmpty(s, sep string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, sep)
}

// scoreLine prints one top node of a metric: the final score, then each
// scorer's non-zero score by name.
func scoreLine(s *structs.NodeScoreMeta) string {
	out := fmt.Sprintf("  %s score=%.3f", s.NodeID, s.NormScore)
	for _, name := range sortedKeys(s.Scores) {
		if v := s.Scores[name]; v != 0 {
			out += fmt.Sprintf(" %s=%.3f", name, v)
		}
	}
	return out
}
