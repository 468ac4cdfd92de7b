import Foundation
import GangwayPolicy

/// The count of consecutive wrong passcodes and when the last one was entered.
///
/// It is written and synced before each key derivation and reset only after a success,
/// so killing the process during the derivation still counts the attempt. It is
/// authenticated with the device key's record key: a missing or altered record while
/// key slots exist is tampering, and the store then refuses to unlock.
struct LockoutRecord: Sendable, Hashable {
    var failures: Int
    var lastFailureAt: Date?

    static let cleared = LockoutRecord(failures: 0, lastFailureAt: nil)

    /// The bytes the record's MAC covers.
    var macBody: Data {
        var data = Data()
        withUnsafeBytes(of: Int64(failures).bigEndian) { data.append(contentsOf: $0) }
        let time = lastFailureAt.map { $0.timeIntervalSince1970.bitPattern } ?? UInt64.max
        withUnsafeBytes(of: time.bigEndian) { data.append(contentsOf: $0) }
        return data
    }

    /// How many more wrong passcodes the retry limit allows.
    func triesLeft(retryLimit: Int) -> Int { max(0, retryLimit - failures) }

    /// When the next attempt is allowed under the delay schedule.
    func nextAttemptAllowed(delays: LockoutDelays?) -> Date? {
        guard let delays, let lastFailureAt else { return nil }
        let delay = delays.delay(afterFailures: failures)
        guard delay > .zero else { return nil }
        let (seconds, attoseconds) = delay.components
        return lastFailureAt.addingTimeInterval(Double(seconds) + Double(attoseconds) / 1e18)
    }
}
