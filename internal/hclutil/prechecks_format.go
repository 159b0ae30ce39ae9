package hclutil

import (
	"math/big"

	"github.com/zclconf/go-cty/cty"
)

// intOf returns a whole number argument, saturated to [0, satCap].
func intOf(v cty.Value) int {
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Number {
		return 0
	}
	i, acc := v.AsBigFloat().Int64()
	if i < 0 || (acc == big.Below && i == 0) {
		return 0
	}
	return int(min(i, satCap))
}

// verbStats scans a format string: the number of verbs and the largest
// width or precision any of them asks for.
func verbStats(f string) (verbs, width int) {
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		if i+1 < len(f) && f[i+1] == '%' {
			i++
			continue
		}
		verbs++
		n := 0
		for i++; i < len(f); i++ {
			c := f[i]
			switch {
			case c >= '0' && c <= '9':
				n = satAdd(satMul(n, 10), int(c-'0'))
				width = max(width, n)
				continue
			case c == '.' || c == '[' || c == ']' || c == '-' || c == '+' || c == '#' || c == ' ':
				n = 0
				continue
			}
			break
		}
	}
	return verbs, width
}

// valueCost bounds the text a verb may render a value as (%v renders
// collections as JSON).
func valueCost(v cty.Value) int {
	elems, bytes := Size(v, satCap, satCap)
	return satAdd(satAdd(bytes, satMul(elems, 16)), 64)
}

// formatSize is format(fmt, args...) rendered rows times over, each verb
// rendering at most the costliest argument (padded to the widest width).
func formatSize(args []cty.Value, rows int, cost func(cty.Value) int) int {
	f := strOf(args[0])
	verbs, width := verbStats(f)
	most := 0
	for _, a := range args[1:] {
		most = max(most, cost(a))
	}
	return satMul(rows, satAdd(len(f), satMul(verbs, satAdd(most, width))))
}

// elementCost is valueCost of a list's costliest element (formatlist
// renders one element per row), or of a scalar.
func elementCost(v cty.Value) int {
	ty := v.Type()
	if !(ty.IsListType() || ty.IsTupleType() || ty.IsSetType()) || v.IsNull() {
		return valueCost(v)
	}
	most := 0
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		most = max(most, valueCost(e))
	}
	return most
}

// formatListSize is formatlist(fmt, args...): one row per element of the
// longest list argument, each as large as format with the largest element.
func formatListSize(args []cty.Value) (int, int) {
	rows := 1
	for _, a := range args[1:] {
		if ty := a.Type(); ty.IsListType() || ty.IsTupleType() || ty.IsSetType() {
			rows = max(rows, lenOf(a))
		}
	}
	return rows, formatSize(args, rows, elementCost)
}
