import Foundation
import GangwayFlows
import GangwayTesting
import Synchronization
import Testing

@Suite("Manual clocks move only when told")
struct ManualClockTests {
    @Test func theMonotonicClockReadsWhatItWasAdvancedByAndNeverGoesBack() {
        let clock = ManualMonotonicClock(.seconds(10))
        let start = clock.now
        clock.advance(by: .seconds(5))
        clock.advance(by: .seconds(-100))
        #expect(clock.reading == .seconds(15))
        #expect(start.duration(to: clock.now) == .seconds(5))
        #expect(start < clock.now)
    }

    @Test func aSleeperWakesOnlyOnceTheClockReachesItsDeadline() async throws {
        let clock = ManualMonotonicClock()
        let deadline = clock.now.advanced(by: .seconds(60))
        let woke = Mutex(false)
        let sleeper = Task {
            try await clock.sleep(until: deadline)
            woke.withLock { $0 = true }
        }
        clock.advance(by: .seconds(30))
        try await Task.sleep(for: .milliseconds(50))
        #expect(woke.withLock { $0 } == false)
        clock.advance(by: .seconds(30))
        try await sleeper.value
        #expect(woke.withLock { $0 })
        // A deadline already passed returns at once.
        try await clock.sleep(until: deadline)
    }

    @Test func aCancelledSleeperThrows() async {
        let clock = ManualMonotonicClock()
        let sleeper = Task { try await clock.sleep(until: clock.now.advanced(by: .seconds(60))) }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }

    @Test func theWallClockShowsWhatItWasAdvancedBy() {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_000))
        clock.advance(by: .milliseconds(2_500))
        #expect(clock.date == Date(timeIntervalSince1970: 1_002.5))
        #expect(clock.now() == clock.date)
    }
}
