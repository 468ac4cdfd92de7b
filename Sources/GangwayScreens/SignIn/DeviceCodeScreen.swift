import Foundation

/// Sign-in through the device authorization grant (RFC 8628), for a device that cannot
/// show the identity provider's page: the person opens the verification address on a
/// phone or a computer, types the code (or scans the address with the code in it), signs
/// in there and approves.
///
/// The screen waits while the flow polls the server; the flow dismisses it by cancelling
/// the task that presents it, once the server answered (approved, denied or expired).
/// The person can give up with ``Input/cancel``.
public struct DeviceCodeScreen: ScreenModel {
    /// What the user can do.
    public enum Input: Sendable, Hashable {
        case cancel
    }

    /// What the screen ends with when the person, not the server, ends it.
    public enum Outcome: Sendable, Hashable {
        case cancelled
    }

    /// Texts shown on the screen.
    public struct Strings: Sendable, Hashable {
        public var title = StringTable.text("deviceCode.title")
        /// Followed by the verification address.
        public var visit = StringTable.text("deviceCode.visit")
        /// Followed by the user code.
        public var enterCode = StringTable.text("deviceCode.enterCode")
        public var scan = StringTable.text("deviceCode.scan")
        /// `%d` is the minutes and `%02d` the seconds left.
        public var expiresIn = StringTable.text("deviceCode.expiresIn")
        public var waiting = StringTable.text("deviceCode.waiting")
        public var cancel = StringTable.text("deviceCode.cancel")
        public init() {}
    }

    public var kind: ScreenKind { .deviceCode }
    /// Texts, replaceable by the app.
    public var strings: Strings
    /// What the person types at the verification page, as `XXXX-XXXX`.
    public let userCode: String
    /// The verification page.
    public let verificationURL: URL
    /// The verification page with the code in it, for a QR code.
    public let verificationURLComplete: URL?
    /// When the code stops working.
    public let expiresAt: Date
    /// Why the person signs in, such as "Sign in again as Alice Martin."
    public let message: String?

    public init(
        userCode: String,
        verificationURL: URL,
        verificationURLComplete: URL? = nil,
        expiresAt: Date,
        message: String? = nil,
        strings: Strings = Strings()
    ) {
        self.userCode = userCode
        self.verificationURL = verificationURL
        self.verificationURLComplete = verificationURLComplete
        self.expiresAt = expiresAt
        self.message = message
        self.strings = strings
    }

    /// The countdown line at `now`: minutes and seconds until the code expires, never
    /// below zero.
    public func countdown(at now: Date) -> String {
        let seconds = max(0, Int(expiresAt.timeIntervalSince(now).rounded(.up)))
        return StringTable.format(strings.expiresIn, [seconds / 60, seconds % 60])
    }

    public mutating func handle(_ input: Input) -> ScreenStep<Outcome> {
        switch input {
        case .cancel: .finish(.cancelled)
        }
    }
}
