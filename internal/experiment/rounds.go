package experiment

// RoundOrder returns the order in which round (from 1) runs n binaries:
// their indexes rotated by one each round, so no binary always runs first
// and each runs beside the others under the same load.
func RoundOrder(round, n int) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = (i + round - 1) % n
	}
	return order
}
