// Package shortrepr is the Python function both kernels show a variable
// with (the variables view, list_variables): its repr as CPython writes it,
// cut after a number of characters with a marker, computed by walking the
// value only as far as the cut, so a huge, deep or self-referencing value
// costs a few hundred steps (self-references show as CPython's [...]). It
// runs on Monty (fed with the listing) and on CPython (in the container's
// driver).
package shortrepr

import _ "embed"

// Source defines Func(v, limit, safe): v's repr cut after limit
// characters (a longer one ends in "…"); with safe true, no object's own
// __repr__ is called (objects of other types than the built-in containers,
// named tuples and dataclasses show as <T object>).
//
//go:embed shortrepr.py
var Source string

// Func is the name of the function Source defines.
const Func = "__backyard_short_repr__"
