// randbot in Go: remembers the last `legal` line and answers one of its moves.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"example.org/pick"
)

func main() {
	rng := pick.New(7)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	var legal []string
	for in.Scan() {
		line := strings.TrimRight(in.Text(), "\r")
		switch {
		case line == "ugi":
			fmt.Println("id name randbot-go\nid author arena examples\nugiok")
		case line == "isready":
			fmt.Println("readyok")
		case strings.HasPrefix(line, "legal "):
			legal = strings.Fields(line[6:])
		case line == "go" || strings.HasPrefix(line, "go "):
			move := "(none)"
			if len(legal) > 0 {
				move = legal[rng.Below(len(legal))]
			}
			legal = nil
			fmt.Println("bestmove " + move)
		case line == "quit":
			return
		}
	}
}
