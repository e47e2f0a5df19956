// Package ktimer is a one-shot timer the kernel keeps: on Linux a timerfd,
// read through Go's network poller with raw system calls; elsewhere a
// time.Timer. The watcher's look waits on one between looks
// (client/langgraph/stream.go), as the bench's bare look does
// (internal/bench/floor.go).
//
// An idle Go process that waits on a Go timer is woken more than once for
// each: the thread waiting in epoll_wait is given the timer's delay in whole
// milliseconds, rounded down, so it wakes up to a millisecond early and
// waits again; and the runtime's monitor thread, sysmon, sleeps only until
// the next Go timer, so it wakes too, and again 20 µs later. Five looks a
// second were 20-28 wake-ups a second before any work (a bare Go program
// sleeping 200 ms in a loop, on this machine). A timerfd's expiry is a
// readable file: the waiting thread is woken once, when it is due, and with
// no Go timer pending sysmon sleeps on (it is not woken by the network
// poller, and raw system calls do not wake it either). The same program
// waiting on a timerfd woke 5 times a second, and cost a third of the CPU.
//
// Timer's semantics are time.Timer's since Go 1.23: after Reset or Stop
// returns, no value from an earlier arming is received from C.
package ktimer
