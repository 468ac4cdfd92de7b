import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Long blocking work (a backup's copy of a database) on a thread of its own, never one of
/// Swift's cooperative threads, at a lower CPU priority than the process's other threads:
/// a server in the same process, or on the same machine, answers first.
public enum BackgroundWork {
    /// The niceness the thread runs at (the process's, when that is higher already).
    public static let niceness: Int32 = 10

    /// Linux's `SCHED_IDLE` (sched.h), which Glibc's module leaves out.
    private static let idlePolicy: Int32 = 5

    /// `work`'s result, run on a new thread at ``niceness``, under Linux's idle policy.
    public static func run<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                lowerThisThread()
                continuation.resume(returning: work())
            }
            thread.start()
        }
    }

    /// Lowers the calling thread's priority (Linux's niceness is a thread's own); the
    /// thread ends with the work, so nothing else runs at it.
    private static func lowerThisThread() {
        #if os(Linux)
            // The thread's ID, from the link /proc/thread-self (PID/task/TID).
            var buffer = [CChar](repeating: 0, count: 64)
            let count = readlink("/proc/thread-self", &buffer, buffer.count - 1)
            guard count > 0 else { return }
            let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let id = link.split(separator: "/").last.flatMap({ id_t($0) }) else { return }
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            errno = 0
            let current = getpriority(which, id)
            if errno == 0, current < niceness { _ = setpriority(which, id, niceness) }
            // Linux's idle policy: the thread runs only on a core no other thread wants,
            // and gives way at once to one that wakes (a niceness alone leaves a woken
            // request waiting for the rest of the thread's slice).
            var parameters = sched_param()
            parameters.sched_priority = 0
            _ = sched_setscheduler(0, Self.idlePolicy, &parameters)
        #endif
    }
}
