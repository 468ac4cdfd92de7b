import Foundation
import GangwaySystem
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Background work: long blocking work on a thread of its own, below the process's priority")
struct BackgroundWorkTests {
    #if os(Linux)
        /// The niceness of the calling thread, read from /proc/thread-self/stat (its 19th field).
        private static func threadNiceness() -> Int? {
            guard let stat = try? String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            // After the command's ")" the fields start at the 3rd (state): niceness is the 19th.
            return fields.count > 16 ? Int(fields[16]) : nil
        }

        @Test("the work runs at niceness 10 under the idle policy on its own thread; the caller's threads keep theirs")
        func lowered() async throws {
            let before = (Self.threadNiceness(), sched_getscheduler(0))
            let inside = await BackgroundWork.run {
                (Self.threadNiceness(), Thread.isMainThread, sched_getscheduler(0))
            }
            #expect(inside.0 == Int(BackgroundWork.niceness))
            #expect(inside.1 == false)
            // SCHED_IDLE is 5 (sched.h).
            #expect(inside.2 == 5)
            #expect(Self.threadNiceness() == before.0, "only the work's thread was lowered")
            #expect(sched_getscheduler(0) == before.1)
        }
    #endif
}
