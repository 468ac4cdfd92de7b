import Synchronization
import W3CTraceContext

/// Trace and span IDs for the server's spans and for the trace context it passes on: a
/// SplitMix64 sequence seeded once from a random source, so an ID costs an atomic add
/// and a few multiplications, not a system call.
///
/// The IDs are unique and evenly spread, as sampling by trace ID needs. They name traces
/// and spans and authorize nothing, so they need not be unpredictable.
final class TraceIDSource: Sendable {
    private let state: Atomic<UInt64>

    init(random: inout some RandomNumberGenerator) {
        state = Atomic(random.next())
    }

    /// A source seeded from the system's random source, for the process.
    static let process: TraceIDSource = {
        var random = SystemRandomNumberGenerator()
        return TraceIDSource(random: &random)
    }()

    /// The next 64 bits: SplitMix64's step and output function.
    private func next() -> UInt64 {
        var value = state.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A span ID: never all zeros, which W3C Trace Context reserves.
    func spanID() -> SpanID {
        var bytes = SpanID.null.bytes
        repeat {
            withUnsafeMutableBytes(of: &bytes) { $0.storeBytes(of: next().bigEndian, as: UInt64.self) }
        } while SpanID(bytes: bytes) == .null
        return SpanID(bytes: bytes)
    }

    /// A trace ID: never all zeros.
    func traceID() -> TraceID {
        var bytes = TraceID.null.bytes
        repeat {
            withUnsafeMutableBytes(of: &bytes) { buffer in
                buffer.storeBytes(of: next().bigEndian, toByteOffset: 0, as: UInt64.self)
                buffer.storeBytes(of: next().bigEndian, toByteOffset: 8, as: UInt64.self)
            }
        } while TraceID(bytes: bytes) == .null
        return TraceID(bytes: bytes)
    }
}
