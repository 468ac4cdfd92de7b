import Foundation
import GangwayTesting
import Logging
import Synchronization
import Testing

@testable import GangwayServer

/// The export's diagnostics, limited: a warning the exporter repeats at each batch reaches
/// the log once per interval, then with how many were held back; other messages pass.
@Suite("The spans' export warns once per ten seconds of each kind, saying how many it held back")
struct RepeatLimitedLogTests {
    /// A clock a test moves.
    final class Clock: Sendable {
        let start = ContinuousClock.now
        let offset = Mutex(Duration.zero)

        var now: ContinuousClock.Instant { start + offset.withLock { $0 } }
        func advance(_ duration: Duration) { offset.withLock { $0 += duration } }
    }

    @Test("100 drops in a second are one line; the next after ten seconds says 99 were held; another message passes")
    func limited() {
        let capture = LogCapture()
        let clock = Clock()
        let logger = Logger(label: "gangway.traces") { _ in
            RepeatLimitedLogHandler(base: capture.logger, now: { clock.now })
        }
        for _ in 0..<100 {
            logger.warning("Spans were dropped", metadata: ["dropped_count": "3"])
            clock.advance(.milliseconds(10))
        }
        #expect(capture.text.components(separatedBy: "Spans were dropped").count - 1 == 1, "\(capture.text)")
        logger.warning("Failed to export batch.")
        #expect(capture.text.contains("Failed to export batch."))
        clock.advance(.seconds(10))
        logger.warning("Spans were dropped", metadata: ["dropped_count": "5"])
        #expect(capture.text.components(separatedBy: "Spans were dropped").count - 1 == 2, "\(capture.text)")
        #expect(capture.text.contains("repeated") && capture.text.contains("99"), "\(capture.text)")
    }
}
