package main

// Ring runs n nodes, each a goroutine, connected in a ring by channels:
// node i receives the token from node i-1 and passes it to node i+1 (node
// n-1 passes it to node 0). The token starts at node 0 and goes round the
// ring `rounds` times; each node appends its number to the trace while it
// holds the token. Ring returns the trace once the token has gone round,
// and every goroutine it started has stopped.
func Ring(n, rounds int) []int {
	var trace []int
	// start the nodes, send the token to node 0, wait until it has gone
	// round, stop the nodes
	return trace
}
