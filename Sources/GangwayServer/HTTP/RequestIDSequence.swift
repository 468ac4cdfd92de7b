import Synchronization

/// Request IDs for requests that bring none: 16 hex digits, a random number drawn once
/// per process followed by a counter.
///
/// Unique within a process and, with the random part, across the processes that share
/// a database; they identify a request in the log, they do not authorize anything, so
/// they need not be unpredictable. Drawing each from the system's random source cost a
/// system call per request.
final class RequestIDSequence: Sendable {
    private let prefix: UInt32
    private let counter = Atomic<UInt32>(0)

    init<Generator: RandomNumberGenerator>(using generator: inout Generator) {
        prefix = UInt32.random(in: .min ... .max, using: &generator)
    }

    convenience init() {
        var generator = SystemRandomNumberGenerator()
        self.init(using: &generator)
    }

    /// The next ID.
    func next() -> String {
        let count = counter.add(1, ordering: .relaxed).newValue
        return (UInt64(prefix) << 32 | UInt64(count)).hexString
    }
}

extension UInt64 {
    /// The value as 16 lowercase hex digits, zero-padded.
    var hexString: String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                let nibble = UInt8(truncatingIfNeeded: self >> UInt64(60 - 4 * index)) & 0xF
                buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
            return 16
        }
    }
}
