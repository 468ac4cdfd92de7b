import CryptoExtras
import Foundation
import GangwayPolicy

#if canImport(Glibc)
    import Glibc
#endif

/// Timing helpers: the median of several runs, in milliseconds.
enum Measure {
    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1_000 + Double(attoseconds) / 1e15
    }

    /// The median time of `repetitions` runs of `body`; `prepare` runs untimed before each.
    static func median(
        repetitions: Int,
        prepare: () throws -> Void = {},
        _ body: () throws -> Void
    ) rethrows -> Double {
        let clock = ContinuousClock()
        var times: [Double] = []
        for _ in 0..<repetitions {
            try prepare()
            let start = clock.now
            try body()
            times.append(milliseconds(clock.now - start))
        }
        times.sort()
        return times[times.count / 2]
    }

    /// The median time of `repetitions` runs of an async `body`.
    static func median(
        repetitions: Int,
        prepare: () async throws -> Void = {},
        _ body: () async throws -> Void
    ) async rethrows -> Double {
        let clock = ContinuousClock()
        var times: [Double] = []
        for _ in 0..<repetitions {
            try await prepare()
            let start = clock.now
            try await body()
            times.append(milliseconds(clock.now - start))
        }
        times.sort()
        return times[times.count / 2]
    }

    /// The median time of the passcode key derivation alone (PBKDF2-SHA256 at `rounds`),
    /// the floor under every unlock.
    static func keyDerivation(rounds: Int, repetitions: Int) throws -> Double {
        let salt = Data((0..<16).map { UInt8($0) })
        return try median(repetitions: repetitions) {
            _ = try KDF.Insecure.PBKDF2.deriveKey(
                from: Array("Unlock-Passcode-1".utf8),
                salt: salt,
                using: .sha256,
                outputByteCount: 32,
                unsafeUncheckedRounds: rounds
            )
        }
    }

    /// The processor time this process has used so far (every thread, user and system),
    /// in milliseconds: what a piece of work cost, less swayed than its wall time by what
    /// else the machine runs.
    static func processorMilliseconds() -> Double {
        // clock(): the processor time of the whole process; POSIX fixes CLOCKS_PER_SEC at
        // one million.
        Double(clock()) / 1_000
    }

    /// The middle of `values` (the upper one of an even count); NaN for none.
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    /// The value below which `fraction` of `values` lie; NaN for none.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    /// The median, over several runs of samples, of each run's `fraction` percentile.
    static func median(of runs: [[Double]], percentile fraction: Double) -> Double {
        median(runs.map { percentile($0, fraction) })
    }

    static func report(_ name: String, _ value: Double, digits: Int = 2) {
        print("\(name): \(String(format: "%.\(digits)f", value))")
    }
}
