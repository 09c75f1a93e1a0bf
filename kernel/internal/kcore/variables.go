package kernel

import "sort"

func sortVariables(vs []Variable) {
	sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
}
