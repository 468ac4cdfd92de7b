/// An instant of a clock that counts from an origin of its own: the time since then.
///
/// The instant of clocks that move by hand (GangwayTesting's `ManualMonotonicClock`, the
/// terminal app's clock that can pretend time passed), where only differences matter.
public struct ElapsedInstant: InstantProtocol {
    /// The time since the clock's origin.
    public var sinceOrigin: Duration

    public init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    public func advanced(by duration: Duration) -> Self {
        Self(sinceOrigin: sinceOrigin + duration)
    }

    public func duration(to other: Self) -> Duration {
        other.sinceOrigin - sinceOrigin
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.sinceOrigin < rhs.sinceOrigin
    }
}
