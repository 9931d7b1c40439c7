// SPDX-License-Identifier: ISC
// A Go program that exercises the runtime's syscall paths: goroutines and
// threads, timers, signals, a child process, a loopback HTTP round trip,
// and (with an argument) syscall.Setuid, which replays the call on every
// thread through runtime.runPerThreadSyscall.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

func main() {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); time.Sleep(2 * time.Millisecond) }()
	}
	wg.Wait()
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	syscall.Kill(os.Getpid(), syscall.SIGUSR1)
	<-c
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("listen:", err)
		os.Exit(1)
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "pong")
	}))
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		fmt.Println("get:", err)
		os.Exit(1)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	out, err := exec.Command("echo", "child").Output()
	fmt.Printf("%s %s %v\n", body, out, err)
	if len(os.Args) > 1 {
		if err := syscall.Setuid(os.Getuid()); err != nil {
			fmt.Println("setuid:", err)
		}
	}
}
