import Foundation

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

    static func report(_ name: String, _ value: Double, digits: Int = 2) {
        print("\(name): \(String(format: "%.\(digits)f", value))")
    }
}
