import Foundation

/// The time of day, read in one place. Every type that needs it takes a `now` closure,
/// which a test replaces with a fixed or stepping clock; this is that closure's default
/// everywhere, so nothing else in Gangway reads the system's clock.
public enum WallClock {
    /// Now, by the system's clock.
    @Sendable public static func now() -> Date { Date() }
}
