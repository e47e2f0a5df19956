// Package rawconn reads and writes a TCP connection with raw system calls;
// the watcher's look (client/langgraph/lookconn.go) and the bench's bare
// look (internal/bench/floor.go) use it.
//
// Go enters every ordinary system call through the scheduler (entersyscall),
// which wakes the runtime's monitor thread, sysmon, when it sleeps: an idle
// process's sysmon sleeps until the next timer, so each look woke it for its
// write and again for its read, and it then polled every 20 µs until the
// process was idle again. Measured on the 2-core machine of
// docs/performance.md (a side measurement, not the bench), a bare Go program
// making the look five times a second on one processor woke 51-55 times a
// second and cost 5.3-7.0 s of CPU an hour; the same program reading and
// writing its socket this way woke 15 times a second and cost 3.3-3.6.
//
// The socket is non-blocking (as every socket of Go's net package), so a
// read or write returns at once, with EAGAIN when it would block; the
// process then waits for the socket through Go's network poller, as an
// ordinary read does (syscall.RawConn), with the connection's deadlines.
// Elsewhere than on Linux, Wrap returns the connection as it is.
package rawconn
