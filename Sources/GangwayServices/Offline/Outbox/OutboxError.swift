import Foundation
import GangwayProtocol

/// Why the outbox could not do what was asked. New cases may be added.
public struct OutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The outbox's file could not be created, read or written.
        public static let ioFailure = Code(rawValue: "io-failure")
        /// A row could not be read back.
        public static let corrupt = Code(rawValue: "corrupt")
        /// A change could not be sealed.
        public static let sealingFailed = Code(rawValue: "sealing-failed")
    }

    public var code: Code
    /// What failed, naming no value.
    public var message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
